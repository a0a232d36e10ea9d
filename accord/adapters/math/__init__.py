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

from dataclasses import dataclass, fields
from importlib import import_module

from accord.adapters.registry import Built, JudgeSpec, register_judge

_EXPORTS = {
    "ArithmeticJudge": "judges",
    "FinalAnswerJudge": "judges",
    "NumericSamplingJudge": "judges",
    "SymbolicEquivalenceJudge": "judges",
    "AnswerGrader": "answers",
    "equivalence": "answers",
    "AnswerConfig": "config",
    "GradeConfig": "config",
    "StepConfig": "config",
    "parse_sympy": "sympy_text",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str):
    """Exports load on first use: a check worker importing one light module (exact arithmetic)
    does not import sympy and math-verify with the judges or the answers."""
    if name in _EXPORTS:
        return getattr(import_module(f"accord.adapters.math.{_EXPORTS[name]}"), name)
    raise AttributeError(f"module 'accord.adapters.math' has no attribute {name!r}")


# ---------------------------------------------------------------- judge types for a panel
@dataclass(frozen=True)
class ArithmeticSpec(JudgeSpec):
    """``{type: arithmetic}``."""


@dataclass(frozen=True)
class SymbolicSpec(JudgeSpec):
    """``{type: symbolic, mode: derivation|solution, timeout: s, seed: n}``."""

    timeout: float | None = None
    seed: int | None = None
    mode: str | None = None


@dataclass(frozen=True)
class NumericSpec(SymbolicSpec):
    """``{type: numeric, mode: ..., timeout: s, seed: n, n_points: n}``."""

    n_points: int | None = None


@dataclass(frozen=True)
class FinalAnswerSpec(JudgeSpec):
    """``{type: final_answer, reference: TEXT, scope: any|final, timeout: s}``."""

    reference: str | None = None
    timeout: float | None = None
    scope: str | None = None


def _math_judge(cls_name: str, spec: JudgeSpec) -> Built:
    """The judge with the entry's options (its own defaults for those not given); λ 1.0."""
    options = {f.name: getattr(spec, f.name) for f in fields(spec) if f.name != "lam" and getattr(spec, f.name) is not None}
    return Built(getattr(import_module("accord.adapters.math.judges"), cls_name)(**options), (1.0,))


@register_judge("arithmetic", ArithmeticSpec, columns={"arithmetic": 1.0})
def _arithmetic(spec: ArithmeticSpec, models: dict) -> Built:
    return _math_judge("ArithmeticJudge", spec)


@register_judge("symbolic", SymbolicSpec, columns={"symbolic": 1.0})
def _symbolic(spec: SymbolicSpec, models: dict) -> Built:
    return _math_judge("SymbolicEquivalenceJudge", spec)


@register_judge("numeric", NumericSpec, columns={"numeric": 1.0})
def _numeric(spec: NumericSpec, models: dict) -> Built:
    return _math_judge("NumericSamplingJudge", spec)


@register_judge("final_answer", FinalAnswerSpec, columns={"final_answer": 1.0})
def _final_answer(spec: FinalAnswerSpec, models: dict) -> Built:
    return _math_judge("FinalAnswerJudge", spec)
