"""``accord verify SOLUTIONS``: find the first wrong step of existing solutions (see docs/verify.md)."""

from __future__ import annotations

import argparse
import contextlib
import json
import sys
from pathlib import Path

from accord.cli.options import nonnegative_int, positive_float, positive_int, unit_interval
from accord.cli.progress import add_quiet, progress_bar
from accord.errors import UserError
from accord.verify.io import cache_for_output, writable_output, writer_lock

NAME = "verify"
HELP = (
    "Judge existing solutions step by step: valid / invalid / uncertain / no claim, each step's role in the proof, "
    "the first wrong step, metrics"
)
# accord.verify.solutions' FORMATS and LABELLED_POLICIES, named here so that building the parser does
# not import the verifier (tests/test_architecture.py keeps them equal)
FORMATS = ("processbench", "prm800k", "mmreason", "jsonl", "text", "inspect")
OUTPUT_FORMATS = ("csv",)  # --format csv: the flat export (one row per step) instead of JSONL / tables
LABELLED_POLICIES = ("verdict", "mean_preserving", "raw_average", "mean", "max", "min")
FAIL_ON = ("invalid", "uncertain", "never")


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "solutions",
        metavar="SOLUTIONS",
        help="JSONL/JSON file, a .txt/.md solution or a folder of them, or an inspect log (.eval)",
    )
    p.add_argument(
        "--format",
        choices=FORMATS + OUTPUT_FORMATS,
        help="input format (default: detected), or csv: write the flat export, one row per step, "
        "to --out (else to stdout, instead of the tables)",
    )
    p.add_argument("--input-format", choices=FORMATS, help="input format, when --format names the output")
    p.add_argument("--config", metavar="FILE", help="YAML/TOML config: judges, influence, policy, judge_timeout_s")
    p.add_argument(
        "--judges", help="comma-separated judges by type or name (default: the config's, else the math panel)"
    )
    p.add_argument("--policy", choices=LABELLED_POLICIES, help="rule that labels the steps (default verdict)")
    p.add_argument("--tau", type=unit_interval, help="valid above tau, invalid below 1 - tau (default 0.6)")
    p.add_argument("--eps", type=unit_interval, help="dispersion below which the panel agrees (default 0.1)")
    p.add_argument("--out", metavar="PRED.jsonl", help="write one JSON line per solution (flushed as it goes)")
    p.add_argument(
        "--csv", metavar="PRED.csv", help="also write a flat CSV: one row per step (problem, step text, label, scores)"
    )
    p.add_argument(
        "--fail-on",
        choices=FAIL_ON,
        default="invalid",
        help="exit 1 when a solution has an invalid step (default), an invalid or uncertain one, or never",
    )
    p.add_argument("--resume", action="store_true", help="continue an interrupted --out file")
    p.add_argument(
        "--cache",
        metavar="FILE",
        help="judge-call cache file (default: one per --out file in the user cache folder, "
        "$ACCORD_CACHE_DIR or ~/.cache/accord/verify/)",
    )
    p.add_argument("--workers", type=positive_int, default=2, help="solutions judged at once (default 2)")
    p.add_argument("--judge-timeout", type=positive_float, help="seconds per judge call (default 120)")
    p.add_argument(
        "--bootstrap", type=nonnegative_int, default=1000, help="bootstrap resamples for the intervals (default 1000)"
    )
    p.add_argument(
        "--backend",
        choices=("local", "ray"),
        default="local",
        help="local threads, or Ray actors (each builds the panel once; --workers of them)",
    )
    p.add_argument("--ray-address", help="Ray cluster to join (default: RAY_ADDRESS, else a local cluster)")
    p.add_argument(
        "--calibration",
        metavar="MODE|FILE",
        help="judges on one scale before the steps are labelled: off (default), quantile, agreement, standardize "
        "(fitted label-free on the judged steps), platt (fitted on annotated steps: a 'label' per solution) "
        "or a saved calibration.json (see docs/verify.md)",
    )
    p.add_argument(
        "--calibrate-on",
        metavar="FILE",
        help="fit the scale on these solutions (judged too, same panel) instead of SOLUTIONS; platt reads "
        "their annotations",
    )
    p.add_argument("--load-calibration", metavar="FILE", help="reapply a saved judge scale (calibration.json)")
    p.add_argument("--save-calibration", metavar="FILE", help="write the fitted judge scale to this JSON file")
    p.add_argument("--json", action="store_true", help="print a JSON document instead of tables")
    add_quiet(p)


