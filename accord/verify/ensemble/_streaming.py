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

import logging
import time
from dataclasses import dataclass

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from accord.adapters import Calibrator, apply_calibrators
from accord.consensus_core import influence_report
from accord.errors import UserError
from accord.verify import tables
from accord.verify.ensemble._rewards import (
    accuracy_report,
    alpha_from_sums,
    alpha_sums,
    best_responses,
    pairwise_correlations,
    report_head,
    selector_keys,
    selectors,
)
from accord.verify.ensemble._wide import RestMoments, is_wide, spearman_vs_rest, wide_agreement, wide_influence
from accord.verify.tables import COLS, LABEL, NOUNS, PROMPT, RESPONSE, RewardFile, block_rows, iter_rewards

STAT_BLOCK = 4_096  # agreement sums are taken over fixed row blocks, so any chunking gives the same sums
SPEARMAN_SAMPLE = 100_000  # rows kept for the Spearman correlations on raw rewards
WIDE_SAMPLE_CELLS = 10_000_000  # for wide tables: at most this many rewards kept (rows x models)
STREAMED_FITS = ("standardize", "sigmoid")


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
    return np.array(
        [
            n,
            x[1] + da * y[0] / n,
            x[2] + db * y[0] / n,
            x[3] + y[3] + da * da * w,
            x[4] + y[4] + db * db * w,
            x[5] + y[5] + da * db * w,
        ]
    )


def fit_streamed(src: RewardFile, method: str, chunk_size: int = tables.DEFAULT_CHUNK_SIZE) -> dict[str, Calibrator]:
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
            raise UserError(f"{src.path}: calibration of {m!r} needs at least 2 finite rewards, got {int(n)}")
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
        f += [pa.field(m, pa.float64()) for m in self.models] + [
            pa.field(f"calibrated_{m}", pa.float64()) for m in self.models
        ]
        f += [pa.field(f"key_{r}", pa.float64()) for r in self.rules]
        return pa.schema(f + [pa.field(f"selected_{name}", pa.bool_()) for name, _ in self.selectors])

    def inputs(self, t: pa.Table) -> pa.Table:
        return t.select([PROMPT, RESPONSE, *([LABEL] if self.labelled else []), *self.models])

    def score(self, t: pa.Table) -> pa.Table:
        """One output row per row of ``t``, a table of complete prompts (rows of a prompt together)."""
        if t.num_rows == 0:
            return self.schema().empty_table()
        starts = tables.run_starts(t.column(PROMPT))
        lengths = np.diff(np.append(starts, t.num_rows))
        run_id = np.repeat(np.arange(len(starts)), lengths)
        pos = np.arange(t.num_rows) - starts[run_id]
        raw = np.full((len(starts), int(lengths.max()), len(self.models)), np.nan)
        raw[run_id, pos] = np.column_stack([pc.fill_null(t.column(m), np.nan).to_numpy() for m in self.models])
        valid = np.zeros(raw.shape[:2], dtype=bool)
        valid[run_id, pos] = True
        cal = apply_calibrators(raw, self.models, self.calibrators)
        cols = [t.column(c) for c in (PROMPT, RESPONSE, *([LABEL] if self.labelled else []))]
        cols += [tables.float_array(raw[run_id, pos, j]) for j in range(len(self.models))]
        cols += [tables.float_array(cal[run_id, pos, j]) for j in range(len(self.models))]
        keys, chosen = [], []
        for _, rule in self.selectors:
            key = selector_keys(cal, rule, self.k, self.lambdas, self.policy_params)
            chosen.append(pa.array(best_responses(key, valid)[run_id, pos]))
            if not rule.startswith("model:"):
                keys.append(pa.array(key[run_id, pos], pa.float64()))
        return pa.Table.from_arrays(cols + keys + chosen, schema=self.schema())


