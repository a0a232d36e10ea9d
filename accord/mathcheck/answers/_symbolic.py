"""From sympy to answer values: the sympy side of answer parsing, run in a time-limited worker.

Expression leaves and LaTeX are read by the math package's one parsing layer
(:mod:`accord.mathcheck.reading._sympy_text`: sympy's parser with answer names; math-verify for LaTeX);
here the sympy object becomes a :mod:`~accord.mathcheck.answers._forms` value: exact rationals
stay exact, irrationals are evaluated to 40 digits, and an expression in free symbols is evaluated
exactly at fixed sample points of its symbols (n, N in 7..14, every other name in 2..6, the same
values for the same name in every answer), so ``factorial(n - 1)/2`` and ``n!/(2n)`` agree at every
point and ``n! - 1`` and ``n!`` at none. The caller runs these functions through
:func:`accord.mathcheck.reading._limited.run_limited`.
"""

from __future__ import annotations

import random
from decimal import Decimal
from fractions import Fraction

import sympy as sp

from accord.mathcheck.answers._forms import (
    COMPUTED,
    EXACT,
    WRITTEN,
    Assignment,
    Collection,
    Expression,
    Keyword,
    Number,
    Relation,
    Value,
)
from accord.mathcheck.reading import LATEX, AnswerConfig, extract, parse_sympy, same

BIG_SYMBOLS = frozenset({"n", "N"})
DIGITS = 40


def sample_value(name: str, k: int) -> int:
    """The value of symbol ``name`` at sample point k: distinct across points, the same in every
    process and answer (n and N in 7..14, so that binomial(n, k) is rarely zero; others in 2..9)."""
    pool = list(range(7, 15) if name in BIG_SYMBOLS else range(2, 10))
    random.Random(name).shuffle(pool)
    return pool[k % len(pool)]


def _fraction(x) -> Fraction:
    return Fraction(int(x.p), int(x.q))


def number_of(x) -> Number | None:
    """A constant sympy number as a :class:`Number` (None when undefined or not real)."""
    if x is sp.oo or x is sp.S.Infinity:
        return Number(Fraction(0), EXACT, infinite=1)
    if x is sp.S.NegativeInfinity:
        return Number(Fraction(0), EXACT, infinite=-1)
    if x.is_Rational:
        return Number(_fraction(x))
    if isinstance(x, sp.Float):
        digits = str(x).lower().partition("e")
        mant = digits[0].rstrip("0")
        whole, _, frac = mant.lstrip("-").partition(".")
        exp = int(digits[2]) if digits[2] else 0
        return Number(Fraction(Decimal(str(x))), WRITTEN, len(frac) - exp, len((whole + frac).lstrip("0")) or 1)
    if x.has(sp.zoo, sp.nan) or not x.is_number:
        return None
    v = x.evalf(DIGITS)
    if not v.is_real or not v.is_finite:
        return None
    if v.is_Rational:
        return Number(_fraction(v))
    return Number(Fraction(Decimal(str(v))), COMPUTED)


def _at_point(expr, k: int) -> Number | None:
    values = {s: sp.Integer(sample_value(s.name, k)) for s in expr.free_symbols}
    try:
        v = expr.xreplace(values).doit()
        return number_of(v) if v.is_number else None
    except (ArithmeticError, TypeError, ValueError, AttributeError, RecursionError):
        return None


