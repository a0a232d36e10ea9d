"""One writer per run folder or output file: an OS lock held for as long as the writer lives.

``with writer_lock(target):`` takes an exclusive ``flock`` on ``<target>.lock`` (a file next to the
run folder or output file) before anything is written, and holds it until the block ends. The
kernel drops the lock when the holding process dies, however it dies, so a ``kill -9`` never
leaves a stale lock: the next writer simply takes it. A second writer is refused at once with a
one-line :class:`UserError` that names the target and the PID holding it.

Readers never take the lock; :func:`is_live` tells them whether a writer holds it right now.
"""

from __future__ import annotations

import fcntl
import os
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from accord.errors import UserError
from accord.verify.io._paths import reason

SUFFIX = ".lock"
_RETRIES = 5  # a reader's probe holds the lock for microseconds; a live writer holds it for good
_RETRY_S = 0.02
_held: set[int] = set()  # lock descriptors of this process, closed in forked children


def _close_in_child() -> None:
    """A forked child must not keep its parent's lock alive after the parent dies."""
    for fd in list(_held):
        try:
            os.close(fd)
        except OSError:
            pass
    _held.clear()


os.register_at_fork(after_in_child=_close_in_child)


def lock_path(target: str | Path) -> Path:
    """``<target>.lock``: the lock file of a run folder or an output file."""
    try:
        target = Path(target).resolve()
    except (OSError, RuntimeError):  # a symlink loop
        raise UserError(f"{target}: symlink loop (a link that points back to itself)") from None
    if not target.name:
        raise UserError(f"{target}: cannot hold a writer lock (name a folder or file below it)")
    return target.with_name(target.name + SUFFIX)


def _holder(path: Path) -> int | None:
    """The PID written in a lock file (None when it is empty or unreadable)."""
    try:
        text = path.read_text(encoding="ascii").strip()
    except (OSError, UnicodeDecodeError):
        return None
    return int(text) if text.isdigit() else None


def is_live(target: str | Path) -> int | None:
    """The PID of the process writing ``target`` now, or None when no writer holds it."""
    path = lock_path(target)
    try:
        fd = os.open(path, os.O_RDONLY)
    except FileNotFoundError:
        return None
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except BlockingIOError:
            for _ in range(_RETRIES):  # the holder writes its PID right after taking the lock
                pid = _holder(path)
                if pid is not None:
                    return pid
                time.sleep(_RETRY_S)
            return 0
        fcntl.flock(fd, fcntl.LOCK_UN)
        return None
    finally:
        os.close(fd)


def _acquire(target: Path, path: Path) -> int:
    for _ in range(100):
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
        for attempt in range(_RETRIES + 1):
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if attempt == _RETRIES:
                    os.close(fd)
                    pid = _holder(path)
                    who = f"PID {pid}" if pid else "another process"
                    raise UserError(
                        f"{target}: being written by {who} (lock {path}); wait for it to finish or stop it"
                    ) from None
                time.sleep(_RETRY_S)
        try:
            same = os.stat(path).st_ino == os.fstat(fd).st_ino
        except FileNotFoundError:
            same = False
        if same:  # not a lock file its last holder removed between our open and our flock
            os.ftruncate(fd, 0)
            os.write(fd, f"{os.getpid()}\n".encode("ascii"))
            return fd
        os.close(fd)
    raise UserError(f"{target}: could not take the writer lock {path}")


@contextmanager
def writer_lock(target: str | Path) -> Iterator[Path]:
    """Hold the one-writer lock of a run folder or output file for the ``with`` block.

    Raises UserError (naming the holder's PID) when another live process holds it. The lock file
    is removed on a normal exit; one left by a killed writer holds no lock and is reused.
    """
    target = Path(target)
    path = lock_path(target)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = _acquire(target, path)
    except OSError as exc:  # a read-only folder, /proc, a file where the folder should be
        raise UserError(
            f"{target}: cannot write here: the writer lock {path} cannot be created ({reason(exc)})"
        ) from None
    _held.add(fd)
    try:
        yield path
    finally:
        _held.discard(fd)
        try:
            os.unlink(path)  # while still holding it: a newcomer that opened this file retries
        except FileNotFoundError:
            pass
        os.close(fd)
