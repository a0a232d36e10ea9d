"""The machine a benchmark ran on, and wall and CPU time side by side.

Speed figures from different machines cannot be compared unless they say where they were measured:
the CPU model, its cores, its SIMD extensions (AVX-512 or not changes compiled kernels) and how busy
it was. Every benchmark prints :func:`describe` before its figures and reports CPU time (this
process, all its threads) beside wall time, since other jobs on a shared machine stretch wall time
far more than CPU time.

    import _machine                       # benchmarks/ is the script's folder, so this resolves
    _machine.print_header()
    with _machine.Timer() as t:
        work()
    print(t)                              # "1.23 s wall, 1.10 s CPU"
"""

from __future__ import annotations

import os
import platform
import subprocess
import sys
import time
from dataclasses import dataclass, field
from typing import Self

# SIMD extensions worth naming; anything starting with avx512 or amx is named too
_SIMD = ("sse4_2", "avx", "avx2", "fma", "avx_vnni", "asimd", "sve", "sve2")


def cpu_model() -> str:
    """The CPU's marketing name, plus LLVM's name for its micro-architecture where llvmlite is installed
    (a model name such as "AMD EPYC" covers several generations, with and without AVX-512)."""
    name = _cpuinfo_field("model name") or _sysctl("machdep.cpu.brand_string") or platform.processor() or "unknown CPU"
    try:
        from llvmlite import binding  # ships with numba: the target numba compiles for

        name += f" (LLVM: {binding.get_host_cpu_name()})"
    except Exception:  # noqa: BLE001, S110 - an optional detail
        pass
    return name


def simd_flags() -> list[str]:
    """The SIMD extensions the CPU reports (Linux: /proc/cpuinfo; elsewhere LLVM's feature list)."""
    flags = (_cpuinfo_field("flags") or _cpuinfo_field("Features") or "").split()
    if not flags:
        try:
            from llvmlite import binding

            flags = [f[1:] for f in binding.get_host_cpu_features().flatten().split(",") if f.startswith("+")]
        except Exception:  # noqa: BLE001
            return []
    return [f for f in flags if f in _SIMD or f.startswith(("avx512", "amx"))]


def cores() -> tuple[int, int]:
    """(cores the OS reports, cores this process may run on)."""
    total = os.cpu_count() or 1
    usable = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else total
    return total, usable


def load() -> str:
    """The load averages (1, 5, 15 min) and, on Linux, the tasks runnable right now."""
    try:
        one, five, fifteen = os.getloadavg()
    except (OSError, AttributeError):
        return "load unknown"
    text = f"load {one:.2f} {five:.2f} {fifteen:.2f}"
    try:
        with open("/proc/loadavg") as f:
            text += f" ({f.read().split()[3].split('/')[0]} runnable now)"
    except (OSError, IndexError):
        pass
    return text


def describe() -> str:
    """One paragraph naming the machine: CPU, cores, SIMD, load, and numba's target where it is overridden."""
    total, usable = cores()
    flags = simd_flags()
    x86 = platform.machine().lower() in ("x86_64", "amd64", "i686", "i386")
    simd = " ".join(flags) + (" (no AVX-512)" if x86 and "avx512f" not in flags else "")
    text = f"machine: {cpu_model()}, {total} cores ({usable} usable), SIMD {simd or 'unknown'}; {load()}"
    target = {k: os.environ[k] for k in ("NUMBA_CPU_NAME", "NUMBA_CPU_FEATURES") if os.environ.get(k)}
    if target:
        text += "; numba target " + ", ".join(f"{k}={v}" for k, v in target.items())
    return text


def print_header(file=None) -> None:
    """Print :func:`describe` and Python's version, before a benchmark's figures."""
    print(describe(), file=file or sys.stdout)
    print(
        f"python {platform.python_version()}, {platform.system()} {platform.release()}",
        file=file or sys.stdout,
        flush=True,
    )


@dataclass
class Timer:
    """Wall time and this process's CPU time (all threads) of a ``with`` block."""

    wall: float = 0.0
    cpu: float = 0.0
    _start: tuple[float, float] = field(default=(0.0, 0.0), repr=False)

    def __enter__(self) -> Self:
        self._start = (time.perf_counter(), time.process_time())
        return self

    def __exit__(self, *exc) -> None:
        self.wall = time.perf_counter() - self._start[0]
        self.cpu = time.process_time() - self._start[1]

    def __str__(self) -> str:
        return f"{self.wall:.2f} s wall, {self.cpu:.2f} s CPU"


def children_cpu() -> float:
    """CPU seconds used by this process's finished child processes (servers, workers, subprocess runs)."""
    t = os.times()
    return t.children_user + t.children_system


class Run:
    """Header before a benchmark, and its total wall and CPU time (own and children's) with the load after it.

    Use as ``with _machine.Run():`` around a benchmark's ``main``.
    """

    def __enter__(self) -> Self:
        print_header()
        self.timer = Timer().__enter__()
        self.children = children_cpu()
        return self

    def __exit__(self, *exc) -> None:
        self.timer.__exit__()
        kids = children_cpu() - self.children
        print(
            f"total: {self.timer}"
            + (f" (+ {kids:.2f} s CPU in child processes)" if kids >= 0.005 else "")
            + f"; {load()}",
            flush=True,
        )


def _cpuinfo_field(key: str) -> str | None:
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.split(":")[0].strip() == key:
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return None


def _sysctl(key: str) -> str | None:
    if sys.platform != "darwin":
        return None
    try:
        return (
            subprocess.run(["sysctl", "-n", key], capture_output=True, text=True, timeout=5, check=False).stdout.strip()
            or None
        )
    except (OSError, subprocess.SubprocessError):
        return None
