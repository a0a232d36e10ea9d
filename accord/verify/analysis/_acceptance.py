"""Whether the accept rule did anything: per chain, how often it fired and how right it was then.

VERDICT accepts a candidate when s̄* > τ and Δ* < ε and otherwise falls back to max(s̄* − Δ*). On a
panel whose judges speak on different scales the rule may never fire, and then VERDICT is only its
fallback. For every verified chain of a trace this reports the share of steps where some candidate
was accepted, and the chain's accuracy over the problems where every step was accepted against
those where some step fell back (for one-step chains: accuracy when fired vs fallback). It also
counts, per judge, the candidates it scored, abstained on and failed on.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from accord.verify.analysis._records import Trace
from accord.verify.loop import BASE


def _mean(xs: list[float]) -> float | None:
    return float(np.mean(xs)) if xs else None


def accept_rule(trace: Trace) -> dict[str, dict[str, Any]]:
    """Per verified chain: steps, fired (steps with an accepted candidate), share, accuracy when every
    step fired and when some step fell back, and the thresholds of its last step."""
    out: dict[str, dict[str, Any]] = {}
    for chain in trace.chains():
        if chain == BASE:
            continue
        recs = [r for r in trace.steps if r.chain == chain]
        if not recs:
            continue
        fired_by_task: dict[str, bool] = {}
        for r in recs:
            fired_by_task[r.task_id] = fired_by_task.get(r.task_id, True) and not r.fallback
        ends = trace.end_of(chain)
        fired = [e.correct for t, e in ends.items() if fired_by_task.get(t, False)]
        fell = [e.correct for t, e in ends.items() if not fired_by_task.get(t, False)]
        n_fired = sum(not r.fallback for r in recs)
        policy = recs[-1].policy
        out[chain] = {
            "steps": len(recs),
            "fired": n_fired,
            "fired_share": n_fired / len(recs),
            "problems_fired": len(fired),
            "accuracy_fired": _mean(fired),
            "problems_fallback": len(fell),
            "accuracy_fallback": _mean(fell),
            "scaled_steps": sum(r.scale is not None for r in recs),
            "tau": policy.get("tau"),
            "eps": policy.get("eps"),
        }
    return out


def judge_counts(trace: Trace) -> dict[str, dict[str, int]]:
    """Per judge, over every recorded context (each counted once): candidates scored, abstained on
    (the judge had nothing to check: it left the panel for that candidate) and failed on."""
    seen: dict[tuple[str, str], Any] = {}
    for r in trace.steps:
        key = (r.task_id, r.context_id)
        if key not in seen or r.n > seen[key].n:
            seen[key] = r
    names = trace.steps[0].judges if trace.steps else ()
    out = {n: {"scored": 0, "abstained": 0, "failed": 0} for n in names}
    for r in seen.values():
        abst = r.abstentions or ((None,) * r.m,) * r.n
        for i in range(r.n):
            for j, n in enumerate(r.judges):
                if not np.isnan(r.raw[i, j]):
                    out[n]["scored"] += 1
                elif abst[i][j] is not None:
                    out[n]["abstained"] += 1
                else:
                    out[n]["failed"] += 1
    return out
