"""The whole report of a jury over a panel file: what decided, per row what it answered, and how
well, measured only on rows whose reference the jury did not read.

:func:`jury_report` takes the panel and the :class:`JurySettings` and returns the report as one
JSON-ready document (``accord jury --json`` prints it; the table is drawn from it). What it
measures and where:

- references the jury did not read (a label budget, or a rule that reads none) measure it
  directly: accuracy of the jury and of each member on those rows, paired, with bootstrap
  intervals, and the reliability of its confidence there;
- references it learned from measure it only as it answered without them: each labelled row is
  scored by the jury refitted without that row's fold (``held_out``), so a jury that learned from
  every reference is still measured on rows it did not see;
- ``references`` says which of the two the file's references were, in one sentence.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from accord.consensus_core.jury import (
    CANDIDATE_SHARE,
    MIN_LABELS,
    MISSING,
    check_law,
    correctness,
    estimate_law,
    plan_panel,
    predict,
    reliability_table,
    vote_codes,
)
from accord.errors import UserError
from accord.verify.analysis import bootstrap_ci
from accord.verify.io import PanelAnswers
from accord.verify.juries._label_files import ask_rows, parse_costs
from accord.verify.juries._methods import (
    MIN_ROWS,
    Decision,
    PanelClasses,
    agreement_share,
    chosen_members,
    decide,
    decide_with_risk,
    panel_classes,
    unlabeled_comparison,
)


@dataclass(frozen=True)
class JurySettings:
    """Everything ``accord jury FILE`` is asked to do (the command's options, parsed)."""

    file: str = "panel"
    method: str = "auto"
    equivalence: str = "auto"
    label_budget: int | None = None
    label_choice: str | None = None  # default: mixed (random with --risk)
    risk: float | None = None
    delta: float = 0.1
    risk_bound: str = "hypergeometric"
    risk_candidates: float = CANDIDATE_SHARE
    min_agreement: float = 0.0
    seed: int = 0
    check_law: bool = False
    attractors: int = 1
    plan: float | None = None
    costs: str | None = None
    n_boot: int = 200
    prior: np.ndarray | None = None
    trust: int | None = None


@dataclass(frozen=True)
class JuryReport:
    doc: dict
    classes: PanelClasses
    decision: Decision


def stages(settings: JurySettings) -> list[str]:
    """The stages :func:`jury_report` reports progress on, in order."""
    return (
        ["comparing answers", "deciding", "accuracy"]
        + (["jury law"] if settings.check_law else [])
        + (["plan"] if settings.plan is not None else [])
    )


def accuracy_entry(hits: np.ndarray, n_boot: int, seed: int) -> dict:
    """Accuracy and its bootstrap interval; no number for no rows, no interval for too few."""
    if not hits.size:
        return {"accuracy": None, "ci": None, "n": 0}
    ci = list(bootstrap_ci(hits.astype(float), n_boot=max(n_boot, 1), seed=seed)) if hits.size >= MIN_ROWS else None
    return {"accuracy": float(hits.mean()), "ci": ci, "n": int(hits.size)}


def jury_report(
    settings: JurySettings, panel: PanelAnswers, progress: Callable[[int, int, str], None] | None = None
) -> JuryReport:
    """The report (see the module docstring); ``progress(done, total, stage)`` as each stage begins.
    A request the panel cannot meet is a UserError naming the file."""
    s = settings
    names = stages(s)

    def stage(name: str) -> None:
        if progress is not None:
            progress(names.index(name), len(names), name)

    if (s.check_law or s.plan is not None) and not panel.labelled:
        missing = [pid for pid, r in zip(panel.ids, panel.references) if r is None][:3]
        raise UserError(f"{s.file}: --check-law and --plan need a 'reference' on every line (missing for {missing})")
    stage("comparing answers")
    classes = panel_classes(panel.answers, panel.references, s.equivalence, panel.problems)
    codes, truth = classes.codes, classes.truth
    stage("deciding")
    try:
        if s.risk is not None:
            dec = decide_with_risk(
                s.method,
                classes,
                panel.members,
                s.risk,
                s.delta,
                s.seed,
                min(s.n_boot, 40),
                s.label_budget,
                s.risk_bound,
                s.risk_candidates,
            )
        else:
            dec = decide(
                s.method,
                classes,
                panel.members,
                s.seed,
                min(s.n_boot, 40),
                s.label_budget,
                s.label_choice or "mixed",
                s.prior,
                s.trust,
            )
    except ValueError as exc:
        raise UserError(f"{s.file}: {exc}") from None
    chosen, conf, tied = dec.chosen, dec.confidence, dec.tied
    share = agreement_share(codes, chosen)
    unmatched = dec.labeled & classes.has_reference & (truth < 0)  # a label no member's answer matches
    abstain = (chosen == MISSING) | (share < s.min_agreement) | (conf < dec.threshold) | unmatched
    doc: dict = {
        "file": str(s.file),
        "method": dec.method,
        "equivalence": s.equivalence,
        "members": panel.members,
        "problems": len(panel.ids),
        "min_agreement": s.min_agreement,
        "seed": s.seed,
        "answered": int((~abstain).sum()),
        "coverage": float((~abstain).mean()),
        "ties": int(np.sum(tied)),
        "labeled": int(dec.labeled.sum()),
        "references": references_note(classes, dec),
        "confidence": confidence_note(dec),
        **({"answers_read": classes.parse} if classes.parse else {}),
        **dec.report,
    }
    if len(panel.ids) < MIN_ROWS:
        doc["too_few_rows"] = (
            f"{len(panel.ids)} rows are too few for intervals or label-free estimates (at least {MIN_ROWS}): "
            "accuracies are plain counts"
        )
    if "label_free" in doc and doc["label_free"].get("labels_needed"):
        rows = ask_rows(codes, doc["label_free"]["labels_needed"], classes, s.seed, "active", dec.labeled)
        doc["label_free"]["label_rows"] = [panel.ids[i] for i in rows]
    doc["verdicts"] = verdict_rows(panel, classes, dec, share, abstain, unmatched, s)
    if "risk" in doc:
        doc["risk"].update(risk_outcome(classes, dec, abstain))
    stage("accuracy")
    doc.update(measure(panel, classes, dec, abstain, s))
    if s.check_law or s.plan is not None:
        ok = correctness(codes, truth)
        if s.check_law:  # the law describes the modal vote, whatever method decided
            stage("jury law")
            modal = vote_codes(codes, s.seed).chosen
            doc["law"] = law_section(s, codes, ok, (modal == truth) & (modal != MISSING))
        if s.plan is not None:
            stage("plan")
            doc["plan"] = plan_section(s, panel, ok, codes != MISSING, codes)
    return JuryReport(doc, classes, dec)


def references_note(classes: PanelClasses, dec: Decision) -> dict:
    """How the file's references were used, in one sentence: labels the jury learned from, or
    measures of a jury that did not read them (or both, with a label budget)."""
    refs = int(classes.has_reference.sum())
    read = int((dec.labeled & classes.has_reference).sum())
    measured = int((classes.has_reference & ~dec.labeled).sum())
    if not refs:
        use, text = "none", "no row has a reference: nothing measures the jury"
    elif read and not measured:
        use = "labels"
        text = (
            f"the references on {refs} rows are labels: the jury learned from them, and each is scored as the jury "
            "answered without its own label (out-of-fold)"
        )
    elif read:
        use = "labels and measure"
        text = (
            f"{read} references are labels the jury learned from; the other {measured} measure it (the jury did not "
            "read them)"
        )
    else:
        use = "measure"
        text = (
            f"the references on {refs} rows measure the jury: {dec.method} did not read them "
            "(with --method auto and no --prior or --trust the jury learns from references; --label-budget N "
            "learns from N of them)"
        )
    return {"rows": refs, "labels": read, "measuring": measured, "use": use, "note": text}


def confidence_note(dec: Decision) -> dict:
    """What each row's numbers mean: ``agreement`` is always the vote share; ``confidence`` is a
    probability only when labels calibrated it."""
    if dec.probability is None:
        if dec.labels:
            why = (
                f"{dec.labels} labels are too few to calibrate on (at least {MIN_LABELS}): 'confidence' is null; "
                "'score' is the few-label jury's posterior, not calibrated"
            )
        else:
            why = (
                "no labels to calibrate on: 'confidence' is null; 'agreement' is the share of the members that "
                "answered who gave the chosen answer, not a probability; 'score' is the method's own"
            )
        return {"calibrated": False, "too_few_labels": bool(dec.labels), "meaning": why}
    cal = dec.report.get("calibration", {})
    return {
        "calibrated": True,
        "rows": cal.get("rows"),
        "meaning": "probability that the answer is right, calibrated on the labelled rows ('score' is the few-label "
        "jury's posterior before calibration); on a labelled row 1 when a member gave its reference, else 0",
    }


def verdict_rows(
    panel: PanelAnswers, classes: PanelClasses, dec: Decision, share, abstain, unmatched, s: JurySettings
) -> list[dict]:
    """One record per problem: the answer, how sure, who gave it, and, with a reference, whether it was right."""
    codes, truth, chosen = classes.codes, classes.truth, dec.chosen
    who = chosen_members(codes, chosen)
    right = (codes == truth[:, None]) & (codes != MISSING)
    held = {}
    if dec.held_out is not None:
        h = dec.held_out
        probs = h.probability if dec.probability is not None else [None] * h.rows.size  # uncalibrated: no probability
        held = {
            int(r): (int(c), bool(ok), p if p is None else float(p))
            for r, c, ok, p in zip(h.rows, h.chosen, h.correct, probs)
        }
    out = []
    for i, pid in enumerate(panel.ids):
        ans = None if abstain[i] else panel.answers[i][who[i][0]]
        prob = None if dec.probability is None or abstain[i] else float(dec.probability[i])
        v = {
            "id": pid,
            "answer": ans,
            "agreement": float(share[i]),
            "confidence": prob,
            "score": float(dec.confidence[i]),
            "abstained": bool(abstain[i]),
            "tie": bool(dec.tied[i]),
            "members": [] if abstain[i] else [panel.members[j] for j in who[i]],
            "labeled": bool(dec.labeled[i]),
            "answers": dict(zip(panel.members, panel.answers[i])),
            "classes": row_classes(codes[i], panel.members),
        }
        if panel.problems and panel.problems[i] is not None:
            v["problem"] = panel.problems[i]
        if abstain[i]:
            v["reason"] = abstain_reason(
                chosen[i], share[i], dec.confidence[i], s.min_agreement, dec.threshold, bool(unmatched[i])
            )
        if classes.has_reference[i]:
            v["reference"] = panel.references[i]
            v["correct"] = bool(not abstain[i] and chosen[i] == truth[i])
            v["member_correct"] = {m: bool(right[i, j]) for j, m in enumerate(panel.members)}
        if i in held:
            c, ok, p = held[i]
            first = next((j for j, x in enumerate(codes[i]) if x == c and c != MISSING), None)
            v["held_out"] = {
                "answer": None if first is None else panel.answers[i][first],
                "correct": ok,
                "confidence": p,
            }
        out.append(v)
    return out


def abstain_reason(
    chosen: int, share: float, conf: float, min_agreement: float, threshold: float, unmatched: bool = False
) -> str:
    if chosen == MISSING:
        return "no member answered"
    if unmatched:
        return "labelled: no member's answer matches its reference"
    if conf < threshold:
        return (
            "no threshold certified"
            if not np.isfinite(threshold)
            else f"score {conf:.3f} below the certified threshold {threshold:.3f}"
        )
    return f"agreement {share:.3f} below --min-agreement {min_agreement:g}"


def measure(panel: PanelAnswers, classes: PanelClasses, dec: Decision, abstain, s: JurySettings) -> dict:
    """Accuracy of the jury and of each member on the rows the jury did not see, paired, and the
    reliability of its confidence there (see the module docstring)."""
    codes, truth = classes.codes, classes.truth
    ok = correctness(codes, truth)
    out: dict = {}
    unseen = classes.has_reference & ~dec.labeled
    hit = (dec.chosen == truth) & ~abstain
    if unseen.any():
        rows, jury_hit, prob = unseen, hit, dec.probability
        where = f"the {int(unseen.sum())} rows whose reference the jury did not read"
        answered = ~abstain
    elif dec.held_out is not None:
        h = dec.held_out
        rows = np.zeros(len(panel.ids), dtype=bool)
        rows[h.rows] = True
        jury_hit = np.zeros(len(panel.ids), dtype=bool)
        jury_hit[h.rows] = h.correct
        prob = None
        if dec.probability is not None:
            prob = np.zeros(len(panel.ids))
            prob[h.rows] = h.probability
        answered = np.zeros(len(panel.ids), dtype=bool)
        answered[h.rows] = h.chosen != MISSING
        where = f"the {h.rows.size} labelled rows, each as the jury answered without its label (out-of-fold)"
    else:
        return out
    out["scored_on"] = where
    on_answered = rows & answered
    out["jury"] = (
        accuracy_entry(jury_hit[rows], s.n_boot, s.seed)
        if on_answered.any()
        else {"accuracy": None, "ci": None, "n": int(rows.sum()), "note": "answered no row"}
    )
    if not on_answered.any():
        out["jury_answered"] = {"accuracy": None, "ci": None, "n": 0, "note": "answered no row"}
    elif on_answered.sum() < rows.sum():
        out["jury_answered"] = accuracy_entry(jury_hit[on_answered], s.n_boot, s.seed)
    out["member_accuracy"] = {m: accuracy_entry(ok[rows, j], s.n_boot, s.seed) for j, m in enumerate(panel.members)}
    best = max(out["member_accuracy"].items(), key=lambda kv: kv[1]["accuracy"])
    out["best_member"] = {"name": best[0], **best[1]}
    j = panel.members.index(best[0])
    diff = jury_hit[rows].astype(float) - ok[rows, j].astype(float)  # paired, per problem (no answer = wrong)
    ci = list(bootstrap_ci(diff, n_boot=max(s.n_boot, 1), seed=s.seed)) if diff.size >= MIN_ROWS else None
    out["vs_best_member"] = {"difference": float(diff.mean()), "ci": ci}
    if prob is not None and on_answered.any():
        table = reliability_table(prob[on_answered], jury_hit[on_answered])
        out["reliability"] = {"rows_measured": where, **table}
        out["confidence_error"] = {
            "equal_width": table["equal_width"]["ece"],
            "equal_count": table["equal_count"]["ece"],
        }
    if dec.labeled.any() and unseen.any():
        out["unlabeled"] = unlabeled_comparison(classes, dec, panel.members, s.seed, s.n_boot)
    return out


def risk_outcome(classes: PanelClasses, dec: Decision, abstain: np.ndarray) -> dict:
    """Coverage of the rows whose reference was not read, and the realised error where they have one."""
    rest = ~dec.labeled
    answered = rest & ~abstain
    out = {
        "coverage": float((~abstain).mean()),
        "unlabeled_rows": int(rest.sum()),
        "answered_unlabeled": int(answered.sum()),
        "coverage_unlabeled": float(answered.sum() / max(rest.sum(), 1)),
    }
    measured = answered & classes.has_reference
    if answered.any() and measured.sum() == answered.sum():
        out["realised_error"] = float(np.mean(dec.chosen[answered] != classes.truth[answered]))
    return out


def law_section(s: JurySettings, codes: np.ndarray, ok: np.ndarray, hit: np.ndarray) -> dict:
    try:
        est = estimate_law(codes, ok, s.attractors, n_boot=s.n_boot, seed=s.seed)
        fit = check_law(codes, ok, s.attractors, n_boot=s.n_boot, seed=s.seed)
    except ValueError as exc:
        raise UserError(f"{s.file}: {exc}") from None
    M = codes.shape[1]
    out = {"estimate": est.as_dict()}
    if 0 < est.a < 1:
        pred = predict(est.a, est.rho, est.s, M)
        full = np.all(codes != MISSING, axis=1)
        unan = full & np.all(codes == codes[:, :1], axis=1)
        ok_unan = unan & ok[:, 0]
        out["predicted"] = pred.as_dict()
        out["observed"] = {
            "accuracy": float(hit.mean()),
            "floor": float((unan & ~ok[:, 0]).mean()),
            "unanimous_rate": float(unan.mean()),
            "unanimous_accuracy": float(ok_unan.sum() / unan.sum()) if unan.any() else None,
        }
    out["fit"] = {k: v for k, v in fit.as_dict().items() if k != "estimate"}
    return out


def row_classes(row: np.ndarray, members: list[str]) -> dict[str, int | None]:
    """Each member's answer class on one problem, numbered 0, 1, ... in order of first appearance
    (null: no answer), so that a reader sees who agreed with whom."""
    first: dict[int, int] = {}
    return {m: None if c == MISSING else first.setdefault(int(c), len(first)) for m, c in zip(members, row)}


def error_correlations(correct: np.ndarray, present: np.ndarray) -> np.ndarray:
    """Pairwise Pearson correlation of members' error indicators (problems both answered)."""
    m = correct.shape[1]
    R = np.eye(m)
    for i in range(m):
        for j in range(i + 1, m):
            both = present[:, i] & present[:, j]
            x, y = ~correct[both, i], ~correct[both, j]
            if both.sum() < 3 or x.std() == 0 or y.std() == 0:
                r = 0.0
            else:
                r = float(np.corrcoef(x, y)[0, 1])
            R[i, j] = R[j, i] = r
    return R


def plan_section(s: JurySettings, panel: PanelAnswers, ok, present, codes) -> dict:
    acc = np.array([ok[present[:, j], j].mean() for j in range(len(panel.members))])
    acc = np.clip(acc, 1e-3, 1 - 1e-3)
    costs = parse_costs(s.costs, panel.members)
    R = np.clip(error_correlations(ok, present), 0.0, 1.0)
    try:
        est = estimate_law(codes, ok, s.attractors, n_boot=0)
        plan = plan_panel(acc, costs, s.plan, R, est.s, panel.members)
    except ValueError as exc:
        raise UserError(f"--plan: {exc}") from None
    return plan.as_dict()
