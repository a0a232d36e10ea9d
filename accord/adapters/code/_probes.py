"""Inputs for agreement between candidates: the docstring's own example inputs plus inputs drawn
from hypothesis strategies built from the entry point's annotations (or, without annotations, from
the types of the example arguments). Deterministic: the same problem always gets the same inputs.
"""

from __future__ import annotations

import ast
import string
from typing import Any

from accord.adapters.code import _pyast as pyast
from accord.adapters.code._spec import CodeSpec
from accord.extras import require

_ALPHABET = string.ascii_letters + string.digits + " .,!?-_"


def signature(spec: CodeSpec) -> list[tuple[str, str | None]]:
    """(parameter name, annotation source or None) of the entry point in the prompt."""
    for text in (spec.prompt + "\n    pass\n", spec.prompt):
        try:
            tree = pyast.parse(text)
        except SyntaxError:
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef) and node.name == spec.entry_point:
                return [(a.arg, ast.unparse(a.annotation) if a.annotation else None) for a in node.args.args]
    return []


def example_args(spec: CodeSpec) -> list[tuple]:
    """Argument tuples of the visible examples that are plain calls of the entry point with literals."""
    names = [p for p, _ in signature(spec)]
    out = []
    for test in spec.tests:
        try:
            node = pyast.parse(test.expr, mode="eval").body
            if not (
                isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == spec.entry_point
            ):
                continue
            args = [pyast.literal_eval(a) for a in node.args]
            kw = {k.arg: pyast.literal_eval(k.value) for k in node.keywords}
            for name in names[len(args) :]:
                if name in kw:
                    args.append(kw.pop(name))
            if not kw and (not names or len(args) == len(names)):
                out.append(tuple(args))
        except (ValueError, SyntaxError, TypeError):
            continue
    return out


def _from_annotation(src: str | None, st) -> Any:
    if src is None:
        return None
    s = src.replace(" ", "").replace("typing.", "")
    base = {
        "int": st.integers(-20, 60),
        "float": st.floats(-50, 50, allow_nan=False, allow_infinity=False).map(lambda x: round(x, 3)),
        "str": st.text(alphabet=_ALPHABET, max_size=12),
        "bool": st.booleans(),
    }
    if s in base:
        return base[s]
    for prefix in ("List[", "list[", "Sequence[", "Iterable["):
        if s.startswith(prefix) and s.endswith("]"):
            inner = _from_annotation(s[len(prefix) : -1], st)
            return st.lists(inner, max_size=8) if inner is not None else None
    if s.startswith(("Optional[",)) and s.endswith("]"):
        inner = _from_annotation(s[9:-1], st)
        return st.none() | inner if inner is not None else None
    if s.startswith(("Tuple[", "tuple[")) and s.endswith("]"):
        parts = [_from_annotation(p, st) for p in _split_top(s[6:-1])]
        return st.tuples(*parts) if parts and all(p is not None for p in parts) else None
    if s.startswith(("Dict[", "dict[")) and s.endswith("]"):
        parts = [_from_annotation(p, st) for p in _split_top(s[5:-1])]
        if len(parts) == 2 and all(p is not None for p in parts):
            return st.dictionaries(parts[0], parts[1], max_size=5)
    if s in ("list", "List"):
        return st.lists(st.integers(-20, 60), max_size=8)
    return None


def _split_top(s: str) -> list[str]:
    parts, depth, cur = [], 0, ""
    for ch in s:
        if ch == "," and depth == 0:
            parts.append(cur)
            cur = ""
            continue
        depth += ch == "["
        depth -= ch == "]"
        cur += ch
    return parts + [cur] if cur else parts


def _from_value(v: Any, st) -> Any:
    """A strategy producing values shaped like the example value ``v``."""
    if isinstance(v, bool):
        return st.booleans()
    if isinstance(v, int):
        lo, hi = (0, max(60, 2 * v)) if v >= 0 else (min(-20, 2 * v), 60)
        return st.integers(lo, hi)
    if isinstance(v, float):
        return st.floats(-50, 50, allow_nan=False, allow_infinity=False).map(lambda x: round(x, 3))
    if isinstance(v, str):
        letters = sorted(set(v)) if v and len(set(v)) <= 12 else None
        return st.text(alphabet="".join(letters), max_size=12) if letters else st.text(alphabet=_ALPHABET, max_size=12)
    if isinstance(v, (list, tuple)):
        inner = _from_value(v[0], st) if v else st.integers(-20, 60)
        if isinstance(v, tuple):
            return st.tuples(*[_from_value(x, st) for x in v]) if v else st.just(())
        return st.lists(inner, max_size=8)
    if isinstance(v, dict):
        if not v:
            return st.just({})
        k, val = next(iter(v.items()))
        return st.dictionaries(_from_value(k, st), _from_value(val, st), max_size=5)
    return None


def generated_args(spec: CodeSpec, count: int) -> list[tuple]:
    """``count`` argument tuples drawn (deterministically) from hypothesis strategies."""
    require("hypothesis", "generated test inputs")
    from hypothesis import HealthCheck, Phase, given, settings
    from hypothesis import strategies as st

    params = signature(spec)
    examples = example_args(spec)
    strategies = []
    for i, (_, ann) in enumerate(params):
        s = _from_annotation(ann, st)
        if s is None and examples:
            s = _from_value(examples[0][i], st) if i < len(examples[0]) else None
        if s is None:
            return []
        strategies.append(s)
    if not params or count <= 0:
        return []
    drawn: list[tuple] = []

    @settings(
        max_examples=count,
        database=None,
        derandomize=True,
        phases=[Phase.generate],
        suppress_health_check=list(HealthCheck),
        deadline=None,
    )
    @given(st.tuples(*strategies))
    def collect(args):
        drawn.append(args)

    collect()
    return drawn


def probe_inputs(spec: CodeSpec, count: int = 12) -> tuple[str, ...]:
    """Argument-tuple sources: the spec's own probe inputs, else examples plus generated inputs."""
    if spec.probe_inputs:
        return tuple(spec.probe_inputs)
    out: dict[str, None] = {}
    for args in example_args(spec) + generated_args(spec, count):
        src = repr(tuple(args))
        try:
            if pyast.literal_eval(src) == tuple(args):
                out.setdefault(src, None)
        except (ValueError, SyntaxError):
            continue
        if len(out) >= count:
            break
    return tuple(out)
