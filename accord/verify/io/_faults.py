"""A fault-injection hook: kill or stop the process at an exact point of a write, for crash tests.

Set ``ACCORD_FAULT=<site>:<n>[:<action>]`` in a writer's environment:

* site ``trace``: the n-th record written by a trace writer (counting from 1, this process only);
  site ``parquet``: the n-th part written to a Parquet ``--output``; site ``verify``: the n-th
  line of ``accord verify --out``; site ``jury``: the n-th line of ``accord jury collect --out``;
* action ``kill`` (default): SIGKILL once that record or part is on disk;
  ``torn``: write the first half of the record's line, then SIGKILL (a torn last line);
  ``stop``: SIGSTOP the process once it is on disk (a test resumes it with SIGCONT).

Unset (the normal case) it costs one environment lookup per record.
"""

from __future__ import annotations

import os
import signal
from collections.abc import Callable

ENV = "ACCORD_FAULT"
ACTIONS = {"kill": signal.SIGKILL, "torn": signal.SIGKILL, "stop": signal.SIGSTOP}


def planned(site: str, n: int) -> str | None:
    """The action planned for the n-th write at ``site`` (None when nothing is)."""
    spec = os.environ.get(ENV)
    if not spec:
        return None
    parts = spec.split(":")
    if len(parts) not in (2, 3) or parts[0] != site or not parts[1].isdigit() or int(parts[1]) != n:
        return None
    action = parts[2] if len(parts) == 3 else "kill"
    if action not in ACTIONS:
        raise ValueError(f"{ENV}={spec}: action must be one of {', '.join(ACTIONS)}")
    return action


def before_write(site: str, n: int, write_half: Callable[[], None]) -> None:
    """A planned ``torn`` fault: write half of the n-th record, then die (never returns then)."""
    if planned(site, n) == "torn":
        write_half()
        os.kill(os.getpid(), signal.SIGKILL)


def after_write(site: str, n: int) -> None:
    """A planned ``kill`` or ``stop`` fault, once the n-th record or part is on disk."""
    action = planned(site, n)
    if action in ("kill", "stop"):
        os.kill(os.getpid(), ACTIONS[action])