def to_value(obj, points: int) -> Value | None:
    """A sympy result (number, expression, set, tuple, interval, equation, relation) as a value."""
    if isinstance(obj, (list, tuple, sp.Tuple)):
        items = [to_value(x, points) for x in obj]
        return (
            None
            if any(i is None for i in items)
            else Collection("tuple" if not isinstance(obj, list) else "list", tuple(items))
        )
    if isinstance(obj, (set, frozenset, sp.FiniteSet)):
        items = [to_value(x, points) for x in obj]
        return None if any(i is None for i in items) else Collection("set", tuple(items))
    if obj is sp.S.EmptySet:
        return Keyword("no")
    if obj is sp.true or obj is True:
        return Keyword("yes")
    if obj is sp.false or obj is False:
        return Keyword("no")
    if isinstance(obj, sp.Interval):
        ends = [to_value(obj.start, points), to_value(obj.end, points)]
        return None if None in ends else Collection("interval", tuple(ends), (not obj.left_open, not obj.right_open))
    if isinstance(obj, sp.Eq):
        if isinstance(obj.lhs, sp.Symbol):
            v = to_value(obj.rhs, points)
            if isinstance(v, Collection) and v.kind == "set":  # x = \pm 3: x = 3 and x = -3
                return Collection("set", tuple(Assignment(((obj.lhs.name, item),)) for item in v.items))
            return None if v is None else Assignment(((obj.lhs.name, v),))
        return _relation("=", obj.rhs - obj.lhs, points)
    if isinstance(obj, sp.And) and all(isinstance(a, sp.Eq) for a in obj.args):
        pairs: dict[str, Value] = {}
        for a in obj.args:  # x = y = 0 reads as Eq(x, y) & Eq(y, 0)
            for side in (a.lhs, a.rhs):
                if not isinstance(side, sp.Symbol):
                    value = to_value(side, points)
                    for other in (a.lhs, a.rhs):
                        if isinstance(other, sp.Symbol) and value is not None:
                            pairs[other.name] = value
        return Assignment(tuple(sorted(pairs.items()))) if pairs else None
    if isinstance(obj, sp.Ne):
        return _relation("!=", obj.rhs - obj.lhs, points)
    if isinstance(obj, (sp.StrictLessThan, sp.LessThan)):
        return _relation("<" if isinstance(obj, sp.StrictLessThan) else "<=", obj.rhs - obj.lhs, points)
    if isinstance(obj, (sp.StrictGreaterThan, sp.GreaterThan)):
        return _relation("<" if isinstance(obj, sp.StrictGreaterThan) else "<=", obj.lhs - obj.rhs, points)
    if not isinstance(obj, sp.Basic) or not isinstance(obj, sp.Expr):
        return None
    if not obj.free_symbols:
        return number_of(obj)
    values = tuple(_at_point(obj, k) for k in range(points))
    return Expression(values, frozenset(s.name for s in obj.free_symbols), sp.srepr(obj), written_factors(obj))


def written_factors(expr) -> tuple[tuple[str, str], ...]:
    """The factors ``expr`` is written as, with their exponents: products and integer powers are
    opened, constants dropped, each factor made primitive with a positive leading coefficient, so
    ``2(x-1)(x+1)``, ``(2x-2)(x+1)`` and ``-(1-x)(x+1)`` agree while ``(x-1)(x^2-1)`` has other
    factors than ``(x-1)^2 (x+1)``."""
    counts: dict[str, sp.Expr] = {}

    def add(f, e) -> None:
        if f.is_number:
            return
        if isinstance(f, sp.Mul):
            for a in f.args:
                add(a, e)
            return
        if isinstance(f, sp.Pow) and f.exp.is_Integer:
            add(f.base, e * f.exp)
            return
        key = _primitive(f)
        counts[key] = counts.get(key, sp.Integer(0)) + e

    add(expr.xreplace({s: sp.Symbol(s.name) for s in expr.free_symbols}), sp.Integer(1))  # math-verify's x is real
    return tuple(sorted((k, str(e)) for k, e in counts.items() if e != 0))


def _primitive(f) -> str:
    """srepr of a polynomial factor without its content and with a positive leading coefficient
    (srepr of the factor itself where it is not a polynomial)."""
    try:
        _, poly = sp.Poly(f, *sorted(f.free_symbols, key=str)).primitive()
        if poly.LC() < 0:
            poly = -poly
        return sp.srepr(poly.as_expr())
    except Exception:  # sympy raises several kinds of error on expressions that are not polynomials
        return sp.srepr(f)


def _relation(op: str, difference, points: int) -> Value | None:
    value = to_value(difference, points)
    return None if value is None else Relation(op, value)


def read_leaves(texts: tuple[str, ...], config: AnswerConfig) -> tuple[Value | None, ...]:
    """Each plain-text expression as a value (None where sympy cannot read it)."""
    out = []
    for t in texts:
        try:
            out.append(to_value(parse_sympy(t, config), config.sample_points))
        except Exception:  # sympy's parser raises many kinds of error on text it cannot read
            out.append(None)
    return tuple(out)


def read_latex(text: str, config: AnswerConfig) -> Value | None:
    """The value math-verify's LaTeX extraction finds in ``text`` (a sentence, $...$, \\boxed{})."""
    try:
        found = extract(text, LATEX) or extract(f"${text}$", LATEX)
    except Exception:  # math-verify raises on some malformed LaTeX: then the answer is not LaTeX math
        return None
    for obj in found:
        if not isinstance(obj, str):
            return to_value(obj, config.sample_points)
    return None


def verify_sources(gold: str, answer: str) -> bool:
    """math-verify's verdict on two expressions given as sympy srepr (when sample points cannot decide)."""
    return same(sp.sympify(gold), sp.sympify(answer))
