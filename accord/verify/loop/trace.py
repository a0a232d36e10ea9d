"""Writing a run's ``trace.jsonl`` record by record, and reading it back to resume a run.

Every record is one JSON line, written and flushed at once, so a run killed at any moment keeps
everything up to the step in flight. A kill can leave a half-written last line: on resume it is
cut off (and noted) before anything is appended, so the file stays valid JSONL.
The record format is in docs/trace-format.md; :mod:`accord.verify.analysis.records` validates it for readers.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np


def context_id(task_id: str, steps) -> str:
    """sha1 hex of task_id + US + US.join(accepted steps): the key of a recorded context."""
    text = task_id + "\x1f" + "\x1f".join(steps)
    return hashlib.sha1(text.encode("utf-8")).hexdigest()


def _json_safe(obj: Any) -> Any:
    """numpy values to Python, NaN/inf to null (JSON has neither)."""
    if isinstance(obj, dict):
        return {str(k): _json_safe(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_json_safe(v) for v in obj]
    if isinstance(obj, np.ndarray):
        return _json_safe(obj.tolist())
    if isinstance(obj, np.bool_):
        return bool(obj)
    if isinstance(obj, np.integer):
        return int(obj)
    if isinstance(obj, (float, np.floating)):
        f = float(obj)
        return f if math.isfinite(f) else None
    return obj


def cut_partial_line(path: Path) -> str | None:
    """Truncates a half-written last line (no trailing newline); returns a note if it did.

    A last line that is a whole record and lacks only its newline (a kill between the two) is
    kept and given its newline, as :func:`read_records` already counts it.
    """
    if not path.exists():
        return None
    size = path.stat().st_size
    if size == 0:
        return None
    with open(path, "rb+") as fh:
        fh.seek(-1, os.SEEK_END)
        if fh.read(1) == b"\n":
            return None
        fh.seek(0)
        data = fh.read()
        keep = data.rfind(b"\n") + 1
        try:
            whole = isinstance(json.loads(data[keep:]), dict)
        except ValueError:
            whole = False
        if whole:
            fh.seek(0, os.SEEK_END)
            fh.write(b"\n")
            return f"{path}: completed a last record that lacked its newline"
        fh.truncate(keep)
    return f"{path}: cut a half-written last line ({size - keep} bytes) left by an interrupted run"


class TraceWriter:
    """Appends records to a trace file, flushing (and fsync-ing) each one."""

    def __init__(self, path: str | Path, fsync: bool = True):
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.note = cut_partial_line(self.path)
        self._fh = open(self.path, "a", encoding="utf-8")
        self._fsync = fsync
        self._lock = threading.Lock()

    def write(self, record: dict[str, Any]) -> None:
        line = json.dumps(_json_safe(record), ensure_ascii=False, allow_nan=False)
        with self._lock:
            self._fh.write(line + "\n")
            self._fh.flush()
            if self._fsync:
                os.fsync(self._fh.fileno())

    def close(self) -> None:
        with self._lock:
            if not self._fh.closed:
                self._fh.close()

    def __enter__(self) -> "TraceWriter":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def read_records(path: str | Path) -> tuple[list[dict[str, Any]], list[str]]:
    """All complete records of a trace (a half-written last line is skipped and noted)."""
    path = Path(path)
    records: list[dict[str, Any]] = []
    notes: list[str] = []
    if not path.exists():
        return records, notes
    text = path.read_text(encoding="utf-8")
    lines = text.split("\n")
    for i, line in enumerate(lines):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except json.JSONDecodeError:
            if i == len(lines) - 1:  # no newline after it: cut short by a kill
                notes.append(f"{path}:{i + 1}: skipped a half-written last line")
                continue
            raise ValueError(f"{path}:{i + 1}: not valid JSON") from None
        if not isinstance(obj, dict) or not isinstance(obj.get("type"), str):
            raise ValueError(f"{path}:{i + 1}: a trace record must be a JSON object with a string 'type'")
        records.append(obj)
    return records, notes


@dataclass
class ResumeState:
    """What a trace already holds: finished chains, decided steps, candidates and scores."""

    ends: dict[tuple[str, str], dict[str, Any]] = field(default_factory=dict)
    steps: dict[tuple[str, str, int], dict[str, Any]] = field(default_factory=dict)
    candidates: dict[str, list[str]] = field(default_factory=dict)  # context_id -> candidates
    candidate_tokens: dict[str, list[int]] = field(default_factory=dict)
    scores: dict[str, tuple[np.ndarray, list[list[str | None]]]] = field(default_factory=dict)
    judges: tuple[str, ...] | None = None
    notes: list[str] = field(default_factory=list)

    @property
    def n_steps(self) -> int:
        return len(self.steps)


def load_resume_state(path: str | Path) -> ResumeState:
    """The state to resume from (empty when the trace does not exist yet)."""
    records, notes = read_records(path)
    st = ResumeState(notes=notes)
    for r in records:
        if r["type"] == "task_end":
            st.ends[(r["task_id"], r["chain"])] = r
        elif r["type"] == "step":
            st.steps[(r["task_id"], r["chain"], int(r["step"]))] = r
            cid = r["context_id"]
            cands = list(r["candidates"])
            if len(cands) >= len(st.candidates.get(cid, [])):
                st.candidates[cid] = cands
                toks = r.get("candidate_tokens")
                st.candidate_tokens[cid] = list(toks) if isinstance(toks, list) else [0] * len(cands)
                raw = np.array([[np.nan if v is None else float(v) for v in row] for row in r["raw"]], dtype=float)
                st.scores[cid] = (raw.reshape(len(cands), -1), [list(f) for f in r["failures"]])
            st.judges = tuple(r["judges"])
    return st
