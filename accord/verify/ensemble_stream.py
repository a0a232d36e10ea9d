"""Reward tables too large for memory: ``accord ensemble`` in two streamed passes.

A table in the best-of-n layout (columns ``prompt_id, response_id, label?, <model>...``; CSV,
JSONL or Parquet) is read in chunks twice. Pass 1 fits the calibration from merged per-chunk
moments (exact for ``standardize``; ``sigmoid`` fits nothing; ``quantile`` and ``platt`` need every
reward at once and are refused: fit them on a smaller file with ``--calibrate-on`` or reuse a saved
one). Pass 2 keeps each prompt's rows together (a prompt's rows are contiguous; the last prompt of
a chunk is carried into the next, as for steps in :mod:`accord.verify.tables`), scores every
selector per response (:class:`Scorer`), optionally appends the rows to one Parquet file, and
feeds a :class:`ReportAccumulator`. With Ray Data, pass 2 runs in block tasks and the driver joins
the prompts cut by block edges; output and report are the same as in-process.

Memory is bounded by the chunk size plus one float per prompt per selector (the per-prompt hits
the bootstrap resamples) plus a fixed-size sample of raw rewards for the Spearman correlations.
"""

from __future__ import annotations

import csv
import json
import logging
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from accord.adapters.calibration import Calibrator, apply_calibrators
from accord.consensus_core import influence_report
from accord.verify import tables
from accord.verify.ensemble import (
    RESERVED,
    RewardTable,
    _label,
    _number,
    accuracy_report,
    alpha_from_sums,
    alpha_sums,
    best_responses,
    pairwise_correlations,
    report_head,
    selector_keys,
    selectors,
)
from accord.verify.ensemble_wide import RestMoments, is_wide, spearman_vs_rest, wide_agreement, wide_influence
from accord.verify.errors import UserError
from accord.verify.json_lines import json_objects

PROMPT, RESPONSE, LABEL, LINE = "prompt_id", "response_id", "label", tables.LINE
COLS, NOUNS = (PROMPT, RESPONSE), ("prompt", "response")
STAT_BLOCK = 4_096  # agreement sums are taken over fixed row blocks, so any chunking gives the same sums
SPEARMAN_SAMPLE = 100_000  # rows kept for the Spearman correlations on raw rewards
WIDE_SAMPLE_CELLS = 10_000_000  # for wide tables: at most this many rewards kept (rows x models)
STREAMED_FITS = ("standardize", "sigmoid")


@dataclass(frozen=True)
class RewardSource:
    """A best-of-n reward file: path, format, reward-model columns and its label column (or None)."""

    path: Path
    format: str
    models: tuple[str, ...]
    label: str | None

    @property
    def judges(self) -> tuple[str, ...]:  # what tables.ray_dataset sizes its blocks by
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
        num = [f.name for f in schema if pa.types.is_floating(f.type) or pa.types.is_integer(f.type) or pa.types.is_null(f.type) or pa.types.is_decimal(f.type)]
        return schema.names, num
    with path.open(encoding="utf-8", newline="") as fh:
        if fmt == "csv":
            names = [h.strip() for h in next(csv.reader(fh), [])]
            return names, names
        for _, obj in json_objects(fh, str(path)):
                if "chosen" in obj:
                    raise UserError(f"{path}: the pairs layout is evaluated in memory; drop --stream, --output, --chunk-size and --backend")
                return list(obj), [k for k, v in obj.items() if v is None or (isinstance(v, (int, float)) and not isinstance(v, bool))]
    raise UserError(f"{path}: no rows")