def _scored(src: RewardFile, scorer: Scorer, t: pa.Table) -> pa.Table:
    """Check the grouping of complete prompts (together, no response twice), then score them."""
    if t.num_rows:
        starts = tables.run_starts(t.column(PROMPT))
        tables.check_groups(
            src, t, starts, np.repeat(np.arange(len(starts)), np.diff(np.append(starts, t.num_rows))), COLS, NOUNS
        )
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
        starts = tables.run_starts(pid)
        lab = out.column(LABEL).to_numpy() if self.scorer.labelled else np.zeros(n)
        sel = np.column_stack([out.column(f"selected_{s}").to_numpy(zero_copy_only=False) for s in self.names]).astype(
            np.float64
        )
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
        cal = np.column_stack(
            [out.column(f"calibrated_{m}").to_numpy(zero_copy_only=False) for m in self.scorer.models]
        )
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
        p, idx, x = (
            np.concatenate([p, prio]),
            np.concatenate([idx, np.arange(self._blocked - len(raw), self._blocked)]),
            np.vstack([x, raw]),
        )
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
            pearson[f"{names[i]}~{names[j]}"] = (
                float("nan") if n < 3 or const else float(np.clip(c / np.sqrt(m2a * m2b), -1, 1))
            )
        _, idx, x = self._sample
        if self.wide:
            x = x[np.argsort(idx)]
            cal = apply_calibrators(x, names, self.scorer.calibrators)
            doc["agreement"] = wide_agreement(
                alpha_from_sums(self._alpha), spearman_vs_rest(x, cal), self._rest.pearson(), names
            )
        else:
            doc["agreement"] = {
                "krippendorff_alpha": alpha_from_sums(self._alpha),
                "spearman_raw": pairwise_correlations(x[np.argsort(idx)], names, "spearman"),
                "pearson_calibrated": pearson,
            }
        doc["spearman_sample"] = {
            "rows": int(idx.size),
            "of": self.rows,
            "exact": idx.size == self.rows,
            "seed": self.seed,
        }
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
    src: RewardFile,
    scorer: Scorer,
    output=None,
    chunk_size: int = tables.DEFAULT_CHUNK_SIZE,
    backend: str = "local",
    n_boot: int = 2000,
    seed: int = 0,
    sample_size: int = SPEARMAN_SAMPLE,
    progress=None,
) -> dict:
    """Pass 2 over a table (calibrators already fitted): the report, and the rows in ``output``;
    ``progress(rows read, rows in the file)`` after each chunk of the in-process pass."""
    if chunk_size < 1:
        raise UserError(f"--chunk-size must be >= 1, got {chunk_size}")
    t0 = time.perf_counter()
    acc = ReportAccumulator(scorer, sample_size, seed)
    sink = tables.ChunkWriter(output, (), scorer.schema()) if output else _NoOutput()
    with sink:
        if backend == "ray":
            _pass_ray(src, scorer, chunk_size, sink, acc)
        else:
            _pass_local(src, scorer, chunk_size, sink, acc, progress)
    head = report_head("best_of_n", scorer.models, 0, 0, scorer.calibrators, scorer.lambdas, scorer.k)
    doc = acc.report(head, n_boot, seed)
    if acc.wide:  # the m x m matrix would grow with m^2
        doc["influence"] = wide_influence(scorer.lambdas, scorer.models)
    else:
        doc["influence"] = influence_report(scorer.lambdas, judges=list(scorer.models)).as_dict()
    doc["stream"] = {
        "backend": backend,
        "chunk_size": chunk_size,
        "chunks": acc.chunks,
        "output": str(output) if output else None,
        "seconds": time.perf_counter() - t0,
    }
    return doc


def _pass_local(src, scorer, chunk_size, sink, acc, progress=None) -> None:
    def check(t, starts, run_id):
        tables.check_groups(src, t, starts, run_id, COLS, NOUNS)

    for t in tables.whole_groups(
        tables.counted_chunks(src, iter_rewards(src, chunk_size), acc, progress), check, key=PROMPT
    ):
        sink.write(scorer.score(t), acc)


def score_block(batch: pa.Table, src: RewardFile, scorer: Scorer) -> pa.Table:
    """One Ray Data block: interior prompts scored, the first and last left to the driver."""
    t = block_rows(src, batch)
    return tables.split_block(t, lambda rows: _scored(src, scorer, rows), scorer.schema(), key=PROMPT)


def _pass_ray(src, scorer, chunk_size, sink, acc) -> None:
    logging.getLogger("ray.data").setLevel(logging.WARNING)
    ds = tables.ray_dataset(src, chunk_size, types=src.types()).map_batches(
        score_block,
        fn_kwargs={"src": src, "scorer": scorer},
        batch_format="pyarrow",
        batch_size=None,
        zero_copy_batch=True,
        num_cpus=1.0,
    )
    merger = tables.EdgeMerger(
        src, None, acc, decide=lambda rows: _scored(src, scorer, scorer.inputs(rows)), key=PROMPT
    )
    tables.merge_ray_blocks(ds, merger, sink, acc)
