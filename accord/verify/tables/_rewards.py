"""Reward tables: the in-memory :class:`RewardTable` and the streamed best-of-n :class:`RewardFile`.

Both layouts are read by the same chunked readers as score tables (:mod:`accord.verify.tables`):
CSV through pyarrow's streaming reader, Parquet by record batches, JSONL line by line, each chunk
validated and normalised to ``prompt_id, response_id, label?, <model>..., _line``.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from accord.errors import UserError
from accord.verify.io import csv_rows, input_file, json_objects, parse_json, table_format, text_lines
from accord.verify.tables import METADATA
from accord.verify.tables import _streaming as streaming
from accord.verify.tables._chunks import CSV_NULLS, csv_batches, jsonl_lines, parquet_batches

RESERVED = {
    "prompt_id",
    "response_id",
    "label",
    "correct",
    "id",
    "chosen",
    "rejected",
    "prompt",
    "response",
    "reference",
}


def pick_models(numeric, models=None, meta=()) -> tuple[list[str], list[str]]:
    """(reward models, numeric columns left out as metadata): ``models`` when given, else every
    numeric column that is neither reserved, a known metadata name nor named in ``meta``."""
    if models:
        return list(models), []
    skip = METADATA | set(meta or ())
    cols = [n for n in numeric if n not in RESERVED]
    return [n for n in cols if n not in skip], [n for n in cols if n in skip]


PROMPT, RESPONSE, LABEL, LINE = "prompt_id", "response_id", "label", streaming.LINE
COLS, NOUNS = (PROMPT, RESPONSE), ("prompt", "response")


@dataclass(frozen=True)
class RewardTable:
    """Rewards as (prompts, responses, models); padding rows are all NaN with ``valid`` False."""

    kind: str  # "best_of_n" or "pairs"
    models: list[str]
    prompt_ids: list[str]
    response_ids: list[list[str]]
    raw: np.ndarray  # (P, n, m)
    labels: np.ndarray | None  # (P, n), NaN on padding
    valid: np.ndarray  # (P, n)
    metadata: tuple[str, ...] = ()  # numeric columns left out as metadata (not models)

    @property
    def flat_raw(self) -> np.ndarray:
        return self.raw[self.valid]

    @property
    def flat_labels(self) -> np.ndarray | None:
        return None if self.labels is None else self.labels[self.valid]


def reward_value(v, where: str) -> float:
    """A reward: a finite number, or NaN for null (a failed judge); a NaN typed in the file is refused."""
    if v is None:
        return float("nan")
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        raise UserError(f"{where}: reward must be a number or null, got {v!r}")
    x = float(v)
    if np.isinf(x):
        raise UserError(f"{where}: reward is infinite")
    if np.isnan(x):  # read as "failed" it would change the ranking without a word
        raise UserError(f"{where}: reward is NaN; write null for a judge that failed")
    return x


def label_value(v, where: str) -> float:
    """A label: 0 or 1 (true/false accepted)."""
    if isinstance(v, bool):
        return float(v)
    if v in (0, 1):
        return float(v)
    raise UserError(f"{where}: label must be 0 or 1 (or true/false), got {v!r}")


@dataclass(frozen=True)
class RewardFile:
    """A best-of-n reward file: path, format, reward-model columns and its label column (or None)."""

    path: Path
    format: str
    models: tuple[str, ...]
    label: str | None
    metadata: tuple[str, ...] = ()  # numeric columns left out as metadata (not models)

    @property
    def judges(self) -> tuple[str, ...]:  # what streaming.ray_dataset sizes its blocks by
        return self.models

    def types(self) -> dict:
        t = {PROMPT: pa.string(), RESPONSE: pa.string()}
        if self.label:
            t[self.label] = pa.float64()
        return t | {m: pa.float64() for m in self.models}


def _header(path: Path, fmt: str) -> tuple[list[str], list[str]]:
    """(column names, numeric columns) from a Parquet schema, a CSV header or the first JSONL record."""
    if fmt == "parquet":
        try:
            schema = pq.read_schema(path)
        except (pa.ArrowInvalid, OSError) as exc:
            raise UserError(f"{path}: not a readable Parquet file ({exc})") from None
        num = [
            f.name
            for f in schema
            if pa.types.is_floating(f.type)
            or pa.types.is_integer(f.type)
            or pa.types.is_null(f.type)
            or pa.types.is_decimal(f.type)
        ]
        return schema.names, num
    lines = text_lines(path, "reward table")
    if fmt == "csv":
        names = [h.strip() for h in next((row for _, row in csv_rows(lines, str(path))), [])]
        return names, names
    for _, obj in json_objects(lines, str(path)):
        if "chosen" in obj:
            raise UserError(
                f"{path}: the pairs layout is evaluated in memory; drop --stream, --output, --chunk-size and --backend"
            )
        return list(obj), [
            k for k, v in obj.items() if v is None or (isinstance(v, (int, float)) and not isinstance(v, bool))
        ]
    raise UserError(f"{path}: no rows")


def open_rewards(path, models=None, meta=()) -> RewardFile:
    """Format, models and label column of a best-of-n reward file, from its header."""
    path = input_file(path, "reward table")
    fmt = table_format(path, flag=None, reading=True)
    names, numeric = _header(path, fmt)
    if PROMPT not in names or RESPONSE not in names:
        raise UserError(f"{path}: a streamed reward table needs prompt_id and response_id columns, got {names}")
    label = LABEL if LABEL in names else ("correct" if "correct" in names else None)
    chosen, left_out = pick_models(numeric, models, meta)
    numeric_set = set(numeric)
    unknown = [m for m in chosen if m not in numeric_set]
    if unknown:
        raise UserError(f"{path}: no numeric reward column(s) {unknown}; numeric columns are {numeric}")
    if len(chosen) < 2:
        raise UserError(f"{path}: an ensemble needs at least 2 reward models, found {chosen}")
    return RewardFile(path, fmt, tuple(chosen), label, tuple(left_out))


# --- reading -------------------------------------------------------------------------------


def _normalized(src: RewardFile, col, lines) -> pa.Table:
    """prompt_id, response_id (strings), label (float), models (float, NaN = failed), _line."""
    cols = {PROMPT: pc.cast(col(PROMPT), pa.string()), RESPONSE: pc.cast(col(RESPONSE), pa.string())}
    if src.label:
        cols[LABEL] = pc.cast(col(src.label), pa.float64())
    for m in src.models:
        cols[m] = pc.fill_null(pc.cast(col(m), pa.float64()), np.nan)
    cols[LINE] = pa.array(lines, pa.int64())
    return pa.table(cols)


def _from_batch(src: RewardFile, b, lines) -> pa.Table:
    if src.format != "csv":
        return _normalized(src, b.column, lines)
    trim = {PROMPT, RESPONSE}
    return _normalized(src, lambda c: pc.utf8_trim_whitespace(b.column(c)) if c in trim else b.column(c), lines)


def _from_lines(src: RewardFile, items) -> pa.Table:
    """JSONL records ``(line number or -1, text)``: validated like the in-memory reader."""
    pids, rids, labels, x = [], [], [], np.full((len(items), len(src.models)), np.nan)
    for i, (no, text) in enumerate(items):
        at = f"{src.path}:{no}" if no >= 0 else f"{src.path}: {text[:80]!r}"
        obj = parse_json(text, at)
        if not isinstance(obj, dict) or PROMPT not in obj or RESPONSE not in obj:
            raise UserError(f"{at}: expected an object with prompt_id, response_id and rewards")
        if no < 0:
            at = f"{src.path}: prompt {obj[PROMPT]!r} response {obj[RESPONSE]!r}"
        pids.append(str(obj[PROMPT]))
        rids.append(str(obj[RESPONSE]))
        if src.label:
            labels.append(label_value(obj.get(src.label), at))
        for j, m in enumerate(src.models):
            x[i, j] = reward_value(obj.get(m), f"{at}: {m}")
    cols = {
        PROMPT: pa.array(pids, pa.string()),
        RESPONSE: pa.array(rids, pa.string()),
        src.label: pa.array(labels, pa.float64()),
    }
    cols.update({m: pa.array(x[:, j]) for j, m in enumerate(src.models)})
    return _normalized(src, cols.__getitem__, [no for no, _ in items])


def _parquet_chunks(src: RewardFile, chunk_size: int) -> Iterator[pa.Table]:
    for b, lines in parquet_batches(src.path, list(src.types()), chunk_size):
        yield _from_batch(src, b, lines)


def _csv_chunks(src: RewardFile, chunk_size: int) -> Iterator[pa.Table]:
    for b, lines in csv_batches(src.path, src.types(), chunk_size, lambda: _locate_csv_error(src)):
        yield _from_batch(src, b, lines)


def _locate_csv_error(src: RewardFile) -> None:
    """Re-read the CSV row by row to name the line of a value that is not a number (error path only)."""
    for line, row in csv_rows(text_lines(src.path), str(src.path), dict_rows=True):
        for col in (src.label, *src.models) if src.label else src.models:
            cell = (row.get(col) or "").strip()
            try:
                float(cell) if cell not in CSV_NULLS else None
            except ValueError:
                what = "label must be 0 or 1" if col == src.label else "reward must be a number or null"
                raise UserError(f"{src.path}:{line}: {col}: {what}, got {cell!r}") from None


def _jsonl_chunks(src: RewardFile, chunk_size: int) -> Iterator[pa.Table]:
    for items in jsonl_lines(src.path, chunk_size):
        yield _from_lines(src, items)


def iter_rewards(src: RewardFile, chunk_size: int = streaming.DEFAULT_CHUNK_SIZE) -> Iterator[pa.Table]:
    """Validated, normalised chunks of at most ``chunk_size`` rows, in file order."""
    return streaming.iter_chunks(
        src, chunk_size, {"csv": _csv_chunks, "jsonl": _jsonl_chunks, "parquet": _parquet_chunks}, _check
    )


def _check(src: RewardFile, t: pa.Table) -> None:
    """Vectorised validation (ids present, rewards finite or null, labels 0/1); names the row."""
    lines = t.column(LINE).to_numpy()

    def where(i):
        return streaming.where(src, int(lines[i]), t.column(PROMPT)[i].as_py(), t.column(RESPONSE)[i].as_py(), NOUNS)

    for col in COLS:
        bad = pc.or_(pc.is_null(t.column(col)), pc.equal(pc.utf8_length(t.column(col)), 0))
        idx = np.flatnonzero(bad.to_numpy(zero_copy_only=False))
        if idx.size:
            raise UserError(f"{where(idx[0])}: prompt_id and response_id must not be empty")
    for m in src.models:
        idx = np.flatnonzero(np.isinf(t.column(m).to_numpy()))
        if idx.size:
            raise UserError(f"{where(idx[0])}: {m}: reward is infinite")
    if src.label:
        y = t.column(LABEL).to_numpy(zero_copy_only=False)
        idx = np.flatnonzero((y != 0) & (y != 1))
        if idx.size:
            v = None if np.isnan(y[idx[0]]) else y[idx[0]]
            raise UserError(f"{where(idx[0])}: label must be 0 or 1 (or true/false), got {v!r}")


def read_columns(path, models=None, meta=()) -> RewardTable:
    """A CSV or Parquet best-of-n table read whole (the in-memory path), as ``read_rewards`` does."""
    src = open_rewards(path, models, meta)
    parts = list(iter_rewards(src))
    if not parts or not sum(p.num_rows for p in parts):
        raise UserError(f"{src.path}: no rows")
    t = pa.concat_tables(parts)
    enc = pc.dictionary_encode(t.column(PROMPT)).combine_chunks()
    code, pids = enc.indices.to_numpy(), enc.dictionary.to_pylist()  # prompts in order of first appearance
    order = np.argsort(code, kind="stable")
    counts = np.bincount(code)
    pos = np.empty(code.size, dtype=np.int64)
    pos[order] = np.arange(code.size) - np.repeat(np.cumsum(counts) - counts, counts)
    raw = np.full((len(pids), int(counts.max()), len(src.models)), np.nan)
    raw[code, pos] = np.column_stack([t.column(m).to_numpy() for m in src.models])
    valid = np.zeros(raw.shape[:2], dtype=bool)
    valid[code, pos] = True
    labels = None
    if src.label:
        labels = np.full(valid.shape, np.nan)
        labels[code, pos] = t.column(LABEL).to_numpy()
    rids = [[] for _ in pids]
    for c, r in zip(code[order], np.asarray(t.column(RESPONSE).to_pylist(), dtype=object)[order]):
        rids[c].append(r)
    for pid, ids in zip(pids, rids):
        if len(set(ids)) != len(ids):
            raise UserError(f"{src.path}: prompt {pid!r} has repeated response ids")
    return RewardTable("best_of_n", list(src.models), pids, rids, raw, labels, valid, src.metadata)


def block_rows(src: RewardFile, batch: pa.Table) -> pa.Table:
    """A Ray Data block's rows (raw text lines for JSONL), validated and normalised; no line numbers."""
    if src.format == "jsonl":
        t = _from_lines(src, [(-1, s) for s in batch.column("text").to_pylist() if s.strip()])
    else:
        t = _from_batch(src, batch, np.full(batch.num_rows, -1))
    _check(src, t)
    return t
