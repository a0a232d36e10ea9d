"""A parsed formula as a sympy expression.

The tree is the one :mod:`accord.mathcheck.reading._parser` builds. Nothing is evaluated here: how large a
closed power may be is for the caller to decide (``guard``), so the exact evaluator and the sympy
readers both build on this module without depending on each other.
"""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction

import sympy as sp

_FUNCS = {
    "sqrt": sp.sqrt,
    "exp": sp.exp,
    "ln": sp.log,
    "sin": sp.sin,
    "cos": sp.cos,
    "tan": sp.tan,
    "cot": sp.cot,
    "sec": sp.sec,
    "csc": sp.csc,
    "abs": sp.Abs,
    "floor": sp.floor,
    "ceil": sp.ceiling,
    "binom": sp.binomial,
    "factorial": sp.factorial,
    "max": sp.Max,
    "min": sp.Min,
}


def to_sympy(tree, guard: Callable[[tuple], None] | None = None) -> sp.Expr:
    """The sympy expression of a parsed tree; ``guard`` is called on every power, factorial and
    binomial first (it raises to refuse one too large to build)."""
    kind = tree[0]
    if kind == "num":
        v: Fraction = tree[1]
        return sp.Rational(v.numerator, v.denominator)
    if kind == "name":
        return sp.pi if tree[1] == "pi" else sp.Symbol(tree[1])
    if kind == "add":
        return sp.Add(*[to_sympy(t, guard) for t in tree[1]])
    if kind == "mul":
        return sp.Mul(*[to_sympy(t, guard) for t in tree[1]])
    if kind == "neg":
        return -to_sympy(tree[1], guard)
    if kind == "div":
        return to_sympy(tree[1], guard) / to_sympy(tree[2], guard)
    if kind == "abs":
        return sp.Abs(to_sympy(tree[1], guard))
    if kind in ("pow", "fact") or kind == "call" and tree[1] in ("binom", "factorial"):
        if guard is not None:
            guard(tree)
        if kind == "pow":
            return to_sympy(tree[1], guard) ** to_sympy(tree[2], guard)
        if kind == "fact":
            return sp.factorial(to_sympy(tree[1], guard))
    if kind == "mod":
        return sp.Mod(to_sympy(tree[1], guard), to_sympy(tree[2], guard))
    if kind == "apply":
        return sp.Function(tree[1])(*[to_sympy(a, guard) for a in tree[2]])
    if kind == "lim":  # left unevaluated: sympy decides what it can
        at = sp.oo if tree[2] == "oo" else -sp.oo if tree[2] == "-oo" else to_sympy(tree[2], guard)
        return sp.Limit(to_sympy(tree[3], guard), sp.Symbol(tree[1]), at)
    if kind == "sigma":  # left unevaluated: sympy decides what it can
        op, var, lo, hi, body = tree[1:]
        limits = (sp.Symbol(var), to_sympy(lo, guard), to_sympy(hi, guard))
        return (sp.Sum if op == "sum" else sp.Product)(to_sympy(body, guard), limits)
    fn, args = tree[1], [to_sympy(a, guard) for a in tree[2]]
    if fn == "root":
        return sp.root(args[0], args[1])
    if fn == "log":
        return sp.log(*args)
    if fn in ("gcd", "lcm"):
        return sp.gcd(*args) if fn == "gcd" else sp.lcm(*args)
    return _FUNCS[fn](*args)
