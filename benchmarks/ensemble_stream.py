"""`accord ensemble` on a large best-of-n reward table: in memory vs streamed in-process vs Ray Data.

    python benchmarks/ensemble_stream.py [--rows 1000000] [--chunk 65536] [--skip-ray]

Writes a Parquet table (8 responses per prompt, 3 reward models, 3% failed, 0/1 labels), then
evaluates it with the default rules three ways, each in a fresh subprocess so that peak RSS is
that path's own: the whole table in memory (``evaluate_ensemble``), streamed in chunks, and
streamed through Ray Data on a local cluster (pass 2 in Ray tasks). Prints wall time, peak
RSS of the process (Ray: the driver only; its workers are separate processes) and the
tracemalloc peak of numpy/Python allocations, and checks the three reports agree.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

import _machine  # benchmarks/_machine.py: the machine line and CPU time beside wall time
import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

MODELS = ("rm_a", "rm_b", "rm_c")


def write_table(path: Path, rows: int, per_prompt: int = 8, seed: int = 0, piece: int = 200_000) -> None:
    rng = np.random.default_rng(seed)
    piece -= piece % per_prompt
    schema = pa.schema(
        [("prompt_id", pa.string()), ("response_id", pa.string()), ("label", pa.int64())]
        + [(m, pa.float64()) for m in MODELS]
    )
    with pq.ParquetWriter(path, schema) as w:
        for start in range(0, rows, piece):
            idx = np.arange(start, min(rows, start + piece))
            label = (rng.random(idx.size) < 0.25).astype(np.int64)
            x = rng.normal(size=(idx.size, 3)) + label[:, None] * np.array([0.8, 0.3, 1.2])
            mask = rng.random(x.shape) < 0.03
            cols = [
                pa.array((idx // per_prompt).astype(str)),
                pa.array((idx % per_prompt).astype(str)),
                pa.array(label),
            ]
            cols += [pa.array(x[:, j], mask=mask[:, j]) for j in range(3)]
            w.write_table(pa.Table.from_arrays(cols, schema=schema), row_group_size=100_000)


def one(mode: str, path: str, chunk: int) -> dict:
    """Run one path in this process; the measured figures as a dict."""
    from accord.verify.ensemble import (
        Scorer,
        default_rules,
        evaluate_ensemble,
        evaluate_streaming,
        fit_streamed,
        read_rewards,
    )
    from accord.verify.tables import open_rewards

    if mode == "ray":
        from accord.verify.io import connect_ray

        connect_ray(num_cpus=2)
        warm = Path(path).with_name("warm.parquet")  # Ray worker start-up and imports, not counted
        write_table(warm, 20_000, seed=1)
        src = open_rewards(warm)
        cals = fit_streamed(src, "standardize", chunk)
        evaluate_streaming(
            src,
            Scorer(src.models, cals, tuple(default_rules()), 1.0, (1.5, 1.0, 0.8), {}, True),
            None,
            chunk,
            "ray",
            n_boot=10,
        )
    tracemalloc.start()
    t0 = time.perf_counter()
    if mode == "memory":
        from accord.adapters import fit_calibrators

        table = read_rewards(path)
        doc = evaluate_ensemble(table, fit_calibrators(table.flat_raw, table.models), n_boot=1000)
    else:
        src = open_rewards(path)
        cals = fit_streamed(src, "standardize", chunk)
        scorer = Scorer(src.models, cals, tuple(default_rules()), 1.0, (1.5, 1.0, 0.8), {}, True)
        doc = evaluate_streaming(
            src,
            scorer,
            Path(path).with_name(f"out-{mode}.parquet"),
            chunk,
            "ray" if mode == "ray" else "local",
            n_boot=1000,
        )
    seconds = time.perf_counter() - t0
    _, peak = tracemalloc.get_traced_memory()
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    return {
        "mode": mode,
        "seconds": seconds,
        "tracemalloc_peak": peak,
        "rss_peak": rss,
        "accuracy": {k: v["accuracy"] for k, v in doc["accuracy"].items()},
        "alpha": doc["agreement"]["krippendorff_alpha"],
    }


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", type=int, default=1_000_000)
    ap.add_argument("--chunk", type=int, default=65_536)
    ap.add_argument("--skip-ray", action="store_true")
    ap.add_argument("--one", nargs=2, metavar=("MODE", "PATH"), help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.one:
        print(json.dumps(one(args.one[0], args.one[1], args.chunk)))
        return
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "rewards.parquet"
        t0 = time.perf_counter()
        write_table(path, args.rows)
        arrow_bytes = pq.read_metadata(path).num_rows * (3 * 8 + 8 + 2 * 12)
        print(
            f"wrote {args.rows:,} rows ({path.stat().st_size / 2**20:.0f} MiB Parquet, ~{arrow_bytes / 2**20:.0f} MiB "
            "in Arrow) "
            f"in {time.perf_counter() - t0:.1f} s; chunk {args.chunk:,}"
        )
        results = {}
        for mode in ("memory", "local") + (() if args.skip_ray else ("ray",)):
            out = subprocess.run(
                [sys.executable, __file__, "--chunk", str(args.chunk), "--one", mode, str(path)],
                capture_output=True,
                text=True,
                env={**os.environ, "PYTHONWARNINGS": "ignore"},
            )
            if out.returncode:
                sys.exit(out.stderr)
            r = results[mode] = json.loads(out.stdout.strip().splitlines()[-1])
            print(
                f"[{mode:6}] {r['seconds']:7.1f} s   peak RSS {r['rss_peak'] / 2**20:7.0f} MiB   "
                f"tracemalloc peak {r['tracemalloc_peak'] / 2**20:7.1f} MiB"
            )
        ref = results["memory"]
        for mode, r in results.items():
            if mode == "memory":
                continue
            same = r["accuracy"] == ref["accuracy"] and abs(r["alpha"] - ref["alpha"]) < 1e-12
            print(
                f"{mode} / memory: time {r['seconds'] / ref['seconds']:.2f}x, peak RSS "
                f"{r['rss_peak'] / ref['rss_peak']:.2f}x, "
                f"tracemalloc peak {r['tracemalloc_peak'] / ref['tracemalloc_peak']:.3f}x; same accuracies and alpha: "
                f"{same}"
            )


if __name__ == "__main__":
    if "--one" in sys.argv:  # a child run: its stdout is one JSON line for the parent
        main()
    else:
        with _machine.Run():
            main()
