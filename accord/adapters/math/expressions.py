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


def _group(s: str, i: int) -> tuple[str, int]:
    """The brace group starting at s[i] == '{' (nesting respected) and the index after it."""
    depth = 0
    for j in range(i, len(s)):
        depth += {"{": 1, "}": -1}.get(s[j], 0)
        if depth == 0:
            return s[i + 1 : j], j + 1
    raise MathParseError("unbalanced braces")


def from_latex(s: str) -> str:
    """The LaTeX subset derivations use: \\frac, \\sqrt, ^{..}, _{..}, \\cdot, \\left/\\right, Greek."""
    out, i = [], 0
    while i < len(s):
        if s.startswith("\\frac", i) or s.startswith("\\dfrac", i) or s.startswith("\\tfrac", i):
            i = s.index("{", i) if "{" in s[i:] else len(s)
            num, i = _group(s, i)
            while i < len(s) and s[i] == " ":
                i += 1
            if i >= len(s) or s[i] != "{":
                raise MathParseError("\\frac needs two {…} groups")
            den, i = _group(s, i)
            out.append(f"(({from_latex(num)})/({from_latex(den)}))")
        elif s.startswith("\\sqrt", i) and "{" in s[i : i + 6]:
            body, i = _group(s, s.index("{", i))
            out.append(f"sqrt({from_latex(body)})")
        elif s[i] in "^_" and i + 1 < len(s) and s[i + 1] == "{":
            body, j = _group(s, i + 1)
            out.append(f"^({from_latex(body)})" if s[i] == "^" else "_" + re.sub(r"\W", "", body))
            i = j
        elif s[i] == "\\":
            m = re.match(r"\\([A-Za-z]+)", s[i:])
            word = m.group(1) if m else ""
            i += 1 + len(word)
            if word in ("left", "right", "displaystyle", "quad", "qquad", ","):
                continue
            out.append({"cdot": "*", "times": "*", "div": "/", "pi": "pi", "ln": "ln", "log": "log", "exp": "exp",
                        "sin": "sin", "cos": "cos", "tan": "tan"}.get(word, " " + word if word else ""))
        elif s[i] in "{}":
            out.append("(" if s[i] == "{" else ")")
            i += 1
        else:
            out.append(s[i])
            i += 1
    return "".join(out)


def normalize(text: str) -> str:
    """Unicode operators to ASCII, ``lambda`` to sympy's ``lamda``, no surrounding ``$``, LaTeX to text."""
    s = text.strip().strip("$`").strip()
    if "\\" in s or "{" in s:
        s = from_latex(s)
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
