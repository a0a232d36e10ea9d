"""Module-level functions for time-limited calls in tests (a worker process imports them by name)."""

from __future__ import annotations

import os
import signal

_kept: dict[str, object] = {}


def keep(key: str, value) -> int:
    """Keeps ``value`` in this worker; its process id."""
    _kept[key] = value
    return os.getpid()


def kept(key: str):
    """(what this worker keeps under ``key``, its process id)."""
    return _kept.get(key), os.getpid()


def spin() -> None:
    """Runs Python code until stopped."""
    n = 0
    while True:
        n += 1


def deaf() -> None:
    """Runs until killed: the stop signal is blocked, as in a call stuck inside one C function."""
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGUSR1})
    n = 0
    while True:
        n += 1
