"""Score tables too large for memory: streaming readers, chunked decisions, Parquet output.

The in-memory reader (:mod:`accord.verify.tables`) builds one (steps, n, m) array. Here a
table is read in chunks of at most ``chunk_size`` rows (CSV through pyarrow's streaming reader,
Parquet by record batches, JSONL line by line), every complete step of a chunk is decided at once
through the core's vectorised policy, and the rows of the step that may continue into the next
chunk are carried over. So a step's candidates are never split, and memory is bounded by the chunk
size (plus one step), not by the file size. The same per-block code runs inside Ray Data tasks
(:func:`decide_with_ray`).

Streaming needs the rows of a step to be contiguous (tables written step by step are); a step
that reappears later in the same chunk is an error. The output has one row per candidate:
``step, candidate, <judge raw scores>, consensus_<judge>..., mean, dispersion, weighted_mean,
raw_mean, raw_mad, raw_var, n_scored, accepted, chosen, fallback`` (null = failed judge).
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from accord.consensus_core import ConsensusSpec, Policy
from accord.errors import UserError
from accord.verify.io import (
    atomic_output,
    csv_rows,
    fault_after_write,
    input_file,
    table_format,
    text_lines,
    user_error_from,
)
from accord.verify.tables import DEFAULT_CHUNK_SIZE
from accord.verify.tables._chunks import CSV_NULLS, csv_batches, csv_convert_options, in_groups, parquet_batches
from accord.verify.tables._score_table import check_nan_mode, iter_csv_rows, iter_jsonl_rows, nan_error, score_cell

STEP, CANDIDATE, LINE = "step", "candidate", "_line"
STATS = ("mean", "dispersion", "weighted_mean", "raw_mean", "raw_mad", "raw_var")
FLAGS = ("accepted", "chosen", "fallback")


@dataclass(frozen=True)
class TableSource:
    """A score file: its path, format (csv, jsonl or parquet), judge columns in order, and what a
    literal NaN score is (``"error"`` or ``"failed"``; see :mod:`accord.verify.tables`)."""

    path: Path
    format: str
    judges: tuple[str, ...]
    nan: str = "error"


@dataclass
class TableSummary:
    """Counts over a whole streamed table; what the command prints after writing the output."""

    rows: int = 0
    steps: int = 0
    accepted: int = 0  # steps whose chosen candidate passed the acceptance test
    fallback: int = 0  # steps decided by the fallback ranking
    unchosen: int = 0  # steps where no candidate had any score
    chunks: int = 0
    seconds: float = 0.0
    _last: object = field(default=None, repr=False)
    _chosen: int = field(default=0, repr=False)

    def add(self, out: pa.Table) -> None:
        """Count a written piece; a step may be split over consecutive pieces."""
        steps = out.column(STEP)
        new_steps = len(run_starts(steps))
        if self._last is not None and steps[0].as_py() == self._last:
            new_steps -= 1
        self._last = steps[-1].as_py()
        chosen = out.column("chosen").to_numpy(zero_copy_only=False)
        acc = out.column("accepted").to_numpy(zero_copy_only=False)[chosen]
        fb = out.column("fallback").to_numpy(zero_copy_only=False)[chosen]
        self.rows += out.num_rows
        self.steps += new_steps
        self.accepted += int(acc.sum())
        self.fallback += int(fb.sum())
        self._chosen += int(chosen.sum())
        self.unchosen = self.steps - self._chosen

    def as_dict(self) -> dict:
        return {k: getattr(self, k) for k in self.__dataclass_fields__ if not k.startswith("_")}


def open_source(path, nan: str = "error") -> TableSource:
    """Format and judges of a score file, read from its header (CSV), first record or schema."""
    check_nan_mode(nan)
    path = input_file(path, "score table")
    fmt = table_format(path, flag=None, reading=True)
    if fmt == "csv":
        header = next((row for _, row in csv_rows(text_lines(path), str(path))), [])
        if any(name != name.strip() for name in header):
            raise UserError(f"{path}:1: column names must not start or end with spaces when streaming, got {header}")
        judges, rows = iter_csv_rows(path)
    elif fmt == "jsonl":
        judges, rows = iter_jsonl_rows(path)
    else:
        return TableSource(path, fmt, _parquet_judges(path), nan)
    rows.close()
    return TableSource(path, fmt, judges, nan)


def _parquet_judges(path: Path) -> tuple[str, ...]:
    try:
        schema = pq.read_schema(path)
    except (pa.ArrowInvalid, OSError) as exc:
        raise UserError(f"{path}: not a readable Parquet file ({exc})") from None
    names = schema.names
    if STEP not in names or CANDIDATE not in names:
        raise UserError(f"{path}: Parquet columns must include step and candidate, got {names}")
    judges = tuple(n for n in names if n not in (STEP, CANDIDATE))
    for j in judges:
        t = schema.field(j).type
        if not (pa.types.is_floating(t) or pa.types.is_integer(t) or pa.types.is_null(t) or pa.types.is_decimal(t)):
            raise UserError(
                f"{path}: judge column {j!r} has type {t}, expected numbers in [0, 1] (null = failed judge)"
            )
    if len(judges) < 2:
        raise UserError(f"{path}: a panel needs at least two judge columns, got {list(judges)}")
    return judges


# --- reading -------------------------------------------------------------------------------


def _normalized(step, candidate, scores: dict[str, pa.Array], judges, line, src: TableSource | None = None) -> pa.Table:
    cols = {STEP: pc.cast(step, pa.string()), CANDIDATE: pc.cast(candidate, pa.string())}
    for j in judges:
        x = pc.cast(scores[j], pa.float64())
        if src is not None and src.nan == "error" and pc.any(pc.is_nan(x)).as_py():
            i = int(np.flatnonzero(pc.fill_null(pc.is_nan(x), False).to_numpy(zero_copy_only=False))[0])
            raise nan_error(f"{where(src, int(line[i]), cols[STEP][i].as_py(), cols[CANDIDATE][i].as_py())} ({j})")
        cols[j] = pc.fill_null(x, np.nan)
    cols[LINE] = pa.array(line, pa.int64())
    return pa.table(cols)


def _csv_chunks(src: TableSource, chunk_size: int) -> Iterator[pa.Table]:
    types = {STEP: pa.string(), CANDIDATE: pa.string(), **{j: pa.float64() for j in src.judges}}
    # only an empty cell is null: a literal nan stays NaN, so _normalized can tell it apart
    for b, lines in csv_batches(src.path, types, chunk_size, lambda: _locate_text_error(src), nulls=[""]):
        step, cand = pc.utf8_trim_whitespace(b.column(STEP)), pc.utf8_trim_whitespace(b.column(CANDIDATE))
        yield _normalized(step, cand, {j: b.column(j) for j in src.judges}, src.judges, lines, src)


def _locate_text_error(src: TableSource) -> None:
    """Re-read a CSV/JSONL file row by row to name the exact line of a problem (error path only)."""
    _, rows = (iter_csv_rows if src.format == "csv" else iter_jsonl_rows)(src.path, src.nan)
    for _ in rows:
        pass


def _jsonl_chunks(src: TableSource, chunk_size: int) -> Iterator[pa.Table]:
    _, rows = iter_jsonl_rows(src.path, src.nan)
    for group in in_groups(rows, chunk_size):
        yield _rows_table(group, src.judges)


def _rows_table(rows, judges) -> pa.Table:
    scores = np.array([r.scores for r in rows], dtype=np.float64).reshape(len(rows), len(judges))
    return _normalized(
        pa.array([r.step for r in rows]),
        pa.array([r.candidate for r in rows]),
        {j: pa.array(scores[:, i]) for i, j in enumerate(judges)},
        judges,
        [r.line for r in rows],
    )


def _parquet_chunks(src: TableSource, chunk_size: int) -> Iterator[pa.Table]:
    for b, lines in parquet_batches(src.path, [STEP, CANDIDATE, *src.judges], chunk_size):
        yield _normalized(
            b.column(STEP), b.column(CANDIDATE), {j: b.column(j) for j in src.judges}, src.judges, lines, src
        )


def iter_chunks(
    src: TableSource, chunk_size: int = DEFAULT_CHUNK_SIZE, readers: dict | None = None, check=None
) -> Iterator[pa.Table]:
    """Normalised chunks of at most ``chunk_size`` rows: step, candidate (strings), judges (float, NaN).

    Another table layout passes its own ``readers`` (format -> reader) and ``check``.
    """
    if chunk_size < 1:
        raise UserError(f"--chunk-size must be >= 1, got {chunk_size}")
    readers = readers or {"csv": _csv_chunks, "jsonl": _jsonl_chunks, "parquet": _parquet_chunks}
    check = check or _check_chunk
    for chunk in readers[src.format](src, chunk_size):
        check(src, chunk)
        yield chunk


def where(src: TableSource, line: int | None, step=None, cand=None, nouns=("step", "candidate")) -> str:
    if line is not None and line >= 0:
        unit = "row " if src.format == "parquet" else ""
        return f"{src.path}:{unit}{line}"
    return f"{src.path}: {nouns[0]} {step!r} {nouns[1]} {cand!r}"


def _check_chunk(src: TableSource, t: pa.Table) -> None:
    """Vectorised validation: ids present, scores in [0, 1] or NaN; the message names the row."""
    lines = t.column(LINE).to_numpy() if LINE in t.column_names else np.full(t.num_rows, -1)
    for col in (STEP, CANDIDATE):
        bad = pc.or_(pc.is_null(t.column(col)), pc.equal(pc.utf8_length(t.column(col)), 0))
        idx = np.flatnonzero(bad.to_numpy(zero_copy_only=False))
        if idx.size:
            raise UserError(f"{where(src, int(lines[idx[0]]))}: step and candidate must not be empty")
    for j in src.judges:
        x = t.column(j).to_numpy()
        idx = np.flatnonzero(~np.isnan(x) & ((x < 0) | (x > 1)))
        if idx.size:
            i = idx[0]
            if src.format == "csv":
                _locate_text_error(src)
            step, cand = t.column(STEP)[i].as_py(), t.column(CANDIDATE)[i].as_py()
            raise UserError(
                f"{where(src, int(lines[i]), step, cand)} ({j}): score {x[i]} is outside [0, 1] (null marks a failed "
                "judge)"
            )


# --- grouping and deciding ------------------------------------------------------------------


def run_starts(steps: pa.Array | pa.ChunkedArray) -> np.ndarray:
    """Row indices where a new step begins (rows of a step are contiguous)."""
    n = len(steps)
    if n == 0:
        return np.zeros(0, dtype=np.int64)
    if n == 1:
        return np.zeros(1, dtype=np.int64)
    change = pc.not_equal(steps.slice(1), steps.slice(0, n - 1)).to_numpy(zero_copy_only=False)
    return np.concatenate([[0], np.flatnonzero(change) + 1]).astype(np.int64)


def check_groups(
    src, t: pa.Table, starts: np.ndarray, run_id: np.ndarray, cols=(STEP, CANDIDATE), nouns=("step", "candidate")
) -> None:
    """A group's rows together and no item twice in a group; ``cols``/``nouns`` name the group and item."""
    unit, item = nouns
    steps = t.column(cols[0])
    run_steps = pc.take(steps, pa.array(starts))
    if pc.count_distinct(run_steps).as_py() != len(starts):
        counts = pc.value_counts(run_steps)
        again = counts.filter(pc.greater(counts.field("counts"), 1))[0]["values"].as_py()
        rows = np.flatnonzero(pc.equal(run_steps, again).to_numpy(zero_copy_only=False))
        line = int(t.column(LINE)[int(starts[rows[1]])].as_py()) if LINE in t.column_names else None
        raise UserError(
            f"{where(src, line, again, None, nouns)}: {unit} {again!r} appears again after other {unit}s; streaming "
            "needs "
            f"each {unit}'s rows together (sort or group the table by {cols[0]})"
        )
    codes = pc.dictionary_encode(t.column(cols[1])).combine_chunks().indices.to_numpy()
    keys = run_id * (int(codes.max()) + 1 if codes.size else 1) + codes
    uniq, first = np.unique(keys, return_index=True)
    if uniq.size != keys.size:
        dup = np.setdiff1d(np.arange(keys.size), first)[0]
        line = int(t.column(LINE)[int(dup)].as_py()) if LINE in t.column_names else None
        step, cand = steps[int(dup)].as_py(), t.column(cols[1])[int(dup)].as_py()
        raise UserError(f"{where(src, line, step, cand, nouns)}: {item} {cand!r} of {unit} {step!r} appears twice")


