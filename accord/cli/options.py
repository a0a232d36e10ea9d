"""Flags shared by several sub-commands, and the one λ reader every command uses.

λ (stubbornness) is read by :func:`accord.consensus_core.parse_lambdas`: comma-separated numbers,
finite, > 0, one per judge, with one error message. Replay specs (``verdict:lambdas=1.5,1,0.8``) and
the run config's judge ``lambda`` use the same reader, so λ is written the same way everywhere.
Without ``--lambdas``, a table's columns take λ by name (:func:`table_lambdas`), never by position.

A flag's value may start with a minus sign: ``--lambdas -1,1,1`` and ``--tau -0.5`` are read as values
(:data:`NEGATIVE_NUMBER`) and refused by the flag's validator, naming the flag; any other value that
starts with "-" is taken for a flag by argparse, and the error names the ``--flag=VALUE`` form
(:func:`with_value_hint`).
"""

from __future__ import annotations

import argparse
import math
import re
import sys
from pathlib import Path

from accord.adapters import UNKNOWN_COLUMN_LAMBDA
from accord.consensus_core import parse_lambdas
from accord.errors import UserError
from accord.verify.io import TRACE_FILE, is_live, writable_folder

NEGATIVE_NUMBER = re.compile(r"^-\.?\d")  # "-1,1,1", "-0.5", "-.5", "-1e3": a value, never a flag
_NO_VALUE = re.compile(r"argument (--[\w-]+)(?:/\S+)?: expected (?:one argument|at least one argument)")


def with_value_hint(message: str) -> str:
    """argparse's message for a flag left without its value, with the form that gives it a value
    starting with "-" (which argparse takes for another flag)."""
    flag = _NO_VALUE.fullmatch(message)
    if flag:
        return message + f" (a value that starts with '-' is written {flag.group(1)}=VALUE)"
    return message


def lambdas_flag(text: str | None, m: int, flag: str = "--lambdas") -> tuple[float, ...] | None:
    """``--lambdas`` as one finite value > 0 per judge (None when not given); errors are one line."""
    if text is None:
        return None
    try:
        return parse_lambdas(text, m)
    except ValueError as exc:
        raise UserError(f"{flag}: {exc}") from None


def table_lambdas(text: str | None, columns) -> tuple[tuple[float, ...], list[str]]:
    """λ for a score table's columns: ``--lambdas`` when given, else each column's by its name
    (a registered judge type's default, else 1.0). Returns (λ, the columns that took 1.0)."""
    from accord.adapters import column_lambdas  # registers every judge type: not needed to build the parser

    return column_lambdas(list(columns), lambdas_flag(text, len(columns)))


def lambda_note(defaulted) -> str | None:
    """The line saying which columns took λ = 1.0 because no judge type names them (None: none)."""
    if not defaulted:
        return None
    return (
        f"λ = {UNKNOWN_COLUMN_LAMBDA:g} for {', '.join(defaulted)} (no judge type of that name; set λ with --lambdas)"
    )


def _number(text: str, kind) -> float:
    try:
        x = kind(text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"expected {'an integer' if kind is int else 'a number'}, got {text!r}"
        ) from None
    if not math.isfinite(x):
        raise argparse.ArgumentTypeError(f"must be finite, got {text!r}")
    return x


def bounded(kind, ok, rule: str, doc: str = ""):
    """A flag's parser: a finite ``kind`` (int or float) for which ``ok`` holds, else one line saying
    it ``must be {rule}``. Every numeric flag of every command is one of these."""

    def parse(text: str):
        x = _number(text, kind)
        if not ok(x):
            raise argparse.ArgumentTypeError(f"must be {rule}, got {text}")
        return x

    parse.__doc__ = doc
    return parse


unit_interval = bounded(
    float, lambda x: 0.0 <= x <= 1.0, "in [0, 1]", "A threshold on [0, 1] scores (τ, ε, agreement shares, top-p)."
)
positive_int = bounded(
    int, lambda x: x >= 1, ">= 1", "A count or size (k, chunk size, resamples, budgets in steps or tokens, workers)."
)
nonnegative_int = bounded(int, lambda x: x >= 0, ">= 0", "A count that may be zero (retries).")
positive_float = bounded(float, lambda x: x > 0, "> 0", "Seconds, CPUs or a cost budget.")
nonnegative_float = bounded(float, lambda x: x >= 0, ">= 0", "A penalty, temperature or variance limit.")

MIN_RESAMPLES = 40  # 2.5% of fewer resamples is under one: a 95% interval's ends would be guesses
resamples = bounded(
    int,
    lambda x: x >= MIN_RESAMPLES,
    f"at least {MIN_RESAMPLES} (fewer resamples cannot place the ends of a 95% interval)",
    "Bootstrap resamples of a 95% interval (0 or 1 would print an interval of zero width that need not hold "
    "its own estimate).",
)


def add_policy_flags(p: argparse.ArgumentParser, tau_help: str, eps_help: str) -> None:
    """``--policy`` (any registered policy; VERDICT by default), ``--tau`` and ``--eps``."""
    from accord.consensus_core import list_policies

    p.add_argument("--policy", default="verdict", help=f"decision rule: {', '.join(list_policies())} (default verdict)")
    p.add_argument("--tau", type=unit_interval, default=None, help=tau_help)
    p.add_argument("--eps", type=unit_interval, default=None, help=eps_help)


def add_sandbox_flags(p: argparse.ArgumentParser) -> None:
    """``--isolation`` and ``--workers`` of the commands that run untrusted code."""
    p.add_argument(
        "--isolation",
        default="auto",
        help="sandbox: auto (bwrap or unshare, private filesystem), bwrap, unshare, or rlimits (shares the host "
        "filesystem)",
    )
    p.add_argument("--workers", type=positive_int, default=None, help="candidates run in parallel (default: CPU count)")


def output_folder(out_dir: str | None, run_dir: Path, writes: str) -> Path:
    """Where a command reading a run folder writes (``writes``: what, e.g. "report.json and the plots"):
    ``--out-dir`` when given, else the run folder itself; checked before the work starts."""
    if out_dir:
        return writable_folder(out_dir)
    return writable_folder(run_dir, "RUN_DIR", hint=f"; pass --out-dir DIR to write {writes} elsewhere")


def note_if_live(run: str | Path, command: str) -> int | None:
    """Says on stderr (one line) that a run folder is still being written; the writer's PID, or None.

    Readers of a live folder see the records written so far (a half-written last line is skipped)."""
    path = Path(run)
    folder = path.parent if path.is_file() and path.name == TRACE_FILE else path
    pid = is_live(folder)
    if pid is not None:
        who = f"PID {pid}" if pid else "another process"
        print(
            f"accord {command}: note: {folder} is live (being written by {who}); this reads the records written so far",
            file=sys.stderr,
        )
    return pid
