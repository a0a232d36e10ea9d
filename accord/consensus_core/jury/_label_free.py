"""The label-free default: the difficulty-class vote, and whether the data can rank the members.

The vote of :mod:`accord.consensus_core.jury._difficulty` is the label-free rule accord answers
with (it models the correlation that makes plain and Dawid-Skene votes trust agreement too
much). It was chosen by leave-one-category-out on a real panel (benchmarks/jury_loco.py):
across the three folds its worst shortfall against the best member was the smallest of the
label-free rules, while answering with the estimated best member when the estimates looked
untrustworthy (``fallback=True``, the earlier default) lost most in the fold where the
estimates were wrong, since that choice trusts the very ranking in doubt. It is still a model
fitted without labels, and agreement cannot see weak members that share wrong answers
(:mod:`accord.consensus_core.jury._trust`), so the jury never claims a ranking from it; it names
the further reasons its estimates are doubtful when:

- its agreement-pattern fit test rejects (test of close fit), or
- its estimates are unstable: fewer than ``MIN_SHARE`` of the bootstrap refits name the same
  best member, or the label-free estimators disagree on who it is (the difficulty model, the
  one-coin Dawid-Skene EM and the pairwise-agreement fit).

The model's own estimate of the vote's advantage over the best member is reported with an
interval that starts from the model's (its bootstrap, the other label-free estimators' own-vote
advantage, and the realised difference's spread under the posteriors) and then assumes nothing
on the rows where the vote overrides the estimated best member (``overrides``): there a bloc of
weaker members that agree is either right or sharing one wrong answer, and agreement cannot
tell which. The interval never leaves the model-free bounds [-parting, overrides]. Its one
assumption is the ranking; when any reason above holds the jury says the data cannot rank the
members (``ranks_members`` false), gives no interval as a claim, and says about how many random
labels would: enough for a paired 95% interval on the two estimated best members' accuracy
difference to be narrower than their estimated gap (floored at ``MIN_GAP``), reading the share
of rows where their answers differ from the panel. A claim on the sign of the advantage
(``claims``) is made only when the interval excludes zero; otherwise ``labels_needed`` says how
many random labels would settle it. A few references (:mod:`accord.consensus_core.jury._labels`) settle it.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.stats import norm

from accord.consensus_core.jury import MISSING
from accord.consensus_core.jury._difficulty import DifficultyFit, PatternFit, fit_difficulty, pattern_fit
from accord.consensus_core.jury._trust import SHARED_ERRORS
from accord.consensus_core.jury._weighted import check_codes, dawid_skene, weighted_plurality

MIN_SHARE = 0.9
MIN_GAP = 0.02
# Share of the rows where the vote overrides the estimated best member whose outcome the model
# may have wrong (0: trust the model; the interval never leaves the model-free bound). Calibrated on simulated panels
# with shared wrong
# answers (benchmarks/jury_dependence.py, one settings family) and checked on others
# (benchmarks/jury_loco.py); see docs/jury.md.
DEPENDENCE_ALLOWANCE = 1.0


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
    labels_needed: int | None = None  # random labels that would rank the two best members
    parting: float = 0.0  # largest share of rows where the vote and one member part ways
    overrides: float = 0.0  # share of rows where the vote parts ways with the estimated best member

    @property
    def claims(self) -> str | None:
        """ "ahead" or "behind" when the members can be ranked and the conservative interval
        excludes zero (a claim on the sign of the vote's advantage); None otherwise."""
        if not self.ranks_members:
            return None
        lo, hi = self.advantage_ci
        return "ahead" if lo > 0 else "behind" if hi < 0 else None

    @property
    def ranks_members(self) -> bool:
        """The label-free estimates are trusted to rank the members (no reason against them)."""
        return not self.reasons

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
            "ranks_members": self.ranks_members,
            "claims": self.claims,
            "parting": self.parting,
            "overrides": self.overrides,
            "labels_needed": self.labels_needed,
            "model": self.fit.as_dict(),
            "fit_test": None if self.fit_test is None else self.fit_test.as_dict(),
        }


def best_member_answers(codes: np.ndarray, ranking: np.ndarray) -> np.ndarray:
    """Per problem the class of the highest-ranked member that answered (MISSING if nobody did)."""
    out = np.full(codes.shape[0], MISSING, dtype=np.int64)
    for i in ranking[::-1]:
        out = np.where(codes[:, i] != MISSING, codes[:, i], out)
    return out


