"""Weighted juries: learn each member's accuracy from the panel's answers alone, then vote by it.

A plain majority of unequal members can lose to its best member. The fixes here need no labels:

- :func:`agreement_accuracy` — one-coin accuracies from pairwise agreement rates. If wrong
  answers rarely coincide, P(i and j agree) ~= a_i a_j, so a_i = sqrt(A_ij A_ik / A_jk), averaged
  over all pairs (j, k) (the "triplet" estimator).
- :func:`weighted_vote` — plurality where member i's vote weighs log(a_i / ((1 - a_i) g)); g is the
  chance a wrong answer lands on one given wrong class (the shared attractor mass). It is the
  posterior-maximising vote of the one-coin model; equal accuracies give the modal answer exactly.
- :func:`dawid_skene` — EM over answer classes: E-step posterior over which class is right,
  M-step each member's accuracy and the wrong-answer coincidence g (answers classed per problem,
  the "one-coin" model); with answers from one fixed label set (``global_labels``) it fits each
  member's full confusion matrix and the class priors instead.
- :func:`supervised_accuracy` — the same vote with accuracies measured against labels: the upper
  bound the label-free estimates are compared with.

Ties use the jury's seeded rule (:func:`accord.consensus_core.jury.vote_codes`): same keys, same seed.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from accord.consensus_core.jury._vote import MISSING

A_MIN, A_MAX = 0.01, 0.99
G_MIN = 1e-3
LEAK = 1e-3  # chance a second wrong class of 2+ members arises without an attractor


@dataclass(frozen=True)
class WeightedVote:
    """A weighted jury's choice per problem and the member accuracies it used."""

    method: str
    chosen: np.ndarray  # (n,) class code, MISSING if nobody answered
    confidence: np.ndarray  # (n,) posterior (EM) or weight share of the winner
    tied: np.ndarray  # (n,) bool
    accuracy: np.ndarray  # (M,) estimated member accuracies
    accuracy_ci: np.ndarray  # (M, 2) bootstrap interval (NaN when not computed)
    coincidence: float  # g: chance a wrong answer lands on a given wrong class
    weights: np.ndarray  # (M,) log-odds vote weights
    iterations: int = 0

    def as_dict(self) -> dict:
        return {
            "method": self.method,
            "accuracy": self.accuracy.tolist(),
            "accuracy_ci": self.accuracy_ci.tolist(),
            "coincidence": self.coincidence,
            "weights": self.weights.tolist(),
            "iterations": self.iterations,
        }


def check_codes(codes) -> np.ndarray:
    """``codes`` as an integer array (problems, members >= 2), or ValueError."""
    c = np.asarray(codes)
    if c.ndim != 2 or not np.issubdtype(c.dtype, np.integer):
        raise ValueError(f"class codes must be an integer array of shape (problems, members), got {c.dtype} {c.shape}")
    if c.shape[1] < 2:
        raise ValueError("a weighted jury needs at least 2 members")
    return c


def _structure(c: np.ndarray):
    present = c != MISSING
    same = (c[:, :, None] == c[:, None, :]) & present[:, :, None] & present[:, None, :]  # (n, i, j)
    M = c.shape[1]
    earlier = np.tril(np.ones((M, M), dtype=bool), k=-1)
    first = present & ~np.any(same & earlier[None], axis=2)  # hypothesis slots: first member of each class
    return present, same, first


def _weights(acc: np.ndarray, g: float) -> np.ndarray:
    a = np.clip(acc, A_MIN, A_MAX)
    return np.log(a / ((1 - a) * max(g, G_MIN)))


def pick_slot(score: np.ndarray, first: np.ndarray, c: np.ndarray, seed: int):
    """Best hypothesis slot by score, ties (to 1e-9) broken by the jury's seeded keys."""
    n, M = c.shape
    s = np.where(first, score, -np.inf)
    top = s.max(axis=1, keepdims=True)
    tol = 1e-9 * np.maximum(1.0, np.abs(np.where(np.isfinite(top), top, 0.0)))
    cand = first & (s >= top - tol)
    keys = np.random.default_rng(seed).random((n, M))
    pick = np.argmax(np.where(cand, keys, -1.0), axis=1)
    rows = np.arange(n)
    anyone = first.any(axis=1)
    chosen = np.where(anyone, c[rows, pick], MISSING)
    return chosen.astype(np.int64), pick, cand.sum(axis=1) > 1


