"""What verification bought in a recorded run: accuracy with intervals, rates, diagnostics, paired tests.

- accuracy per chain with a percentile bootstrap interval over tasks;
- acceptance (share of candidates accepted) and fallback (share of steps decided by the fallback);
- section 11.9 of the VERDICT paper: ROC AUC of the consensus dispersion Δ* and of the raw variance
  as predictors of a wrong final answer, per candidate, with a task-clustered bootstrap of their gap;
- the review's test: VERDICT vs mean-preserving VERDICT vs Mean, paired over tasks (paired
  bootstrap of the accuracy gap and an exact McNemar test), plus how often ranking candidates by
  the consensus mean instead of the raw mean changes the choice.

Statistics come from the consensus core (``consensus_stats``) and every decision from its policies.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np
from scipy.stats import binomtest, rankdata

from accord.consensus_core import DEFAULT_EPS, DEFAULT_TAU, consensus_stats
from accord.verify.records import Trace, read_settings
from accord.verify.replay import ContextTree, PolicySpec, ReplayResult, make_spec, recorded_spec, replay

CORRECT_AT = 0.5  # a final answer with score >= this counts as correct in binary tests (AUC, McNemar)


def bootstrap_ci(x: Sequence[float], n_boot: int = 2000, level: float = 0.95, seed: int = 0) -> tuple[float, float]:
    """Percentile bootstrap interval of the mean of x (resampling its entries)."""
    x = np.asarray(x, dtype=float)
    if x.size == 0:
        return (float("nan"), float("nan"))
    rng = np.random.default_rng(seed)
    chunk = max(1, 2_000_000 // x.size)  # bounded memory for long runs
    means = np.concatenate([x[rng.integers(0, x.size, size=(min(chunk, n_boot - i), x.size))].mean(axis=1)
                            for i in range(0, n_boot, chunk)])
    a = (1.0 - level) / 2.0
    return float(np.quantile(means, a)), float(np.quantile(means, 1.0 - a))


def accuracy_table(trace: Trace, n_boot: int = 2000, seed: int = 0) -> dict[str, dict[str, Any]]:
    """Accuracy of every recorded chain over its finished tasks, with a bootstrap interval."""
    out: dict[str, dict[str, Any]] = {}
    for chain in trace.chains():
        c = [e.correct for e in trace.end_of(chain).values()]
        lo, hi = bootstrap_ci(c, n_boot, seed=seed)
        out[chain] = {"n": len(c), "accuracy": float(np.mean(c)) if c else None,
                      "ci_low": lo if c else None, "ci_high": hi if c else None}
    return out


def rates(trace: Trace) -> dict[str, dict[str, Any]]:
    """Per chain: steps, candidates, share of candidates accepted, share of steps decided by fallback."""
    out: dict[str, dict[str, Any]] = {}
    for chain in trace.chains():
        recs = [r for r in trace.steps if r.chain == chain]
        if not recs:
            continue
        cands = sum(r.n for r in recs)
        acc = sum(sum(r.accepted) for r in recs)
        fb = sum(r.fallback for r in recs)
        out[chain] = {"steps": len(recs), "candidates": cands, "acceptance_rate": acc / cands,
                      "fallback_rate": fb / len(recs),
                      "failed_scores": int(sum(np.isnan(r.raw).sum() for r in recs)),
                      "scores": int(sum(r.raw.size for r in recs))}
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
    share = (lambda v: v / total if total > 0 else None)
    return {"generate_s": gen, "judge_s": judge, "judging_s": judging,
            "judging_from": "judge_wall_s" if has_wall else "sum of judge_s", "decide_s": dec, "total_s": total,
            "tokens": tokens, "generate_share": share(gen), "judge_share": share(judging), "decide_share": share(dec)}


def roc_auc(score: Sequence[float], positive: Sequence[bool]) -> float | None:
    """Area under the ROC curve (Mann–Whitney, ties count half); None if a class is empty."""
    s = np.asarray(score, dtype=float)
    y = np.asarray(positive, dtype=bool)
    keep = ~np.isnan(s)
    s, y = s[keep], y[keep]
    n1, n0 = int(y.sum()), int((~y).sum())
    if n1 == 0 or n0 == 0:
        return None
    ranks = rankdata(s)
    return float((ranks[y].sum() - n1 * (n1 + 1) / 2.0) / (n1 * n0))


def roc_curve(score: Sequence[float], positive: Sequence[bool]) -> tuple[np.ndarray, np.ndarray]:
    """False and true positive rates over every threshold (predict positive when score >= threshold)."""
    s = np.asarray(score, dtype=float)
    y = np.asarray(positive, dtype=bool)
    keep = ~np.isnan(s)
    s, y = s[keep], y[keep]
    thresholds = np.unique(s)[::-1]
    tpr = [0.0] + [float((y & (s >= t)).sum() / max(y.sum(), 1)) for t in thresholds]
    fpr = [0.0] + [float((~y & (s >= t)).sum() / max((~y).sum(), 1)) for t in thresholds]
    return np.array(fpr), np.array(tpr)


@dataclass(frozen=True)
class CandidateTable:
    """Every candidate a chain scored, with its statistics and the correctness of the chain's answer."""

    chain: str
    task_id: np.ndarray  # (k,) str
    mean: np.ndarray  # s̄* under the recorded panel λ
    dispersion: np.ndarray  # Δ*
    raw_var: np.ndarray
    raw_mean: np.ndarray
    chosen: np.ndarray  # bool: the chain took this candidate
    correct: np.ndarray  # float: the chain's final score


