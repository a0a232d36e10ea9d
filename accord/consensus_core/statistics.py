"""Per-candidate statistics of raw and consensus scores, NaN-aware (NaN = failed judge)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import numpy as np

from accord.consensus_core.equilibrium import consensus
from accord.consensus_core.validation import as_lambdas, as_scores


@dataclass(frozen=True)
class ConsensusStats:
    """Everything a decision rule may look at, for raw scores of shape (..., m).

    Arrays of shape (...) unless noted. Statistics are over the judges that scored; a candidate
    with fewer than two scores has ``valid = False``.
    """

    raw: np.ndarray  # (..., m)
    consensus: np.ndarray  # (..., m): s*
    mean: np.ndarray  # consensus mean s̄*
    weighted_mean: np.ndarray  # sum(lambda s*)/sum(lambda); equals the raw one when W is doubly stochastic (e.g. all-to-all)
    dispersion: np.ndarray  # Δ* = mean |s*_i - s̄*|
    raw_mean: np.ndarray
    raw_mad: np.ndarray  # mean |r_i - r̄|
    raw_var: np.ndarray  # population variance of r
    raw_max: np.ndarray
    raw_min: np.ndarray
    n_scored: np.ndarray  # int, judges that scored
    valid: np.ndarray  # bool, n_scored >= 2


def _nanmean(x: np.ndarray, k: np.ndarray) -> np.ndarray:
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(k > 0, np.nansum(x, axis=-1) / np.maximum(k, 1), np.nan)


def summarize(raw: np.ndarray, s: np.ndarray, lam: np.ndarray) -> ConsensusStats:
    """Statistics from raw scores and already computed consensus scores (no re-solve)."""
    scored = ~np.isnan(raw)
    k = scored.sum(axis=-1)
    mean = _nanmean(s, k)
    raw_mean = _nanmean(raw, k)
    lam_b = np.where(scored, lam, 0.0)
    with np.errstate(invalid="ignore", divide="ignore"):
        weighted = np.where(k > 0, np.nansum(lam_b * s, axis=-1) / lam_b.sum(axis=-1), np.nan)
    dispersion = _nanmean(np.abs(s - mean[..., None]), k)
    raw_dev = raw - raw_mean[..., None]
    raw_mad = _nanmean(np.abs(raw_dev), k)
    raw_var = _nanmean(raw_dev**2, k)
    has = k > 0
    raw_max = np.where(has, np.max(np.where(scored, raw, -np.inf), axis=-1), np.nan)
    raw_min = np.where(has, np.min(np.where(scored, raw, np.inf), axis=-1), np.nan)
    return ConsensusStats(
        raw=raw,
        consensus=s,
        mean=mean,
        weighted_mean=weighted,
        dispersion=dispersion,
        raw_mean=raw_mean,
        raw_mad=raw_mad,
        raw_var=raw_var,
        raw_max=raw_max,
        raw_min=raw_min,
        n_scored=k,
        valid=k >= 2,
    )


def consensus_stats(raw, lambdas, influence=None) -> ConsensusStats:
    """Consensus scores and all statistics for raw scores of shape (..., m)."""
    r = as_scores(raw)
    lam = as_lambdas(lambdas, r.shape[-1])
    return summarize(r, consensus(r, lam, influence), lam)


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
