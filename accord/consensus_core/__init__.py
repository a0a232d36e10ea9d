"""The consensus core: pure math, no I/O, no model code.

- :func:`consensus` — Friedkin–Johnsen equilibrium s* = M r (closed form for the paper's
  all-to-all influence, a linear solve for a general row-stochastic W), any batch shape (..., m).
- :func:`consensus_stats` — s*, s̄*, the preserved stubbornness-weighted mean, Δ*, raw statistics.
- :func:`get_policy` — decision rules (VERDICT, its ablations and the paper's baselines).
- :func:`influence_report` — M and each judge's share of the consensus mean.
- :mod:`accord.consensus_core.jax_backend` — the same math jit-compiled with JAX.
"""

from accord.consensus_core.equilibrium import consensus, influence_matrix, iterate_updates
from accord.consensus_core.influence import InfluenceReport, influence_report
from accord.consensus_core.policies import (
    DEFAULT_EPS,
    DEFAULT_LAMBDAS,
    DEFAULT_TAU,
    Decision,
    Policy,
    default_lambdas,
    get_policy,
    list_policies,
)
from accord.consensus_core.statistics import ConsensusStats, consensus_stats
from accord.consensus_core.validation import all_to_all

__all__ = [
    "ConsensusStats",
    "DEFAULT_EPS",
    "DEFAULT_LAMBDAS",
    "DEFAULT_TAU",
    "Decision",
    "InfluenceReport",
    "Policy",
    "all_to_all",
    "consensus",
    "consensus_stats",
    "default_lambdas",
    "get_policy",
    "influence_matrix",
    "influence_report",
    "iterate_updates",
    "list_policies",
]
