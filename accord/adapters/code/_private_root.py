"""Build a private root filesystem in a fresh mount namespace, switch into it, then run a command.

Run as a script by ``unshare --mount ...`` as (namespace) root, before privileges are dropped::

    python -I -S private_root.py ROOT OWNER_UID TMPFS_BYTES [--ro PATH | --link TARGET PATH]... -- COMMAND...

It imports only ``os``, ``sys`` and ``ctypes``: it starts once per sandboxed run. The new root is a
small tmpfs mounted on the empty directory ROOT and holds only

- read-only bind mounts of each ``--ro PATH`` at the same path (system libraries, the interpreter),
- the symbolic links ``--link TARGET PATH`` (``/bin -> usr/bin`` on merged-/usr systems),
- ``/dev`` with null, zero, full, random and urandom bound from the host, and ``/proc`` of the new
  PID namespace (where the kernel allows mounting it),
- fresh tmpfs of at most TMPFS_BYTES each at /tmp, /var/tmp, /dev/shm (mode 1777), the home folder
  and the work folder (mode 0700, owned by OWNER_UID).

The root itself is then made read-only, so the work folder, the home folder and the temporary folders
are the only writable places, and nothing written there outlives the namespace. The host's root is
detached after ``pivot_root``: no path leads back to the host's files.
"""

from __future__ import annotations

import ctypes
import os
import sys

SANDBOX_WORK = "/sandbox"
SANDBOX_HOME = "/home/sandbox"
SHARED_TMP = ("/tmp", "/var/tmp", "/dev/shm")
DEVICES = ("null", "zero", "full", "random", "urandom")
TMPFS_INODES = 4096  # files per tmpfs: the size limit alone does not bound empty files

MS_RDONLY, MS_NOSUID, MS_NODEV, MS_NOEXEC = 1, 2, 4, 8
MS_REMOUNT, MS_NOATIME, MS_NODIRATIME, MS_BIND, MS_REC = 32, 1024, 2048, 4096, 16384
MS_PRIVATE, MS_RELATIME = 1 << 18, 1 << 21
MNT_DETACH = 2
PIVOT_ROOT_SYSCALL = {"x86_64": 155, "aarch64": 41, "riscv64": 41, "ppc64le": 203, "s390x": 217}
# statvfs flags that a bind remount inside a user namespace must keep (the kernel locks them)
LOCKED_FLAGS = (
    (os.ST_NOSUID, MS_NOSUID),
    (os.ST_NODEV, MS_NODEV),
    (os.ST_NOEXEC, MS_NOEXEC),
    (os.ST_NOATIME, MS_NOATIME),
    (os.ST_NODIRATIME, MS_NODIRATIME),
    (os.ST_RELATIME, MS_RELATIME),
)

_libc = ctypes.CDLL(None, use_errno=True)


def _check(rc: int, what: str) -> None:
    if rc != 0:
        err = ctypes.get_errno()
        raise OSError(err, f"{what}: {os.strerror(err)}")


def _c(s: str | None) -> bytes | None:
    return None if s is None else s.encode()


def mount(source: str | None, target: str, fstype: str | None, flags: int, data: str | None = None) -> None:
    _check(_libc.mount(_c(source), _c(target), _c(fstype), ctypes.c_ulong(flags), _c(data)), f"mount {target}")


def bind_readonly(source: str, target: str) -> None:
    """Bind ``source`` (not its sub-mounts) at ``target``, read-only, no setuid, no devices."""
    mount(source, target, None, MS_BIND)
    kept = os.statvfs(source).f_flag
    flags = MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID | MS_NODEV
    flags |= sum(ms for st, ms in LOCKED_FLAGS if kept & st)
    mount(None, target, None, flags)


def tmpfs(target: str, size: int, mode: str, owner: int) -> None:
    opts = f"size={size},nr_inodes={TMPFS_INODES},mode={mode},uid={owner},gid={owner}"
    mount("tmpfs", target, "tmpfs", MS_NOSUID | MS_NODEV, opts)


def _mount_point(root: str, path: str, is_dir: bool) -> str:
    target = root + path
    if is_dir:
        os.makedirs(target, mode=0o755, exist_ok=True)
    else:
        os.makedirs(os.path.dirname(target), mode=0o755, exist_ok=True)
        os.close(os.open(target, os.O_WRONLY | os.O_CREAT, 0o644))
    return target


def build(root: str, owner: int, size: int, readonly: list[str], links: list[tuple[str, str]]) -> None:
    """Populate the new root at ``root`` (see the module docstring)."""
    mount(None, "/", None, MS_REC | MS_PRIVATE)  # nothing mounted here propagates to the host
    mount("tmpfs", root, "tmpfs", MS_NOSUID | MS_NODEV, f"size={1 << 20},nr_inodes={TMPFS_INODES},mode=0755")
    for target, path in links:
        os.makedirs(os.path.dirname(root + path), mode=0o755, exist_ok=True)
        os.symlink(target, root + path)
    for path in readonly:
        bind_readonly(path, _mount_point(root, path, os.path.isdir(path)))
    dev = _mount_point(root, "/dev", True)
    mount("tmpfs", dev, "tmpfs", MS_NOSUID | MS_NOEXEC, "size=65536,nr_inodes=64,mode=0755")
    for name in DEVICES:
        mount(f"/dev/{name}", _mount_point(root, f"/dev/{name}", False), None, MS_BIND)
    for i, name in enumerate(("stdin", "stdout", "stderr")):
        os.symlink(f"/proc/self/fd/{i}", f"{dev}/{name}")
    os.symlink("/proc/self/fd", f"{dev}/fd")
    try:
        mount("proc", _mount_point(root, "/proc", True), "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC)
    except OSError:
        pass  # some container runtimes forbid a new /proc; the interpreter runs without one
    for path in SHARED_TMP:
        tmpfs(_mount_point(root, path, True), size, "1777", 0)
    for path in (SANDBOX_HOME, SANDBOX_WORK):
        tmpfs(_mount_point(root, path, True), size, "0700", owner)
    mount(None, dev, None, MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID | MS_NOEXEC)
    mount(None, root, None, MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID | MS_NODEV)


def enter(root: str) -> None:
    """Make ``root`` the root of this mount namespace and detach the old one."""
    number = PIVOT_ROOT_SYSCALL.get(os.uname().machine)
    if number is None:
        raise OSError(f"pivot_root: unsupported architecture {os.uname().machine}")
    os.chdir(root)
    _check(_libc.syscall(ctypes.c_long(number), b".", b"."), "pivot_root")
    _check(_libc.umount2(b".", MNT_DETACH), "detaching the host root")
    os.chdir(SANDBOX_WORK)


def parse_args(argv: list[str]) -> tuple[str, int, int, list[str], list[tuple[str, str]], list[str]]:
    root, owner, size = argv[0], int(argv[1]), int(argv[2])
    readonly, links = [], []
    i = 3
    while argv[i] != "--":
        if argv[i] == "--ro":
            readonly.append(argv[i + 1])
            i += 2
        elif argv[i] == "--link":
            links.append((argv[i + 1], argv[i + 2]))
            i += 3
        else:
            raise ValueError(f"unknown option {argv[i]!r}")
    return root, owner, size, readonly, links, argv[i + 1 :]


def main(argv: list[str]) -> None:
    root, owner, size, readonly, links, command = parse_args(argv)
    try:
        build(root, owner, size, readonly, links)
        enter(root)
    except OSError as exc:
        sys.stderr.write(f"private root: {exc}\n")
        sys.exit(125)
    os.execv(command[0], command)


if __name__ == "__main__":
    main(sys.argv[1:])
