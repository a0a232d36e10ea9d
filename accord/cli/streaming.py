"""The large-table path of the table commands (``consensus``, ``ensemble``): its flags, when it is
taken, and the streamed decide of ``accord consensus`` (a table of any size, in chunks or on Ray)."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from accord.cli.options import positive_int
from accord.cli.progress import progress_bar
from accord.errors import UserError
from accord.extras import require
from accord.verify.io import connect_ray, table_format, writable_output, writer_lock
from accord.verify.tables import DEFAULT_CHUNK_SIZE


def add_streaming_arguments(p: argparse.ArgumentParser, item: str = "candidate") -> None:
    """--backend, --address, --chunk-size, --output: the large-table options of a table command."""
    p.add_argument(
        "--backend", choices=("local", "ray"), default="local", help="local (default) or ray: Ray Data over a cluster"
    )
    p.add_argument("--address", default=None, help="Ray cluster address (default: RAY_ADDRESS, else a local cluster)")
    p.add_argument(
        "--chunk-size",
        type=positive_int,
        default=None,
        help=f"rows per chunk when streaming (default {DEFAULT_CHUNK_SIZE})",
    )
    p.add_argument(
        "--output",
        default=None,
        help=f"write one row per {item} to this file, in the format of its extension: "
        ".csv, .jsonl or .parquet (streams the input)",
    )


def wants_streaming(args: argparse.Namespace) -> bool:
    """Stream when asked to (Ray, a chunk size, a Parquet output) or when the input is Parquet."""
    path = Path(args.file)
    return (
        args.backend == "ray"
        or args.chunk_size is not None
        or args.output is not None
        or path.suffix.lower() in (".parquet", ".pq")
    )


def run_streaming(args: argparse.Namespace, build_policy) -> int:
    """Decide a table of any size into ``--output``; print a summary (a table, or JSON with --json).

    ``build_policy(args, src)`` gives (policy, the panel's ConsensusSpec, the λ note or None)."""
    require("pyarrow", "streaming a table (--backend ray, --chunk-size, --output or a Parquet input)")
    from accord.verify.tables import decide_streaming, decide_with_ray, open_source

    src = open_source(args.file, getattr(args, "nan", "error"))
    if not args.output:
        raise UserError(
            f"{src.path}: streaming (--backend ray, --chunk-size or a Parquet input) needs --output OUT "
            f"(.csv, .jsonl or .parquet)"
        )
    if Path(args.output).resolve() == src.path.resolve():
        raise UserError(f"--output {args.output} would overwrite the input")
    table_format(args.output)
    writable_output(args.output, "--output")
    policy, spec, note = build_policy(args, src)
    chunk = args.chunk_size or DEFAULT_CHUNK_SIZE
    if chunk < 1:
        raise UserError(f"--chunk-size must be >= 1, got {chunk}")
    with writer_lock(args.output):  # one writer per output file, taken before anything is written
        if args.backend == "ray":
            connect_ray(args.address)
            summary = decide_with_ray(src, policy, args.output, chunk, spec=spec)
        else:
            with progress_bar(
                "deciding rows", quiet=getattr(args, "quiet", False) or getattr(args, "json", False)
            ) as update:
                summary = decide_streaming(src, policy, args.output, chunk, spec=spec, progress=update)
    doc = {
        "input": str(src.path),
        "output": str(args.output),
        "backend": args.backend,
        "policy": policy.name,
        "judges": list(src.judges),
        "lambdas": list(spec.lambdas),
        "lambda_note": note,
        **summary.as_dict(),
    }
    if getattr(args, "json", False):
        print(json.dumps(doc, indent=1))
    else:
        if note:
            print(f"note: {note}")
        rate = summary.rows / summary.seconds if summary.seconds > 0 else float("inf")
        print(
            f"{summary.rows} rows, {summary.steps} steps -> {args.output} ({args.backend}, {summary.seconds:.2f} s, "
            f"{rate:,.0f} rows/s): {summary.accepted} accepted, {summary.fallback} by fallback, "
            f"{summary.unchosen} with no scored candidate"
        )
    return 0
