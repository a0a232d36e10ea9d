"""Comparing values at the precision a solution writes them.

A side written with d decimals may be the value rounded or cut to d decimals; a side computed
from written decimals (a rounded value used again) may be off by what moving each of them one
unit in its last digit changes; ``≈`` allows one unit of the last written digit, or 1% when no
side is a bare number; approximate (irrational) values are equal to :data:`TOL_DIGITS` digits.
"""

from __future__ import annotations

from fractions import Fraction

import mpmath

from accord.mathcheck.reading._evaluate import EvaluationError, NotExact, approx, exact
from accord.mathcheck.reading._parser import children

TOL_DIGITS = 30  # approximate values equal to this many digits count as equal


def value_of(tree, look):
    """Exact when possible, else to the working precision of mpmath."""
    try:
        return exact(tree, look)
    except NotExact:
        return approx(tree, look)


def show(v) -> str:
    """A value for a reason: an integer, a terminating decimal, or a fraction with its decimal value."""
    if not isinstance(v, Fraction):
        return mpmath.nstr(v, 12)
    if max(v.numerator.bit_length(), v.denominator.bit_length()) > 100:  # over 30 digits
        if v.denominator == 1:
            return f"{mpmath.nstr(as_mp(v), 8)} (a {len(str(abs(v.numerator)))}-digit number)"
        return mpmath.nstr(as_mp(v), 12)
    if v.denominator == 1:
        return str(v.numerator)
    d = v.denominator
    for p in (2, 5):
        while d % p == 0:
            d //= p
    return mpmath.nstr(as_mp(v), 15) if d == 1 else f"{v.numerator}/{v.denominator} (≈ {mpmath.nstr(as_mp(v), 8)})"


def written_decimals(tree) -> int:
    """Decimals of a side written as a plain decimal number (0 otherwise)."""
    if tree[0] == "neg":
        tree = tree[1]
    return tree[2] if tree[0] == "num" else 0


def as_mp(v):
    return mpmath.mpf(v.numerator) / v.denominator if isinstance(v, Fraction) else mpmath.mpf(v)


def nearly_equal(a, b, digits: int = TOL_DIGITS) -> bool | None:
    """Equal (True), different (False) or too close to tell (None) for approximate values."""
    a, b = as_mp(a), as_mp(b)
    scale = max(mpmath.mpf(1), abs(a), abs(b))
    d = abs(a - b) / scale
    if d <= mpmath.mpf(10) ** (-digits):
        return True
    if d > mpmath.mpf(10) ** (-(digits // 2)):
        return False
    return None


def approximately(a, b, ta, tb) -> bool:
    """``a ≈ b``: within one unit of the last written decimal of a bare-number side (``≈ 3.14``
    allows 0.01), or of the last non-zero digit of an integer side (``≈ 1000`` allows 1000), or
    within 1% when neither side is a bare number."""
    tol = None
    for tree in (ta, tb):
        t = tree[1] if tree[0] == "neg" else tree
        if t[0] == "num":
            if t[2] > 0:
                unit = Fraction(1, 10 ** t[2])
            else:
                n, zeros = t[1].numerator, 0
                while n and n % 10 == 0:
                    n, zeros = n // 10, zeros + 1
                unit = Fraction(10**zeros)
            tol = unit if tol is None else max(tol, unit)
    fa, fb = as_mp(a), as_mp(b)
    if tol is None:
        return abs(fa - fb) <= mpmath.mpf("0.01") * max(abs(fa), abs(fb))
    return abs(fa - fb) <= as_mp(tol)


def literal_decimals(tree) -> int:
    """The most decimals of any number written in a tree."""
    if tree[0] == "num":
        return tree[2]
    if tree[0] == "name":
        return 0
    return max((literal_decimals(c) for c in children(tree)), default=0)


def nudged(tree, sign: int):
    """The tree with every written decimal moved by one unit of its last digit."""
    if tree[0] == "num":
        return ("num", tree[1] + sign * Fraction(1, 10 ** tree[2]), tree[2]) if tree[2] else tree
    if tree[0] == "name":
        return tree
    if tree[0] in ("add", "mul"):
        return (tree[0], tuple(nudged(c, sign) for c in tree[1]))
    if tree[0] in ("call", "apply"):
        return (tree[0], tree[1], tuple(nudged(c, sign) for c in tree[2]))
    return (tree[0],) + tuple(nudged(c, sign) for c in tree[1:])


def rounded_or_cut(v, d: int):
    x = as_mp(v) * 10**d
    return {Fraction(int(mpmath.nint(x)), 10**d), Fraction(int(x), 10**d)}


def written_precision(ta, tb, va, vb, look) -> bool:
    """Equal at the precision the solution wrote: a bare decimal side is the other side rounded or
    cut to its decimals; a side computed from written decimals (2.923, a rounded value) may be off
    by what moving each of them one unit in its last digit changes."""
    for t, other, v in ((ta, vb, va), (tb, va, vb)):
        d = written_decimals(t)
        if d and isinstance(v, Fraction) and v in rounded_or_cut(other, d):
            return True
    inner = [t for t in (ta, tb) if literal_decimals(t) and not written_decimals(t)]  # decimals inside an expression
    if look is None or not inner:
        return False
    spans = []
    for t, v in ((ta, va), (tb, vb)):
        vals = [as_mp(v)]
        for sign in (-1, 1):
            try:
                vals.append(as_mp(value_of(nudged(t, sign), look)))
            except (EvaluationError, ArithmeticError, ValueError):
                return False
        spans.append((min(vals), max(vals)))
    (lo_a, hi_a), (lo_b, hi_b) = spans
    return lo_a <= hi_b and lo_b <= hi_a


def compare(rel: str, a, b, ta, tb, modulus, look=None) -> bool | None:
    if rel == "≈":
        return approximately(a, b, ta, tb)
    if rel == "≡":
        if modulus is None or not all(isinstance(v, Fraction) and v.denominator == 1 for v in (a, b, modulus)):
            return None
        return modulus != 0 and (a - b) % modulus == 0
    exact_pair = isinstance(a, Fraction) and isinstance(b, Fraction)
    if rel in ("=", "≠"):
        if exact_pair:
            eq = a == b
        else:
            eq = nearly_equal(a, b)
            if eq is None:
                return None
        if not eq and written_precision(ta, tb, a, b, look):
            eq = True
        return eq if rel == "=" else not eq
    if not exact_pair and nearly_equal(a, b) is not False:
        return None  # an inequality between (nearly) equal approximations: not decided
    fa, fb = (a, b) if exact_pair else (as_mp(a), as_mp(b))
    return {"<": fa < fb, "≤": fa <= fb, ">": fa > fb, "≥": fa >= fb}[rel]