def run(args: argparse.Namespace) -> int:
    from accord.verify.solutions import read_solutions, resolve_settings, verify_solutions, write_csv, write_csv_to

    as_csv = args.format in OUTPUT_FORMATS
    if as_csv and args.resume:
        raise UserError("--format csv: --resume continues a JSONL --out file; drop one of them")
    if as_csv and args.json and not args.out:
        raise UserError("--format csv without --out writes the CSV to stdout; --json would too: give --out")
    if args.input_format and args.format and not as_csv and args.input_format != args.format:
        raise UserError(f"--format {args.format} and --input-format {args.input_format} disagree")
    for flag, path in (
        ("--out", args.out),
        ("--csv", args.csv),
        ("--cache", args.cache),
        ("--save-calibration", args.save_calibration),
    ):
        if path:  # a bad output path is refused before any judging; none may be the input
            writable_output(
                path,
                flag,
                inputs=[args.solutions, *([args.calibrate_on] if args.calibrate_on else [])],
                create_parents=True,
            )
    sols = read_solutions(args.solutions, args.input_format or (None if as_csv else args.format))
    csv_path = Path(args.csv) if args.csv else None
    if as_csv and args.out and Path(args.out).is_dir():
        raise UserError(f"--out {args.out}: is a folder; give a file path")
    if csv_path is not None and args.out and csv_path.resolve() == Path(args.out).resolve():
        raise UserError(f"--csv {csv_path}: is the --out file too; choose another path")
    if csv_path is not None and csv_path.is_dir():
        raise UserError(f"--csv {csv_path}: is a folder; give a file path")  # refused before any judging
    settings = resolve_settings(
        args.config,
        args.judges,
        args.policy,
        args.tau,
        args.eps,
        with_reference=any(s.reference for s in sols),
        judge_timeout_s=args.judge_timeout,
    )
    csv_out = Path(args.out) if as_csv and args.out else None
    out = Path(args.out) if args.out and not as_csv else None
    named = out or csv_out
    cache = Path(args.cache) if args.cache else (cache_for_output(named, "verify") if named else None)
    scale = verify_scale(args, settings, cache)
    with (
        writer_lock(out) if out else contextlib.nullcontext(),
        progress_bar("judging steps", quiet=args.quiet or args.json) as update,
    ):  # one writer per --out file
        result = verify_solutions(
            sols,
            settings,
            out=out,
            resume=args.resume,
            workers=args.workers,
            cache=cache,
            progress=update,
            n_boot=args.bootstrap,
            backend=args.backend,
            address=args.ray_address,
            scale=scale,
        )
    if args.save_calibration and result.scale is not None:
        from accord.verify.loop import save_scale

        save_scale(args.save_calibration, result.scale)
    if csv_path is not None:
        write_csv(csv_path, result.records)
    if csv_out is not None:
        write_csv(csv_out, result.records, "--out")
    doc = summary(result)
    if as_csv and csv_out is None:
        write_csv_to(sys.stdout, result.records)
    elif args.json:
        json.dump(doc, sys.stdout, indent=2, ensure_ascii=False)
        sys.stdout.write("\n")
    else:
        print_verification(result, doc)
    return exit_code(result.records, args.fail_on)