def open_rewards(path, models=None) -> RewardSource:
    """Format, models and label column of a best-of-n reward file, from its header."""
    path = Path(path)
    if not path.exists():
        raise UserError(f"{path}: no such file")
    fmt = tables.table_format(path)
    names, numeric = _header(path, fmt)
    if PROMPT not in names or RESPONSE not in names:
        raise UserError(f"{path}: a streamed reward table needs prompt_id and response_id columns, got {names}")
    label = LABEL if LABEL in names else ("correct" if "correct" in names else None)
    chosen = list(models) if models else [n for n in numeric if n not in RESERVED]
    numeric_set = set(numeric)
    unknown = [m for m in chosen if m not in numeric_set]
    if unknown:
        raise UserError(f"{path}: no numeric reward column(s) {unknown}; numeric columns are {numeric}")
    if len(chosen) < 2:
        raise UserError(f"{path}: an ensemble needs at least 2 reward models, found {chosen}")
    return RewardSource(path, fmt, tuple(chosen), label)


# --- reading -------------------------------------------------------------------------------


def _normalized(src: RewardSource, col, lines) -> pa.Table:
    """prompt_id, response_id (strings), label (float), models (float, NaN = failed), _line."""
    cols = {PROMPT: pc.cast(col(PROMPT), pa.string()), RESPONSE: pc.cast(col(RESPONSE), pa.string())}
    if src.label:
        cols[LABEL] = pc.cast(col(src.label), pa.float64())
    for m in src.models:
        cols[m] = pc.fill_null(pc.cast(col(m), pa.float64()), np.nan)
    cols[LINE] = pa.array(lines, pa.int64())
    return pa.table(cols)


def _from_batch(src: RewardSource, b, lines) -> pa.Table:
    if src.format != "csv":
        return _normalized(src, b.column, lines)
    trim = {PROMPT, RESPONSE}
    return _normalized(src, lambda c: pc.utf8_trim_whitespace(b.column(c)) if c in trim else b.column(c), lines)


def _from_lines(src: RewardSource, items) -> pa.Table:
    """JSONL records ``(line number or -1, text)``: validated like the in-memory reader."""
    pids, rids, labels, x = [], [], [], np.full((len(items), len(src.models)), np.nan)
    for i, (no, text) in enumerate(items):
        at = f"{src.path}:{no}" if no >= 0 else f"{src.path}: {text[:80]!r}"
        try:
            obj = json.loads(text)
        except json.JSONDecodeError as exc:
            raise UserError(f"{at}: not valid JSON ({exc.msg})") from None
        if not isinstance(obj, dict) or PROMPT not in obj or RESPONSE not in obj:
            raise UserError(f"{at}: expected an object with prompt_id, response_id and rewards")
        if no < 0:
            at = f"{src.path}: prompt {obj[PROMPT]!r} response {obj[RESPONSE]!r}"
        pids.append(str(obj[PROMPT]))
        rids.append(str(obj[RESPONSE]))
        if src.label:
            labels.append(_label(obj.get(src.label), at))
        for j, m in enumerate(src.models):
            x[i, j] = _number(obj.get(m), f"{at}: {m}")
    cols = {PROMPT: pa.array(pids, pa.string()), RESPONSE: pa.array(rids, pa.string()), src.label: pa.array(labels, pa.float64())}
    cols.update({m: pa.array(x[:, j]) for j, m in enumerate(src.models)})
    return _normalized(src, cols.__getitem__, [no for no, _ in items])


def _parquet_chunks(src: RewardSource, chunk_size: int) -> Iterator[pa.Table]:
    f = pq.ParquetFile(src.path, pre_buffer=False, buffer_size=1 << 20)
    seen = 0
    for b in f.iter_batches(batch_size=chunk_size, columns=list(src.types())):
        yield _from_batch(src, b, np.arange(seen + 1, seen + 1 + b.num_rows))  # 1-based row numbers
        seen += b.num_rows


