"""The math judges: thin wrappers that put :mod:`accord.mathcheck`'s checks behind the
:class:`accord.protocols.Judge` contract (scores, abstentions, time limits per candidate).

>>> from accord.adapters.math import ArithmeticJudge
>>> from accord.protocols import StepContext
>>> ArithmeticJudge().score(StepContext("q"), ["She has 12 x 2 = 24 apples."])[0].value
1.0
"""

from accord.adapters.math._judges import (
    DEFAULT_TIMEOUT_S,
    ArithmeticJudge,
    FinalAnswerJudge,
    NumericSamplingJudge,
    SymbolicEquivalenceJudge,
)

__all__ = [
    "DEFAULT_TIMEOUT_S",
    "ArithmeticJudge",
    "FinalAnswerJudge",
    "NumericSamplingJudge",
    "SymbolicEquivalenceJudge",
]
