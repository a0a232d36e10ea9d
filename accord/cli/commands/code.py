"""``accord code CANDIDATES --tests TESTS``: your own code candidates through the sandboxed code judges."""

from __future__ import annotations

import argparse
import json
import sys

from accord.cli.options import add_policy_flags, add_sandbox_flags, lambdas_flag, positive_int
from accord.cli.progress import add_quiet, progress_bar
from accord.consensus_core import ConsensusSpec
from accord.errors import UserError
from accord.verify.candidates import CODE_JUDGES, check_candidates, code_panel, read_candidates, read_code_tests
from accord.verify.io import writable_output, write_text_atomic

NAME = "code"
HELP = "Check your own code candidates (JSONL) against tests in the sandbox with the code judges and a policy."


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("candidates", metavar="CANDIDATES", help='JSONL: {"task_id", "code", "id"?} per candidate')
    p.add_argument(
        "--tests",
        required=True,
        metavar="TESTS",
        help='JSONL, one line per task: {"task_id", "entry_point", "tests": pytest-style asserts or test_ '
        'functions, and/or "check": a HumanEval-style check(candidate), "prompt"?}',
    )
    p.add_argument(
        "--judges", default=",".join(CODE_JUDGES), help=f"panel, from {', '.join(CODE_JUDGES)} (default: all three)"
    )
    add_policy_flags(p, "confidence threshold (policies with tau)", "dispersion tolerance (policies with eps)")
    p.add_argument(
        "--lambdas",
        default=None,
        help="stubbornness per judge, in --judges order (default: each judge type's registered λ)",
    )
    p.add_argument(
        "--probes", type=positive_int, default=12, help="probe inputs per task for the consistency judge (default 12)"
    )
    add_sandbox_flags(p)
    p.add_argument(
        "--out", default=None, help="write one JSON line per candidate (scores, reasons, verdict) to this file"
    )
    p.add_argument(
        "--format",
        choices=("jsonl", "csv"),
        default="jsonl",
        help="format of --out: jsonl (default, nested) or csv (flat: one row per candidate, a score_ and "
        "reason_ column per judge); csv without --out prints the CSV instead of the table",
    )
    p.add_argument("--json", action="store_true", help="print one JSON document instead of a table")
    add_quiet(p)


def _fmt(v) -> str:
    return "–" if v is None else f"{v:.2f}"


def print_table(doc: dict) -> None:
    from rich.markup import escape

    from accord.cli.display import Table, console

    con = console()
    judges = doc["judges"]
    params = ", ".join(f"{k}={v}" for k, v in doc["policy"].items() if k != "name")
    lam = ", ".join(f"{j}={v:g}" for j, v in zip(judges, doc["lambdas"]))
    t = Table(title=f"accord code — policy {doc['policy']['name']} ({params}), λ {lam}", title_justify="left")
    for col in ("task", "candidate", *judges, "s̄*", "Δ*", "verdict"):
        t.add_column(col, justify="right" if col in judges or col in ("s̄*", "Δ*") else "left")
    colour = {True: "green", False: "red"}
    for task in doc["tasks"]:
        for i, c in enumerate(task["candidates"]):
            verdict = f"[{colour[c['accepted']]}]{'accepted' if c['accepted'] else 'rejected'}[/]" + (
                " ◀" if c["picked"] else ""
            )
            t.add_row(
                escape(task["task_id"]) if i == 0 else "",
                escape(c["id"]),
                *[_fmt(c["scores"][j]) for j in judges],
                _fmt(c["mean"]),
                _fmt(c["dispersion"]),
                verdict,
                end_section=i == len(task["candidates"]) - 1,
            )
    con.print(t)
    con.print("◀ the task's pick (accepted, or when none is, the policy's fallback ranking)")
    n = len(doc["tasks"])
    fell = [t["task_id"] for t in doc["tasks"] if t["fallback"] or t["picked"] is None]
    con.print(
        f"{n} tasks, {sum(len(t['candidates']) for t in doc['tasks'])} candidates: an accepted pick in "
        f"{doc['accepted_picks']} of {n}"
        + (f"; no candidate accepted in {', '.join(fell)} (pick by fallback)" if fell else "")
    )


def candidates_csv(rows: list[dict], judges) -> str:
    """The candidates as a flat table: one row per candidate, a score and a reason column per judge."""
    import csv
    import io

    head = ["task_id", "id", "line", "picked", "accepted", "fallback", "mean", "dispersion"]
    fields = head + [f"score_{j}" for j in judges] + [f"reason_{j}" for j in judges]
    buf = io.StringIO()
    writer = csv.DictWriter(buf, fieldnames=fields, lineterminator="\n")
    writer.writeheader()
    for r in rows:
        flat = {k: r.get(k) for k in head}
        flat.update({f"score_{j}": (r.get("scores") or {}).get(j) for j in judges})
        flat.update({f"reason_{j}": (r.get("reasons") or {}).get(j) for j in judges})
        writer.writerow(flat)
    return buf.getvalue()


def run(args: argparse.Namespace) -> int:
    if args.out:
        writable_output(args.out, "--out")
    if args.format == "csv" and args.json and not args.out:
        raise UserError("--format csv without --out prints the CSV to stdout; --json would too: give --out")
    names = [j.strip() for j in args.judges.split(",") if j.strip()]
    unknown = [j for j in names if j not in CODE_JUDGES]
    if unknown or len(names) < 2 or len(set(names)) != len(names):
        raise UserError(
            f"--judges: give at least two distinct judges from {', '.join(CODE_JUDGES)}, got {args.judges!r}"
        )
    candidates = read_candidates(args.candidates)
    specs = read_code_tests(args.tests)
    missing = sorted({c.task_id for c in candidates} - specs.keys())
    if missing:
        raise UserError(f"{args.candidates}: no tests in {args.tests} for task(s) {', '.join(map(repr, missing[:5]))}")
    params = {k: v for k, v in (("tau", args.tau), ("eps", args.eps)) if v is not None}
    panel = code_panel(names, args.isolation, args.workers, args.probes)
    lam = lambdas_flag(args.lambdas, len(panel.names))
    consensus = panel.consensus if lam is None else ConsensusSpec(lam)
    tasks = len({c.task_id for c in candidates})
    try:
        with progress_bar("judging tasks", tasks, args.quiet or args.json) as update:
            doc = check_candidates(candidates, specs, panel, args.policy, consensus, progress=update, **params)
    except (ValueError, KeyError) as exc:
        raise UserError(str(exc.args[0]) if exc.args else str(exc)) from None
    rows = [{"task_id": t["task_id"], **c, "fallback": t["fallback"]} for t in doc["tasks"] for c in t["candidates"]]
    if args.out:
        text = (
            candidates_csv(rows, panel.names)
            if args.format == "csv"
            else "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows)
        )
        write_text_atomic(args.out, text, "--out")
    elif args.format == "csv":
        sys.stdout.write(candidates_csv(rows, panel.names))
        return 0 if doc["accepted_picks"] == len(doc["tasks"]) else 1
    if args.json:
        json.dump(doc, sys.stdout, indent=1, ensure_ascii=False)
        sys.stdout.write("\n")
    else:
        print_table(doc)
    # 1: some task has no accepted candidate (its pick is a fallback), as `accord check` fails on an invalid line
    return 0 if doc["accepted_picks"] == len(doc["tasks"]) else 1
