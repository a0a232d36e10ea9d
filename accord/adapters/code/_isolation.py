"""Which isolation this machine allows for untrusted code, detected by trying it, and how to launch it.

Levels, strongest first. The first two give the candidate a private filesystem and are the only ones
chosen automatically; ``rlimits`` shares the host's filesystem and runs only when asked for by name.

- ``bwrap``: bubblewrap. New PID, network, IPC and UTS namespaces and a private filesystem (below).
  When run as root the code is dropped to an unused unprivileged uid with no capabilities;
  otherwise a user namespace is used.
- ``unshare``: util-linux ``unshare`` with a new mount namespace as well as PID, network, IPC and UTS
  ones; :mod:`accord.adapters.code._private_root` builds the same private filesystem inside it and
  switches to it before the code runs as an unprivileged uid (as root) or without capabilities in a
  user namespace (otherwise).
- ``rlimits``: resource limits and (as root) an unprivileged uid only; no namespaces, so the
  candidate reads whatever that uid may read on the host and reaches the network.

The private filesystem holds the system libraries (/usr, /lib...) and the interpreter's installation
read-only, /dev's harmless devices, and fresh size-limited tmpfs for the work folder, /tmp,
/var/tmp, /dev/shm and HOME; nothing of /home, /root, the caller's working tree, other project trees
or the host's temporary folders. Only the base interpreter's own prefix is bound (never a virtual
environment's folder, which may sit inside a project), and the harness runs with ``-I -S``: stdlib only.

Each concurrent run gets its own uid from a pool (as root): the kernel's process limit counts per
uid, so a fork bomb in one sandbox cannot starve the others, and leftovers can be found by uid.

Every level applies the resource limits (:mod:`accord.adapters.code._limits`), a scrubbed
environment and a fresh working directory; there is no level without limits. Detection runs a
trivial program under each level once per process, checks that it sees what the level promises,
and keeps the first that works.
"""

from __future__ import annotations

import functools
import os
import queue
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from accord.adapters.code import _private_root as private_root
from accord.adapters.code._private_root import SANDBOX_HOME, SANDBOX_WORK

LEVELS = ("bwrap", "unshare", "rlimits")
PRIVATE_LEVELS = ("bwrap", "unshare")  # those with a private filesystem: the only ones chosen by "auto"
UID_POOL_SIZE = 64
UID_BASE = 200_000 + (os.getpid() % 1000) * UID_POOL_SIZE  # far from real users; differs per process
SYSTEM_DIRS = ("/usr", "/lib", "/lib64", "/lib32", "/bin", "/sbin")
PRIVATE_FS = (
    "private filesystem: system libraries and the interpreter read-only, fresh size-limited tmpfs for the "
    "work folder, /tmp, /var/tmp, /dev/shm and HOME; no /home, /root, project trees or host temporary files"
)
SHARED_FS = "NO private filesystem: the host filesystem is shared (readable and writable as that user)"
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


@dataclass(frozen=True)
class Isolation:
    """A launch recipe: the command prefix that wraps ``python -I -S -c HARNESS``."""

    level: str
    python: str
    drops_privileges: bool
    description: str

    @property
    def private_filesystem(self) -> bool:
        return self.level in PRIVATE_LEVELS

    def command(self, workdir: Path, tmpfs_bytes: int, uid: int | None = None) -> tuple[list[str], str]:
        """(argv prefix up to and including the interpreter, working directory as the child sees it).

        ``workdir`` is a fresh, empty host folder of the caller's; the private levels use it only as
        a mount point (the child's work folder is a tmpfs), ``rlimits`` runs in it."""
        uid = uid if self.drops_privileges else None
        if self.level == "bwrap":  # in its own user namespace bwrap has already dropped every capability
            drop = _drop_privileges(uid) if self.drops_privileges else []
            return _bwrap_prefix(tmpfs_bytes, user_ns=not self.drops_privileges) + drop + [self.python], SANDBOX_WORK
        if self.level == "unshare":
            ns = ["unshare", "--mount", "--net", "--pid", "--ipc", "--uts", "--fork", "--kill-child"]
            if not _is_root():
                ns[1:1] = ["--user", "--map-root-user"]
            root = workdir / "root"
            root.mkdir()
            owner = 0 if uid is None else uid  # of the work folder and home
            launcher = [
                interpreter()[0],
                "-I",
                "-S",
                private_root.__file__,
                str(root),
                str(owner),
                str(int(tmpfs_bytes)),
            ]
            return ns + launcher + _private_root_spec() + ["--"] + _drop_privileges(uid) + [self.python], SANDBOX_WORK
        return (_drop_privileges(uid) if self.drops_privileges else []) + [self.python], str(workdir)

    def environment(self, cwd: str) -> dict[str, str]:
        """The whole environment of the child: nothing of the caller's."""
        home, tmp = (SANDBOX_HOME, "/tmp") if self.private_filesystem else (cwd, cwd)
        return {"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8", "HOME": home, "TMPDIR": tmp}


