"""Reading a run folder's ``trace.jsonl`` into validated records.

Replay, evaluation, reports and sweeps all read recorded runs; this module is the one place that
checks a trace against the run-folder contract, so that a malformed line is reported once, as
``file:line: problem``, and never surfaces later as a confusing numpy error.

A trace may end in a half-written line when a run was killed mid-write: an unparseable *last* line
without a trailing newline is skipped and noted in :attr:`Trace.notes`, never silently. A trace
written by two processes at once (its ``seq`` numbers off their positions) is refused.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from accord.consensus_core import parse_lambdas
from accord.errors import UserError
from accord.verify.io import CONFIG_FILE, SUMMARY_FILE, TRACE_FILE, parse_json, parse_yaml, read_text
from accord.verify.loop import one_writer_problem


@dataclass(frozen=True)
class StepRecord:
    """One decided step: the candidates, the raw score matrix and the decision that was taken."""

    task_id: str
    chain: str
    step: int
    context_id: str
    candidates: tuple[str, ...]
    judges: tuple[str, ...]
    lambdas: tuple[float, ...]
    raw: np.ndarray  # (n, m) float64, NaN = failed judge
    policy: dict[str, Any]
    accepted: tuple[bool, ...]
    chosen: int
    fallback: bool
    final: bool
    timings: dict[str, Any] = field(default_factory=dict)
    tokens: dict[str, Any] = field(default_factory=dict)
    line: int = 0
    candidate_tokens: tuple[int, ...] | None = None  # tokens generated per candidate, when recorded
    failures: tuple[tuple[str | None, ...], ...] | None = None  # why a judge gave no score, where recorded
    mean: tuple[float | None, ...] | None = None  # s̄* per candidate under the chain's rule, when recorded
    dispersion: tuple[float | None, ...] | None = None  # Δ* per candidate, when recorded
    note: str | None = None
    abstentions: tuple[tuple[str | None, ...], ...] | None = None  # why a judge abstained (left the panel)
    scale: str | None = None  # the judge scale the step was decided on (the trace's calibration record)

    @property
    def n(self) -> int:
        return len(self.candidates)

    @property
    def m(self) -> int:
        return len(self.judges)


@dataclass(frozen=True)
class TaskEnd:
    """The end of one chain on one task: its steps, answer and correctness."""

    task_id: str
    chain: str
    steps: tuple[str, ...]
    answer: str | None
    reference: str
    correct: float
    stopped: str
    line: int = 0


@dataclass(frozen=True)
class TaskInfo:
    """A task's problem text and reference, recorded once per task (traces before this record lack it)."""

    task_id: str
    question: str
    reference: str | None
    line: int = 0


@dataclass
class Trace:
    """All records of one trace file, in file order."""

    path: Path
    steps: list[StepRecord]
    ends: list[TaskEnd]
    notes: list[str] = field(default_factory=list)
    problems: dict[str, TaskInfo] = field(default_factory=dict)  # by task id, where recorded
    calibration: dict[str, Any] | None = None  # the judge scale the run fitted (its calibration record)

    def chains(self) -> list[str]:
        """Chain labels in order of first appearance."""
        return _first_seen([r.chain for r in self.steps] + [e.chain for e in self.ends])

    def tasks(self) -> list[str]:
        return _first_seen([r.task_id for r in self.steps] + [e.task_id for e in self.ends])

    def chain_policy(self, chain: str) -> dict[str, Any] | None:
        """The policy dict recorded by a chain's first step (None if the chain has no steps)."""
        for r in self.steps:
            if r.chain == chain:
                return dict(r.policy)
        return None

    def end_of(self, chain: str) -> dict[str, TaskEnd]:
        return {e.task_id: e for e in self.ends if e.chain == chain}


def _first_seen(values: list[str]) -> list[str]:
    return list(dict.fromkeys(values))


class _Line:
    """Field access for one record that names file, line and field in every error."""

    def __init__(self, where: str, obj: dict, kind: str):
        self.where, self.obj, self.kind = where, obj, kind

    def fail(self, msg: str) -> UserError:
        return UserError(f"{self.where}: {self.kind} record: {msg}")

    def get(self, key: str, types, *, optional: bool = False, default=None):
        if key not in self.obj:
            if optional:
                return default
            raise self.fail(f"missing field {key!r}")
        value = self.obj[key]
        if not isinstance(value, types) or (isinstance(value, bool) and bool not in _as_tuple(types)):
            raise self.fail(f"field {key!r} must be {_type_name(types)}, got {type(value).__name__}")
        return value


def _as_tuple(types) -> tuple:
    return types if isinstance(types, tuple) else (types,)


def _type_name(types) -> str:
    return " or ".join("null" if t is type(None) else t.__name__ for t in _as_tuple(types))


def _number(x) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x)


