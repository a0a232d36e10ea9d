"""``accord consensus FILE``: decide every step of a table of raw judge scores."""

from __future__ import annotations

import argparse
import json
import math
from dataclasses import fields

from accord.cli.options import add_policy_flags, lambda_note, nonnegative_float, table_lambdas, unit_interval
from accord.cli.progress import add_quiet
from accord.cli.streaming import add_streaming_arguments, run_streaming, wants_streaming
from accord.consensus_core import ConsensusSpec, Decision, get_policy
from accord.errors import UserError
from accord.verify.tables import NAN_MODES, ScoreTable, read_influence, read_score_table

NAME = "consensus"
HELP = "Apply a decision policy to a table of raw judge scores (CSV, JSONL or Parquet)."


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("file", help="CSV (step,candidate,<judge>...) or JSONL ({step, candidate, scores}) of raw scores")
    add_policy_flags(p, "confidence threshold (default 0.6)", "dispersion tolerance (default 0.1)")
    p.add_argument(
        "--max-var",
        type=nonnegative_float,
        default=None,
        help="variance policy: largest raw variance accepted (default 0.01)",
    )
    p.add_argument("--seed", type=int, default=None, help="seed of the random and no_selection policies")
    p.add_argument(
        "--lambdas",
        default=None,
        help="stubbornness per judge in column order, e.g. 1.5,1.0,0.8 "
        "(default: by column name, a judge type's default, else 1.0)",
    )
    p.add_argument(
        "--influence", default=None, help="CSV of an m x m row-stochastic influence matrix W (zero diagonal)"
    )
    p.add_argument(
        "--nan",
        choices=NAN_MODES,
        default="error",
        help="a literal NaN score: error (default: one line naming file:line, exit 2) or failed "
        "(a failed judge, like an empty cell)",
    )
    p.add_argument(
        "--calibration",
        metavar="MODE|FILE",
        default=None,
        help="put the judges on one scale first: quantile, agreement, standardize (fitted label-free on "
        "this table) or a saved calibration.json (see docs/step-loop.md)",
    )
    p.add_argument(
        "--target-accept",
        type=unit_interval,
        default=None,
        metavar="RATE",
        help="with --calibration: tau, eps set on the scale so that this share of candidates is accepted",
    )
    p.add_argument("--save-calibration", metavar="FILE", default=None, help="write the fitted judge scale here")
    p.add_argument("--json", action="store_true", help="print one JSON document instead of tables")
    add_quiet(p)
    add_streaming_arguments(p)


def build_policy(args: argparse.Namespace, table: ScoreTable):
    """(policy, the panel's ConsensusSpec, the λ note or None) for the table's columns."""
    lam, defaulted = table_lambdas(args.lambdas, table.judges)
    W = read_influence(args.influence, table.judges) if args.influence else None
    try:
        spec = ConsensusSpec(lam, W)
    except ValueError as exc:
        raise UserError(f"--influence: {exc}") from None
    given = {"tau": args.tau, "eps": args.eps, "max_var": args.max_var, "seed": args.seed}
    try:
        cls = type(get_policy(args.policy))
        accepted = {f.name for f in fields(cls)}
        params = {k: v for k, v in given.items() if v is not None}
        unused = sorted(k for k in params if k not in accepted)
        if unused:
            raise UserError(
                f"policy {args.policy!r} does not use {', '.join('--' + u.replace('_', '-') for u in unused)}"
            )
        return get_policy(args.policy, **params), spec, lambda_note(defaulted)
    except ValueError as exc:
        raise UserError(str(exc)) from None


def _num(x) -> float | None:
    x = float(x)
    return None if math.isnan(x) else round(x, 12)


def to_document(table: ScoreTable, decision: Decision, policy, spec: ConsensusSpec, note: str | None) -> dict:
    st = decision.stats
    steps = []
    for s, step in enumerate(table.steps):
        cands = []
        for c, cand in enumerate(table.candidates[s]):
            cands.append(
                {
                    "candidate": cand,
                    "raw": [_num(v) for v in st.raw[s, c]],
                    "consensus": [_num(v) for v in st.consensus[s, c]],
                    "mean": _num(st.mean[s, c]),
                    "dispersion": _num(st.dispersion[s, c]),
                    "weighted_mean": _num(st.weighted_mean[s, c]),
                    "raw_mean": _num(st.raw_mean[s, c]),
                    "raw_mad": _num(st.raw_mad[s, c]),
                    "raw_var": _num(st.raw_var[s, c]),
                    "n_scored": int(st.n_scored[s, c]),
                    "accepted": bool(decision.accepted[s, c]),
                }
            )
        chosen = int(decision.chosen[s])
        steps.append(
            {
                "step": step,
                "chosen": table.candidates[s][chosen] if chosen >= 0 else None,
                "fallback": bool(decision.fallback[s]),
                "candidates": cands,
            }
        )
    return {
        "policy": {"name": policy.name, **policy.params()},
        "judges": list(table.judges),
        "lambdas": list(spec.lambdas),
        "lambda_note": note,
        "steps": steps,
    }


