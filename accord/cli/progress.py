"""The one progress bar of every long command: what it does, done/total, elapsed time and ETA, on stderr.

A bar is shown only when stderr is a terminal and ``--quiet`` is not given, so logs, pipes and
``--json`` output stay clean. The library's long calls take a ``progress(done, total)`` callback;
:func:`progress_bar` hands the command such a callback (a no-op when the bar is off).
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Callable, Iterator

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

Callback = Callable[[int, int], None]


def enabled(quiet: bool = False) -> bool:
    """A bar is drawn only on a terminal's stderr, and never with --quiet."""
    return not quiet and sys.stderr.isatty()


def new_progress(quiet: bool = False, transient: bool = True, console: Console | None = None) -> Progress:
    """A rich Progress in the one style: description, bar, done/total, elapsed, ETA (stderr)."""
    return Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TextColumn("ETA"),
        TimeRemainingColumn(),
        console=console or Console(stderr=True),
        transient=transient,
        disable=not enabled(quiet),
    )


@contextlib.contextmanager
def progress_bar(description: str, total: int | None = None, quiet: bool = False) -> Iterator[Callback]:
    """``with progress_bar("checking", n, args.quiet) as update: work(progress=update)``.

    ``update(done, total)`` sets the count (and the total, which may be learnt late; a stage name
    may replace the description)."""
    with new_progress(quiet) as bar:
        task = bar.add_task(description, total=total)

        def update(done: int, total: int | None = None, description: str | None = None) -> None:
            extra = {k: v for k, v in (("total", total), ("description", description)) if v is not None}
            bar.update(task, completed=done, **extra)

        yield update


def add_quiet(parser) -> None:
    """The shared ``--quiet`` flag of a command with a progress bar."""
    parser.add_argument(
        "--quiet", "-q", action="store_true", help="no progress bar (it is also off when stderr is not a terminal)"
    )
