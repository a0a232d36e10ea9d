"""``accord prove``: run the registered symbolic checks and the audit of the paper, print errata."""

from __future__ import annotations

import json
import sys

from accord.cli.options import positive_float
from accord.cli.progress import add_quiet, progress_bar
from accord.errors import UserError
from accord.proofs import checks, report, run_all

NAME = "prove"
HELP = "Prove the consensus core's properties symbolically and audit the VERDICT paper's claims"


def add_arguments(parser) -> None:
    parser.add_argument("--json", action="store_true", help="print a JSON document instead of tables")
    parser.add_argument(
        "--check", action="append", default=None, metavar="NAME", help="run only this check (repeatable)"
    )
    parser.add_argument(
        "--group", default=None, help="run only one group of checks (core, audit, or a group a *_checks module adds)"
    )
    parser.add_argument("--list", action="store_true", help="list the registered checks and exit")
    add_quiet(parser)
    parser.add_argument("--verbose", "-v", action="store_true", help="show each check's evidence")
    parser.add_argument(
        "--timeout",
        type=positive_float,
        default=None,
        metavar="SECONDS",
        help="run each check in a worker process killed after SECONDS (a check past it is FAILED)",
    )


_STYLE = {"PROVED": "green", "REFUTED": "yellow", "CHECKED-NUMERICALLY": "cyan", "FAILED": "bold red"}


def run(args) -> int:
    try:
        selected = checks(args.check, args.group)
    except ValueError as exc:
        raise UserError(f"--check: {exc}") from None
    if args.group is not None and not selected:
        groups = sorted({c.group for c in checks()})
        raise UserError(f"--group: no checks in group {args.group!r}; groups: {', '.join(groups)}")
    if args.list:
        for c in selected:
            print(f"{c.name}\t{c.group}\texpects {c.expect}\t{c.statement}")
        return 0
    if not selected:
        raise UserError("no checks selected")
    if args.timeout is not None and not args.timeout > 0:
        raise UserError(f"--timeout must be > 0 seconds, got {args.timeout}")
    with progress_bar("proving", len(selected), args.quiet) as update:
        outcomes = run_all([c.name for c in selected], timeout=args.timeout, progress=update)
    doc = report(outcomes)
    if args.json:
        json.dump(doc, sys.stdout, indent=2, ensure_ascii=False)
        sys.stdout.write("\n")
    else:
        _print(outcomes, doc, args.verbose)
    return 0 if doc["ok"] else 1


def _print(outcomes, doc, verbose: bool) -> None:
    from accord.cli.display import Table
    from accord.cli.display import console as make_console

    console = make_console()
    table = Table(title="accord prove — checks", show_lines=verbose)
    table.add_column("check", no_wrap=True)  # a name: kept whole, the statement wraps
    table.add_column("statement", overflow="fold", ratio=3)
    table.add_column("status")
    table.add_column("expected")
    table.add_column("result", overflow="fold", ratio=2)
    for o in outcomes:
        st = o.result.status
        detail = o.result.detail
        if verbose and o.result.evidence:
            detail += "\n" + "\n".join(f"• {e}" for e in o.result.evidence)
        mark = "" if o.ok else " ✗"
        table.add_row(o.check.name, o.check.statement, f"[{_STYLE[st]}]{st}[/]{mark}", o.check.expect, detail)
    console.print(table)
    if doc["errata"]:
        et = Table(title="errata — claims of the source that are false or misstated", show_lines=True)
        et.add_column("#", justify="right")
        et.add_column("claim", overflow="fold")
        et.add_column("correction", overflow="fold")
        for k, e in enumerate(doc["errata"], 1):
            et.add_row(str(k), e["claim"], e["correction"])
        console.print(et)
    bad = [o for o in outcomes if not o.ok]
    if bad:
        console.print(
            f"[bold red]{len(bad)} check(s) did not reach their expected status:[/] "
            + ", ".join(o.check.name for o in bad)
        )
    else:
        console.print(f"[green]all {len(outcomes)} checks reached their expected status[/]")
