"""A file a user names as an output is checked here before the work, and written whole ones renamed into place after it.

:func:`writable_output` runs before any work, so a bad path (a missing folder, a directory, a
read-only place such as /proc) costs nothing. :func:`atomic_output` writes to a temporary file in
the target folder and renames it over the target only on success, so a failure leaves neither a
half-written file nor a stray temporary one.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path

from accord.errors import UserError
from accord.verify.io._paths import path_kind, reason, refuse_overwriting_input


def writable_output(path, flag: str = "output", inputs=(), create_parents: bool = False) -> Path:
    """``path`` as a file this process can create or replace, or a UserError naming it and why.

    ``inputs``: the files the command reads; an output that is one of them is refused (it would
    replace the input with the result). ``create_parents``: the writer makes missing folders, so the
    nearest existing one must be writable."""
    p = Path(path)
    parent = p.parent
    kind = path_kind(p, flag)
    if kind == "folder":
        raise UserError(f"{flag} {p}: is a folder, expected a file path")
    if kind == "other":
        raise UserError(f"{flag} {p}: not a regular file (a device or a pipe); give a file path")
    refuse_overwriting_input(p, inputs, flag)
    parent_kind = path_kind(parent, flag)
    while create_parents and parent_kind == "missing" and parent != parent.parent:
        parent = parent.parent
        parent_kind = path_kind(parent, flag)
    if parent_kind != "folder":
        raise UserError(
            f"{flag} {p}: folder {parent} does not exist"
            if parent_kind == "missing"
            else f"{flag} {p}: {parent} is not a folder"
        )
    try:
        fd, probe = tempfile.mkstemp(dir=parent, prefix=f".{p.name}.", suffix=".probe")
    except OSError as exc:
        raise UserError(f"{flag} {p}: cannot write in {parent} ({reason(exc)})") from None
    os.close(fd)
    os.unlink(probe)
    if p.exists() and not os.access(p, os.W_OK):
        raise UserError(f"{flag} {p}: exists and is not writable")
    return p


def writable_folder(path, flag: str = "--out-dir", hint: str = "") -> Path:
    """``path`` as a folder this process can write files in (created, with its parents, if missing),
    or a UserError naming it and why (and ``hint``: what to do instead)."""
    p = Path(path)
    kind = path_kind(p, flag)
    if kind not in ("folder", "missing"):
        raise UserError(f"{flag} {p}: exists and is not a folder")
    try:
        p.mkdir(parents=True, exist_ok=True)
        fd, probe = tempfile.mkstemp(dir=p, prefix=".accord.", suffix=".probe")
    except OSError as exc:
        raise UserError(f"{flag} {p}: cannot write there ({reason(exc)}){hint}") from None
    os.close(fd)
    os.unlink(probe)
    return p


TABLE_FORMATS = {".csv": "csv", ".jsonl": "jsonl", ".ndjson": "jsonl", ".parquet": "parquet", ".pq": "parquet"}


def table_format(path, flag: str | None = "--output", reading: bool = False) -> str:
    """The format of a table from its extension (csv, jsonl or parquet), or a UserError naming ``flag``.
    A table being read may also be JSON lines named ``.json``; one being written may not."""
    suffix = Path(path).suffix.lower()
    where = f"{flag} {path}" if flag else str(path)
    if path_kind(path, flag or "") == "folder":
        raise UserError(f"{where}: is a folder, expected a file path ending in .csv, .jsonl or .parquet")
    formats = {**TABLE_FORMATS, ".json": "jsonl"} if reading else TABLE_FORMATS
    if suffix not in formats:
        raise UserError(
            f"{where}: unknown extension {suffix or '(none)'!r}; "
            f"use .csv, .jsonl or .parquet (the format follows the extension)"
        )
    return formats[suffix]


@contextlib.contextmanager
def atomic_output(path, flag: str = "output") -> Iterator[Path]:
    """A temporary path next to ``path``; renamed onto ``path`` when the block ends without error."""
    target = writable_output(path, flag)
    # one fixed name per target (one writer holds it: io.lock), so a killed writer's leftover is
    # overwritten by the next run instead of piling up
    tmp_path = target.with_name(f".{target.name}.partial")
    try:
        yield tmp_path
        try:
            os.replace(tmp_path, target)
        except OSError as exc:
            raise UserError(f"{flag} {target}: cannot replace ({reason(exc)})") from None
    finally:
        tmp_path.unlink(missing_ok=True)


def write_text_atomic(path, text: str, flag: str = "output") -> None:
    """Write a whole text file in one rename."""
    with atomic_output(path, flag) as tmp:
        tmp.write_text(text, encoding="utf-8")