def output_schema(judges) -> pa.Schema:
    fields = [pa.field(STEP, pa.string()), pa.field(CANDIDATE, pa.string())]
    fields += [pa.field(j, pa.float64()) for j in judges]
    fields += [pa.field(f"consensus_{j}", pa.float64()) for j in judges]
    fields += [pa.field(s, pa.float64()) for s in STATS] + [pa.field("n_scored", pa.int64())]
    fields += [pa.field(f, pa.bool_()) for f in FLAGS]
    return pa.schema(fields)


def _check_names(judges) -> None:
    reserved = set(output_schema([]).names) | {f"consensus_{j}" for j in judges}
    clash = sorted(set(judges) & reserved)
    if clash:
        raise UserError(f"judge names {clash} clash with output columns; rename those judges")


def float_array(x: np.ndarray) -> pa.Array:
    return pa.array(x, pa.float64(), mask=np.isnan(x))


def decide_rows(
    src: TableSource, t: pa.Table, policy: Policy, check: bool = True, spec: ConsensusSpec | None = None
) -> pa.Table:
    """Decide every step of a table of complete steps (with the panel's λ, W: ``spec``); one output
    row per input row, same order.

    ``check`` validates the grouping (a step's rows together, no candidate twice); a caller that
    has already checked a larger table containing these rows passes False.
    """
    judges = src.judges
    if t.num_rows == 0:
        return output_schema(judges).empty_table()
    starts = run_starts(t.column(STEP))
    lengths = np.diff(np.append(starts, t.num_rows))
    run_id = np.repeat(np.arange(len(starts)), lengths)
    if check:
        check_groups(src, t, starts, run_id)
    pos = np.arange(t.num_rows) - starts[run_id]
    raw = np.full((len(starts), int(lengths.max()), len(judges)), np.nan)
    raw[run_id, pos] = np.column_stack([t.column(j).to_numpy() for j in judges])
    try:
        d = policy.decide(raw, spec)
    except ValueError as exc:
        raise UserError(f"{src.path}: {exc}") from None
    st = d.stats
    cons = st.consensus[run_id, pos]
    cols = [t.column(STEP), t.column(CANDIDATE)]
    cols += [float_array(raw[run_id, pos, i]) for i in range(len(judges))]
    cols += [float_array(cons[:, i]) for i in range(len(judges))]
    cols += [float_array(getattr(st, s)[run_id, pos]) for s in STATS]
    cols += [pa.array(st.n_scored[run_id, pos].astype(np.int64))]
    cols += [pa.array(d.accepted[run_id, pos]), pa.array(d.chosen[run_id] == pos), pa.array(d.fallback[run_id])]
    return pa.Table.from_arrays(cols, schema=output_schema(judges))


