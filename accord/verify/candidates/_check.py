"""Your own code candidates through the sandboxed code judges and a decision policy.

Candidates (JSONL, one per line): ``{"task_id", "code", "id"?}``; ``code`` is a whole function (or
a body for the task's ``prompt``). Tests (JSONL, one per task): ``{"task_id", "entry_point",
"tests"?, "check"?, "prompt"?, "probe_inputs"?}``:

- ``tests``: pytest-style source (or a list of sources): every top-level ``assert`` is one test,
  every ``def test_*()`` is one test; other top-level lines (imports, helpers) run before each;
- ``check``: a HumanEval-style ``def check(candidate): ...``; its top-level asserts become one test
  each, with ``candidate`` standing for the entry point (a check with other statements is one test).

The tests are the execution judge's visible tests; the consistency judge probes every candidate of a
task with ``probe_inputs`` if given, else the literal arguments of the tests' calls of the entry
point (else inputs built from the prompt's examples and annotations). Every task's
candidates form one step, decided by the policy; the document holds every score, reason and verdict.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from accord.adapters.code import CodeSpec, CodeTest
from accord.consensus_core import ConsensusSpec, get_policy
from accord.errors import UserError
from accord.protocols import StepContext
from accord.verify.io import json_objects, text_lines

TEST_FIELDS = {"task_id", "entry_point", "tests", "check", "prompt", "probe_inputs"}


@dataclass(frozen=True)
class Candidate:
    task_id: str
    id: str
    code: str
    line: int


def _text(obj: dict, key: str, where: str, required: bool = True) -> str | None:
    v = obj.get(key)
    if v is None and not required:
        return None
    if not isinstance(v, str) or not v.strip():
        raise UserError(f"{where}: '{key}' must be a non-empty string")
    return v


def read_candidates(path) -> list[Candidate]:
    """Candidates in file order; ids default to ``<task_id>#<k>`` (k counts within the task)."""
    out: list[Candidate] = []
    seen: set[tuple[str, str]] = set()
    per_task: dict[str, int] = {}
    for no, obj in json_objects(
        text_lines(Path(path), "candidates file"), str(path), "expected an object {task_id, code}"
    ):
        where = f"{path}:{no}"
        task = str(_text(obj, "task_id", where))
        code = _text(obj, "code", where)
        per_task[task] = per_task.get(task, 0) + 1
        cid = str(obj.get("id", f"{task}#{per_task[task]}"))
        if (task, cid) in seen:
            raise UserError(f"{where}: candidate {cid!r} of task {task!r} appears twice")
        seen.add((task, cid))
        out.append(Candidate(task, cid, code, no))
    if not out:
        raise UserError(f"{path}: no candidates")
    return out


def _parse(src: str, where: str) -> ast.Module:
    try:
        return ast.parse(src)
    except SyntaxError as exc:
        raise UserError(f"{where}: tests do not parse (line {exc.lineno}: {exc.msg})") from None


def tests_from_source(src: str, where: str) -> list[CodeTest]:
    """pytest-style source: one test per top-level assert or ``def test_*``; the rest is setup."""
    tree = _parse(src, where)
    setup = [
        n
        for n in tree.body
        if not isinstance(n, ast.Assert)
        and not (isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.name.startswith("test"))
    ]
    prefix = "".join(ast.unparse(n) + "\n" for n in setup)
    tests = []
    for n in tree.body:
        if isinstance(n, ast.Assert):
            tests.append(
                CodeTest.from_assert(ast.unparse(n)) if not prefix else CodeTest(prefix + ast.unparse(n), None)
            )
        elif isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.name.startswith("test"):
            tests.append(CodeTest(prefix + ast.unparse(n) + f"\n{n.name}()", None))
    return tests


class _Rename(ast.NodeTransformer):
    def __init__(self, old: str, new: str):
        self.old, self.new = old, new

    def visit_Name(self, node: ast.Name):
        return ast.copy_location(ast.Name(self.new, node.ctx), node) if node.id == self.old else node


def tests_from_check(src: str, entry_point: str, where: str) -> list[CodeTest]:
    """A HumanEval-style ``check(candidate)``: one test per top-level assert, or the whole check as one."""
    tree = _parse(src, where)
    checks = [n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == "check"]
    if not checks or not checks[0].args.args:
        raise UserError(f"{where}: 'check' must define check(candidate)")
    fn = checks[0]
    others = [n for n in tree.body if n is not fn]
    param = fn.args.args[0].arg
    body = [n for n in fn.body if not (isinstance(n, ast.Expr) and isinstance(n.value, ast.Constant))]  # docstrings
    if others or not body or not all(isinstance(n, ast.Assert) for n in body):
        return [CodeTest(f"{src.rstrip()}\ncheck({entry_point})", None)]
    return [CodeTest.from_assert(ast.unparse(_Rename(param, entry_point).visit(n))) for n in body]


