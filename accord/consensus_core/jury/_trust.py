"""What a jury without labels may claim, and what it decides when it cannot rank its members.

Agreement is the only evidence without labels, and agreement cannot tell an accurate member from
weak members that share wrong answers (:mod:`accord.consensus_core.jury._shared`): on such
panels every label-free estimator (difficulty classes, one-coin Dawid-Skene, pairwise agreement)
ranks the bloc first, with stable refits and a fit test that passes. So a ranking of the
members, or a sign of the vote's advantage over the best member, is never claimed from
agreement alone. The decision falls back to the rule that needs no ranking, the plain majority
(ties drawn at random, so no member's estimated rank decides a split panel), unless the user
says what they know: member accuracies from a leaderboard or earlier labels (``prior_vote``:
the accuracy-weighted vote) or one member they trust (``trusted_answers``).
"""

from __future__ import annotations

import numpy as np

from accord.consensus_core.jury import MISSING, vote_codes
from accord.consensus_core.jury._weighted import WeightedVote, weighted_vote

SHARED_ERRORS = (
    "agreement alone cannot rank the members: weak members that share wrong answers agree like "
    "accurate ones, so a ranking or advantage read from agreement can be confidently wrong"
)


def prior_vote(codes, accuracy, seed: int = 0) -> WeightedVote:
    """The accuracy-weighted vote (log-odds weights) with the member accuracies the user gave."""
    acc = np.asarray(accuracy, dtype=float)
    if acc.ndim != 1 or not np.all((acc > 0) & (acc < 1)):
        raise ValueError(f"prior accuracies must lie strictly between 0 and 1, got {acc.tolist()}")
    return weighted_vote(codes, acc, 0.0, seed, method="prior-weighted")


def trusted_answers(codes, member: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """The trusted member's class on every row it answered, the majority elsewhere; and whether
    each row fell back to the majority."""
    c = np.asarray(codes)
    own = c[:, member]
    fallback = own == MISSING
    return np.where(fallback, vote_codes(c, seed).chosen, own), fallback
