"""Resource limits for one sandboxed run, applied to the child before it executes anything.

CPU seconds, address space, processes, file size, open files and core dumps are kernel rlimits
(inherited by everything the child starts); wall-clock time and output size are enforced by the
caller, which kills the whole process group when either is exceeded.
"""

from __future__ import annotations

import os
import resource
from dataclasses import dataclass


@dataclass(frozen=True)
class Limits:
    """Per-candidate limits; the defaults suit short unit tests."""

    wall_s: float = 10.0  # whole run, all items
    item_s: float = 2.0  # one test or probe (an alarm inside the harness)
    cpu_s: int = 10
    memory_mb: int = 1024  # address space
    processes: int = 32  # extra processes the sandbox user may have at once
    output_bytes: int = 64 * 1024  # stdout + stderr kept; more kills the run
    file_mb: int = 16  # largest file the code may write; also the tmpfs size
    open_files: int = 64

    def __post_init__(self) -> None:
        for name in ("wall_s", "item_s", "cpu_s", "memory_mb", "processes", "output_bytes", "file_mb", "open_files"):
            v = getattr(self, name)
            if not v or v <= 0:
                raise ValueError(f"limit {name} must be > 0, got {v!r}")

    def preexec(self, uid_for_processes: int | None):
        """A function for ``subprocess.Popen(preexec_fn=...)`` that sets the rlimits in the child.

        The process limit counts every process of one user, so it is the sandbox user's current
        count plus ``processes`` (a run's own unprivileged uid has none).
        """
        nproc = self.processes + (_count_processes(uid_for_processes) if uid_for_processes is not None else 0)
        cpu = int(self.cpu_s)
        mem = int(self.memory_mb) << 20
        fsize = int(self.file_mb) << 20
        nofile = int(self.open_files)

        def apply() -> None:
            resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 1))
            resource.setrlimit(resource.RLIMIT_AS, (mem, mem))
            resource.setrlimit(resource.RLIMIT_NPROC, (nproc, nproc))
            resource.setrlimit(resource.RLIMIT_FSIZE, (fsize, fsize))
            resource.setrlimit(resource.RLIMIT_NOFILE, (nofile, nofile))
            resource.setrlimit(resource.RLIMIT_CORE, (0, 0))

        return apply


def _count_processes(uid: int) -> int:
    n = 0
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                if os.stat(f"/proc/{entry}").st_uid == uid:
                    n += 1
            except OSError:
                pass
    return n
