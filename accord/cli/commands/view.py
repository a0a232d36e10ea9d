"""``accord view PATH``: one self-contained HTML page of a run, a verify output or a jury output."""

from __future__ import annotations

import argparse
from pathlib import Path

from accord.cli.options import bounded, note_if_live
from accord.verify.io import input_path, writable_output, write_text_atomic

NAME = "view"


def _index(folder: Path, args: argparse.Namespace) -> int:
    """A folder of results: each result's page beside it, and the index page linking them."""
    from accord.verify.view import index_of, render, serve

    out = Path(args.out) if args.out else folder / "index.html"
    writable_output(out, "--out")
    page, results = index_of(folder, out)
    extra = {}
    for result, target in results:
        kind, sub = render(result)
        if args.serve:
            extra["/" + target.resolve().relative_to(out.parent.resolve()).as_posix()] = sub
        if args.out or not args.serve:
            write_text_atomic(target, sub, "page")
    if args.out or not args.serve:
        write_text_atomic(out, page, "--out")
        print(f"Wrote {out} (index of {len(results)} results) and each result's page beside it")
    if args.serve:
        serve(
            page,
            args.port,
            lambda url: print(f"Serving the index of {folder} at {url} (Ctrl-C stops)", flush=True),
            extra,
        )
    return 0


HELP = "Write one self-contained HTML page (opens from disk) of a run folder, a verify --out or a jury --out file."


_port = bounded(int, lambda x: 0 <= x <= 65535, "a port in [0, 65535]")


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "path",
        metavar="PATH",
        help="run folder (or its trace.jsonl), accord verify --out or accord jury --out file, "
        "or a folder of them (an index page)",
    )
    p.add_argument(
        "--out",
        metavar="FILE.html",
        help="where to write the page (default: RUN_DIR/view.html, or the file's name with .html; "
        "with --serve: nothing is written unless given)",
    )
    p.add_argument("--serve", action="store_true", help="also serve the page on 127.0.0.1 until Ctrl-C")
    p.add_argument("--port", type=_port, default=8000, help="port for --serve (default 8000; 0: any free port)")


def default_out(path: Path) -> Path:
    if path.is_dir():
        return path / ("view.html" if (path / "trace.jsonl").is_file() else "index.html")
    return path.with_suffix(".html")


def run(args: argparse.Namespace) -> int:
    from accord.verify.view import is_run_folder, render, serve

    path = Path(input_path(args.path, "run folder, verify --out or jury --out file", folder=True))
    if path.is_dir() and not is_run_folder(path):
        return _index(path, args)
    out = Path(args.out) if args.out else (None if args.serve else default_out(path))
    if out is not None:
        writable_output(out, "--out", inputs=[path])
    if path.is_dir():
        note_if_live(path, NAME)
    kind, page = render(path)
    if out is not None:
        write_text_atomic(out, page, "--out")
        print(f"Wrote {out} ({kind} view)")
    if args.serve:
        serve(
            page, args.port, lambda url: print(f"Serving the {kind} view of {path} at {url} (Ctrl-C stops)", flush=True)
        )
    return 0
