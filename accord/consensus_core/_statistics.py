"""Per-candidate statistics of raw and consensus scores, NaN-aware (NaN = failed judge)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np

from accord.consensus_core._equilibrium import consensus
from accord.consensus_core._validation import as_lambdas, as_scores


@dataclass(frozen=True)
class ConsensusStats:
    """Everything a decision rule may look at, for raw scores of shape (..., m).

    Arrays of shape (...) unless noted. Statistics are over the judges that scored; a candidate
    with fewer than two scores has ``valid = False``.
    """

    raw: np.ndarray  # (..., m)
    consensus: np.ndarray  # (..., m): s*
    mean: np.ndarray  # consensus mean s̄*
    weighted_mean: (
        np.ndarray
    )  # sum(lambda s*)/sum(lambda); equals the raw one when W is doubly stochastic (e.g. all-to-all)
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


BOOTSTRAP_BATCH = 1 << 15  # values of the samples bootstrapped together


def bootstrap_ci(x: Sequence[float], n_boot: int = 2000, level: float = 0.95, seed: int = 0) -> tuple[float, float]:
    """Percentile bootstrap interval of the mean of x (resampling its entries)."""
    return bootstrap_cis([x], n_boot, level, seed)[0]


def bootstrap_cis(
    samples: Iterable[Sequence[float]], n_boot: int = 2000, level: float = 0.95, seed: int = 0
) -> list[tuple[float, float]]:
    """``bootstrap_ci`` of each sample, the same numbers, computed together: thousands of small samples
    cost a few array passes instead of thousands of calls. Samples are taken from the iterable a
    batch of at most ``BOOTSTRAP_BATCH`` values at a time (a larger one alone), so a generator keeps
    memory bounded; in a batch, samples of one size share the resampling indices each would draw alone."""
    out: list[tuple[float, float]] = []
    batch: list[np.ndarray] = []
    held = 0
    for x in samples:
        x = np.asarray(x, dtype=float)
        if batch and held + x.size > BOOTSTRAP_BATCH:
            out += _bootstrap_batch(batch, n_boot, level, seed)
            batch, held = [], 0
        batch.append(x)
        held += x.size
    return out + (_bootstrap_batch(batch, n_boot, level, seed) if batch else [])


def _bootstrap_batch(arrays: list[np.ndarray], n_boot: int, level: float, seed: int) -> list[tuple[float, float]]:
    out: list[tuple[float, float]] = [(float("nan"), float("nan"))] * len(arrays)
    by_size: dict[int, list[int]] = {}
    for i, x in enumerate(arrays):
        by_size.setdefault(x.size, []).append(i)
    a = (1.0 - level) / 2.0
    for size, same in by_size.items():
        if size == 0:
            continue
        chunk = max(1, 2_000_000 // size)  # bounded memory for long runs
        rows = max(1, min(2_000_000 // (size * min(chunk, n_boot)), 2_000_000 // n_boot))  # and for many samples
        for r in range(0, len(same), rows):
            which = same[r : r + rows]
            x = arrays[which[0]][None] if len(which) == 1 else np.stack([arrays[i] for i in which])
            rng = np.random.default_rng(seed)
            means = np.empty((len(which), n_boot))
            for i in range(0, n_boot, chunk):
                draw = rng.integers(0, size, size=(min(chunk, n_boot - i), size))
                means[:, i : i + len(draw)] = x[:, draw].mean(axis=-1)
            lo, hi = np.quantile(means, a, axis=1), np.quantile(means, 1.0 - a, axis=1)
            for k, i in enumerate(which):
                out[i] = (float(lo[k]), float(hi[k]))
    return out
