"""Check a derivation step by step: math judges score each line, the consensus core decides.

Each claim line is scored by every judge with the lines before it as context; the raw scores of
all lines form one (lines x judges) matrix (NaN where a judge could not score) that the chosen
policy decides in one vectorised call. A line scored by a single judge is decided by the same
rule with that judge's score as s̄* and Δ* = 0. Premises, definitions, ``unknowns:`` lines and
lines that could not be read (with the reason) are not claims: they are reported as unchecked.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, fields

import numpy as np

from accord.consensus_core import ConsensusSpec, get_policy, parse_lambdas
from accord.protocols import Judge, JudgeScore, StepContext
from accord.verify.io import DerivationLine


@dataclass(frozen=True)
class StepReport:
    line: int
    text: str
    kind: str
    scores: dict[str, float | None]
    reasons: dict[str, str | None]
    consensus: dict[str, float | None]
    mean: float | None
    dispersion: float | None
    verdict: str  # valid | invalid | unchecked

    def as_dict(self) -> dict:
        return {f.name: getattr(self, f.name) for f in fields(self)}  # every field, in order


@dataclass(frozen=True)
class CheckReport:
    source: str
    policy: str
    params: dict
    judges: tuple[str, ...]
    steps: list[StepReport] = field(default_factory=list)

    @property
    def first_invalid(self) -> StepReport | None:
        return next((s for s in self.steps if s.verdict == "invalid"), None)

    @property
    def checked(self) -> int:
        """Lines the judges could decide (valid or invalid); 0 means the file proved nothing."""
        return sum(s.verdict != "unchecked" for s in self.steps)

    def first_invalid_reason(self) -> str | None:
        s = self.first_invalid
        if s is None:
            return None
        low = min(v for v in s.scores.values() if v is not None)
        return "; ".join(f"{j}: {s.reasons[j]}" for j, v in s.scores.items() if v == low)

    def as_dict(self) -> dict:
        fi = self.first_invalid
        return {
            "source": self.source,
            "policy": self.policy,
            "params": self.params,
            "judges": list(self.judges),
            "steps": [dict(s.as_dict(), step_number=k + 1) for k, s in enumerate(self.steps)],
            "checked": self.checked,
            "first_invalid": fi.line if fi else None,
            "first_invalid_line": fi.line if fi else None,  # the file's line, from 1
            "first_invalid_step_number": self.steps.index(fi) + 1 if fi else None,  # the table's step, from 1
            "first_invalid_reason": self.first_invalid_reason(),
        }


def _score_line(judges: Sequence[Judge], ctx: StepContext, text: str) -> list[JudgeScore]:
    out = []
    for j in judges:
        try:
            out.append(j.score(ctx, [text])[0])
        except Exception as exc:  # a judge crash is one failed score, not a lost run
            out.append(JudgeScore.failed(f"judge raised {type(exc).__name__}: {exc}"))
    return out


def check_derivation(
    lines: Sequence[DerivationLine],
    judges: Sequence[Judge],
    policy: str = "verdict",
    lambdas: Sequence[float] | None = None,
    source: str = "<derivation>",
    threads: int = 2,
    progress: Callable[[int, int], None] | None = None,
    **policy_params,
) -> CheckReport:
    """Score every claim line with every judge and decide each line with ``policy``;
    ``progress(done, total)`` after each claim line is scored."""
    m = len(judges)
    if m < 2:
        raise ValueError(f"a derivation check needs at least 2 judges, got {m}")
    spec = ConsensusSpec(parse_lambdas(lambdas, m) if lambdas is not None else (1.0,) * m)
    pol = get_policy(policy, **policy_params)
    names = tuple(j.name for j in judges)
    texts = [ln.text for ln in lines]
    claims = [i for i, ln in enumerate(lines) if ln.kind == "claim"]

    def work(i: int) -> list[JudgeScore]:
        ctx = StepContext(question=source, steps=tuple(texts[:i]))
        return _score_line(judges, ctx, texts[i])

    scored = {}
    with ThreadPoolExecutor(max_workers=max(1, threads)) as pool:
        for i, js in zip(claims, pool.map(work, claims)):
            scored[i] = js
            if progress is not None:
                progress(len(scored), len(claims))

    raw = np.full((len(lines), m), np.nan)
    for i, js in scored.items():
        raw[i] = [np.nan if s.value is None else s.value for s in js]
    stats = pol.stats(raw, spec)
    accepted = np.asarray(pol._decide(stats)[0], dtype=bool)  # the policy's own acceptance rule

    steps = []
    for i, ln in enumerate(lines):
        js = scored.get(i)
        k = int(stats.n_scored[i])
        if js is None:
            reasons = {n: ln.note or f"{ln.kind}, not a claim" for n in names}
            js = [JudgeScore.failed(reasons[n]) for n in names]
        verdict = "unchecked" if k == 0 else ("valid" if accepted[i] else "invalid")
        steps.append(
            StepReport(
                line=ln.line,
                text=ln.text,
                kind=ln.kind,
                scores={n: s.value for n, s in zip(names, js)},
                reasons={n: s.reason for n, s in zip(names, js)},
                consensus={n: (None if np.isnan(v) else float(v)) for n, v in zip(names, stats.consensus[i])},
                mean=None if k == 0 else float(stats.mean[i]),
                dispersion=None if k == 0 else float(stats.dispersion[i]),
                verdict=verdict,
            )
        )
    return CheckReport(source, pol.name, {**pol.params(), "lambdas": spec.lambdas}, names, steps)
