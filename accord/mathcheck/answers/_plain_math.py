"""The structure of a plain-text mathematical answer, read without sympy.

Splits an answer into the values it lists and leaves each single expression as a
:class:`Pending` leaf for :mod:`accord.mathcheck.answers._symbolic` (numbers are read here, at
once). Structure rules:

- ``a; b`` and ``a, b`` / ``a and b`` / ``a or b``: a list (matches a set or a tuple);
- ``{a, b}`` a set (``{}`` is the empty set: "no"), ``(a, b)`` a tuple, ``[a, b]`` / ``(a, b]``
  an interval, ``[a, b, c]`` a list;
- equations ``x=1, y=2`` / ``(x=1, y=2)`` / ``x=y=0`` give one solution; a repeated name starts
  the next (``x=1, y=1 and x=3, y=2`` is two solutions);
- ``a < x <= b`` and ``x > a`` are intervals in x; other relations keep their difference;
- an expression is accepted only if every name in it is a known function or constant, a single
  letter (with an optional subscript, ``x_1``, ``H_n``) or a two-letter product (``xy``); this is
  also what keeps sympy's parser away from anything but arithmetic.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from fractions import Fraction

from accord.mathcheck.answers._forms import EXACT, WRITTEN, Assignment, Collection, Keyword, Number, Relation, Value
from accord.mathcheck.reading import ANSWER_CONSTANTS, ANSWER_FUNCTIONS, ANSWER_GREEK, ANSWER_STOPWORDS

_ALLOWED = re.compile(r"[0-9A-Za-z_\s+\-*/^().,{}\[\]!=<>|;]*")
_NAME = re.compile(r"[A-Za-z](?:_\{?[A-Za-z0-9]+\}?)?|" + "|".join(sorted(ANSWER_GREEK, key=len, reverse=True)))
_WORD = re.compile(r"(?<![0-9.])[A-Za-z]+")
_ATTRIBUTE = re.compile(r"[A-Za-z_)\]]\s*\.|__")
_RELATION = re.compile(r"<=|>=|!=|==|=|<|>")
_NUMBER = re.compile(r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?")
_FRACTION = re.compile(r"([-+]?\d+)\s*/\s*(\d+)")
_THOUSANDS = re.compile(r"[-+]?\d{1,3}(?:,\d{3})+(?:\.\d+)?")
LIST_SEPARATORS = r",\s*(?:and|or)\s+|,|\s+and\s+|\s+or\s+"


@dataclass(frozen=True)
class Pending:
    """A single expression still to be read by sympy."""

    text: str


def read_number(text: str) -> Number | None:
    """A plain number (integer, decimal, fraction, scientific, thousands separators), else None."""
    t = text.strip()
    if _THOUSANDS.fullmatch(t):
        t = t.replace(",", "")
    m = _FRACTION.fullmatch(t)
    if m:
        den = int(m.group(2))
        return Number(Fraction(int(m.group(1)), den)) if den else None
    if not _NUMBER.fullmatch(t):
        return None
    mant, _, exp = t.lower().partition("e")
    if "." not in mant and not exp:
        return Number(Fraction(int(mant)))
    try:
        value = Fraction(t)
    except (ValueError, ZeroDivisionError):
        return None
    if "." not in mant:  # 3e5: an exact integer power of ten
        return Number(value)
    digits = mant.lstrip("+-").rstrip("0")
    whole, _, frac = digits.partition(".")
    decimals = len(frac) - (int(exp) if exp else 0)
    significant = len((whole + frac).lstrip("0")) or 1
    return Number(value, WRITTEN, decimals, significant)


def closing(text: str, start: int) -> int:
    """Index of the bracket closing the one at ``start`` (any of ( [ { against ) ] }), or -1."""
    depth = 0
    for i in range(start, len(text)):
        c = text[i]
        if c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
            if depth == 0:
                return i
    return -1


def split_outside_brackets(text: str, pattern: re.Pattern) -> tuple[list[str], list[str]]:
    """``text`` split where ``pattern`` matches and no bracket is open: the parts and the separators."""
    parts, seps, depth, last, i = [], [], 0, 0, 0
    while i < len(text):
        c = text[i]
        if c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
        elif depth == 0:
            m = pattern.match(text, i)
            if m and m.end() > i:
                parts.append(text[last:i].strip())
                seps.append(m.group())
                last = i = m.end()
                continue
        i += 1
    parts.append(text[last:].strip())
    return parts, seps


def split_top(text: str, separators: str) -> list[str]:
    """``text`` split on the separator pattern where no bracket is open."""
    return split_outside_brackets(text, re.compile(separators))[0]


def names_allowed(text: str) -> bool:
    """Every name is a known function or constant, a single letter (with subscript) or a 2-letter product."""
    if _ATTRIBUTE.search(re.sub(r"\d\.\d|\d\.(?!\w)", "0", text)):
        return False
    for w in _WORD.findall(re.sub(r"_\{?[A-Za-z0-9]+\}?", "", text)):
        if len(w) == 1 or w in ANSWER_FUNCTIONS or w in ANSWER_CONSTANTS or w in ANSWER_GREEK:
            continue
        if len(w) == 2 and w.lower() not in ANSWER_STOPWORDS:
            continue
        return False
    return True


def is_name(text: str) -> bool:
    return bool(_NAME.fullmatch(text.strip()))


def _group(items: list, kind: str) -> Value | None:
    """Equations in a list become solutions (a repeated name starts the next); else a collection."""
    if any(i is None for i in items):
        return None
    assigned = [isinstance(i, Assignment) for i in items]
    if not any(assigned):
        return Collection(kind, tuple(items))
    if not all(assigned):
        return None
    solutions: list[Assignment] = []
    for a in items:
        if solutions and not (solutions[-1].names & a.names):
            solutions[-1] = Assignment(solutions[-1].pairs + a.pairs)
        else:
            solutions.append(a)
    return solutions[0] if len(solutions) == 1 else Collection("set", tuple(solutions))


def _relation(parts: list[str], ops: list[str]):
    """Equations, relations and intervals from ``p0 op0 p1 op1 p2 ...``."""
    if all(op in ("=", "==") for op in ops):
        *names, rhs = parts
        if all(is_name(n) for n in names):
            value = read_structure(rhs)
            return None if value is None else Assignment(tuple((n.strip(), value) for n in names))
        if len(parts) == 2:
            return _difference("=", parts[1], parts[0])
        return None
    flip = {"<": ">", "<=": ">=", ">": "<", ">=": "<="}
    if len(parts) == 3 and ops[0] in flip and ops[1] in flip and is_name(parts[1]):
        lo, hi, (op_lo, op_hi) = parts[0], parts[2], ops
        if op_lo in (">", ">="):  # b > x > a
            if op_hi not in (">", ">="):
                return None
            lo, hi, op_lo, op_hi = hi, lo, flip[op_hi], flip[op_lo]
        elif op_hi not in ("<", "<="):
            return None
        a, b = read_structure(lo), read_structure(hi)
        if a is None or b is None:
            return None
        return Collection("interval", (a, b), (op_lo == "<=", op_hi == "<="))
    if len(parts) != 2:
        return None
    lhs, rhs = parts
    op = ops[0]
    if op == "!=":
        return _difference("!=", rhs, lhs)
    if op not in flip:
        return None
    if op in (">", ">="):
        lhs, rhs, op = rhs, lhs, flip[op]
    # now lhs op rhs with op in <, <=: a bound on one name is an interval
    inf = Number(Fraction(0), EXACT, infinite=1)
    if is_name(rhs) and lhs.strip() not in rhs:
        bound = read_structure(lhs)
        return None if bound is None else Collection("interval", (bound, inf), (op == "<=", False))
    if is_name(lhs) and rhs.strip() not in lhs:
        bound = read_structure(rhs)
        return (
            None if bound is None else Collection("interval", (replace(inf, infinite=-1), bound), (False, op == "<="))
        )
    return _difference(op, rhs, lhs)


def _difference(op: str, rhs: str, lhs: str) -> Relation | None:
    if not (names_allowed(rhs) and names_allowed(lhs)) or not rhs or not lhs:
        return None
    return Relation(op, Pending(f"({rhs}) - ({lhs})"))


def read_structure(text: str):
    """The value tree of a plain-text answer, with :class:`Pending` leaves; None if it is not math."""
    t = text.strip()
    if not t:
        return None
    number = read_number(t)
    if number is not None:
        return number
    if not _ALLOWED.fullmatch(t):
        return None
    parts = split_top(t, r";")
    if len(parts) > 1:
        return _group([read_structure(p) for p in parts if p], "list")
    parts = split_top(t, LIST_SEPARATORS)
    if len(parts) > 1:
        return _group([read_structure(p) for p in parts], "list")
    if t[0] in "([{" and closing(t, 0) == len(t) - 1:
        inner = t[1:-1].strip()
        if t[0] == "{":
            if not inner:
                return Keyword("no")
            return _group([read_structure(p) for p in split_top(inner, r",|;")], "set")
        items = split_top(inner, r",")
        parenthesised = t[0] == "(" and t[-1] == ")"
        if len(items) == 1:
            return read_structure(inner) if parenthesised else _group([read_structure(inner)], "list")
        values = [read_structure(p) for p in items]
        if any(v is None for v in values):
            return None
        if len(values) == 2 and not parenthesised and not any(isinstance(v, Assignment) for v in values):
            return Collection("interval", tuple(values), (t[0] == "[", t[-1] == "]"))
        return _group(values, "tuple" if parenthesised else "list")
    parts, ops = split_relations(t)
    if ops:
        return _relation(parts, ops)
    return Pending(t) if names_allowed(t) else None


def split_relations(text: str) -> tuple[list[str], list[str]]:
    """``text`` split on the relation signs (<=, >=, !=, ==, =, <, >) outside brackets, and the signs."""
    return split_outside_brackets(text, _RELATION)
