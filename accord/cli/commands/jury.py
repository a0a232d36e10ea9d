"""``accord jury FILE``: the modal (or weighted) answer of a panel, its accuracy and the jury law."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

from accord.cli.commands._jury_collect import WORD as COLLECT
from accord.cli.commands._jury_collect import add_collect_arguments, add_collect_help, run_collect
from accord.cli.commands._jury_labels import apply_labels, ask_labels, member_index, parse_prior
from accord.cli.commands._jury_rows import strict_json, verdicts_csv
from accord.cli.options import nonnegative_int, positive_float, positive_int, resamples, unit_interval
from accord.cli.progress import add_quiet, progress_bar
from accord.consensus_core import bootstrap_ci
from accord.consensus_core.jury import (
    MAX_CANDIDATES,
    MISSING,
    RISK_BOUNDS,
    check_law,
    correctness,
    estimate_law,
    plan_panel,
    predict,
    vote_codes,
)
from accord.errors import UserError
from accord.verify.io import PanelAnswers, is_inspect_log, read_panel_answers, writable_output, write_text_atomic


def open_unit(text: str) -> float:
    """A number strictly between 0 and 1 (an error rate, a failure probability)."""
    try:
        x = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number in (0, 1), got {text!r}") from None
    if not 0 < x < 1:
        raise argparse.ArgumentTypeError(f"expected a number in (0, 1), got {text!r}")
    return x


NAME = "jury"
HELP = "Jury over a panel's answers (JSONL): answer classes, label-free or few-label decisions, accuracy, the jury law."
# accord.verify.juries.METHODS, named here so that building the parser does not import the jury
# (tests/test_architecture.py keeps the two equal)
METHODS = ("auto", "modal", "weighted", "dawid-skene", "difficulty", "best-member")
MIN_ROWS = 20  # accord.verify.juries.MIN_ROWS: fewer rows get counts, not intervals or estimates


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "file",
        help='JSONL: {"id", "answers": {member: answer}, "reference"?, "problem"?} per problem; inspect logs (.eval '
        'files or a folder of them: one member per model, docs/inspect.md); or "collect" (below)',
    )
    p.add_argument(
        "--equivalence",
        choices=("auto", "math", "text"),
        default="auto",
        help="answer classes: math where answers parse as math and textual forms otherwise (auto), math only, or "
        "normalised text (default auto)",
    )
    p.add_argument(
        "--method",
        choices=METHODS,
        default="auto",
        help="auto: the label-free default, or the few-label jury when only some rows have a reference (default auto)",
    )
    p.add_argument(
        "--label-budget",
        type=nonnegative_int,
        default=None,
        metavar="N",
        help="read the references of only N rows, learn from them, measure on the rest",
    )
    p.add_argument(
        "--label-choice",
        choices=("active", "random"),
        default=None,
        help="which rows --label-budget reads (default active; random with --risk)",
    )
    p.add_argument(
        "--risk",
        type=open_unit,
        default=None,
        metavar="ALPHA",
        help="answer only rows whose confidence clears a threshold certified on random labelled rows: error among "
        "answered rows <= ALPHA with probability >= 1 - DELTA",
    )
    p.add_argument(
        "--delta",
        type=open_unit,
        default=0.1,
        help="with --risk: the chance the certified error rate is exceeded (default 0.1)",
    )
    p.add_argument(
        "--risk-bound",
        choices=RISK_BOUNDS,
        default=RISK_BOUNDS[0],
        help="with --risk: the test of each threshold. binomial: exact binomial p-values, the sequence starting "
        "where it tolerates errors (default); hb: Hoeffding-Bentkus p-values, same start; clopper-pearson: exact "
        "binomial p-values from the fewest rows that could certify (the earlier rule)",
    )
    p.add_argument(
        "--min-agreement",
        type=unit_interval,
        default=0.0,
        help="abstain when the winning class has a smaller share of the votes (default 0)",
    )
    p.add_argument("--seed", type=int, default=0, help="seed of the tie-break rule and the bootstraps (default 0)")
    p.add_argument(
        "--check-law",
        action="store_true",
        help="estimate (a, rho, s), compare the law with the panel and test its fit (needs references)",
    )
    p.add_argument(
        "--attractors",
        type=positive_int,
        default=1,
        help="number of shared wrong-answer attractors in the law (default 1)",
    )
    p.add_argument(
        "--plan",
        type=positive_float,
        default=None,
        metavar="BUDGET",
        help="choose the members that maximise predicted accuracy within BUDGET (needs references)",
    )
    p.add_argument("--costs", default=None, help="member costs for --plan, e.g. model_a=3,model_b=1 (default 1 each)")
    p.add_argument("--n-boot", type=resamples, default=200, help="bootstrap resamples for intervals (default 200)")
    p.add_argument(
        "--prior",
        default=None,
        metavar="MEMBER=ACC,...",
        help="member accuracies you know (a leaderboard, earlier labels), every member named: without labels the jury "
        "is the accuracy-weighted vote with them",
    )
    p.add_argument(
        "--trust",
        default=None,
        metavar="MEMBER",
        help="a member you trust: without labels the jury gives its answer (the majority where it gave none)",
    )
    p.add_argument(
        "--ask-labels",
        type=positive_int,
        default=None,
        metavar="N",
        help="write the N rows whose labels are worth most (the active choice of --label-budget) to --ask-out for a "
        "person to fill in 'reference'",
    )
    p.add_argument("--ask-out", default=None, metavar="FILE", help="with --ask-labels: the JSONL file of rows to label")
    p.add_argument(
        "--labels",
        default=None,
        metavar="FILE",
        help='JSONL of {"id", "reference"} (a filled --ask-out file): those rows\' references are read, and the '
        "few-label jury decides",
    )
    p.add_argument(
        "--out",
        default=None,
        help="write one line per problem (answer, agreement, confidence, abstained, tie) to this file; with collect: "
        "the jury file to write (or resume)",
    )
    p.add_argument(
        "--format",
        choices=("jsonl", "csv"),
        default="jsonl",
        help="--out as JSON lines or as a flat CSV, one row per problem (default jsonl)",
    )
    p.add_argument("--json", action="store_true", help="print one JSON document instead of tables")
    add_quiet(p)
    add_collect_arguments(p)  # accord jury collect QUESTIONS.jsonl --member ... --out FILE
    p.add_argument("more_logs", nargs="*", help=argparse.SUPPRESS)  # accord jury a.eval b.eval c.eval
    add_collect_help(p)


def _acc_entry(hits: np.ndarray, n_boot: int, seed: int) -> dict:
    """Accuracy and its bootstrap interval; no number for no rows, no interval for too few."""
    if not hits.size:
        return {"accuracy": None, "ci": None, "n": 0}
    ci = list(bootstrap_ci(hits.astype(float), n_boot=max(n_boot, 1), seed=seed)) if hits.size >= MIN_ROWS else None
    return {"accuracy": float(hits.mean()), "ci": ci, "n": int(hits.size)}


def _parse_costs(text: str | None, members: list[str]) -> np.ndarray:
    costs = np.ones(len(members))
    if not text:
        return costs
    for part in text.split(","):
        if not part.strip():
            continue
        if "=" not in part:
            raise UserError(f"--costs: expected member=cost pairs, got {part!r}")
        name, value = part.split("=", 1)
        name = name.strip()
        if name not in members:
            raise UserError(f"--costs: unknown member {name!r} (members: {', '.join(members)})")
        try:
            costs[members.index(name)] = float(value)
        except ValueError:
            raise UserError(f"--costs: cost of {name!r} is not a number: {value!r}") from None
    return costs


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


def _stages(args) -> list[str]:
    return (
        ["comparing answers", "deciding", "accuracy"]
        + (["jury law"] if args.check_law else [])
        + (["plan"] if args.plan is not None else [])
    )


def build_document(args: argparse.Namespace, panel: PanelAnswers, progress=None) -> dict:
    """The report; ``progress(done, total, stage)`` as each stage begins (see :func:`_stages`)."""
    from accord.verify.juries import (
        agreement_share,
        chosen_members,
        decide,
        decide_with_risk,
        panel_classes,
        unlabeled_comparison,
    )

    stages = _stages(args)

    def stage(name: str) -> None:
        if progress is not None:
            progress(stages.index(name), len(stages), name)

    if (args.check_law or args.plan is not None) and not panel.labelled:
        missing = [pid for pid, r in zip(panel.ids, panel.references) if r is None][:3]
        raise UserError(f"{args.file}: --check-law and --plan need a 'reference' on every line (missing for {missing})")
    stage("comparing answers")
    classes = panel_classes(panel.answers, panel.references, args.equivalence, panel.problems)
    codes, truth = classes.codes, classes.truth
    stage("deciding")
    try:
        if args.risk is not None:
            dec = decide_with_risk(
                args.method,
                classes,
                panel.members,
                args.risk,
                args.delta,
                args.seed,
                min(args.n_boot, 40),
                args.label_budget,
                args.risk_bound,
            )
        else:
            prior = parse_prior(args.prior, panel.members) if args.prior is not None else None
            trust = member_index(args.trust, panel.members, "--trust") if args.trust is not None else None
            dec = decide(
                args.method,
                classes,
                panel.members,
                args.seed,
                min(args.n_boot, 40),
                args.label_budget,
                args.label_choice or "active",
                prior,
                trust,
            )
    except ValueError as exc:
        raise UserError(f"{args.file}: {exc}") from None
    chosen, conf, tied = dec.chosen, dec.confidence, dec.tied
    share = agreement_share(codes, chosen)
    abstain = (chosen == MISSING) | (share < args.min_agreement) | (conf < dec.threshold)
    doc: dict = {
        "file": str(args.file),
        "method": dec.method,
        "equivalence": args.equivalence,
        "members": panel.members,
        "problems": len(panel.ids),
        "min_agreement": args.min_agreement,
        "seed": args.seed,
        "answered": int((~abstain).sum()),
        "coverage": float((~abstain).mean()),
        "ties": int(np.sum(tied)),
        "labeled": int(dec.labeled.sum()),
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
        rows = ask_labels(codes, doc["label_free"]["labels_needed"], classes, args.seed)
        doc["label_free"]["label_rows"] = [panel.ids[i] for i in rows]
    verdicts = []
    labelled = panel.labelled
    who = chosen_members(codes, chosen)
    right = (codes == truth[:, None]) & (codes != MISSING)
    for i, pid in enumerate(panel.ids):
        ans = None if abstain[i] else panel.answers[i][who[i][0]]
        prob = None if dec.probability is None or abstain[i] else float(dec.probability[i])
        v = {
            "id": pid,
            "answer": ans,
            "agreement": float(share[i]),
            "confidence": prob,
            "score": float(conf[i]),
            "abstained": bool(abstain[i]),
            "tie": bool(tied[i]),
            "members": [] if abstain[i] else [panel.members[j] for j in who[i]],
            "labeled": bool(dec.labeled[i]),
            "answers": dict(zip(panel.members, panel.answers[i])),
            "classes": _row_classes(codes[i], panel.members),
        }
        if abstain[i]:
            v["reason"] = abstain_reason(chosen[i], share[i], conf[i], args.min_agreement, dec.threshold)
        if classes.has_reference[i]:
            v["reference"] = panel.references[i]
            v["correct"] = bool(not abstain[i] and chosen[i] == truth[i])
            v["member_correct"] = {m: bool(right[i, j]) for j, m in enumerate(panel.members)}
        verdicts.append(v)
    doc["verdicts"] = verdicts
    if "risk" in doc:
        doc["risk"].update(risk_outcome(classes, dec, abstain))
    if labelled:
        stage("accuracy")
        ok = correctness(codes, truth)
        present = codes != MISSING
        hit = (chosen == truth) & ~abstain
        doc["jury"] = (
            _acc_entry(hit, args.n_boot, args.seed)
            if (~abstain).any()
            else {"accuracy": None, "ci": None, "n": len(hit), "note": "answered no row"}
        )
        doc["jury_answered"] = _acc_entry(hit[~abstain], args.n_boot, args.seed)
        doc["member_accuracy"] = {m: _acc_entry(ok[:, j], args.n_boot, args.seed) for j, m in enumerate(panel.members)}
        best = max(doc["member_accuracy"].items(), key=lambda kv: kv[1]["accuracy"])
        doc["best_member"] = {"name": best[0], **best[1]}
        j = panel.members.index(best[0])
        diff = hit.astype(float) - ok[:, j].astype(float)  # paired, per problem (no answer = wrong)
        ci = list(bootstrap_ci(diff, n_boot=max(args.n_boot, 1), seed=args.seed)) if diff.size >= MIN_ROWS else None
        doc["vs_best_member"] = {"difference": float(diff.mean()), "ci": ci}
        if dec.probability is not None and (~abstain & ~dec.labeled).any():
            from accord.consensus_core.jury import calibration_error

            rest = ~abstain & ~dec.labeled
            doc["confidence"]["error_on_unlabeled"] = calibration_error(dec.probability[rest], hit[rest])
        if dec.labeled.any():
            doc["unlabeled"] = unlabeled_comparison(classes, dec, panel.members, args.seed, args.n_boot)
        if args.check_law:  # the law describes the modal vote, whatever method decided
            stage("jury law")
            modal = vote_codes(codes, args.seed).chosen
            doc["law"] = law_section(args, codes, ok, (modal == truth) & (modal != MISSING))
        if args.plan is not None:
            stage("plan")
            doc["plan"] = plan_section(args, panel, ok, present, codes)
    return doc


def abstain_reason(chosen: int, share: float, conf: float, min_agreement: float, threshold: float) -> str:
    if chosen == MISSING:
        return "no member answered"
    if conf < threshold:
        return (
            "no threshold certified"
            if not np.isfinite(threshold)
            else f"score {conf:.3f} below the certified threshold {threshold:.3f}"
        )
    return f"agreement {share:.3f} below --min-agreement {min_agreement:g}"


def confidence_note(dec) -> dict:
    """What each row's numbers mean: ``agreement`` is always the vote share; ``confidence`` is a
    probability only when labels calibrated it."""
    if dec.probability is None:
        return {
            "calibrated": False,
            "meaning": "no labels to calibrate on: 'confidence' is null; 'agreement' is the share of "
            "the members that answered who gave the chosen answer, not a probability; 'score' is the method's own",
        }
    cal = dec.report.get("calibration", {})
    return {
        "calibrated": True,
        "rows": cal.get("rows"),
        "meaning": "probability that the answer is right, calibrated on "
        "the labelled rows ('score' is the few-label jury's posterior before calibration)",
    }


def risk_outcome(classes, dec, abstain: np.ndarray) -> dict:
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


def law_section(args, codes: np.ndarray, ok: np.ndarray, hit: np.ndarray) -> dict:
    try:
        est = estimate_law(codes, ok, args.attractors, n_boot=args.n_boot, seed=args.seed)
        fit = check_law(codes, ok, args.attractors, n_boot=args.n_boot, seed=args.seed)
    except ValueError as exc:
        raise UserError(f"{args.file}: {exc}") from None
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


def _row_classes(row: np.ndarray, members: list[str]) -> dict[str, int | None]:
    """Each member's answer class on one problem, numbered 0, 1, ... in order of first appearance
    (null: no answer), so that a reader sees who agreed with whom."""
    first: dict[int, int] = {}
    return {m: None if c == MISSING else first.setdefault(int(c), len(first)) for m, c in zip(members, row)}


def plan_section(args, panel: PanelAnswers, ok, present, codes) -> dict:
    acc = np.array([ok[present[:, j], j].mean() for j in range(len(panel.members))])
    acc = np.clip(acc, 1e-3, 1 - 1e-3)
    costs = _parse_costs(args.costs, panel.members)
    R = np.clip(error_correlations(ok, present), 0.0, 1.0)
    try:
        est = estimate_law(codes, ok, args.attractors, n_boot=0)
        plan = plan_panel(acc, costs, args.plan, R, est.s, panel.members)
    except ValueError as exc:
        raise UserError(f"--plan: {exc}") from None
    return plan.as_dict()


def print_report(doc: dict) -> None:
    from accord.cli.display import Table, console

    con = console()
    con.print(
        f"[bold]{doc['problems']}[/] problems, [bold]{len(doc['members'])}[/] members, method {doc['method']}, "
        f"equivalence {doc['equivalence']}; answered {doc['answered']} ({doc['coverage']:.1%}), ties {doc['ties']}"
    )
    if "too_few_rows" in doc:
        con.print(f"[bold yellow]{doc['too_few_rows']}[/]")
    print_decision(con, doc)
    if "jury" in doc:
        t = Table(title="accuracy (95% bootstrap CI)", title_justify="left")
        for col in ("who", "accuracy", "CI", "n"):
            t.add_column(col)
        row = lambda name, e: t.add_row(name, _num(e["accuracy"]), _ci(e["ci"]), str(e["n"]))  # noqa: E731
        if doc["answered"]:
            row(f"jury ({doc['method']})", doc["jury"])
            if doc["coverage"] < 1:
                row("jury, answered only", doc["jury_answered"])
        else:
            t.add_row(f"jury ({doc['method']})", "answered no row", "", str(doc["jury"]["n"]))
        for m, e in doc["member_accuracy"].items():
            est = doc.get("estimated_accuracy", {}).get(m)
            row(m + (f"  (est. {est['value']:.3f})" if est else ""), e)
        con.print(t)
        vs = doc["vs_best_member"]
        if doc["answered"]:
            ci = f" [{vs['ci'][0]:+.3f}, {vs['ci'][1]:+.3f}] (paired bootstrap)" if vs["ci"] else ""
            con.print(f"jury - best member ({doc['best_member']['name']}): {vs['difference']:+.3f}{ci}")
        conf = doc.get("confidence", {})
        if "error_on_unlabeled" in conf:
            con.print(
                f"confidence calibrated on {conf['rows']} labels; expected calibration error on the rows "
                f"whose reference was not read {conf['error_on_unlabeled']:.3f}"
            )
    if "law" in doc:
        law = doc["law"]
        e = law["estimate"]
        con.print(
            f"[bold]law[/] a = {e['a']:.3f} [{e['a_ci'][0]:.3f}, {e['a_ci'][1]:.3f}], rho = {e['rho']:.3f} "
            f"[{e['rho_ci'][0]:.3f}, {e['rho_ci'][1]:.3f}], s = "
            + ", ".join(f"{s:.3f} [{c[0]:.3f}, {c[1]:.3f}]" for s, c in zip(e["s"], e["s_ci"]))
        )
        if "predicted" in law:
            t = Table(title=f"law vs panel (M = {e['M']})", title_justify="left")
            for col in ("quantity", "predicted", "observed"):
                t.add_column(col)
            for key in ("accuracy", "floor", "unanimous_rate", "unanimous_accuracy"):
                obs = law["observed"][key]
                t.add_row(key, f"{law['predicted'][key]:.4f}", "–" if obs is None else f"{obs:.4f}")
            con.print(t)
        f = law["fit"]
        con.print(
            f"fit (bins by members right): chi2 = {f['chi2']:.2f}, df = {f['df']}, p = {f['p_value']:.3g}, "
            f"bootstrap p = {f['p_bootstrap']:.3g}; all wrong {f['all_wrong']}, unanimous wrong {f['unanimous_wrong']} "
            f"(predicted share {f['unanimous_wrong_rate_predicted']:.4f})"
        )
    if "plan" in doc:
        t = Table(title=f"panel plan, budget {doc['plan']['budget']:g}", title_justify="left")
        for col in ("size", "members", "cost", "predicted acc"):
            t.add_column(col)
        for c in doc["plan"]["best_by_size"]:
            mark = " ◀" if c["members"] == doc["plan"]["best"]["members"] else ""
            t.add_row(
                str(c["size"]), ", ".join(c["members"]) + mark, f"{c['cost']:g}", f"{c['predicted_accuracy']:.4f}"
            )
        con.print(t)


def _num(x) -> str:
    return "–" if x is None else f"{x:.3f}"


def _ci(ci) -> str:
    return "–" if not ci else f"[{ci[0]:.3f}, {ci[1]:.3f}]"


def print_decision(con, doc: dict) -> None:
    """What decided: the label-free default and why it fell back, or what the labels taught."""
    from accord.cli.display import Table

    lf = doc.get("label_free")
    if "prior" in doc:
        con.print(
            "decided by the accuracy-weighted vote with the accuracies given by --prior: "
            + ", ".join(f"{m} {a:g}" for m, a in doc["prior"].items())
        )
    if "trust" in doc:
        con.print(
            f"decided by the trusted member {doc['trust']['member']} (the majority on the "
            f"{doc['trust']['majority_rows']} rows it did not answer)"
        )
    if lf:
        e = lf["estimated_best_member"]
        con.print(
            f"label-free: [bold yellow]cannot tell which member is best[/] without labels. The agreement model "
            f"estimates {e} best and the difficulty vote {lf['advantage']:+.3f} ahead of it, but "
            "weak members that share wrong answers agree like accurate ones, so these are not claims."
        )
        for reason in lf["reasons"][1:]:
            con.print(f"  and {reason}")
        if lf.get("label_rows"):
            ids = ", ".join(map(str, lf["label_rows"][:5])) + (", ..." if len(lf["label_rows"]) > 5 else "")
            con.print(
                f"about {lf['labels_needed']} labels would rank the members; the rows worth labelling first: {ids} "
                "(--ask-labels N --ask-out FILE writes them for you to fill in; --labels FILE reads them back)"
            )
    risk = doc.get("risk")
    if risk:
        head = (
            f"[bold]error <= {risk['alpha']:g}[/] with probability >= {1 - risk['delta']:g} ({risk['rule']}; "
            f"calibrated on {risk['calibration']}): "
        )
        if risk["threshold"] is None:
            con.print(head + f"[bold yellow]abstains on every row[/] (bound {risk['method']}): {risk['reason']}")
        else:
            con.print(
                head + f"answers rows with confidence >= {risk['threshold']:.3f} (bound {risk['method']}), "
                f"coverage {risk['coverage']:.1%}; on the labelled rows {risk['calibration_errors']} errors "
                f"in {risk['calibration_answered']}, upper bound on the error among answered rows {risk['bound']:.3f}"
            )
        if risk.get("unlabeled_rows"):
            real = f", realised error {risk['realised_error']:.3f}" if "realised_error" in risk else ""
            con.print(
                f"answered {risk['answered_unlabeled']} of the {risk['unlabeled_rows']} unlabelled rows "
                f"({risk['coverage_unlabeled']:.1%}){real}"
            )
    few = doc.get("few_label")
    if few:
        t = Table(
            title=f"learned from {few['labeled']} labels (prior strength {few['kappa']:.3g}); largest patterns",
            title_justify="left",
        )
        for col in ("classes", "problems", "labels per class", "trust"):
            t.add_column(col)
        for r in few["rules"][:8]:
            t.add_row(
                " | ".join(",".join(b) for b in r["classes"]),
                str(r["problems"]),
                str(r["counts"]),
                ",".join(r["trust"]),
            )
        con.print(t)
    un = doc.get("unlabeled")
    if un and un["rows"]:
        t = Table(
            title=f"on the {un['rows']} rows whose reference was not read (95% bootstrap CI)", title_justify="left"
        )
        for col in ("rule", "accuracy", "CI"):
            t.add_column(col)
        rows = [
            (f"jury ({doc['method']})", un["jury"]),
            ("jury, answered only", un.get("jury_answered")),
            (f"best member ({un['best_member']['name']}, by hindsight)", un["best_member"]),
            ("difficulty-class vote (label-free)", un.get("difficulty")),
            (f"best member on the labels ({un['best_member_on_labels']['name']})", un["best_member_on_labels"]),
            ("modal", un["modal"]),
            ("accuracy-weighted (accuracies from the labels)", un["accuracy_weighted"]),
            ("weighted (label-free)", un.get("weighted")),
            (f"label-free default ({un['label_free']['rule']})", un["label_free"]),
        ]
        for name, e in rows:
            if e is None:
                continue
            if e.get("note"):
                t.add_row(name, e["note"], "")
                continue
            t.add_row(name, _num(e["accuracy"]), _ci(e["ci"]))
        con.print(t)


def run(args: argparse.Namespace) -> int:
    if args.file == COLLECT:
        return run_collect(args)
    inputs = [args.file, *([args.questions] if args.questions else []), *args.more_logs]
    from_logs = any(Path(f).is_dir() or is_inspect_log(f) for f in inputs)  # inspect logs: a panel by model
    if (args.questions and not from_logs) or args.member:
        raise UserError(
            "a second file and --member belong to 'accord jury collect QUESTIONS.jsonl --member ... --out FILE'"
        )
    if args.out:
        writable_output(args.out, "--out", inputs=inputs)
    if (args.ask_labels is None) != (args.ask_out is None):
        raise UserError(
            "--ask-labels N and --ask-out FILE go together: how many rows to ask about, and where to write them"
        )
    if args.ask_out:
        writable_output(args.ask_out, "--ask-out", inputs=inputs)
    if args.prior is not None and args.trust is not None:
        raise UserError("--prior and --trust are two ways to say what you know about the members: give one")
    if args.format == "csv" and not args.out:
        raise UserError("--format csv is the format of --out FILE: give --out")
    if from_logs:
        from accord.verify.juries import read_inspect_panel

        logs = read_inspect_panel(inputs)
        panel = logs.panel
        for note in logs.notes():
            print(f"accord jury: {note}", file=sys.stderr)
    else:
        panel = read_panel_answers(args.file)
    if args.labels:
        panel, _ = apply_labels(panel, args.labels)
    if args.risk is not None and args.label_choice == "active":
        raise UserError(
            "--risk needs labelled rows drawn at random (--label-choice random): actively chosen rows are not a random "
            "sample, so no error rate can be certified on them"
        )
    if args.label_budget is not None and args.label_budget > len(panel.ids):
        raise UserError(f"--label-budget {args.label_budget} exceeds the {len(panel.ids)} rows of {args.file}")
    if args.plan is not None:  # checked before any work: planning scores every subset of the members
        if len(panel.members) > MAX_CANDIDATES:
            raise UserError(
                f"--plan: {args.file} has {len(panel.members)} members; planning scores every subset, "
                f"so it takes at most {MAX_CANDIDATES}"
            )
        _parse_costs(args.costs, panel.members)
    with progress_bar("jury", len(_stages(args)), args.quiet or args.json) as update:
        doc = build_document(args, panel, update)
    if from_logs:
        doc["inspect_logs"] = logs.report
    if args.ask_labels is not None:
        from accord.cli.commands._jury_labels import write_ask_file
        from accord.verify.juries import panel_classes

        classes = panel_classes(panel.answers, panel.references, args.equivalence, panel.problems)
        rows = ask_labels(classes.codes, args.ask_labels, classes, args.seed)
        write_ask_file(args.ask_out, panel, rows)
        doc["asked"] = {"file": str(args.ask_out), "rows": [panel.ids[i] for i in rows]}
    if args.out:
        text = (
            verdicts_csv(doc["verdicts"], panel.members)
            if args.format == "csv"
            else "".join(strict_json(v) + "\n" for v in doc["verdicts"])
        )
        write_text_atomic(args.out, text, "--out")
    if args.json:
        print(strict_json(doc, indent=1))
    else:
        print_report(doc)
    return 0