def _candidate_stats(raws: list[np.ndarray], lambdas: list[tuple[float, ...]], influence=None) -> dict[str, np.ndarray]:
    """s̄*, Δ*, raw variance and raw mean of every candidate row, one core call per panel λ."""
    sizes = [r.shape[0] for r in raws]
    offsets = np.concatenate([[0], np.cumsum(sizes)]).astype(int)
    out = {k: np.full(offsets[-1], np.nan) for k in ("mean", "disp", "var", "rmean")}
    groups: dict[tuple[float, ...], list[int]] = {}
    for i, lam in enumerate(lambdas):
        groups.setdefault(lam, []).append(i)
    for lam, idx in groups.items():
        st = consensus_stats(np.concatenate([raws[i] for i in idx]), lam, influence)
        rows = np.concatenate([np.arange(offsets[i], offsets[i + 1]) for i in idx])
        for key, val in (("mean", st.mean), ("disp", st.dispersion), ("var", st.raw_var), ("rmean", st.raw_mean)):
            out[key][rows] = val
    return out


ALL_CHAINS = "all chains"


def candidate_table(trace: Trace, chain: str | None = None) -> CandidateTable:
    """Candidates of one chain's steps on finished tasks, each labelled by that chain's final score.

    ``chain=None`` pools every chain: a candidate scored in a context several chains shared then
    appears once per chain, labelled by each chain's own answer. Unfinished tasks have no label.
    """
    chains = [chain] if chain is not None else trace.chains()
    ends = {c: trace.end_of(c) for c in chains}
    recs = [r for r in trace.steps if r.chain in ends and r.task_id in ends[r.chain]]
    st = _candidate_stats([r.raw for r in recs], [r.lambdas for r in recs], read_settings(trace.path.parent).influence)
    task = np.asarray([r.task_id for r in recs for _ in range(r.n)], dtype=object)
    chosen = np.asarray([i == r.chosen for r in recs for i in range(r.n)], dtype=bool)
    correct = np.asarray([ends[r.chain][r.task_id].correct for r in recs for _ in range(r.n)], dtype=float)
    return CandidateTable(chain or ALL_CHAINS, task, st["mean"], st["disp"], st["var"], st["rmean"], chosen, correct)


