"""accord: verify reasoning with a panel of judges.

The consensus core (:mod:`accord.consensus_core`) is pure numpy/JAX math; judges and generators
live in :mod:`accord.adapters`; the step loop, tasks, traces and the CLI in :mod:`accord.verify`;
symbolic proofs of the core in :mod:`accord.proofs`.
"""

from accord.consensus_core import (
    ConsensusSpec,
    ConsensusStats,
    Decision,
    consensus,
    consensus_stats,
    get_policy,
    influence_report,
    list_policies,
)

__version__ = "0.1.0"

__all__ = [
    "ConsensusSpec",
    "ConsensusStats",
    "Decision",
    "consensus",
    "consensus_stats",
    "get_policy",
    "influence_report",
    "list_policies",
    "__version__",
]
