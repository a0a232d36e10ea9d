"""Friedkin–Johnsen equilibrium, numpy reference.

Judge i reports s_i maximising -(s_i - sum_j W_ij s_j)^2 - lambda_i (s_i - r_i)^2; the unique
equilibrium solves (I + Lambda - W) s = Lambda r. For the paper's all-to-all W there is an O(m)
closed form (no solve). A NaN raw score marks a failed judge: the equilibrium is then solved over
the judges that did score, with lambda restricted and W restricted and re-normalised per row
(a row left with no weight falls back to all-to-all among the remaining judges). Failed judges
get NaN consensus scores.
"""

from __future__ import annotations

import numpy as np

from accord.consensus_core._validation import all_to_all, as_influence, as_lambdas, as_scores


def closed_form_all_to_all(raw: np.ndarray, lam: np.ndarray) -> np.ndarray:
    """O(m) equilibrium for W = (11^T - I)/(m-1), NaN-aware; raw (..., m), lam (m,)."""
    scored = ~np.isnan(raw)
    k = scored.sum(axis=-1, keepdims=True).astype(np.float64)  # judges that scored, per candidate
    km1 = k - 1.0
    r0 = np.where(scored, raw, 0.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        w = np.where(scored, 1.0 / (k + km1 * lam), 0.0)
        lw = km1 * lam * w  # (m'-1) lambda_i w_i
        S = (lw * r0).sum(axis=-1, keepdims=True) / (1.0 - w.sum(axis=-1, keepdims=True))
        s = w * S + lw * r0
    s = np.where(k >= 2, s, r0)  # fewer than two judges: nothing to agree with
    return np.where(scored, s, np.nan)


def _restricted_influence(W: np.ndarray, mask: np.ndarray) -> np.ndarray:
    sub = W[np.ix_(mask, mask)]
    sums = sub.sum(axis=1, keepdims=True)
    k = sub.shape[0]
    fallback = all_to_all(k)
    with np.errstate(divide="ignore", invalid="ignore"):
        normed = np.where(sums > 0, sub / sums, fallback)
    return normed


def influence_matrix(lambdas, influence=None, m: int | None = None) -> np.ndarray:
    """M = (I + Lambda - W)^{-1} Lambda: s* = M r. Row-stochastic and entrywise non-negative."""
    lam = np.asarray(lambdas, dtype=np.float64)
    m = lam.shape[0] if m is None else m
    lam = as_lambdas(lam, m)
    W = all_to_all(m) if influence is None else as_influence(influence, m)
    A = np.eye(m) + np.diag(lam) - W
    return np.linalg.solve(A, np.diag(lam))


def solve_general(raw: np.ndarray, lam: np.ndarray, W: np.ndarray) -> np.ndarray:
    """Equilibrium for a general influence matrix: one matrix M per failure pattern, then s* = M r."""
    m = raw.shape[-1]
    flat = raw.reshape(-1, m)
    out = np.full_like(flat, np.nan)
    scored = ~np.isnan(flat)
    patterns, inverse = np.unique(scored, axis=0, return_inverse=True)
    inverse = inverse.reshape(-1)
    for p, mask in enumerate(patterns):
        rows = inverse == p
        k = int(mask.sum())
        if k == 0:
            continue
        if k == 1:
            out[np.ix_(rows, mask)] = flat[np.ix_(rows, mask)]
            continue
        Wk = _restricted_influence(W, mask)
        lk = lam[mask]
        M = np.linalg.solve(np.eye(k) + np.diag(lk) - Wk, np.diag(lk))
        out[np.ix_(rows, mask)] = flat[np.ix_(rows, mask)] @ M.T
    return out.reshape(raw.shape)


def consensus(raw, lambdas, influence=None) -> np.ndarray:
    """Consensus scores s* for raw scores of any batch shape (..., m).

    ``influence=None`` is the paper's all-to-all structure (closed form, O(m)); otherwise a
    row-stochastic m x m matrix with zero diagonal (solved per failure pattern).
    """
    r = as_scores(raw)
    m = r.shape[-1]
    lam = as_lambdas(lambdas, m)
    if influence is None:
        return closed_form_all_to_all(r, lam)
    return solve_general(r, lam, as_influence(influence, m))


def iterate_updates(raw, lambdas, influence=None, steps: int = 2000) -> np.ndarray:
    """The FJ best-response dynamics s <- (W s + Lambda r)/(1 + Lambda), iterated from s = r.

    A slow reference used to check that the closed form is the dynamics' limit.
    """
    r = as_scores(raw)
    m = r.shape[-1]
    lam = as_lambdas(lambdas, m)
    W = all_to_all(m) if influence is None else as_influence(influence, m)
    s = r.copy()
    for _ in range(steps):
        s = (s @ W.T + lam * r) / (1.0 + lam)
    return s
