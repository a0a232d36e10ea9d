"""Input checks shared by the numpy and JAX paths: every bad input gets a ValueError naming it."""

from __future__ import annotations

import numpy as np

ROW_SUM_TOL = 1e-9
MAX_LAMBDA = 1e6  # a typed λ above this is refused: the equilibrium's sums overflow long before 1e308,
# and a judge with λ = 1e6 already keeps its own score to six digits


LAMBDA_RULE = "λ must be finite numbers > 0, one per judge, comma-separated (e.g. 1.5,1,0.8)"


def lambda_error(got, m: int | None) -> ValueError:
    """The one message for λ that breaks the rule, wherever it was typed or passed."""
    judges = f" for {m} judges" if m is not None else ""
    return ValueError(f"{LAMBDA_RULE}; got {got!r}{judges}")


def as_lambdas(lambdas, m: int) -> np.ndarray:
    """λ for m judges as an array, by the one rule of :func:`parse_lambdas`; one number stands for
    every judge."""
    value = lambdas.tolist() if isinstance(lambdas, np.ndarray) else lambdas
    if isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(value, bool):
        return np.full(m, parse_lambdas(value)[0])
    return np.asarray(parse_lambdas(value, m), dtype=np.float64)


def parse_lambdas(value, m: int | None = None) -> tuple[float, ...]:
    """λ as a user types it, the one reader for flags, replay specs and config files.

    ``"1.5,1,0.8"`` (commas, spaces allowed), one number, or a list of numbers (YAML/TOML); every
    value finite, > 0 and at most :data:`MAX_LAMBDA`, and ``m`` of them when ``m`` is given. Anything else is a
    ValueError with the one message of :func:`lambda_error` (or, above the largest λ, one naming it).
    """
    if isinstance(value, str):
        parts = [p.strip() for p in value.split(",")]
        try:
            values = [float(p) for p in parts]
        except ValueError:
            raise lambda_error(value, m) from None
    elif isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(value, bool):
        values = [float(value)]
    elif isinstance(value, (list, tuple, np.ndarray)) and all(
        isinstance(x, (int, float, np.integer, np.floating)) and not isinstance(x, bool) for x in value
    ):
        values = [float(x) for x in value]
    else:
        raise lambda_error(value, m)
    if not values or (m is not None and len(values) != m) or not all(np.isfinite(v) and v > 0 for v in values):
        raise lambda_error(value, m)
    too_large = [v for v in values if v > MAX_LAMBDA]
    if too_large:
        raise ValueError(
            f"λ = {too_large[0]:g} is above {MAX_LAMBDA:g}, the largest λ the consensus computes "
            f"without overflow (a judge with λ = {MAX_LAMBDA:g} already keeps its own score); "
            f"got {value!r}"
        )
    return tuple(values)


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
