"""Which isolation this machine allows for untrusted code, detected by trying it, and how to launch it.

Levels, strongest first:

- ``bwrap``: bubblewrap. New PID, network, IPC and UTS namespaces; a private filesystem holding only
  the system libraries and the interpreter, read-only, plus a size-capped tmpfs working directory.
  The project, the home directory and /tmp are not there. When run as root the code is dropped to
  an unused unprivileged uid with no capabilities; otherwise a user namespace is used.
- ``unshare``: util-linux ``unshare``. New PID, network, IPC and UTS namespaces and (as root) an
  unprivileged uid; the host filesystem stays visible with "other" permissions.
- ``rlimits``: resource limits and (as root) an unprivileged uid only; no namespaces.

Each concurrent run gets its own uid from a pool (as root): the kernel's process limit counts per
uid, so a fork bomb in one sandbox cannot starve the others, and leftovers can be found by uid.

Every level applies the resource limits (:mod:`accord.adapters.code.limits`), a scrubbed
environment and a fresh working directory; there is no level without limits. Detection runs a
trivial program under each level once per process and keeps the first that works.
"""

from __future__ import annotations

import functools
import os
import queue
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

LEVELS = ("bwrap", "unshare", "rlimits")
UID_POOL_SIZE = 64
UID_BASE = 200_000 + (os.getpid() % 1000) * UID_POOL_SIZE  # far from real users; differs per process
_uids: queue.Queue[int] = queue.Queue()
for _u in range(UID_BASE, UID_BASE + UID_POOL_SIZE):
    _uids.put(_u)


def acquire_uid() -> int:
    """An unprivileged uid no other run of this process is using (blocks while all are taken)."""
    return _uids.get()


def release_uid(uid: int) -> None:
    _uids.put(uid)


def sandbox_uids() -> range:
    return range(UID_BASE, UID_BASE + UID_POOL_SIZE)
SANDBOX_DIR = "/sandbox"


@dataclass(frozen=True)
class Isolation:
    """A launch recipe: the command prefix that wraps ``python -I -S -c HARNESS``."""

    level: str
    python: str
    drops_privileges: bool
    description: str

    def command(self, workdir: Path, tmpfs_bytes: int, uid: int | None = None) -> tuple[list[str], str]:
        """(argv prefix up to and including the interpreter, working directory for the child)."""
        drop = _drop_privileges(uid) if self.drops_privileges else []
        if self.level == "bwrap":
            return _bwrap_prefix(self.python, tmpfs_bytes, user_ns=not self.drops_privileges) + drop + [
                self.python
            ], SANDBOX_DIR
        if self.level == "unshare":
            ns = ["unshare", "--net", "--pid", "--ipc", "--uts", "--fork", "--kill-child"]
            if not _is_root():
                ns[1:1] = ["--user", "--map-root-user"]
            return ns + drop + [self.python], str(workdir)
        return drop + [self.python], str(workdir)


def _is_root() -> bool:
    return os.geteuid() == 0


def _drop_privileges(uid: int | None) -> list[str]:
    if uid is None:
        raise ValueError("dropping privileges needs a uid (acquire_uid())")
    return [
        shutil.which("setpriv") or "setpriv",
        f"--reuid={uid}",
        f"--regid={uid}",
        "--clear-groups",
        "--inh-caps=-all",
        "--bounding-set=-all",
        "--no-new-privs",
        "--",
    ]


def interpreter() -> tuple[str, str]:
    """(interpreter path, installation prefix) of the base Python, not the virtual environment's."""
    exe = os.path.realpath(getattr(sys, "_base_executable", None) or sys.executable)
    return exe, os.path.realpath(sys.base_prefix)


def _system_dirs() -> list[str]:
    args: list[str] = []
    for d in ("/usr", "/lib", "/lib64", "/lib32", "/bin", "/sbin"):
        if os.path.islink(d):
            args += ["--symlink", os.readlink(d), d]
        elif os.path.isdir(d):
            args += ["--ro-bind", d, d]
    return args


