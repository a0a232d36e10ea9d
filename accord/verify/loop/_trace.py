"""Writing a run's ``trace.jsonl`` record by record, and reading it back to resume a run.

Every record is one JSON line, written and flushed at once, so a run killed at any moment keeps
everything up to the step in flight. A kill can leave a half-written last line: on resume it is
cut off (and noted) before anything is appended, so the file stays valid JSONL.

Every record carries ``run_id`` (the same for a run and all its resumes), ``writer`` (one per
process that appended to the file) and ``seq``, its 0-based position in the file. Two processes
appending at once cannot both keep ``seq`` equal to the position, so :func:`one_writer_problem`
finds a trace they wrote together, and readers refuse it rather than pick one of its duplicates.
The record format is in docs/trace-format.md; :mod:`accord.verify.analysis` validates it for readers.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import threading
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from accord.errors import UserError
from accord.verify.io import fault_after_write, fault_before_write


def context_id(task_id: str, steps) -> str:
    """sha1 hex of task_id + US + US.join(accepted steps): the key of a recorded context."""
    text = task_id + "\x1f" + "\x1f".join(steps)
    return hashlib.sha1(text.encode("utf-8")).hexdigest()


def json_safe(obj: Any) -> Any:
    """A JSON-safe copy: numpy values to Python numbers, NaN and infinities to null (JSON has neither),
    tuples to lists, keys to strings. Every record and report accord writes goes through it."""
    if isinstance(obj, dict):
        return {str(k): json_safe(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [json_safe(v) for v in obj]
    if isinstance(obj, np.ndarray):
        return json_safe(obj.tolist())
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


def task_record(task) -> dict[str, Any]:
    """The ``task`` record: the problem text and the reference, written once per task before its chains."""
    reference = getattr(task, "reference", None)
    return {
        "type": "task",
        "task_id": task.id,
        "question": str(getattr(task, "question", "") or ""),
        "reference": None if reference is None else str(reference),
    }


def new_id() -> str:
    return uuid.uuid4().hex[:12]


class TraceWriter:
    """Appends records to a trace file, flushing (and fsync-ing) each one.

    Each record gets ``run_id`` (the trace's own, or a new one for a new trace), ``writer`` (new for
    this writer) and ``seq`` (its position in the file, continued from the records already there).
    The caller holds the folder's writer lock (:mod:`accord.verify.io`).
    """

    def __init__(self, path: str | Path, fsync: bool = True):
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.note = cut_partial_line(self.path)
        existing, _ = read_records(self.path)
        self.run_id = next((r["run_id"] for r in existing if isinstance(r.get("run_id"), str)), None) or new_id()
        self.writer_id = new_id()
        self.seq = len(existing)
        self._written = 0
        self._fh = open(self.path, "a", encoding="utf-8")
        self._fsync = fsync
        self._lock = threading.Lock()

    def write(self, record: dict[str, Any]) -> None:
        with self._lock:
            stamped = {**record, "run_id": self.run_id, "writer": self.writer_id, "seq": self.seq}  # ours win
            line = json.dumps(json_safe(stamped), ensure_ascii=False, allow_nan=False) + "\n"
            self._written += 1
            fault_before_write("trace", self._written, lambda: self._put(line[: len(line) // 2]))
            self._put(line)
            self.seq += 1
            fault_after_write("trace", self._written)

    def _put(self, text: str) -> None:
        self._fh.write(text)
        self._fh.flush()
        if self._fsync:
            os.fsync(self._fh.fileno())

    def close(self) -> None:
        with self._lock:
            if not self._fh.closed:
                self._fh.close()

    def __enter__(self) -> TraceWriter:
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def read_records(path: str | Path) -> tuple[list[dict[str, Any]], list[str]]:
    """All complete records of a trace (a half-written last line is skipped and noted); a trace
    written by two processes at once is a UserError naming the first line that shows it."""
    path = Path(path)
    records: list[dict[str, Any]] = []
    lines_of: list[int] = []
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
        lines_of.append(i + 1)
    problem = one_writer_problem(zip(lines_of, records))
    if problem:
        raise UserError(f"{path}:{problem}")
    return records, notes


def one_writer_problem(numbered) -> str | None:
    """``"line: why"`` when ``(line, record)`` pairs in file order were not written by one writer
    at a time (a ``seq`` off its position, or two run ids); None for a sound trace.
    Records without ``seq`` (older traces) are not checked."""
    run_id = None
    for position, (line, rec) in enumerate(numbered):
        seq = rec.get("seq")
        if seq is None:
            continue
        if seq != position:
            return (
                f"{line}: record numbered {seq!r} sits at position {position}: two processes wrote this trace at once; "
                f"its records cannot be trusted (rerun into a new folder)"
            )
        if run_id is not None and rec.get("run_id") != run_id:
            return f"{line}: records of two runs ({run_id}, {rec.get('run_id')}) in one trace"
        run_id = rec.get("run_id")
    return None


@dataclass
class ResumeState:
    """What a trace already holds: finished chains, decided steps, candidates and scores."""

    ends: dict[tuple[str, str], dict[str, Any]] = field(default_factory=dict)
    steps: dict[tuple[str, str, int], dict[str, Any]] = field(default_factory=dict)
    candidates: dict[str, list[str]] = field(default_factory=dict)  # context_id -> candidates
    candidate_tokens: dict[str, list[int]] = field(default_factory=dict)
    scores: dict[str, tuple[np.ndarray, list[list[str | None]]]] = field(default_factory=dict)
    abstentions: dict[str, list[list[str | None]]] = field(default_factory=dict)  # context_id -> why judges abstained
    judges: tuple[str, ...] | None = None
    notes: list[str] = field(default_factory=list)
    tasks: set[str] = field(default_factory=set)  # tasks whose question is already recorded

    @property
    def n_steps(self) -> int:
        return len(self.steps)


def load_resume_state(path: str | Path) -> ResumeState:
    """The state to resume from (empty when the trace does not exist yet)."""
    records, notes = read_records(path)
    st = ResumeState(notes=notes)
    for r in records:
        if r["type"] == "task":
            st.tasks.add(r["task_id"])
        elif r["type"] == "task_end":
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
                abst = r.get("abstentions")
                none = [[None] * len(r["judges"]) for _ in cands]
                st.abstentions[cid] = [list(a) for a in abst] if isinstance(abst, list) else none
            st.judges = tuple(r["judges"])
    return st
