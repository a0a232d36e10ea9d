"""The jury law vs its Monte Carlo simulator over a grid of (a, rho, s, M); prints the deviations.

python benchmarks/jury_law.py [--n 2000000]
"""

from __future__ import annotations

import argparse
import itertools

import _machine  # benchmarks/_machine.py: the machine line and CPU time beside wall time
import numpy as np

from accord.consensus_core.jury._law import predict, simulate


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=2_000_000, help="simulated problems per grid point")
    args = ap.parse_args()
    grid = list(itertools.product((0.3, 0.55, 0.8), (0.05, 0.25, 0.5), (0.0, 0.3, (0.35, 0.15)), (3, 5, 8)))
    worst = {"accuracy": 0.0, "floor": 0.0, "unanimous_accuracy": 0.0, "coverage": 0.0}
    for i, (a, rho, s, M) in enumerate(grid):
        p = predict(a, rho, s, M)
        m = simulate(a, rho, s, M, n=args.n, seed=100 + i)
        worst["accuracy"] = max(worst["accuracy"], abs(p.accuracy - m.accuracy))
        worst["floor"] = max(worst["floor"], abs(p.floor - m.floor))
        if m.unanimous_rate * args.n > 2000:
            worst["unanimous_accuracy"] = max(
                worst["unanimous_accuracy"], abs(p.unanimous_accuracy - m.unanimous_accuracy)
            )
        worst["coverage"] = max(worst["coverage"], float(np.max(np.abs(p.coverage - m.coverage))))
    print(f"grid points: {len(grid)}, simulated problems per point: {args.n}")
    for k, v in worst.items():
        print(f"max |closed form - simulation| {k:>20}: {v:.5f}")


if __name__ == "__main__":
    with _machine.Run():
        main()
