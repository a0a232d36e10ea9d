"""Weighted juries vs the best member and the modal vote on simulated unequal panels.

Members right with probability 0.6 / 0.45 / 0.3 / 0.2, errors correlated through a shared
difficulty (latent correlation c), a shared wrong attractor of mass s. Prints each method's
accuracy and its difference to the best member.

    python benchmarks/jury_weighted.py [--n 3000]
"""

from __future__ import annotations

import argparse

import _machine  # benchmarks/_machine.py: the machine line and CPU time beside wall time
import numpy as np

from accord.consensus_core.jury import vote_codes
from accord.consensus_core.jury._law import simulate_unequal_panel
from accord.consensus_core.jury._weighted import dawid_skene, supervised_vote, weighted_plurality


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=3000)
    args = ap.parse_args()
    print(f"{'c':>4} {'s':>4} {'best':>6} {'modal':>6} {'DS':>6} {'wtd':>6} {'sup':>6}   DS-best  wtd-best")
    for c, s in ((0.3, 0.0), (0.3, 0.3), (0.3, 0.5), (0.5, 0.3), (0.5, 0.6), (0.2, 0.8)):
        sim = simulate_unequal_panel([0.6, 0.45, 0.3, 0.2], correlation=c, s=s, n=args.n, seed=1)
        codes = sim.codes
        best = float((codes == 0).mean(axis=0).max())
        acc = {
            "modal": np.mean(vote_codes(codes).chosen == 0),
            "DS": np.mean(dawid_skene(codes).chosen == 0),
            "wtd": np.mean(weighted_plurality(codes).chosen == 0),
            "sup": np.mean(supervised_vote(codes, codes == 0).chosen == 0),
        }
        print(
            f"{c:4.1f} {s:4.1f} {best:6.3f} {acc['modal']:6.3f} {acc['DS']:6.3f} {acc['wtd']:6.3f} {acc['sup']:6.3f}   "
            f"{acc['DS'] - best:+.3f}   {acc['wtd'] - best:+.3f}"
        )


if __name__ == "__main__":
    with _machine.Run():
        main()