def _bwrap_prefix(python: str, tmpfs_bytes: int, user_ns: bool) -> list[str]:
    exe, prefix = interpreter()
    binds = _system_dirs()
    if not (prefix == "/usr" or prefix.startswith("/usr/")):
        binds += ["--ro-bind", prefix, prefix]
    if not python.startswith(prefix) and not python.startswith("/usr/"):
        binds += ["--ro-bind", python, python]
    ns = ["--unshare-ipc", "--unshare-pid", "--unshare-net", "--unshare-uts", "--unshare-cgroup-try"]
    if user_ns:
        ns = ["--unshare-user"] + ns
    return (
        [shutil.which("bwrap") or "bwrap"]
        + ns
        + ["--die-with-parent", "--new-session", "--clearenv", "--hostname", "sandbox"]
        + binds
        + ["--proc", "/proc", "--dev", "/dev"]
        + ["--size", str(int(tmpfs_bytes)), "--perms", "1777", "--tmpfs", SANDBOX_DIR]
        + ["--size", str(int(tmpfs_bytes)), "--perms", "1777", "--tmpfs", "/tmp"]
        + ["--chdir", SANDBOX_DIR]
    )


def _python_for(drop: bool) -> str | None:
    """An interpreter an unprivileged uid can execute (it cannot enter /root, say)."""
    exe, _ = interpreter()
    if not drop:
        return exe
    for cand in (exe, "/usr/bin/python3", "/usr/local/bin/python3"):
        if os.path.exists(cand) and _world_executable(cand):
            return cand
    return None


def _world_executable(path: str) -> bool:
    p = Path(path)
    for parent in list(p.parents)[:-1]:
        if not (parent.stat().st_mode & 0o001):
            return False
    return bool(p.stat().st_mode & 0o001)


def _probe(iso: Isolation) -> str | None:
    """None if a trivial program runs and sees the expected isolation, else why not."""
    uid = acquire_uid()
    try:
        return _probe_as(iso, uid)
    finally:
        release_uid(uid)


def _probe_as(iso: Isolation, uid: int) -> str | None:
    import tempfile

    with tempfile.TemporaryDirectory(prefix="accord-probe-") as tmp:
        os.chmod(tmp, 0o777)
        argv, cwd = iso.command(Path(tmp), 1 << 20, uid)
        code = "import os; print(os.getuid())"
        try:
            cp = subprocess.run(
                argv + ["-I", "-S", "-c", code],
                cwd=cwd if iso.level != "bwrap" else tmp,
                env={"PATH": "/usr/bin:/bin"},
                capture_output=True,
                timeout=20,
                text=True,
            )
        except (OSError, subprocess.TimeoutExpired) as exc:
            return f"{type(exc).__name__}: {exc}"
        if cp.returncode != 0:
            lines = (cp.stderr or cp.stdout).strip().splitlines()
            return lines[-1] if lines else f"exit code {cp.returncode}"
        if iso.drops_privileges and cp.stdout.strip() != str(uid):
            return f"expected uid {uid}, got {cp.stdout.strip()}"
    return None


def candidates() -> list[Isolation]:
    """Every level this machine might support, strongest first (not yet probed)."""
    root = _is_root()
    has_setpriv = shutil.which("setpriv") is not None
    drop = root and has_setpriv
    out: list[Isolation] = []
    if shutil.which("bwrap"):
        exe, _ = interpreter()
        who = "unprivileged uid per run, no capabilities" if root else "user namespace"
        out.append(
            Isolation(
                "bwrap",
                exe,
                root,
                f"bubblewrap: pid/net/ipc/uts namespaces, private read-only filesystem, tmpfs workdir, {who}",
            )
        )
    py = _python_for(drop)
    if shutil.which("unshare") and py:
        out.append(
            Isolation(
                "unshare",
                py,
                drop,
                "unshare: pid/net/ipc/uts namespaces"
                + (", unprivileged uid per run" if drop else ", user namespace")
                + "; host filesystem visible with that user's permissions",
            )
        )
    if py:
        out.append(
            Isolation(
                "rlimits",
                py,
                drop,
                "resource limits only" + (", unprivileged uid per run" if drop else "") + "; no namespaces, network reachable",
            )
        )
    else:
        exe, _ = interpreter()
        out.append(Isolation("rlimits", exe, False, "resource limits only; runs as the calling user"))
    return out


@functools.lru_cache(maxsize=None)
def detect(preferred: str = "auto") -> Isolation:
    """The strongest working level (or exactly ``preferred``); raises if ``preferred`` does not work."""
    if preferred not in ("auto",) + LEVELS:
        raise ValueError(f"unknown isolation {preferred!r}; choose auto or one of {', '.join(LEVELS)}")
    problems = []
    for iso in candidates():
        if preferred != "auto" and iso.level != preferred:
            continue
        why = _probe(iso)
        if why is None:
            return iso
        problems.append(f"{iso.level}: {why}")
    raise RuntimeError(
        f"no working sandbox isolation ({preferred}) on this machine: " + ("; ".join(problems) or "none available")
    )
