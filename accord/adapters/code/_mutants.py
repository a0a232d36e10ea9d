"""An AST mutator: plausible wrong programs made from a correct one, for judging without a model.

Each mutant changes exactly one site, of one of four kinds:

- ``operator``: swap an arithmetic, comparison or boolean operator (``+``↔``-``, ``<``↔``<=``,
  ``==``↔``!=``, ``and``↔``or``, ...);
- ``off_by_one``: an integer constant ``k`` becomes ``k + 1`` or ``k - 1``;
- ``drop_branch``: an ``if`` loses its body (replaced by ``pass``) or its ``else``;
- ``wrong_return``: a ``return x`` becomes ``return not x`` / ``return None`` / ``return x[::-1]``
  by the kind of value, or a boolean/number constant returned is flipped.

A mutant may happen to be equivalent to the original; callers label mutants by running the hidden
tests, never by assuming they are wrong. Sites are enumerated in a fixed order and sampled with a
seeded generator, so the same solution and seed always give the same mutants.
"""

from __future__ import annotations

import ast
import copy
import random
from dataclasses import dataclass

from accord.adapters.code import _pyast as pyast

MUTATION_KINDS = ("operator", "off_by_one", "drop_branch", "wrong_return")

_BINOP = {
    ast.Add: ast.Sub,
    ast.Sub: ast.Add,
    ast.Mult: ast.FloorDiv,
    ast.FloorDiv: ast.Mult,
    ast.Div: ast.Mult,
    ast.Mod: ast.FloorDiv,
    ast.Pow: ast.Mult,
}
_CMPOP = {
    ast.Lt: ast.LtE,
    ast.LtE: ast.Lt,
    ast.Gt: ast.GtE,
    ast.GtE: ast.Gt,
    ast.Eq: ast.NotEq,
    ast.NotEq: ast.Eq,
    ast.In: ast.NotIn,
    ast.NotIn: ast.In,
    ast.Is: ast.IsNot,
    ast.IsNot: ast.Is,
}
_BOOLOP = {ast.And: ast.Or, ast.Or: ast.And}


@dataclass(frozen=True)
class Mutant:
    """One mutated program and what was changed."""

    kind: str
    description: str
    source: str
    line: int


def _sites(tree: ast.AST, function: str | None) -> list[tuple[str, int, int]]:
    """(kind, node index in walk order, variant) for every mutable site inside ``function``."""
    roots = [n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) and (function is None or n.name == function)]
    allowed = {id(n) for r in roots for n in ast.walk(r)}
    sites = []
    for idx, node in enumerate(ast.walk(tree)):
        if id(node) not in allowed:
            continue
        if isinstance(node, ast.BinOp) and type(node.op) in _BINOP:
            sites.append(("operator", idx, 0))
        elif isinstance(node, ast.Compare) and type(node.ops[0]) in _CMPOP:
            sites.append(("operator", idx, 0))
        elif isinstance(node, ast.BoolOp):
            sites.append(("operator", idx, 0))
        elif isinstance(node, ast.Constant) and type(node.value) is int:
            sites += [("off_by_one", idx, 1), ("off_by_one", idx, -1)]
        elif isinstance(node, ast.If):
            sites.append(("drop_branch", idx, 0))
            if node.orelse:
                sites.append(("drop_branch", idx, 1))
        elif isinstance(node, ast.Return):
            sites.append(("wrong_return", idx, 0))
    return sites


def _apply(tree: ast.AST, kind: str, idx: int, variant: int) -> tuple[ast.AST, str, int] | None:
    new = copy.deepcopy(tree)
    node = list(ast.walk(new))[idx]
    line = getattr(node, "lineno", 0)
    if kind == "operator":
        if isinstance(node, ast.BinOp):
            old = type(node.op)
            node.op = _BINOP[old]()
            return new, f"{old.__name__} -> {type(node.op).__name__}", line
        if isinstance(node, ast.Compare):
            old = type(node.ops[0])
            node.ops[0] = _CMPOP[old]()
            return new, f"{old.__name__} -> {type(node.ops[0]).__name__}", line
        old = type(node.op)
        node.op = _BOOLOP[old]()
        return new, f"{old.__name__} -> {type(node.op).__name__}", line
    if kind == "off_by_one":
        old = node.value
        node.value = old + variant
        return new, f"constant {old} -> {node.value}", line
    if kind == "drop_branch":
        if variant == 0:
            node.body = [ast.Pass()]
            return new, "if-body dropped", line
        node.orelse = []
        return new, "else-branch dropped", line
    if kind == "wrong_return":
        value = node.value
        if value is None or (isinstance(value, ast.Constant) and value.value is None):
            node.value = ast.Constant(0)
            return new, "return None -> return 0", line
        if isinstance(value, ast.Constant) and isinstance(value.value, bool):
            node.value = ast.Constant(not value.value)
            return new, f"return {value.value} -> return {not value.value}", line
        if isinstance(value, ast.Constant) and isinstance(value.value, (int, float)):
            node.value = ast.Constant(value.value + 1)
            return new, f"return {value.value} -> return {value.value + 1}", line
        if isinstance(value, (ast.Compare, ast.BoolOp)) or (
            isinstance(value, ast.UnaryOp) and isinstance(value.op, ast.Not)
        ):
            node.value = ast.UnaryOp(ast.Not(), value)
            return new, "return x -> return not x", line
        if isinstance(value, (ast.List, ast.ListComp, ast.Subscript, ast.Call, ast.Name, ast.JoinedStr, ast.Tuple)):
            node.value = ast.Subscript(value, ast.Slice(None, None, ast.Constant(-1)), ast.Load())
            return new, "return x -> return x[::-1]", line
        node.value = ast.Constant(None)
        return new, "return x -> return None", line
    return None


def mutate(source: str, function: str | None = None, count: int = 5, seed: int = 0) -> list[Mutant]:
    """Up to ``count`` distinct single-site mutants of ``source``, spread over the four kinds.

    Only sites inside ``function`` (every function if None) are mutated. A mutant whose source is
    identical to the original's or to an earlier mutant's is skipped.
    """
    try:
        tree = pyast.parse(source)
    except SyntaxError as exc:
        raise ValueError(f"cannot mutate a program that does not parse: {exc.msg} (line {exc.lineno})") from None
    original = ast.unparse(tree)
    by_kind: dict[str, list] = {k: [] for k in MUTATION_KINDS}
    for site in _sites(tree, function):
        by_kind[site[0]].append(site)
    rng = random.Random(seed)
    for sites in by_kind.values():
        rng.shuffle(sites)
    seen = {original}
    out: list[Mutant] = []
    while len(out) < count and any(by_kind.values()):
        for kind in MUTATION_KINDS:
            if len(out) >= count or not by_kind[kind]:
                continue
            site = by_kind[kind].pop()
            applied = _apply(tree, *site)
            if applied is None:
                continue
            new, desc, line = applied
            try:
                text = ast.unparse(ast.fix_missing_locations(new))
                compile(text, "<mutant>", "exec")
            except (SyntaxError, ValueError, TypeError):
                continue
            if text in seen:
                continue
            seen.add(text)
            out.append(Mutant(kind, desc, text + "\n", line))
    return out
