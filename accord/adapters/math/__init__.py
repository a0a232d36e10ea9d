"""Judges of mathematical steps: arithmetic in words, symbolic equivalence, numeric sampling and
final answers (math-verify), with a time limit that holds in threads.

>>> from accord.adapters.math import ArithmeticJudge
>>> from accord.protocols import StepContext
>>> ArithmeticJudge().score(StepContext("q"), ["She has 12 x 2 = 24 apples."])[0].value
1.0
"""

from importlib import import_module

_EXPORTS = {
    "ArithmeticJudge": "judges",
    "FinalAnswerJudge": "judges",
    "NumericSamplingJudge": "judges",
    "SymbolicEquivalenceJudge": "judges",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str):
    """Exports load on first use: a check worker importing one light module (exact arithmetic)
    does not import sympy and math-verify with the judges."""
    if name in _EXPORTS:
        return getattr(import_module(f"accord.adapters.math.{_EXPORTS[name]}"), name)
    raise AttributeError(f"module 'accord.adapters.math' has no attribute {name!r}")
