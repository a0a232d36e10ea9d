"""Waiting in tests: poll a condition until it holds or a deadline passes, never sleep a fixed time."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")


def wait_until(condition: Callable[[], T], what: str, timeout_s: float = 60.0, every_s: float = 0.02) -> T:
    """``condition()``'s first true value, polled every ``every_s``; a failure naming ``what`` when it is
    still false after ``timeout_s`` (a slow machine only makes the wait longer, never the test pass)."""
    deadline = time.monotonic() + timeout_s
    while True:
        got = condition()
        if got:
            return got
        if time.monotonic() >= deadline:
            raise AssertionError(f"{what}: not within {timeout_s:g} s")
        time.sleep(every_s)


def settled(get: Callable[[], T], timeout_s: float = 10.0, every_s: float = 0.05) -> T:
    """``get()`` polled until it is empty (false) or ``timeout_s`` passes; its last value, for the caller
    to assert on (what is left, e.g. processes not yet reaped)."""
    deadline = time.monotonic() + timeout_s
    while True:
        got = get()
        if not got or time.monotonic() >= deadline:
            return got
        time.sleep(every_s)
