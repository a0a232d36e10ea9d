"""Judge types ``arithmetic``, ``symbolic``, ``numeric`` and ``final_answer``: the math checks of a
step (:mod:`accord.mathcheck`), each one column, λ 1.0."""

from __future__ import annotations

from dataclasses import dataclass, fields

from accord.adapters._registry import JudgeSpec, register_judge


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


def _options(spec: JudgeSpec) -> dict:
    """The entry's own options (the judge's defaults for those not given)."""
    common = {f.name for f in fields(JudgeSpec)} - {"name"}
    return {
        f.name: getattr(spec, f.name)
        for f in fields(spec)
        if f.name not in common and getattr(spec, f.name) is not None
    }


@register_judge("arithmetic", ArithmeticSpec, columns={"arithmetic": 1.0})
def _arithmetic(spec: ArithmeticSpec, models: dict):
    """Exact arithmetic: every calculation the step writes out is recomputed."""
    from accord.adapters.math import ArithmeticJudge

    return ArithmeticJudge(**_options(spec))


@register_judge("symbolic", SymbolicSpec, columns={"symbolic": 1.0})
def _symbolic(spec: SymbolicSpec, models: dict):
    """Symbolic equivalence: each equation the step writes holds, or follows from the lines before (sympy)."""
    from accord.adapters.math import SymbolicEquivalenceJudge

    return SymbolicEquivalenceJudge(**_options(spec))


@register_judge("numeric", NumericSpec, columns={"numeric": 1.0})
def _numeric(spec: NumericSpec, models: dict):
    """Numeric sampling: each equation the step writes holds at random points."""
    from accord.adapters.math import NumericSamplingJudge

    return NumericSamplingJudge(**_options(spec))


@register_judge("final_answer", FinalAnswerSpec, columns={"final_answer": 1.0})
def _final_answer(spec: FinalAnswerSpec, models: dict):
    """The final answer the step states against a reference answer (math-verify's equivalence)."""
    from accord.adapters.math import FinalAnswerJudge

    return FinalAnswerJudge(**_options(spec))
