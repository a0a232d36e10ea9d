"""Entry point of a time-limit worker process: ``python -m accord.timelimit._worker IN OUT MODULE...``.

Reads ``(module, function, args, kwargs)`` messages from file descriptor IN, answers
``("ok", value)`` or ``("err", message)`` on OUT. Started by :mod:`accord.timelimit`
as a plain subprocess, so the caller's main module is never re-imported. Its address space is
limited to ``ACCORD_WORKER_MEMORY_MB`` (default 2048), so one runaway check ends in a MemoryError
reported for that check, not in a machine out of memory.
"""

from __future__ import annotations

import importlib
import os
import resource
import sys
from multiprocessing.connection import Connection

DEFAULT_MEMORY_MB = 2048


def limit_memory() -> None:
    mb = int(os.environ.get("ACCORD_WORKER_MEMORY_MB", DEFAULT_MEMORY_MB))
    if mb > 0:
        resource.setrlimit(resource.RLIMIT_AS, (mb << 20, mb << 20))


def main(argv: list[str]) -> None:
    limit_memory()
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
        try:
            fn = getattr(importlib.import_module(module), name)
            outbox.send(("ok", fn(*args, **kwargs)))
        except BaseException as exc:  # report everything; the worker stays usable
            outbox.send(("err", f"{type(exc).__name__}: {exc}"))


if __name__ == "__main__":
    main(sys.argv[1:])
