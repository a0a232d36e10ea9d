"""Four judges of mathematical steps, each implementing :class:`accord.protocols.Judge`.

A judge scores every candidate in [0, 1], abstains (``JudgeScore.abstain(reason)``) when the step
has nothing it checks or reads, or returns ``JudgeScore.failed(reason)`` when the check ran past
its time limit. The
symbolic, numeric and final-answer checks run in a time-limited, memory-limited worker process
(:mod:`accord.timelimit`), so a step that would make sympy hang costs at most
``timeout`` seconds, from any thread.

The symbolic and numeric judges read steps two ways (``mode``):

- ``"derivation"`` (default): one claim per line, as in ``accord check`` files: every equation must
  be an identity or follow from the premises or the previous equation (lines in prose are read
  as in ``"solution"``);
- ``"solution"``: steps of a real solution, prose with inline math
  (:mod:`accord.mathcheck.checks._claims`): an equation that states something is not an error; a
  score of 0 always comes with a shown evaluation or counterexample. ``ctx.metadata["next_step"]``
  (the text after the step, when known) lets a derived contradiction ("This is impossible") pass.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Sequence

from accord.mathcheck import (
    MISSING,
    READ_AGAIN,
    SHORT,
    UNPARSED_REFERENCE,
    by_answer_forms,
    carried_check,
    check_arithmetic,
    final_answer_check,
    numeric_check,
    run_limited,
    solution_check,
    symbolic_check,
)
from accord.protocols import JudgeScore, StepContext, context_key

DEFAULT_TIMEOUT_S = 10.0
READING_MODES = ("derivation", "solution")
FINAL_SCOPES = ("any", "final")


def _checked(value: float | None, why: str) -> JudgeScore:
    """A check's (score, why); a check that ran but found nothing to score abstains."""
    return JudgeScore.abstain(why) if value is None else JudgeScore(value, why)


def _limited(fn, *args, timeout: float) -> JudgeScore:
    got = run_limited(fn, *args, timeout=timeout)
    return _checked(*got.value) if got.ok else JudgeScore.failed(got.why)


def _check_timeout(timeout: float) -> float:
    t = float(timeout)
    if not t > 0:
        raise ValueError(f"timeout must be > 0 seconds, got {timeout}")
    return t


def _check_mode(mode: str) -> str:
    if mode not in READING_MODES:
        raise ValueError(f"mode must be one of {', '.join(READING_MODES)}, got {mode!r}")
    return mode


READ_S_PER_STEP = 0.05  # time allowed per earlier step when a long context is made or read again
_REFUTED: OrderedDict[tuple[bool, str], frozenset[int]] = OrderedDict()  # context key -> steps the check refuted
_REFUTED_LOCK = threading.Lock()
KEEP_REFUTED = 4096


def _refuted(real: bool, key: str) -> frozenset[int]:
    with _REFUTED_LOCK:
        return _REFUTED.get((real, key), frozenset())


def _remember(real: bool, key: str, refuted: frozenset[int]) -> None:
    """The steps refuted before the context ``key``: a worker that must make that context again
    (a new or replaced worker) is told them, so they are no premises there either."""
    with _REFUTED_LOCK:
        _REFUTED[(real, key)] = refuted
        _REFUTED.move_to_end((real, key))
        while len(_REFUTED) > KEEP_REFUTED:
            _REFUTED.popitem(last=False)


LONG_READ_MAX_S = 90.0  # at most, so that the read ends here (worker and context kept) before a panel's
# default 120 s limit per judge call gives up on the judge and leaves the read running


def _long_limit(timeout: float, n: int) -> float:
    return min(timeout + READ_S_PER_STEP * n, max(timeout, LONG_READ_MAX_S))


def _solution_scores(ctx: StepContext, candidates: Sequence[str], real: bool, timeout: float) -> list[JudgeScore]:
    """Each candidate checked in the context of the steps before; with a ``context_key`` in the
    metadata (:func:`accord.protocols.context_key`) the worker carries that context from the step
    before, so a step costs the same early or late in a long solution.

    A check that does not finish (it ran past its limit, or failed) costs that step alone: the step
    is scored as failed with the reason, and the worker that holds the context before it (the same
    worker, which stopped the check and stayed, or a new one given the steps) makes the context
    after it without reading it, so the next step is checked as usual instead of making that
    context again (the work that just ran out of time)."""
    following = str(ctx.metadata.get("next_step", "") or "")
    key = ctx.metadata.get("context_key")
    if not isinstance(key, str):
        return [
            _limited(solution_check, ctx.question, list(ctx.steps), c, real, following, timeout=timeout)
            for c in candidates
        ]
    return [_carried_score(ctx, key, c, real, following, timeout) for c in candidates]


