"""Three-way step labels from a panel's raw scores, under any rule.

A rule turns a step's raw scores (one per judge, NaN where a judge could not score) into a score
s and, for consensus rules, a dispersion d:

=================  ==================================================================
a judge's name     its own score (d = 0)
mean / max / min   the raw mean / maximum / minimum (no dispersion test)
raw_average        the raw mean, d = the raw mean absolute deviation
verdict            the Friedkin–Johnsen consensus mean s̄*, d = Δ*
mean_preserving    s̄* shifted to the raw mean, d = Δ*
=================  ==================================================================

and the step is **valid** when s > τ and d < ε, **invalid** when s < 1 − τ and d < ε (the panel
agrees the step is wrong), and **uncertain** otherwise: no judge could check it, the panel
disagreed (d ≥ ε), or s lies between 1 − τ and τ. A step no judge scored whose role claims
nothing (a remark or plan, a definition, an assumption, a restatement of the problem:
:mod:`accord.mathcheck`'s reading of the proof) is **no claim**: decided only because there is
nothing in it to check. A solution's prediction is the index of its first invalid step, -1 if
none (ProcessBench's convention).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from accord.consensus_core import ConsensusSpec, get_policy

VALID, INVALID, UNCERTAIN, NO_CLAIM = "valid", "invalid", "uncertain", "no claim"
LABELS = (VALID, INVALID, UNCERTAIN, NO_CLAIM)
CONSENSUS_RULES = ("verdict", "mean_preserving")
RAW_RULES = ("mean", "max", "min", "raw_average")


@dataclass(frozen=True)
class RuleStats:
    """Per step: the rule's score, its dispersion (None: the rule has no dispersion test), judges scored."""

    score: np.ndarray
    dispersion: np.ndarray | None
    n_scored: np.ndarray


def rule_stats(
    raw: np.ndarray, rule: str, judges: Sequence[str], lambdas: Sequence[float], influence=None
) -> RuleStats:
    """The score (and dispersion) of each step (rows of ``raw``, one column per judge) under ``rule``."""
    raw = np.asarray(raw, dtype=float).reshape(-1, len(judges))
    if rule in judges:
        col = raw[:, list(judges).index(rule)]
        return RuleStats(col, np.zeros_like(col), (~np.isnan(col)).astype(int))
    if rule in CONSENSUS_RULES:
        st = get_policy(rule).stats(raw, ConsensusSpec(tuple(lambdas), influence))
        return RuleStats(st.mean, st.dispersion, st.n_scored)
    if rule in RAW_RULES:
        st = ConsensusSpec(tuple(lambdas), influence).stats(raw)
        score = {"mean": st.raw_mean, "max": st.raw_max, "min": st.raw_min, "raw_average": st.raw_mean}[rule]
        return RuleStats(score, st.raw_mad if rule == "raw_average" else None, st.n_scored)
    raise ValueError(f"no three-way labels for rule {rule!r}")


def three_way(stats: RuleStats, tau: float, eps: float) -> list[str]:
    """valid / invalid / uncertain for each step (see the module docstring)."""
    s = stats.score
    agreed = np.ones(s.shape, dtype=bool) if stats.dispersion is None else stats.dispersion < eps
    scored = (stats.n_scored > 0) & ~np.isnan(s)
    valid = scored & agreed & (s > tau)
    invalid = scored & agreed & (s < 1.0 - tau)
    return [VALID if v else INVALID if b else UNCERTAIN for v, b in zip(valid, invalid)]


def with_roles(labels: Sequence[str], stats: RuleStats, roles: Sequence[str], claims_nothing) -> list[str]:
    """:data:`NO_CLAIM` for an uncertain step that no judge scored and whose role claims nothing."""
    return [
        NO_CLAIM if lab == UNCERTAIN and stats.n_scored[k] == 0 and roles[k] in claims_nothing else lab
        for k, lab in enumerate(labels)
    ]


def prediction(labels: Sequence[str]) -> int:
    """Index of the first invalid step, -1 if none."""
    return next((i for i, x in enumerate(labels) if x == INVALID), -1)


def explain(
    label: str,
    scores: dict[str, float | None],
    reasons: dict[str, str | None],
    mean: float | None,
    dispersion: float | None,
    tau: float,
    eps: float,
) -> tuple[str, list[str]]:
    """The reason for a step's label and, for an invalid step, the evidence (the low judges' reasons)."""
    scored = {j: v for j, v in scores.items() if v is not None}
    if label == INVALID:
        evidence = [f"{j}: {reasons.get(j)}" for j, v in scored.items() if v < 1.0 - tau]
        return "; ".join(evidence), evidence
    if label == VALID:
        return "; ".join(f"{j}: {reasons.get(j)}" for j, v in scored.items() if v > tau), []
    if label == NO_CLAIM:
        return "claims nothing to check", []
    if not scored:
        why = "; ".join(dict.fromkeys(f"{j}: {r}" for j, r in reasons.items() if r))
        return f"no judge could check it ({why})" if why else "no judge could check it", []
    if dispersion is not None and dispersion >= eps:
        split = ", ".join(f"{j} {v:.2f}" for j, v in scored.items())
        return f"the panel disagreed (dispersion {dispersion:.3f} >= {eps:g}: {split})", []
    return f"the score {mean:.3f} is between {1 - tau:.2f} and {tau:.2f}", []
