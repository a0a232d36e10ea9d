"""Every built-in judge type, registered: import this module before reading judge specs.

One line per module that registers judge types (see :mod:`accord.adapters.registry`); a new judge
type is one file with a ``@register_judge`` factory, imported here.
"""

from accord.adapters import code, embedding, math, prompted  # noqa: F401 - imported for their registrations
from accord.adapters.served import checkers  # noqa: F401 - code_check and critic
from accord.adapters.registry import (
    UNKNOWN_COLUMN_LAMBDA,
    Built,
    JudgeSpec,
    build_judges,
    column_lambdas,
    judge_types,
    parse_judge,
    register_judge,
)

__all__ = ["UNKNOWN_COLUMN_LAMBDA", "Built", "JudgeSpec", "build_judges", "column_lambdas", "judge_types",
           "parse_judge", "register_judge"]
