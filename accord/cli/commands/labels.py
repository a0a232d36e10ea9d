"""``accord labels``: convert step labels between formats and score predicted labels against a reference."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from accord.cli.options import note_if_live, unit_interval
from accord.errors import UserError
from accord.verify.io import writable_output

NAME = "labels"
HELP = "Step labels: convert between PRM800K, ProcessBench, MMReason and accord runs; score them."
# accord.verify.labels.FORMATS, named here so that building the parser does not import the
# readers (tests/test_architecture.py keeps the two equal)
FORMATS = ("prm800k", "processbench", "mmreason", "accord", "verify")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="labels_command", metavar="ACTION", required=True)
    conv = sub.add_parser("convert", help="rewrite step labels in another format")
    conv.add_argument("source", metavar="IN", help="labels file, or a run folder / trace.jsonl")
    conv.add_argument("dest", metavar="OUT", help="JSONL file to write")
    conv.add_argument("--from", dest="src_format", choices=FORMATS, help="format of IN (default: detected)")
    conv.add_argument(
        "--to", dest="dst_format", required=True, choices=[f for f in FORMATS if f not in ("accord", "verify")]
    )
    score = sub.add_parser("score", help="score predicted step labels against reference labels")
    score.add_argument(
        "pred",
        metavar="PRED",
        help="predicted labels, an accord verify --out file, or a run folder (its verifier's labels)",
    )
    score.add_argument("ref", metavar="REF", nargs="?", help="reference labels (omit to only summarise PRED)")
    score.add_argument("--pred-format", choices=FORMATS, help="format of PRED (default: detected)")
    score.add_argument("--ref-format", choices=FORMATS, help="format of REF (default: detected)")
    score.add_argument("--json", action="store_true", help="print JSON instead of a table")
    for p in (conv, score):
        p.add_argument("--chain", help="chain of a run to read (default: verdict, else the first verified chain)")
        p.add_argument(
            "--tau", type=unit_interval, help="confidence threshold for labelling a run's steps (default: the run's)"
        )
        p.add_argument(
            "--eps", type=unit_interval, help="dispersion limit for labelling a run's steps (default: the run's)"
        )


def _read(path: str, fmt: str | None, args: argparse.Namespace):
    from accord.verify.labels import detect_label_format, read_step_labels

    fmt = fmt or detect_label_format(Path(path))
    opts = {"chain": args.chain, "tau": args.tau, "eps": args.eps} if fmt == "accord" else {}
    return read_step_labels(path, fmt, **opts)


def run(args: argparse.Namespace) -> int:
    from accord.verify.labels import mmreason_step_score, score_labels, write_labels

    inputs = [args.source] if args.labels_command == "convert" else [p for p in (args.pred, args.ref) if p]
    live = next((pid for pid in (note_if_live(p, NAME) for p in inputs) if pid is not None), None)
    if args.labels_command == "convert":
        writable_output(args.dest, "OUT", inputs=[args.source])
        sols = _read(args.source, args.src_format, args)
        write_labels(sols, args.dest, args.dst_format)
        print(f"wrote {len(sols)} solutions to {args.dest} ({args.dst_format})")
        return 0
    pred = _read(args.pred, args.pred_format, args)
    if args.ref is None:
        result = {
            "solutions": len(pred),
            "steps": sum(len(s.steps) for s in pred),
            "mmreason_step_score": mmreason_step_score(pred),
            "with_error": sum(s.first_wrong() >= 0 for s in pred),
        }
    else:
        result = score_labels(pred, _read(args.ref, args.ref_format, args))
        if result["matched"] == 0:
            raise UserError(f"{args.pred}: no solution id matches one in {args.ref} with the same number of steps")
    if args.json:
        print(json.dumps({**result, "live": None if live is None else {"pid": live}}, indent=2))
        return 0
    _print(result)
    return 0


def _f(x) -> str:
    return "–" if x is None else f"{x:.3f}"


def _print(result: dict) -> None:
    from accord.cli.display import Table, console

    con = console()
    t = Table(title="Step-label metrics")
    t.add_column("metric")
    t.add_column("value", justify="right")
    if "first_wrong" not in result:
        for k, v in result.items():
            t.add_row(k, _f(v) if isinstance(v, float) else str(v))
        con.print(t)
        return
    fw, st, mm = result["first_wrong"], result["steps"], result["mmreason_step_score"]
    rows = [
        ("solutions matched", str(result["matched"])),
        (
            "skipped (not in reference / step count differs)",
            f"{result['not_in_reference']} / {result['step_count_mismatch']}",
        ),
        ("first-wrong-step accuracy, erroneous solutions", f"{_f(fw['error_accuracy'])} (n={fw['n_error']})"),
        ("first-wrong-step accuracy, correct solutions", f"{_f(fw['correct_accuracy'])} (n={fw['n_correct']})"),
        ("first-wrong-step F1 (ProcessBench)", _f(fw["f1"])),
        ("step label agreement", f"{_f(st['agreement'])} (n={st['steps']})"),
        ("MMReason step score, predicted", _f(mm["predicted"])),
        ("MMReason step score, reference", _f(mm["reference"])),
    ]
    for k, v in rows:
        t.add_row(k, v)
    con.print(t)
