"""What a code judge needs to know about a problem, and the visible tests found in its docstring.

A :class:`CodeSpec` travels in ``StepContext.metadata["code"]``. It holds the prompt (imports,
helpers, the signature and docstring), the entry point, the visible tests judges may use and,
separately, the hidden ground-truth check that only the task's scorer runs.
"""

from __future__ import annotations

import ast
import builtins
import doctest
import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from accord.adapters.code import _pyast as pyast
from accord.protocols import StepContext

_SEPARATORS = ("==>", "=>", "->", "➞", "→", "==", "should return", "returns", "return")


@dataclass(frozen=True)
class CodeTest:
    """``expr`` evaluated with the candidate's names in scope must equal ``expected`` (both sources).

    With ``expected=None``, ``expr`` is a statement (``assert f(2) > 1``) that must run without raising.
    """

    expr: str
    expected: str | None

    def item(self) -> dict:
        if self.expected is None:
            return {"kind": "stmt", "src": self.expr}
        return {"kind": "expr", "expr": self.expr, "expected": self.expected}

    @classmethod
    def from_assert(cls, src: str) -> CodeTest:
        """``assert f(x) == y`` becomes an expression test; any other statement runs as it is."""
        try:
            tree = pyast.parse(src.strip())
        except SyntaxError as exc:
            raise ValueError(f"test does not parse: {src!r} ({exc.msg})") from None
        node = tree.body[0] if len(tree.body) == 1 else None
        if (
            isinstance(node, ast.Assert)
            and isinstance(node.test, ast.Compare)
            and len(node.test.ops) == 1
            and isinstance(node.test.ops[0], ast.Eq)
            and _literal(ast.unparse(node.test.comparators[0]))
        ):
            return cls(ast.unparse(node.test.left), ast.unparse(node.test.comparators[0]))
        return cls(src.strip(), None)

    @classmethod
    def from_io(cls, entry_point: str, args: tuple, expected) -> CodeTest:
        """An input/output pair: ``entry_point(*args)`` must return ``expected`` (plain values)."""
        call = f"{entry_point}({', '.join(repr(a) for a in args)})"
        if not _literal(repr(expected)):
            raise ValueError(f"expected value {expected!r} is not a plain literal")
        return cls(call, repr(expected))


@dataclass(frozen=True)
class CodeSpec:
    """A programming problem as the code judges see it."""

    prompt: str
    entry_point: str
    tests: tuple[CodeTest, ...] = ()
    hidden_check: str | None = field(default=None, repr=False)  # ground truth only; judges never read it
    probe_inputs: tuple[str, ...] = ()  # argument tuples (sources), e.g. from a model

    def program(self, steps: Sequence[str], candidate: str) -> str:
        """The full program for a candidate: prompt + accepted steps + candidate.

        A candidate that defines the entry point itself is a whole function: it is appended after
        the prompt (whose helpers and imports it may use), so its definition wins.
        """
        body = "".join(steps) + candidate
        if re.search(rf"^\s*def\s+{re.escape(self.entry_point)}\s*\(", body, re.M):
            base = self.prompt.rstrip()
            if base:
                try:
                    pyast.parse(base)
                except SyntaxError:  # a signature without a body: give the stub one
                    base += "\n    pass"
                base += "\n\n\n"
            return base + _dedent_defs(body)
        return self.prompt + body

    @classmethod
    def from_context(cls, ctx: StepContext) -> CodeSpec:
        spec = ctx.metadata.get("code") if ctx.metadata else None
        if not isinstance(spec, CodeSpec):
            raise ValueError("code judges need StepContext.metadata['code'] to be a CodeSpec (use a code task)")
        return spec


def _dedent_defs(text: str) -> str:
    lines = text.splitlines()
    indents = [len(ln) - len(ln.lstrip()) for ln in lines if ln.strip()]
    cut = min(indents) if indents else 0
    return "\n".join(ln[cut:] if len(ln) >= cut else ln.lstrip() for ln in lines) + "\n"


