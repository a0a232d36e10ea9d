"""Panel planning: which members (and how many) to pay for, by the jury law's predicted accuracy.

Each candidate subset is summarised the way the law reads a panel: its mean member accuracy a,
its mean pairwise error correlation rho (from a scalar or a full matrix) and the shared attractor
mass s; the law then predicts its modal-vote accuracy. A single member's accuracy is its own.
Every subset within the budget is scored (exhaustive, so at most 14 candidates); the best one,
and the best of each size, are returned. The exchangeable-member law is an approximation for
unequal members: use the weighted juries of :mod:`accord.consensus_core.jury._weighted` when
members differ a lot.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import combinations

import numpy as np

from accord.consensus_core.jury._law import predict

MAX_CANDIDATES = 14


@dataclass(frozen=True)
class PanelChoice:
    members: tuple[str, ...]
    cost: float
    mean_accuracy: float
    mean_correlation: float
    predicted_accuracy: float
    floor: float

    def as_dict(self) -> dict:
        return {
            "members": list(self.members),
            "size": len(self.members),
            "cost": self.cost,
            "mean_accuracy": self.mean_accuracy,
            "mean_correlation": self.mean_correlation,
            "predicted_accuracy": self.predicted_accuracy,
            "floor": self.floor,
        }


@dataclass(frozen=True)
class PanelPlan:
    best: PanelChoice
    best_by_size: list[PanelChoice]
    budget: float
    evaluated: int

    def as_dict(self) -> dict:
        return {
            "budget": self.budget,
            "evaluated": self.evaluated,
            "best": self.best.as_dict(),
            "best_by_size": [c.as_dict() for c in self.best_by_size],
        }


def _corr_matrix(correlation, n: int) -> np.ndarray:
    r = np.asarray(correlation, dtype=np.float64)
    if r.ndim == 0:
        R = np.full((n, n), float(r))
    elif r.shape == (n, n):
        R = r
        if not np.allclose(R, R.T):
            raise ValueError("the error correlation matrix must be symmetric")
    else:
        raise ValueError(f"error correlation must be a number or a {n} x {n} matrix, got shape {r.shape}")
    off = R[~np.eye(n, dtype=bool)]
    if off.size and (np.any(off < 0) or np.any(off > 1) or not np.all(np.isfinite(off))):
        raise ValueError(
            "pairwise error correlations must lie in [0, 1] (the law's one-factor model has no negative correlation)"
        )
    return R


def plan_panel(
    accuracies: Sequence[float],
    costs: Sequence[float],
    budget: float,
    correlation=0.3,
    s=0.0,
    names: Sequence[str] | None = None,
) -> PanelPlan:
    """The affordable subset of candidate members with the highest predicted jury accuracy."""
    acc = np.asarray(accuracies, dtype=np.float64)
    cost = np.asarray(costs, dtype=np.float64)
    n = acc.size
    if n == 0:
        raise ValueError("no candidate members given")
    if n > MAX_CANDIDATES:
        raise ValueError(f"planning scores every subset: give at most {MAX_CANDIDATES} candidates, got {n}")
    if cost.shape != acc.shape:
        raise ValueError(f"got {cost.size} costs for {n} members")
    if np.any((acc <= 0) | (acc >= 1)) or not np.all(np.isfinite(acc)):
        raise ValueError(f"member accuracies must lie in (0, 1), got {acc.tolist()}")
    if np.any(cost < 0) or not np.all(np.isfinite(cost)):
        raise ValueError(f"member costs must be finite and >= 0, got {cost.tolist()}")
    labels = tuple(names) if names is not None else tuple(f"member{i + 1}" for i in range(n))
    if len(labels) != n:
        raise ValueError(f"got {len(labels)} names for {n} members")
    R = _corr_matrix(correlation, n)
    cache: dict[tuple, tuple[float, float]] = {}
    best_by_size: dict[int, PanelChoice] = {}
    evaluated = 0
    for size in range(1, n + 1):
        for sub in combinations(range(n), size):
            c = float(cost[list(sub)].sum())
            if c > budget + 1e-12:
                continue
            evaluated += 1
            a = float(acc[list(sub)].mean())
            if size == 1:
                rho, pred, fl = 0.0, a, float(np.sum(np.atleast_1d(s))) * (1 - a)
            else:
                pairs = [R[i, j] for i, j in combinations(sub, 2)]
                rho = float(np.mean(pairs))
                key = (round(a, 12), round(rho, 12), size)
                if key not in cache:
                    p = predict(a, rho, s, size)
                    cache[key] = (p.accuracy, p.floor)
                pred, fl = cache[key]
            choice = PanelChoice(tuple(labels[i] for i in sub), c, a, rho, pred, fl)
            cur = best_by_size.get(size)
            if cur is None or (pred, -c) > (cur.predicted_accuracy, -cur.cost):
                best_by_size[size] = choice
    if not best_by_size:
        raise ValueError(f"no member fits the budget {budget} (cheapest costs {cost.min()})")
    ranked = sorted(best_by_size.values(), key=lambda ch: (-ch.predicted_accuracy, ch.cost, len(ch.members)))
    return PanelPlan(ranked[0], [best_by_size[k] for k in sorted(best_by_size)], float(budget), evaluated)