def _csv_chunks(src: RewardSource, chunk_size: int) -> Iterator[pa.Table]:
    from pyarrow import csv as pacsv

    types = src.types()
    read = pacsv.ReadOptions(block_size=max(1 << 16, min(1 << 26, 64 * chunk_size)))
    conv = pacsv.ConvertOptions(column_types=types, include_columns=list(types), null_values=tables.CSV_NULLS, strings_can_be_null=False)
    seen = 0
    try:
        for batch in pacsv.open_csv(src.path, read_options=read, convert_options=conv):
            for off in range(0, batch.num_rows, chunk_size):
                b = batch.slice(off, chunk_size)
                yield _from_batch(src, b, np.arange(seen + 2, seen + 2 + b.num_rows))  # line 1 is the header
                seen += b.num_rows
    except pa.ArrowInvalid as exc:
        _locate_csv_error(src)
        raise UserError(f"{src.path}: {exc}") from None


def _locate_csv_error(src: RewardSource) -> None:
    """Re-read the CSV row by row to name the line of a value that is not a number (error path only)."""
    with src.path.open(encoding="utf-8", newline="") as fh:
        reader = csv.DictReader(fh)
        for row in reader:
            for col in (src.label, *src.models) if src.label else src.models:
                cell = (row.get(col) or "").strip()
                try:
                    float(cell) if cell not in tables.CSV_NULLS else None
                except ValueError:
                    what = "label must be 0 or 1" if col == src.label else "reward must be a number or null"
                    raise UserError(f"{src.path}:{reader.line_num}: {col}: {what}, got {cell!r}") from None


def _jsonl_chunks(src: RewardSource, chunk_size: int) -> Iterator[pa.Table]:
    with src.path.open(encoding="utf-8") as fh:
        buf = []
        for no, text in enumerate(fh, 1):
            if text.strip():
                buf.append((no, text))
            if len(buf) == chunk_size:
                yield _from_lines(src, buf)
                buf = []
        if buf:
            yield _from_lines(src, buf)


def iter_rewards(src: RewardSource, chunk_size: int = tables.DEFAULT_CHUNK_SIZE) -> Iterator[pa.Table]:
    """Validated, normalised chunks of at most ``chunk_size`` rows, in file order."""
    return tables.iter_chunks(src, chunk_size, {"csv": _csv_chunks, "jsonl": _jsonl_chunks, "parquet": _parquet_chunks}, _check)


def _check(src: RewardSource, t: pa.Table) -> None:
    """Vectorised validation (ids present, rewards finite or null, labels 0/1); names the row."""
    lines = t.column(LINE).to_numpy()

    def where(i):
        return tables._where(src, int(lines[i]), t.column(PROMPT)[i].as_py(), t.column(RESPONSE)[i].as_py(), NOUNS)

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


def read_columns(path, models=None) -> RewardTable:
    """A CSV or Parquet best-of-n table read whole (the in-memory path), as ``read_rewards`` does."""
    src = open_rewards(path, models)
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
    return RewardTable("best_of_n", list(src.models), pids, rids, raw, labels, valid)


# --- pass 1: calibration from streamed moments ----------------------------------------------


