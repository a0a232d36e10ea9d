"""A time limit that holds for sympy, from any thread.

sympy cannot be interrupted inside a thread (signals only reach the main thread, and a simplify
call never checks a flag), so each limited call runs in a worker process. Workers are kept alive
between calls (importing sympy costs about a second, and a worker may keep state between calls:
see ``affinity``). A call that runs past its limit is stopped by a signal to its worker, which
answers at once and stays, with its state; only a call stuck inside one C function for
:data:`GRACE_S` more seconds gets its worker killed and replaced. Any number of threads may call
:func:`call_with_limit` at once; each call borrows its own worker. Idle workers are kept per module
of the function they ran, so a light check (exact arithmetic) never waits for a worker to import
sympy or math-verify.
"""

from __future__ import annotations

import atexit
import os
import signal
import subprocess
import sys
import threading
from collections.abc import Callable
from dataclasses import dataclass
from multiprocessing.connection import Connection
from typing import Any

_MAX_IDLE = 8  # kept warm between calls (a panel may run several limited judges at once)
_STARTUP_S = 120.0
HALF_IMPORTED = "half-imported"  # a stopped call's answer when it was importing a module
GRACE_S = 2.0  # how long a worker told to stop a call has to answer before it is killed
STOP = signal.SIGUSR1  # tells a worker to stop the call it runs (see accord.timelimit._worker)


class CheckTimeout(Exception):
    """The call ran past its time limit; it was stopped (its worker killed, if it did not stop)."""


class CheckError(Exception):
    """The call raised in the worker; the message names the original exception."""


@dataclass(eq=False)
class _Worker:
    """A subprocess (not fork, not multiprocessing spawn: the caller's main module is never
    re-imported, and fork is unsafe once threads such as torch's are running)."""

    process: subprocess.Popen
    inbox: Connection  # answers from the worker
    outbox: Connection  # requests to the worker
    preload: tuple[str, ...] = ()
    holds: str | None = None  # what the last call left in the worker (see ``affinity``)

    @classmethod
    def start(cls, preload: tuple[str, ...]) -> _Worker:
        """A fresh worker, returned once it has imported ``preload`` (start-up is not timed)."""
        to_child_r, to_child_w = os.pipe()
        to_parent_r, to_parent_w = os.pipe()
        env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
        try:
            proc = subprocess.Popen(
                [sys.executable, "-m", "accord.timelimit._worker", str(to_child_r), str(to_parent_w), *preload],
                pass_fds=(to_child_r, to_parent_w),
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                env=env,
            )
        finally:
            os.close(to_child_r)
            os.close(to_parent_w)
        w = cls(proc, Connection(to_parent_r, writable=False), Connection(to_child_w, readable=False))
        with _lock:
            _live.add(w)
        try:
            ready = w.inbox.poll(_STARTUP_S)
            if ready:
                w.inbox.recv()
        except (EOFError, OSError) as exc:
            w.kill()
            raise CheckError(f"worker process failed to start: {type(exc).__name__}") from exc
        if not ready:
            w.kill()
            raise CheckError(f"worker process did not start within {_STARTUP_S:g} s")
        return w

    def send(self, msg) -> None:
        self.outbox.send(msg)

    def answer(self, timeout: float):
        """The worker's answer to the call just sent: ``(status, value)``; ``("killed", None)`` when a
        call past ``timeout`` did not stop within :data:`GRACE_S` of being told to."""
        if self.inbox.poll(timeout):
            return self.inbox.recv()
        try:
            self.process.send_signal(STOP)
        except OSError:  # already gone: the poll below reads its closed pipe
            pass
        if self.inbox.poll(GRACE_S):
            return self.inbox.recv()  # ("timeout", None), or an answer sent just before the signal
        self.kill()
        return ("killed", None)

    def kill(self) -> None:
        with _lock:
            _live.discard(self)
        try:
            self.process.kill()
            self.process.wait(timeout=5)
        except (OSError, subprocess.TimeoutExpired):
            pass
        finally:
            self.inbox.close()
            self.outbox.close()

    def alive(self) -> bool:
        return self.process.poll() is None


_idle: dict[tuple[str, ...], list[_Worker]] = {}  # by the modules a worker was started for
_live: set[_Worker] = set()  # every started worker, busy or idle, so that exit can stop them all
_lock = threading.Lock()


def _borrow(preload: tuple[str, ...], wants: str | None = None) -> _Worker:
    """An idle worker for ``preload`` (one that holds ``wants``, when one is idle), or a new one."""
    with _lock:
        idle = _idle.get(preload, [])
        if wants is not None:
            at = next((i for i in range(len(idle) - 1, -1, -1) if idle[i].holds == wants), None)
            if at is not None:
                idle.append(idle.pop(at))
        while idle:
            w = idle.pop()
            if w.alive():
                return w
            w.kill()
    w = _Worker.start(preload)
    w.preload = preload
    return w


def _give_back(w: _Worker) -> None:
    with _lock:
        idle = _idle.setdefault(w.preload, [])
        if len(idle) < _MAX_IDLE:
            idle.append(w)
            return
    w.kill()


def call_with_limit(
    fn: Callable[..., Any], *args: Any, timeout: float, affinity: tuple[str, str] | None = None, **kwargs: Any
) -> Any:
    """``fn(*args, **kwargs)`` in a worker process, stopped after ``timeout`` seconds.

    ``fn`` must be a module-level function; arguments and result must be picklable. Raises
    :class:`CheckTimeout` on timeout and :class:`CheckError` if ``fn`` raised. ``affinity``
    ``(wants, leaves)``: prefer an idle worker whose last call left ``wants`` in it (state ``fn``
    keeps between calls, e.g. a solution's context), and mark this one as holding ``leaves``. A
    call stopped at its limit leaves its worker idle, marked as holding ``wants`` still.
    """
    if timeout <= 0:
        raise ValueError(f"timeout must be > 0 seconds, got {timeout}")
    w = _borrow((fn.__module__,), affinity[0] if affinity else None)
    w.holds = affinity[1] if affinity else None
    try:
        w.send((fn.__module__, fn.__qualname__, args, kwargs))
        status, value = w.answer(timeout)
    except (EOFError, OSError, BrokenPipeError) as exc:
        w.kill()
        raise CheckError(f"worker process died: {type(exc).__name__}") from exc
    except BaseException:
        w.kill()
        raise
    if status == "killed":
        raise CheckTimeout(f"{fn.__name__} ran past its {timeout:g} s limit")
    if status == "timeout":
        if value == HALF_IMPORTED:
            w.kill()  # stopped inside an import: a module may be half made there
        else:
            w.holds = affinity[0] if affinity else None  # what the stopped call left is unknown
            _give_back(w)
        raise CheckTimeout(f"{fn.__name__} ran past its {timeout:g} s limit")
    _give_back(w)
    if status == "err":
        raise CheckError(value)
    return value


@atexit.register
def shutdown() -> None:
    """Stop every worker, idle or busy (also done at exit, so no sympy computation outlives us)."""
    with _lock:
        workers = list(_live)
        _idle.clear()
    for w in workers:
        w.kill()
