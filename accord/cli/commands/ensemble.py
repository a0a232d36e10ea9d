"""``accord ensemble FILE``: accuracy of reward models and of their ensembles on precomputed rewards.

Small tables are read into memory; large ones (Parquet input, or --stream, --output,
--chunk-size, --backend ray) are streamed by :mod:`accord.verify.ensemble`.
"""

from __future__ import annotations

import argparse
import json
import sys
from contextlib import nullcontext
from pathlib import Path

from accord.adapters import CALIBRATION_METHODS, fit_calibrators, save_calibrators
from accord.cli.options import lambda_note, nonnegative_float, resamples, table_lambdas, unit_interval
from accord.cli.progress import add_quiet, progress_bar
from accord.cli.streaming import add_streaming_arguments, wants_streaming
from accord.errors import UserError
from accord.extras import require
from accord.verify.io import connect_ray, parse_json, read_text, table_format, writable_output, writer_lock
from accord.verify.tables import DEFAULT_CHUNK_SIZE, METADATA

NAME = "ensemble"
HELP = (
    "Evaluate reward models and their ensembles (mean, min, mean-k*std, FJ consensus) on precomputed rewards (JSONL, "
    "CSV, Parquet)."
)


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "file",
        help="JSONL: {prompt_id, response_id, label, <model>: reward...} or {chosen: {...}, rejected: {...}}; "
        "CSV/Parquet: columns prompt_id, response_id, label, <model>...",
    )
    p.add_argument(
        "--models",
        default=None,
        help="comma-separated reward fields to use (default: every numeric field "
        "but ids, labels and metadata; the command says which it took)",
    )
    p.add_argument(
        "--meta",
        default=None,
        help="comma-separated numeric fields that are metadata, not reward models "
        f"(added to the known names: {', '.join(sorted(METADATA))})",
    )
    p.add_argument(
        "--calibration",
        choices=CALIBRATION_METHODS,
        default="standardize",
        help="map raw rewards to [0, 1] (default standardize; platt needs labels)",
    )
    p.add_argument("--calibrate-on", default=None, help="fit the calibration on this reward file instead of FILE")
    p.add_argument("--load-calibration", default=None, help="reapply a saved calibration (JSON) instead of fitting")
    p.add_argument("--save-calibration", default=None, help="write the fitted calibration to this JSON file")
    p.add_argument(
        "--rules",
        default=None,
        help="comma-separated: mean, min, uwo, fj:<policy> (default mean,min,uwo,fj:verdict,fj:no_rejection)",
    )
    p.add_argument(
        "--k",
        type=nonnegative_float,
        default=1.0,
        help="uncertainty penalty of the uwo rule: mean - k * std (default 1)",
    )
    p.add_argument(
        "--lambdas",
        default=None,
        help="stubbornness per model for the FJ rules, comma-separated, in --models order "
        "(default: 1.0 each, or a judge type's default for a column named after one)",
    )
    p.add_argument("--tau", type=unit_interval, default=None, help="FJ verdict rule: confidence threshold")
    p.add_argument("--eps", type=unit_interval, default=None, help="FJ verdict rule: dispersion tolerance")
    p.add_argument("--n-boot", type=resamples, default=2000, help="bootstrap resamples for intervals (default 2000)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--json", action="store_true", help="print one JSON document instead of tables")
    add_quiet(p)
    p.add_argument(
        "--stream",
        action="store_true",
        help="stream the table in chunks (implied by --output, --chunk-size, --backend ray, Parquet input)",
    )
    add_streaming_arguments(p, item="response")


def _calibrators(args, table, models=None, stream=None):
    """Loaded, or fitted on --calibrate-on or FILE; ``stream`` (a RewardSource) fits FILE in a streamed pass."""
    from accord.verify.ensemble import STREAMED_FITS, fit_streamed, read_rewards
    from accord.verify.tables import open_rewards

    models = models or table.models
    if args.load_calibration:
        cals = _load_calibration(args.load_calibration)
        missing = [m for m in models if m not in cals]
        if missing:
            raise UserError(f"{args.load_calibration}: no calibration for model(s) {missing}")
        return cals
    if stream is not None and (args.calibration in STREAMED_FITS or not args.calibrate_on):
        src = open_rewards(args.calibrate_on, models) if args.calibrate_on else stream
        return fit_streamed(src, args.calibration, args.chunk_size or DEFAULT_CHUNK_SIZE)
    source = read_rewards(args.calibrate_on, models) if args.calibrate_on else table
    labels = source.flat_labels
    if args.calibration == "platt" and labels is None:
        raise UserError(f"{args.calibrate_on or args.file}: platt calibration needs a 'label' on every row")
    try:
        return fit_calibrators(
            source.flat_raw, models, args.calibration, labels if args.calibration == "platt" else None
        )
    except ValueError as exc:
        raise UserError(f"{args.calibrate_on or args.file}: calibration: {exc}") from None


