"""Which kind of output a path is, from what it holds (not from its name)."""

from __future__ import annotations

from pathlib import Path

from accord.errors import UserError
from accord.verify.io import TRACE_FILE, input_file, json_objects, text_lines
from accord.verify.view._index_page import render_index
from accord.verify.view._jury_page import render_jury
from accord.verify.view._results import collect
from accord.verify.view._run_page import render_run
from accord.verify.view._verify_page import render_verify

KINDS = ("run", "verify", "jury", "index")
WHAT = "a run folder, a trace.jsonl, an accord verify --out or an accord jury --out file"


def _kind_of(obj: dict) -> str | None:
    if isinstance(obj.get("type"), str):
        return "run"
    if isinstance(obj.get("steps"), list) and isinstance(obj.get("step_labels"), list):
        return "verify"
    if "agreement" in obj and "abstained" in obj:
        return "jury"
    return None


def _read(path: Path) -> tuple[str, list[dict]]:
    """The kind of a JSON-lines file and, for verify and jury files, its records (each checked)."""
    p = input_file(path, "file to view")
    kind, records = None, []
    for no, obj in json_objects(text_lines(p, "file to view"), str(p), expect=f"not {WHAT}"):
        this = _kind_of(obj)
        if this is None or (kind is not None and this != kind):
            raise UserError(f"{p}:{no}: not a line of {WHAT}")
        kind = this
        if kind == "run":
            return kind, []
        records.append(obj)
    if kind is None:
        raise UserError(f"{p}: empty; expected {WHAT}")
    return kind, records


def read_records(path: Path) -> tuple[str, list[dict]]:
    """The kind of a JSON-lines file and its records (a UserError if it is none of the kinds)."""
    return _read(path)


def is_run_folder(path: Path) -> bool:
    return (path / TRACE_FILE).is_file()


def index_of(folder: Path, out: Path) -> tuple[str, list[tuple[Path, Path]]]:
    """The index page of a folder of results, and ``(result, its page)`` for each, each page beside its result."""
    results, notes = collect(folder, read_records)
    if not results:
        raise UserError(
            f"{folder}: not a run folder (no {TRACE_FILE}), and holds no run folder, "
            "accord verify --out or accord jury --out file"
        )
    pages = [r.path / "view.html" if r.kind == "run" else r.path.with_suffix(".html") for r in results]
    return render_index(folder, results, pages, out, notes), [(r.path, p) for r, p in zip(results, pages)]


def detect_kind(path) -> str:
    """``run``, ``verify``, ``jury`` or ``index`` (a folder of results); anything else is a UserError naming the
    path."""
    p = Path(path)
    if p.is_dir():
        return "run" if is_run_folder(p) else "index"
    if not p.exists():
        raise UserError(f"{p}: no such file or folder")
    return _read(p)[0]


def render(path) -> tuple[str, str]:
    """``(kind, page)`` for a path (see :data:`WHAT`)."""
    p = Path(path)
    if p.is_dir():
        return "run", render_run(p)
    kind, records = _read(p)
    if kind == "run":
        return kind, render_run(p)
    return kind, (render_verify(p, records) if kind == "verify" else render_jury(p, records))