def verify_scale(args: argparse.Namespace, settings, cache: Path | None):
    """What ``verify_solutions`` labels on: None (raw scores), a method to fit on the input, or a fitted
    scale (loaded, or fitted on --calibrate-on's solutions, judged here through the same cache)."""
    from accord.verify.loop import load_scale
    from accord.verify.solutions import JUDGE_SCALES

    mode = (args.calibration or "").strip() or None
    if args.load_calibration:
        if mode not in (None, "off"):
            raise UserError("--load-calibration reapplies a saved scale: drop --calibration (or give the file there)")
        mode = args.load_calibration
    if mode in (None, "off"):
        for flag in ("calibrate_on", "save_calibration"):
            if getattr(args, flag):
                raise UserError(f"--{flag.replace('_', '-')} needs --calibration METHOD")
        return None
    if mode not in JUDGE_SCALES:  # a saved scale
        if args.calibrate_on:
            raise UserError("--calibrate-on fits a scale: a saved one is reapplied as it is; drop one of them")
        if args.save_calibration:
            raise UserError("--save-calibration writes a fitted scale: a loaded one is already saved")
        try:
            return load_scale(mode)
        except ValueError as exc:
            raise UserError(f"--calibration: {exc}") from None
    if not args.calibrate_on:
        if args.resume:
            raise UserError(
                f"--calibration {mode} is fitted on the whole input and labels every solution again: drop "
                "--resume (the judge cache keeps the scores), or fit with --calibrate-on / reuse --load-calibration"
            )
        return mode
    return fit_elsewhere(args, mode, settings, cache)


def fit_elsewhere(args: argparse.Namespace, method: str, settings, cache: Path | None):
    """The scale ``method`` fitted on --calibrate-on's solutions (judged with the same panel and cache)."""
    from accord.verify.solutions import fit_on_records, read_solutions, verify_solutions

    sols = read_solutions(
        args.calibrate_on, args.input_format or (None if args.format in OUTPUT_FORMATS else args.format)
    )
    with progress_bar("judging --calibrate-on", quiet=args.quiet or args.json) as update:
        res = verify_solutions(
            sols,
            settings,
            workers=args.workers,
            cache=cache,
            progress=update,
            n_boot=0,
            backend=args.backend,
            address=args.ray_address,
        )
    try:
        return fit_on_records(method, res.judges, res.records, [s.first_wrong for s in sols], args.calibrate_on)
    except ValueError as exc:
        raise UserError(f"--calibration {method}: {exc}") from None


def exit_code(records, fail_on: str) -> int:
    """1 when a solution has a step labelled as ``--fail-on`` asks (CI can gate on it), else 0."""
    bad = {"invalid": {"invalid"}, "uncertain": {"invalid", "uncertain"}, "never": set()}[fail_on]
    return 1 if any(label in bad for r in records for label in r["step_labels"]) else 0


def summary(result) -> dict:
    from accord.verify.solutions import decided

    preds = [r["prediction"] for r in result.records]
    share = decided(result.records)
    return {
        "solutions": len(result.records),
        "with_invalid_step": sum(p >= 0 for p in preds),
        "steps": sum(len(r["steps"]) for r in result.records),
        "steps_decided": share["decided"],
        "decided_share": share["decided_share"],
        "steps_checked": share["checked"],
        "steps_no_claim": share["no_claim"],
        "steps_by_role": share["by_role"],
        "uncertain_by_reason": share["uncertain_by_reason"],
        "judges": result.judges,
        "lambdas": result.lambdas,
        "policy": result.settings.policy,
        "tau": result.settings.tau,
        "eps": result.settings.eps,
        "resumed": result.resumed,
        "retried": result.retried,
        "steps_judged": result.steps_judged,
        "seconds": round(result.seconds, 3),
        "steps_per_second": None if result.steps_per_second is None else round(result.steps_per_second, 2),
        "cache": result.cache,
        "calibration": None if result.scale is None else result.scale.as_dict(),
        "metrics": result.metrics,
        "predictions": {r["id"]: r["prediction"] for r in result.records} if len(result.records) <= 50 else None,
    }


