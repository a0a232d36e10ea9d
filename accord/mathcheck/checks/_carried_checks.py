"""Checks of a solution's steps in a time-limit worker that keeps each step's context for the next.

The parent sends a step with its context key (:func:`accord.protocols.context_key`, chained step
by step) instead of all the steps before it. The worker keeps the last contexts it made, by key:
the context after a step is the next step's. A worker that does not hold the key (it was just
started, or replaced after a time-out) says so, and the parent sends the steps before, once.
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import replace

import mpmath

from accord.mathcheck.checks._claims import carried_verdict
from accord.mathcheck.reading import applied_names, is_lead_in
from accord.mathcheck.state import Carried
from accord.protocols import context_key

KEEP_CONTEXTS = 64  # solutions judged at once by one worker, two contexts each
SHORT = 16  # a context of at most this many steps is made or read again within a check's time
MISSING = "missing"  # this worker does not hold the context: send the steps before
READ_AGAIN = "read again"  # the step names a new function: the earlier steps are read again with it
_contexts: OrderedDict[str, Carried] = OrderedDict()


def _keep(key: str, carried: Carried) -> None:
    _contexts[key] = carried
    _contexts.move_to_end(key)
    while len(_contexts) > KEEP_CONTEXTS:
        _contexts.popitem(last=False)


def carried_check(
    key: str,
    step: str,
    real: bool,
    following: str,
    before: tuple | None = None,
    long_read: bool = False,
    unread: bool = False,
) -> tuple[float | None, str] | str | None:
    """The verdict on ``step`` in the context ``key``; :data:`MISSING` when this worker does not
    hold that context and ``before`` (the problem, the steps before and the indexes of those the
    check refuted, which are no premises) is not given to make it;
    :data:`READ_AGAIN` when a context of more than :data:`SHORT` steps would be read again (the
    step, or the line a lead-in step announces, writes a new name as a function) and
    ``long_read`` is not set. The caller then calls again with a time limit that allows for
    reading the earlier steps, so that the one-off cost of a long context is not a time-out that
    loses it. ``unread``: the step's check did not finish; keep the context after it without
    reading it (nothing it states is used later; the names it writes as functions are, without
    reading the earlier steps again) and return None."""
    with mpmath.workdps(60):
        carried = _contexts.get(key)
        if carried is None:
            if before is None:
                return MISSING
            question, steps, *refuted = before
            carried = Carried.after(question, steps, refuted=frozenset(refuted[0]) if refuted else frozenset())
        if unread:
            after = _contexts.get(context_key(key, step))  # read already, when the check got that far
            if after is None:
                outline, _ = carried.role(step, following or None)  # its place in the proof, as it reads
                texts, functions = carried.texts[: carried.n] + [step], carried.functions | applied_names(step)
                after = replace(carried, texts=texts, n=carried.n + 1, functions=functions, outline=outline)
            _keep(key, carried)
            _keep(context_key(key, step), after)
            return None
        if not long_read and carried.n > SHORT:
            named = applied_names(step) | (applied_names(following) if is_lead_in(step) else frozenset())
            if named - carried.functions:
                return READ_AGAIN
        carried = carried.reading(step)
        verdict, after = carried_verdict(carried, step, real, following)
    _keep(key, carried)
    _keep(context_key(key, step), after)
    return verdict
