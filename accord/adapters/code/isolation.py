"""Which isolation this machine allows for untrusted code, detected by trying it, and how to launch it.

Levels, strongest first:

- ``bwrap``: bubblewrap. New PID, network, IPC and UTS namespaces; a private filesystem holding only
  the system libraries and the interpreter, read-only, plus a size-capped tmpfs working directory.
  The project, the home directory and /tmp are not there. When run as root the code is dropped to
  the ``nobody`` user with no capabilities; otherwise a user namespace is used.
- ``unshare``: util-linux ``unshare``. New PID, network, IPC and UTS namespaces and (as root) the
  ``nobody`` user; the host filesystem stays visible with that user's permissions.
- ``rlimits``: resource limits and (as root) the ``nobody`` user only; no namespaces.

Every level applies the resource limits (:mod:`accord.adapters.code.limits`), a scrubbed
environment and a fresh working directory; there is no level without limits. Detection runs a
trivial program under each level once per process and keeps the first that works.
"""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

LEVELS = ("bwrap", "unshare", "rlimits")
NOBODY = 65534
SANDBOX_DIR = "/sandbox"


@dataclass(frozen=True)
class Isolation:
    """A launch recipe: the command prefix that wraps ``python -I -S -c HARNESS``."""

    level: str
    python: str
    drops_to_nobody: bool
    description: str

    def command(self, workdir: Path, tmpfs_bytes: int) -> tuple[list[str], str]:
        """(argv prefix up to and including the interpreter, working directory for the child)."""
        drop = _drop_privileges() if self.drops_to_nobody else []
        if self.level == "bwrap":
            return _bwrap_prefix(self.python, tmpfs_bytes, user_ns=not self.drops_to_nobody) + drop + [
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


def _drop_privileges() -> list[str]:
    return [
        shutil.which("setpriv") or "setpriv",
        f"--reuid={NOBODY}",
        f"--regid={NOBODY}",
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
    """An interpreter the sandbox user can execute (the nobody user cannot enter /root, say)."""
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
    import tempfile

    with tempfile.TemporaryDirectory(prefix="accord-probe-") as tmp:
        os.chmod(tmp, 0o777)
        argv, cwd = iso.command(Path(tmp), 1 << 20)
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
            return (cp.stderr or cp.stdout).strip().splitlines()[-1:] and (cp.stderr or cp.stdout).strip().splitlines()[-1] or f"exit {cp.returncode}"
        if iso.drops_to_nobody and cp.stdout.strip() != str(NOBODY):
            return f"expected uid {NOBODY}, got {cp.stdout.strip()}"
    return None


def candidates() -> list[Isolation]:
    """Every level this machine might support, strongest first (not yet probed)."""
    root = _is_root()
    has_setpriv = shutil.which("setpriv") is not None
    drop = root and has_setpriv
    out: list[Isolation] = []
    if shutil.which("bwrap"):
        exe, _ = interpreter()
        who = "user nobody, no capabilities" if root else "user namespace"
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
                + (", user nobody" if drop else ", user namespace")
                + "; host filesystem visible with that user's permissions",
            )
        )
    if py:
        out.append(
            Isolation(
                "rlimits",
                py,
                drop,
                "resource limits only" + (", user nobody" if drop else "") + "; no namespaces, network reachable",
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
