"""The ``--out`` file: one JSON line per solution, appended and flushed as each is finished.

``--resume`` reads what an interrupted run wrote: every complete line is kept (its solution is not
judged again); a last line cut short by the interruption is removed, and the run appends the rest.
A line written by a different panel is an error, so one file never mixes panels.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

from accord.errors import UserError
from accord.verify.io import decode_text, fault_after_write, fault_before_write


def read_done(path: Path, judges: Sequence[str], known_ids: set[str]) -> dict[str, dict]:
    """The records already in ``path`` by id (a torn last line is cut off the file)."""
    raw = path.read_bytes()
    keep = raw if raw.endswith(b"\n") or not raw else raw[: raw.rfind(b"\n") + 1]
    done: dict[str, dict] = {}
    for no, raw_line in enumerate(keep.splitlines(), 1):
        line = decode_text(raw_line, f"{path}:{no}")
        if not line.strip():
            continue
        try:
            rec = json.loads(line)
        except json.JSONDecodeError:
            raise UserError(f"{path}:{no}: not a JSON line written by accord verify") from None
        if not isinstance(rec, dict) or "id" not in rec or "steps" not in rec:
            raise UserError(f"{path}:{no}: not a line written by accord verify")
        if rec.get("judges") != list(judges):
            raise UserError(
                f"{path}:{no}: written with judges {rec.get('judges')}, but the panel is {list(judges)}; "
                "use another --out file"
            )
        if rec["id"] not in known_ids:
            raise UserError(f"{path}:{no}: solution {rec['id']!r} is not in the input")
        done[rec["id"]] = rec
    if len(keep) != len(raw):
        path.write_bytes(keep)  # the torn line goes; its solution is judged again
    return done


class OutFile:
    """Appends records, one flushed line each."""

    def __init__(self, path: Path):
        self.path = path
        path.parent.mkdir(parents=True, exist_ok=True)
        self.fh = open(path, "a", encoding="utf-8")
        self.written = 0

    def write(self, rec: dict) -> None:
        line = json.dumps(rec, ensure_ascii=False) + "\n"
        self.written += 1
        fault_before_write("verify", self.written, lambda: self._put(line[: len(line) // 2]))
        self._put(line)
        fault_after_write("verify", self.written)

    def _put(self, text: str) -> None:
        self.fh.write(text)
        self.fh.flush()

    def close(self) -> None:
        self.fh.close()
