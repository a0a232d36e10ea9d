"""How much of the parting rows the label-free advantage interval must leave to dependence.

The interval of :func:`accord.consensus_core.jury._label_free.label_free_jury` adds, in
quadrature, ``allowance * overrides`` (the share of rows where the vote overrides the estimated best
member; the interval is clipped to the model-free bound, the largest share of rows where the
vote and one member part ways) to the model's own uncertainty. This script draws a *calibration* family of
simulated panels from the jury law's shared-attractor model (random member accuracies, error
correlation and attractor mass; its own seeds), fits each without labels, and reports for a
grid of allowances how often the printed interval covers the realised difference (vote minus
the best member by hindsight) where the members can be ranked, how often a sign claim is made
and how often those claims hold. The chosen allowance is then checked, through ``accord jury``,
on panels of another settings family and on the real panel (benchmarks/jury_loco.py).

    python benchmarks/jury_dependence.py [--panels 120] [--seed 2026]
"""

from __future__ import annotations

import argparse
import json

import _machine  # benchmarks/_machine.py: the machine line and CPU time beside wall time
import numpy as np

from accord.consensus_core.jury import label_free_jury
from accord.consensus_core.jury._law import simulate_unequal_panel

ALLOWANCES = (0.0, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.4, 0.5, 0.75, 1.0)


def calibration_family(panels: int, seed: int):
    """Random settings: 3-6 members, best accuracy 0.45-0.8, the others below it, error
    correlation 0-0.6, attractor mass 0-0.7, 200/400/800 problems."""
    rng = np.random.default_rng(seed)
    for k in range(panels):
        M = int(rng.integers(3, 7))
        best = rng.uniform(0.45, 0.8)
        accs = np.concatenate([[best], rng.uniform(0.15, best - 0.02, M - 1)])
        yield k, accs, float(rng.uniform(0, 0.6)), float(rng.uniform(0, 0.7)), int(rng.choice([200, 400, 800]))


def one_panel(accs, rho, s, n, seed) -> dict:
    codes = simulate_unequal_panel(accs, rho, s, n=n, seed=seed).codes
    lf = label_free_jury(codes, n_boot=40, seed=0, allowance=0.0)
    right = codes == 0
    realised = float(np.mean(lf.chosen == 0) - right.mean(axis=0).max())
    lo, hi = lf.advantage_ci
    return {
        "ranks": lf.ranks_members,
        "advantage": lf.advantage,
        "lo": lo,
        "hi": hi,
        "parting": lf.parting,
        "overrides": lf.overrides,
        "realised": realised,
    }


def interval(r: dict, allowance: float) -> tuple[float, float]:
    """The interval at ``allowance``, from the one at 0 (the same formula as label_free_jury)."""
    a, p, slack = r["advantage"], r["parting"], allowance * r["overrides"]
    lo = -p if r["lo"] <= -p else max(min(a - np.hypot(a - r["lo"], slack), -slack), -p)
    hi = r["overrides"] if r["hi"] >= p else min(a + np.hypot(r["hi"] - a, slack), r["overrides"])
    return min(lo, hi), max(lo, hi)


def summary(rows: list[dict]) -> list[dict]:
    ranked = [r for r in rows if r["ranks"]]
    out = []
    for k in ALLOWANCES:
        cis = [interval(r, k) for r in ranked]
        cover = [lo - 1e-9 <= r["realised"] <= hi + 1e-9 for r, (lo, hi) in zip(ranked, cis)]  # float slack
        signed = [c for c, (lo, hi) in zip(cover, cis) if lo > 0 or hi < 0]
        out.append(
            {
                "allowance": k,
                "panels": len(rows),
                "ranked": len(ranked),
                "coverage_ranked": float(np.mean(cover)) if cover else None,
                "sign_claims": len(signed),
                "sign_claim_share": len(signed) / len(rows),
                "coverage_sign_claims": float(np.mean(signed)) if signed else None,
            }
        )
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--panels", type=int, default=60)
    ap.add_argument("--seed", type=int, default=2026)
    ap.add_argument("--out", default=None)
    args = ap.parse_args()
    rows = []
    for k, accs, rho, s, n in calibration_family(args.panels, args.seed):
        rows.append(
            {
                "k": k,
                "accs": np.round(accs, 3).tolist(),
                "rho": rho,
                "s": s,
                "n": n,
                **one_panel(accs, rho, s, n, 100_000 + k),
            }
        )
        print(json.dumps(rows[-1]), flush=True)
    table = summary(rows)
    for t in table:
        print(json.dumps(t), flush=True)
    if args.out:
        with open(args.out, "w", encoding="utf-8") as f:
            json.dump({"rows": rows, "summary": table}, f, indent=1)


if __name__ == "__main__":
    with _machine.Run():
        main()