def _f(x, digits: int = 3) -> str:
    return "–" if x is None else f"{x:.{digits}f}"


def _ci(point, interval) -> str:
    if point is None:
        return "–"
    return f"{point:.3f}" + (f" [{interval[0]:.2f}, {interval[1]:.2f}]" if interval else "")


def print_verification(result, doc: dict) -> None:
    from accord.cli.display import Table, console

    con = console()
    cal = doc.get("calibration")
    t = Table(
        title=f"accord verify — {doc['solutions']} solutions, policy {doc['policy']} (tau {doc['tau']:g}, eps "
        f"{doc['eps']:g})" + (f"; judges on one scale: {cal['method']}" if cal else "")
    )
    for col in ("id", "steps", "first invalid step", "valid / invalid / uncertain / no claim", "evidence"):
        t.add_column(col, overflow="fold", max_width=70 if col == "evidence" else None)
    for r in result.records[:20]:
        labels = r["step_labels"]
        p = r["prediction"]
        ev = r["steps"][p].get("reason", "") if p >= 0 else ""
        t.add_row(
            str(r["id"]),
            str(len(labels)),
            "–" if p < 0 else str(p + 1),  # numbered from 1, as everywhere
            f"{labels.count('valid')} / {labels.count('invalid')} / {labels.count('uncertain')} / "
            f"{labels.count('no claim')}",
            ev,
        )
    if len(result.records) > 20:
        t.caption = f"first 20 of {len(result.records)} solutions; all of them in --out / --json"
    con.print(t)
    m = result.metrics
    if m:
        mt = Table(
            title=f"against the annotation: {m['n_solutions']} solutions ({m['n_erroneous']} with an error), "
            f"{m['n_steps_labelled']} labelled steps; 95% bootstrap intervals"
        )
        for col in (
            "rule",
            "acc. erroneous",
            "acc. correct",
            "F1",
            "step AUC",
            "invalid at/after error",
            "correct sol. with invalid",
            "invalid labels",
        ):
            mt.add_column(col, justify="right" if col != "rule" else "left")
        for rule, f in m["rules"].items():
            iv = f["intervals"]
            mt.add_row(
                rule,
                _ci(f["error_accuracy"], iv["error_accuracy"]),
                _ci(f["correct_accuracy"], iv["correct_accuracy"]),
                _ci(f["f1"], iv["f1"]),
                _ci(f["step_auc"], iv["step_auc"]),
                _ci(f["invalid_at_or_after"], iv["invalid_at_or_after"]),
                _ci(f["correct_with_invalid"], iv["correct_with_invalid"]),
                str(f["n_invalid"]),
            )
        con.print(mt)
    if doc["steps"]:
        why = ", ".join(f"{k} {n}" for k, n in doc["uncertain_by_reason"].items())
        con.print(
            f"decided: {doc['steps_decided']} of {doc['steps']} steps ({doc['decided_share']:.0%}): "
            f"{doc['steps_checked']} claims checked valid or invalid, {doc['steps_no_claim']} with no claim"
            + (f"; uncertain: {why}" if why else "")
        )
        roles = ", ".join(f"{k} {n}" for k, n in doc["steps_by_role"].items())
        if roles:
            con.print(f"steps by role: {roles}")
    rate = doc["steps_per_second"]
    con.print(
        f"{doc['steps_judged']} steps judged in {doc['seconds']:.1f} s"
        + (f" ({rate:.1f} steps/s)" if rate else "")
        + (f"; {doc['resumed']} solutions kept from the --out file" if doc["resumed"] else "")
        + (f"; {len(doc['retried'])} judged again after their worker died" if doc["retried"] else "")
        + f"; judge cache {doc['cache'].get('hits', 0)} hits, {doc['cache'].get('misses', 0)} misses"
    )