def docstring_of(prompt: str, entry_point: str) -> str:
    """The docstring of ``entry_point`` in ``prompt`` ('' if there is none or the prompt does not parse)."""
    try:
        tree = pyast.parse(prompt + "\n    pass\n")
    except SyntaxError:
        try:
            tree = pyast.parse(prompt)
        except SyntaxError:
            return ""
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == entry_point:
            return ast.get_docstring(node) or ""
    return ""


def _valid_expr(src: str) -> bool:
    try:
        pyast.parse(src, mode="eval")
    except SyntaxError:
        return False
    return bool(src.strip())


def _literal(src: str) -> bool:
    try:
        node = pyast.parse(src, mode="eval").body
    except SyntaxError:
        return False
    allowed = (ast.Constant, ast.List, ast.Tuple, ast.Set, ast.Dict, ast.UnaryOp, ast.USub, ast.UAdd, ast.Load)
    return all(isinstance(n, allowed) or isinstance(n, (ast.operator, ast.unaryop)) for n in ast.walk(node))


def _call_end(text: str, start: int) -> int:
    """Index just past the parenthesis closing the one at ``start`` (-1 if unbalanced)."""
    depth = 0
    quote = None
    for i in range(start, len(text)):
        ch = text[i]
        if quote:
            if ch == quote and text[i - 1] != "\\":
                quote = None
        elif ch in "'\"":
            quote = ch
        elif ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
            if depth == 0:
                return i + 1
    return -1


def examples_from_docstring(doc: str, entry_point: str) -> list[CodeTest]:
    """Visible tests in a docstring: doctest examples, then ``f(x) ==> y`` style lines."""
    tests: list[CodeTest] = []
    seen: set[tuple[str, str]] = set()

    def add(expr: str, expected: str) -> None:
        expr, expected = expr.strip(), expected.strip()
        if entry_point not in expr or not _valid_expr(expr) or not _literal(expected):
            return
        names = {n.id for n in ast.walk(pyast.parse(expr, mode="eval")) if isinstance(n, ast.Name)}
        if names - {entry_point} - set(dir(builtins)):  # e.g. ``f(abc)`` meant the string 'abc'
            return
        if (expr, expected) not in seen:
            seen.add((expr, expected))
            tests.append(CodeTest(expr, expected))

    try:
        for ex in doctest.DocTestParser().get_examples(doc):
            if ex.want.strip():
                add(ex.source, ex.want.strip())
    except ValueError:
        pass
    if tests:
        return tests
    for m in re.finditer(rf"\b{re.escape(entry_point)}\s*\(", doc):
        end = _call_end(doc, m.end() - 1)
        if end < 0:
            continue
        expr = doc[m.start() : end]
        rest = doc[end:].split("\n", 1)[0].strip().lstrip("#").strip()
        for sep in _SEPARATORS:
            if rest.lower().startswith(sep):
                add(expr, _clean_value(rest[len(sep) :]))
                break
    for m in _KWARG_EXAMPLE.finditer(doc):
        args = m.group("args").strip().rstrip(",")
        if _valid_expr(f"f({args})"):
            add(f"{entry_point}({args})", _clean_value(m.group("value")))
    return tests


_KWARG_EXAMPLE = re.compile(
    r"(?:For|Input:)\s+(?P<args>\w+\s*=.+?)(?:,?\s*the (?:output|result) should be|\n\s*Output:)\s*(?P<value>[^\n]+)",
    re.I,
)


def _clean_value(text: str) -> str:
    value = text.split("#", 1)[0].strip().rstrip(".,;")
    if value.endswith(")") and value.count("(") < value.count(")"):
        value = value[:-1]
    return {"true": "True", "false": "False"}.get(value, value)


def visible_tests(prompt: str, entry_point: str) -> tuple[CodeTest, ...]:
    """Examples from the parsed docstring and from the raw prompt text (escapes differ), deduplicated."""
    out: dict[tuple[str, str], CodeTest] = {}
    for text in (docstring_of(prompt, entry_point), prompt):
        for t in examples_from_docstring(text, entry_point):
            out.setdefault((t.expr, t.expected), t)
    return tuple(out.values())
