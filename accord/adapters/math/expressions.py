"""Plain-text or LaTeX mathematics to sympy, safely.

Text is read by accord's own parser (:mod:`accord.adapters.math.parser`: no ``eval``, only
numbers, names, operators and a few known functions), then built as a sympy expression. Every name
is a symbol (``S``, ``E``, ``I``, ``N`` and ``gamma`` are symbols here, not sympy's constants);
the solution's own functions (``f(n)``) are undefined sympy functions. Decimals become exact
rationals. A power, factorial or binomial whose value would be too large is refused before sympy
computes it (:data:`accord.adapters.math.evaluate.MAX_BITS`).
"""

from __future__ import annotations

import re
from fractions import Fraction
from functools import lru_cache

import sympy as sp

from accord.adapters.math.evaluate import NotExact, TooLarge, Undefined, Unknown, env_lookup, exact
from accord.adapters.math.latex import from_latex
from accord.adapters.math.parser import MathParseError, parse

__all__ = ["MathParseError", "from_latex", "parse_math", "to_sympy"]

_SCREEN = re.compile(r"__|[\"`;@]|(?<!\.)\.(?!\.)\s*[A-Za-z_]|\blambda\s*:|\bimport\b")
_FUNCS = {
    "sqrt": sp.sqrt, "exp": sp.exp, "ln": sp.log, "sin": sp.sin, "cos": sp.cos, "tan": sp.tan, "cot": sp.cot,
    "sec": sp.sec, "csc": sp.csc, "abs": sp.Abs, "floor": sp.floor, "ceil": sp.ceiling, "binom": sp.binomial,
    "factorial": sp.factorial, "max": sp.Max, "min": sp.Min,
}
_NO_VALUES = env_lookup({})


def _closed_size(tree) -> None:
    """Refuse a closed power/factorial/binomial that is too large (evaluating it exactly is bounded)."""
    try:
        exact(tree, _NO_VALUES)
    except TooLarge as exc:
        raise MathParseError(str(exc)) from None
    except (Unknown, NotExact, Undefined, ZeroDivisionError):
        pass  # not closed, irrational or undefined: sympy decides


def to_sympy(tree) -> sp.Expr:
    kind = tree[0]
    if kind == "num":
        v: Fraction = tree[1]
        return sp.Rational(v.numerator, v.denominator)
    if kind == "name":
        return sp.pi if tree[1] == "pi" else sp.Symbol(tree[1])
    if kind == "add":
        return sp.Add(*[to_sympy(t) for t in tree[1]])
    if kind == "mul":
        return sp.Mul(*[to_sympy(t) for t in tree[1]])
    if kind == "neg":
        return -to_sympy(tree[1])
    if kind == "div":
        return to_sympy(tree[1]) / to_sympy(tree[2])
    if kind == "abs":
        return sp.Abs(to_sympy(tree[1]))
    if kind in ("pow", "fact") or kind == "call" and tree[1] in ("binom", "factorial"):
        _closed_size(tree)
        if kind == "pow":
            return to_sympy(tree[1]) ** to_sympy(tree[2])
        if kind == "fact":
            return sp.factorial(to_sympy(tree[1]))
    if kind == "mod":
        return sp.Mod(to_sympy(tree[1]), to_sympy(tree[2]))
    if kind == "apply":
        return sp.Function(tree[1])(*[to_sympy(a) for a in tree[2]])
    fn, args = tree[1], [to_sympy(a) for a in tree[2]]
    if fn == "root":
        return sp.root(args[0], args[1])
    if fn == "log":
        return sp.log(*args)
    if fn in ("gcd", "lcm"):
        return sp.gcd(*args) if fn == "gcd" else sp.lcm(*args)
    return _FUNCS[fn](*args)


@lru_cache(maxsize=4096)
def _parse_cached(text: str, functions: frozenset[str]) -> sp.Expr:
    tree, _ = parse(text, functions)
    return to_sympy(tree)


def parse_math(text: str, functions: frozenset[str] = frozenset()) -> sp.Expr:
    """One expression (no relation signs) as a sympy expression; :class:`MathParseError` if not."""
    if _SCREEN.search(text):
        raise MathParseError(f"not a plain mathematical expression: {text.strip()!r}")
    try:
        return _parse_cached(text, frozenset(functions))
    except RecursionError:
        raise MathParseError("expression nested too deeply") from None
