"""``accord report RUN_DIR``: accuracy with intervals, rates, Δ* diagnostics, the paired test, replays."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from accord.cli.options import bounded, note_if_live, output_folder
from accord.errors import UserError
from accord.verify.io import path_kind, writable_output
from accord.verify.loop import BASE

NAME = "report"
HELP = "Evaluate a recorded run folder: accuracy with bootstrap intervals, diagnostics, replayed baselines."


# --bootstrap: fewer resamples cannot place a 95% interval's ends; one message for 0 and 1 alike
_resamples = bounded(int, lambda x: x >= 100, "at least 100")
_rate = bounded(float, lambda x: 0 < x <= 1, "in (0, 1]")


def calibration_section(run_dir: Path, text: str, target_rate: float | None, save: str | None = None) -> dict:
    """The run replayed with its judges on one scale (accord.verify.analysis.calibrated_replay)."""
    from accord.verify.analysis import calibrated_replay, clean, fit_scale_on_trace, read_trace, resolve_trace
    from accord.verify.loop import LABEL_FREE, JudgeScale, load_scale, save_scale

    trace = read_trace(resolve_trace(run_dir))
    if not trace.steps:
        raise UserError(f"{run_dir}: the trace has no step records to replay")
    # the run's tasks label the candidates that end a chain (platt) and score replayed chains that end
    # on a candidate no recorded chain took; without them (no config.yaml) only platt is refused
    try:
        tasks, is_final = run_tasks(run_dir)
    except UserError:
        if text == "platt":
            raise
        tasks = is_final = None
    try:
        if text == "platt" or text in LABEL_FREE:
            scale = fit_scale_on_trace(trace, text, tasks=tasks, is_final=is_final)
            scale.source += f" ({run_dir})"  # a saved fit names the run it came from wherever it is used
        else:
            scale = load_scale(text)
        section = calibrated_replay(trace, scale, target_rate=target_rate, tasks=tasks, is_final=is_final)
        if save:  # with the thresholds --target-accept set on it
            save_scale(save, JudgeScale.from_dict(section["scale"]))
        return clean(section)
    except ValueError as exc:
        raise UserError(f"--calibration {text}: {exc}") from None


def run_tasks(run_dir: Path):
    """The run's tasks by id (drawn again from its config.yaml) and its generator's end-of-answer rule."""
    from accord.verify.run import ends_answer, load_run_config, load_task_list

    cfg = load_run_config(run_dir)
    return {t.id: t for t in load_task_list(cfg.task)}, ends_answer(cfg)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("run_dir", metavar="RUN_DIR", help="run folder holding trace.jsonl (and summary.json)")
    parser.add_argument("--json", action="store_true", help="print the report as JSON instead of tables")
    parser.add_argument(
        "--bootstrap",
        type=_resamples,
        default=2000,
        metavar="B",
        help="bootstrap resamples, at least 100 (default 2000)",
    )
    parser.add_argument("--seed", type=int, default=0, help="seed of the bootstrap (default 0)")
    parser.add_argument(
        "--replay",
        action="append",
        default=[],
        metavar="POLICY",
        help="also replay this policy, e.g. verdict:tau=0.5,eps=0.2 or mean_preserving:lambdas=1,1,1 (repeatable)",
    )
    parser.add_argument(
        "--calibration",
        metavar="MODE|FILE",
        help="also replay with the judges on one scale: quantile, agreement, standardize (fitted "
        "label-free on this run's recorded scores), platt (fitted on this run's candidates that end a chain, "
        "labelled right or wrong by its tasks' answers) or a saved calibration.json",
    )
    parser.add_argument(
        "--target-accept",
        type=_rate,
        metavar="RATE",
        help="with --calibration: VERDICT's tau, eps set on the scale so that this share of candidates is accepted",
    )
    parser.add_argument(
        "--save-calibration",
        metavar="FILE",
        help="with --calibration: write the scale (and the tau, eps --target-accept set on it) to replay or run "
        "another run on it",
    )
    parser.add_argument(
        "--out-dir", metavar="DIR", help="write report.json and the plots here instead of RUN_DIR (created if missing)"
    )


def run(args: argparse.Namespace) -> int:
    from accord.verify.analysis import parse_policy_spec, write_run_report

    run_dir = Path(args.run_dir)
    if path_kind(run_dir) != "folder":  # a symlink loop or an unreadable path is named by path_kind
        raise UserError(f"{run_dir}: not a run folder")

    try:
        extra = [parse_policy_spec(text) for text in args.replay]
    except ValueError as exc:
        raise UserError(f"--replay: {exc}") from None
    out_dir = output_folder(args.out_dir, run_dir, "report.json and the plots")
    live = note_if_live(run_dir, NAME)
    try:
        report = write_run_report(run_dir, n_boot=args.bootstrap, seed=args.seed, extra_specs=extra, out_dir=out_dir)
    except ValueError as exc:
        raise UserError(f"{run_dir}: {exc}") from None
    if args.target_accept is not None and args.calibration is None:
        raise UserError("--target-accept sets tau, eps on a judge scale: give --calibration too")
    if args.save_calibration and args.calibration is None:
        raise UserError("--save-calibration writes a fitted judge scale: give --calibration METHOD too")
    if args.save_calibration:
        writable_output(args.save_calibration, "--save-calibration", create_parents=True)
    if args.calibration is not None:
        report["calibration"] = calibration_section(
            run_dir, args.calibration, args.target_accept, args.save_calibration
        )
        (out_dir / "report.json").write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    if args.json:
        print(json.dumps({**report, "live": None if live is None else {"pid": live}}, indent=2))
    else:
        print_run_report(report, run_dir, out_dir)
        if "calibration" in report:
            print_calibration(report["calibration"])
    return 0


def print_calibration(cal: dict) -> None:
    """The judge-scale replay: per policy accuracy and firing, then the paired comparisons."""
    from accord.cli.display import Table, console

    con = console()
    t = Table(
        title=f"Replayed with judges on one scale ({cal['scale']['method']}; VERDICT tau = {cal['tau']:.3g}, "
        f"eps = {cal['eps']:.3g})"
    )
    for col in ("policy", "scale", "exact", "accuracy", "accept rule fired", "acc. fired", "acc. fallback"):
        t.add_column(col, justify="left" if col == "policy" else "right")
    for key, r in cal["rows"].items():
        fired = f"{r['fired']}/{r['steps']}" if r["steps"] else "–"
        t.add_row(
            key + (f" ({r['judge']})" if "judge" in r else ""),
            r["scale"] or "raw",
            str(r["exact"]),
            _f(r["accuracy"]),
            fired,
            _f(r["accuracy_fired"]),
            _f(r["accuracy_fallback"]),
        )
    con.print(t)
    t = Table(title="Paired over problems (difference first - second, 95% paired bootstrap interval, exact McNemar p)")
    for col in ("first", "second", "pairs", "difference", "95% CI", "McNemar b/c", "p"):
        t.add_column(col, justify="left" if col in ("first", "second") else "right")
    for c in cal["comparisons"]:
        t.add_row(c["first"], c["second"], str(c["n_pairs"]), *_paired_cells(c))
    con.print(t)
    con.print(cal["consensus_vs_mean"])


def _paired_cells(c: dict) -> tuple[str, str, str, str]:
    """A paired comparison's difference, its interval, McNemar's discordant counts and p-value."""
    mc = c.get("mcnemar") or {}
    b_c = f"{mc.get('only_first_correct', '–')}/{mc.get('only_second_correct', '–')}"
    return _f(c["difference"]), _ci(*(c["ci"] or (None, None))), b_c, _f(mc.get("p_value"))


def _f(x, digits: int = 3) -> str:
    return "–" if x is None else f"{x:.{digits}f}"


def _ci(lo, hi) -> str:
    return "–" if lo is None or hi is None else f"[{lo:.3f}, {hi:.3f}]"


def _column(table, header: str, first: bool = False, wrap: bool = False) -> None:
    """A column that never breaks a word: numbers and names stay whole (headers are broken by hand
    with ``\\n``); only ``wrap`` columns (long names with spaces) wrap, between words."""
    table.add_column(
        header, justify="left" if first else "right", no_wrap=not wrap, overflow="ellipsis" if not wrap else "fold"
    )


def _spaced(spec: str) -> str:
    """A policy spec with a space after each comma and colon, so a narrow terminal wraps it between settings."""
    return spec.replace(",", ", ").replace(":", ": ")


def print_run_report(report: dict, run_dir: Path, out_dir: Path | None = None) -> None:
    from accord.cli.display import Table, console

    con = console()
    con.print(f"[bold]{run_dir}[/bold]: {report['n_tasks']} tasks, chains {', '.join(report['chains'])}")
    for note in report["notes"]:
        con.print(f"[yellow]note:[/yellow] {note}")

    t = Table(title="Accuracy per recorded chain (95% bootstrap interval)")
    for col in ("chain", "tasks", "accuracy", "95% CI", "acceptance", "fallback", "abstained", "failed"):
        _column(t, col, first=col == "chain")
    for chain, a in report["accuracy"].items():
        r = report["rates"].get(chain, {})
        missing = [f"{r.get(k, 0)}/{r['scores']}" if r else "–" for k in ("abstained_scores", "failed_scores")]
        acceptance = "–" if chain == BASE else _f(r.get("acceptance_rate"))  # the base chain verifies nothing
        fallback = "–" if chain == BASE else _f(r.get("fallback_rate"))
        t.add_row(chain, str(a["n"]), _f(a["accuracy"]), _ci(a["ci_low"], a["ci_high"]), acceptance, fallback, *missing)
    con.print(t)

    t = Table(title="Replay on the recorded candidates (exact = chain stayed on recorded contexts)")
    for col in ("policy", "exact", "diverged", "accuracy\n(exact)", "95% CI", "bounds"):
        _column(t, col, first=col == "policy", wrap=col == "policy")
    for row in report["replay"]:
        t.add_row(
            _spaced(row["policy"]),
            str(row["exact"]),
            str(row["diverged"]),
            _f(row["accuracy_exact"]),
            _ci(row["ci_low"], row["ci_high"]),
            _ci(row["accuracy_low"], row["accuracy_high"]),
        )
    con.print(t)

    rt = report["review_test"]
    t = Table(title="Paired test: VERDICT vs mean-preserving VERDICT vs Mean (tasks exact under both)")
    for col in ("comparison", "pairs", "first", "second", "difference", "95% CI", "McNemar b/c", "p"):
        _column(t, col, first=col == "comparison", wrap=col == "comparison")
    for key in ("verdict_vs_mean_preserving", "verdict_vs_mean", "mean_preserving_vs_mean"):
        c = rt[key]
        first, second = _f(c["accuracy_first"]), _f(c["accuracy_second"])
        t.add_row(key.replace("_vs_", " vs "), str(c["n_pairs"]), first, second, *_paired_cells(c))
    con.print(t)
    rf = rt["rank_flips"]
    con.print(
        f"Best candidate by consensus mean differs from best by raw mean in {rf['flips']} of "
        f"{rf['contexts']} recorded contexts ({_f(rf['share'])}); where chains took both "
        f"({rf['flips_with_both_outcomes']}), the consensus pick reached the better answer "
        f"{rf['consensus_pick_better']} times, the raw-mean pick {rf['raw_pick_better']} times "
        f"(sign test p = {_f(rf['sign_test_p'])})."
    )

    t = Table(
        title=f"Δ* vs raw variance as predictors of a wrong answer (per candidate; τ = "
        f"{report['thresholds']['tau']:g}, ε = {report['thresholds']['eps']:g})"
    )
    for col in (
        "chain",
        "cands",
        "AUC\nΔ*",
        "AUC\nraw var",
        "gap",
        "gap 95% CI\n(tasks)",
        "wrong if\nrejected",
        "wrong if\naccepted",
    ):
        _column(t, col, first=col == "chain")
    for chain, d in report["diagnostics"].items():
        t.add_row(
            chain,
            str(d["candidates"]),
            _f(d["auc_dispersion"]),
            _f(d["auc_raw_variance"]),
            _f(d["auc_gap"]),
            _ci(*(d["auc_gap_ci"] or (None, None))),
            _f(d["wrong_rate_rejected"]),
            _f(d["wrong_rate_accepted"]),
        )
    con.print(t)

    fid = report["fidelity"]
    if fid:
        parts = [f"{c}: {v['reproduced']}/{v['steps']}" for c, v in fid.items()]
        con.print("Recorded decisions reproduced by re-deciding: " + ", ".join(parts))
    tm = report["timing"]
    if tm["total_s"]:
        con.print(
            f"Recorded time: generation {_f(tm['generate_share'])}, judging {_f(tm['judge_share'])}, "
            f"deciding {_f(tm['decide_share'])} of {tm['total_s']:.1f} s"
        )
    out_dir = out_dir or run_dir
    con.print(f"Wrote {out_dir / 'report.json'}" + (f" and {', '.join(report['plots'])}" if report["plots"] else ""))