def _moments(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """(n, mean a, mean b, M2 a, M2 b, co-moment) of paired values."""
    if a.size == 0:
        return np.zeros(6)
    ma, mb = a.mean(), b.mean()
    da, db = a - ma, b - mb
    return np.array([a.size, ma, mb, da @ da, db @ db, da @ db])


def _merge(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Chan et al.'s pairwise update: moments of the union of two disjoint sets of pairs."""
    if x[0] == 0 or y[0] == 0:
        return y.copy() if x[0] == 0 else x
    n = x[0] + y[0]
    da, db, w = y[1] - x[1], y[2] - x[2], x[0] * y[0] / n
    return np.array([n, x[1] + da * y[0] / n, x[2] + db * y[0] / n, x[3] + y[3] + da * da * w, x[4] + y[4] + db * db * w, x[5] + y[5] + da * db * w])


def fit_streamed(src: RewardSource, method: str, chunk_size: int = tables.DEFAULT_CHUNK_SIZE) -> dict[str, Calibrator]:
    """One calibrator per model, fitted in one streamed pass (standardize) or none (sigmoid)."""
    if method == "sigmoid":
        return {m: Calibrator("sigmoid").fit([]) for m in src.models}
    if method not in STREAMED_FITS:
        raise UserError(
            f"{src.path}: {method} calibration needs every reward in memory; fit it on a smaller file with "
            "--calibrate-on FILE, reuse a saved one with --load-calibration, or use standardize or sigmoid"
        )
    mom = [np.zeros(6) for _ in src.models]
    for t in iter_rewards(src, chunk_size):
        for j, m in enumerate(src.models):
            x = t.column(m).to_numpy()
            x = x[np.isfinite(x)]
            mom[j] = _merge(mom[j], _moments(x, x))
    out = {}
    for m, (n, mean, _, m2, _, _) in zip(src.models, mom):
        if n < 2:
            raise UserError(f"calibration: calibration needs at least 2 finite rewards, got {int(n)}")
        sd = float(np.sqrt(m2 / n))
        out[m] = Calibrator("standardize", {"mean": float(mean), "std": sd if sd > 0 else 1.0})
    return out


# --- pass 2: keys and selections per response -----------------------------------------------


@dataclass(frozen=True)
class Scorer:
    """Everything a block task needs to score complete prompts (picklable, sent to Ray tasks)."""

    models: tuple[str, ...]
    calibrators: dict
    rules: tuple[str, ...]
    k: float
    lambdas: tuple[float, ...]
    policy_params: dict
    labelled: bool

    @property
    def selectors(self) -> list[tuple[str, str]]:
        return selectors(self.models, self.rules)

    def schema(self) -> pa.Schema:
        f = [pa.field(PROMPT, pa.string()), pa.field(RESPONSE, pa.string())]
        f += [pa.field(LABEL, pa.float64())] if self.labelled else []
        f += [pa.field(m, pa.float64()) for m in self.models] + [pa.field(f"calibrated_{m}", pa.float64()) for m in self.models]
        f += [pa.field(f"key_{r}", pa.float64()) for r in self.rules]
        return pa.schema(f + [pa.field(f"selected_{name}", pa.bool_()) for name, _ in self.selectors])

    def inputs(self, t: pa.Table) -> pa.Table:
        return t.select([PROMPT, RESPONSE, *([LABEL] if self.labelled else []), *self.models])

    def score(self, t: pa.Table) -> pa.Table:
        """One output row per row of ``t``, a table of complete prompts (rows of a prompt together)."""
        if t.num_rows == 0:
            return self.schema().empty_table()
        starts = tables._run_starts(t.column(PROMPT))
        lengths = np.diff(np.append(starts, t.num_rows))
        run_id = np.repeat(np.arange(len(starts)), lengths)
        pos = np.arange(t.num_rows) - starts[run_id]
        raw = np.full((len(starts), int(lengths.max()), len(self.models)), np.nan)
        raw[run_id, pos] = np.column_stack([pc.fill_null(t.column(m), np.nan).to_numpy() for m in self.models])
        valid = np.zeros(raw.shape[:2], dtype=bool)
        valid[run_id, pos] = True
        cal = apply_calibrators(raw, self.models, self.calibrators)
        cols = [t.column(c) for c in (PROMPT, RESPONSE, *([LABEL] if self.labelled else []))]
        cols += [tables._float(raw[run_id, pos, j]) for j in range(len(self.models))]
        cols += [tables._float(cal[run_id, pos, j]) for j in range(len(self.models))]
        keys, chosen = [], []
        for _, rule in self.selectors:
            key = selector_keys(cal, rule, self.k, self.lambdas, self.policy_params)
            chosen.append(pa.array(best_responses(key, valid)[run_id, pos]))
            if not rule.startswith("model:"):
                keys.append(pa.array(key[run_id, pos], pa.float64()))
        return pa.Table.from_arrays(cols + keys + chosen, schema=self.schema())


def _scored(src: RewardSource, scorer: Scorer, t: pa.Table) -> pa.Table:
    """Check the grouping of complete prompts (together, no response twice), then score them."""
    if t.num_rows:
        starts = tables._run_starts(t.column(PROMPT))
        tables._check_groups(src, t, starts, np.repeat(np.arange(len(starts)), np.diff(np.append(starts, t.num_rows))), COLS, NOUNS)
    return scorer.score(t)


# --- what the report needs, fed the scored rows in file order --------------------------------


def _priority(idx: np.ndarray, seed: int) -> np.ndarray:
    """splitmix64 of (seed, row index): a fixed pseudo-random priority per row, however the rows arrive."""
    with np.errstate(over="ignore"):
        z = idx.astype(np.uint64) + np.uint64((seed * 0x9E3779B97F4A7C15 + 0x632BE59BD9B4E019) % 2**64)
        z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        return z ^ (z >> np.uint64(31))


class ReportAccumulator:
    """Per prompt, one hit per selector (the label sum over its selected responses / their count:
    exact), the prompt's mean and best label; agreement sums over fixed blocks of ``STAT_BLOCK``
    rows (Krippendorff's alpha and Pearson co-moments on calibrated scores) and a bottom-k sample
    of raw rows by a per-row priority (Spearman). None of it depends on how rows were cut into
    pieces, so the in-process and Ray paths give the same report."""

    def __init__(self, scorer: Scorer, sample_size: int = SPEARMAN_SAMPLE, seed: int = 0):
        self.scorer, self.sample_size, self.seed = scorer, sample_size, seed
        self.names = [n for n, _ in scorer.selectors]
        self.m = len(scorer.models)
        self.wide = is_wide(self.m)  # then per-model moments against the rest instead of every pair
        self.pairs = [] if self.wide else [(i, j) for i in range(self.m) for j in range(i + 1, self.m)]
        self._rest = RestMoments(self.m) if self.wide else None
        if self.wide:  # the sample holds whole rows: keep it to a fixed number of cells
            self.sample_size = max(1, min(sample_size, WIDE_SAMPLE_CELLS // self.m))
        self.rows = self.prompts = self.chunks = 0
        self._open = None  # (prompt id, sums, best label) of the prompt that may continue
        self._done: list[np.ndarray] = []  # (prompts, S + 2): hits, mean label, best label
        self._buf: list[np.ndarray] = []
        self._buffered = self._blocked = 0
        self._alpha = np.zeros(4)
        self._mom = [np.zeros(6) for _ in self.pairs]
        self._const = np.zeros((len(self.pairs), 4))  # first value of a and b, and whether each varied
        self._sample = (np.zeros(0, np.uint64), np.zeros(0, np.int64), np.zeros((0, self.m)))

    def add(self, out: pa.Table) -> None:
        n = out.num_rows
        if n == 0:
            return
        self.rows += n
        pid = out.column(PROMPT)
        starts = tables._run_starts(pid)
        lab = out.column(LABEL).to_numpy() if self.scorer.labelled else np.zeros(n)
        sel = np.column_stack([out.column(f"selected_{s}").to_numpy(zero_copy_only=False) for s in self.names]).astype(np.float64)
        sums = np.add.reduceat(np.column_stack([sel * lab[:, None], sel, lab, np.ones(n)]), starts, axis=0)
        best = np.maximum.reduceat(lab, starts)
        if self._open is not None:
            if self._open[0] == pid[0].as_py():
                sums[0] += self._open[1]
                best[0] = max(best[0], self._open[2])
            else:
                self._finish(self._open[1][None], np.array([self._open[2]]))
        self._finish(sums[:-1], best[:-1])
        self._open = (pid[-1].as_py(), sums[-1], best[-1])
        raw = np.column_stack([out.column(m).to_numpy(zero_copy_only=False) for m in self.scorer.models])
        cal = np.column_stack([out.column(f"calibrated_{m}").to_numpy(zero_copy_only=False) for m in self.scorer.models])
        self._buf.append(np.hstack([raw, cal]))
        self._buffered += n
        if self._buffered >= STAT_BLOCK:
            self._blocks(final=False)

    def _finish(self, sums: np.ndarray, best: np.ndarray) -> None:
        s = len(self.names)
        with np.errstate(invalid="ignore", divide="ignore"):
            hits = np.where(sums[:, s : 2 * s] > 0, sums[:, :s] / sums[:, s : 2 * s], np.nan)
        self._done.append(np.column_stack([hits, sums[:, 2 * s] / sums[:, 2 * s + 1], best]))
        self.prompts += len(sums)

    def _blocks(self, final: bool) -> None:
        data = np.vstack(self._buf)
        full = len(data) if final else len(data) - len(data) % STAT_BLOCK
        for a in range(0, full, STAT_BLOCK):
            self._stats(data[a : a + STAT_BLOCK])
        self._buf, self._buffered = [data[full:]], len(data) - full

    def _stats(self, block: np.ndarray) -> None:
        raw, cal = block[:, : self.m], block[:, self.m :]
        self._alpha += alpha_sums(cal)
        if self._rest is not None:
            self._rest.add(cal)
        for p, (i, j) in enumerate(self.pairs):
            both = ~np.isnan(cal[:, i]) & ~np.isnan(cal[:, j])
            a, b = cal[both, i], cal[both, j]
            if a.size:
                if self._mom[p][0] == 0:
                    self._const[p, :2] = a[0], b[0]
                self._const[p, 2:] += [np.any(a != self._const[p, 0]), np.any(b != self._const[p, 1])]
            self._mom[p] = _merge(self._mom[p], _moments(a, b))
        prio = _priority(np.arange(self._blocked, self._blocked + len(raw)), self.seed)
        self._blocked += len(raw)
        p, idx, x = self._sample
        p, idx, x = np.concatenate([p, prio]), np.concatenate([idx, np.arange(self._blocked - len(raw), self._blocked)]), np.vstack([x, raw])
        if p.size > self.sample_size:
            keep = np.argpartition(p, self.sample_size - 1)[: self.sample_size]
            p, idx, x = p[keep], idx[keep], x[keep]
        self._sample = (p, idx, x)

    def report(self, head: dict, n_boot: int, seed: int) -> dict:
        """The in-memory report's fields (``evaluate_ensemble``), plus how Spearman was sampled."""
        if self._open is not None:
            self._finish(self._open[1][None], np.array([self._open[2]]))
            self._open = None
        if self._buf:
            self._blocks(final=True)
        doc = {**head, "prompts": self.prompts, "responses": self.rows}
        if self.scorer.labelled:

            def column(s):  # one column at a time: no second copy of the whole per-prompt table
                return np.concatenate([d[:, s] for d in self._done]) if self._done else np.zeros(0)

            hits = {name: column(s) for s, name in enumerate(self.names)}
            doc.update(accuracy_report(hits, column(-2), column(-1), n_boot, seed))
        names = self.scorer.models
        pearson = {}
        for p, (i, j) in enumerate(self.pairs):
            n, _, _, m2a, m2b, c = self._mom[p]
            const = not (self._const[p, 2] and self._const[p, 3])
            pearson[f"{names[i]}~{names[j]}"] = float("nan") if n < 3 or const else float(np.clip(c / np.sqrt(m2a * m2b), -1, 1))
        _, idx, x = self._sample
        if self.wide:
            x = x[np.argsort(idx)]
            cal = apply_calibrators(x, names, self.scorer.calibrators)
            doc["agreement"] = wide_agreement(alpha_from_sums(self._alpha), spearman_vs_rest(x, cal), self._rest.pearson(), names)
        else:
            doc["agreement"] = {
                "krippendorff_alpha": alpha_from_sums(self._alpha),
                "spearman_raw": pairwise_correlations(x[np.argsort(idx)], names, "spearman"),
                "pearson_calibrated": pearson,
            }
        doc["spearman_sample"] = {"rows": int(idx.size), "of": self.rows, "exact": idx.size == self.rows, "seed": self.seed}
        return doc


# --- the two passes ---------------------------------------------------------------------------


class _NoOutput:
    """Stands in for the Parquet writer when no ``--output`` is asked for: rows only feed the report."""

    def __enter__(self):
        return self

    def write(self, out: pa.Table, acc) -> None:
        if out.num_rows:
            acc.add(out)

    def __exit__(self, *exc):
        return False


def evaluate_streaming(
    src: RewardSource,
    scorer: Scorer,
    output=None,
    chunk_size: int = tables.DEFAULT_CHUNK_SIZE,
    backend: str = "local",
    n_boot: int = 2000,
    seed: int = 0,
    sample_size: int = SPEARMAN_SAMPLE,
) -> dict:
    """Pass 2 over a table (calibrators already fitted): the report, and the rows in ``output``."""
    if chunk_size < 1:
        raise UserError(f"--chunk-size must be >= 1, got {chunk_size}")
    t0 = time.perf_counter()
    acc = ReportAccumulator(scorer, sample_size, seed)
    sink = tables._Writer(output, (), scorer.schema()) if output else _NoOutput()
    with sink:
        (_pass_ray if backend == "ray" else _pass_local)(src, scorer, chunk_size, sink, acc)
    head = report_head("best_of_n", scorer.models, 0, 0, scorer.calibrators, scorer.lambdas, scorer.k)
    doc = acc.report(head, n_boot, seed)
    if acc.wide:  # the m x m matrix would grow with m^2
        doc["influence"] = wide_influence(scorer.lambdas, scorer.models)
    else:
        doc["influence"] = influence_report(scorer.lambdas, judges=list(scorer.models)).as_dict()
    doc["stream"] = {"backend": backend, "chunk_size": chunk_size, "chunks": acc.chunks, "output": str(output) if output else None,
                     "seconds": time.perf_counter() - t0}
    return doc


def _pass_local(src, scorer, chunk_size, sink, acc) -> None:
    def counted():
        for chunk in iter_rewards(src, chunk_size):
            acc.chunks += 1
            yield chunk

    def check(t, starts, run_id):
        tables._check_groups(src, t, starts, run_id, COLS, NOUNS)

    for t in tables.whole_groups(counted(), check, key=PROMPT):
        sink.write(scorer.score(t), acc)


def score_block(batch: pa.Table, src: RewardSource, scorer: Scorer) -> pa.Table:
    """One Ray Data block: interior prompts scored, the first and last left to the driver."""
    if src.format == "jsonl":
        t = _from_lines(src, [(-1, s) for s in batch.column("text").to_pylist() if s.strip()])
    else:
        t = _from_batch(src, batch, np.full(batch.num_rows, -1))
    _check(src, t)
    return tables.split_block(t, lambda rows: _scored(src, scorer, rows), scorer.schema(), key=PROMPT)


def _pass_ray(src, scorer, chunk_size, sink, acc) -> None:
    import ray

    logging.getLogger("ray.data").setLevel(logging.WARNING)
    ds = tables.ray_dataset(src, chunk_size, types=src.types()).map_batches(
        score_block, fn_kwargs={"src": src, "scorer": scorer}, batch_format="pyarrow", batch_size=None, zero_copy_batch=True, num_cpus=1.0
    )
    merger = tables._EdgeMerger(src, None, acc, decide=lambda rows: _scored(src, scorer, scorer.inputs(rows)), key=PROMPT)
    try:
        for batch in ds.iter_batches(batch_size=None, batch_format="pyarrow"):
            acc.chunks += 1
            merger.feed(batch, sink)
        merger.flush(sink)
    except ray.exceptions.RayError as exc:
        raise tables._user_error(exc) from None