def call_args(tests: Sequence[CodeTest], entry_point: str) -> tuple[str, ...]:
    """Argument tuples (sources) of every call of the entry point with literal arguments in the tests:
    the consistency judge's probe inputs, so candidates are compared on the inputs the tests use."""
    out: dict[str, None] = {}
    for t in tests:
        for node in ast.walk(ast.parse(t.expr)):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Name)
                and node.func.id == entry_point
                and not node.keywords
                and not any(isinstance(a, ast.Starred) for a in node.args)
            ):
                try:
                    args = tuple(ast.literal_eval(a) for a in node.args)
                except ValueError:
                    continue
                out.setdefault(repr(args), None)
    return tuple(out)


def read_code_tests(path) -> dict[str, CodeSpec]:
    """One :class:`CodeSpec` per task of a tests file (a task named twice is an error)."""
    specs: dict[str, CodeSpec] = {}
    for no, obj in json_objects(
        text_lines(Path(path), "tests file"), str(path), "expected an object {task_id, entry_point, tests or check}"
    ):
        where = f"{path}:{no}"
        unknown = set(obj) - TEST_FIELDS
        if unknown:
            raise UserError(f"{where}: unknown field(s) {sorted(unknown)}; allowed: {sorted(TEST_FIELDS)}")
        task = str(_text(obj, "task_id", where))
        if task in specs:
            raise UserError(f"{where}: task {task!r} appears twice")
        entry = _text(obj, "entry_point", where)
        if not entry.isidentifier():
            raise UserError(f"{where}: entry_point {entry!r} is not a Python name")
        tests: list[CodeTest] = []
        given = obj.get("tests")
        if given is not None:
            sources = [given] if isinstance(given, str) else given
            if not isinstance(sources, list) or not all(isinstance(s, str) for s in sources):
                raise UserError(f"{where}: 'tests' must be a string of Python or a list of strings")
            for s in sources:
                tests += tests_from_source(s, where)
        check = _text(obj, "check", where, required=False)
        if check is not None:
            tests += tests_from_check(check, entry, where)
        if not tests:
            raise UserError(
                f"{where}: task {task!r} has no test (give 'tests' with asserts or test_ functions, or 'check')"
            )
        probes = obj.get("probe_inputs") or ()
        if not isinstance(probes, (list, tuple)) or not all(isinstance(p, str) for p in probes):
            raise UserError(f"{where}: 'probe_inputs' must be a list of argument-tuple sources, e.g. [\"(1, 2)\"]")
        prompt = _text(obj, "prompt", where, required=False) or ""
        specs[task] = CodeSpec(prompt, entry, tuple(tests), probe_inputs=tuple(probes) or call_args(tests, entry))
    if not specs:
        raise UserError(f"{path}: no tasks")
    return specs


def _num(x) -> float | None:
    return None if x is None or not np.isfinite(x) else round(float(x), 6)


def check_candidates(
    candidates: Sequence[Candidate],
    specs: dict[str, CodeSpec],
    panel,
    policy: str = "verdict",
    consensus: ConsensusSpec | None = None,
    progress: Callable[[int, int], None] | None = None,
    **policy_params,
) -> dict:
    """Score every task's candidates with the ``panel`` (a :class:`accord.verify.loop.Panel`) and
    decide each task with ``policy`` and ``consensus`` (default: the panel's).

    ``progress(done, total)`` after each task. Returns the document ``accord code --json`` prints."""
    missing = sorted({c.task_id for c in candidates} - specs.keys())
    if missing:
        raise UserError(f"no tests for task(s) {', '.join(map(repr, missing[:5]))}")
    names = list(panel.names)
    consensus = consensus or panel.consensus
    pol = get_policy(policy, **policy_params)
    order = list(dict.fromkeys(c.task_id for c in candidates))
    tasks = []
    for k, task in enumerate(order):
        cands = [c for c in candidates if c.task_id == task]
        spec = specs[task]
        ctx = StepContext(spec.prompt, metadata={"code": spec, "task": "code", "id": task})
        scored = panel.score(ctx, [c.code for c in cands])
        raw = scored.raw
        why = scored.reasons or scored.failures
        d = pol.decide(raw, consensus)
        chosen = int(d.chosen)
        rows = []
        for i, c in enumerate(cands):
            rows.append(
                {
                    "id": c.id,
                    "line": c.line,
                    "scores": {n: _num(raw[i, j]) for j, n in enumerate(names)},
                    "reasons": {n: why[i][j] for j, n in enumerate(names)},
                    "mean": _num(d.stats.mean[i]),
                    "dispersion": _num(d.stats.dispersion[i]),
                    "accepted": bool(d.accepted[i]),
                    "picked": i == chosen,
                }
            )
        tasks.append(
            {
                "task_id": task,
                "tests": len(spec.tests),
                "picked": cands[chosen].id if chosen >= 0 else None,
                "fallback": bool(d.fallback),
                "candidates": rows,
            }
        )
        if progress is not None:
            progress(k + 1, len(order))
    params = {k: v for k, v in pol.params().items() if k != "lambdas"}
    return {
        "policy": {"name": pol.name, **params},
        "judges": names,
        "lambdas": list(consensus.lambdas),
        "tasks": tasks,
        "accepted_picks": sum(t["picked"] is not None and not t["fallback"] for t in tasks),
    }
