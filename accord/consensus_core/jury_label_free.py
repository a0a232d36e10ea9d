"""The label-free default: the difficulty-class vote, or the estimated best member when the
label-free estimates are not to be trusted.

The vote of :mod:`accord.consensus_core.jury_difficulty` is the best label-free rule accord has
(it models the correlation that makes plain and Dawid-Skene votes trust agreement too much). It
is still a model fitted without labels, so the jury says so and answers with the estimated best
member instead (where that member gave no answer, the next best that did) when:

- its agreement-pattern fit test rejects (test of close fit), or
- its estimates are unstable: fewer than ``MIN_SHARE`` of the bootstrap refits name the same
  best member, or the label-free estimators disagree on who it is (the difficulty model, the
  one-coin Dawid-Skene EM and the pairwise-agreement fit).

The model's own estimate of the vote's advantage over the best member is reported with its
bootstrap interval. Without labels none of this can tell a pair of members that copy each other
from a pair of experts: a few references (:mod:`accord.consensus_core.jury_labels`) can.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from accord.consensus_core.jury import MISSING
from accord.consensus_core.jury_difficulty import DifficultyFit, PatternFit, fit_difficulty, pattern_fit
from accord.consensus_core.jury_weighted import check_codes, dawid_skene, weighted_plurality

MIN_SHARE = 0.9


@dataclass(frozen=True)
class LabelFreeJury:
    rule: str  # "vote" or "best-member"
    chosen: np.ndarray
    confidence: np.ndarray
    tied: np.ndarray
    fit: DifficultyFit
    fit_test: PatternFit | None
    best_member: int
    best_member_share: float  # bootstrap refits naming the same best member
    other_estimates: dict  # best member by the one-coin EM and by the agreement fit
    advantage: float  # the model's estimate: vote accuracy - best member accuracy
    advantage_ci: tuple[float, float]
    reasons: tuple[str, ...]  # why the vote was not used (empty when it was)

    def as_dict(self, members: list[str] | None = None) -> dict:
        name = members[self.best_member] if members else self.best_member
        return {
            "rule": self.rule,
            "reasons": list(self.reasons),
            "estimated_best_member": name,
            "best_member_share": self.best_member_share,
            "other_estimates": {k: (members[v] if members else v) for k, v in self.other_estimates.items()},
            "advantage": self.advantage,
            "advantage_ci": list(self.advantage_ci),
            "model": self.fit.as_dict(),
            "fit_test": None if self.fit_test is None else self.fit_test.as_dict(),
        }


def best_member_answers(codes: np.ndarray, ranking: np.ndarray) -> np.ndarray:
    """Per problem the class of the highest-ranked member that answered (MISSING if nobody did)."""
    out = np.full(codes.shape[0], MISSING, dtype=np.int64)
    for i in ranking[::-1]:
        out = np.where(codes[:, i] != MISSING, codes[:, i], out)
    return out


def label_free_jury(codes, n_boot: int = 40, seed: int = 0, n_classes: int = 2, level: float = 0.95) -> LabelFreeJury:
    """Fit, test, bootstrap; the vote unless the test rejects or the estimates are unstable."""
    c = check_codes(codes)
    fit = fit_difficulty(c, n_classes, seed=seed)
    test = pattern_fit(c, fit)
    best = int(np.argmax(fit.accuracy))
    advantage = fit.expected_accuracy - float(fit.accuracy[best])
    rng = np.random.default_rng(seed + 1)
    boots, same = [], 0
    for _ in range(n_boot):
        idx = rng.integers(0, c.shape[0], c.shape[0])
        refit = fit_difficulty(c[idx], n_classes, seed=seed, start=fit, max_iter=100, tol=1e-4)
        boots.append(refit.expected_accuracy - float(refit.accuracy.max()))
        same += int(np.argmax(refit.accuracy)) == best
    lo, hi = (np.percentile(boots, [(1 - level) / 2 * 100, (1 + level) / 2 * 100]) if boots else (advantage, advantage))
    share = same / n_boot if n_boot else float("nan")
    others = {"dawid-skene": int(np.argmax(dawid_skene(c, seed=seed).accuracy))}
    if c.shape[1] >= 3:  # the pairwise-agreement fit needs three members
        others["agreement"] = int(np.argmax(weighted_plurality(c, seed=seed).accuracy))
    reasons = []
    if test is not None and test.rejects:
        reasons.append(f"the agreement-pattern fit test rejects the model (RMSEA {test.rmsea:.3f}, close-fit p {test.p_close:.3g})")
    if share < MIN_SHARE:
        reasons.append(f"the label-free estimates are unstable: only {share:.0%} of {n_boot} bootstrap refits name the same best member")
    if any(v != best for v in others.values()):
        reasons.append("the label-free estimators disagree on the best member")
    if reasons:
        chosen = best_member_answers(c, np.argsort(-fit.accuracy))
        conf = np.where(chosen != MISSING, fit.accuracy[best], 0.0)
        return LabelFreeJury("best-member", chosen, conf, np.zeros(c.shape[0], bool), fit, test, best, share, others, advantage, (float(lo), float(hi)), tuple(reasons))
    return LabelFreeJury("vote", fit.chosen, fit.confidence, fit.tied, fit, test, best, share, others, advantage, (float(lo), float(hi)), ())
