"""Replay cost: batched re-decision of every recorded context vs one core call per step.

Writes a recorded run with the test suite's trace writer (seeded score tables, real core
decisions) into a temporary folder, then prints measured times and their ratio from this one run.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

import _machine  # benchmarks/_machine.py: the machine line and CPU time beside wall time
from tracegen import simulate_run  # noqa: E402

from accord.verify.analysis import ContextTree, make_spec, read_trace, replay, threshold_sweep


def best_of(fn, repeat: int = 3) -> tuple[float, float]:
    """(wall, CPU) seconds of the try with the least wall time."""
    times = []
    for _ in range(repeat):
        with _machine.Timer() as t:
            fn()
        times.append((t.wall, t.cpu))
    return min(times)


def main(n_tasks: int = 200) -> None:
    with tempfile.TemporaryDirectory() as d:
        run = simulate_run(d, n_tasks=n_tasks, seed=0)
        trace = read_trace(run / "trace.jsonl")
    tree = ContextTree.from_trace(trace)
    spec = make_spec("verdict", tau=0.6, eps=0.1)
    nodes = list(tree.nodes.values())

    batched = best_of(lambda: tree.decide(spec))
    single = best_of(lambda: [spec.decide(nd.raw, nd.lambdas) for nd in nodes])
    full = best_of(lambda: replay(trace, spec, tree))
    grid = best_of(lambda: threshold_sweep(trace, [0.4, 0.5, 0.6, 0.7], [0.05, 0.1, 0.2], tree=tree), repeat=1)
    print(f"{len(trace.steps)} step records, {len(nodes)} distinct contexts, {n_tasks} tasks")
    ms = lambda wc: f"{wc[0] * 1e3:8.2f} ms wall {wc[1] * 1e3:8.2f} ms CPU"  # noqa: E731
    print(f"decide all contexts, batched:      {ms(batched)}")
    print(
        f"decide all contexts, one by one:   {ms(single)}   ratio {single[0] / batched[0]:.1f}x wall, "
        f"{single[1] / max(batched[1], 1e-9):.1f}x CPU"
    )
    print(f"replay one policy over all tasks:  {ms(full)}")
    print(f"4 x 3 threshold sweep:             {ms(grid)}   ({grid[0] / 12 * 1e3:.2f} ms wall per cell)")


if __name__ == "__main__":
    with _machine.Run():
        main(int(sys.argv[1]) if len(sys.argv) > 1 else 200)
