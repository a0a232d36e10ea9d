"""Module-level functions for time-limited calls in tests (a worker process imports them by name)."""

from __future__ import annotations

import importlib
import os
import signal
import sys

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


def import_from(folder: str, name: str) -> tuple[bool, int]:
    """Imports module ``name`` from ``folder``: (its ``done`` flag, this worker's process id)."""
    if folder not in sys.path:
        sys.path.insert(0, folder)
    return bool(getattr(importlib.import_module(name), "done", False)), os.getpid()