def _is_root() -> bool:
    return os.geteuid() == 0


def _drop_privileges(uid: int | None) -> list[str]:
    """setpriv: to ``uid`` (if given), with no capabilities and no way to gain privileges."""
    ids = [] if uid is None else [f"--reuid={uid}", f"--regid={uid}", "--clear-groups"]
    return [
        shutil.which("setpriv") or "setpriv",
        *ids,
        "--inh-caps=-all",
        "--bounding-set=-all",
        "--no-new-privs",
        "--",
    ]


def interpreter() -> tuple[str, str]:
    """(interpreter path, installation prefix) of the base Python, not the virtual environment's."""
    exe = os.path.realpath(getattr(sys, "_base_executable", None) or sys.executable)
    return exe, os.path.realpath(sys.base_prefix)


def readonly_view() -> tuple[list[tuple[str, str]], list[str]]:
    """(symlinks as (target, path), folders/files to bind read-only) that make the interpreter run.

    The system folders, plus the base interpreter's prefix and executable where they lie elsewhere
    (e.g. under /root/.pyenv): a virtual environment's own folder is never bound."""
    links, binds = [], []
    for d in SYSTEM_DIRS:
        if os.path.islink(d):
            links.append((os.readlink(d), d))
        elif os.path.isdir(d):
            binds.append(d)
    exe, prefix = interpreter()
    for extra in (prefix, exe):
        if not any(extra == b or extra.startswith(b.rstrip("/") + "/") for b in binds + [t for _, t in links]):
            binds.append(extra)
    return links, binds


def _private_root_spec() -> list[str]:
    links, binds = readonly_view()
    return [a for t, p in links for a in ("--link", t, p)] + [a for b in binds for a in ("--ro", b)]


def _bwrap_prefix(tmpfs_bytes: int, user_ns: bool) -> list[str]:
    links, binds = readonly_view()
    parents = sorted({str(a) for b in binds for a in Path(b).parents if str(a) != "/"}, key=len)
    view = [a for t, p in links for a in ("--symlink", t, p)]
    view += [a for d in parents for a in ("--perms", "0755", "--dir", d)]  # bwrap would make them 0700
    view += [a for b in binds for a in ("--ro-bind", b, b)]
    ns = ["--unshare-ipc", "--unshare-pid", "--unshare-net", "--unshare-uts", "--unshare-cgroup-try"]
    if user_ns:
        ns = ["--unshare-user"] + ns
    size = str(int(tmpfs_bytes))
    fresh = [
        a
        for d in (SANDBOX_WORK, SANDBOX_HOME) + private_root.SHARED_TMP
        for a in ("--size", size, "--perms", "1777", "--tmpfs", d)
    ]
    return (
        [shutil.which("bwrap") or "bwrap"]
        + ns
        + ["--die-with-parent", "--new-session", "--hostname", "sandbox"]  # env: Isolation.environment()
        + view
        + ["--proc", "/proc", "--dev", "/dev"]
        + fresh
        + ["--remount-ro", "/", "--chdir", SANDBOX_WORK]
    )


