"""The panel's consensus: one λ per judge and the influence W, checked once, and the statistics.

A :class:`ConsensusSpec` is what a policy decides with besides the raw scores: policies hold only
their own thresholds, the panel holds λ and W. ``ConsensusSpec.equal(m)`` (λ = 1 each, all-to-all)
is what a policy uses for a bare score matrix when no spec is given.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from accord.consensus_core._equilibrium import closed_form_all_to_all, solve_general
from accord.consensus_core._statistics import ConsensusStats, summarize
from accord.consensus_core._validation import as_influence, as_scores, lambda_error, parse_lambdas

PAPER_LAMBDA = (1.5, 1.0, 0.8)
"""The paper's stubbornness of its three judge roles (visual/grounding, logical, contextual/relevance):
every default λ of a three-role judge refers to this one constant."""


@dataclass(frozen=True, eq=False)
class ConsensusSpec:
    """λ (one per judge, finite, > 0) and an optional row-stochastic influence W (m x m; None: the
    paper's all-to-all). Bad values are a ValueError at construction, never later at a decision."""

    lambdas: tuple[float, ...]
    influence: np.ndarray | None = None

    def __post_init__(self):
        lam = parse_lambdas(self.lambdas)
        object.__setattr__(self, "lambdas", lam)
        if self.influence is not None:
            object.__setattr__(self, "influence", as_influence(self.influence, len(lam)))
        if len(lam) < 2:
            raise ValueError(f"a panel needs at least 2 judges, got λ for {len(lam)}")

    @classmethod
    def equal(cls, m: int) -> ConsensusSpec:
        """λ = 1 for each of m judges, all-to-all influence."""
        return cls((1.0,) * m)

    @property
    def m(self) -> int:
        return len(self.lambdas)

    @property
    def lam(self) -> np.ndarray:
        return np.asarray(self.lambdas, dtype=np.float64)

    def check(self, raw: np.ndarray) -> np.ndarray:
        """Raw scores (..., m) checked against this panel: λ for another number of judges is the one λ error."""
        r = as_scores(raw)
        if r.shape[-1] != self.m:
            raise lambda_error(list(self.lambdas), r.shape[-1])
        return r

    def stats(self, raw) -> ConsensusStats:
        """FJ consensus s*, s̄*, Δ* and the raw statistics for raw scores (..., m)."""
        r = self.check(raw)  # λ and W were checked when the spec was made: not again per decision
        lam = self.lam
        s = closed_form_all_to_all(r, lam) if self.influence is None else solve_general(r, lam, self.influence)
        return summarize(r, s, lam)

    def as_dict(self) -> dict:
        return {"lambdas": list(self.lambdas), "influence": None if self.influence is None else self.influence.tolist()}
