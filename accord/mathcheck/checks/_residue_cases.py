"""Congruences claimed within a residue case: "For y ≡ 6 (mod 8), we have y(y + 1) ≡ 0 (mod 8)."

Alone, ``y(y + 1) ≡ 0 (mod 8)`` states something about y and is not checked; within the case the
step names, it is a claim for every y in that residue class. It is evaluated exactly at the first
values of the class (y = 6, 14, 22, ...): valid when it holds at all of them, false with the first
value where it fails (6·7 = 42 is 2 modulo 8). Only a congruence in the case's name alone is read
this way.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from fractions import Fraction

from accord.mathcheck.reading import EvaluationError, Unknown, names, to_text, value_of

N_VALUES = 24
_MOD = r"\(?\s*(?:\\pmod\s*\{?\s*|\\bmod\s*\{?\s*|\\mod\s*\{?\s*|mod\s*)(\d+)"
_CASE = re.compile(
    r"\b(?:for|if|when|suppose|assume|assuming)\s+(?:that\s+)?\$?(?:\\\()?\s*([A-Za-z])\s*(?:≡|\\equiv)\s*(-?\d+)\s*"
    + _MOD,
    re.IGNORECASE,
)
_BARE = re.compile(r"(?<![\w^*+\-/(])(?<![\^*+\-/(]\s)([A-Za-z])\s*(?:≡|\\equiv)\s*(-?\d+)\s*" + _MOD)


@dataclass(frozen=True)
class ResidueCase:
    """The step's case: ``name`` ≡ ``residue`` (mod ``modulus``)."""

    name: str
    residue: int
    modulus: int


def residue_case(step: str) -> ResidueCase | None:
    """The one residue case a step opens with ("For x ≡ 1 (mod 4), ..."), or None."""
    found = set(_CASE.findall(step))
    if len(found) != 1:
        return None
    name, residue, modulus = found.pop()
    if {(n, r, m) for n, r, m in _BARE.findall(step) if n == name} != {(name, residue, modulus)}:
        return None  # "x ≡ 1 (mod 4) and x ≡ 2 (mod 4)": not one class
    return ResidueCase(name, int(residue), int(modulus)) if int(modulus) > 1 else None


def within_case(ta, tb, modulus_tree, case: ResidueCase) -> tuple[bool, str] | None:
    """(holds, why) of ``ta ≡ tb (mod modulus)`` for every value of the case's class; None when the
    congruence is the case itself, or is not in the case's name alone."""
    used = names(ta) | names(tb) | names(modulus_tree)
    if used != {case.name} or ta == ("name", case.name) and not names(tb):
        return None
    shown = f"{to_text(ta)} ≡ {to_text(tb)} (mod {to_text(modulus_tree)})"
    for k in range(N_VALUES):
        v = case.residue % case.modulus + case.modulus * k
        look = {case.name: Fraction(v)}.__getitem__
        try:
            a, b, m = (value_of(t, look) for t in (ta, tb, modulus_tree))
        except (Unknown, EvaluationError, ArithmeticError, ValueError, TypeError, KeyError):
            return None
        if not all(isinstance(x, Fraction) and x.denominator == 1 for x in (a, b, m)) or m == 0:
            return None
        if (a - b) % m:
            return False, (
                f"{shown} fails for {case.name} ≡ {case.residue} (mod {case.modulus}): at {case.name} = {v} the "
                f"left side is {a}, which is {a % m} modulo {m}, and the right side {b} is {b % m}"
            )
    where = f"{case.name} ≡ {case.residue} (mod {case.modulus})"
    return True, f"{shown} holds for every {where} (checked at {N_VALUES} values)"
