"""Entry point of a time-limit worker process: ``python -m accord.timelimit._worker IN OUT MODULE...``.

Reads ``(module, function, args, kwargs)`` messages from file descriptor IN, answers
``("ok", value)``, ``("err", message)`` or ``("timeout", None)`` on OUT. Started by
:mod:`accord.timelimit` as a plain subprocess, so the caller's main module is never re-imported.
Its address space is limited to ``ACCORD_WORKER_MEMORY_MB`` (default 2048), so one runaway check
ends in a MemoryError reported for that check, not in a machine out of memory.

When a call runs past its caller's limit, the caller sends ``STOP`` (SIGUSR1): the call is
interrupted where Python code runs next, answers ``("timeout", None)``, and the worker stays, with
whatever its module keeps between calls (a solution's carried contexts). A call stopped while it
imported a module answers ``("timeout", HALF_IMPORTED)``: its modules may be half made, so its
caller replaces it. A call stuck inside one C function never sees the signal; its caller kills the
worker instead.
"""

from __future__ import annotations

import importlib
import os
import resource
import signal
import sys
from multiprocessing.connection import Connection

from accord.timelimit import HALF_IMPORTED, STOP

DEFAULT_MEMORY_MB = 2048


class Stopped(BaseException):
    """Raised in the call that its caller told to stop (a BaseException: ``except Exception`` in the
    code under the limit does not swallow it)."""


_calling = False  # a call is running: STOP interrupts it; between calls STOP is ignored


def _stop(signum, frame) -> None:
    global _calling
    if _calling:
        _calling = False  # one interruption per call, never one that lands after it returned
        raise Stopped


def _call(module: str, name: str, args, kwargs):
    global _calling
    _calling = True
    try:
        return getattr(importlib.import_module(module), name)(*args, **kwargs)
    finally:
        _calling = False


def _in_import(tb) -> bool:
    """The interrupted call was importing a module (a frame of the import machinery on its stack)."""
    while tb is not None:
        if tb.tb_frame.f_code.co_filename.startswith("<frozen importlib"):
            return True
        tb = tb.tb_next
    return False


def limit_memory() -> None:
    mb = int(os.environ.get("ACCORD_WORKER_MEMORY_MB", DEFAULT_MEMORY_MB))
    if mb > 0:
        resource.setrlimit(resource.RLIMIT_AS, (mb << 20, mb << 20))


def main(argv: list[str]) -> None:
    limit_memory()
    signal.signal(STOP, _stop)
    inbox, outbox = Connection(int(argv[0]), writable=False), Connection(int(argv[1]), readable=False)
    for module in argv[2:]:
        importlib.import_module(module)
    outbox.send(("ready", None))
    while True:
        try:
            msg = inbox.recv()
        except (EOFError, OSError):
            return
        if msg is None:
            return
        module, name, args, kwargs = msg
        modules = len(sys.modules)  # cheap: an import adds modules, a failed one removes some
        try:
            answer = ("ok", _call(module, name, args, kwargs))
        except Stopped as exc:
            # stopped while it imported (modules came or went, or the import machinery was running):
            # the worker's modules may be half made, so its caller replaces it
            importing = len(sys.modules) != modules or _in_import(exc.__traceback__)
            answer = ("timeout", HALF_IMPORTED if importing else None)
        except BaseException as exc:  # report everything; the worker stays usable
            answer = ("err", f"{type(exc).__name__}: {exc}")
        try:
            outbox.send(answer)
        except Exception as exc:  # a value that cannot be pickled: nothing was sent yet
            outbox.send(("err", f"{type(exc).__name__}: {exc}"))


if __name__ == "__main__":
    main(sys.argv[1:])