def _weighted_auc(score: np.ndarray, positive: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """AUC for each row of weights (B, k): every candidate counted as often as its task was drawn."""
    keep = ~np.isnan(score)
    s, y, w = score[keep], positive[keep], weights[:, keep]
    order = np.argsort(s, kind="stable")
    s, y, w = s[order], y[order], w[:, order]
    _, start, counts = np.unique(s, return_index=True, return_counts=True)
    group = np.repeat(np.arange(start.size), counts)
    cum_neg = np.concatenate([np.zeros((w.shape[0], 1)), np.cumsum(w * ~y, axis=1)], axis=1)
    below = cum_neg[:, start[group]]
    ties = cum_neg[:, (start + counts)[group]] - below
    pos_w = w * y
    with np.errstate(invalid="ignore", divide="ignore"):
        return (pos_w * (below + 0.5 * ties)).sum(axis=1) / (pos_w.sum(axis=1) * (w * ~y).sum(axis=1))


def _clustered_auc_gap(t: CandidateTable, wrong: np.ndarray, n_boot: int, seed: int) -> tuple[float, float] | None:
    """Interval of AUC(Δ*) − AUC(raw variance), resampling whole tasks (candidates of a chain correlate)."""
    tasks, inv = np.unique(t.task_id.astype(str), return_inverse=True)
    if tasks.size < 2:
        return None
    rng = np.random.default_rng(seed)
    draws = rng.multinomial(tasks.size, np.full(tasks.size, 1.0 / tasks.size), size=n_boot).astype(float)
    w = draws[:, inv]
    gaps = _weighted_auc(t.dispersion, wrong, w) - _weighted_auc(t.raw_var, wrong, w)
    gaps = gaps[np.isfinite(gaps)]
    if gaps.size < n_boot // 2:
        return None
    return float(np.quantile(gaps, 0.025)), float(np.quantile(gaps, 0.975))


def dispersion_diagnostics(trace: Trace, chain: str | None, tau: float = DEFAULT_TAU, eps: float = DEFAULT_EPS,
                           n_boot: int = 1000, seed: int = 0) -> dict[str, Any]:
    """Δ* and raw variance as predictors of a wrong final answer, over one chain's candidates (None: all)."""
    t = candidate_table(trace, chain)
    wrong = t.correct < CORRECT_AT
    valid = ~np.isnan(t.dispersion)
    acc = (t.mean > tau) & (t.dispersion < eps)
    auc_d, auc_v = roc_auc(t.dispersion, wrong), roc_auc(t.raw_var, wrong)
    gap_ci = _clustered_auc_gap(t, wrong, n_boot, seed) if auc_d is not None and auc_v is not None else None

    def share_wrong(mask):
        mask = mask & valid
        return float(wrong[mask].mean()) if mask.any() else None

    def mean_of(x, mask):
        mask = mask & valid
        return float(x[mask].mean()) if mask.any() else None

    hi_conf = t.mean > tau
    low_disp = t.dispersion < eps
    quadrants = {}
    for name, mask in (("accept", hi_conf & low_disp), ("reject_dispersion", hi_conf & ~low_disp),
                       ("reject_confidence", ~hi_conf & low_disp), ("reject_both", ~hi_conf & ~low_disp)):
        mask = mask & valid
        quadrants[name] = {"candidates": int(mask.sum()),
                           "correct_chain_rate": float((~wrong[mask]).mean()) if mask.any() else None}
    return {
        "chain": t.chain,
        "candidates": int(valid.sum()),
        "wrong_chain_candidates": int((wrong & valid).sum()),
        "tau": tau, "eps": eps,
        "auc_dispersion": auc_d,
        "auc_raw_variance": auc_v,
        "auc_gap": (auc_d - auc_v) if auc_d is not None and auc_v is not None else None,
        "auc_gap_ci": list(gap_ci) if gap_ci else None,
        "wrong_rate_rejected": share_wrong(~acc),
        "wrong_rate_accepted": share_wrong(acc),
        "mean_dispersion_accepted": mean_of(t.dispersion, acc),
        "mean_dispersion_rejected": mean_of(t.dispersion, ~acc),
        "quadrants": quadrants,
    }


def mcnemar(a: Sequence[float], b: Sequence[float]) -> dict[str, Any]:
    """Exact McNemar test on paired binary outcomes (correct = score >= CORRECT_AT)."""
    ca = np.asarray(a, dtype=float) >= CORRECT_AT
    cb = np.asarray(b, dtype=float) >= CORRECT_AT
    only_a, only_b = int((ca & ~cb).sum()), int((~ca & cb).sum())
    p = binomtest(only_a, only_a + only_b, 0.5).pvalue if only_a + only_b else 1.0
    return {"only_first_correct": only_a, "only_second_correct": only_b, "p_value": float(p)}


def paired_comparison(first: ReplayResult, second: ReplayResult, n_boot: int = 2000, seed: int = 0) -> dict[str, Any]:
    """Accuracy gap first − second over tasks where both replayed chains are exact."""
    ca, cb = first.correct_exact(), second.correct_exact()
    tasks = [t for t in ca if t in cb]
    a = np.array([ca[t] for t in tasks], dtype=float)
    b = np.array([cb[t] for t in tasks], dtype=float)
    out: dict[str, Any] = {"first": first.spec.title, "second": second.spec.title, "n_pairs": len(tasks),
                           "excluded_diverged": first.n_tasks - len(tasks)}
    if not tasks:
        return {**out, "accuracy_first": None, "accuracy_second": None, "difference": None, "ci": None,
                "mcnemar": None}
    lo, hi = bootstrap_ci(a - b, n_boot, seed=seed)
    return {**out, "accuracy_first": float(a.mean()), "accuracy_second": float(b.mean()),
            "difference": float((a - b).mean()), "ci": [lo, hi], "mcnemar": mcnemar(a, b)}


def rank_flips(trace: Trace) -> dict[str, Any]:
    """The review's cheaper check: where ranking by consensus mean and by raw mean pick different candidates.

    Counts recorded contexts where the two best candidates differ; where recorded chains took both
    (and finished), compares the answers they reached: a sign test of whether the consensus pick
    led to right answers more often than the raw-mean pick.
    """
    tree = ContextTree.from_trace(trace)
    nodes = list(tree.nodes.values())
    st = _candidate_stats([nd.raw for nd in nodes], [nd.lambdas for nd in nodes], tree.settings.influence)
    outcome: dict[tuple[str, str, int], list[float]] = {}
    for r in trace.steps:
        end = trace.end_of(r.chain).get(r.task_id) if r.chosen >= 0 else None
        if end is not None:
            outcome.setdefault((r.task_id, r.context_id, r.chosen), []).append(end.correct)
    flips = total = known = consensus_better = raw_better = 0
    start = 0
    for nd in nodes:
        sl = slice(start, start + nd.raw.shape[0])
        start = sl.stop
        ok = ~np.isnan(st["disp"][sl]) & (np.sum(~np.isnan(nd.raw), axis=1) >= 2)
        if ok.sum() < 2:
            continue
        total += 1
        a = int(np.argmax(np.where(ok, st["mean"][sl], -np.inf)))
        b = int(np.argmax(np.where(ok, st["rmean"][sl], -np.inf)))
        if a == b:
            continue
        flips += 1
        ca, cb = outcome.get((nd.task_id, nd.context_id, a)), outcome.get((nd.task_id, nd.context_id, b))
        if ca and cb:
            known += 1
            consensus_better += int(np.mean(ca) > np.mean(cb))
            raw_better += int(np.mean(cb) > np.mean(ca))
    decided = consensus_better + raw_better
    p = float(binomtest(consensus_better, decided, 0.5).pvalue) if decided else None
    return {"contexts": total, "flips": flips, "share": flips / total if total else None,
            "flips_with_both_outcomes": known, "consensus_pick_better": consensus_better,
            "raw_pick_better": raw_better, "sign_test_p": p}


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
            return {"tau": float(p.get("tau", DEFAULT_TAU)), "eps": float(p.get("eps", DEFAULT_EPS)),
                    "lambdas": p.get("lambdas")}
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


def replay_table(trace: Trace, specs: Sequence[PolicySpec], n_boot: int = 2000, seed: int = 0,
                 tree: ContextTree | None = None) -> list[dict[str, Any]]:
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
    "ALL_CHAINS", "CORRECT_AT", "CandidateTable", "accuracy_table", "bootstrap_ci", "candidate_table",
    "dispersion_diagnostics", "mcnemar", "paired_comparison", "rank_flips", "rates",
    "replay_table", "review_test", "roc_auc", "roc_curve", "timing_shares", "verdict_params",
]