def _carried_score(ctx: StepContext, key: str, step: str, real: bool, following: str, timeout: float) -> JudgeScore:
    n = len(ctx.steps)
    refuted = _refuted(real, key)
    before = (ctx.question, tuple(ctx.steps), refuted) if n <= SHORT else None  # a short context goes along
    affinity = (key, context_key(key, step))  # a worker that judged the step before, when one is idle
    got = run_limited(carried_check, key, step, real, following, before, timeout=timeout, affinity=affinity)
    if got.ok and got.value in (MISSING, READ_AGAIN):  # once per new function name or new worker
        before = (ctx.question, tuple(ctx.steps), refuted) if got.value == MISSING else None
        got = run_limited(
            carried_check, key, step, real, following, before, True, timeout=_long_limit(timeout, n), affinity=affinity
        )
    if got.ok:
        _remember(real, affinity[1], refuted | {n} if got.value[0] == 0.0 else refuted)
        return _checked(*got.value)
    _carry_past(ctx, key, step, following, refuted, timeout, affinity)
    _remember(real, affinity[1], refuted)
    return JudgeScore.failed(got.why)


def _carry_past(
    ctx: StepContext, key: str, step: str, following: str, refuted: frozenset[int], timeout: float, affinity
) -> None:
    """The context after a step whose check did not finish, made without reading the step."""
    got = run_limited(carried_check, key, step, False, following, None, False, True, timeout=timeout, affinity=affinity)
    if got.ok and got.value == MISSING:  # the worker that held the context was killed: a new one reads the steps
        before = (ctx.question, tuple(ctx.steps), refuted)
        limit = _long_limit(timeout, len(ctx.steps))
        run_limited(carried_check, key, step, False, following, before, False, True, timeout=limit, affinity=affinity)


class ArithmeticJudge:
    """Every ``a op b = c`` in a (natural-language) step is right: 1.0; one is wrong: 0.0."""

    def __init__(self, name: str = "arithmetic"):
        self.name = name

    def score(self, ctx: StepContext, candidates: Sequence[str]) -> list[JudgeScore]:
        return [_checked(*check_arithmetic(c)) for c in candidates]


class SymbolicEquivalenceJudge:
    """The step's relations hold (exactly, or as identities, or as consequences of what came
    before): 1.0, or 0.0 with the failing relation and its evaluation or counterexample."""

    def __init__(
        self, name: str = "symbolic", timeout: float = DEFAULT_TIMEOUT_S, seed: int = 0, mode: str = "derivation"
    ):
        self.name = name
        self.timeout = _check_timeout(timeout)
        self.seed = seed
        self.mode = _check_mode(mode)

    def describe(self) -> dict:
        return {"type": "symbolic", "mode": self.mode}

    def score(self, ctx: StepContext, candidates: Sequence[str]) -> list[JudgeScore]:
        if self.mode == "solution":
            return _solution_scores(ctx, candidates, False, self.timeout)
        prior = list(ctx.steps)
        return [_limited(symbolic_check, c, prior, self.seed, timeout=self.timeout) for c in candidates]


class NumericSamplingJudge:
    """Fraction of random points where both sides agree; undefined points (division by zero)
    are reported as a domain problem, not as a wrong step."""

    def __init__(
        self,
        name: str = "numeric",
        timeout: float = DEFAULT_TIMEOUT_S,
        seed: int = 0,
        n_points: int = 24,
        mode: str = "derivation",
    ):
        if n_points < 2:
            raise ValueError(f"n_points must be >= 2, got {n_points}")
        self.name = name
        self.timeout = _check_timeout(timeout)
        self.seed = seed
        self.n_points = int(n_points)
        self.mode = _check_mode(mode)

    def describe(self) -> dict:
        return {"type": "numeric", "mode": self.mode, "n_points": self.n_points}

    def score(self, ctx: StepContext, candidates: Sequence[str]) -> list[JudgeScore]:
        if self.mode == "solution":
            return _solution_scores(ctx, candidates, True, self.timeout)
        prior = list(ctx.steps)
        return [_limited(numeric_check, c, prior, self.seed, self.n_points, timeout=self.timeout) for c in candidates]


class FinalAnswerJudge:
    """The step's answer equals the reference (``math-verify``); reference from the constructor
    or from ``ctx.reference``. ``scope="final"`` scores only a solution's last step
    (``ctx.metadata["final"]``) or a step with a ``\\boxed{}`` answer: a number in an
    intermediate step is not an answer."""

    def __init__(
        self,
        reference: str | None = None,
        name: str = "final_answer",
        timeout: float = DEFAULT_TIMEOUT_S,
        scope: str = "any",
    ):
        if scope not in FINAL_SCOPES:
            raise ValueError(f"scope must be one of {', '.join(FINAL_SCOPES)}, got {scope!r}")
        self.name = name
        self.reference = reference
        self.timeout = _check_timeout(timeout)
        self.scope = scope

    def describe(self) -> dict:
        return {"type": "final_answer", "scope": self.scope}

    def score(self, ctx: StepContext, candidates: Sequence[str]) -> list[JudgeScore]:
        ref = self.reference if self.reference is not None else ctx.reference
        if ref is None or not str(ref).strip():
            return [JudgeScore.failed("no reference answer to compare with") for _ in candidates]
        out = []
        for c in candidates:
            if self.scope == "final" and not ctx.metadata.get("final") and "\\boxed" not in c:
                out.append(JudgeScore.abstain("not the final step"))
                continue
            got = _limited(final_answer_check, c, str(ref), timeout=self.timeout)
            if got.value is None and (got.reason or "").startswith(UNPARSED_REFERENCE):
                forms = by_answer_forms(c, str(ref))
                got = JudgeScore(*forms) if forms else got
            out.append(got)
        return out
