"""Compiled decisions at memory speed for the policies that accept and rank by a mean and a spread.

The numpy reference makes a dozen passes over (..., n, m) arrays. Here one compiled pass over the
steps reads each step's n x m scores once and keeps everything else in registers: every
candidate's mean and spread (s̄* and Δ*, or their raw twins), the range check, acceptance and the
choice. The loop is generated for the panel's (n, m) with every candidate and judge unrolled into
branch-free code (every condition a select). It works block by block: a block's scores are first
copied judge-major into a small buffer, so that the arithmetic reads them with unit stride and the
compiler vectorises it across the block's steps with plain vector loads at whatever SIMD width the
CPU has (2, 4 or 8 doubles), for every panel shape, never with gathers (which reading the steps'
interleaved scores directly led to on AVX-512 targets, slow on AMD's); large batches are
split over the cores that other work leaves free, in pieces the threads take in turn (see
:func:`threads_for`): a thread the OS pauses holds up the piece it has, not a share fixed in advance.

Exactness: the decision must be the reference's, but compiled arithmetic may round differently in
the last bits. So a step is flagged for the reference (``redo``) when any candidate's mean or
spread lies within ``MARGIN`` of a threshold, when the best key and the runner-up lie within
``MARGIN`` (ties included), or when a judge failed (NaN). Elsewhere no rounding difference can
change the outcome.

Policies describe themselves with a :class:`KernelRule`. Needs ``numba`` (the ``fast`` extra).
Compiling one (n, m) takes a few seconds; the generated source is written to
``ACCORD_KERNEL_CACHE`` (default ``~/.cache/accord/kernels``) so that numba keeps the compiled code
on disk and later processes load it; where that folder cannot be written, kernels are compiled
once per process.
"""

from __future__ import annotations

import hashlib
import importlib.util
import inspect
import os
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import numpy as np

from accord.consensus_core._equilibrium import influence_matrix
from accord.consensus_core._rule import accept_and_rank
from accord.consensus_core._validation import as_scores

MARGIN = 1e-9  # far above any rounding difference (~1e-15 for scores in [0, 1]), far below real gaps
MIN_CANDIDATES = 16_384  # below this the reference takes milliseconds; loading numba costs more
MAX_UNROLLED = 512  # n * m (general W: n * m * m) terms unrolled into one kernel; compiling more costs too much
SPLIT_CANDIDATES = (
    65_536  # batches from this size are split over the free cores, in pieces of about this many candidates
)
_CENTERS = ("consensus", "raw")
_SPREADS = (None, "consensus", "raw")


@dataclass(frozen=True)
class KernelRule:
    """A policy's decision as the kernel computes it.

    Each candidate gets a mean (``center``: s̄* or the raw mean) and a spread (``spread``: Δ*, the
    raw mean absolute deviation, or None for 0), decided by VERDICT's rule
    (:func:`~accord.consensus_core._rule.accept_and_rank`, with ``rank_by_margin``).
    """

    center: str
    spread: str | None
    rank_by_margin: bool = False

    def __post_init__(self):
        if self.center not in _CENTERS or self.spread not in _SPREADS:
            raise ValueError(f"unknown kernel rule {self}")


def available() -> bool:
    """Whether the compiled kernels can be used (numba importable)."""
    return importlib.util.find_spec("numba") is not None


def unsupported(n: int, m: int, general: bool) -> str | None:
    """Why no kernel is generated for n candidates and m judges (general: any influence W), or None."""
    terms = n * m * (m if general else 1)
    if terms > MAX_UNROLLED:
        what = f"{n} candidates x {m} judges" + (f" x {m} influence terms" if general else "")
        return f"{what} = {terms} unrolled terms is beyond the kernels ({MAX_UNROLLED} at most)"
    return None


@dataclass(frozen=True)
class StepDecisions:
    """The kernel's decisions for (steps, n, m) scores; steps with ``redo`` set are the reference's to make."""

    chosen: np.ndarray  # (steps,) int64
    accepted: np.ndarray  # (steps, n) bool
    fallback: np.ndarray  # (steps,) bool
    redo: np.ndarray  # (steps,) bool


