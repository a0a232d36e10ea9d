"""``accord report RUN_DIR``: accuracy with intervals, rates, Δ* diagnostics, the paired test, replays."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from accord.cli.options import note_if_live
from accord.errors import UserError
from accord.verify.io import path_kind, writable_folder

NAME = "report"
HELP = "Evaluate a recorded run folder: accuracy with bootstrap intervals, diagnostics, replayed baselines."


def _resamples(text: str) -> int:
    """--bootstrap: 100 or more resamples (fewer cannot place a 95% interval's ends); one message for 0 and 1 alike."""
    try:
        x = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected an integer, got {text!r}") from None
    if x < 100:
        raise argparse.ArgumentTypeError(f"must be at least 100, got {text}")
    return x


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("run_dir", metavar="RUN_DIR", help="run folder holding trace.jsonl (and summary.json)")
    parser.add_argument("--json", action="store_true", help="print the report as JSON instead of tables")
    parser.add_argument("--bootstrap", type=_resamples, default=2000, metavar="B", help="bootstrap resamples, at least 100 (default 2000)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the bootstrap (default 0)")
    parser.add_argument("--replay", action="append", default=[], metavar="POLICY",
                        help="also replay this policy, e.g. verdict:tau=0.5,eps=0.2 or mean_preserving:lambdas=1,1,1 "
                             "(repeatable)")
    parser.add_argument("--out-dir", metavar="DIR",
                        help="write report.json and the plots here instead of RUN_DIR (created if missing)")


def run(args: argparse.Namespace) -> int:
    from accord.verify.analysis import parse_policy_spec, write_run_report

    run_dir = Path(args.run_dir)
    if path_kind(run_dir) != "folder":  # a symlink loop or an unreadable path is named by path_kind
        raise UserError(f"{run_dir}: not a run folder")

    try:
        extra = [parse_policy_spec(text) for text in args.replay]
    except ValueError as exc:
        raise UserError(f"--replay: {exc}") from None
    out_dir = writable_folder(args.out_dir) if args.out_dir else \
        writable_folder(run_dir, "RUN_DIR", hint="; pass --out-dir DIR to write report.json and the plots elsewhere")
    live = note_if_live(run_dir, NAME)
    try:
        report = write_run_report(run_dir, n_boot=args.bootstrap, seed=args.seed, extra_specs=extra, out_dir=out_dir)
    except ValueError as exc:
        raise UserError(f"{run_dir}: {exc}") from None
    if args.json:
        print(json.dumps({**report, "live": None if live is None else {"pid": live}}, indent=2))
    else:
        print_report(report, run_dir, out_dir)
    return 0


def _f(x, digits: int = 3) -> str:
    return "–" if x is None else f"{x:.{digits}f}"


def _ci(lo, hi) -> str:
    return "–" if lo is None or hi is None else f"[{lo:.3f}, {hi:.3f}]"


def print_report(report: dict, run_dir: Path, out_dir: Path | None = None) -> None:
    from accord.cli.display import Table, console

    con = console(140)
    con.print(f"[bold]{run_dir}[/bold]: {report['n_tasks']} tasks, chains {', '.join(report['chains'])}")
    for note in report["notes"]:
        con.print(f"[yellow]note:[/yellow] {note}")

    t = Table(title="Accuracy per recorded chain (95% bootstrap interval)")
    for col in ("chain", "tasks", "accuracy", "95% CI", "acceptance", "fallback", "failed scores"):
        t.add_column(col, justify="left" if col == "chain" else "right")
    for chain, a in report["accuracy"].items():
        r = report["rates"].get(chain, {})
        failed = f"{r['failed_scores']}/{r['scores']}" if r else "–"
        t.add_row(chain, str(a["n"]), _f(a["accuracy"]), _ci(a["ci_low"], a["ci_high"]),
                  _f(r.get("acceptance_rate")), _f(r.get("fallback_rate")), failed)
    con.print(t)

    t = Table(title="Replay on the recorded candidates (exact = chain stayed on recorded contexts)")
    for col in ("policy", "exact", "diverged", "accuracy (exact)", "95% CI", "bounds"):
        t.add_column(col, justify="left" if col == "policy" else "right")
    for row in report["replay"]:
        t.add_row(row["policy"], str(row["exact"]), str(row["diverged"]), _f(row["accuracy_exact"]),
                  _ci(row["ci_low"], row["ci_high"]), _ci(row["accuracy_low"], row["accuracy_high"]))
    con.print(t)

    rt = report["review_test"]
    t = Table(title="Paired test: VERDICT vs mean-preserving VERDICT vs Mean (tasks exact under both)")
    for col in ("comparison", "pairs", "first", "second", "difference", "95% CI", "McNemar b/c", "p"):
        t.add_column(col, justify="left" if col == "comparison" else "right")
    for key in ("verdict_vs_mean_preserving", "verdict_vs_mean", "mean_preserving_vs_mean"):
        c = rt[key]
        mc = c.get("mcnemar") or {}
        t.add_row(key.replace("_vs_", " vs "), str(c["n_pairs"]), _f(c["accuracy_first"]), _f(c["accuracy_second"]),
                  _f(c["difference"]), _ci(*(c["ci"] or (None, None))),
                  f"{mc.get('only_first_correct', '–')}/{mc.get('only_second_correct', '–')}", _f(mc.get("p_value")))
    con.print(t)
    rf = rt["rank_flips"]
    con.print(f"Best candidate by consensus mean differs from best by raw mean in {rf['flips']} of "
              f"{rf['contexts']} recorded contexts ({_f(rf['share'])}); where chains took both "
              f"({rf['flips_with_both_outcomes']}), the consensus pick reached the better answer "
              f"{rf['consensus_pick_better']} times, the raw-mean pick {rf['raw_pick_better']} times "
              f"(sign test p = {_f(rf['sign_test_p'])}).")

    t = Table(title=f"Δ* vs raw variance as predictors of a wrong answer (per candidate; τ = "
                    f"{report['thresholds']['tau']:g}, ε = {report['thresholds']['eps']:g})")
    for col in ("chain", "candidates", "AUC Δ*", "AUC raw var", "gap", "gap 95% CI (tasks)", "wrong|rejected",
                "wrong|accepted"):
        t.add_column(col, justify="left" if col == "chain" else "right")
    for chain, d in report["diagnostics"].items():
        t.add_row(chain, str(d["candidates"]), _f(d["auc_dispersion"]), _f(d["auc_raw_variance"]), _f(d["auc_gap"]),
                  _ci(*(d["auc_gap_ci"] or (None, None))), _f(d["wrong_rate_rejected"]), _f(d["wrong_rate_accepted"]))
    con.print(t)

    fid = report["fidelity"]
    if fid:
        parts = [f"{c}: {v['reproduced']}/{v['steps']}" for c, v in fid.items()]
        con.print("Recorded decisions reproduced by re-deciding: " + ", ".join(parts))
    tm = report["timing"]
    if tm["total_s"]:
        con.print(f"Recorded time: generation {_f(tm['generate_share'])}, judging {_f(tm['judge_share'])}, "
                  f"deciding {_f(tm['decide_share'])} of {tm['total_s']:.1f} s")
    out_dir = out_dir or run_dir
    con.print(f"Wrote {out_dir / 'report.json'}" + (f" and {', '.join(report['plots'])}" if report["plots"] else ""))
