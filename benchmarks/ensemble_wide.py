"""`accord ensemble` on wide reward tables: time against the number of reward-model columns.

    python benchmarks/ensemble_wide.py [--models 100,1000,10000] [--rows 2,200] [--n-boot 2000]

For each number of rows and of model columns, writes a best-of-n table (JSONL for the in-memory
path, CSV for the streamed one; rows in prompts of 2 responses, 0/1 labels, 5% failed rewards after the first two
rows) and
times what the command does in one process: read, fit the standardize calibration, evaluate the
default rules (every model alone, mean, min, uwo, fj:verdict, fj:no_rejection) with bootstrap
intervals, agreement and influence, and encode the JSON report. Prints the seconds, the growth
from one column count to the next, and the time per reward cell (rows x columns): linear cost
keeps the last roughly constant. Finally runs the CLI itself on 2 rows x 2,000 columns in a
subprocess, and on 2 x 100 for the start-up alone (wall time including imports, and peak RSS).
"""

from __future__ import annotations

import argparse
import csv
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import _machine  # benchmarks/_machine.py: the machine line and CPU time beside wall time
import numpy as np

from accord.adapters import fit_calibrators
from accord.verify.ensemble import (
    Scorer,
    default_rules,
    evaluate_ensemble,
    evaluate_streaming,
    fit_streamed,
    read_rewards,
)
from accord.verify.tables import open_rewards


def write_tables(folder: Path, rows: int, m: int, seed: int = 0) -> tuple[Path, Path]:
    rng = np.random.default_rng(seed)
    label = (rng.random(rows) < 0.4).astype(int)
    x = np.round(label[:, None] * rng.uniform(0.2, 1.0, m) + rng.normal(size=(rows, m)), 4)
    x[2:][rng.random((rows - 2, m)) < 0.05] = np.nan  # the first two rows complete: every model calibrates
    names = [f"rm{j}" for j in range(m)]
    jsonl, table = folder / f"wide_{rows}x{m}.jsonl", folder / f"wide_{rows}x{m}.csv"
    with jsonl.open("w") as fh, table.open("w", newline="") as ch:
        w = csv.writer(ch)
        w.writerow(["prompt_id", "response_id", "label", *names])
        for i in range(rows):
            vals = [None if np.isnan(v) else float(v) for v in x[i]]
            fh.write(
                json.dumps(
                    {
                        "prompt_id": f"p{i // 2}",
                        "response_id": f"r{i % 2}",
                        "label": int(label[i]),
                        **dict(zip(names, vals)),
                    }
                )
                + "\n"
            )
            w.writerow([f"p{i // 2}", f"r{i % 2}", label[i], *("" if v is None else v for v in vals)])
    return jsonl, table


def in_memory(path: Path, n_boot: int) -> float:
    t0 = time.perf_counter()
    table = read_rewards(path)
    cals = fit_calibrators(table.flat_raw, table.models)
    json.dumps(evaluate_ensemble(table, cals, n_boot=n_boot))
    return time.perf_counter() - t0


def streamed(path: Path, n_boot: int) -> float:
    t0 = time.perf_counter()
    src = open_rewards(path)
    cals = fit_streamed(src, "standardize")
    m = len(src.models)
    scorer = Scorer(src.models, cals, tuple(default_rules()), 1.0, (1.0,) * m, {}, True)
    json.dumps(evaluate_streaming(src, scorer, n_boot=n_boot))
    return time.perf_counter() - t0


def cli_run(folder: Path, m: int) -> tuple[float, float]:
    """(wall seconds, peak RSS MiB) of ``accord ensemble FILE --json`` on 2 rows x ``m`` columns."""
    path, _ = write_tables(folder, 2, m, seed=1)
    code = (
        "import sys\nfrom accord.cli.main import main\nrc = main(sys.argv[1:])\n"  # VmHWM: this process's own peak
        "print([l for l in open('/proc/self/status') if l.startswith('VmHWM')][0].split()[1], "
        "file=sys.stderr)\nsys.exit(rc)"
    )
    t0 = time.perf_counter()
    cp = subprocess.run(
        [sys.executable, "-c", code, "ensemble", str(path), "--json"],
        check=True,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    wall = time.perf_counter() - t0
    return wall, int(cp.stderr.split()[-1]) / 1024


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--models", default="100,1000,10000")
    ap.add_argument("--rows", default="2,200")
    ap.add_argument("--n-boot", type=int, default=2000)
    args = ap.parse_args()
    counts = [int(v) for v in args.models.split(",")]
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        warm_jsonl, warm_csv = write_tables(folder, 2, 80)
        in_memory(warm_jsonl, args.n_boot)  # imports and first-call costs of both paths, not counted
        streamed(warm_csv, args.n_boot)
        for rows in (int(v) for v in args.rows.split(",")):
            print(f"\n{rows} rows ({rows // 2} prompts x 2 responses), {args.n_boot} bootstrap resamples")
            print(f"{'models':>8} {'path':>10} {'seconds':>9} {'x previous':>11} {'us/cell':>9}")
            last: dict[str, float] = {}
            for m in counts:
                jsonl, table = write_tables(folder, rows, m)
                for name, run, path in (("in memory", in_memory, jsonl), ("streamed", streamed, table)):
                    s = run(path, args.n_boot)
                    growth = f"{s / last[name]:.2f}" if name in last else "-"
                    print(f"{m:>8} {name:>10} {s:>9.3f} {growth:>11} {s / (rows * m) * 1e6:>9.2f}")
                    last[name] = s
            print(f"column counts grow by {' then '.join(f'{b / a:g}x' for a, b in zip(counts, counts[1:]))}")
        print()
        for m in (100, 2000):
            wall, rss = cli_run(folder, m)
            print(
                f"CLI, 2 rows x {m:,} columns (JSONL, --json): {wall:.2f} s wall including start-up, peak RSS "
                f"{rss:.0f} MiB"
            )


if __name__ == "__main__":
    with _machine.Run():
        main()
