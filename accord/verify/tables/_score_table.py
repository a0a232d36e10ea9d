"""Reading tables of raw judge scores (CSV or JSONL) into a (steps, candidates, judges) array.

CSV: header ``step,candidate,<judge 1>,<judge 2>,...``; one row per candidate; an empty cell is a
failed judge. A literal NaN (``nan`` in CSV, ``NaN`` in JSONL or Parquet) is refused by default
(``nan="error"``: it is more often a bug upstream than a deliberate mark) or, with
``nan="failed"``, read as a failed judge, on the in-memory and the streaming path alike; any other
number outside [0, 1], infinities included, is rejected. JSONL: one object per candidate,
``{"step": ..., "candidate": ..., "scores": {"<judge>": value-or-null, ...}}``; the first record
fixes the judges and every record must name the same ones. Steps keep their order of first
appearance; candidates keep theirs within a step. Problems raise :class:`UserError` naming the
file, the line and the problem.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from accord.errors import UserError
from accord.verify.io import csv_rows, input_file, parse_json, text_lines


@dataclass(frozen=True)
class ScoreTable:
    judges: tuple[str, ...]
    steps: tuple[str, ...]
    candidates: tuple[tuple[str, ...], ...]  # candidate ids per step
    raw: np.ndarray  # (n_steps, n_max, m), NaN where a judge failed or the slot is padding
    present: np.ndarray  # (n_steps, n_max) bool: the slot holds a real candidate


@dataclass(frozen=True)
class ScoreRow:
    line: int
    step: str
    candidate: str
    scores: tuple[float, ...]  # NaN = failed judge


NAN_MODES = ("error", "failed")


def check_nan_mode(nan: str) -> str:
    if nan not in NAN_MODES:
        raise ValueError(f"nan must be one of {NAN_MODES}, got {nan!r}")
    return nan


def nan_error(where: str) -> UserError:
    """The one message for a literal NaN score under ``nan="error"``."""
    return UserError(
        f"{where}: score is NaN; leave the cell empty (null in JSON) for a failed judge, "
        f"or pass --nan failed to read NaN as a failed judge"
    )


def score_cell(value, where: str, nan: str = "error") -> float:
    if value is None or (isinstance(value, str) and value.strip() == ""):
        return math.nan
    if isinstance(value, bool):
        raise UserError(f"{where}: score {value!r} is not a number")
    try:
        x = float(value)
    except (TypeError, ValueError):
        raise UserError(f"{where}: score {value!r} is not a number") from None
    if math.isnan(x):
        if nan == "error":
            raise nan_error(where)
        return math.nan
    if not (0.0 <= x <= 1.0):
        raise UserError(f"{where}: score {x} is outside [0, 1] (leave the cell empty for a failed judge)")
    return x


def iter_csv_rows(path: Path, nan: str = "error") -> tuple[tuple[str, ...], Iterable[ScoreRow]]:
    handle = text_lines(path, "score table")
    reader = csv_rows(handle, str(path))
    try:
        _, header = next(reader)
    except StopIteration:
        raise UserError(f"{path}:1: empty file, expected a header step,candidate,<judge>,...") from None
    header = [h.strip() for h in header]
    if len(header) < 4 or header[0] != "step" or header[1] != "candidate":
        raise UserError(
            f"{path}:1: header must be step,candidate,<judge 1>,<judge 2>,... (at least two judges), got "
            f"{','.join(header)}"
        )
    judges = tuple(header[2:])
    if len(set(judges)) != len(judges) or any(not j for j in judges):
        raise UserError(f"{path}:1: judge names must be non-empty and distinct, got {list(judges)}")

    def rows():
        for line, cells in reader:
            if not cells or all(not c.strip() for c in cells):
                continue
            if len(cells) != len(header):
                raise UserError(f"{path}:{line}: expected {len(header)} columns, got {len(cells)}")
            step, cand = cells[0].strip(), cells[1].strip()
            if not step or not cand:
                raise UserError(f"{path}:{line}: step and candidate must not be empty")
            where = f"{path}:{line}"
            yield ScoreRow(
                line, step, cand, tuple(score_cell(c, f"{where} ({j})", nan) for c, j in zip(cells[2:], judges))
            )

    return judges, rows()


def iter_jsonl_rows(path: Path, nan: str = "error") -> tuple[tuple[str, ...], Iterable[ScoreRow]]:
    lines = enumerate(text_lines(path, "score table"), start=1)
    first = None
    for line, text in lines:
        if text.strip():
            first = (line, text)
            break
    if first is None:
        raise UserError(f"{path}:1: empty file, expected one JSON object per candidate")

    def parse(line: int, text: str) -> dict:
        obj = parse_json(text, f"{path}:{line}")
        if not isinstance(obj, dict) or not {"step", "candidate", "scores"} <= obj.keys():
            raise UserError(f"{path}:{line}: expected an object with keys step, candidate, scores")
        if not isinstance(obj["scores"], dict):
            raise UserError(f"{path}:{line}: 'scores' must be an object {{judge: value-or-null}}")
        return obj

    head = parse(*first)
    judges = tuple(str(k) for k in head["scores"])
    if len(judges) < 2:
        raise UserError(f"{path}:{first[0]}: a panel needs at least two judges, got {list(judges)}")

    def row(line: int, obj: dict) -> ScoreRow:
        keys = tuple(str(k) for k in obj["scores"])
        if set(keys) != set(judges):
            raise UserError(f"{path}:{line}: judges {sorted(keys)} differ from the first record's {sorted(judges)}")
        where = f"{path}:{line}"
        scores = tuple(score_cell(obj["scores"][j], f"{where} ({j})", nan) for j in judges)
        return ScoreRow(line, str(obj["step"]), str(obj["candidate"]), scores)

    def rows():
        yield row(first[0], head)
        for line, text in lines:
            if text.strip():
                yield row(line, parse(line, text))

    return judges, rows()


def iter_rows(path: Path, nan: str = "error") -> tuple[tuple[str, ...], Iterable[ScoreRow]]:
    """(judges, rows) for a CSV or JSONL score file, by extension (.csv, .jsonl/.json)."""
    check_nan_mode(nan)
    path = input_file(path, "score table")
    suffix = path.suffix.lower()
    if suffix == ".csv":
        return iter_csv_rows(path, nan)
    if suffix in (".jsonl", ".json", ".ndjson"):
        return iter_jsonl_rows(path, nan)
    raise UserError(f"{path}: unknown format {suffix!r}; use .csv or .jsonl")


def read_score_table(path, nan: str = "error") -> ScoreTable:
    """The whole table in memory, candidates grouped by step (NaN-padded to the largest step).

    ``nan``: a literal NaN score is an error (default) or a failed judge (``"failed"``)."""
    path = Path(path)
    judges, rows = iter_rows(path, nan)
    order: dict[str, dict[str, tuple[float, ...]]] = {}
    for r in rows:
        cands = order.setdefault(r.step, {})
        if r.candidate in cands:
            raise UserError(f"{path}:{r.line}: candidate {r.candidate!r} of step {r.step!r} appears twice")
        cands[r.candidate] = r.scores
    if not order:
        raise UserError(f"{path}: no score rows")
    n_max = max(len(c) for c in order.values())
    m = len(judges)
    raw = np.full((len(order), n_max, m), np.nan)
    present = np.zeros((len(order), n_max), dtype=bool)
    for s, cands in enumerate(order.values()):
        for c, scores in enumerate(cands.values()):
            raw[s, c] = scores
            present[s, c] = True
    return ScoreTable(judges, tuple(order), tuple(tuple(c) for c in order.values()), raw, present)


def read_influence(path, judges: tuple[str, ...]) -> np.ndarray:
    """An m x m influence matrix from CSV; an optional header row of judge names reorders it."""
    path = Path(path)
    rows = [r for _, r in csv_rows(text_lines(path, "influence matrix"), str(path)) if r and any(c.strip() for c in r)]
    if not rows:
        raise UserError(f"{path}:1: empty influence matrix")
    names = None
    try:
        float(rows[0][0])
    except ValueError:
        names = [c.strip() for c in rows[0]]
        rows = rows[1:]
    m = len(judges)
    if len(rows) != m or any(len(r) != m for r in rows):
        raise UserError(f"{path}: influence matrix must be {m} x {m} for judges {list(judges)}")
    try:
        W = np.array([[float(c) for c in r] for r in rows])
    except ValueError as exc:
        raise UserError(f"{path}: influence matrix has a non-number ({exc})") from None
    if not np.isfinite(W).all():
        r, c = np.argwhere(~np.isfinite(W))[0]
        raise UserError(
            f"{path}: influence matrix entry ({r + 1}, {c + 1}) is {W[r, c]}; every entry must be a finite number"
        )
    if names is not None:
        if sorted(names) != sorted(judges):
            raise UserError(f"{path}:1: header names {names} do not match the score table's judges {list(judges)}")
        idx = [names.index(j) for j in judges]
        W = W[np.ix_(idx, idx)]
    return W
