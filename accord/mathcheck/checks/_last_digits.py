"""The last digit of a power, said in words: "the last digit of 385^1980 is 5", "the units digit of
36^m is always 6".

A formula of whole numbers is evaluated modulo 10 (powers by modular exponentiation, so 385^1980
costs nothing); with one name and "always", at the name's first 12 positive values. A digit said
of prose ("the last digit of the product is 4") or in a hypothesis ("if the last digit of n^2 is
9") is not read.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from accord.mathcheck.reading import HYPOTHETICAL, MathParseError, names, parse, to_text

_MATH = re.compile(r"\$|\\\(|\\\)|\\\[|\\\]")
_CLAIM = re.compile(
    r"\b(?:last|units?|ones)\s+digit\s+of\s+(?P<expr>[0-9A-Za-z^()+*·×{}\- ]+?)\s+(?:is|will\s+be|must\s+be|equals)"
    r"\s+(?P<always>always\s+)?(?P<digit>\d)\b(?![.,]?\d)",
    re.IGNORECASE,
)
_HYPOTHESIS = re.compile(r"\b(?:" + HYPOTHETICAL + r")\b|\?", re.I)
N_SMALL = 12


@dataclass(frozen=True)
class LastDigit:
    text: str
    holds: bool
    reason: str


def _mod10(tree, at: dict[str, int]) -> int | None:
    """The value of ``tree`` modulo 10, for whole numbers, sums, products and powers only."""
    kind = tree[0]
    if kind == "num":
        return int(tree[1]) % 10 if tree[1].denominator == 1 and tree[1] >= 0 else None
    if kind == "name":
        return at[tree[1]] % 10 if tree[1] in at else None
    if kind in ("add", "mul"):
        parts = [_mod10(t, at) for t in tree[1]]
        if any(p is None for p in parts):
            return None
        out = 0 if kind == "add" else 1
        for p in parts:
            out = (out + p) % 10 if kind == "add" else out * p % 10
        return out
    if kind == "pow":
        base = _mod10(tree[1], at)
        exponent = _whole(tree[2], at)
        if base is None or exponent is None or exponent < 0:
            return None
        return pow(base, exponent, 10)
    return None


def _whole(tree, at: dict[str, int]) -> int | None:
    """An exponent's exact value (whole numbers, names, sums and products of them)."""
    kind = tree[0]
    if kind == "num":
        return int(tree[1]) if tree[1].denominator == 1 else None
    if kind == "name":
        return at.get(tree[1])
    if kind in ("add", "mul") and len(tree[1]) <= 8:
        parts = [_whole(t, at) for t in tree[1]]
        if any(p is None or abs(p) > 10**6 for p in parts):
            return None
        out = 0 if kind == "add" else 1
        for p in parts:
            out = out + p if kind == "add" else out * p
        return out
    if kind == "neg":
        inner = _whole(tree[1], at)
        return None if inner is None else -inner
    return None


def last_digit_claims(step: str) -> list[LastDigit]:
    """Every last digit the step states of a formula of whole numbers (or of one name, "always")."""
    out = []
    text = _MATH.sub("", step).replace("\\cdot", "·").replace("\\times", "×")
    for sentence in re.split(r"(?<=[.;!?])\s+|\n", text):
        for m in _CLAIM.finditer(sentence):
            if _HYPOTHESIS.search(sentence[: m.start()]):
                continue
            expr = m.group("expr").strip()
            if not re.search(r"\d", expr) or re.search(r"[A-Za-z]{2,}", expr):
                continue
            try:
                tree, odd = parse(expr.replace("{", "(").replace("}", ")"))
            except MathParseError:
                continue
            free = sorted(names(tree))
            digit = int(m.group("digit"))
            said = f"the last digit of {to_text(tree)} is {'always ' if m.group('always') else ''}{digit}"
            if odd or len(free) > 1 or free and not m.group("always"):
                continue
            points = [{free[0]: k} for k in range(1, N_SMALL + 1)] if free else [{}]
            verdict = None
            for at in points:
                got = _mod10(tree, at)
                if got is None:
                    verdict = None
                    break
                if got != digit:
                    where = f" at {free[0]} = {at[free[0]]}" if free else ""
                    verdict = (False, f"{said} is false: it is {got}{where}")
                    break
                verdict = (True, f"{said} is true" + (f" (at {free[0]} = 1..{N_SMALL})" if free else ""))
            if verdict is not None:
                out.append(LastDigit(said, *verdict))
    return out