def _python_for(drop: bool) -> str | None:
    """An interpreter an unprivileged uid can execute on the host's filesystem (it cannot enter /root)."""
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
    with tempfile.TemporaryDirectory(prefix="accord-probe-") as tmp:
        os.chmod(tmp, 0o777)
        marker = Path(tmp) / "host-marker"
        marker.touch()
        argv, cwd = iso.command(Path(tmp), 1 << 20, uid)
        code = f"import os; print(os.getuid(), os.path.exists({str(marker)!r}))"
        try:
            cp = subprocess.run(
                argv + ["-I", "-S", "-c", code],
                cwd=tmp,
                env=iso.environment(cwd),
                capture_output=True,
                timeout=20,
                text=True,
            )
        except (OSError, subprocess.TimeoutExpired) as exc:
            return f"{type(exc).__name__}: {exc}"
        if cp.returncode != 0:
            lines = (cp.stderr or cp.stdout).strip().splitlines()
            return lines[-1] if lines else f"exit code {cp.returncode}"
        seen_uid, sees_host = (cp.stdout.split() + ["", ""])[:2]
        if iso.drops_privileges and seen_uid != str(uid):
            return f"expected uid {uid}, got {seen_uid}"
        if iso.private_filesystem and sees_host != "False":
            return "the host filesystem is still visible"
    return None


def candidates() -> list[Isolation]:
    """Every level this machine might support, strongest first (not yet probed)."""
    root = _is_root()
    setpriv = shutil.which("setpriv") is not None
    who = "unprivileged uid per run, no capabilities" if root else "user namespace, no capabilities"
    out: list[Isolation] = []
    exe, _ = interpreter()
    if shutil.which("bwrap") and setpriv:
        out.append(Isolation("bwrap", exe, root, f"bubblewrap: pid/net/ipc/uts namespaces; {PRIVATE_FS}; {who}"))
    if shutil.which("unshare") and setpriv:
        out.append(Isolation("unshare", exe, root, f"unshare: mount/pid/net/ipc/uts namespaces; {PRIVATE_FS}; {who}"))
    py = _python_for(root and setpriv)
    drop = bool(py) and root and setpriv
    user = "an unprivileged uid per run" if drop else "the calling user"
    out.append(
        Isolation(
            "rlimits",
            py or exe,
            drop,
            f"resource limits only, as {user}; no namespaces; {SHARED_FS}; network reachable",
        )
    )
    return out


def _missing_tools() -> list[str]:
    need = {
        "bwrap": "bwrap (Debian package bubblewrap)",
        "unshare": "unshare (util-linux)",
        "setpriv": "setpriv (util-linux)",
    }
    return [f"{why}: not installed" for tool, why in need.items() if shutil.which(tool) is None]


@functools.cache
def detect(preferred: str = "auto") -> Isolation:
    """The strongest working level with a private filesystem (or exactly ``preferred``).

    Raises if ``preferred`` does not work, or if ``auto`` finds only ``rlimits``: that level shares
    the host filesystem with untrusted code and must be asked for by name."""
    if preferred not in ("auto",) + LEVELS:
        raise ValueError(f"unknown isolation {preferred!r}; choose auto or one of {', '.join(LEVELS)}")
    wanted = PRIVATE_LEVELS if preferred == "auto" else (preferred,)
    problems = _missing_tools() if preferred == "auto" else []
    for iso in candidates():
        if iso.level not in wanted:
            continue
        why = _probe(iso)
        if why is None:
            return iso
        problems.append(f"{iso.level}: {why}")
    if preferred == "auto":
        raise RuntimeError(
            "no sandbox with a private filesystem works on this machine ("
            + "; ".join(problems)
            + "); isolation 'rlimits' would run untrusted code on the shared host filesystem: ask for it by name to "
            "accept that"
        )
    raise RuntimeError(
        f"isolation {preferred} does not work on this machine: " + ("; ".join(problems) or "not available")
    )
