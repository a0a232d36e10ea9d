"""Input checks shared by the numpy and JAX paths: every bad input gets a ValueError naming it."""

from __future__ import annotations

import numpy as np

ROW_SUM_TOL = 1e-9


def as_lambdas(lambdas, m: int) -> np.ndarray:
    """Stubbornness vector of length m, every entry finite and > 0."""
    lam = np.asarray(lambdas, dtype=np.float64)
    if lam.ndim == 0:
        lam = np.full(m, float(lam))
    if lam.ndim != 1:
        raise ValueError(f"lambdas must be a 1-D vector, got shape {lam.shape}")
    if lam.shape[0] != m:
        raise ValueError(f"got {lam.shape[0]} stubbornness values for {m} judges")
    if not np.all(np.isfinite(lam)):
        raise ValueError(f"stubbornness values must be finite, got {lam.tolist()}")
    if np.any(lam <= 0):
        raise ValueError(f"stubbornness values must be > 0 (lambda <= 0 has no equilibrium meaning), got {lam.tolist()}")
    return lam


def as_scores(raw) -> np.ndarray:
    """Raw scores of shape (..., m), m >= 2, each in [0, 1] or NaN (a failed judge)."""
    r = np.asarray(raw, dtype=np.float64)
    if r.ndim == 0:
        raise ValueError("scores must have a judge axis (shape (..., m))")
    if r.shape[-1] < 2:
        raise ValueError(f"a panel needs at least 2 judges, got m = {r.shape[-1]}")
    finite = r[~np.isnan(r)]
    if np.any(np.isinf(finite)):
        raise ValueError("scores must be finite or NaN (for a failed judge); got an infinity")
    bad = finite[(finite < 0.0) | (finite > 1.0)]
    if bad.size:
        raise ValueError(f"scores must lie in [0, 1] (NaN marks a failed judge); got {bad[:5].tolist()}")
    return r


def as_influence(W, m: int) -> np.ndarray:
    """Row-stochastic influence matrix with zero diagonal and non-negative entries."""
    w = np.asarray(W, dtype=np.float64)
    if w.shape != (m, m):
        raise ValueError(f"influence matrix must be {m} x {m} for {m} judges, got shape {w.shape}")
    if not np.all(np.isfinite(w)):
        raise ValueError("influence matrix has non-finite entries")
    if np.any(w < 0):
        raise ValueError("influence matrix has negative entries")
    if np.any(np.abs(np.diag(w)) > 0):
        raise ValueError(f"influence matrix must have a zero diagonal, got diagonal {np.diag(w).tolist()}")
    sums = w.sum(axis=1)
    if np.any(np.abs(sums - 1.0) > ROW_SUM_TOL):
        raise ValueError(f"influence matrix must be row-stochastic (rows sum to 1), got row sums {sums.tolist()}")
    return w


def all_to_all(m: int) -> np.ndarray:
    """The paper's influence structure: each judge listens equally to every other judge."""
    return (np.ones((m, m)) - np.eye(m)) / (m - 1)
