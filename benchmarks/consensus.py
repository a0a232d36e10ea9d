"""Speed of the consensus core: consensus + statistics + decision, as ratios from one run.

For B candidates (grouped as steps of n = 3) and m judges it prints, for the numpy reference
(``decide(raw, path="reference")``), the JAX path and the default ``decide`` (the compiled kernels
at these sizes; needs numba), the time divided by the time to copy the input array once (the
memory-traffic floor), the time per candidate (linearity in B), and the speed-up of the fastest
path over a per-candidate ``np.linalg.solve`` loop. "decide+key" also reads the rank key (the
per-candidate statistics stay lazy); JAX's lean kernel skips writing s*. For 10^6 candidates and
m = 3 the default decide's ratio is also given in CPU time (process time, all threads), which
other jobs on the machine disturb less than wall time. Compilation happens
before timing; the cost of a process's first call is measured separately in fresh processes, with
empty kernel caches and then with the kernels cached on disk. Sizes whose working set would not
fit this machine's memory are skipped and listed.

Quiet vs busy: the default decide at 10^6 rows, m = 3, over a copy, in wall time, first as the
machine is, then with two CPU-burning processes beside it, with the threads the kernel chooses
(by size and free cores) and, for comparison, split over every core as it was before.

CPU time by size (``--cpu-only`` runs only this): the default decide (``get_policy("verdict").decide(raw,
ConsensusSpec((1.5, 1.0, 0.8)))``) and a plain numba loop doing the same per-candidate work (3 x 3
matrix-vector product, mean, dispersion, the accept rule, argmax per step) over a copy of the
input, at 10^4 to 10^7 candidate rows, quiet and beside two CPU-bound processes: the least CPU time
(this process, all threads) and the least wall time of many interleaved calls, and total wall time
over all of them. To stand in for other CPUs, run it again with numba's target set, e.g.
``NUMBA_CPU_NAME=generic`` (x86-64 with SSE2 only, no AVX) or ``NUMBA_CPU_NAME=x86-64-v3``
(AVX2, no AVX-512); the machine line names the target. ``--codegen`` compiles the kernels for
several targets (without running them) and prints each one's vectorised loops, SIMD width and
gathers.

    python benchmarks/consensus.py [--max-elements 1e8] [--repeats 5] [--busy-only] [--cpu-only] [--codegen]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time

import _machine  # benchmarks/_machine.py: the machine line and CPU time beside wall time
import numpy as np

from accord.consensus_core import ConsensusSpec, all_to_all, get_policy
from accord.consensus_core import _fused as fused
from accord.consensus_core.jax_backend import verdict_decide_jax

N_CANDIDATES = 3
TARGET_ROWS = 10**6
FIRST_CALL = """
import time, numpy as np
t0 = time.perf_counter()
from accord.consensus_core import ConsensusSpec, get_policy
raw = np.random.default_rng(0).random((334_000, 3, 3))
t1 = time.perf_counter()
get_policy("verdict").decide(raw, ConsensusSpec((1.5, 1.0, 0.8)))
t2 = time.perf_counter()
get_policy("verdict").decide(raw, ConsensusSpec((1.5, 1.0, 0.8)))
print(t1 - t0, t2 - t1, time.perf_counter() - t2)
"""


def best_time(fn, repeats: int, clock=time.perf_counter) -> float:
    times = []
    for _ in range(repeats):
        t0 = clock()
        fn()
        times.append(clock() - t0)
    return min(times)


def solve_loop_per_candidate(raw: np.ndarray, lam: np.ndarray, count: int) -> float:
    m = raw.shape[-1]
    A = np.eye(m) + np.diag(lam) - all_to_all(m)
    flat = raw.reshape(-1, m)[:count]
    t0 = time.perf_counter()
    for r in flat:
        np.linalg.solve(A, lam * r)
    return (time.perf_counter() - t0) / len(flat)


def first_calls() -> list[tuple[float, float, float]]:
    """(import, first decide, second decide) seconds in two fresh processes sharing new caches."""
    with tempfile.TemporaryDirectory() as cache:
        env = {**os.environ, "NUMBA_CACHE_DIR": cache, "ACCORD_KERNEL_CACHE": cache}
        out = []
        for _ in range(2):
            res = subprocess.run(
                [sys.executable, "-c", FIRST_CALL], env=env, capture_output=True, text=True, check=True
            )
            out.append(tuple(float(x) for x in res.stdout.split()))
        return out


BURN = "while True:\n    pass\n"


def busy_ratios(repeats: int) -> None:
    """Decide / copy at TARGET_ROWS quiet and beside two CPU-bound processes, chosen threads vs all cores."""
    raw = np.random.default_rng(1).random((TARGET_ROWS // N_CANDIDATES, N_CANDIDATES, 3))
    pol, spec = get_policy("verdict"), ConsensusSpec((1.5, 1.0, 0.8))
    pol.decide(raw, spec)  # compile (or load) the kernels
    chosen = fused.threads_for
    every = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1

    def ratios() -> tuple[float, int, float]:
        threads = chosen(raw.shape[0] * N_CANDIDATES)
        # Many interleaved tries, compared by their total wall time: under load a call of a few ms is
        # either preempted or not, so single times are bimodal and a median (or a best) lands on
        # either mode at random, while the totals are what a run of many calls waits for.
        reps = max(repeats, 200)
        copy, dec, old = [], [], []
        for _ in range(reps):
            copy.append(best_time(lambda: raw.copy(), 1))
            dec.append(best_time(lambda: pol.decide(raw, spec), 1))
            fused.threads_for = lambda c: every if c >= fused.SPLIT_CANDIDATES else 1  # noqa: E731 - the old split
            try:
                old.append(best_time(lambda: pol.decide(raw, spec), 1))
            finally:
                fused.threads_for = chosen
        copy, dec, old = (float(np.sum(x)) for x in (copy, dec, old))
        return dec / copy, threads, old / copy

    load = os.getloadavg()[0]
    quiet = ratios()
    burners = [subprocess.Popen([sys.executable, "-c", BURN]) for _ in range(2)]
    try:
        time.sleep(1.0)
        busy = ratios()
    finally:
        for p in burners:
            p.kill()
            p.wait()
    print(
        f"default decide at {TARGET_ROWS:.0e} candidate rows, m = 3, total wall time over a copy's "
        f"(1-min load before: {load:.1f}, {every} cores):"
    )
    for name, (r, threads, old) in (("quiet", quiet), ("busy (2 CPU-bound processes)", busy)):
        print(
            f"  {name:<30} {r:5.2f}x a copy with {threads} thread(s) chosen (target <= 3); "
            f"split over all {every} cores: {old:5.2f}x"
        )


def plain_loop():
    """A plain numba loop doing the default decide's per-candidate work, for comparison (numba needed)."""
    import numba

    @numba.njit(nogil=True, boundscheck=False)
    def plain(r, M, tau, eps, chosen, accepted):
        steps, n, m = r.shape
        s = np.empty(m)
        for t in range(steps):
            best, pick = -np.inf, 0
            for i in range(n):
                mean = 0.0
                for k in range(m):
                    acc = 0.0
                    for j in range(m):
                        acc += M[k, j] * r[t, i, j]
                    s[k] = acc
                    mean += acc
                mean /= m
                disp = 0.0
                for k in range(m):
                    disp += abs(s[k] - mean)
                disp /= m
                ok = mean > tau and disp < eps
                accepted[t, i] = ok
                key = mean if ok else -np.inf
                if key > best:
                    best, pick = key, i
            chosen[t] = pick

    return plain