def print_consensus(doc: dict) -> None:
    from accord.cli.display import Table
    from accord.cli.display import console as make_console

    console = make_console()
    judges = doc["judges"]
    lam = ", ".join(f"{j}={v:g}" for j, v in zip(judges, doc["lambdas"]))
    params = ", ".join(f"{k}={v}" for k, v in doc["policy"].items() if k != "name")
    console.print(f"[bold]policy[/] {doc['policy']['name']} ({params})   [bold]λ[/] {lam}")
    if doc["lambda_note"]:
        console.print(f"note: {doc['lambda_note']}", highlight=False)
    for step in doc["steps"]:
        t = Table(title=f"step {step['step']}" + ("  (fallback)" if step["fallback"] else ""), title_justify="left")
        t.add_column("cand")
        t.add_column("raw")
        t.add_column("s*")
        t.add_column("s̄*", justify="right")
        t.add_column("Δ*", justify="right")
        t.add_column("acc")
        t.add_column("pick")
        fmt = lambda xs: " ".join("–" if v is None else f"{v:.3f}" for v in xs)  # noqa: E731
        for c in step["candidates"]:
            t.add_row(
                c["candidate"],
                fmt(c["raw"]),
                fmt(c["consensus"]),
                "–" if c["mean"] is None else f"{c['mean']:.3f}",
                "–" if c["dispersion"] is None else f"{c['dispersion']:.3f}",
                "yes" if c["accepted"] else "no",
                "◀" if c["candidate"] == step["chosen"] else "",
            )
        console.print(t)


def consensus_scale(args: argparse.Namespace, table: ScoreTable, spec: ConsensusSpec):
    """The judge scale asked for (None without --calibration): fitted on the table's scores or loaded."""
    from accord.verify.loop import LABEL_FREE, JudgeScale, load_scale, save_scale

    if args.calibration is None:
        if args.target_accept is not None or args.save_calibration is not None:
            raise UserError("--target-accept and --save-calibration need --calibration")
        return None
    rows = table.raw[table.present]
    try:
        if args.calibration in LABEL_FREE:
            scale = JudgeScale(args.calibration, table.judges).fit(rows)
            scale.source = f"label-free: the {len(rows)} candidates of {args.file}"
        else:
            scale = load_scale(args.calibration).for_judges(table.judges)
        if args.target_accept is not None:
            scale.set_thresholds(rows, spec, target_rate=args.target_accept)
        if args.save_calibration:
            save_scale(args.save_calibration, scale)
    except (ValueError, OSError) as exc:
        raise UserError(f"--calibration {args.calibration}: {exc}") from None
    return scale


def run(args: argparse.Namespace) -> int:
    if wants_streaming(args):
        if getattr(args, "calibration", None) is not None:
            raise UserError("--calibration reads the whole table (fit, then decide): drop the streaming options")
        return run_streaming(args, build_policy)
    table = read_score_table(args.file, args.nan)
    policy, spec, note = build_policy(args, table)
    scale = consensus_scale(args, table, spec)
    if scale is not None and scale.thresholds is not None and hasattr(policy, "tau"):
        from dataclasses import replace

        policy = replace(policy, tau=scale.thresholds["tau"], eps=scale.thresholds["eps"])
    try:
        decision = policy.decide(table.raw if scale is None else scale.apply(table.raw), spec)
    except ValueError as exc:
        raise UserError(f"{args.file}: {exc}") from None
    doc = to_document(table, decision, policy, spec, note)
    if scale is not None:
        doc["calibration"] = scale.as_dict()
    # padding slots (steps with fewer candidates) are dropped by to_document; their NaN rows never win
    if args.json:
        print(json.dumps(doc, indent=1))
    else:
        print_consensus(doc)
    return 0