@dataclass(frozen=True)
class Hypotheses:
    """Per problem and hypothesis h (slot j's class is right, or h = M: none is), what is fixed by
    the answers: who is right, who is wrong, and the wrong classes' first slots and sizes."""

    present: np.ndarray  # (n, M)
    same: np.ndarray  # (n, M, M)
    first: np.ndarray  # (n, M)
    right: np.ndarray  # (n, H, M) float
    wrong: np.ndarray  # (n, H, M) float
    wrong_slot: np.ndarray  # (n, H, M) bool
    size: np.ndarray  # (n, H, M) float
    valid: np.ndarray  # (n, H) bool


def hypotheses(c: np.ndarray) -> Hypotheses:
    """Everything the answers fix under each hypothesis (see :class:`Hypotheses`)."""
    present, same, first = _structure(c)
    n, M = c.shape
    right = np.concatenate([same.transpose(0, 2, 1), np.zeros((n, 1, M), dtype=bool)], axis=1)  # (n, H, i)
    wrong = present[:, None, :] & ~right
    # wrong classes: first slots f whose class is not the right one
    right_first = np.einsum("nhi,nif->nhf", right.astype(np.int8), same.astype(np.int8)) > 0
    wrong_slot = first[:, None, :] & ~right_first
    size = np.where(wrong_slot, same.sum(axis=1)[:, None, :], 0).astype(np.float64)
    valid = np.concatenate([first, present.any(axis=1, keepdims=True)], axis=1)
    return Hypotheses(present, same, first, right.astype(np.float64), wrong.astype(np.float64), wrong_slot, size, valid)


def log_joint(h: Hypotheses, acc: np.ndarray, s: float):
    """Log joint probability (n, M + 1) of the answers and each hypothesis (the unnormalised log
    posterior), and E[# wrong on the attractor] under each hypothesis.

    Wrong answers land on one shared attractor with probability s, else on an answer of their own;
    so a wrong class of two or more members must be the attractor (a second such class has the
    small leak probability LEAK per extra member), and at most one wrong class is the attractor.
    """
    a = np.clip(acc, A_MIN, A_MAX)
    s = min(max(s, G_MIN), 1 - G_MIN)
    size, ws = h.size, h.wrong_slot
    log_base = np.where(ws, np.where(size == 1, np.log(1 - s), (size - 1) * np.log(LEAK) + size * np.log(1 - s)), 0.0)
    with np.errstate(divide="ignore"):
        log_att = np.where(ws, size * np.log(s), -np.inf)
    ratio = np.exp(log_att - log_base)  # make class f the attractor instead
    norm = 1.0 + ratio.sum(axis=2)
    att = (ratio * size).sum(axis=2) / norm
    lw = log_base.sum(axis=2) + np.log(norm)
    score = h.right @ np.log(a) + h.wrong @ np.log(1 - a) + lw
    return np.where(h.valid, score, -np.inf), att


def _log_posterior(c: np.ndarray, acc: np.ndarray, s: float):
    h = hypotheses(c)
    score, att = log_joint(h, acc, s)
    return score, att, h.present, h.same, h.first


def _with_none(first: np.ndarray) -> np.ndarray:
    return np.concatenate([first, first.any(axis=1, keepdims=True)], axis=1)


def weighted_vote(codes, accuracy, coincidence: float = 0.0, seed: int = 0, method: str = "weighted") -> WeightedVote:
    """The most probable class given member accuracies and the attractor mass s (``coincidence``).

    With equal accuracies and no attractor this is exactly the modal vote (same tie keys).
    """
    c = check_codes(codes)
    acc = np.asarray(accuracy, dtype=np.float64)
    if acc.shape != (c.shape[1],):
        raise ValueError(f"got {acc.size} accuracies for {c.shape[1]} members")
    score, _, present, same, first = _log_posterior(c, acc, coincidence)
    chosen, pick, tied = pick_slot(score[:, :-1], first, c, seed)
    post = _posterior(score, _with_none(first))
    conf = np.where(chosen != MISSING, post[np.arange(c.shape[0]), pick], 0.0)
    w = _weights(acc, 1.0)
    return WeightedVote(method, chosen, conf, tied, acc, np.full((acc.size, 2), np.nan), float(coincidence), w)


def _posterior(score: np.ndarray, first: np.ndarray) -> np.ndarray:
    s = np.where(first, score, -np.inf)
    top = np.max(s, axis=1, keepdims=True)
    top = np.where(np.isfinite(top), top, 0.0)
    e = np.where(first, np.exp(s - top), 0.0)
    tot = e.sum(axis=1, keepdims=True)
    return np.where(tot > 0, e / np.where(tot > 0, tot, 1.0), 0.0)


