"""Diagnostics of a recorded run's candidates: is Δ* a warning sign of a wrong final answer?

Section 11.9 of the VERDICT paper treats the consensus dispersion Δ* of each candidate step as a
predictor of whether the chain's final answer is wrong, next to the raw score variance. Here: ROC
AUC of both (Mann–Whitney, ties half), their gap with a bootstrap over whole tasks (a chain's
candidates are not independent), wrong-answer rates among accepted and rejected candidates, the
four quadrants of the dual rule (the paper's Figure 14), and the review's rank-flip check.
Statistics come from the consensus core (``consensus_stats``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy.stats import binomtest, rankdata

from accord.consensus_core import DEFAULT_EPS, DEFAULT_TAU, accept_and_rank, consensus_stats
from accord.verify.analysis._records import Trace, read_settings
from accord.verify.analysis._replay import ContextTree

CORRECT_AT = 0.5  # a final answer with score >= this counts as correct in binary tests (AUC, McNemar)


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


def dispersion_diagnostics(
    trace: Trace,
    chain: str | None,
    tau: float = DEFAULT_TAU,
    eps: float = DEFAULT_EPS,
    n_boot: int = 1000,
    seed: int = 0,
) -> dict[str, Any]:
    """Δ* and raw variance as predictors of a wrong final answer, over one chain's candidates (None: all)."""
    t = candidate_table(trace, chain)
    wrong = t.correct < CORRECT_AT
    valid = ~np.isnan(t.dispersion)
    acc = accept_and_rank(t.mean, t.dispersion, tau, eps, False)[0]
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
    for name, mask in (
        ("accept", hi_conf & low_disp),
        ("reject_dispersion", hi_conf & ~low_disp),
        ("reject_confidence", ~hi_conf & low_disp),
        ("reject_both", ~hi_conf & ~low_disp),
    ):
        mask = mask & valid
        quadrants[name] = {
            "candidates": int(mask.sum()),
            "correct_chain_rate": float((~wrong[mask]).mean()) if mask.any() else None,
        }
    return {
        "chain": t.chain,
        "candidates": int(valid.sum()),
        "wrong_chain_candidates": int((wrong & valid).sum()),
        "tau": tau,
        "eps": eps,
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
    return {
        "contexts": total,
        "flips": flips,
        "share": flips / total if total else None,
        "flips_with_both_outcomes": known,
        "consensus_pick_better": consensus_better,
        "raw_pick_better": raw_better,
        "sign_test_p": p,
    }
