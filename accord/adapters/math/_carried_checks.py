"""Checks of a solution's steps in a time-limit worker that keeps each step's context for the next.

The parent sends a step with its context key (:func:`accord.protocols.context_key`, chained step
by step) instead of all the steps before it. The worker keeps the last contexts it made, by key:
the context after a step is the next step's. A worker that does not hold the key (it was just
started, or replaced after a time-out) answers None, and the parent sends the steps before, once.
"""

from __future__ import annotations

from collections import OrderedDict

import mpmath

from accord.adapters.math._carried import Carried
from accord.adapters.math._claims import carried_verdict
from accord.protocols import context_key

KEEP_CONTEXTS = 64  # solutions judged at once by one worker, two contexts each
_contexts: OrderedDict[str, Carried] = OrderedDict()


def _keep(key: str, carried: Carried) -> None:
    _contexts[key] = carried
    _contexts.move_to_end(key)
    while len(_contexts) > KEEP_CONTEXTS:
        _contexts.popitem(last=False)


def carried_check(
    key: str, step: str, real: bool, following: str, before: tuple[str, tuple[str, ...]] | None = None
) -> tuple[float | None, str] | None:
    """The verdict on ``step`` in the context ``key``; None when this worker does not hold that
    context and ``before`` (the problem and the steps before) is not given to make it."""
    with mpmath.workdps(60):
        carried = _contexts.get(key)
        if carried is None:
            if before is None:
                return None
            carried = Carried.after(*before)
        carried = carried.reading(step)
        verdict, after = carried_verdict(carried, step, real, following)
    _keep(key, carried)
    _keep(context_key(key, step), after)
    return verdict
