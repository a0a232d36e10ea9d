"""Scale-out figures from one run: score-table throughput (Ray Data vs in-process) and step-loop
throughput with 1 vs 2 Ray workers.

    python benchmarks/scale_out.py [--rows 10000000] [--problems 4] [--skip-tables] [--skip-run]

Part 1 writes a Parquet table of ``--rows`` rows (3 candidates per step, 3 judges, 2% failed
judges), decides it with the in-process streaming path and with Ray Data on a local cluster of
all this machine's CPUs, checks that both outputs are identical, and prints rows/s and the ratio.
Part 2 runs the same small step-loop run (SmolLM2 generator, arithmetic + MiniLM judges) with 1
and with 2 workers (one model server per worker) and prints problems/min and the ratio. Model
loading is excluded from the throughput (it is printed separately).
"""

from __future__ import annotations

import argparse
import os
import shutil
import tempfile
import time
from pathlib import Path

import _machine  # benchmarks/_machine.py: the machine line and CPU time beside wall time
import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq


def write_table(path: Path, rows: int, seed: int = 0, piece: int = 1_000_000) -> None:
    """A score table written piece by piece (memory bounded by ``piece`` rows)."""
    rng = np.random.default_rng(seed)
    schema = pa.schema(
        [("step", pa.string()), ("candidate", pa.string())]
        + [(j, pa.float64()) for j in ("visual", "logical", "contextual")]
    )
    with pq.ParquetWriter(path, schema) as w:
        for start in range(0, rows, piece):
            n = min(piece, rows - start)
            idx = np.arange(start, start + n)
            x = np.round(rng.random((n, 3)), 4)
            mask = rng.random((n, 3)) < 0.02
            cols = [pa.array((idx // 3).astype(str)), pa.array(np.array(["a", "b", "c"])[idx % 3])]
            cols += [pa.array(x[:, i], mask=mask[:, i]) for i in range(3)]
            w.write_table(pa.Table.from_arrays(cols, schema=schema), row_group_size=250_000)


def bench_tables(rows: int, chunk: int, workdir: Path) -> None:
    from accord.consensus_core import get_policy
    from accord.verify.io import connect_ray
    from accord.verify.tables import decide_streaming, decide_with_ray, open_source

    path = workdir / "scores.parquet"
    t0 = time.perf_counter()
    write_table(path, rows)
    print(
        f"[tables] wrote {rows:,} rows ({path.stat().st_size / 2**20:.0f} MiB Parquet) in "
        f"{time.perf_counter() - t0:.1f} s"
    )
    src = open_source(path)
    policy = get_policy("verdict")
    local = decide_streaming(src, policy, workdir / "local.parquet", chunk_size=chunk)
    ray = connect_ray(num_cpus=os.cpu_count())
    write_table(workdir / "warm.parquet", 100_000, seed=1)  # Ray worker start-up and imports, not counted
    decide_with_ray(open_source(workdir / "warm.parquet"), policy, workdir / "warm-out.parquet", chunk_size=chunk)
    remote = decide_with_ray(src, policy, workdir / "ray.parquet", chunk_size=chunk)
    same = _same_files(workdir / "local.parquet", workdir / "ray.parquet")
    lr, rr = local.rows / local.seconds, remote.rows / remote.seconds
    print(
        f"[tables] in-process streaming: {local.seconds:.1f} s, {lr:,.0f} rows/s ({local.chunks} chunks of {chunk:,})"
    )
    print(
        f"[tables] Ray Data ({int(ray.cluster_resources().get('CPU', 0))} CPUs): {remote.seconds:.1f} s, {rr:,.0f} "
        f"rows/s ({remote.chunks} blocks)"
    )
    print(f"[tables] ratio Ray Data / in-process throughput: {rr / lr:.2f}   outputs identical: {same}")
    print(f"[tables] steps {local.steps:,}: accepted {local.accepted:,}, fallback {local.fallback:,}")


def _same_files(a: Path, b: Path) -> bool:
    """Row-for-row equality, compared in pieces so memory stays bounded."""

    def pieces(path):
        for batch in pq.ParquetFile(path).iter_batches(batch_size=500_000):
            yield pa.Table.from_batches([batch])

    ga, gb = pieces(a), pieces(b)
    ta = tb = None
    while True:
        ta = next(ga, None) if ta is None or ta.num_rows == 0 else ta
        tb = next(gb, None) if tb is None or tb.num_rows == 0 else tb
        if ta is None or tb is None:
            return ta is None and tb is None
        n = min(ta.num_rows, tb.num_rows)
        if not ta.slice(0, n).equals(tb.slice(0, n)):
            return False
        ta, tb = ta.slice(n), tb.slice(n)


def bench_run(problems: int, workdir: Path) -> None:
    from accord.verify.io import connect_ray
    from accord.verify.run import RayOptions, close_servers, execute_on_ray, resolve, server_pool

    cfg = resolve(
        {
            "task": {"name": "basic_arithmetic", "options": {"size": problems, "seed": 0}},
            "generator": {"max_new_tokens": 16},
            "judges": [{"type": "arithmetic", "lambda": 1.5}, {"type": "embedding", "lambda": 0.8}],
            "baselines": [],
            "base_chain": False,
            "budgets": {"n_candidates": 3, "max_steps": 3, "max_tokens": 96},
            "threads": 1,
            "output": {"report": False},
        }
    )
    connect_ray(num_cpus=os.cpu_count())
    rates = {}
    for workers in (1, 2):
        opts = RayOptions(workers=workers, servers=workers, server_cpus=1.0, worker_cpus=0.0, reuse_servers=True)
        t0 = time.perf_counter()
        server_pool(__import__("ray"), cfg, opts, f"bench{workers}")
        load = time.perf_counter() - t0
        run_dir = workdir / f"run{workers}"
        s = execute_on_ray(cfg, run_dir, opts=opts)
        wall = s["timing"]["wall_s"]
        rates[workers] = problems / wall * 60
        steps = s["work"]["candidates_generated"]
        print(
            f"[run] {workers} worker(s), {workers} server(s): {problems} problems in {wall:.1f} s "
            f"= {rates[workers]:.2f} problems/min ({steps} candidates generated; model load {load:.1f} s, excluded)"
        )
        close_servers()  # frees the CPUs for the next configuration
    print(f"[run] ratio 2 workers / 1 worker throughput: {rates[2] / rates[1]:.2f}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=10_000_000)
    ap.add_argument("--chunk-size", type=int, default=262_144)
    ap.add_argument("--problems", type=int, default=4)
    ap.add_argument("--skip-tables", action="store_true")
    ap.add_argument("--skip-run", action="store_true")
    args = ap.parse_args()
    print(f"machine: {os.cpu_count()} CPUs")
    workdir = Path(tempfile.mkdtemp(prefix="accord-scale-"))
    try:
        if not args.skip_tables:
            bench_tables(args.rows, args.chunk_size, workdir)
        if not args.skip_run:
            bench_run(args.problems, workdir)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)


if __name__ == "__main__":
    with _machine.Run():
        main()