def _parse_step(rec: _Line) -> StepRecord:
    candidates = rec.get("candidates", list)
    if not candidates or not all(isinstance(c, str) for c in candidates):
        raise rec.fail("'candidates' must be a non-empty list of strings")
    judges = rec.get("judges", list)
    if len(judges) < 2 or not all(isinstance(j, str) for j in judges):
        raise rec.fail("'judges' must list at least two judge names")
    n, m = len(candidates), len(judges)
    try:
        lambdas = parse_lambdas(rec.get("lambdas", list), m)
    except ValueError as exc:
        raise rec.fail(f"'lambdas': {exc}") from None
    raw_in = rec.get("raw", list)
    if len(raw_in) != n:
        raise rec.fail(f"'raw' must have {n} rows (one per candidate), got {len(raw_in)}")
    raw = np.full((n, m), np.nan)
    for i, row in enumerate(raw_in):
        if not isinstance(row, list) or len(row) != m:
            raise rec.fail(f"'raw' row {i} must hold {m} scores (one per judge)")
        for j, v in enumerate(row):
            if v is None:
                continue
            if not _number(v) or not 0.0 <= v <= 1.0:
                raise rec.fail(f"'raw'[{i}][{j}] must be a number in [0, 1] or null, got {v!r}")
            raw[i, j] = float(v)
    policy = rec.get("policy", dict)
    if not isinstance(policy.get("name"), str):
        raise rec.fail("'policy' must have a string 'name'")
    accepted = rec.get("accepted", list)
    if len(accepted) != n or not all(isinstance(a, bool) for a in accepted):
        raise rec.fail(f"'accepted' must hold {n} booleans (one per candidate)")
    chosen = rec.get("chosen", int)
    if not -1 <= chosen < n:
        raise rec.fail(f"'chosen' must be a candidate index in [0, {n}) (or -1), got {chosen}")
    step = rec.get("step", int)
    if step < 0:
        raise rec.fail(f"'step' must be >= 0, got {step}")
    ctoks = rec.get("candidate_tokens", list, optional=True)
    if ctoks is not None and (
        len(ctoks) != n or not all(isinstance(t, int) and not isinstance(t, bool) for t in ctoks)
    ):
        raise rec.fail(f"'candidate_tokens' must hold {n} integers (one per candidate)")
    failures, abstentions = _failures(rec, n, m), _reasons(rec, "abstentions", n, m)
    if abstentions is None and failures is not None:  # older traces: abstentions were recorded as failures
        abstentions = tuple(tuple(f if f in LEGACY_ABSTENTIONS else None for f in row) for row in failures)
        failures = tuple(tuple(None if f in LEGACY_ABSTENTIONS else f for f in row) for row in failures)
    return StepRecord(
        failures=failures,
        abstentions=abstentions,
        scale=rec.get("scale", str, optional=True),
        mean=_per_candidate(rec, "mean", n),
        dispersion=_per_candidate(rec, "dispersion", n),
        note=rec.get("note", str, optional=True),
        task_id=rec.get("task_id", str),
        chain=rec.get("chain", str),
        step=step,
        context_id=rec.get("context_id", str),
        candidates=tuple(candidates),
        judges=tuple(judges),
        lambdas=lambdas,
        raw=raw,
        policy=policy,
        accepted=tuple(accepted),
        chosen=chosen,
        fallback=rec.get("fallback", bool),
        final=rec.get("final", bool),
        timings=rec.get("timings", dict, optional=True, default={}),
        tokens=rec.get("tokens", dict, optional=True, default={}),
        candidate_tokens=tuple(ctoks) if ctoks is not None else None,
    )


def _failures(rec: _Line, n: int, m: int) -> tuple[tuple[str | None, ...], ...] | None:
    return _reasons(rec, "failures", n, m)


# what judges said when abstaining, before abstentions had their own field
LEGACY_ABSTENTIONS = frozenset({"no arithmetic to check", "not the final step"})


def _reasons(rec: _Line, key: str, n: int, m: int) -> tuple[tuple[str | None, ...], ...] | None:
    failures = rec.get(key, (list, type(None)), optional=True)
    if failures is None:
        return None
    if len(failures) != n or not all(
        isinstance(row, list) and len(row) == m and all(f is None or isinstance(f, str) for f in row)
        for row in failures
    ):
        raise rec.fail(f"{key!r} must be {n} rows of {m} reasons (text or null)")
    return tuple(tuple(row) for row in failures)


def _per_candidate(rec: _Line, key: str, n: int) -> tuple[float | None, ...] | None:
    values = rec.get(key, (list, type(None)), optional=True)
    if values is None:  # not recorded (older traces; null for a chain without consensus)
        return None
    if len(values) != n or not all(v is None or _number(v) for v in values):
        raise rec.fail(f"{key!r} must hold {n} numbers or nulls (one per candidate)")
    return tuple(None if v is None else float(v) for v in values)


def _parse_task(rec: _Line) -> TaskInfo:
    return TaskInfo(
        task_id=rec.get("task_id", str),
        question=rec.get("question", str),
        reference=rec.get("reference", (str, type(None)), optional=True),
    )


