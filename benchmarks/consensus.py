"""Speed of the consensus core: consensus + statistics + VERDICT decision, as ratios from one run.

For B candidates (grouped as steps of n = 3) and m judges it prints, for the numpy reference, the
JAX path and the fused compiled kernels (accord.consensus_core.fused; needs numba), the time
divided by the time to copy the input array once (the memory-traffic floor), the time per
candidate (linearity in B), and the speed-up of the fastest path over a per-candidate
``np.linalg.solve`` loop. Every path returns s*, s̄*, Δ* and the decision except JAX's lean
kernel, which skips writing s*; "fused lean" is the fused path skipping s* too (``consensus=False``),
the like-for-like comparison with JAX. Compilation happens before timing.
Sizes whose working set would not fit this machine's memory are skipped and listed.

    python benchmarks/consensus.py [--max-elements 1e8] [--repeats 3]
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from accord.consensus_core import all_to_all, fused, get_policy
from accord.consensus_core.jax_backend import verdict_decide_jax

N_CANDIDATES = 3


def best_time(fn, repeats: int) -> float:
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def solve_loop_per_candidate(raw: np.ndarray, lam: np.ndarray, count: int) -> float:
    m = raw.shape[-1]
    A = np.eye(m) + np.diag(lam) - all_to_all(m)
    flat = raw.reshape(-1, m)[:count]
    t0 = time.perf_counter()
    for r in flat:
        np.linalg.solve(A, lam * r)
    return (time.perf_counter() - t0) / len(flat)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--max-elements", type=float, default=1e8, help="skip B*m above this (memory)")
    ap.add_argument("--repeats", type=int, default=5)
    args = ap.parse_args()
    policy = get_policy("verdict")
    rng = np.random.default_rng(0)
    has_fused = fused.available()
    print(f"{'B':>9} {'m':>3} | {'numpy/copy':>10} {'jax/copy':>9} {'fused/copy':>10} {'lean/copy':>9} | "
          f"{'numpy ns/cand':>13} {'jax ns/cand':>11} {'fused ns/cand':>13} | {'vs solve loop (best path)':>25}")
    skipped = []
    for m in (3, 8, 32):
        lam = rng.uniform(0.5, 2.0, m)
        pol = get_policy("verdict", lambdas=lam)
        for B in (10**4, 10**5, 10**6, 10**7):
            if B * m > args.max_elements:
                skipped.append((B, m))
                continue
            raw = rng.random((B // N_CANDIDATES, N_CANDIDATES, m))
            copy_t = best_time(lambda: raw.copy(), args.repeats)
            np_t = best_time(lambda: pol.decide(raw), args.repeats)
            verdict_decide_jax(raw, lam)["chosen"].block_until_ready()  # compile for this shape
            jax_t = best_time(lambda: verdict_decide_jax(raw, lam)["chosen"].block_until_ready(), args.repeats)
            fu_t = lean_t = float("nan")
            if has_fused:
                fused.verdict_decide_fused(raw, lam)  # compile for this panel
                fused.verdict_decide_fused(raw, lam, consensus=False)
                fu_t = best_time(lambda: fused.verdict_decide_fused(raw, lam), args.repeats)
                lean_t = best_time(lambda: fused.verdict_decide_fused(raw, lam, consensus=False), args.repeats)
            per_solve = solve_loop_per_candidate(raw, lam, 3000)
            best = np.nanmin([np_t, jax_t, fu_t]) / raw.shape[0] / N_CANDIDATES
            print(
                f"{B:>9.0e} {m:>3} | {np_t / copy_t:>10.1f} {jax_t / copy_t:>9.1f} {fu_t / copy_t:>10.1f} {lean_t / copy_t:>9.1f} | "
                f"{np_t / B * 1e9:>13.1f} {jax_t / B * 1e9:>11.1f} {fu_t / B * 1e9:>13.1f} | {per_solve / best:>24.0f}x"
            )
            del raw
    if skipped:
        print("skipped (B*m above --max-elements):", ", ".join(f"B={b:.0e} m={m}" for b, m in skipped))
    del policy


if __name__ == "__main__":
    main()
