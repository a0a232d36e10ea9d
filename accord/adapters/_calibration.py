"""Calibrating unbounded rewards to [0, 1] so reward models can sit on a judge panel.

Every map is fitted on a calibration set, saved as JSON with the run and reapplied as is:

- ``standardize`` (default, label-free): logistic of the standardised reward, 1/(1+exp(-(x-mu)/sd)).
- ``quantile`` (label-free): the empirical CDF of the calibration rewards (mid-ranks, linear
  between the stored quantiles), so the calibrated score is the reward's percentile.
- ``platt`` (needs labels): logistic regression of the 0/1 label on the reward,
  1/(1+exp(-(A x + B))), fitted by maximum likelihood with Platt's smoothed targets.
- ``sigmoid``: the plain logistic of the raw reward (no fitting; for rewards already in logit units).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

CALIBRATION_METHODS = ("standardize", "quantile", "platt", "sigmoid")
N_QUANTILES = 1001


def _sigmoid(z: np.ndarray) -> np.ndarray:
    return 0.5 * (1.0 + np.tanh(0.5 * z))  # overflow-free logistic


@dataclass
class Calibrator:
    """A fitted map from raw rewards to [0, 1] (see the module doc for the methods)."""

    method: str = "standardize"
    params: dict = field(default_factory=dict)

    def __post_init__(self):
        if self.method not in CALIBRATION_METHODS:
            raise ValueError(f"unknown calibration {self.method!r}; choose one of {', '.join(CALIBRATION_METHODS)}")

    @property
    def fitted(self) -> bool:
        return self.method == "sigmoid" or bool(self.params)

    def fit(self, raw: Sequence[float], labels: Sequence[float] | None = None) -> Calibrator:
        x = np.asarray(raw, dtype=np.float64).ravel()
        keep = np.isfinite(x)
        if labels is not None:
            y = np.asarray(labels, dtype=np.float64).ravel()
            if y.shape != x.shape:
                raise ValueError(f"got {y.size} labels for {x.size} rewards")
            keep &= np.isfinite(y)
            y = y[keep]
        x = x[keep]
        if self.method == "sigmoid":
            self.params = {}
            return self
        if x.size < 2:
            raise ValueError(f"calibration needs at least 2 finite rewards, got {x.size}")
        if self.method == "standardize":
            sd = float(x.std())
            self.params = {"mean": float(x.mean()), "std": sd if sd > 0 else 1.0}
        elif self.method == "quantile":
            qs = np.quantile(x, np.linspace(0.0, 1.0, min(N_QUANTILES, x.size)))
            self.params = {"quantiles": qs.tolist(), "n": int(x.size)}
        else:  # platt
            if labels is None:
                raise ValueError(
                    "platt calibration needs labels (1 = good response, 0 = bad); use standardize or quantile without "
                    "labels"
                )
            if not np.all((y == 0) | (y == 1)):
                raise ValueError("platt calibration labels must be 0 or 1")
            if y.min() == y.max():
                raise ValueError("platt calibration needs both good and bad responses among the labels")
            self.params = _platt(x, y)
        return self

    def apply(self, raw) -> np.ndarray:
        """Calibrated scores in [0, 1]; NaN stays NaN (a failed judge)."""
        if not self.fitted:
            raise ValueError(f"{self.method} calibration is not fitted yet: call fit() or load a saved one")
        x = np.asarray(raw, dtype=np.float64)
        if self.method == "sigmoid":
            out = _sigmoid(x)
        elif self.method == "standardize":
            out = _sigmoid((x - self.params["mean"]) / self.params["std"])
        elif self.method == "quantile":
            qs = np.asarray(self.params["quantiles"])
            grid = np.linspace(0.0, 1.0, qs.size)
            out = np.interp(x, qs, grid)
            # mid-rank for repeated quantile values (ties): average of the matching grid span
            lo = np.searchsorted(qs, x, side="left")
            hi = np.searchsorted(qs, x, side="right")
            tied = hi - lo > 1
            if np.any(tied):
                out = np.where(
                    tied, (grid[np.minimum(lo, qs.size - 1)] + grid[np.minimum(hi - 1, qs.size - 1)]) / 2, out
                )
        else:
            out = _sigmoid(self.params["A"] * x + self.params["B"])
        return np.where(np.isnan(x), np.nan, np.clip(out, 0.0, 1.0))

    def as_dict(self) -> dict:
        return {"method": self.method, "params": self.params}

    @classmethod
    def from_dict(cls, d: dict) -> Calibrator:
        if not isinstance(d, dict) or "method" not in d:
            raise ValueError("a saved calibration needs a 'method' field")
        return cls(d["method"], dict(d.get("params", {})))


def _platt(x: np.ndarray, y: np.ndarray) -> dict:
    """Platt (1999): logistic fit with targets (n+ + 1)/(n+ + 2) and 1/(n- + 2), Newton steps."""
    from scipy.optimize import minimize

    n_pos, n_neg = y.sum(), (1 - y).sum()
    t = np.where(y == 1, (n_pos + 1) / (n_pos + 2), 1 / (n_neg + 2))
    scale = x.std() or 1.0
    xs = (x - x.mean()) / scale

    def nll(p):
        z = p[0] * xs + p[1]
        return float(np.sum(np.logaddexp(0, z) - t * z))

    def grad(p):
        r = _sigmoid(p[0] * xs + p[1]) - t
        return np.array([np.sum(r * xs), np.sum(r)])

    res = minimize(nll, np.zeros(2), jac=grad, method="BFGS")
    a, b = res.x
    return {"A": float(a / scale), "B": float(b - a * x.mean() / scale)}


def fit_calibrators(raw, names: Sequence[str], method: str = "standardize", labels=None) -> dict[str, Calibrator]:
    """One calibrator per reward model (column of raw, shape (N, m))."""
    r = np.asarray(raw, dtype=np.float64)
    if r.ndim != 2 or r.shape[1] != len(names):
        raise ValueError(f"rewards must have shape (N, {len(names)}), got {r.shape}")
    return {n: Calibrator(method).fit(r[:, j], labels) for j, n in enumerate(names)}


def apply_calibrators(raw, names: Sequence[str], calibrators: dict[str, Calibrator]) -> np.ndarray:
    r = np.asarray(raw, dtype=np.float64)
    missing = [n for n in names if n not in calibrators]
    if missing:
        raise ValueError(f"no calibration for reward model(s) {missing}")
    return np.stack([calibrators[n].apply(r[..., j]) for j, n in enumerate(names)], axis=-1)


def save_calibrators(path: str | Path, calibrators: dict[str, Calibrator]) -> Path:
    p = Path(path)
    p.write_text(json.dumps({n: c.as_dict() for n, c in calibrators.items()}, indent=1))
    return p


def load_calibrators(path: str | Path) -> dict[str, Calibrator]:
    p = Path(path)
    try:
        data = json.loads(p.read_text())
    except FileNotFoundError:
        raise ValueError(f"{p}: no such calibration file") from None
    except json.JSONDecodeError as exc:
        raise ValueError(f"{p}: not valid JSON ({exc.msg})") from None
    if not isinstance(data, dict):
        raise ValueError(f"{p}: expected an object mapping reward model -> calibration")
    return {n: Calibrator.from_dict(d) for n, d in data.items()}
