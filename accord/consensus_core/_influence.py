"""The judge influence report: how much each judge's raw score moves the consensus."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from accord.consensus_core._equilibrium import influence_matrix
from accord.consensus_core._validation import as_lambdas


@dataclass(frozen=True)
class InfluenceReport:
    """M = (I + Lambda - W)^{-1} Lambda and each judge's share of the consensus mean.

    ``share[j]`` = (1/m) sum_i M_ij: the weight of judge j's raw score in s̄*; shares sum to 1.
    The equal-weights share would be 1/m for every judge.
    """

    judges: tuple[str, ...]
    lambdas: np.ndarray
    matrix: np.ndarray
    share: np.ndarray

    def as_dict(self) -> dict:
        return {
            "judges": list(self.judges),
            "lambdas": self.lambdas.tolist(),
            "matrix": self.matrix.tolist(),
            "share_of_mean": dict(zip(self.judges, self.share.tolist())),
        }


def influence_report(lambdas, influence=None, judges=None) -> InfluenceReport:
    lam = np.asarray(lambdas, dtype=np.float64)
    m = lam.shape[0]
    M = influence_matrix(lam, influence, m)
    names = tuple(judges) if judges is not None else tuple(f"judge{i + 1}" for i in range(m))
    if len(names) != m:
        raise ValueError(f"got {len(names)} judge names for {m} judges")
    return InfluenceReport(names, lam, M, M.mean(axis=0))


def all_to_all_shares(lambdas) -> np.ndarray:
    """Each judge's share of the consensus mean for the paper's all-to-all W, in O(m), no matrix.

    From the closed form (:func:`~accord.consensus_core._equilibrium.closed_form_all_to_all`) with
    w_i = 1 / (m + (m - 1) lambda_i): M = diag((m-1) lambda w) + w ((m-1) lambda w)^T / (1 - sum w),
    so the column means are share_j = (m - 1) lambda_j w_j / (m (1 - sum w)). Equals
    ``influence_report(lambdas).share`` for m judges where the m x m matrix would be too large.
    """
    lam = as_lambdas(np.asarray(lambdas, dtype=np.float64), len(lambdas))
    m = lam.shape[0]
    w = 1.0 / (m + (m - 1) * lam)
    return (m - 1) * lam * w / (m * (1.0 - w.sum()))
