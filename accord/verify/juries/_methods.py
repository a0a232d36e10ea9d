"""The jury's decision for a panel file: answer classes, the chosen method, and what labels bought.

``panel_classes`` turns answers into class codes once (``auto`` / ``math`` parse every distinct
answer once; blank answers are no answer) and finds the references' classes. ``decide`` runs
a method. References in the file are labels:

- ``auto``: with a reference on any row, the few-label jury learns from those rows
  (:mod:`accord.consensus_core.jury._labels`), its confidence is calibrated on them
  (:mod:`accord.consensus_core.jury._calibration`), and every labelled row is also scored as the
  jury saw it without its own label (``Decision.held_out``), so that it can be measured on rows it
  did not see. Without references, the label-free default: the plain majority
  (:mod:`accord.consensus_core.jury._trust`), the label-free estimates
  (:mod:`accord.consensus_core.jury._label_free`) reported beside it but never claimed;
- what the user knows decides instead when given, and the references then only measure it: the
  accuracy-weighted vote with the member accuracies the user gave (``prior``), or the member the
  user trusts (``trust``);
- ``modal``, ``weighted``, ``dawid-skene``, ``difficulty`` (the difficulty-class vote without
  fallback), ``best-member`` (the estimated best member): label-free rules, measured by the references;
- a label budget: the few-label jury reads the references of only that many rows (half drawn at
  random and half chosen actively by default, or all one way), and :func:`unlabeled_comparison`
  measures every rule on the rows whose reference it did not read; a budget of 0 is the
  label-free default measured on every row.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from accord.consensus_core.jury import (
    CANDIDATE_SHARE,
    MISSING,
    CrossFit,
    agreement_levels,
    best_member_answers,
    calibrate_cross_fitted,
    candidate_rows,
    certify_threshold,
    choose_labels,
    classify,
    dawid_skene,
    fit_difficulty,
    fit_few_labels,
    label_free_jury,
    prior_vote,
    trusted_answers,
    vote_codes,
    weighted_plurality,
    weighted_vote,
)
from accord.mathcheck.answers import AnswerGrader, asked_form, equivalence, text_equivalent
from accord.verify.analysis import bootstrap_ci

METHODS = ("auto", "modal", "weighted", "dawid-skene", "difficulty", "best-member")
NO_CLASS = -2  # truth code when no answer matches the reference (or there is none)
MIN_ROWS = 20  # fewer rows than this are too few for label-free estimates or intervals


@dataclass(frozen=True)
class PanelClasses:
    codes: np.ndarray  # (n, M) class codes, MISSING for no (or a blank) answer
    truth: np.ndarray  # (n,) class of the reference, NO_CLASS when no answer matches it
    has_reference: np.ndarray  # (n,) bool
    parse: dict = field(default_factory=dict)  # how answers were read (counts), for the report


def panel_classes(
    answers: Sequence[Sequence[str | None]],
    references: Sequence[str | None],
    name: str,
    problems: Sequence[str | None] | None = None,
) -> PanelClasses:
    """Class codes and reference classes under the ``auto``, ``math`` or ``text`` equivalence;
    ``problems`` (texts, optional): where one asks for a form, ``auto`` and ``math`` compare forms."""
    eq = equivalence(name)
    has_ref = np.array([r is not None for r in references], dtype=bool)
    if isinstance(eq, AnswerGrader):
        eq.prepare([a for row in answers for a in row] + [r for r in references if r is not None])
        forms = [asked_form(q) for q in problems] if problems else [None] * len(answers)
        codes = eq.codes(answers, forms)
        truth = np.array(
            [eq.truth(r, row, c, f) for r, row, c, f in zip(references, answers, codes, forms)], dtype=np.int64
        )
        hows: dict[str, int] = {}
        for a in {a for row in answers for a in row if a is not None}:
            how = eq.parse(a).how
            hows[how] = hows.get(how, 0) + 1
        asked = {f: forms.count(f) for f in dict.fromkeys(forms) if f is not None}
        return PanelClasses(
            codes,
            truth,
            has_ref,
            {"distinct_answers": hows, "timeouts": eq.parser.timeouts, **({"asked_forms": asked} if asked else {})},
        )
    rows = [[a if a is not None and a.strip() else None for a in row] for row in answers]
    codes = np.stack([classify(row, eq) for row in rows])
    truth = []
    for r, row, c in zip(references, rows, codes):
        hit = [code for a, code in zip(row, c) if a is not None and r is not None and text_equivalent(a, r)]
        truth.append(int(hit[0]) if hit else NO_CLASS)
    return PanelClasses(codes, np.array(truth, dtype=np.int64), has_ref)


@dataclass(frozen=True)
class Decision:
    method: str  # the method that decided ("few-label", "label-free vote", ...)
    chosen: np.ndarray
    confidence: np.ndarray
    tied: np.ndarray
    labeled: np.ndarray  # (n,) bool: rows whose reference the method read
    report: dict = field(default_factory=dict)
    threshold: float = 0.0  # answer only rows with confidence >= threshold (inf: none)
    probability: np.ndarray | None = None  # (n,) confidence calibrated on labels (None: no labels to calibrate on)
    held_out: CrossFit | None = None  # the labelled rows as the jury saw them without their labels
    labels: int = 0  # labels given to a decision that needed more to calibrate (0: none, or enough)


def decide(
    method: str,
    classes: PanelClasses,
    members: list[str],
    seed: int = 0,
    n_boot: int = 40,
    label_budget: int | None = None,
    label_choice: str = "mixed",
    prior: np.ndarray | None = None,
    trust: int | None = None,
) -> Decision:
    """Run one method (see the module docstring); ValueError on impossible requests.
    ``prior``: (M,) member accuracies the user knows; ``trust``: the index of a member the user trusts."""
    c, truth, has_ref = classes.codes, classes.truth, classes.has_reference
    n = c.shape[0]
    none = np.zeros(n, dtype=bool)
    if label_budget is not None:
        if not has_ref.all():
            raise ValueError("--label-budget needs a 'reference' on every line (it measures the rows it does not read)")
        if label_budget == 0 or method != "auto" or prior is not None or trust is not None:
            return decide(method, _unreferenced(classes), members, seed, n_boot, None, label_choice, prior, trust)
        jury = choose_labels(c, truth, label_budget, label_choice, seed)
        return few_label_decision(f"few-label ({label_choice}, {label_budget} labels)", jury, c, truth, members, seed)
    if method == "auto" and has_ref.any() and prior is None and trust is None:
        jury = fit_few_labels(c, truth, has_ref, seed)
        return few_label_decision(f"few-label ({int(has_ref.sum())} labels in the file)", jury, c, truth, members, seed)
    if method == "auto":
        return label_free_decision(c, members, seed, n_boot, prior, trust)
    if method == "modal":
        v = vote_codes(c, seed)
        return Decision("modal", v.chosen, v.agreement, v.tied, none)
    if method == "difficulty":
        fit = fit_difficulty(c, seed=seed)
        return Decision("difficulty", fit.chosen, fit.confidence, fit.tied, none, {"model": fit.as_dict()})
    if method == "best-member":
        fit = fit_difficulty(c, seed=seed)
        chosen = best_member_answers(c, np.argsort(-fit.accuracy))
        return Decision(
            "best-member",
            chosen,
            np.where(chosen != MISSING, fit.accuracy.max(), 0.0),
            none,
            none,
            {"model": fit.as_dict()},
        )
    fit = (
        dawid_skene(c, seed=seed, n_boot=n_boot)
        if method == "dawid-skene"
        else weighted_plurality(c, seed=seed, n_boot=n_boot)
    )
    est = {
        m: {"value": float(v), "ci": [float(lo), float(hi)]}
        for m, v, (lo, hi) in zip(members, fit.accuracy, fit.accuracy_ci)
    }
    return Decision(method, fit.chosen, fit.confidence, fit.tied, none, {"estimated_accuracy": est})


def _unreferenced(classes: PanelClasses) -> PanelClasses:
    """The classes as a rule that reads no reference sees them."""
    n = classes.codes.shape[0]
    return PanelClasses(classes.codes, np.full(n, NO_CLASS, dtype=np.int64), np.zeros(n, dtype=bool), classes.parse)


def few_label_decision(name: str, jury, codes, truth, members: list[str], seed: int) -> Decision:
    """The few-label jury's choice, with its confidence calibrated on its own labels where there are
    enough, and every labelled row scored as the jury saw it without its label (``held_out``)."""
    report = {"few_label": jury.as_dict(members)}
    cal, held_out = calibrate_cross_fitted(codes, truth, jury.labeled, seed)
    probability, few = None, 0
    if cal is not None:
        probability = np.where(jury.labeled, jury.confidence, cal(jury.confidence, agreement_levels(codes)))
        probability = np.where(jury.chosen == MISSING, 0.0, probability)
        report["calibration"] = cal.as_dict()
    else:
        few = int(jury.labeled.sum())
    return Decision(
        name,
        jury.chosen,
        jury.confidence,
        jury.tied,
        jury.labeled,
        report,
        probability=probability,
        held_out=held_out,
        labels=few,
    )


def label_free_decision(
    c, members: list[str], seed: int, n_boot: int, prior=None, trust: int | None = None
) -> Decision:
    """Without labels: what the user knows (``prior`` accuracies, a ``trust``-ed member), else the
    majority; the label-free estimates beside it as estimates, never as a claim."""
    n = c.shape[0]
    none = np.zeros(n, dtype=bool)
    report: dict = {}
    if n >= MIN_ROWS and prior is None and trust is None:
        report["label_free"] = label_free_jury(c, n_boot=n_boot, seed=seed).as_dict(members)
    if prior is not None:
        v = prior_vote(c, prior, seed)
        report["prior"] = dict(zip(members, np.asarray(prior, dtype=float).tolist()))
        return Decision("accuracy-weighted vote (--prior)", v.chosen, v.confidence, v.tied, none, report)
    if trust is not None:
        chosen, fell_back = trusted_answers(c, trust, seed)
        vote = vote_codes(c, seed)
        report["trust"] = {"member": members[trust], "majority_rows": int(fell_back.sum())}
        conf = np.where(fell_back, vote.agreement, agreement_share(c, chosen))
        return Decision(f"trusted member ({members[trust]})", chosen, conf, fell_back & vote.tied, none, report)
    v = vote_codes(c, seed)
    return Decision("majority vote (label-free)", v.chosen, v.agreement, v.tied, none, report)


def agreement_share(codes: np.ndarray, chosen: np.ndarray) -> np.ndarray:
    """Per row the share of the members that answered whose answer is in the chosen class."""
    present = codes != MISSING
    votes = ((codes == chosen[:, None]) & present & (chosen[:, None] != MISSING)).sum(axis=1)
    return np.where(present.any(axis=1), votes / np.maximum(present.sum(axis=1), 1), 0.0)


def decide_with_risk(
    method: str,
    classes: PanelClasses,
    members: list[str],
    alpha: float,
    delta: float,
    seed: int = 0,
    n_boot: int = 40,
    label_budget: int | None = None,
    bound: str = "hypergeometric",
    candidate_share: float = CANDIDATE_SHARE,
) -> Decision:
    """A label-free rule (``auto``: the difficulty-class vote, whose posterior ranks rows best)
    answers the rows whose confidence clears a threshold certified on labelled rows drawn at
    random (:mod:`accord.consensus_core.jury._risk`, ``bound`` one of its ``RISK_BOUNDS``). With
    ``label_budget`` the labels are drawn with ``seed`` among the ``candidate_share`` of the rows
    the rule is most confident of (the only rows it may answer); without a budget the rows that
    have a reference are the labels, assumed to be a random sample of the whole file."""
    c, truth, has_ref = classes.codes, classes.truth, classes.has_reference
    n = c.shape[0]
    base = decide("difficulty" if method == "auto" else method, _unreferenced(classes), members, seed, n_boot)
    if label_budget is not None:
        if not has_ref.all():
            raise ValueError("--label-budget needs a 'reference' on every line (it measures the rows it does not read)")
        candidates = candidate_rows(base.confidence, candidate_share)
        if label_budget > candidates.sum():
            raise ValueError(
                f"--label-budget {label_budget} exceeds the {int(candidates.sum())} rows --risk may answer "
                f"(the {candidate_share:.0%} it is most confident of)"
            )
        labeled = np.zeros(n, dtype=bool)
        labeled[np.random.default_rng(seed).choice(np.nonzero(candidates)[0], size=label_budget, replace=False)] = True
        source = (
            f"{label_budget} rows drawn at random (seed {seed}) among the {int(candidates.sum())} rows "
            f"({candidates.mean():.0%}) the rule is most confident of"
        )
    elif has_ref.any() and not has_ref.all():
        labeled = has_ref.copy()
        candidates = np.ones(n, dtype=bool)
        source = "the rows with a reference, assumed to be a random sample of the file"
    else:
        raise ValueError(
            "--risk calibrates on labelled rows: give --label-budget N, or references on a random sample of the rows"
        )
    wrong = (base.chosen != truth) | (base.chosen == MISSING)
    risk = certify_threshold(base.confidence, wrong, labeled, alpha, delta, bound, candidates)
    report = {**base.report, "risk": {**risk.as_dict(), "calibration": source, "rule": base.method}}
    return Decision(
        f"{base.method}, error <= {alpha:g} (delta {delta:g})",
        base.chosen,
        base.confidence,
        base.tied,
        labeled,
        report,
        risk.threshold,
    )


def chosen_members(codes: np.ndarray, chosen: np.ndarray) -> list[list[int]]:
    """Per problem the members whose answer is in the chosen class."""
    return [[j for j, x in enumerate(row) if x == ch and ch != MISSING] for row, ch in zip(codes, chosen)]


def _entry(hits: np.ndarray, n_boot: int, seed: int) -> dict:
    lo, hi = bootstrap_ci(hits.astype(float), n_boot=max(n_boot, 1), seed=seed)
    return {"accuracy": float(hits.mean()) if hits.size else float("nan"), "ci": [lo, hi], "n": int(hits.size)}


def label_accuracy_vote(codes: np.ndarray, truth: np.ndarray, labeled: np.ndarray, seed: int = 0) -> np.ndarray:
    """The simple few-label peer: each member's accuracy on the labelled rows (one pseudo-count
    right and one wrong), then the accuracy-weighted vote (log-odds weights) on every row."""
    right = ((codes == truth[:, None]) & (codes != MISSING))[labeled]
    answered = (codes != MISSING)[labeled]
    acc = np.clip((right.sum(axis=0) + 1.0) / (answered.sum(axis=0) + 2.0), 0.01, 0.99)
    return weighted_vote(codes, acc, 0.0, seed, method="accuracy-weighted").chosen


def jury_entries(hit: np.ndarray, answered: np.ndarray, n_boot: int, seed: int) -> dict:
    """The jury on these rows (a row it did not answer is not right) and on the rows it answered;
    no accuracy when it answered none."""
    if not answered.any():
        note = {"accuracy": None, "ci": None, "n": int(hit.size), "note": "answered no row"}
        return {"jury": note, "jury_answered": {**note, "n": 0}}
    out = {"jury": _entry(hit & answered, n_boot, seed)}
    if not answered.all():
        out["jury_answered"] = _entry(hit[answered], n_boot, seed)
    return out


def unlabeled_comparison(
    classes: PanelClasses, decision: Decision, members: list[str], seed: int = 0, n_boot: int = 200
) -> dict:
    """Accuracy on the rows whose reference the decision did not read, beside the best member
    (by hindsight, and as chosen on the labelled rows), the modal vote, the label-free weighted
    vote (three members or more), the accuracy-weighted vote with accuracies from the labels, the
    difficulty-class vote and the label-free default (the majority)."""
    c, truth = classes.codes, classes.truth
    rest = ~decision.labeled
    if not rest.any():
        return {"rows": 0}
    right = (c == truth[:, None]) & (c != MISSING)

    def hits(chosen: np.ndarray) -> np.ndarray:
        return ((chosen == truth) & (chosen != MISSING))[rest]

    answered = decision.confidence >= decision.threshold  # with a certified risk threshold, the rows it answers
    member_acc = right[rest].mean(axis=0)
    hindsight = int(np.argmax(member_acc))
    on_labels = right[decision.labeled].mean(axis=0) if decision.labeled.any() else member_acc * np.nan
    picked = int(np.nanargmax(on_labels)) if decision.labeled.any() else hindsight
    difficulty = fit_difficulty(c, seed=seed).chosen  # the label-free jury's vote (its bootstraps are not needed)
    out = {
        "rows": int(rest.sum()),
        **jury_entries(hits(decision.chosen), answered[rest], n_boot, seed),
        "best_member": {"name": members[hindsight], **_entry(right[rest, hindsight], n_boot, seed)},
        "best_member_on_labels": {"name": members[picked], **_entry(right[rest, picked], n_boot, seed)},
        "modal": _entry(hits(vote_codes(c, seed).chosen), n_boot, seed),
        "accuracy_weighted": _entry(hits(label_accuracy_vote(c, truth, decision.labeled, seed)), n_boot, seed),
        "label_free": {"rule": "majority vote", **_entry(hits(vote_codes(c, seed).chosen), n_boot, seed)},
        "difficulty": _entry(hits(difficulty), n_boot, seed),
    }
    if c.shape[1] >= 3:  # the agreement-rate accuracies need three members
        out["weighted"] = _entry(hits(weighted_plurality(c, seed=seed).chosen), n_boot, seed)
    diff = (hits(decision.chosen) & answered[rest]).astype(float) - right[rest, hindsight].astype(float)
    lo, hi = bootstrap_ci(diff, n_boot=max(n_boot, 1), seed=seed)
    out["vs_best_member"] = {"difference": float(diff.mean()), "ci": [lo, hi]}
    return out