class StepKernel:
    """The compiled pass for one rule and panel: decisions, and on request the rank keys."""

    def __init__(self, rule: KernelRule, lam: np.ndarray, W: np.ndarray | None, tau: float, eps: float):
        m = lam.shape[0]
        self.rule, self.all_to_all = rule, W is None
        if W is None:  # all-to-all closed form: s_i = scale_i r_i + shared_i S, S = coef . r
            w = 1.0 / (m + (m - 1) * lam)
            lw = (m - 1) * lam * w
            self.coef, self.scale, self.shared = (lw / (1.0 - w.sum()))[None, :], lw, w
        else:  # s = M r
            self.coef, self.scale, self.shared = influence_matrix(lam, W, m), np.zeros(m), np.zeros(m)
        self.tau, self.eps = float(tau), float(eps)

    def decide(self, r: np.ndarray) -> StepDecisions:
        """Decisions for C-contiguous float64 scores (steps, n, m); a score outside [0, 1] raises
        the reference's ValueError."""
        return self._run(r, None)

    def rank_keys(self, r: np.ndarray) -> np.ndarray:
        """(steps, n): the accepted candidates' key (the others -inf), or mean - spread for every
        candidate of a step where none was accepted; the reference's to rounding, on steps the
        kernel does not redo."""
        keys = np.empty(r.shape[:2])
        self._run(r, keys)
        return keys

    def _run(self, r: np.ndarray, keys: np.ndarray | None) -> StepDecisions:
        steps, n, m = r.shape
        out = StepDecisions(
            np.empty(steps, dtype=np.int64),
            np.empty((steps, n), dtype=bool),
            np.empty(steps, dtype=bool),
            np.empty(steps, dtype=bool),
        )
        kernel = _step_kernel(n, m, self.all_to_all, keys is not None)
        flat, accepted = r.reshape(-1), out.accepted.reshape(-1)
        extra = () if keys is None else (keys.reshape(-1),)
        rule = self.rule

        def run(s: slice) -> int:
            a, b = s.start, s.stop
            return kernel(
                flat[a * n * m : b * n * m],
                self.coef,
                self.scale,
                self.shared,
                rule.center == "raw",
                _SPREADS.index(rule.spread),
                rule.rank_by_margin,
                self.tau,
                self.eps,
                MARGIN,
                accepted[a * n : b * n],
                out.chosen[s],
                out.fallback[s],
                out.redo[s],
                *(e[a * n : b * n] for e in extra),
            )

        threads = threads_for(steps * n)
        pieces = iter(_pieces(steps, n) if threads > 1 else [slice(0, steps)])  # shared: each thread takes the next

        def take() -> int:
            return sum(run(s) for s in pieces)

        helpers = [_pool(threads - 1).submit(take) for _ in range(threads - 1)]
        bad = take() + sum(h.result() for h in helpers)
        if bad:
            as_scores(r)  # raises the reference's message
        return out


