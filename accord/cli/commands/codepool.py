"""``accord codepool``: selection policies on HumanEval's canonical solutions plus AST mutants."""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path

from accord.adapters import column_lambdas, judge_types
from accord.adapters.code import build_pool, evaluate_policies, pool_from_json, pool_to_json
from accord.cli.options import add_sandbox_flags, lambdas_flag, positive_int
from accord.cli.progress import add_quiet, progress_bar
from accord.consensus_core import list_policies
from accord.errors import UserError
from accord.verify.candidates import CODE_JUDGES, code_panel
from accord.verify.io import parse_json, read_text, writable_output, write_text_atomic
from accord.verify.tasks import load_humaneval

NAME = "codepool"
HELP = "Evaluate selection policies on a model-free code pool (HumanEval canonical solutions + AST mutants)."


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--limit", type=positive_int, default=None, help="first N problems (default: all 164)")
    p.add_argument("--ids", default=None, help="comma-separated problem ids, e.g. HumanEval/0,HumanEval/5")
    p.add_argument("--mutants", type=positive_int, default=5, help="mutants per problem (default 5)")
    p.add_argument("--seed", type=int, default=0, help="seed of the mutant choice and candidate order")
    p.add_argument(
        "--judges",
        default=",".join(CODE_JUDGES),
        help=f"code judge types, comma-separated (default: {','.join(CODE_JUDGES)}; code_llm adds the LLM code judges)",
    )
    p.add_argument("--policies", default=None, help="comma-separated policies (default: all)")
    p.add_argument(
        "--lambdas", default=None, help="stubbornness per judge column, comma-separated (default: each judge type's)"
    )
    p.add_argument("--probes", type=positive_int, default=12, help="probe inputs per problem for the consistency judge")
    add_sandbox_flags(p)
    p.add_argument("--save", default=None, help="write the scored pool (every raw score and label) to this JSON file")
    p.add_argument("--load", default=None, help="replay the policies on a pool saved with --save (no execution)")
    p.add_argument("--json", action="store_true", help="print one JSON document instead of a table")
    add_quiet(p)


def _positive(name: str, v: int | None) -> None:
    if v is not None and v < 1:
        raise UserError(f"--{name} must be >= 1, got {v}")


def _build(args) -> tuple[list, list[str]]:
    judges = [j.strip() for j in args.judges.split(",") if j.strip()]
    known = judge_types(family="code")  # the registry's code family: a new code judge type is a choice at once
    unknown = [j for j in judges if j not in known]
    if unknown or not judges:
        raise UserError(f"--judges: unknown judge(s) {unknown or '(none)'}; choose from {', '.join(known)}")
    try:
        tasks = load_humaneval(args.limit, [i.strip() for i in args.ids.split(",")] if args.ids else None)
    except ValueError as exc:
        raise UserError(str(exc)) from None
    panel = code_panel(judges, args.isolation, args.workers, args.probes)
    print(f"sandbox: {_describe(panel)}", file=sys.stderr)
    judges = list(panel.names)
    with progress_bar("scoring pool", len(tasks), args.quiet) as update:
        pool = build_pool(tasks, panel, args.mutants, args.seed, progress=update)
    return pool, judges


def _describe(panel) -> str:
    for g in panel.groups:
        runner = getattr(getattr(g, "judge", g), "runner", None)
        if runner is not None:
            return runner.sandbox.describe()
    return "not used"


def run(args: argparse.Namespace) -> int:
    _positive("limit", args.limit)
    _positive("probes", args.probes)
    if args.mutants < 1:
        raise UserError(f"--mutants must be >= 1, got {args.mutants}")
    if args.save:
        writable_output(args.save, "--save")
    if args.load:
        path = Path(args.load)
        try:
            pool, judges = pool_from_json(parse_json(read_text(path, "pool file"), str(path)))
        except (ValueError, json.JSONDecodeError) as exc:
            raise UserError(f"{path}: {exc}") from None
    else:
        pool, judges = _build(args)
        if args.save:
            write_text_atomic(args.save, json.dumps(pool_to_json(pool, judges)), "--save")
    policies = [p.strip() for p in args.policies.split(",")] if args.policies else list_policies()
    lambdas, _ = column_lambdas(judges, lambdas_flag(args.lambdas, len(judges)))  # by column name, never position
    try:
        results = evaluate_policies(pool, policies, lambdas)
    except ValueError as exc:
        raise UserError(f"--policies: {exc}") from None
    n_cands = sum(len(p.correct) for p in pool)
    n_correct = sum(sum(p.correct) for p in pool)
    doc = {
        "problems": len(pool),
        "candidates": n_cands,
        "correct_candidates": n_correct,
        "judges": judges,
        "results": [r.__dict__ for r in results],
    }
    if args.json:
        print(json.dumps(doc, indent=1))
    else:
        _print(doc)
    return 0


def _print(doc: dict) -> None:
    from accord.cli.display import Table
    from accord.cli.display import console as make_console

    console = make_console()
    console.print(
        f"[bold]{doc['problems']}[/] problems, {doc['candidates']} candidates "
        f"({doc['correct_candidates']} correct by the hidden tests); judges: {', '.join(doc['judges'])}"
    )
    t = Table(title="P(correct program picked), ties broken uniformly at random", title_justify="left")
    for col in ("policy", "accuracy", "95% CI", "lowest-index pick", "ties", "mixed ties"):
        t.add_column(col, justify="left" if col == "policy" else "right")
    for r in doc["results"]:
        ci = "-" if math.isnan(r["ci_low"]) else f"[{r['ci_low']:.3f}, {r['ci_high']:.3f}]"
        t.add_row(
            r["policy"],
            f"{r['accuracy']:.3f}",
            ci,
            f"{r['first_index_accuracy']:.3f}",
            f"{r['tie_rate']:.0%}",
            f"{r['mixed_tie_rate']:.0%}",
        )
    console.print(t)