def _parse_end(rec: _Line) -> TaskEnd:
    steps = rec.get("steps", list)
    if not all(isinstance(s, str) for s in steps):
        raise rec.fail("'steps' must be a list of strings")
    correct = rec.get("correct", (int, float))
    if not _number(correct) or not 0.0 <= correct <= 1.0:
        raise rec.fail(f"'correct' must be a number in [0, 1], got {correct!r}")
    return TaskEnd(
        task_id=rec.get("task_id", str),
        chain=rec.get("chain", str),
        steps=tuple(steps),
        answer=rec.get("answer", (str, type(None)), optional=True),
        reference=str(rec.get("reference", (str, int, float, type(None)), optional=True, default="")),
        correct=float(correct),
        stopped=rec.get("stopped", str, optional=True, default="final"),
    )


def read_trace(path: str | Path) -> Trace:
    """Parse and validate a ``trace.jsonl``; a malformed line is a UserError naming file and line."""
    path = Path(path)
    text = read_text(path, "trace file")
    lines = text.split("\n")
    trace = Trace(path=path, steps=[], ends=[])
    last = max((i for i, ln in enumerate(lines) if ln.strip()), default=-1)
    numbered: list[tuple[int, dict]] = []
    for i, line in enumerate(lines):
        if not line.strip():
            continue
        where = f"{path}:{i + 1}"
        try:
            obj = json.loads(line)
        except RecursionError:
            raise UserError(f"{where}: JSON nested too deeply") from None
        except json.JSONDecodeError as exc:
            if i == last and not text.endswith("\n"):
                trace.notes.append(f"{where}: skipped a half-written last line (the run was interrupted)")
                continue
            raise UserError(f"{where}: not valid JSON ({exc.msg})") from None
        if not isinstance(obj, dict):
            raise UserError(f"{where}: a trace record must be a JSON object")
        numbered.append((i + 1, obj))
        kind = obj.get("type")
        if kind == "step":
            rec = _parse_step(_Line(where, obj, "step"))
            trace.steps.append(_with_line(rec, i + 1))
        elif kind == "task_end":
            rec = _parse_end(_Line(where, obj, "task_end"))
            trace.ends.append(_with_line(rec, i + 1))
        elif kind == "task":
            info = _parse_task(_Line(where, obj, "task"))
            trace.problems.setdefault(info.task_id, _with_line(info, i + 1))
        elif kind == "calibration":
            trace.calibration = obj
        elif not isinstance(kind, str):
            raise UserError(f"{where}: a trace record needs a string field 'type'")
        # other record types (run headers, calls, notes) are allowed and ignored
    problem = one_writer_problem(numbered)
    if problem:
        raise UserError(f"{path}:{problem}")
    return trace


def _with_line(rec, line: int):
    object.__setattr__(rec, "line", line)
    return rec


def resolve_trace(run: str | Path) -> Path:
    """A run folder or a trace file -> the trace file path."""
    p = Path(run)
    if p.is_dir():
        p = p / TRACE_FILE
        if not p.is_file():
            raise UserError(f"{run}: not a run folder (no {TRACE_FILE})")
    elif not p.exists():
        raise UserError(f"{run}: no such run folder or trace file")
    return p


def read_summary(run_dir: str | Path) -> dict | None:
    """``summary.json`` of a run folder, or None if the run has not written one."""
    p = Path(run_dir) / SUMMARY_FILE
    if not p.is_file():
        return None
    data = parse_json(read_text(p, "summary"), str(p))
    if not isinstance(data, dict):
        raise UserError(f"{p}:1: summary must be a JSON object")
    return data


@dataclass(frozen=True)
class RunSettings:
    """What replay needs from a run's resolved config: its budgets and the panel's influence matrix."""

    max_steps: int | None = None
    max_tokens: int | None = None
    influence: np.ndarray | None = None


def read_settings(run_dir: str | Path) -> RunSettings:
    """Budgets and influence from ``config.yaml`` next to the trace; unknown (None) without one."""
    p = Path(run_dir) / CONFIG_FILE
    if not p.is_file():
        return RunSettings()
    cfg = parse_yaml(read_text(p, "run config"), str(p)) or {}
    if not isinstance(cfg, dict):
        raise UserError(f"{p}:1: the config must be a mapping")
    budgets = cfg.get("budgets") if isinstance(cfg.get("budgets"), dict) else {}

    def _int(key):
        v = budgets.get(key)
        if v is None:
            return None
        if not isinstance(v, int) or isinstance(v, bool) or v < 1:
            raise UserError(f"{p}: budgets.{key} must be an integer >= 1, got {v!r}")
        return v

    w = cfg.get("influence")
    try:
        influence = None if w is None else np.asarray(w, dtype=float)
    except (TypeError, ValueError):
        raise UserError(f"{p}: influence must be a matrix of numbers") from None
    return RunSettings(_int("max_steps"), _int("max_tokens"), influence)
