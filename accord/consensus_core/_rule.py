"""VERDICT's decision rule, written once.

A candidate is accepted when its mean clears ``tau`` while its spread stays under ``eps``; the best
accepted candidate by its key is chosen, else the best by mean - spread. VERDICT takes s̄* and Δ*;
its ablations and the raw-score dual take other means and spreads, never another rule.

Every path calls :func:`accept_and_rank`: the numpy policies on arrays, the compiled kernels on
numba scalars (its source is put into their generated code, so a change here recompiles them) and
the JAX path on traced arrays. It uses only comparisons, ``&``, ``-`` and a branch on a plain bool,
which all three read the same way.
"""

from __future__ import annotations


def accept_and_rank(mean, spread, tau, eps, rank_by_margin):
    """(accepted, key, fallback key) of candidates with this mean and spread: accepted iff
    mean > tau and spread < eps; ranked by mean (by mean - spread with ``rank_by_margin``) among
    the accepted, by mean - spread when none is accepted."""
    accepted = (mean > tau) & (spread < eps)
    fallback = mean - spread
    key = fallback if rank_by_margin else mean
    return accepted, key, fallback