def agreement_accuracy(codes) -> tuple[np.ndarray, float]:
    """Label-free member accuracies and attractor mass from pairwise agreement rates alone.

    Fits P(i and j agree) = a_i a_j + (1 - a_i)(1 - a_j) s^2 by least squares over all pairs
    (needs at least 3 members; M(M-1)/2 equations for M + 1 unknowns).
    """
    from scipy.optimize import least_squares

    c = check_codes(codes)
    present, same, _ = _structure(c)
    M = c.shape[1]
    if M < 3:
        raise ValueError("agreement-based accuracies need at least 3 members")
    both = np.einsum("ni,nj->ij", present.astype(float), present.astype(float))
    agree = np.einsum("nij->ij", same.astype(float))
    iu = np.triu_indices(M, 1)
    keep = both[iu] > 0
    A = agree[iu][keep] / both[iu][keep]
    wts = np.sqrt(both[iu][keep])
    I, J = iu[0][keep], iu[1][keep]

    def resid(x):
        a, s = x[:M], x[M]
        return wts * (a[I] * a[J] + (1 - a[I]) * (1 - a[J]) * s * s - A)

    x0 = np.concatenate([np.full(M, 0.5), [0.3]])
    fit = least_squares(resid, x0, bounds=([A_MIN] * M + [0.0], [A_MAX] * M + [1.0]))
    return np.clip(fit.x[:M], A_MIN, A_MAX), float(fit.x[M])


def _em_run(h: Hypotheses, acc: np.ndarray, s: float, max_iter: int, tol: float):
    samef = h.same.astype(np.float64)
    n_ans = np.maximum(h.present.sum(axis=0), 1)
    n_wrong_h = h.wrong.sum(axis=2)  # (n, H)
    it = 0
    loglik = -np.inf
    for it in range(1, max_iter + 1):
        score, att = log_joint(h, acc, s)
        top = np.max(score, axis=1)
        top = np.where(np.isfinite(top), top, 0.0)
        e = np.where(h.valid, np.exp(score - top[:, None]), 0.0)
        tot = e.sum(axis=1)
        loglik = float(np.sum(top + np.log(tot + 1e-300)))
        post = e / np.where(tot > 0, tot, 1.0)[:, None]
        right = np.einsum("nj,nij->ni", post[:, :-1], samef)
        new_acc = np.clip(right.sum(axis=0) / n_ans, A_MIN, A_MAX)
        new_s = float(np.clip((post * att).sum() / max((post * n_wrong_h).sum(), 1e-12), G_MIN, 1 - G_MIN))
        delta = max(np.max(np.abs(new_acc - acc)), abs(new_s - s))
        acc, s = new_acc, new_s
        if delta < tol:
            break
    return acc, s, it, loglik


def _em_one_coin(c: np.ndarray, max_iter: int, tol: float):
    """EM for member accuracies a_i and the attractor mass s; best of two starts by likelihood.

    Starts: the modal vote's accuracies (each member's rate of agreeing with the modal answer)
    and the agreement-rate fit (:func:`agreement_accuracy`, when there are >= 3 members).
    """
    starts = []
    present, same, first = _structure(c)
    modal = same.sum(axis=1)
    top = np.where(first, modal, -1).max(axis=1, keepdims=True)
    in_top = np.einsum("nij,nj->ni", same, (first & (modal == top)).astype(float)) > 0
    starts.append((np.clip(in_top.sum(axis=0) / np.maximum(present.sum(axis=0), 1), 0.05, 0.95), 0.3))
    if c.shape[1] >= 3:
        acc0, s0 = agreement_accuracy(c)
        starts.append((np.clip(acc0, 0.05, 0.95), float(np.clip(s0, 0.05, 0.95))))
    best = None
    h = hypotheses(c)
    for acc0, s0 in starts:
        run = _em_run(h, acc0, s0, max_iter, tol)
        if best is None or run[3] > best[3]:
            best = run
    return best[0], best[1], best[2]


def _em_confusion(c: np.ndarray, max_iter: int, tol: float):
    """Classic Dawid-Skene: global labels 0..K-1, per-member confusion matrices and class priors."""
    present = c != MISSING
    K = int(c.max()) + 1
    n, M = c.shape
    onehot = np.zeros((n, M, K))
    rows, cols = np.nonzero(present)
    onehot[rows, cols, c[rows, cols]] = 1.0
    T = onehot.sum(axis=1) + 1e-9
    T /= T.sum(axis=1, keepdims=True)  # init: vote shares
    it = 0
    pi = np.zeros((M, K, K))
    prior = np.full(K, 1.0 / K)
    for it in range(1, max_iter + 1):
        prior = (T.sum(axis=0) + 0.01) / (n + 0.01 * K)
        pi = np.einsum("nk,nil->ikl", T, onehot) + 0.01
        pi /= pi.sum(axis=2, keepdims=True)
        logp = np.log(prior)[None] + np.einsum("nil,ikl->nk", onehot, np.log(pi))
        logp -= logp.max(axis=1, keepdims=True)
        new_T = np.exp(logp)
        new_T /= new_T.sum(axis=1, keepdims=True)
        delta = np.max(np.abs(new_T - T))
        T = new_T
        if delta < tol:
            break
    acc = np.einsum("k,ikk->i", prior, pi)
    return T, pi, prior, np.clip(acc, A_MIN, A_MAX), it


