"""A jury model whose members' errors are correlated through problem difficulty, and its fit test.

One accuracy per member (Dawid-Skene's one coin) assumes members err independently given the
truth; real panels do not (hard problems defeat most members at once), so agreement then
looks like evidence of being right when it is not. Here each problem belongs to one of D
difficulty classes (weights w_d); in class d member i is right with probability a_di and wrong
answers land on that class's attractor with mass s_d (the attractor model of
:mod:`accord.consensus_core.jury._weighted`). EM runs over (class, hypothesis) jointly; problems
with a known right class (``truth``) keep only that hypothesis (semi-supervised), so the same
fit serves no labels, a few and all.

:func:`pattern_fit` tests the fitted model without labels: it predicts how often each agreement
pattern (the partition of the answering members into classes) occurs, given who answered, and
compares with the observed counts (chi-square over cells pooled to expect >= 5). At thousands of
problems any simple model is rejected by the plain test, so the decision uses the test of close
fit (Browne and Cudeck, 1993): H0 says the misfit RMSEA = sqrt(max(chi2 - df, 0) / (df (n - 1)))
is at most 0.05; the p-value is the non-central chi-square's, non-centrality 0.05^2 df (n - 1).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

import numpy as np
from scipy.special import logsumexp
from scipy.stats import chi2, ncx2

from accord.consensus_core.jury._vote import MISSING
from accord.consensus_core.jury._weighted import (
    A_MAX,
    A_MIN,
    G_MIN,
    check_codes,
    dawid_skene,
    hypotheses,
    log_joint,
    pick_slot,
)

CLOSE_FIT_RMSEA = 0.05
MAX_PATTERN_MEMBERS = 8  # the fit test enumerates set partitions (Bell(8) = 4140)


@dataclass(frozen=True)
class DifficultyFit:
    """The fitted model and its choice per problem."""

    accuracy_by_class: np.ndarray  # (D, M), easiest class first
    weights: np.ndarray  # (D,)
    coincidence: np.ndarray  # (D,) attractor mass per class
    posterior: np.ndarray  # (n, M + 1): P(slot j's class is right), last column: none is
    chosen: np.ndarray  # (n,) class code, MISSING when nobody answered
    confidence: np.ndarray  # (n,) posterior of the chosen class
    tied: np.ndarray  # (n,) bool
    loglik: float
    iterations: int

    @property
    def accuracy(self) -> np.ndarray:
        """(M,) each member's accuracy averaged over the difficulty classes."""
        return self.weights @ self.accuracy_by_class

    @property
    def expected_accuracy(self) -> float:
        """The model's own estimate of the vote's accuracy (mean posterior of the chosen class)."""
        return float(self.confidence.mean()) if self.confidence.size else float("nan")

    def as_dict(self) -> dict:
        return {
            "accuracy": self.accuracy.tolist(),
            "accuracy_by_class": self.accuracy_by_class.tolist(),
            "weights": self.weights.tolist(),
            "coincidence": self.coincidence.tolist(),
            "expected_accuracy": self.expected_accuracy,
            "loglik": self.loglik,
            "iterations": self.iterations,
        }


def truth_slots(codes: np.ndarray, truth: np.ndarray | None, labeled: np.ndarray | None) -> np.ndarray:
    """Per problem the hypothesis index fixed by a label (first slot of the true class, M when
    nobody is right), or -1 where the problem is unlabeled."""
    n, M = codes.shape
    out = np.full(n, -1, dtype=np.int64)
    if truth is None:
        return out
    t = np.asarray(truth)
    mask = np.ones(n, dtype=bool) if labeled is None else np.asarray(labeled, dtype=bool)
    hit = (codes == t[:, None]) & (codes != MISSING)
    first = np.argmax(hit, axis=1)
    out[mask] = np.where(hit[mask].any(axis=1), first[mask], M)
    return out


