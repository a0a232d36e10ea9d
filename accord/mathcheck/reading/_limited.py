"""The one way the math package runs sympy and math-verify: in a worker process, under a time limit.

sympy and math-verify cannot be interrupted inside a thread, so every parse, check and comparison
that may run long goes through :func:`run_limited`, i.e. :func:`accord.timelimit.call_with_limit`; their
own signal-based timeouts are off. A call that runs past its limit or raises in the worker is an
outcome, not an exception: the step judges report ``why``, answer parsing falls back to text.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from accord.timelimit import CheckError, CheckTimeout, call_with_limit


@dataclass(frozen=True)
class Outcome:
    value: Any = None
    why: str | None = None  # None: the call returned ``value``; else why it did not

    @property
    def ok(self) -> bool:
        return self.why is None


def run_limited(fn: Callable, *args, timeout: float, affinity: tuple[str, str] | None = None) -> Outcome:
    """``fn(*args)`` in a worker, killed after ``timeout`` seconds (``affinity``: see
    :func:`accord.timelimit.call_with_limit`)."""
    try:
        return Outcome(call_with_limit(fn, *args, timeout=timeout, affinity=affinity))
    except CheckTimeout:
        return Outcome(why=f"timed out after {timeout:g} s")
    except CheckError as exc:
        return Outcome(why=f"check failed: {exc}")
