"""Four judges of mathematical steps, each implementing :class:`accord.protocols.Judge`.

A judge scores every candidate in [0, 1] or returns ``JudgeScore.failed(reason)`` when it cannot
parse the step, the step has nothing it checks, or the check ran past its time limit. The
symbolic, numeric and final-answer checks run in a time-limited worker process
(:mod:`accord.adapters.math.timelimit`), so a step that would make sympy hang costs at most
``timeout`` seconds, from any thread.
"""

from __future__ import annotations

from typing import Sequence

from accord.adapters.math import checks
from accord.adapters.math.arithmetic import check_arithmetic
from accord.adapters.math.timelimit import CheckError, CheckTimeout, call_with_limit
from accord.protocols import JudgeScore, StepContext

DEFAULT_TIMEOUT_S = 10.0


def _limited(fn, *args, timeout: float) -> JudgeScore:
    try:
        value, reason = call_with_limit(fn, *args, timeout=timeout)
    except CheckTimeout:
        return JudgeScore.failed(f"timed out after {timeout:g} s")
    except CheckError as exc:
        return JudgeScore.failed(f"check failed: {exc}")
    return JudgeScore(value, reason)


def _check_timeout(timeout: float) -> float:
    t = float(timeout)
    if not t > 0:
        raise ValueError(f"timeout must be > 0 seconds, got {timeout}")
    return t


class ArithmeticJudge:
    """Every ``a op b = c`` in a (natural-language) step is right: 1.0; one is wrong: 0.0."""

    def __init__(self, name: str = "arithmetic"):
        self.name = name

    def score(self, ctx: StepContext, candidates: Sequence[str]) -> list[JudgeScore]:
        return [JudgeScore(*check_arithmetic(c)) for c in candidates]


class SymbolicEquivalenceJudge:
    """The step's equalities hold by sympy simplification (identities, or consequences of the
    premises and the previous equation): 1.0, or 0.0 with the failing equality."""

    def __init__(self, name: str = "symbolic", timeout: float = DEFAULT_TIMEOUT_S, seed: int = 0):
        self.name = name
        self.timeout = _check_timeout(timeout)
        self.seed = seed

    def score(self, ctx: StepContext, candidates: Sequence[str]) -> list[JudgeScore]:
        prior = list(ctx.steps)
        return [_limited(checks.symbolic_check, c, prior, self.seed, timeout=self.timeout) for c in candidates]


class NumericSamplingJudge:
    """Fraction of random points where both sides agree; undefined points (division by zero)
    are reported as a domain problem, not as a wrong step."""

    def __init__(self, name: str = "numeric", timeout: float = DEFAULT_TIMEOUT_S, seed: int = 0, n_points: int = 24):
        if n_points < 2:
            raise ValueError(f"n_points must be >= 2, got {n_points}")
        self.name = name
        self.timeout = _check_timeout(timeout)
        self.seed = seed
        self.n_points = int(n_points)

    def score(self, ctx: StepContext, candidates: Sequence[str]) -> list[JudgeScore]:
        prior = list(ctx.steps)
        return [
            _limited(checks.numeric_check, c, prior, self.seed, self.n_points, timeout=self.timeout) for c in candidates
        ]


def final_answer_check(candidate: str, reference: str) -> tuple[float | None, str]:
    """math-verify equivalence of the answer in ``candidate`` to ``reference`` (runs in a worker;
    math-verify's own timeouts are off because they rely on signals)."""
    import logging

    from math_verify import parse, verify

    logging.getLogger("math_verify").setLevel(logging.ERROR)  # its "timeout disabled" notice: the limit is ours
    gold = parse(reference, parsing_timeout=None)
    if not gold:
        return None, f"cannot parse the reference answer {reference!r}"
    pred = parse(candidate, parsing_timeout=None)
    if not pred:
        return None, "no answer found in the step"
    ok = verify(gold, pred, timeout_seconds=None)
    return (1.0, f"answer {pred[-1]} matches {gold[-1]}") if ok else (0.0, f"answer {pred[-1]} differs from {gold[-1]}")


class FinalAnswerJudge:
    """The step's answer equals the reference (``math-verify``); reference from the constructor
    or from ``ctx.reference``."""

    def __init__(self, reference: str | None = None, name: str = "final_answer", timeout: float = DEFAULT_TIMEOUT_S):
        self.name = name
        self.reference = reference
        self.timeout = _check_timeout(timeout)

    def score(self, ctx: StepContext, candidates: Sequence[str]) -> list[JudgeScore]:
        ref = self.reference if self.reference is not None else ctx.reference
        if ref is None or not str(ref).strip():
            return [JudgeScore.failed("no reference answer to compare with") for _ in candidates]
        return [_limited(final_answer_check, c, str(ref), timeout=self.timeout) for c in candidates]
