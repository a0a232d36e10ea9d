"""The ``accord`` command line: one entry point, one module per sub-command.

Sub-commands live in :mod:`accord.cli.commands`; each module defines ``NAME``, ``HELP``,
``add_arguments(parser)`` and ``run(args) -> int``. They are discovered, so adding a command means
adding a module. A command module imports the library code it runs inside ``run``: building the
parser (``accord --help``, a bad flag) then costs a fraction of a second. Errors a user can fix
(:class:`accord.errors.UserError`, a missing optional dependency, which names the
``pip install 'accord[extra]'`` to run, and an installed plugin that cannot be used,
:class:`accord.registry.PluginError`) print one line and exit with code 2, never a traceback; so
do a file-system failure (a read-only folder, a symlink loop), undecodable bytes and input nested
too deeply that a command did not check first (:func:`accord.verify.io.failure` words them).
Output piped into a reader that stops early (``| head``) ends quietly with code 141, as a pipe
tool stopped by SIGPIPE does.
"""

from __future__ import annotations

import argparse
import importlib
import os
import pkgutil
import sys

from accord import __version__
from accord.cli import commands
from accord.cli.options import NEGATIVE_NUMBER, with_value_hint
from accord.errors import UserError
from accord.extras import as_missing_extra
from accord.registry import PluginError


def _command_modules():
    for info in sorted(pkgutil.iter_modules(commands.__path__), key=lambda i: i.name):
        if info.name.startswith("_"):
            continue
        yield importlib.import_module(f"{commands.__name__}.{info.name}")


class OneLineParser(argparse.ArgumentParser):
    """A bad flag or option value is one line on stderr and exit code 2, like every other user error.
    A value that starts with a minus sign and a digit (``--lambdas -1,1,1``) is a value, for the
    flag's own validator to judge (no flag of accord looks like a negative number)."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._negative_number_matcher = NEGATIVE_NUMBER  # argparse's own reads only "-1" and "-1.5" so

    def error(self, message: str):
        self.exit(2, f"{self.prog}: error: {with_value_hint(message)}\n")


def build_parser() -> argparse.ArgumentParser:
    parser = OneLineParser(prog="accord", description="Verify reasoning with a panel of judges.")

    parser.add_argument("--version", action="version", version=f"accord {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for module in _command_modules():
        p = sub.add_parser(module.NAME, help=module.HELP, description=module.HELP)
        module.add_arguments(p)
        p.set_defaults(_run=module.run)
    return parser


def _user_error(command: str, exc: UserError | PluginError) -> int:
    message = " ".join(str(exc).splitlines())  # a control character from the input stays on one line
    print(f"accord {command}: error: {message}", file=sys.stderr)
    return 2


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # argparse has printed its one line (or --help / --version): the same exit code
        return int(exc.code or 0)
    if not getattr(args, "_run", None):
        parser.print_help()
        return 2
    try:
        code = int(args._run(args) or 0)
        sys.stdout.flush()  # a reader that went away shows here, inside the handler below
        return code
    except BrokenPipeError:  # `accord ... | head`: the reader stopped reading; stop quietly, as a pipe tool does
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # nothing left to flush at exit
        return 141  # 128 + SIGPIPE, what a shell reports for a tool stopped by a closed pipe
    except (UserError, PluginError) as exc:
        return _user_error(args.command, exc)
    except ModuleNotFoundError as exc:
        missing = as_missing_extra(exc)  # an optional dependency not installed: name its extra
        if missing is None:
            raise
        return _user_error(args.command, missing)
    except (OSError, UnicodeDecodeError, RecursionError) as exc:  # a file system or input failure not checked
        from accord.verify.io import failure  # before the work: worded as one line too, never a traceback

        worded = failure(exc)
        if worded is None:
            raise
        return _user_error(args.command, worded)
    except KeyboardInterrupt:
        print(f"accord {args.command}: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