def threads_for(candidates: int) -> int:
    """Threads for one pass over this many candidates: one below ``SPLIT_CANDIDATES`` (handing work
    to threads costs more than the pass), else the cores this process may run on less those that
    other runnable work holds right now, never more than one per ``SPLIT_CANDIDATES`` candidates.
    On a busy machine the extra threads would wait for a core while the pass waits for them."""
    if candidates < SPLIT_CANDIDATES:
        return 1
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    return max(1, min(cores - _busy_cores(), candidates // SPLIT_CANDIDATES))


def _busy_cores() -> int:
    """Cores other work is running on now: the runnable tasks in /proc/loadavg less this thread
    (an instant count; where there is none, the one-minute load average)."""
    try:
        with open("/proc/loadavg") as f:
            return max(0, int(f.read().split()[3].split("/")[0]) - 1)
    except (OSError, IndexError, ValueError):
        try:
            return int(round(os.getloadavg()[0]))
        except (OSError, AttributeError):
            return 0


def _pieces(steps: int, n: int) -> list[slice]:
    """The steps in pieces of about ``SPLIT_CANDIDATES`` candidates."""
    bounds = np.linspace(0, steps, max(1, steps * n // SPLIT_CANDIDATES) + 1).astype(int)
    return [slice(a, b) for a, b in zip(bounds[:-1], bounds[1:])]


@cache
def _pool(threads: int) -> ThreadPoolExecutor:
    return ThreadPoolExecutor(threads, thread_name_prefix="accord-fused")


os.register_at_fork(after_in_child=_pool.cache_clear)  # a forked child has none of the parent's threads


def block_steps(n: int, m: int) -> int:
    """Steps per block: a block's scores, judge-major, fill at most 16 KiB (half a typical L1 data
    cache), at most 128 steps (measured: 64 to 256 alike for 3 x 3), a multiple of 8 (vector lanes)."""
    return max(8, min(128, 2048 // (n * m) // 8 * 8))


def _step_source(n: int, m: int, all_to_all: bool, keys: bool) -> str:
    """Code for one pass over the steps of flat scores r (steps * n * m), block by block.

    Each block of steps is first copied judge-major into a small buffer (``buf[k * B + t]``: score
    k of step t), so that the arithmetic reads every score with unit stride and the compiler
    vectorises it across the block's steps with plain vector loads, whatever the target's SIMD
    width: no gathers, no interleaving shuffles. Per candidate: u = s̄* or r̄ and v = Δ*, raw MAD or
    0 (by ``center_raw`` and ``spread``), acceptance and choice, every condition a select; with
    ``keys`` it also writes each candidate's rank key. Outputs are written through views of the
    block (indices provably >= 0, so no wrap-around selects that stop the vectoriser)."""
    nm, block = n * m, block_steps(n, m)
    mean = lambda terms: f"({' + '.join(terms)}) / {len(terms)}"  # noqa: E731
    lines = [
        "def kernel(r, coef, scale, shared, center_raw, spread, rank_by_margin, tau, eps, margin,",
        "           accepted, chosen, fallback, redo" + (", keys):" if keys else "):"),
    ]
    if all_to_all:
        lines += [f"    c{j} = coef[0, {j}]; a{j} = scale[{j}]; b{j} = shared[{j}]" for j in range(m)]
    else:
        lines += [f"    M{k}_{j} = coef[{k}, {j}]" for k in range(m) for j in range(m)]
    lines += [
        "    steps = chosen.shape[0]",
        f"    buf = np.empty({nm * block})",
        f"    for base in range(0, steps, {block}):",
        f"        size = min({block}, steps - base)",
        f"        src = r[base * {nm}:(base + size) * {nm}]",
        f"        acc_out = accepted[base * {n}:(base + size) * {n}]",
        "        ch_out = chosen[base:base + size]",
        "        fb_out = fallback[base:base + size]",
        "        rd_out = redo[base:base + size]",
    ]
    lines += [f"        ks_out = keys[base * {n}:(base + size) * {n}]"] if keys else []
    # Copy the block judge-major. The range check ends the pass at the first score outside [0, 1]
    # (the caller then raises); this exit also keeps the compiler from vectorising these strided
    # reads with gathers, slow on many CPUs (copying a few steps at a time measured no faster).
    lines.append("        for t in range(size):")
    lines += [f"            y{k} = src[{nm} * t + {k}]" for k in range(nm)]
    lines += ["            lo = y0", "            hi = y0"]
    for k in range(1, nm):  # a NaN may hide another score here: its step goes to the reference, which checks
        lines += [f"            lo = y{k} if y{k} < lo else lo", f"            hi = y{k} if y{k} > hi else hi"]
    lines += ["            if (lo < 0.0) | (hi > 1.0):", "                return 1"]
    lines += [f"            buf[{k * block} + t] = y{k}" for k in range(nm)]
    lines.append("        for t in range(size):")
    body = []
    for i in range(n):
        x = [f"x{i}_{j}" for j in range(m)]
        s = [f"s{i}_{k}" for k in range(m)]
        body += [f"{x[j]} = buf[{(i * m + j) * block} + t]" for j in range(m)]
        if all_to_all:
            body.append(f"S{i} = " + " + ".join(f"c{j} * {x[j]}" for j in range(m)))
            body += [f"{s[k]} = a{k} * {x[k]} + b{k} * S{i}" for k in range(m)]
        else:
            body += [f"{s[k]} = " + " + ".join(f"M{k}_{j} * {x[j]}" for j in range(m)) for k in range(m)]
        body += [
            f"cm{i} = {mean(s)}",
            f"rm{i} = {mean(x)}",
            f"u{i} = rm{i} if center_raw else cm{i}",
            f"dc{i} = {mean([f'abs({e} - cm{i})' for e in s])}",
            f"dr{i} = {mean([f'abs({e} - rm{i})' for e in x])}",
            f"v{i} = dc{i} if spread == 1 else (dr{i} if spread == 2 else 0.0)",
            f"o{i}, g{i}, f{i} = accept_and_rank(u{i}, v{i}, tau, eps, rank_by_margin)",
            f"acc_out[{n} * t + {i}] = o{i}",
            f"near{i} = (abs(u{i} - tau) <= margin) | (abs(v{i} - eps) <= margin) | (u{i} != u{i}) | (v{i} != v{i})",
        ]
    body.append("any_acc = " + " | ".join(f"o{i}" for i in range(n)))
    for i in range(n):  # accepted: their key, the others -inf; nobody accepted: the fallback key
        body.append(f"k{i} = (g{i} if o{i} else -np.inf) if any_acc else f{i}")
    body += [f"ks_out[{n} * t + {i}] = k{i}" for i in range(n)] if keys else []
    body += ["pick = 0", "best = k0", "second = -np.inf"]
    for i in range(1, n):  # strict '>': ties go to the lowest index, as in the reference
        body += [
            f"up{i} = k{i} > best",
            f"second = best if up{i} else (k{i} if k{i} > second else second)",
            f"pick = {i} if up{i} else pick",
            f"best = k{i} if up{i} else best",
        ]
    body += [
        "ch_out[t] = pick",
        "fb_out[t] = not any_acc",
        "rd_out[t] = " + " | ".join(f"near{i}" for i in range(n)) + " | (second >= best - margin)",
    ]
    lines += ["            " + b for b in body]
    lines.append("    return 0")
    return "\n".join(lines)


def _header(cache_on_disk: bool) -> str:
    """The generated module's head: imports, VERDICT's rule (its own source, inlined into the kernel,
    and part of the text a cached kernel is named by) and the kernel's decorator. No 'nnan'/'ninf':
    NaN marks a failed judge and must propagate; rounding is guarded by MARGIN."""
    return (
        "import numba\nimport numpy as np\n\n\n@numba.njit(inline='always')\n"
        + inspect.getsource(accept_and_rank)
        + f"\n\n@numba.njit(cache={cache_on_disk}, nogil=True, boundscheck=False, "
        "error_model='numpy', fastmath={'afn', 'arcp', 'contract', 'nsz', 'reassoc'})\n"
    )


@cache
def _step_kernel(n: int, m: int, all_to_all: bool, keys: bool):
    """The compiled pass, from numba's disk cache when a cache folder can be written."""
    import numba  # heavy optional dependency: imported only when a kernel is built

    source = _step_source(n, m, all_to_all, keys)
    folder = _cache_folder()
    if folder is not None:
        text = _header(True) + source + "\n"
        path = folder / f"accord_steps_{hashlib.sha256(text.encode()).hexdigest()[:20]}.py"
        try:
            if not path.exists():  # named by its content: never rewritten, so numba's cache stays valid
                with tempfile.NamedTemporaryFile("w", dir=folder, suffix=".tmp", delete=False) as f:
                    f.write(text)
                os.replace(f.name, path)
            spec = importlib.util.spec_from_file_location(path.stem, path)
            module = importlib.util.module_from_spec(spec)
            sys.modules[path.stem] = module  # numba finds a cached kernel's module by name
            spec.loader.exec_module(module)
            return module.kernel
        except OSError:
            pass
    scope: dict = {"numba": numba, "np": np}
    exec(compile(_header(False) + source, "<accord.fused>", "exec"), scope)  # noqa: S102 - generated from integers only
    return scope["kernel"]


def _cache_folder() -> Path | None:
    folder = Path(os.environ.get("ACCORD_KERNEL_CACHE") or Path.home() / ".cache" / "accord" / "kernels")
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError:
        return None
    return folder if os.access(folder, os.W_OK) else None