def _load_calibration(path: str) -> dict:
    """A saved calibration (--load-calibration), read like every input: each problem names the file."""
    from accord.adapters import Calibrator

    data = parse_json(read_text(path, "calibration file (JSON)"), path)
    if not isinstance(data, dict):
        raise UserError(f"{path}: expected a JSON object mapping reward model -> calibration")
    cals = {}
    for name, entry in data.items():
        try:
            cals[name] = Calibrator.from_dict(entry)
        except (ValueError, TypeError) as exc:
            raise UserError(f"{path}: model {name!r}: {exc}") from None
    return cals


PICKS_SHOWN = 20


def _print_picks(con, picks: list[dict]) -> None:
    """No labels: the response each rule picks, per prompt (the first PICKS_SHOWN; all in --json)."""
    from accord.cli.display import Table

    rules = [k for k in picks[0] if k != "prompt_id"] if picks else []
    t = Table(title="picks (no labels to score them against)", title_justify="left")
    for col in ("prompt", *rules):
        t.add_column(col)
    for row in picks[:PICKS_SHOWN]:
        t.add_row(row["prompt_id"], *[", ".join(row[r]) or "–" for r in rules])
    con.print(t)
    if len(picks) > PICKS_SHOWN:
        con.print(
            f"… {len(picks) - PICKS_SHOWN} more prompts: all of them with --json, or one row per response with --output"
        )


def print_ensemble_report(doc: dict) -> None:
    from accord.cli.display import Table, console

    con = console()
    con.print(
        f"[bold]{doc['prompts']}[/] {'pairs' if doc['kind'] == 'pairs' else 'prompts'}, {doc['responses']} responses, "
        f"models: {', '.join(doc['models'])}"
    )
    if "accuracy" in doc:
        what = "preference accuracy" if doc["kind"] == "pairs" else "best-of-n accuracy"
        t = Table(title=f"{what} (95% bootstrap CI)", title_justify="left")
        for col in ("selector", "accuracy", "CI", "n"):
            t.add_column(col)
        for name, e in doc["accuracy"].items():
            t.add_row(name, f"{e['accuracy']:.3f}", f"[{e['ci'][0]:.3f}, {e['ci'][1]:.3f}]", str(e["n"]))
        con.print(t)
        b = doc["baselines"]
        con.print(f"baselines: random {b['random']:.3f}, oracle {b['oracle']:.3f}")
    if "picks" in doc:
        _print_picks(con, doc["picks"])
    ag = doc["agreement"]
    con.print(f"Krippendorff's alpha (interval, calibrated): {ag['krippendorff_alpha']:.3f}")
    wide = "spearman_raw_vs_rest" in ag  # many models: each against the mean of the others, not every pair
    t = Table(
        title="correlation with the mean of the other models" if wide else "pairwise correlations", title_justify="left"
    )
    sample = doc.get("spearman_sample", {"exact": True})
    spearman = "Spearman (raw)" if sample["exact"] else f"Spearman (raw, sample of {sample['rows']:,})"
    for col in ("model" if wide else "pair", spearman, "Pearson (calibrated)"):
        t.add_column(col)
    sp, pe = (
        (ag["spearman_raw_vs_rest"], ag["pearson_calibrated_vs_rest"])
        if wide
        else (ag["spearman_raw"], ag["pearson_calibrated"])
    )
    for pair, r in sp.items():
        t.add_row(pair, f"{r:.3f}", f"{pe[pair]:.3f}")
    con.print(t)
    inf = doc["influence"]
    con.print(
        "FJ share of the consensus mean: "
        + ", ".join(f"{j} {s:.3f} (λ={lam:g})" for (j, s), lam in zip(inf["share_of_mean"].items(), inf["lambdas"]))
    )
    if doc.get("lambda_note"):
        con.print(f"note: {doc['lambda_note']}", highlight=False)


