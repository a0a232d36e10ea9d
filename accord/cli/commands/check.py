"""``accord check DERIVATION``: verify a derivation step by step with the math judges."""

from __future__ import annotations

import dataclasses
import json
import sys

from accord.cli.options import lambdas_flag, positive_float, unit_interval
from accord.cli.progress import add_quiet, progress_bar
from accord.errors import UserError
from accord.verify.io import read_derivation

NAME = "check"
HELP = "Check a derivation (text or Markdown, one step per line) with symbolic, numeric and arithmetic judges"
DEFAULT_JUDGES = ("symbolic", "numeric", "arithmetic")  # the default panel: the math family but the final-answer judge
FAMILY = "math"  # --judges chooses among the judge registry's math types


def add_arguments(parser) -> None:
    parser.add_argument("derivation", help="a .txt or .md file, one step per line")
    parser.add_argument("--json", action="store_true", help="print a JSON document instead of a table")
    parser.add_argument("--policy", default="verdict", help="decision rule (default: verdict)")
    parser.add_argument(
        "--judges",
        default=",".join(DEFAULT_JUDGES),
        help=f"comma-separated judge types of the math family, e.g. {','.join(DEFAULT_JUDGES)},final_answer "
        "(default: all but final_answer)",
    )
    parser.add_argument(
        "--lambdas", default=None, help="stubbornness per judge, comma-separated (default: each judge type's, 1 each)"
    )
    parser.add_argument("--tau", type=unit_interval, default=None, help="confidence threshold (policies with tau)")
    parser.add_argument("--eps", type=unit_interval, default=None, help="dispersion tolerance (policies with eps)")
    parser.add_argument("--answer", default=None, help="reference final answer (adds the final_answer judge)")
    parser.add_argument(
        "--timeout", type=positive_float, default=10.0, help="seconds per symbolic/numeric check (default 10)"
    )
    parser.add_argument(
        "--seed", type=int, default=0, help="seed of the math judges' sample points (numeric, symbolic)"
    )
    add_quiet(parser)
    parser.add_argument(
        "--mode",
        choices=("derivation", "solution"),
        default="derivation",
        help="derivation: every equation must hold or follow from the lines before (default); "
        "solution: read lines as a written solution, an equation may state a fact",
    )


def _judges(args):
    from accord.adapters import build_judges, judge_type, judge_types, parse_judge

    if not args.timeout > 0:
        raise UserError(f"--timeout must be > 0 seconds, got {args.timeout}")
    names = [n.strip() for n in args.judges.split(",") if n.strip()]
    if args.answer is not None and "final_answer" not in names:
        names.append("final_answer")
    known = judge_types(family=FAMILY)  # a new math judge type is a choice at once
    unknown = [n for n in names if n not in known]
    if unknown:
        raise UserError(f"--judges: unknown judge(s) {', '.join(unknown)}; choose from {', '.join(known)}")
    if len(set(names)) != len(names):
        raise UserError(f"--judges: a judge is named twice in {args.judges!r}")
    if len(names) < 2:
        raise UserError("--judges: a consensus needs at least 2 judges")
    if "final_answer" in names and args.answer is None:
        raise UserError("--judges: final_answer needs --answer REFERENCE")
    flags = {"timeout": args.timeout, "mode": args.mode, "seed": args.seed, "reference": args.answer}
    entries = []
    for n in names:  # each type takes the flags its spec has an option for
        options = {f.name for f in dataclasses.fields(judge_type(n).spec)}
        entries.append(parse_judge({"type": n, **{k: v for k, v in flags.items() if k in options}}, f"--judges {n}"))
    built = build_judges(entries)
    return [b.judge for b in built], tuple(x for b in built for x in b.lambdas)


def _fmt(v) -> str:
    return "—" if v is None else f"{v:.3f}"


def _print_table(report) -> None:
    from accord.cli.display import Table
    from accord.cli.display import console as make_console

    colour = {"valid": "green", "invalid": "bold red", "unchecked": "dim"}
    table = Table(title=f"{report.source} — policy {report.policy}")
    table.add_column("step", justify="right")  # numbered from 1, as in accord verify and accord view
    table.add_column("line", justify="right")
    table.add_column("text", overflow="fold", max_width=60)
    for j in report.judges:
        table.add_column(j, justify="right")
    table.add_column("s̄*", justify="right")
    table.add_column("Δ*", justify="right")
    table.add_column("verdict")
    for k, s in enumerate(report.steps, 1):
        text = s.text if s.kind != "unread" else f"{s.text} [dim](not read: {next(iter(s.reasons.values()))})[/]"
        row = [str(k), str(s.line), text] + [_fmt(s.scores[j]) for j in report.judges]
        row += [_fmt(s.mean), _fmt(s.dispersion), f"[{colour[s.verdict]}]{s.verdict}[/]"]
        table.add_row(*row)
    console = make_console()
    console.print(table)
    fi = report.first_invalid
    if not report.checked:
        console.print(f"[yellow]no line could be checked[/] ({len(report.steps)} line(s), all unread or premises)")
    elif fi is None:
        console.print("[green]no invalid step[/]")
    else:
        console.print(
            f"[bold red]first invalid step: {report.steps.index(fi) + 1} (line {fi.line})[/] ({fi.text}) — "
            f"{report.first_invalid_reason()}"
        )


def run(args) -> int:
    from accord.verify.analysis import check_derivation

    lines = read_derivation(args.derivation)
    judges, defaults = _judges(args)
    lam = lambdas_flag(args.lambdas, len(judges)) or defaults
    params = {k: v for k, v in (("tau", args.tau), ("eps", args.eps)) if v is not None}
    try:
        with progress_bar("checking lines", quiet=args.quiet) as update:
            report = check_derivation(
                lines, judges, policy=args.policy, lambdas=lam, source=args.derivation, progress=update, **params
            )
    except ValueError as exc:
        raise UserError(str(exc)) from exc
    if args.json:
        json.dump(report.as_dict(), sys.stdout, indent=2, ensure_ascii=False)
        sys.stdout.write("\n")
    else:
        _print_table(report)
    # 1: the derivation is not shown valid (an invalid step, or no line could be checked at all)
    return 1 if report.first_invalid is not None or not report.checked else 0
