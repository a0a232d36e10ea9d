"""One background event loop per process, on which every served request runs.

Judges and generators are called synchronously (from the panel's threads or the step loop); the
official ``openai`` client is async. Running every request on one loop lets requests from all
judge groups of a step overlap, while one semaphore per endpoint bounds how many are in flight.
"""

from __future__ import annotations

import asyncio
import os
import threading
from collections.abc import Awaitable
from typing import Any

_LOCK = threading.Lock()
_LOOP: tuple[int, asyncio.AbstractEventLoop] | None = None  # (owning process id, loop)


def loop() -> asyncio.AbstractEventLoop:
    """The process's served-request loop, started on first use in a daemon thread (a forked child,
    which has no copy of that thread, starts its own)."""
    global _LOOP
    with _LOCK:
        if _LOOP is None or _LOOP[0] != os.getpid() or _LOOP[1].is_closed():
            new = asyncio.new_event_loop()
            threading.Thread(target=new.run_forever, name="accord-served", daemon=True).start()
            _LOOP = (os.getpid(), new)
        return _LOOP[1]


def run(coro: Awaitable[Any]) -> Any:
    """Runs a coroutine on the served loop and waits for its result (from any other thread)."""
    here = loop()
    try:
        running = asyncio.get_running_loop()
    except RuntimeError:
        running = None
    if running is here:
        raise RuntimeError("served requests cannot be awaited synchronously from the served loop itself")
    return asyncio.run_coroutine_threadsafe(coro, here).result()