def label_free_jury(
    codes,
    n_boot: int = 40,
    seed: int = 0,
    n_classes: int = 2,
    level: float = 0.95,
    fallback: bool = False,
    allowance: float = DEPENDENCE_ALLOWANCE,
) -> LabelFreeJury:
    """Fit, test, bootstrap; the vote, and the reasons it cannot rank the members if any
    (``fallback``: answer with the estimated best member when there are reasons; ``allowance``:
    the share of parting rows the interval leaves to dependence the model may miss)."""
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
    lo, hi = np.percentile(boots, [(1 - level) / 2 * 100, (1 + level) / 2 * 100]) if boots else (advantage, advantage)
    share = same / n_boot if n_boot else float("nan")
    fits = [dawid_skene(c, seed=seed)]
    others = {"dawid-skene": int(np.argmax(fits[0].accuracy))}
    if c.shape[1] >= 3:  # the pairwise-agreement fit needs three members
        fits.append(weighted_plurality(c, seed=seed))
        others["agreement"] = int(np.argmax(fits[-1].accuracy))
    for f in fits:  # each estimator's own view of its vote's advantage: model uncertainty
        answered = f.chosen != MISSING
        own = float(np.mean(np.where(answered, f.confidence, 0.0))) - float(np.max(f.accuracy))
        lo, hi = min(lo, own), max(hi, own)
    noise = float(norm.ppf((1 + level) / 2)) * realised_spread(c, fit, best)  # the rows' own luck
    parting = parting_share(c, fit.chosen)
    overrides = parting_share(c[:, [best]], fit.chosen)
    slack = float(allowance) * overrides  # what dependence the model cannot see could move
    lo = max(min(advantage - float(np.sqrt((advantage - lo) ** 2 + noise**2 + slack**2)), -slack), -parting)
    hi = min(advantage + float(np.sqrt((hi - advantage) ** 2 + noise**2 + slack**2)), overrides)
    lo, hi = min(lo, hi), max(lo, hi)
    reasons = [SHARED_ERRORS]  # never a claim from agreement alone (accord.consensus_core.jury._trust)
    if test is not None and test.rejects:
        reasons.append(
            f"the agreement-pattern fit test rejects the model (RMSEA {test.rmsea:.3f}, close-fit p {test.p_close:.3g})"
        )
    if share < MIN_SHARE:
        reasons.append(
            f"the label-free estimates are unstable: only {share:.0%} of {n_boot} bootstrap refits name the same best "
            "member"
        )
    if any(v != best for v in others.values()):
        reasons.append("the label-free estimators disagree on the best member")
    need = labels_to_rank(c, fit.accuracy) if reasons else None
    if not reasons and not lo > 0 and not hi < 0:
        need = labels_to_sign(overrides, advantage, level)
    if reasons and fallback:
        chosen = best_member_answers(c, np.argsort(-fit.accuracy))
        conf = np.where(chosen != MISSING, fit.accuracy[best], 0.0)
        return LabelFreeJury(
            "best-member",
            chosen,
            conf,
            np.zeros(c.shape[0], bool),
            fit,
            test,
            best,
            share,
            others,
            advantage,
            (float(lo), float(hi)),
            tuple(reasons),
            need,
            parting,
            overrides,
        )
    return LabelFreeJury(
        "vote",
        fit.chosen,
        fit.confidence,
        fit.tied,
        fit,
        test,
        best,
        share,
        others,
        advantage,
        (float(lo), float(hi)),
        tuple(reasons),
        need,
        parting,
        overrides,
    )


def labels_to_rank(codes: np.ndarray, accuracy: np.ndarray, level: float = 0.95) -> int | None:
    """Random labels for a paired interval on the two best members' accuracy difference to be
    narrower than their estimated gap: z^2 * P(their answers differ) / gap^2 (a planning figure)."""
    if accuracy.size < 2:
        return None
    i, j = np.argsort(-accuracy)[:2]
    differ = float(np.mean(codes[:, i] != codes[:, j]))
    gap = max(float(accuracy[i] - accuracy[j]), MIN_GAP)
    z = float(norm.ppf((1 + level) / 2))
    return int(np.ceil(z * z * max(differ, gap) / gap**2))


def parting_share(codes: np.ndarray, chosen: np.ndarray) -> float:
    """The largest share, over members, of rows where the vote's class is not that member's answer.
    Only there can the vote and the member differ in being right, so |realised difference| with
    any member (the best one included, whoever it is) is at most this: a bound with no model."""
    if codes.size == 0:
        return 0.0
    apart = (codes != chosen[:, None]) | (codes == MISSING) | (chosen[:, None] == MISSING)
    apart &= ~((codes == MISSING) & (chosen[:, None] == MISSING))
    return float(apart.mean(axis=0).max())


def labels_to_sign(overrides: float, advantage: float, level: float = 0.95) -> int:
    """Random labels for a paired interval on the vote minus the best member to exclude zero at
    the estimated advantage: z^2 * P(they part ways) / advantage^2 (a planning figure)."""
    gap = max(abs(float(advantage)), MIN_GAP)
    z = float(norm.ppf((1 + level) / 2))
    return int(np.ceil(z * z * max(overrides, gap) / gap**2))


def realised_spread(codes: np.ndarray, fit: DifficultyFit, best: int) -> float:
    """Standard deviation, under the model's posteriors, of the realised difference on these rows
    between the vote's hits and member ``best``'s (each row: +1, -1 or 0)."""
    n, M = codes.shape
    rows = np.arange(n)
    present = codes != MISSING
    same = (codes[:, :, None] == codes[:, None, :]) & present[:, :, None]
    slot = np.argmax(same, axis=2)  # first member of each member's class
    chosen_member = np.argmax((codes == fit.chosen[:, None]) & present, axis=1)
    q = np.where(fit.chosen != MISSING, fit.posterior[rows, slot[rows, chosen_member]], 0.0)
    r = np.where(present[:, best], fit.posterior[rows, slot[:, best]], 0.0)
    apart = ~((fit.chosen != MISSING) & present[:, best] & (codes[:, best] == fit.chosen))
    var = np.where(apart, q + r - (q - r) ** 2, 0.0)
    return float(np.sqrt(np.clip(var, 0, None).sum())) / max(n, 1)
