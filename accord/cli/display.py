"""Tables and consoles of every command: they fit the terminal, or 80 columns when piped, by wrapping.

rich's default truncates a cell that does not fit with "…" ("arithmet…", "raw_aver…"), which loses
the very names a user reads a table for. Here a long cell wraps and a long word folds onto the next
line; nothing is cut. A command's table and console come from this module. Output that is not a
terminal (a pipe, a log) is as wide as ``$COLUMNS`` says, else 80 columns: a pager, an editor or a
code review shows it without scrolling sideways.
"""

from __future__ import annotations

import os
import sys

from rich import box
from rich.console import Console
from rich.table import Table as _RichTable


class Table(_RichTable):
    """A rich table whose columns wrap and fold (never truncate), ruled under the header only and
    one space between columns (rich's boxed default spends three columns of a narrow terminal per
    table column); any table or column option may still be given."""

    def __init__(self, *args, **kwargs) -> None:
        kwargs.setdefault("box", box.SIMPLE_HEAD)
        kwargs.setdefault("padding", (0, 0))
        super().__init__(*args, **kwargs)

    def add_column(self, header="", footer="", *, overflow="fold", no_wrap=False, **kwargs) -> None:
        super().add_column(header, footer, overflow=overflow, no_wrap=no_wrap, **kwargs)


PIPED_WIDTH = 80


def console(*, stderr: bool = False) -> Console:
    """A console as wide as the terminal; when the output is not a terminal, ``$COLUMNS`` if set,
    else 80 columns. Emoji codes stay text: a name such as ``:a:`` in the data is printed as written."""
    stream = sys.stderr if stderr else sys.stdout
    width = None if stream.isatty() or os.environ.get("COLUMNS") else PIPED_WIDTH
    return Console(width=width, stderr=stderr, emoji=False)