def whole_groups(chunks, check, key: str = STEP) -> Iterator[pa.Table]:
    """Tables of complete groups (contiguous rows sharing ``key``) from ordered chunks.

    The last group of each chunk may continue in the next, so its rows are carried over;
    ``check(t, starts, run_id)`` validates each table held at once. A yielded table may be empty.
    """
    carry: pa.Table | None = None
    for chunk in chunks:
        t = chunk if carry is None else pa.concat_tables([carry, chunk])
        starts = run_starts(t.column(key))
        check(t, starts, np.repeat(np.arange(len(starts)), np.diff(np.append(starts, t.num_rows))))
        carry = t.slice(int(starts[-1]))
        yield t.slice(0, int(starts[-1]))
    if carry is not None:
        yield carry


def row_total(src) -> int:
    """Rows of a table file, for a progress bar: Parquet's metadata, else its lines (one quick byte pass)."""
    if src.format == "parquet":
        return pq.ParquetFile(src.path).metadata.num_rows
    n, last = 0, b"\n"
    with open(src.path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            n, last = n + block.count(b"\n"), block[-1:]
    n += last != b"\n"  # a last line without its newline
    return max(0, n - 1) if src.format == "csv" else n


def counted_chunks(src, chunks: Iterator[pa.Table], tally, progress=None) -> Iterator[pa.Table]:
    """The chunks as read, each counted in ``tally.chunks`` and reported as ``progress(rows read, rows in
    the file)`` (the file's rows counted first, only when there is a progress to report)."""
    total, seen = (row_total(src) if progress is not None else 0), 0
    for chunk in chunks:
        tally.chunks += 1
        seen += chunk.num_rows
        if progress is not None:
            progress(seen, max(total, seen))
        yield chunk


def decide_streaming(
    src: TableSource,
    policy: Policy,
    output,
    chunk_size: int = DEFAULT_CHUNK_SIZE,
    spec: ConsensusSpec | None = None,
    progress=None,
) -> TableSummary:
    """The in-process path: read in chunks, decide complete steps, append to one output file;
    ``progress(rows read, rows in the file)`` after each chunk."""
    _check_names(src.judges)
    t0 = time.perf_counter()
    summary = TableSummary()
    with ChunkWriter(output, src.judges) as writer:
        for t in whole_groups(
            counted_chunks(src, iter_chunks(src, chunk_size), summary, progress),
            lambda t, starts, run_id: check_groups(src, t, starts, run_id),
        ):
            writer.write(decide_rows(src, t, policy, check=False, spec=spec), summary)
    summary.seconds = time.perf_counter() - t0
    return summary


class _JsonLinesWriter:
    """One JSON object per row (null for a failed judge or a missing value), appended piece by piece."""

    def __init__(self, path):
        self.fh = open(path, "w", encoding="utf-8")

    def write_table(self, t: pa.Table) -> None:
        for row in t.to_pylist():
            self.fh.write(
                json.dumps(
                    {k: None if isinstance(v, float) and v != v else v for k, v in row.items()}, ensure_ascii=False
                )
                + "\n"
            )

    def close(self) -> None:
        self.fh.close()


def table_writer(path, schema: pa.Schema, fmt: str):
    """A writer with ``write_table`` and ``close`` for Parquet, CSV (header once) or JSON lines."""
    if fmt == "parquet":
        return pq.ParquetWriter(path, schema)
    if fmt == "csv":
        from pyarrow import csv as pacsv

        return pacsv.CSVWriter(path, schema)
    return _JsonLinesWriter(path)


class ChunkWriter:
    """The single writer of the output file, in the format its extension names (Parquet, CSV or
    JSON lines); a failed run leaves no half-written file behind."""

    def __init__(self, output, judges, schema: pa.Schema | None = None):
        self.format = table_format(output)
        self.target = atomic_output(output, "--output")
        self.schema = schema if schema is not None else output_schema(judges)
        self.writer = None
        self.parts = 0

    def __enter__(self):
        tmp = self.target.__enter__()
        self.writer = table_writer(tmp, self.schema, self.format)
        return self

    def write(self, out: pa.Table, summary: TableSummary) -> None:
        if out.num_rows:
            self.writer.write_table(out)
            summary.add(out)
            self.parts += 1
            fault_after_write("parquet", self.parts)

    def __exit__(self, exc_type, exc, tb):
        self.writer.close()
        return self.target.__exit__(exc_type, exc, tb)


# --- Ray Data ------------------------------------------------------------------------------

_PART = "_part"  # in a Ray block's output: 1 decided, 0 an edge step left to the driver
_EDGE, _DONE = 0, 1


def _jsonl_block(src: TableSource, lines: list[str]) -> pa.Table:
    steps, cands, scores = [], [], []
    for text in lines:
        try:
            obj = json.loads(text)
        except (json.JSONDecodeError, RecursionError) as exc:
            raise UserError(
                f"{src.path}: not valid JSON ({getattr(exc, 'msg', 'nested too deeply')}): {text[:80]!r}"
            ) from None
        if (
            not isinstance(obj, dict)
            or not isinstance(obj.get("scores"), dict)
            or not {"step", "candidate"} <= obj.keys()
        ):
            raise UserError(f"{src.path}: expected an object with keys step, candidate, scores: {text[:80]!r}")
        where = f"{src.path}: step {obj['step']!r} candidate {obj['candidate']!r}"
        if set(map(str, obj["scores"])) != set(src.judges):
            raise UserError(
                f"{where}: judges {sorted(obj['scores'])} differ from the first record's {sorted(src.judges)}"
            )
        steps.append(str(obj["step"]))
        cands.append(str(obj["candidate"]))
        scores.append([score_cell(obj["scores"][j], f"{where} ({j})", src.nan) for j in src.judges])
    x = np.array(scores, dtype=np.float64).reshape(len(lines), len(src.judges))
    cols = {j: pa.array(x[:, i]) for i, j in enumerate(src.judges)}
    return _normalized(pa.array(steps), pa.array(cands), cols, src.judges, np.full(len(lines), -1))


def decide_block(batch: pa.Table, src: TableSource, policy: Policy, spec: ConsensusSpec | None = None) -> pa.Table:
    """One Ray Data block: decide its interior steps; its first and last step go back undecided.

    A block is a contiguous slice of the file, so only its first and last step may continue in
    a neighbouring block; the driver joins those edges in order and decides them.
    """
    if src.format == "jsonl":
        t = _jsonl_block(src, [s for s in batch.column("text").to_pylist() if s.strip()])
    else:
        step = pc.utf8_trim_whitespace(pc.cast(batch.column(STEP), pa.string()))
        cand = pc.utf8_trim_whitespace(pc.cast(batch.column(CANDIDATE), pa.string()))
        scores = {j: batch.column(j) for j in src.judges}
        t = _normalized(step, cand, scores, src.judges, np.full(batch.num_rows, -1), src)
    _check_chunk(src, t)
    return split_block(t, lambda rows: decide_rows(src, rows, policy, spec=spec), output_schema(src.judges))


def split_block(t: pa.Table, decide, schema: pa.Schema, key: str = STEP) -> pa.Table:
    """A Ray block's rows in ``schema`` plus ``_part``: interior groups decided by ``decide``,
    the first and last group left undecided (their columns of ``t`` kept, the rest null)."""
    schema = schema.append(pa.field(_PART, pa.int8()))
    if t.num_rows == 0:
        return schema.empty_table()
    starts = run_starts(t.column(key))
    if len(starts) == 1:
        return _pending(t, None, schema)
    head, tail = int(starts[1]), int(starts[-1])
    done = decide(t.slice(head, tail - head))
    done = done.append_column(_PART, pa.array(np.full(done.num_rows, _DONE, dtype=np.int8)))
    return pa.concat_tables([_pending(t.slice(0, head), None, schema), done, _pending(t.slice(tail), None, schema)])


def _pending(t: pa.Table, src: TableSource | None, schema: pa.Schema) -> pa.Table:
    cols = []
    for f in schema:
        if f.name in t.column_names and f.name not in (LINE,):
            cols.append(t.column(f.name))
        elif f.name == _PART:
            cols.append(pa.array(np.full(t.num_rows, _EDGE, dtype=np.int8)))
        else:
            cols.append(pa.nulls(t.num_rows, f.type))
    return pa.Table.from_arrays(cols, schema=schema)


def _raw_part(t: pa.Table, judges) -> pa.Table:
    """Pending rows back in the normalised form decide_rows reads (nulls as NaN)."""
    cols = {STEP: t.column(STEP), CANDIDATE: t.column(CANDIDATE)}
    for j in judges:
        cols[j] = pc.fill_null(t.column(j), np.nan)
    return pa.table(cols)


def _read_row_groups(batch: pa.Table, src: TableSource, columns=None) -> pa.Table:
    f = pq.ParquetFile(src.path, pre_buffer=False, buffer_size=1 << 20)
    ids = batch.column("id").to_pylist()
    return f.read_row_groups(ids, columns=columns or [STEP, CANDIDATE, *src.judges])


def ray_dataset(src: TableSource, chunk_size: int, types: dict | None = None):
    """A Ray Data dataset over the file whose blocks are contiguous, ordered slices of it.

    ``types`` (column -> Arrow type) picks the Parquet/CSV columns read; by default step,
    candidate and the judges.
    """
    import ray.data

    ctx = ray.data.DataContext.get_current()
    ctx.execution_options.preserve_order = True
    ctx.enable_progress_bars = False
    # blocks of about chunk_size rows: every number is 8 bytes, ids a few dozen
    ctx.target_max_block_size = max(1 << 16, chunk_size * (8 * len(src.judges) + 48))
    path = str(src.path)
    if src.format == "parquet":
        # row groups, read in order by the tasks themselves: a block is whole, consecutive row groups
        f = pq.ParquetFile(src.path)
        per_group = max(1, f.metadata.num_rows // max(1, f.num_row_groups))
        groups = ray.data.range(f.num_row_groups, override_num_blocks=max(1, min(f.num_row_groups, 200)))
        return groups.map_batches(
            _read_row_groups,
            fn_kwargs={"src": src, "columns": list(types) if types else None},
            batch_format="pyarrow",
            batch_size=max(1, chunk_size // per_group),
        )
    if src.format == "csv":
        include = list(types) if types else []
        types = types or {STEP: pa.string(), CANDIDATE: pa.string(), **{j: pa.float64() for j in src.judges}}
        nulls = [""] if isinstance(src, TableSource) else CSV_NULLS  # score tables keep a literal nan as NaN
        return ray.data.read_csv(path, convert_options=csv_convert_options(types, include, nulls))
    return ray.data.read_text(path)


def decide_with_ray(
    src: TableSource,
    policy: Policy,
    output,
    chunk_size: int = DEFAULT_CHUNK_SIZE,
    num_cpus: float = 1.0,
    spec: ConsensusSpec | None = None,
) -> TableSummary:
    """The Ray Data path: blocks are decided in parallel tasks; one writer on the driver appends
    them in file order to a single Parquet file, joining the steps that cross block edges."""
    _check_names(src.judges)
    logging.getLogger("ray.data").setLevel(logging.WARNING)
    t0 = time.perf_counter()
    summary = TableSummary()
    ds = ray_dataset(src, chunk_size).map_batches(
        decide_block,
        fn_kwargs={"src": src, "policy": policy, "spec": spec},
        batch_format="pyarrow",
        batch_size=None,
        zero_copy_batch=True,
        num_cpus=num_cpus,
    )
    merger = EdgeMerger(src, policy, summary, spec=spec)
    with ChunkWriter(output, src.judges) as writer:
        merge_ray_blocks(ds, merger, writer, summary)
    summary.seconds = time.perf_counter() - t0
    return summary


def merge_ray_blocks(ds, merger: EdgeMerger, sink, counts) -> None:
    """Feeds a Ray dataset's blocks, in stream order, through ``merger`` (which joins the steps that
    cross block edges) into ``sink``, counting them in ``counts.chunks``; a Ray failure is one line."""
    import ray

    try:
        for batch in ds.iter_batches(batch_size=None, batch_format="pyarrow"):
            counts.chunks += 1
            merger.feed(batch, sink)
        merger.flush(sink)
    except ray.exceptions.RayError as exc:
        raise user_error_from(exc) from None


class EdgeMerger:
    """Joins the undecided edge rows of consecutive blocks, in stream order, into whole steps.

    Undecided rows arrive in runs between decided ones; within a run, rows of one step belong
    together (a step's rows are contiguous in the file). Every step but the last of a run is
    complete; the last stays open, since the next batch may continue it.
    """

    def __init__(
        self,
        src: TableSource,
        policy: Policy,
        summary: TableSummary,
        decide=None,
        key: str = STEP,
        spec: ConsensusSpec | None = None,
    ):
        self.src, self.policy, self.summary, self.key = src, policy, summary, key
        self.decide = decide or (lambda rows: decide_rows(src, _raw_part(rows, src.judges), policy, spec=spec))
        self.open: pa.Table | None = None

    def flush(self, writer) -> None:
        if self.open is not None:
            writer.write(self.decide(self.open), self.summary)
            self.open = None

    def feed(self, batch: pa.Table, writer) -> None:
        done = batch.column(_PART).to_numpy() == _DONE
        if done.size == 0:
            return
        edges = np.flatnonzero(np.diff(done.astype(np.int8))) + 1
        bounds = np.concatenate([[0], edges, [done.size]])
        for a, b in zip(bounds[:-1], bounds[1:]):
            seg = batch.slice(int(a), int(b - a))
            if done[a]:
                self.flush(writer)
                writer.write(seg.drop_columns([_PART]), self.summary)
                continue
            starts = np.append(run_starts(seg.column(self.key)), seg.num_rows)
            for s, e in zip(starts[:-1], starts[1:]):
                rows = seg.slice(int(s), int(e - s))
                same = (
                    self.open is not None and self.open.column(self.key)[0].as_py() == rows.column(self.key)[0].as_py()
                )
                if same:
                    self.open = pa.concat_tables([self.open, rows])
                else:
                    self.flush(writer)
                    self.open = rows
