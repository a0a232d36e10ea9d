"""Mathematics in text, read once and verified: judges of solution steps (arithmetic in words,
symbolic equivalence, numeric sampling, final answers) and answer equivalence (:mod:`.answers`:
the jury's ``auto``/``math``/``text`` equivalences and the final-answer reward).

Both sides share one front end: ``parse -> verify``. Text becomes sympy in one layer
(:func:`parse_sympy`, :mod:`.sympy_text`), whose strategy a frozen config selects
(:class:`StepConfig`: accord's own parser of step notation; :class:`AnswerConfig`: final answers,
sympy's parser with answer names and math-verify for LaTeX), and every sympy or math-verify call
that may run long goes through one worker path with a time limit that holds in threads
(:mod:`.limited`, on :mod:`accord.timelimit`).

>>> from accord.adapters.math import ArithmeticJudge
>>> from accord.protocols import StepContext
>>> ArithmeticJudge().score(StepContext("q"), ["She has 12 x 2 = 24 apples."])[0].value
1.0
"""

from importlib import import_module

_EXPORTS = {
    "ArithmeticJudge": "_judges",
    "FinalAnswerJudge": "_judges",
    "NumericSamplingJudge": "_judges",
    "SymbolicEquivalenceJudge": "_judges",
    "AnswerGrader": "answers",
    "equivalence": "answers",
    "AnswerConfig": "_config",
    "GradeConfig": "_config",
    "StepConfig": "_config",
    "parse_sympy": "_sympy_text",
    "classify": "_steps",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str):
    """Exports load on first use: a check worker importing one light module (exact arithmetic)
    does not import sympy and math-verify with the judges or the answers."""
    if name in _EXPORTS:
        return getattr(import_module(f"accord.adapters.math.{_EXPORTS[name]}"), name)
    raise AttributeError(f"module 'accord.adapters.math' has no attribute {name!r}")
