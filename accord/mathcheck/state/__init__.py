"""The proof state: each step's role, scopes, labels and references (_roles), the premises in force
and the names' values (_context), what holds identically (_identities), where the names live
(_domain), and the state carried from step to step (_carried). Built on :mod:`accord.mathcheck.reading`.
"""

from accord.exports import lazy_exports

_EXPORTS = {
    "CASE": "_roles",
    "CLAIMING": "_roles",
    "CLAIMS_NOTHING": "_roles",
    "Carried": "_carried",
    "Domain": "_domain",
    "Facts": "_context",
    "N_FLOAT_POINTS": "_identities",
    "N_POINTS": "_identities",
    "Outline": "_roles",
    "Premise": "_context",
    "ROLES": "_roles",
    "RandomPoint": "_identities",
    "admissible_point": "_domain",
    "agree": "_identities",
    "closed_value": "_context",
    "conditional": "_domain",
    "congruence_holds": "_identities",
    "domain_sign": "_domain",
    "end_of_step": "_context",
    "explained": "_identities",
    "free_names": "_identities",
    "holds_at_points": "_identities",
    "holds_between": "_domain",
    "is_identity": "_identities",
    "linear_solver": "_identities",
    "opens_case": "_roles",
    "parse_side": "_context",
    "plain_term": "_domain",
    "read_outline": "_roles",
    "record": "_context",
    "seed_of": "_identities",
    "side_trees": "_context",
    "small_counterexample": "_identities",
    "subject_key": "_context",
}

__all__ = sorted(_EXPORTS)

__getattr__ = lazy_exports(__name__, _EXPORTS)