def _columns_note(models, metadata, explicit: bool) -> dict:
    """Which columns were taken as reward models (and which left out as metadata), for the document."""
    return {"models_from": "--models" if explicit else "numeric columns", "metadata_columns": list(metadata)}


def _say_columns(doc: dict) -> None:
    """One line on stderr when the models were inferred from the columns, not named by --models."""
    if doc["models_from"] != "--models":
        left = f"; left out as metadata: {', '.join(doc['metadata_columns'])}" if doc["metadata_columns"] else ""
        print(
            f"accord {NAME}: note: reward models are the numeric columns {', '.join(doc['models'])}{left} "
            f"(choose with --models, or name more metadata with --meta)",
            file=sys.stderr,
        )


def _stream(args, models, rules, params) -> dict:
    """The streamed path: calibration from pass 1 (or loaded), then pass 2 locally or on Ray."""
    from accord.verify.ensemble import Scorer, check_rules, default_rules, evaluate_streaming
    from accord.verify.tables import open_rewards

    src = open_rewards(args.file, models, _names(args.meta))
    if args.output and Path(args.output).resolve() == src.path.resolve():
        raise UserError(f"--output {args.output} would overwrite the input")
    if args.output:
        writable_output(args.output, "--output")
    chunk = args.chunk_size or DEFAULT_CHUNK_SIZE
    if chunk < 1:
        raise UserError(f"--chunk-size must be >= 1, got {chunk}")
    rules = rules or default_rules()
    check_rules(rules)
    lam, defaulted = table_lambdas(args.lambdas, src.models)
    cals = _calibrators(args, None, list(src.models), stream=src)
    if args.save_calibration:
        save_calibrators(args.save_calibration, {m: cals[m] for m in src.models})
    scorer = Scorer(
        src.models, {m: cals[m] for m in src.models}, tuple(rules), args.k, lam, params, src.label is not None
    )
    if args.backend == "ray":
        connect_ray(args.address)
    with progress_bar("scoring rows", quiet=args.quiet or args.json) as update:
        doc = evaluate_streaming(src, scorer, args.output, chunk, args.backend, args.n_boot, args.seed, progress=update)
    return {**doc, **_columns_note(src.models, src.metadata, bool(models)), "lambda_note": lambda_note(defaulted)}


def _names(text: str | None) -> list[str]:
    return [m.strip() for m in text.split(",") if m.strip()] if text else []


def run(args: argparse.Namespace) -> int:
    if args.output:
        table_format(args.output)
    require("pyarrow", "accord ensemble")  # the reward readers are pyarrow's
    from accord.verify.ensemble import evaluate_ensemble, read_rewards

    for flag, out in (("--output", args.output), ("--save-calibration", args.save_calibration)):
        if out:
            writable_output(out, flag, inputs=[args.file, args.calibrate_on, args.load_calibration])
    models = _names(args.models) or None
    rules = [r.strip() for r in args.rules.split(",") if r.strip()] if args.rules else None
    params = {k: v for k, v in (("tau", args.tau), ("eps", args.eps)) if v is not None}
    if args.stream or wants_streaming(args):
        with writer_lock(args.output) if args.output else nullcontext():  # one writer per output file
            doc = _stream(args, models, rules, params)
    else:
        table = read_rewards(args.file, models, _names(args.meta))
        note = _columns_note(table.models, table.metadata, bool(models))
        cals = _calibrators(args, table)
        if args.save_calibration:
            save_calibrators(args.save_calibration, {m: cals[m] for m in table.models})
        lam, defaulted = table_lambdas(args.lambdas, table.models)
        doc = evaluate_ensemble(table, cals, rules, args.k, lam, params, args.n_boot, args.seed)
        doc = {**doc, **note, "lambda_note": lambda_note(defaulted)}
    _say_columns(doc)
    if args.json:
        print(json.dumps(doc, indent=1))
        return 0
    print_ensemble_report(doc)
    if "stream" in doc:
        st = doc["stream"]
        out = f" -> {st['output']}" if st["output"] else ""
        if "accuracy" not in doc:
            out += (
                " (picks: the selected_<rule> columns)"
                if st["output"]
                else "; no labels: give --output FILE to keep what each rule picks"
            )
        print(
            f"streamed {doc['responses']} rows in {st['chunks']} chunks ({st['backend']}, {st['seconds']:.2f} s){out}"
        )
    return 0