def cpu_by_size(sizes, with_plain: bool) -> None:
    """Decide (and the plain loop) over a copy in CPU and wall time, by size, quiet and beside two burners."""
    lam = (1.5, 1.0, 0.8)
    pol, spec = get_policy("verdict"), ConsensusSpec(lam)
    plain = plain_loop() if with_plain else None
    M = fused.influence_matrix(np.array(lam), None, 3) if with_plain else None
    rows_out = []
    for phase in ("quiet", "busy"):
        burners = [subprocess.Popen([sys.executable, "-c", BURN]) for _ in range(2)] if phase == "busy" else []
        try:
            time.sleep(1.0 if burners else 0.0)
            for rows in sizes:
                raw = np.random.default_rng(2).random((rows // N_CANDIDATES, N_CANDIDATES, 3))
                path = pol.decide(raw, spec).path  # compiles (or loads) the kernels
                ch, ac = np.empty(raw.shape[0], dtype=np.int64), np.empty(raw.shape[:2], dtype=bool)
                fns = {"copy": lambda raw=raw: raw.copy(), "decide": lambda raw=raw: pol.decide(raw, spec)}
                if plain is not None:
                    plain(raw, M, 0.6, 0.1, ch, ac)
                    fns["plain"] = lambda raw=raw, ch=ch, ac=ac: plain(raw, M, 0.6, 0.1, ch, ac)
                reps = max(5, min(200, 2 * 10**8 // rows))
                cpu, wall, total = ({k: np.inf for k in fns}, {k: np.inf for k in fns}, {k: 0.0 for k in fns})
                for _ in range(reps):
                    for k, fn in fns.items():
                        with _machine.Timer() as clock:
                            fn()
                        cpu[k], wall[k] = min(cpu[k], clock.cpu), min(wall[k], clock.wall)
                        total[k] += clock.wall
                rows_out.append((phase, rows, path, reps, fns, cpu, wall, total, _machine.load()))
                raw = None
        finally:
            for b in burners:
                b.kill()
                b.wait()
    print(
        "\ndefault decide (and a plain numba loop) over a copy of the input, m = 3, n = 3; least CPU time, least wall "
        "time and total wall time of interleaved calls (targets at 1e6: CPU <= 2x, busy total wall <= 3x)"
    )
    print(
        f"{'phase':<6} {'rows':>7} {'path':>9} {'calls':>5} | {'copy CPU ms':>11} {'decide CPU':>10} {'plain CPU':>9} "
        "| "
        f"{'copy wall ms':>12} {'decide wall':>11} {'plain wall':>10} | {'decide total wall':>17} | load"
    )
    for phase, rows, path, reps, fns, cpu, wall, total, load in rows_out:
        r = lambda d, k: f"{d[k] / d['copy']:.2f}x" if k in d and d["copy"] > 0 else "-"
        print(
            f"{phase:<6} {rows:>7.0e} {path:>9} {reps:>5} | {cpu['copy'] * 1e3:>11.3f} {r(cpu, 'decide'):>10} "
            f"{r(cpu, 'plain'):>9} | {wall['copy'] * 1e3:>12.3f} {r(wall, 'decide'):>11} {r(wall, 'plain'):>10} | "
            f"{r(total, 'decide'):>17} | {load}"
        )


AVX512 = "+avx512f,+avx512dq,+avx512vl,+avx512bw,+avx512cd,+avx2,+avx,+fma,+sse4.2,+popcnt,+bmi2,+f16c"
TARGETS = (
    ("this machine", {}),
    ("generic x86-64 (SSE2)", {"NUMBA_CPU_NAME": "generic"}),
    ("x86-64-v3 (AVX2)", {"NUMBA_CPU_NAME": "x86-64-v3"}),
    ("AMD Zen 4 (AVX-512)", {"NUMBA_CPU_NAME": "znver4", "NUMBA_CPU_FEATURES": AVX512}),
    ("Intel Sapphire Rapids (AVX-512)", {"NUMBA_CPU_NAME": "sapphirerapids", "NUMBA_CPU_FEATURES": AVX512}),
)
CODEGEN = r"""
import re, sys, numba
from accord.consensus_core import fused
b, f, i = numba.boolean, numba.float64, numba.int64
sig = (f[::1], f[:, ::1], f[::1], f[::1], b, i, b, f, f, f, b[::1], i[::1], b[::1], b[::1])
for n, m, a2a in ((3, 3, True), (3, 8, True), (6, 3, True), (3, 5, False)):
    k = fused._step_kernel(n, m, a2a, False)
    k.compile(sig)
    ir = k.inspect_llvm(sig)
    bodies = [x for x in re.split(r"\n(?=[\w.]+:)", ir) if x.split(":")[0].startswith("vector.body")]
    lanes = sorted({int(w) for x in bodies for w in re.findall(r"<(\d+) x double>", x)})
    print(f"{n}x{m}{'' if a2a else ' W'}: {len(bodies)} vector loop(s), {lanes or '-'} doubles, "
          f"{len(re.findall(r'masked.gather', ir))} gathers", end="; ")
"""


def codegen() -> None:
    """The kernels as compiled for several targets (compiled only, not run): vectorised loops, lanes, gathers."""
    print("\ncompiled kernels by target (vectorised loops, doubles per vector, gathers):")
    for name, env in TARGETS:
        env = {**os.environ, **env, "ACCORD_KERNEL_CACHE": os.devnull + "/none"}  # uncached: inspectable
        res = subprocess.run([sys.executable, "-c", CODEGEN], env=env, capture_output=True, text=True, check=False)
        print(f"  {name:<32} " + (res.stdout.strip() or res.stderr.strip().splitlines()[-1]))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--max-elements", type=float, default=1e8, help="skip B*m above this (memory)")
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--busy-only", action="store_true", help="only the quiet vs busy figures")
    ap.add_argument("--cpu-only", action="store_true", help="only the CPU time by size (and the plain loop)")
    ap.add_argument("--codegen", action="store_true", help="only the compiled kernels by target")
    args = ap.parse_args()
    sizes = [b for b in (10**4, 10**5, 10**6, 10**7) if 3 * b <= args.max_elements]
    if args.codegen:
        codegen()
        return
    if args.busy_only:
        busy_ratios(args.repeats)
        return
    if args.cpu_only:
        cpu_by_size(sizes, fused.available())
        return
    rng = np.random.default_rng(0)
    print(
        f"{'B':>9} {'m':>3} | {'numpy/copy':>10} {'jax/copy':>9} {'decide/copy':>11} {'decide+key/copy':>15} | "
        f"{'numpy ns/cand':>13} {'jax ns/cand':>11} {'decide ns/cand':>14} | {'vs solve loop (best path)':>25}"
    )
    skipped, target = [], None
    for m in (3, 8, 32):
        lam = rng.uniform(0.5, 2.0, m)
        pol, spec = get_policy("verdict"), ConsensusSpec(tuple(lam))
        for B in (10**4, 10**5, 10**6, 10**7):
            if B * m > args.max_elements:
                skipped.append((B, m))
                continue
            raw = rng.random((B // N_CANDIDATES, N_CANDIDATES, m))
            np_t = best_time(lambda: pol.decide(raw, spec, path="reference"), min(args.repeats, 3))
            verdict_decide_jax(raw, spec)["chosen"].block_until_ready()  # compile for this shape
            jax_t = best_time(lambda: verdict_decide_jax(raw, spec)["chosen"].block_until_ready(), args.repeats)
            d = pol.decide(raw, spec)  # compile (or load) the kernels
            de_t = best_time(lambda: pol.decide(raw, spec), args.repeats)
            key_t = best_time(lambda: pol.decide(raw, spec).rank_key, args.repeats)
            copy_t = best_time(lambda: raw.copy(), args.repeats)
            per_solve = solve_loop_per_candidate(raw, lam, 3000)
            best = min(np_t, jax_t, de_t) / raw.shape[0] / N_CANDIDATES
            print(
                f"{B:>9.0e} {m:>3} | {np_t / copy_t:>10.1f} {jax_t / copy_t:>9.1f} {de_t / copy_t:>11.2f} "
                f"{key_t / copy_t:>15.2f} | "
                f"{np_t / B * 1e9:>13.1f} {jax_t / B * 1e9:>11.1f} {de_t / B * 1e9:>14.1f} | {per_solve / best:>24.0f}x"
                + ("" if d.path == "fused" else f"  (decide took the {d.path} path)")
            )
            if B == TARGET_ROWS and m == 3:  # CPU time too: robust when other jobs share the cores
                cpu = best_time(lambda: pol.decide(raw, spec), args.repeats, time.process_time)
                target = (de_t / copy_t, cpu / best_time(lambda: raw.copy(), args.repeats, time.process_time), d.path)
            raw = None  # free it before the next size
    if skipped:
        print("skipped (B*m above --max-elements):", ", ".join(f"B={b:.0e} m={m}" for b, m in skipped))
    if target:
        print(
            f"default decide at {TARGET_ROWS:.0e} candidate rows, m = 3 ({target[2]} path): "
            f"{target[0]:.2f}x a copy of the input in wall time (target <= 3), {target[1]:.2f}x in CPU time"
        )
    if fused.available():
        cpu_by_size(sizes, True)
        busy_ratios(args.repeats)
        (imp0, cold, warm0), (imp1, cached, warm1) = first_calls()
        print(
            f"first decide of a process (1.0e6 candidates, m = 3): {cold:.2f} s with empty kernel caches (compiling), "
            f"{cached:.2f} s with the kernels cached on disk; the next call {min(warm0, warm1) * 1e3:.1f} ms "
            f"(importing accord: {min(imp0, imp1):.2f} s)"
        )


if __name__ == "__main__":
    with _machine.Run():
        main()
