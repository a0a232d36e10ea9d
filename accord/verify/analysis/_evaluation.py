"""What verification bought in a recorded run: accuracy with intervals, rates, paired tests.

- accuracy per chain with a percentile bootstrap interval over tasks;
- acceptance (share of candidates accepted) and fallback (share of steps decided by the fallback);
- time and tokens spent in generation, judging and deciding;
- the review's test: VERDICT vs mean-preserving VERDICT vs Mean, replayed on the same recorded
  candidates and paired over tasks (paired bootstrap of the accuracy gap, exact McNemar test).

Every decision is taken by the consensus core's policies (through :mod:`accord.verify.analysis`);
the per-candidate diagnostics of Δ* are in :mod:`accord.verify.analysis`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from scipy.stats import binomtest

from accord.consensus_core import DEFAULT_EPS, DEFAULT_TAU, bootstrap_ci
from accord.verify.analysis._abstention import count_missing
from accord.verify.analysis._diagnostics import CORRECT_AT, rank_flips
from accord.verify.analysis._records import Trace
from accord.verify.analysis._replay import ContextTree, PolicySpec, ReplayResult, make_spec, recorded_spec, replay


def accuracy_table(trace: Trace, n_boot: int = 2000, seed: int = 0) -> dict[str, dict[str, Any]]:
    """Accuracy of every recorded chain over its finished tasks, with a bootstrap interval."""
    out: dict[str, dict[str, Any]] = {}
    for chain in trace.chains():
        c = [e.correct for e in trace.end_of(chain).values()]
        lo, hi = bootstrap_ci(c, n_boot, seed=seed)
        out[chain] = {
            "n": len(c),
            "accuracy": float(np.mean(c)) if c else None,
            "ci_low": lo if c else None,
            "ci_high": hi if c else None,
        }
    return out


def rates(trace: Trace) -> dict[str, dict[str, Any]]:
    """Per chain: steps, candidates, share of candidates accepted, share of steps decided by fallback,
    and the missing scores split into failures and abstentions (see :mod:`._abstention`)."""
    out: dict[str, dict[str, Any]] = {}
    for chain in trace.chains():
        recs = [r for r in trace.steps if r.chain == chain]
        if not recs:
            continue
        cands = sum(r.n for r in recs)
        acc = sum(sum(r.accepted) for r in recs)
        fb = sum(r.fallback for r in recs)
        out[chain] = {
            "steps": len(recs),
            "candidates": cands,
            "acceptance_rate": acc / cands,
            "fallback_rate": fb / len(recs),
            "failed_scores": sum(count_missing(r.raw, r.failures, r.abstentions)[1] for r in recs),
            "abstained_scores": sum(count_missing(r.raw, r.failures, r.abstentions)[0] for r in recs),
            "scores": int(sum(r.raw.size for r in recs)),
        }
    return out


def timing_shares(trace: Trace) -> dict[str, Any]:
    """Recorded time in generation, judging and deciding, and token counts, over all step records.

    Judging time is the recorded wall time of the panel (``judge_wall_s``) when every record has
    it: judges that share one batched model call each record that call's full time, so their sum
    would count it several times. Otherwise it is the sum over judges.
    """
    gen = dec = wall = 0.0
    has_wall = bool(trace.steps)
    judge: dict[str, float] = {}
    tokens = {"generated": 0, "judge_prompt": 0}
    for r in trace.steps:
        for k in tokens:
            tokens[k] += int((r.tokens or {}).get(k, 0) or 0)
        t = r.timings or {}
        gen += float(t.get("generate_s", 0.0) or 0.0)
        dec += float(t.get("decide_s", 0.0) or 0.0)
        for j, s in (t.get("judge_s") or {}).items():
            judge[j] = judge.get(j, 0.0) + float(s or 0.0)
        if isinstance(t.get("judge_wall_s"), (int, float)):
            wall += float(t["judge_wall_s"])
        else:
            has_wall = False
    judging = wall if has_wall else sum(judge.values())
    total = gen + dec + judging
    share = lambda v: v / total if total > 0 else None
    return {
        "generate_s": gen,
        "judge_s": judge,
        "judging_s": judging,
        "judging_from": "judge_wall_s" if has_wall else "sum of judge_s",
        "decide_s": dec,
        "total_s": total,
        "tokens": tokens,
        "generate_share": share(gen),
        "judge_share": share(judging),
        "decide_share": share(dec),
    }


def mcnemar(a: Sequence[float], b: Sequence[float]) -> dict[str, Any]:
    """Exact McNemar test on paired binary outcomes (correct = score >= CORRECT_AT)."""
    ca = np.asarray(a, dtype=float) >= CORRECT_AT
    cb = np.asarray(b, dtype=float) >= CORRECT_AT
    only_a, only_b = int((ca & ~cb).sum()), int((~ca & cb).sum())
    p = binomtest(only_a, only_a + only_b, 0.5).pvalue if only_a + only_b else 1.0
    return {"only_first_correct": only_a, "only_second_correct": only_b, "p_value": float(p)}


def paired_difference(ca: dict[str, float], cb: dict[str, float], n_boot: int = 2000, seed: int = 0) -> dict[str, Any]:
    """Accuracy gap a − b over the tasks both have (correctness per task id): the difference, a
    paired bootstrap interval of it (tasks resampled) and the exact McNemar test."""
    tasks = [t for t in ca if t in cb]
    a = np.array([ca[t] for t in tasks], dtype=float)
    b = np.array([cb[t] for t in tasks], dtype=float)
    if not tasks:
        return {
            "n_pairs": 0,
            "accuracy_first": None,
            "accuracy_second": None,
            "difference": None,
            "ci": None,
            "mcnemar": None,
        }
    lo, hi = bootstrap_ci(a - b, n_boot, seed=seed)
    return {
        "n_pairs": len(tasks),
        "accuracy_first": float(a.mean()),
        "accuracy_second": float(b.mean()),
        "difference": float((a - b).mean()),
        "ci": [lo, hi],
        "mcnemar": mcnemar(a, b),
    }


def paired_comparison(first: ReplayResult, second: ReplayResult, n_boot: int = 2000, seed: int = 0) -> dict[str, Any]:
    """Accuracy gap first − second over tasks where both replayed chains are exact."""
    d = paired_difference(first.correct_exact(), second.correct_exact(), n_boot, seed)
    return {
        "first": first.spec.title,
        "second": second.spec.title,
        "n_pairs": d["n_pairs"],
        "excluded_diverged": first.n_tasks - d["n_pairs"],
        **d,
    }


def verdict_params(trace: Trace, chain: str | None = None) -> dict[str, Any]:
    """τ, ε (and λ if recorded) of the run's VERDICT chain; the paper's defaults otherwise.

    Without a chain name: the chain labelled "verdict", else the first whose recorded policy is
    VERDICT or mean-preserving VERDICT.
    """
    chains = [chain] if chain else ["verdict", *trace.chains()]
    for c in chains:
        pol = trace.chain_policy(c) or {}
        spec = recorded_spec(pol) if pol else None
        if spec is not None and spec.name in ("verdict", "mean_preserving"):
            p = spec.kwargs
            return {
                "tau": float(p.get("tau", DEFAULT_TAU)),
                "eps": float(p.get("eps", DEFAULT_EPS)),
                "lambdas": p.get("lambdas"),
            }
    return {"tau": DEFAULT_TAU, "eps": DEFAULT_EPS, "lambdas": None}


def review_test(trace: Trace, n_boot: int = 2000, seed: int = 0, tree: ContextTree | None = None) -> dict[str, Any]:
    """VERDICT vs mean-preserving VERDICT vs Mean, all three replayed on the same recorded candidates."""
    p = verdict_params(trace)
    kw = {k: v for k, v in p.items() if v is not None}
    tree = tree or ContextTree.from_trace(trace)
    specs = [make_spec("verdict", **kw), make_spec("mean_preserving", **kw), make_spec("mean")]
    res = [replay(trace, s, tree) for s in specs]
    return {
        "policies": {r.spec.title: r.summary() for r in res},
        "verdict_vs_mean_preserving": paired_comparison(res[0], res[1], n_boot, seed),
        "verdict_vs_mean": paired_comparison(res[0], res[2], n_boot, seed),
        "mean_preserving_vs_mean": paired_comparison(res[1], res[2], n_boot, seed),
        "rank_flips": rank_flips(trace),
    }


def replay_table(
    trace: Trace, specs: Sequence[PolicySpec], n_boot: int = 2000, seed: int = 0, tree: ContextTree | None = None
) -> list[dict[str, Any]]:
    """Replay each policy; accuracy among exact chains with an interval, and divergence counts."""
    tree = tree or ContextTree.from_trace(trace)
    rows = []
    for s in specs:
        r = replay(trace, s, tree)
        summ = r.summary()
        c = list(r.correct_exact().values())
        lo, hi = bootstrap_ci(c, n_boot, seed=seed) if c else (None, None)
        rows.append({**summ, "ci_low": lo, "ci_high": hi})
    return rows


__all__ = [
    "accuracy_table",
    "bootstrap_ci",
    "mcnemar",
    "paired_comparison",
    "paired_difference",
    "rates",
    "replay_table",
    "review_test",
    "timing_shares",
    "verdict_params",
]