def dawid_skene(
    codes,
    seed: int = 0,
    n_boot: int = 0,
    global_labels: bool = False,
    max_iter: int = 200,
    tol: float = 1e-5,
    level: float = 0.95,
) -> WeightedVote:
    """Dawid-Skene EM; each member's estimated accuracy with a bootstrap interval over problems."""
    c = check_codes(codes)
    if global_labels:
        T, _, _, acc, it = _em_confusion(c, max_iter, tol)
        present = c != MISSING
        n, M = c.shape
        # choose the label of highest posterior; ties -> seeded keys over the labels
        K = T.shape[1]
        keys = np.random.default_rng(seed).random((n, K))
        top = T.max(axis=1, keepdims=True)
        cand = (T >= top - 1e-9) & present.any(axis=1, keepdims=True)
        chosen = np.where(present.any(axis=1), np.argmax(np.where(cand, keys, -1.0), axis=1), MISSING)
        conf = np.where(chosen != MISSING, T.max(axis=1), 0.0)
        vote = WeightedVote(
            "dawid-skene",
            chosen.astype(np.int64),
            conf,
            cand.sum(axis=1) > 1,
            acc,
            np.full((M, 2), np.nan),
            float("nan"),
            np.log(acc / (1 - acc)),
            it,
        )
    else:
        acc, g, it = _em_one_coin(c, max_iter, tol)
        v = weighted_vote(c, acc, g, seed, method="dawid-skene")
        vote = WeightedVote("dawid-skene", v.chosen, v.confidence, v.tied, acc, v.accuracy_ci, g, v.weights, it)
    if n_boot:
        rng = np.random.default_rng(seed + 1)
        boots = np.empty((n_boot, c.shape[1]))
        for b in range(n_boot):
            idx = rng.integers(0, c.shape[0], c.shape[0])
            if global_labels:
                boots[b] = _em_confusion(c[idx], max_iter, tol)[3]
            else:
                boots[b] = _em_run(hypotheses(c[idx]), acc, g, max_iter, tol)[0]  # started at the fit
        lo, hi = (1 - level) / 2 * 100, (1 + level) / 2 * 100
        ci = np.stack([np.percentile(boots, lo, axis=0), np.percentile(boots, hi, axis=0)], axis=1)
        vote = WeightedVote(
            vote.method,
            vote.chosen,
            vote.confidence,
            vote.tied,
            vote.accuracy,
            ci,
            vote.coincidence,
            vote.weights,
            vote.iterations,
        )
    return vote


def weighted_plurality(codes, seed: int = 0, n_boot: int = 0, level: float = 0.95) -> WeightedVote:
    """Accuracy-weighted plurality with agreement-rate accuracies (label-free, no EM)."""
    c = check_codes(codes)
    acc, s = agreement_accuracy(c)
    v = weighted_vote(c, acc, s, seed, method="weighted")
    if n_boot:
        rng = np.random.default_rng(seed + 1)
        boots = np.stack([agreement_accuracy(c[rng.integers(0, c.shape[0], c.shape[0])])[0] for _ in range(n_boot)])
        lo, hi = (1 - level) / 2 * 100, (1 + level) / 2 * 100
        ci = np.stack([np.percentile(boots, lo, axis=0), np.percentile(boots, hi, axis=0)], axis=1)
        v = WeightedVote(v.method, v.chosen, v.confidence, v.tied, v.accuracy, ci, v.coincidence, v.weights)
    return v


def supervised_accuracy(codes, correct) -> tuple[np.ndarray, float]:
    """Member accuracies and the wrong-answer coincidence g measured against labels."""
    c = check_codes(codes)
    ok = np.asarray(correct, dtype=bool)
    present, same, _ = _structure(c)
    acc = np.clip((ok & present).sum(axis=0) / np.maximum(present.sum(axis=0), 1), A_MIN, A_MAX)
    from accord.consensus_core.jury._estimate import estimate_law

    return acc, float(estimate_law(c, ok & present, 1, n_boot=0).s[0])


def supervised_vote(codes, correct, seed: int = 0) -> WeightedVote:
    """The upper bound: the weighted vote with accuracies and g measured on labels."""
    acc, g = supervised_accuracy(codes, correct)
    return weighted_vote(codes, acc, g, seed, method="supervised")