def _start(c: np.ndarray, D: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Classes spread around the one-coin fit: easier ones above it, harder ones below."""
    base = dawid_skene(c)
    shifts = np.linspace(0.15, -0.25, D) if D > 1 else np.zeros(1)
    acc = np.clip(base.accuracy[None, :] + shifts[:, None], 0.02, 0.98)
    return acc, np.full(D, 1.0 / D), np.full(D, float(np.clip(base.coincidence, 0.05, 0.95)))


def fit_difficulty(
    codes,
    n_classes: int = 2,
    truth=None,
    labeled=None,
    seed: int = 0,
    max_iter: int = 500,
    tol: float = 1e-5,
    start: DifficultyFit | None = None,
) -> DifficultyFit:
    """EM for the difficulty-class jury; ``truth`` (class codes, -2 = nobody right) is used where
    ``labeled`` is true (all rows when ``labeled`` is None). ``start`` warm-starts the EM.

    The likelihood of a problem depends only on its agreement pattern (and label), so the EM runs
    on the distinct patterns weighted by their counts.
    """
    c = check_codes(codes)
    D = int(n_classes)
    if D < 1:
        raise ValueError(f"the number of difficulty classes must be >= 1, got {n_classes}")
    n, M = c.shape
    fixed = truth_slots(c, None if truth is None else np.asarray(truth), labeled)
    keys = pattern_keys(c)
    distinct, inverse, counts = np.unique(
        np.concatenate([keys, fixed[:, None]], axis=1), axis=0, return_inverse=True, return_counts=True
    )
    inverse = inverse.reshape(-1)
    u_codes, u_fixed = distinct[:, :M], distinct[:, M]
    h = hypotheses(u_codes)
    clamp = np.zeros((len(distinct), M + 1), dtype=bool)
    rows = np.nonzero(u_fixed >= 0)[0]
    clamp[rows] = True
    clamp[rows, u_fixed[rows]] = False  # labelled patterns: every other hypothesis is impossible
    if start is not None:
        acc, w, s = start.accuracy_by_class.copy(), start.weights.copy(), start.coincidence.copy()
    else:
        acc, w, s = _start(c, D)
    weight = counts.astype(np.float64) * h.present.any(axis=1)  # nobody answered: says nothing
    acc, w, s, loglik, it = _em(h, clamp, weight, acc, w, s, max_iter, tol)
    order = np.argsort(-(acc.mean(axis=1)))
    acc, w, s = acc[order], w[order], s[order]
    joint, _ = _joint(h, acc, w, s, np.zeros_like(clamp))  # the model's own posterior, labels aside
    marg = logsumexp(joint, axis=1)  # (patterns, H)
    top = np.max(marg, axis=1, keepdims=True)
    e = np.where(h.valid, np.exp(marg - np.where(np.isfinite(top), top, 0.0)), 0.0)
    posterior = (e / np.maximum(e.sum(axis=1, keepdims=True), 1e-300))[inverse]
    first = h.first[inverse]
    chosen, pick, tied = pick_slot(posterior[:, :-1], first, c, seed)
    conf = np.where(chosen != MISSING, posterior[np.arange(n), pick], 0.0)
    return DifficultyFit(acc, w, s, posterior, chosen, conf, tied, loglik, it)


def _em(h, clamp, weight, acc, w, s, max_iter: int, tol: float):
    samef = h.same.astype(np.float64)
    present = h.present.astype(np.float64)
    used = weight > 0
    n_wrong = h.wrong.sum(axis=2)
    total_weight = max(weight.sum(), 1.0)
    loglik, it = -np.inf, 0
    for it in range(1, max_iter + 1):
        joint, att = _joint(h, acc, w, s, clamp)
        total = np.where(used, logsumexp(joint.reshape(len(weight), -1), axis=1), 0.0)
        new_loglik = float(weight @ total)
        with np.errstate(invalid="ignore"):
            post = np.where(used[:, None, None], np.exp(joint - total[:, None, None]), 0.0) * weight[:, None, None]
        by_class = post.sum(axis=2)  # (patterns, D), weighted
        new_w = np.clip(by_class.sum(axis=0) / total_weight, 1e-6, 1.0)
        new_w /= new_w.sum()
        right = np.einsum("ndj,nij->ndi", post[:, :, :-1], samef)  # P(class d and member i right)
        denom = np.einsum("nd,ni->di", by_class, present)
        new_acc = np.clip(right.sum(axis=0) / np.maximum(denom, 1e-12), A_MIN, A_MAX)
        new_s = np.clip(
            (post * att).sum(axis=(0, 2)) / np.maximum((post * n_wrong[:, None, :]).sum(axis=(0, 2)), 1e-12),
            G_MIN,
            1 - G_MIN,
        )
        delta = max(np.max(np.abs(new_acc - acc)), np.max(np.abs(new_s - s)), np.max(np.abs(new_w - w)))
        gain = new_loglik - loglik
        acc, w, s, loglik = new_acc, new_w, new_s, new_loglik
        if delta < tol or gain < 1e-7 * total_weight:
            break
    return acc, w, s, loglik, it


def _joint(h, acc, w, s, clamp):
    """log P(class d, hypothesis, answers) (n, D, H), and E[# wrong on the attractor] (n, D, H)."""
    parts, atts = [], []
    for d in range(acc.shape[0]):
        score, att = log_joint(h, acc[d], s[d])
        parts.append(np.where(clamp, -np.inf, score) + np.log(w[d]))
        atts.append(att)
    return np.stack(parts, axis=1), np.stack(atts, axis=1)


# ---------------------------------------------------------------------------------------------
# label-free goodness of fit over agreement patterns
# ---------------------------------------------------------------------------------------------


def pattern_key(row) -> tuple[int, ...]:
    """The agreement pattern of one problem: per member, the first member in its class (-1: no answer)."""
    seen: dict[int, int] = {}
    return tuple(-1 if x == MISSING else seen.setdefault(int(x), i) for i, x in enumerate(row))


def pattern_keys(codes: np.ndarray) -> np.ndarray:
    """:func:`pattern_key` of every row at once, (n, M)."""
    present = codes != MISSING
    same = (codes[:, :, None] == codes[:, None, :]) & present[:, None, :]
    return np.where(present, np.argmax(same, axis=2), -1).astype(np.int64)


def set_partitions(items: list[int]):
    """Every partition of ``items`` into blocks."""
    if not items:
        yield []
        return
    head, rest = items[0], items[1:]
    for part in set_partitions(rest):
        for k in range(len(part)):
            yield part[:k] + [[head] + part[k]] + part[k + 1 :]
        yield [[head]] + part


def _pattern_rows(present: tuple[bool, ...]) -> np.ndarray:
    M = len(present)
    rows = []
    for part in set_partitions([i for i in range(M) if present[i]]):
        r = [MISSING] * M
        for code, block in enumerate(part):
            for i in block:
                r[i] = code
        rows.append(r)
    return np.array(rows, dtype=np.int64)


def pattern_probabilities(fit: DifficultyFit, present: tuple[bool, ...]) -> tuple[list[tuple[int, ...]], np.ndarray]:
    """Every agreement pattern of the members in ``present`` and its probability under ``fit``."""
    rows = _pattern_rows(present)
    h = hypotheses(rows)
    p = np.zeros(len(rows))
    for d in range(fit.weights.size):
        score, _ = log_joint(h, fit.accuracy_by_class[d], fit.coincidence[d])
        lp = logsumexp(score, axis=1)
        p += fit.weights[d] * np.exp(lp - logsumexp(lp))
    return [pattern_key(r) for r in rows], p


@dataclass(frozen=True)
class PatternFit:
    chi2: float
    df: int
    p_value: float  # plain chi-square test of exact fit
    rmsea: float
    p_close: float  # test of close fit (H0: RMSEA <= 0.05)
    n_problems: int
    worst: list[dict]  # the cells furthest from the model

    @property
    def rejects(self) -> bool:
        return self.p_close < 0.05

    def as_dict(self) -> dict:
        return {
            "chi2": self.chi2,
            "df": self.df,
            "p_value": self.p_value,
            "rmsea": self.rmsea,
            "p_close": self.p_close,
            "rejects": self.rejects,
            "n_problems": self.n_problems,
            "worst": self.worst,
        }


def pattern_fit(codes, fit: DifficultyFit, min_expected: float = 5.0) -> PatternFit | None:
    """Observed vs predicted agreement-pattern counts (None when there are too many members)."""
    c = check_codes(codes)
    n, M = c.shape
    if M > MAX_PATTERN_MEMBERS:
        return None
    observed = Counter(pattern_key(r) for r in c)
    groups = Counter(tuple(bool(x) for x in (r != MISSING)) for r in c)
    stat, cells, worst = 0.0, 0, []
    for present, count in groups.items():
        if sum(present) < 2:
            continue
        keys, p = pattern_probabilities(fit, present)
        pairs = sorted(((observed.get(k, 0), count * q, k) for k, q in zip(keys, p)), key=lambda x: x[1])
        pooled, acc_o, acc_e = [], 0.0, 0.0
        for o, e, _ in pairs:
            acc_o, acc_e = acc_o + o, acc_e + e
            if acc_e >= min_expected:
                pooled.append((acc_o, acc_e))
                acc_o = acc_e = 0.0
        if pooled:
            pooled[-1] = (pooled[-1][0] + acc_o, pooled[-1][1] + acc_e)
        stat += sum((o - e) ** 2 / e for o, e in pooled if e > 0)
        cells += max(len(pooled) - 1, 0)
        worst += [{"pattern": list(k), "observed": int(o), "predicted": float(e)} for o, e, k in pairs if e > 0]
    params = fit.accuracy_by_class.size + fit.coincidence.size + fit.weights.size - 1
    df = max(cells - params, 1)
    rmsea = float(np.sqrt(max(stat - df, 0.0) / (df * max(n - 1, 1))))
    p_close = float(ncx2.sf(stat, df, CLOSE_FIT_RMSEA**2 * df * max(n - 1, 1)))
    worst.sort(key=lambda x: -abs(x["observed"] - x["predicted"]) / np.sqrt(x["predicted"] + 1.0))
    return PatternFit(float(stat), int(df), float(chi2.sf(stat, df)), rmsea, p_close, n, worst[:5])
