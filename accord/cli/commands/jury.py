"""``accord jury FILE``: parse the options, run the jury of :mod:`accord.verify.juries`, write and print."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from accord.cli.commands._jury_collect import WORD as COLLECT
from accord.cli.commands._jury_collect import add_collect_arguments, add_collect_help, run_collect
from accord.cli.options import nonnegative_int, positive_float, positive_int, resamples, unit_interval
from accord.cli.progress import add_quiet, progress_bar
from accord.consensus_core.jury import CANDIDATE_SHARE, MAX_CANDIDATES, RISK_BOUNDS
from accord.errors import UserError
from accord.verify.io import is_inspect_log, read_panel_answers, writable_output, write_text_atomic


def open_unit(text: str) -> float:
    """A number strictly between 0 and 1 (an error rate, a failure probability)."""
    try:
        x = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number in (0, 1), got {text!r}") from None
    if not 0 < x < 1:
        raise argparse.ArgumentTypeError(f"expected a number in (0, 1), got {text!r}")
    return x


def share(text: str) -> float:
    """A share of the rows in (0, 1]."""
    try:
        x = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a share of the rows in (0, 1], got {text!r}") from None
    if not 0 < x <= 1:
        raise argparse.ArgumentTypeError(f"expected a share of the rows in (0, 1], got {text!r}")
    return x


NAME = "jury"
HELP = "Jury over a panel's answers (JSONL): answer classes, label-free or few-label decisions, accuracy, the jury law."
# accord.verify.juries.METHODS and accord.consensus_core.jury.LABEL_CHOICES, named here so that
# building the parser does not import the jury (tests/test_architecture.py keeps them equal)
METHODS = ("auto", "modal", "weighted", "dawid-skene", "difficulty", "best-member")
LABEL_CHOICES = ("mixed", "active", "random")


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
        help="auto: the few-label jury, which learns from every row with a reference, or the label-free default "
        "where no row has one; the others are label-free rules the references only measure (default auto)",
    )
    p.add_argument(
        "--label-budget",
        type=nonnegative_int,
        default=None,
        metavar="N",
        help="read the references of only N rows, learn from them, measure on the rest (0: the label-free default, "
        "measured on every row)",
    )
    p.add_argument(
        "--label-choice",
        choices=LABEL_CHOICES,
        default=None,
        help="which rows --label-budget and --ask-labels take: mixed (half at random, half where labels change "
        "decisions most), active or random (default mixed; random with --risk)",
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
        help="with --risk: the test of each threshold. hypergeometric: exact for the rows of the file, labelled "
        "without replacement (default); binomial: exact binomial p-values; hb: Hoeffding-Bentkus p-values (all "
        "three from the deepest start that tolerates errors); clopper-pearson: exact binomial p-values from the "
        "fewest rows that could certify (the first rule)",
    )
    p.add_argument(
        "--risk-candidates",
        type=share,
        default=CANDIDATE_SHARE,
        metavar="SHARE",
        help="with --risk and --label-budget: the labels are drawn among, and the rule answers at most, this share "
        f"of the rows, the most confident first (default {CANDIDATE_SHARE:g})",
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
        help="member accuracies you know (a leaderboard, earlier labels), every member named: the jury is the "
        "accuracy-weighted vote with them (references then only measure it)",
    )
    p.add_argument(
        "--trust",
        default=None,
        metavar="MEMBER",
        help="a member you trust: the jury gives its answer (the majority where it gave none; references then only "
        "measure it)",
    )
    p.add_argument(
        "--ask-labels",
        type=positive_int,
        default=None,
        metavar="N",
        help="write N rows without a reference whose labels are worth most (--label-choice) to --ask-out for a "
        "person to fill in 'reference'",
    )
    p.add_argument("--ask-out", default=None, metavar="FILE", help="with --ask-labels: the JSONL file of rows to label")
    p.add_argument(
        "--labels",
        default=None,
        metavar="FILE",
        help='JSONL of {"id", "reference"} (a filled --ask-out file): those rows get their reference, and the '
        "jury learns from every row that has one",
    )
    p.add_argument(
        "--out",
        default=None,
        help="write one line per problem (answer, agreement, confidence, abstained, tie, labeled) to this file; with "
        "collect: the jury file to write (or resume)",
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


def _inputs(args: argparse.Namespace) -> list[str]:
    """The files the command reads: one JSONL file, or inspect logs (several files, or a folder)."""
    return [args.file, *([args.questions] if args.questions else []), *args.more_logs]


def _from_logs(args: argparse.Namespace) -> bool:
    return any(Path(f).is_dir() or is_inspect_log(f) for f in _inputs(args))  # inspect logs: a panel by model


def _check(args: argparse.Namespace) -> None:
    """Option combinations refused before any file is read."""
    if (args.questions and not _from_logs(args)) or args.member:
        raise UserError(
            "a second file and --member belong to 'accord jury collect QUESTIONS.jsonl --member ... --out FILE'"
        )
    if args.out:
        writable_output(args.out, "--out", inputs=_inputs(args))
    if (args.ask_labels is None) != (args.ask_out is None):
        raise UserError(
            "--ask-labels N and --ask-out FILE go together: how many rows to ask about, and where to write them"
        )
    if args.ask_out:
        writable_output(args.ask_out, "--ask-out", inputs=_inputs(args))
    if args.prior is not None and args.trust is not None:
        raise UserError("--prior and --trust are two ways to say what you know about the members: give one")
    if args.format == "csv" and not args.out:
        raise UserError("--format csv is the format of --out FILE: give --out")
    if args.risk is not None and args.label_choice not in (None, "random"):
        raise UserError(
            "--risk needs labelled rows drawn at random (--label-choice random): rows chosen for what their labels "
            "teach are not a random sample, so no error rate can be certified on them"
        )


def settings_of(args: argparse.Namespace, members: list[str]):
    from accord.verify.juries import JurySettings, member_index, parse_costs, parse_prior

    if args.costs is not None:
        parse_costs(args.costs, members)  # a bad member or cost is refused before any work
    return JurySettings(
        file=str(args.file),
        method=args.method,
        equivalence=args.equivalence,
        label_budget=args.label_budget,
        label_choice=args.label_choice,
        risk=args.risk,
        delta=args.delta,
        risk_bound=args.risk_bound,
        risk_candidates=args.risk_candidates,
        min_agreement=args.min_agreement,
        seed=args.seed,
        check_law=args.check_law,
        attractors=args.attractors,
        plan=args.plan,
        costs=args.costs,
        n_boot=args.n_boot,
        prior=parse_prior(args.prior, members) if args.prior is not None else None,
        trust=member_index(args.trust, members, "--trust") if args.trust is not None else None,
    )


def note(text: str) -> None:
    """A line for the person at the terminal (stderr), never mixed into --json."""
    print(f"accord jury: {text}", file=sys.stderr, flush=True)


def run(args: argparse.Namespace) -> int:
    if args.file == COLLECT:
        return run_collect(args)
    _check(args)
    from accord.verify.juries import (
        apply_labels,
        ask_rows,
        jury_report,
        stages,
        strict_json,
        verdicts_csv,
        write_ask_file,
    )

    logs = None
    if _from_logs(args):
        from accord.verify.juries import read_inspect_panel

        logs = read_inspect_panel(_inputs(args))
        panel = logs.panel
        for line in logs.notes():
            note(line)
    else:
        panel = read_panel_answers(args.file)
    labels_read = None
    if args.labels:
        panel, labels_read = apply_labels(panel, args.labels)
    if args.label_budget is not None and args.label_budget > len(panel.ids):
        raise UserError(f"--label-budget {args.label_budget} exceeds the {len(panel.ids)} rows of {args.file}")
    if args.plan is not None and len(panel.members) > MAX_CANDIDATES:  # planning scores every subset
        raise UserError(
            f"--plan: {args.file} has {len(panel.members)} members; planning scores every subset, "
            f"so it takes at most {MAX_CANDIDATES}"
        )
    settings = settings_of(args, panel.members)
    with progress_bar("jury", len(stages(settings)), args.quiet or args.json) as update:
        report = jury_report(settings, panel, update)
    doc = report.doc
    if logs is not None:
        doc["inspect_logs"] = logs.report
    if labels_read is not None:
        doc["labels_file"] = labels_read.as_dict()
    if args.ask_labels is not None:
        classes = report.classes
        open_rows = int((~classes.has_reference).sum())
        choice = args.label_choice or "mixed"
        if not open_rows:
            doc["asked"] = {"file": None, "rows": [], "choice": choice, "note": "every row has a reference"}
            note(
                f"nothing to ask: every row of {args.file} has a reference (they are its labels); "
                f"{args.ask_out} not written"
            )
        else:
            rows = ask_rows(classes.codes, args.ask_labels, classes, args.seed, choice)
            write_ask_file(args.ask_out, panel, rows)
            doc["asked"] = {"file": str(args.ask_out), "rows": [panel.ids[i] for i in rows], "choice": choice}
            note(
                f"wrote {len(rows)} rows to label ({choice} choice, of the {open_rows} without a reference) to "
                f"{args.ask_out}: fill in 'reference', then run again with --labels {args.ask_out}"
            )
    if args.out:
        text = (
            verdicts_csv(doc["verdicts"], panel.members)
            if args.format == "csv"
            else "".join(strict_json(v) + "\n" for v in doc["verdicts"])
        )
        write_text_atomic(args.out, text, "--out")
        marked = sum(v["labeled"] for v in doc["verdicts"])
        note(
            f"wrote {len(doc['verdicts'])} rows ({args.format}) to {args.out}"
            + (f"; {marked} labelled rows marked 'labeled'" if marked else "")
        )
    if args.json:
        print(strict_json(doc, indent=1))
    else:
        from accord.cli.commands._jury_print import print_report

        print_report(doc)
    return 0
