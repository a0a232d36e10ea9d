"""Static checks on a candidate program: cheap, no execution, run before anything is sandboxed.

A static check can refute a program but never confirm one, so the judge only scores what it finds:
0 when the program does not parse, does not define the entry point as a top-level function, or
imports/calls something a solution has no business using (processes, files, sockets, the
interpreter's internals); 0.25 when pyflakes finds an undefined name (it would raise NameError).
A program with no such defect gets no score (``None``, with any warnings and eval/exec/compile
calls as the reason): "nothing found" is no evidence of correctness, and scoring it 1.0 would lift
every candidate's consensus mean alike (on HumanEval mutants 98.7% of the candidates, right or
wrong, were clean).
"""

from __future__ import annotations

import ast
from collections.abc import Sequence
from dataclasses import dataclass

from accord.adapters.code import _pyast as pyast
from accord.adapters.code._spec import CodeSpec
from accord.extras import require
from accord.protocols import JudgeScore, StepContext

FORBIDDEN_MODULES = frozenset(
    """os sys subprocess socket shutil ctypes multiprocessing threading _thread signal importlib builtins
    pathlib tempfile pickle marshal resource gc inspect http urllib asyncio pty fcntl mmap ftplib smtplib
    telnetlib requests code codeop pdb faulthandler atexit posix io glob""".split()
)
FORBIDDEN_CALLS = frozenset("open __import__ breakpoint input exit quit globals".split())
RISKY_CALLS = frozenset("eval exec compile".split())  # sometimes legitimate (HumanEval/160 uses eval)
_IGNORED = ("RedefinedWhileUnused", "UnusedImport", "ImportStarUsed", "ImportStarUsage")
UNDEFINED_NAME_SCORE = 0.25  # would raise NameError, unless only on a path never taken
NOTHING_FOUND = "no static defect found (static checks cannot confirm a program)"


@dataclass(frozen=True)
class StaticReport:
    """The static verdict on one program."""

    parses: bool
    defines_entry: bool
    forbidden: tuple[str, ...]
    undefined: tuple[str, ...]
    warnings: tuple[str, ...]
    error: str | None = None
    risky: tuple[str, ...] = ()  # eval/exec/compile: legitimate at times, so noted, not a veto

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
        if self.undefined:
            return JudgeScore(UNDEFINED_NAME_SCORE, "undefined names: " + ", ".join(self.undefined))
        notes = self.risky + self.warnings
        return JudgeScore.failed(NOTHING_FOUND + (": " + "; ".join(notes[:3]) if notes else ""))


def analyse(program: str, entry_point: str) -> StaticReport:
    """Parse, look for the entry point and forbidden names, and run pyflakes."""
    try:
        tree = pyast.parse(program)
    except (SyntaxError, ValueError) as exc:
        msg = getattr(exc, "msg", str(exc))
        line = getattr(exc, "lineno", None)
        return StaticReport(False, False, (), (), (), f"{msg} (line {line})" if line else msg)
    defines = any(isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.name == entry_point for n in tree.body)
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
        elif (
            isinstance(node, ast.Attribute)
            and node.attr.startswith("__")
            and node.attr
            in (
                "__subclasses__",
                "__globals__",
                "__builtins__",
                "__code__",
                "__closure__",
            )
        ):
            forbidden.append(f"attribute {node.attr}")
    undefined, warnings = _pyflakes(tree)
    error = None if defines else f"no top-level function {entry_point!r}"
    return StaticReport(True, defines, tuple(dict.fromkeys(forbidden)), undefined, warnings, error, tuple(risky))


def _pyflakes(tree: ast.AST) -> tuple[tuple[str, ...], tuple[str, ...]]:
    require("pyflakes", "the static judge")
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
