"""Judges of mathematical steps: arithmetic in words, symbolic equivalence, numeric sampling and
final answers (math-verify), with a time limit that holds in threads.

>>> from accord.adapters.math import ArithmeticJudge
>>> from accord.protocols import StepContext
>>> ArithmeticJudge().score(StepContext("q"), ["She has 12 x 2 = 24 apples."])[0].value
1.0
"""

from accord.adapters.math.judges import (
    ArithmeticJudge,
    FinalAnswerJudge,
    NumericSamplingJudge,
    SymbolicEquivalenceJudge,
)
from accord.adapters.math.timelimit import CheckError, CheckTimeout, call_with_limit

__all__ = [
    "ArithmeticJudge",
    "CheckError",
    "CheckTimeout",
    "FinalAnswerJudge",
    "NumericSamplingJudge",
    "SymbolicEquivalenceJudge",
    "call_with_limit",
]
