"""The consensus core: pure math, no I/O, no model code.

- :func:`consensus` — Friedkin–Johnsen equilibrium s* = M r (closed form for the paper's
  all-to-all influence, a linear solve for a general row-stochastic W), any batch shape (..., m).
- :func:`consensus_stats` — s*, s̄*, the preserved stubbornness-weighted mean, Δ*, raw statistics.
- :class:`ConsensusSpec` — the panel's λ and W, checked once; what a policy decides with.
- :func:`parse_lambdas` — λ as users type it ("1.5,1,0.8", a number, a list): one reader, one rule.
- :func:`get_policy` — decision rules (VERDICT, its ablations and the paper's baselines), registered
  with :func:`register_policy` in :data:`POLICIES` (an installed plugin's too); VERDICT's rule itself
  is :func:`accept_and_rank`, which the numpy, compiled and JAX paths all call.
- :func:`influence_report` — M and each judge's share of the consensus mean.
- :func:`estimate_stubbornness`, :func:`calibrate_thresholds` — λ and VERDICT's τ, ε from scored rows.
- :func:`bootstrap_ci` — the percentile bootstrap every report's interval uses.
- :mod:`accord.consensus_core.jury` — the LLM jury: votes, the label-free and few-label estimators,
  risk control (a package of its own).
- :mod:`accord.consensus_core.jax_backend` — the same math jit-compiled with JAX.
"""

from accord.consensus_core._equilibrium import consensus, influence_matrix, iterate_updates
from accord.consensus_core._influence import InfluenceReport, all_to_all_shares, influence_report
from accord.consensus_core._policies import (
    DEFAULT_EPS,
    DEFAULT_TAU,
    POLICIES,
    Decision,
    Policy,
    Verdict,
    get_policy,
    list_policies,
    register_policy,
)
from accord.consensus_core._reliability import calibrate_thresholds, estimate_stubbornness
from accord.consensus_core._rule import accept_and_rank
from accord.consensus_core._spec import PAPER_LAMBDA, ConsensusSpec
from accord.consensus_core._statistics import ConsensusStats, bootstrap_ci, bootstrap_cis, consensus_stats
from accord.consensus_core._validation import LAMBDA_RULE, all_to_all, parse_lambdas

__all__ = [
    "PAPER_LAMBDA",
    "POLICIES",
    "ConsensusSpec",
    "ConsensusStats",
    "DEFAULT_EPS",
    "DEFAULT_TAU",
    "LAMBDA_RULE",
    "Decision",
    "InfluenceReport",
    "Policy",
    "Verdict",
    "accept_and_rank",
    "all_to_all",
    "all_to_all_shares",
    "bootstrap_ci",
    "bootstrap_cis",
    "calibrate_thresholds",
    "consensus",
    "consensus_stats",
    "estimate_stubbornness",
    "get_policy",
    "influence_matrix",
    "influence_report",
    "iterate_updates",
    "list_policies",
    "parse_lambdas",
    "register_policy",
]
