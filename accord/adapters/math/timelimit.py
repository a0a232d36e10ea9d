"""A time limit that holds for sympy, from any thread.

sympy cannot be interrupted inside a thread (signals only reach the main thread, and a simplify
call never checks a flag), so each limited call runs in a worker process. Workers are kept alive
between calls (importing sympy costs about a second) and one is killed and replaced when a call
runs past its limit. Any number of threads may call :func:`call_with_limit` at once; each call
borrows its own worker.
"""

from __future__ import annotations

import importlib
import multiprocessing as mp
import threading
from dataclasses import dataclass
from typing import Any, Callable

_CTX = mp.get_context("spawn")  # fork is unsafe once threads (torch, jax) are running
_MAX_IDLE = 4
_STARTUP_S = 120.0


class CheckTimeout(Exception):
    """The call ran past its time limit; the worker running it was killed."""


class CheckError(Exception):
    """The call raised in the worker; the message names the original exception."""


def _worker_main(conn, preload: tuple[str, ...]) -> None:
    for module in preload:
        importlib.import_module(module)
    conn.send(("ready", None))
    while True:
        try:
            msg = conn.recv()
        except (EOFError, OSError):
            return
        if msg is None:
            return
        module, name, args, kwargs = msg
        try:
            fn = getattr(importlib.import_module(module), name)
            conn.send(("ok", fn(*args, **kwargs)))
        except BaseException as exc:  # report everything; the worker stays usable
            conn.send(("err", f"{type(exc).__name__}: {exc}"))


@dataclass
class _Worker:
    process: Any
    conn: Any

    @classmethod
    def start(cls, preload: tuple[str, ...]) -> "_Worker":
        """A fresh worker, returned once it has imported ``preload`` (start-up is not timed)."""
        parent, child = _CTX.Pipe()
        proc = _CTX.Process(target=_worker_main, args=(child, preload), daemon=True, name="accord-math-worker")
        proc.start()
        child.close()
        w = cls(proc, parent)
        if not parent.poll(_STARTUP_S):
            w.kill()
            raise CheckError(f"worker process did not start within {_STARTUP_S} s")
        try:
            parent.recv()
        except (EOFError, OSError) as exc:
            w.kill()
            raise CheckError(f"worker process failed to start: {type(exc).__name__}") from exc
        return w

    def kill(self) -> None:
        try:
            self.process.kill()
            self.process.join(timeout=5)
        finally:
            self.conn.close()

    def alive(self) -> bool:
        return self.process.is_alive()


_idle: list[_Worker] = []
_lock = threading.Lock()


def _borrow(preload: tuple[str, ...]) -> _Worker:
    with _lock:
        while _idle:
            w = _idle.pop()
            if w.alive():
                return w
            w.kill()
    return _Worker.start(preload)


def _give_back(w: _Worker) -> None:
    with _lock:
        if len(_idle) < _MAX_IDLE:
            _idle.append(w)
            return
    w.kill()


def call_with_limit(fn: Callable[..., Any], *args: Any, timeout: float, **kwargs: Any) -> Any:
    """``fn(*args, **kwargs)`` in a worker process, killed after ``timeout`` seconds.

    ``fn`` must be a module-level function; arguments and result must be picklable. Raises
    :class:`CheckTimeout` on timeout and :class:`CheckError` if ``fn`` raised.
    """
    if timeout <= 0:
        raise ValueError(f"timeout must be > 0 seconds, got {timeout}")
    w = _borrow((fn.__module__,))
    try:
        w.conn.send((fn.__module__, fn.__qualname__, args, kwargs))
        if not w.conn.poll(timeout):
            w.kill()
            raise CheckTimeout(f"{fn.__name__} ran past its {timeout:g} s limit")
        status, value = w.conn.recv()
    except (EOFError, OSError, BrokenPipeError) as exc:
        w.kill()
        raise CheckError(f"worker process died: {type(exc).__name__}") from exc
    except CheckTimeout:
        raise
    except BaseException:
        w.kill()
        raise
    _give_back(w)
    if status == "err":
        raise CheckError(value)
    return value


def shutdown() -> None:
    """Stop the idle workers (they are daemons, so this is optional at exit)."""
    with _lock:
        workers, _idle[:] = list(_idle), []
    for w in workers:
        w.kill()
