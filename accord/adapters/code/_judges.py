"""Execution-based judges: tests passed, and agreement between candidates (CodeT-style).

Both share a :class:`CodeRunner`, so each candidate is executed once for both. A candidate whose
code fails (does not parse, crashes, loops, exceeds a limit, tampers with the harness) gets a score
of 0 with the reason: that is a verdict on the candidate. ``None`` means the judge itself could not
judge (no visible tests, a single candidate to agree with, no probe inputs).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from accord.adapters.code._runner import CodeRunner, Evaluation
from accord.adapters.code._spec import CodeSpec
from accord.protocols import JudgeScore, StepContext


def _programs(ctx: StepContext, candidates: Sequence[str]) -> tuple[CodeSpec, list[str]]:
    spec = CodeSpec.from_context(ctx)
    return spec, [spec.program(ctx.steps, c) for c in candidates]


class ExecutionJudge:
    """Fraction of the visible tests (assert-style or input/output) a candidate passes."""

    name = "execution"

    def __init__(self, runner: CodeRunner | None = None):
        self.runner = runner or CodeRunner()

    def score(self, ctx: StepContext, candidates: Sequence[str]) -> list[JudgeScore]:
        spec, programs = _programs(ctx, candidates)
        if not spec.tests:
            return [JudgeScore.failed("no visible tests for this problem")] * len(candidates)
        return [self._one(spec, ev) for ev in self.runner.evaluate(spec, programs)]

    @staticmethod
    def _one(spec: CodeSpec, ev: Evaluation) -> JudgeScore:
        n = len(ev.tests)
        passed = sum(t.status == "pass" for t in ev.tests)
        if passed == n:
            return JudgeScore(1.0, f"{n}/{n} tests passed")
        failures = []
        for t, test in zip(ev.tests, spec.tests):
            if t.status != "pass" and len(failures) < 3:
                detail = t.error or (f"got {t.output}, expected {test.expected}" if t.output is not None else t.status)
                failures.append(f"{test.expr}: {t.status}: {detail}")
        why = f"{passed}/{n} tests passed; " + "; ".join(failures)
        if ev.reason and ev.reason not in why:
            why += f" [{ev.reason}]"
        return JudgeScore(passed / n, why[:500])


def behaviour(ev: Evaluation) -> list[str | None]:
    """One signature per probe: the canonical output, the error type, or None (timeout / not run)."""
    out: list[str | None] = []
    for p in ev.probes:
        if p.status == "ok":
            out.append("=" + (p.output or ""))
        elif p.status == "error" and p.error:
            out.append("!" + p.error.split(":", 1)[0])
        else:
            out.append(None)
    return out


class SelfConsistencyJudge:
    """Agreement by execution: the share of the other candidates that behave identically on each
    probe input (same output or same exception type), averaged over the probes. A probe on which
    no candidate returned a value counts as no agreement for anyone.

    Candidates that agree with many others form a large consensus set, which (as in CodeT) is
    evidence of correctness. A candidate that cannot run agrees with nobody.
    """

    name = "consistency"

    def __init__(self, runner: CodeRunner | None = None):
        self.runner = runner or CodeRunner()

    def score(self, ctx: StepContext, candidates: Sequence[str]) -> list[JudgeScore]:
        spec, programs = _programs(ctx, candidates)
        n = len(candidates)
        if n < 2:
            return [JudgeScore.failed("agreement needs at least two candidates")] * n
        evals = self.runner.evaluate(spec, programs)
        if not evals or not evals[0].probes:
            return [JudgeScore.failed("no probe inputs could be built for this signature")] * n
        sigs = [behaviour(ev) for ev in evals]
        n_probes = len(sigs[0])
        counts = [Counter(s[k] for s in sigs if s[k] is not None) for k in range(n_probes)]
        # a probe on which no candidate returned a value says nothing (all crashing alike is no evidence)
        useful = [any(sig is not None and sig.startswith("=") for sig in counts[k]) for k in range(n_probes)]
        out = []
        for i, s in enumerate(sigs):
            agree = [
                (counts[k][s[k]] - 1) / (n - 1) if s[k] is not None and useful[k] else 0.0 for k in range(n_probes)
            ]
            value = sum(agree) / n_probes
            ran = sum(x is not None for x in s)
            why = f"agrees with {value:.0%} of the others over {n_probes} inputs ({ran} ran)"
            if evals[i].reason:
                why += f" [{evals[i].reason}]"
            out.append(JudgeScore(min(1.0, max(0.0, value)), why[:500]))
        return out
