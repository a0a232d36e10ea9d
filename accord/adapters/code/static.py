"""Static checks on a candidate program: cheap, no execution, run before anything is sandboxed.

Score 0 when the program does not parse, does not define the entry point as a top-level function,
or imports/calls something a solution has no business using (processes, files, sockets, the
interpreter's internals). Otherwise 1, less 0.75 if pyflakes finds an undefined name (it would raise
NameError), 0.5 per eval/exec/compile call and 0.1 per other pyflakes warning, floored at 0.5.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Sequence

from accord.adapters.code import pyast
from accord.adapters.code.spec import CodeSpec
from accord.protocols import JudgeScore, StepContext

FORBIDDEN_MODULES = frozenset(
    """os sys subprocess socket shutil ctypes multiprocessing threading _thread signal importlib builtins
    pathlib tempfile pickle marshal resource gc inspect http urllib asyncio pty fcntl mmap ftplib smtplib
    telnetlib requests code codeop pdb faulthandler atexit posix io glob""".split()
)
FORBIDDEN_CALLS = frozenset("open __import__ breakpoint input exit quit globals".split())
RISKY_CALLS = frozenset("eval exec compile".split())  # sometimes legitimate (HumanEval/160 uses eval)
_IGNORED = ("RedefinedWhileUnused", "UnusedImport", "ImportStarUsed", "ImportStarUsage")


@dataclass(frozen=True)
class StaticReport:
    """The static verdict on one program."""

    parses: bool
    defines_entry: bool
    forbidden: tuple[str, ...]
    undefined: tuple[str, ...]
    warnings: tuple[str, ...]
    error: str | None = None
    risky: tuple[str, ...] = ()  # eval/exec/compile: legitimate at times, so a penalty, not a veto

    @property
    def runnable(self) -> bool:
        """Worth executing: it parses and defines the entry point."""
        return self.parses and self.defines_entry

    def score(self) -> JudgeScore:
        if not self.parses:
            return JudgeScore(0.0, f"does not parse: {self.error}")
        if not self.defines_entry:
            return JudgeScore(0.0, self.error or "entry point not defined")
        if self.forbidden:
            return JudgeScore(0.0, "forbidden: " + ", ".join(self.forbidden))
        s = 1.0 - (0.75 if self.undefined else 0.0)
        if self.undefined:
            return JudgeScore(max(0.0, s), "undefined names: " + ", ".join(self.undefined))
        s = max(0.5, 1.0 - 0.1 * len(self.warnings) - 0.5 * len(self.risky))
        notes = self.risky + self.warnings
        return JudgeScore(s, "; ".join(notes[:3]) if notes else "clean")


def analyse(program: str, entry_point: str) -> StaticReport:
    """Parse, look for the entry point and forbidden names, and run pyflakes."""
    try:
        tree = pyast.parse(program)
    except (SyntaxError, ValueError) as exc:
        msg = getattr(exc, "msg", str(exc))
        line = getattr(exc, "lineno", None)
        return StaticReport(False, False, (), (), (), f"{msg} (line {line})" if line else msg)
    defines = any(
        isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.name == entry_point for n in tree.body
    )
    forbidden: list[str] = []
    risky: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            forbidden += [f"import {a.name}" for a in node.names if a.name.split(".")[0] in FORBIDDEN_MODULES]
        elif isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] in FORBIDDEN_MODULES:
            forbidden.append(f"from {node.module} import")
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in FORBIDDEN_CALLS:
            forbidden.append(f"call {node.func.id}()")
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in RISKY_CALLS:
            risky.append(f"line {node.lineno}: calls {node.func.id}()")
        elif isinstance(node, ast.Attribute) and node.attr.startswith("__") and node.attr in (
            "__subclasses__", "__globals__", "__builtins__", "__code__", "__closure__",
        ):
            forbidden.append(f"attribute {node.attr}")
    undefined, warnings = _pyflakes(tree)
    error = None if defines else f"no top-level function {entry_point!r}"
    return StaticReport(True, defines, tuple(dict.fromkeys(forbidden)), undefined, warnings, error, tuple(risky))


def _pyflakes(tree: ast.AST) -> tuple[tuple[str, ...], tuple[str, ...]]:
    from pyflakes import checker, messages

    undefined, warnings = [], []
    for msg in checker.Checker(tree, filename="<candidate>").messages:
        kind = type(msg).__name__
        if kind in _IGNORED:
            continue
        text = msg.message % msg.message_args
        if isinstance(msg, (messages.UndefinedName, messages.UndefinedLocal, messages.UndefinedExport)):
            undefined.append(str(msg.message_args[0]))
        else:
            warnings.append(f"line {msg.lineno}: {text}")
    return tuple(dict.fromkeys(undefined)), tuple(warnings)


class StaticJudge:
    """Judge: the static checks above, for each candidate program."""

    name = "static"

    def score(self, ctx: StepContext, candidates: Sequence[str]) -> list[JudgeScore]:
        spec = CodeSpec.from_context(ctx)
        return [analyse(spec.program(ctx.steps, c), spec.entry_point).score() for c in candidates]
