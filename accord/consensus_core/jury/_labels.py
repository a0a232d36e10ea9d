"""A jury that learns from a few labelled problems: rules over agreement patterns, and which to label.

A problem's *agreement pattern* is the partition of the members that answered into classes
(who agreed with whom). The decision for a pattern is which of its classes to trust: the
majority, or the strongest member against it, or the pair of members that err least together.

The model, per pattern p with classes b (and "none is right"):

    theta_p ~ Dirichlet(kappa * pi_p + 1),   label counts n_p ~ Multinomial(theta_p)

where pi_p is the posterior of the difficulty-class jury (:mod:`accord.consensus_core.jury._difficulty`)
fitted semi-supervised: its member accuracies start from the label-free estimate and the
labelled problems pin their hypotheses. The + 1 (one uniform pseudo-count per class) keeps a
model that is sure of a wrong class from making that class's labels look worthless. The strength kappa is not fixed:
it is averaged over a
log-spaced grid with weights from the marginal likelihood of the labels (Dirichlet-multinomial
evidence, uniform prior on the grid). Labels that agree with the model favour a large kappa
(trust the model), labels that contradict it a small one (trust the counts); with no labels
every strength is equally weighted. Each unlabelled problem gets the class with the largest
posterior mean of theta.

Active choice (:func:`choose_labels`): the next label goes to a problem of the pattern whose
decision is most likely to change, weighted by how many unlabelled problems share it: the
expected regret of the current decision, E[max_b theta_b - theta_chosen] under the posterior
(kappa drawn from its weights, then theta), times the unlabelled count, divided by the labels
already there + 1. The member-accuracy model is refitted every ``refit_every`` labels.

Mixed choice (the default, ``RANDOM_SHARE`` of the budget drawn at random first, the rest
active): active labels sit where members disagree and leave the patterns most rows fall in (the
members agreeing) almost unlabelled, so a confidence calibrated on them has nothing to go on
there; the random part gives every pattern labels in proportion to its rows.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.special import gammaln, softmax

from accord.consensus_core.jury._difficulty import DifficultyFit, fit_difficulty, pattern_key, truth_slots
from accord.consensus_core.jury._vote import MISSING
from accord.consensus_core.jury._weighted import check_codes

KAPPA_GRID = np.array([2.0**k for k in range(-1, 11)])
PRIOR_FLOOR = 1e-4
REGRET_DRAWS = 400
LABEL_CHOICES = ("mixed", "active", "random")
RANDOM_SHARE = 0.5  # of a mixed budget, drawn at random (chosen by leave-one-category-out; docs/jury.md)


@dataclass(frozen=True)
class PatternRule:
    """The learned decision for one agreement pattern."""

    key: tuple[int, ...]
    blocks: tuple[tuple[int, ...], ...]  # member indices of each class, in order of first member
    prior: np.ndarray  # (B + 1,) model probability that each class (last: none) is right
    counts: np.ndarray  # (B + 1,) labelled problems where each was right
    problems: int
    decision: int  # index into blocks; -1 when nobody answered (no class to trust)

    def posterior(self, weights: np.ndarray) -> np.ndarray:
        """Posterior mean of theta, averaged over the strengths of ``KAPPA_GRID`` with ``weights``."""
        return posterior_mean(self.prior, self.counts, weights)

    def as_dict(self, weights: np.ndarray, members: list[str] | None = None) -> dict:
        name = (lambda i: members[i]) if members else (lambda i: i)
        post = self.posterior(weights)
        return {
            "classes": [[name(i) for i in b] for b in self.blocks],
            "problems": self.problems,
            "labeled": int(self.counts.sum()),
            "prior": self.prior[:-1].tolist(),
            "counts": self.counts[:-1].astype(int).tolist(),
            "none_counts": int(self.counts[-1]),
            "posterior": post[:-1].tolist(),
            "trust": [name(i) for i in self.blocks[self.decision]] if self.decision >= 0 else [],
            "decision": self.decision if self.decision >= 0 else None,
            "against_labels": self.against_labels,
        }

    @property
    def against_labels(self) -> bool:
        """Another class was right on more of this pattern's labels than the trusted one: the
        model's prior outweighs them (on the CHAMP folds, following the labels instead never gained
        accuracy at 30 to 200 labels and cost up to 1.2 points)."""
        return self.decision >= 0 and bool(self.counts[:-1].max() > self.counts[self.decision])


@dataclass(frozen=True)
class FewLabelJury:
    """Choices for every problem (labelled ones keep the label's class) and the learned rules."""

    chosen: np.ndarray  # (n,) class code
    confidence: np.ndarray  # (n,) posterior mean of the chosen class
    tied: np.ndarray  # (n,) bool
    labeled: np.ndarray  # (n,) bool
    kappa_weights: np.ndarray  # (len(KAPPA_GRID),) posterior weights of the prior strengths
    rules: list[PatternRule]
    model: DifficultyFit  # the semi-supervised member model behind the priors

    @property
    def accuracy(self) -> np.ndarray:
        """(M,) member accuracies implied by the learned rules: per pattern, the posterior mean that
        the member's class is right, averaged over the problems the member answered. Unlike a
        plain count on the labelled rows this stays unbiased when labels were chosen actively."""
        M = len(self.model.accuracy)
        right, answered = np.zeros(M), np.zeros(M)
        for r in self.rules:
            post = r.posterior(self.kappa_weights)
            for b, block in enumerate(r.blocks):
                right[list(block)] += r.problems * post[b]
                answered[list(block)] += r.problems
        return right / np.maximum(answered, 1)

    @property
    def kappa(self) -> float:
        """The posterior geometric mean of the prior strength."""
        return float(np.exp(self.kappa_weights @ np.log(KAPPA_GRID)))

    def as_dict(self, members: list[str] | None = None) -> dict:
        return {
            "labeled": int(self.labeled.sum()),
            "kappa": self.kappa,
            "member_accuracy": dict(zip(members or range(self.accuracy.size), self.accuracy.tolist())),
            "rules": [r.as_dict(self.kappa_weights, members) for r in sorted(self.rules, key=lambda r: -r.problems)],
        }


def _blocks(key: tuple[int, ...]) -> tuple[tuple[int, ...], ...]:
    firsts = sorted({k for k in key if k >= 0})
    return tuple(tuple(i for i, k in enumerate(key) if k == f) for f in firsts)


@dataclass(frozen=True)
class PatternGroup:
    """The problems sharing one agreement pattern."""

    key: tuple[int, ...]
    rows: np.ndarray
    blocks: tuple[tuple[int, ...], ...]

    @property
    def firsts(self) -> list[int]:
        return [b[0] for b in self.blocks]


def pattern_groups(codes: np.ndarray) -> list[PatternGroup]:
    """The problems grouped by agreement pattern (computed once per panel)."""
    index: dict[tuple[int, ...], list[int]] = {}
    for i, r in enumerate(codes):
        index.setdefault(pattern_key(r), []).append(i)
    return [PatternGroup(k, np.array(rows), _blocks(k)) for k, rows in index.items()]


def _table(groups: list[PatternGroup], fixed: np.ndarray, labeled: np.ndarray, model: DifficultyFit, M: int):
    """Per pattern: its group, the prior from the model, the label counts."""
    table = []
    for g in groups:
        firsts = g.firsts
        post = model.posterior[g.rows[0]]
        prior = np.clip(np.append(post[firsts], post[M]), PRIOR_FLOOR, None)
        prior /= prior.sum()
        counts = np.zeros(len(firsts) + 1)
        for slot in fixed[g.rows[labeled[g.rows]]]:
            counts[firsts.index(slot) if slot in firsts else len(firsts)] += 1
        table.append((g, prior, counts))
    return table


def log_evidence(prior: np.ndarray, counts: np.ndarray, kappa: float) -> float:
    """log P(counts | Dirichlet(kappa * prior + 1)) of the Dirichlet-multinomial (label order fixed)."""
    a = kappa * prior + 1.0
    return float(gammaln(a.sum()) - gammaln(a.sum() + counts.sum()) + np.sum(gammaln(a + counts) - gammaln(a)))


def kappa_weights(table) -> np.ndarray:
    """Posterior weights of the strengths in ``KAPPA_GRID`` given every pattern's label counts."""
    evidence = np.array(
        [sum(log_evidence(prior, counts, k) for _, prior, counts in table if counts.sum()) for k in KAPPA_GRID]
    )
    return softmax(evidence)


def posterior_mean(prior: np.ndarray, counts: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """E[theta] averaged over the strengths: sum_k w_k (kappa_k prior + 1 + counts) / (kappa_k + K + N)."""
    alpha = KAPPA_GRID[:, None] * prior[None, :] + 1.0 + counts[None, :]
    return weights @ (alpha / alpha.sum(axis=1, keepdims=True))


def _decide(mean: np.ndarray, rng: np.random.Generator) -> tuple[int, bool]:
    top = mean[:-1].max()
    cand = np.nonzero(mean[:-1] >= top - 1e-12)[0]
    return int(cand[rng.integers(len(cand))]) if len(cand) > 1 else int(cand[0]), len(cand) > 1


def fit_few_labels(
    codes,
    truth,
    labeled,
    seed: int = 0,
    n_classes: int = 2,
    label_free: DifficultyFit | None = None,
    groups: list[PatternGroup] | None = None,
) -> FewLabelJury:
    """Learn the pattern rules from the problems where ``labeled`` is true (``truth``: class codes,
    -2 = nobody right) and choose a class for every problem."""
    c = check_codes(codes)
    n, M = c.shape
    lab = np.asarray(labeled, dtype=bool)
    if lab.shape != (n,):
        raise ValueError(f"labeled must have shape ({n},), got {lab.shape}")
    t = np.asarray(truth)
    start = label_free if label_free is not None else fit_difficulty(c, n_classes, seed=seed)
    model = fit_difficulty(c, n_classes, truth=t, labeled=lab, seed=seed, start=start) if lab.any() else start
    fixed = truth_slots(c, t, lab)
    table = _table(groups or pattern_groups(c), fixed, lab, model, M)
    weights = kappa_weights(table)
    rng = np.random.default_rng(seed)
    chosen = np.full(n, MISSING, dtype=np.int64)
    conf = np.zeros(n)
    tied = np.zeros(n, dtype=bool)
    rules = []
    for g, prior, counts in table:
        key, rows, blocks = g.key, g.rows, g.blocks
        if not blocks:
            rules.append(PatternRule(key, blocks, prior, counts, len(rows), -1))
            continue
        mean = posterior_mean(prior, counts, weights)
        decision, tie = _decide(mean, rng)
        rules.append(PatternRule(key, blocks, prior, counts, len(rows), decision))
        member = blocks[decision][0]
        chosen[rows] = c[rows, member]
        conf[rows] = mean[decision]
        tied[rows] = tie
    known = lab & (fixed >= 0) & (fixed < M)
    chosen[known] = c[known, fixed[known]]
    conf[lab] = np.where(known[lab], 1.0, 0.0)  # a label no member's answer matches: the jury is known wrong
    return FewLabelJury(chosen, conf, tied, lab, weights, rules, model)


def expected_regret(
    prior, counts, weights, decision: int, rng: np.random.Generator, draws: int = REGRET_DRAWS
) -> float:
    """E[max_b theta_b - theta_decision] over classes: kappa drawn by ``weights``, theta ~ Dirichlet(kappa prior + 1 +
    counts)."""
    ks = rng.choice(len(KAPPA_GRID), size=draws, p=weights)
    alpha = KAPPA_GRID[ks, None] * prior[None, :] + 1.0 + counts[None, :]
    g = rng.standard_gamma(alpha)
    theta = (g / g.sum(axis=1, keepdims=True))[:, :-1]
    return float(np.mean(theta.max(axis=1) - theta[:, decision]))


def choose_labels(
    codes,
    truth,
    budget: int,
    strategy: str = "active",
    seed: int = 0,
    n_classes: int = 2,
    refit_every: int = 10,
    label_free: DifficultyFit | None = None,
) -> FewLabelJury:
    """Spend ``budget`` labels (``truth`` is read only for the rows chosen) and fit on them.
    ``strategy``: one of ``LABEL_CHOICES``."""
    c = check_codes(codes)
    n = c.shape[0]
    if not 0 <= budget <= n:
        raise ValueError(f"label budget must lie in [0, {n}], got {budget}")
    if strategy not in LABEL_CHOICES:
        raise ValueError(f"label choice must be one of {', '.join(LABEL_CHOICES)}, got {strategy!r}")
    rng = np.random.default_rng(seed)
    labeled = np.zeros(n, dtype=bool)
    base = label_free if label_free is not None else fit_difficulty(c, n_classes, seed=seed)
    groups = pattern_groups(c)
    drawn = budget if strategy == "random" else random_part(budget) if strategy == "mixed" else 0
    labeled[rng.choice(n, size=drawn, replace=False)] = True
    t = np.asarray(truth)
    model = base
    if drawn and drawn < budget:
        model = fit_difficulty(c, n_classes, truth=t, labeled=labeled, seed=seed, start=base)
    for step in range(budget - drawn):
        if step and step % refit_every == 0:
            model = fit_difficulty(c, n_classes, truth=t, labeled=labeled, seed=seed, start=model)
        labeled[_most_useful(groups, c, t, labeled, model, rng)] = True
    return fit_few_labels(c, truth, labeled, seed, n_classes, base, groups)


def random_part(budget: int) -> int:
    """How many of a mixed budget are drawn at random."""
    return int(round(RANDOM_SHARE * budget))


def _most_useful(groups, c, truth, labeled, model: DifficultyFit, rng: np.random.Generator) -> int:
    """An unlabelled problem of the pattern whose decision a label is most likely to change."""
    fixed = truth_slots(c, truth, labeled)
    table = _table(groups, fixed, labeled, model, c.shape[1])
    weights = kappa_weights(table)
    regret_rng = np.random.default_rng(0)
    best, best_value = None, -1.0
    for g, prior, counts in table:
        open_rows = g.rows[~labeled[g.rows]]
        if not len(open_rows) or len(g.blocks) < 2:
            continue
        decision = int(np.argmax(posterior_mean(prior, counts, weights)[:-1]))
        value = len(open_rows) * expected_regret(prior, counts, weights, decision, regret_rng) / (counts.sum() + 1.0)
        if value > best_value:
            best, best_value = open_rows, value
    if best is None:  # every pattern left is unanimous or unanswered: any problem will do
        best = np.nonzero(~labeled)[0]
    return int(best[rng.integers(len(best))])
