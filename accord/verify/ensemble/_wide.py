"""Agreement and influence for wide reward tables, in time linear in rows x models.

Pairwise correlations (m(m-1)/2 pairs) and the m x m FJ influence matrix grow with the square of
the number of models m, and solving for the matrix with its cube: 2,000 models would give 2 million
pairs and a 4-million-entry matrix. Up to ``WIDE_MODELS`` models the report keeps them; above it,
each model instead gets its correlation with the mean of the *other* models' calibrated scores on the
same responses (the item-rest correlation: Spearman on its raw rewards, Pearson on its calibrated
scores), and its share of the consensus mean comes from the O(m) closed form of the all-to-all
equilibrium (the matrix is left out).

The Pearson part is kept as mergeable per-model moments (:class:`RestMoments`), so a streamed table
gives the in-memory value up to rounding; the Spearman part ranks whatever rows it is given at once.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from scipy.stats import rankdata

from accord.consensus_core import all_to_all_shares

WIDE_MODELS = 64  # up to this many models: every pair and the whole influence matrix are reported
OMITTED = "left out above {limit} models ({m} models: {pairs:,} pairs); see the *_vs_rest correlations"


def is_wide(models: int) -> bool:
    return models > WIDE_MODELS


def rest_means(cal: np.ndarray) -> np.ndarray:
    """(rows, m): per row and model, the mean of the other models' calibrated scores (NaN if none)."""
    ok = ~np.isnan(cal)
    x = np.where(ok, cal, 0.0)
    others = ok.sum(axis=1, keepdims=True) - ok
    with np.errstate(invalid="ignore", divide="ignore"):
        rest = (x.sum(axis=1, keepdims=True) - x) / others
    return np.where(others > 0, rest, np.nan)


def _paired(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    both = ~np.isnan(a) & ~np.isnan(b)
    return both, np.where(both, a, np.nan), np.where(both, b, np.nan)


def column_correlations(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Pearson r of a[:, j] with b[:, j] over the rows where both are present; NaN for fewer than
    3 such rows or a constant side (as ``pairwise_correlations`` does for one pair)."""
    both, a, b = _paired(a, b)
    n = both.sum(axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        da = np.where(both, a - np.nansum(a, axis=0) / n, 0.0)
        db = np.where(both, b - np.nansum(b, axis=0) / n, 0.0)
        r = (da * db).sum(axis=0) / np.sqrt((da**2).sum(axis=0) * (db**2).sum(axis=0))
    return np.where((n < 3) | _constant(a, both) | _constant(b, both), np.nan, np.clip(r, -1.0, 1.0))


def _constant(x: np.ndarray, both: np.ndarray) -> np.ndarray:
    first = x[np.argmax(both, axis=0), np.arange(x.shape[1])]
    return ~np.any(both & (x != first), axis=0)


def spearman_vs_rest(raw: np.ndarray, cal: np.ndarray) -> np.ndarray:
    """Per model: Spearman correlation of its raw rewards with the mean of the others' calibrated scores."""
    _, a, b = _paired(raw, rest_means(cal))
    return column_correlations(rankdata(a, axis=0, nan_policy="omit"), rankdata(b, axis=0, nan_policy="omit"))


class RestMoments:
    """Per model, the moments of (calibrated score, mean of the others) over the rows seen so far,
    merged block by block (Chan et al.), and whether each side ever varied."""

    def __init__(self, m: int):
        self.mom = np.zeros((6, m))  # n, mean a, mean b, M2 a, M2 b, co-moment
        self.first = np.full((2, m), np.nan)
        self.varied = np.zeros((2, m), dtype=bool)

    def add(self, cal: np.ndarray) -> None:
        both, a, b = _paired(cal, rest_means(cal))
        n = both.sum(axis=0).astype(np.float64)
        with np.errstate(invalid="ignore", divide="ignore"):
            ma, mb = np.nansum(a, axis=0) / n, np.nansum(b, axis=0) / n
            da, db = np.where(both, a - ma, 0.0), np.where(both, b - mb, 0.0)
        block = np.array([n, ma, mb, (da**2).sum(axis=0), (db**2).sum(axis=0), (da * db).sum(axis=0)])
        row = np.argmax(both, axis=0)
        for side, x in enumerate((a, b)):
            start = np.isnan(self.first[side]) & (n > 0)
            self.first[side] = np.where(start, x[row, np.arange(x.shape[1])], self.first[side])
            self.varied[side] |= np.any(both & (x != self.first[side]), axis=0)
        self.mom = _merge(self.mom, block)

    def pearson(self) -> np.ndarray:
        n, _, _, m2a, m2b, c = self.mom
        with np.errstate(invalid="ignore", divide="ignore"):
            r = np.clip(c / np.sqrt(m2a * m2b), -1.0, 1.0)
        return np.where((n < 3) | ~self.varied[0] | ~self.varied[1], np.nan, r)


def _merge(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Moments of the union of two disjoint sets of pairs, per column; an empty side leaves the other."""
    n = x[0] + y[0]
    with np.errstate(invalid="ignore", divide="ignore"):
        da, db, w = y[1] - x[1], y[2] - x[2], x[0] * y[0] / n
        merged = np.array(
            [
                n,
                x[1] + da * y[0] / n,
                x[2] + db * y[0] / n,
                x[3] + y[3] + da * da * w,
                x[4] + y[4] + db * db * w,
                x[5] + y[5] + da * db * w,
            ]
        )
    return np.where(x[0] == 0, y, np.where(y[0] == 0, x, merged))


def wide_agreement(alpha: float, spearman: np.ndarray, pearson: np.ndarray, names: Sequence[str]) -> dict:
    m = len(names)
    return {
        "krippendorff_alpha": alpha,
        "spearman_raw_vs_rest": dict(zip(names, spearman.tolist())),
        "pearson_calibrated_vs_rest": dict(zip(names, pearson.tolist())),
        "pairwise": OMITTED.format(limit=WIDE_MODELS, m=m, pairs=m * (m - 1) // 2),
    }


def wide_report(alpha: float, raw: np.ndarray, cal: np.ndarray, lambdas, names: Sequence[str]) -> dict:
    """The agreement and influence parts of an in-memory report, for rows of raw and calibrated scores."""
    rest = RestMoments(len(names))
    rest.add(cal)
    return {
        "agreement": wide_agreement(alpha, spearman_vs_rest(raw, cal), rest.pearson(), names),
        "influence": wide_influence(lambdas, names),
    }


def wide_influence(lambdas, names: Sequence[str]) -> dict:
    """``influence_report(...).as_dict()`` without the m x m matrix (all-to-all W)."""
    lam = np.asarray(lambdas, dtype=np.float64)
    return {
        "judges": list(names),
        "lambdas": lam.tolist(),
        "matrix": None,
        "share_of_mean": dict(zip(names, all_to_all_shares(lam).tolist())),
    }
