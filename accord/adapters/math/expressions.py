"""Plain-text mathematics to sympy, safely.

Steps come from users and from language models, so text is screened before sympy sees it (no
attribute access, no strings, no dunder names) and parsed with a namespace that holds only a few
functions: every other name is a symbol (``S``, ``E``, ``I``, ``N`` and ``gamma`` are symbols here,
not sympy's constants or functions). Decimals become exact rationals.
"""

from __future__ import annotations

import re

import sympy as sp
from sympy.parsing.sympy_parser import (
    convert_xor,
    implicit_multiplication,
    parse_expr,
    rationalize,
    split_symbols,
    standard_transformations,
)

# "2ab" is 2*a*b; names with an underscore (s_V) and Greek names (alpha, lamda) stay whole
_TRANSFORMS = standard_transformations + (split_symbols, implicit_multiplication, convert_xor, rationalize)
_FUNCTIONS = {
    "sqrt": sp.sqrt,
    "exp": sp.exp,
    "log": sp.log,
    "ln": sp.log,
    "sin": sp.sin,
    "cos": sp.cos,
    "tan": sp.tan,
    "abs": sp.Abs,
    "Abs": sp.Abs,
    "pi": sp.pi,
}
_GLOBALS = {
    "__builtins__": {},
    "Integer": sp.Integer,
    "Number": sp.Number,
    "Float": sp.Float,
    "Rational": sp.Rational,
    "Symbol": sp.Symbol,
    "Function": sp.Function,
    **_FUNCTIONS,
}
_UNICODE = {
    "−": "-",
    "–": "-",
    "×": "*",
    "·": "*",
    "⋅": "*",
    "∗": "*",
    "÷": "/",
    "²": "^2",
    "³": "^3",
    "√": "sqrt",
    "π": "pi",
}
_ALLOWED = re.compile(r"^[\w\s+\-*/^().,]*$", re.UNICODE)
_FORBIDDEN = re.compile(r"__|\blambda\b|\.\s*[A-Za-z_]|\bimport\b")
MAX_LENGTH = 2000
_GREEK = {
    "alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta", "iota", "kappa", "lamda",
    "mu", "nu", "xi", "omicron", "rho", "sigma", "tau", "upsilon", "phi", "chi", "psi", "omega",
}
_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def _looks_like_prose(s: str) -> str | None:
    """A word of three or more letters that is no function, Greek letter or subscripted name."""
    for w in _WORD.findall(s):
        if "_" in w or w in _FUNCTIONS or w.lower() in _GREEK or len(w.rstrip("0123456789")) <= 2:
            continue
        return w
    return None


class MathParseError(ValueError):
    """The text is not an expression accord can check (the message says why)."""


def normalize(text: str) -> str:
    """Unicode operators to ASCII, ``lambda`` to sympy's ``lamda``, no surrounding ``$``."""
    s = text.strip().strip("$`").strip()
    s = s.replace("\\cdot", "*").replace("\\times", "*")
    for a, b in _UNICODE.items():
        s = s.replace(a, b)
    s = re.sub(r"\blambda", "lamda", s)
    s = re.sub(r"(?<=\d)\s+[x×]\s+(?=\d)", " * ", s)  # "12 x 2" is a product of numbers
    return s


def parse_math(text: str) -> sp.Expr:
    """One expression (no relation signs) as a sympy expression; :class:`MathParseError` if not."""
    s = normalize(text)
    if not s:
        raise MathParseError("empty expression")
    if len(s) > MAX_LENGTH:
        raise MathParseError(f"expression longer than {MAX_LENGTH} characters")
    if not _ALLOWED.match(s) or _FORBIDDEN.search(s):
        raise MathParseError(f"not a plain mathematical expression: {text.strip()!r}")
    word = _looks_like_prose(s)
    if word:
        raise MathParseError(f"not a mathematical expression (the word {word!r}): {text.strip()!r}")
    try:
        expr = parse_expr(s, local_dict={}, global_dict=dict(_GLOBALS), transformations=_TRANSFORMS)
    except Exception as exc:  # sympy raises many kinds for malformed text
        raise MathParseError(f"cannot parse {text.strip()!r}: {type(exc).__name__}") from exc
    if not isinstance(expr, sp.Expr):
        raise MathParseError(f"{text.strip()!r} is not a single expression")
    return expr
