"""Evaluate an expression tree (:mod:`accord.mathcheck.reading._parser`): exactly, or to many digits.

Pure Python (fractions, and mpmath for irrational values), with a size guard that refuses a power,
factorial or binomial whose value would have more than :data:`MAX_BITS` bits *before* computing
it (``2^2^2^2^2^2^2``, ``1000000!``), so one claim costs bounded time and memory.

``exact(tree, env)`` gives a :class:`~fractions.Fraction` or raises :class:`NotExact` (an irrational
value: ``approx`` then gives it to :data:`DIGITS` digits), :class:`Unknown` (a name without a
value), :class:`TooLarge` or :class:`Undefined` (division by zero, ``sqrt(-1)``, ``gcd(1/2, 3)``).
``env`` maps names, and applied functions written ``f(3)``, to values.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from fractions import Fraction
from functools import lru_cache

import mpmath

from accord.mathcheck.reading._parser import children, to_text

MAX_BITS = 1 << 17  # about 39,000 decimal digits
DIGITS = 50


class EvaluationError(Exception):
    """Why an expression has no value here (the message says so)."""


class NotExact(EvaluationError):
    """The value is irrational (or needs a transcendental function): use :func:`approx`."""


class Unknown(EvaluationError):
    """A name (or applied function) without a value; ``key`` names it."""

    def __init__(self, key: str):
        super().__init__(f"{key} has no value")
        self.key = key


class TooLarge(EvaluationError):
    """Refused before evaluation: the value would be too large to compute."""


class Undefined(EvaluationError):
    """Division by zero, an even root of a negative number, and the like."""


def bits(v: Fraction) -> int:
    return max(v.numerator.bit_length(), v.denominator.bit_length())


def _digits(nbits: int | float) -> str:
    """``nbits`` (any size) as a number of decimal digits, in words."""
    if nbits < 1e15:
        return f"about {nbits * math.log10(2):,.0f} digits"
    return f"more than 10^{math.log10(nbits) + math.log10(math.log10(2)):.0f} digits"


def _refuse(tree, nbits: int | float) -> TooLarge:
    text = to_text(tree)
    text = text if len(text) <= 40 else text[:37] + "..."
    return TooLarge(f"refused to evaluate {text}: its value would have {_digits(nbits)} (limit {_digits(MAX_BITS)})")


def key(name: str, args: tuple) -> str:
    """How an applied function's value is named in an environment: ``f(3)``, ``a_2(1, 2)``."""
    return f"{name}({', '.join(_fmt(a) for a in args)})"


def _fmt(v) -> str:
    if isinstance(v, Fraction):
        return str(v.numerator) if v.denominator == 1 else f"{v.numerator}/{v.denominator}"
    return mpmath.nstr(v, 12)


def _iroot(n: int, k: int) -> int | None:
    """The exact k-th root of n >= 0, or None."""
    if n < 2:
        return n
    r = round(n ** (1.0 / k)) if n.bit_length() < 1000 else int(mpmath.root(n, k))
    for c in (r - 1, r, r + 1):
        if c >= 0 and c**k == n:
            return c
    lo, hi = 0, 1 << (n.bit_length() // k + 1)
    while lo < hi:
        mid = (lo + hi) // 2
        if mid**k < n:
            lo = mid + 1
        else:
            hi = mid
    return lo if lo**k == n else None


def _exact_root(v: Fraction, k: int) -> Fraction:
    if v < 0:
        if k % 2 == 0:
            raise Undefined(f"even root of the negative number {_fmt(v)}")
        return -_exact_root(-v, k)
    n, d = _iroot(v.numerator, k), _iroot(v.denominator, k)
    if n is None or d is None:
        raise NotExact("irrational root")
    return Fraction(n, d)


def _integer(v: Fraction, what: str) -> int:
    if v.denominator != 1:
        raise Undefined(f"{what} of the non-integer {_fmt(v)}")
    return v.numerator


def _power(tree, b: Fraction, e: Fraction) -> Fraction:
    if e.denominator == 1:
        n = e.numerator
        if b == 0 and n < 0:
            raise Undefined("division by zero (0 to a negative power)")
        if b in (0, 1) or n == 0:
            return Fraction(1) if n == 0 else b
        if b == -1:
            return Fraction(-1 if n % 2 else 1)
        if abs(n) > MAX_BITS or bits(b) * abs(n) > MAX_BITS:
            raise _refuse(tree, bits(b) * abs(n))
        return b**n
    if e.denominator > 64 or bits(e) > 64:
        raise NotExact("a power with a large fractional exponent")
    root = _exact_root(b, e.denominator)
    return _power(tree, root, Fraction(e.numerator))


def _factorial(tree, n: int) -> int:
    if n < 0:
        raise Undefined(f"factorial of the negative number {n}")
    if n > 1 and n * math.log2(n) - n * 1.4427 > MAX_BITS:
        raise _refuse(tree, n * math.log2(n) - n * 1.4427)
    return math.factorial(n)


def _binom(tree, n: int, k: int) -> int:
    if k < 0 or (n >= 0 and k > n):
        return 0
    if n < 0:
        raise Undefined("binomial coefficient of a negative number")
    if n > MAX_BITS and min(k, n - k) > 1:
        raise _refuse(tree, float(n))
    return math.comb(n, k)


Lookup = Callable[[str], object]  # a name or an applied-function key -> value (raises Unknown)


def env_lookup(env: Mapping[str, object]) -> Lookup:
    def look(k: str):
        try:
            return env[k]
        except KeyError:
            raise Unknown(k) from None

    return look


def exact(tree, look: Lookup) -> Fraction:
    kind = tree[0]
    if kind == "num":
        return tree[1]
    if kind == "name":
        if tree[1] == "pi":
            raise NotExact("pi")
        v = look(tree[1])
        if not isinstance(v, Fraction):
            raise NotExact(f"{tree[1]} is irrational")
        return v
    if kind == "add":
        return sum((exact(t, look) for t in tree[1]), Fraction(0))
    if kind == "mul":
        out = Fraction(1)
        for f in tree[1]:
            out *= exact(f, look)
            if bits(out) > MAX_BITS:
                raise _refuse(tree, bits(out))
        return out
    if kind == "neg":
        return -exact(tree[1], look)
    if kind == "div":
        a, b = exact(tree[1], look), exact(tree[2], look)
        if b == 0:
            raise Undefined("division by zero")
        return a / b
    if kind == "pow":
        return _power(tree, exact(tree[1], look), exact(tree[2], look))
    if kind == "fact":
        return Fraction(_factorial(tree, _integer(exact(tree[1], look), "factorial")))
    if kind == "abs":
        return abs(exact(tree[1], look))
    if kind == "mod":
        a = _integer(exact(tree[1], look), "mod")
        n = _integer(exact(tree[2], look), "mod")
        if n == 0:
            raise Undefined("mod 0")
        return Fraction(a % n)
    if kind == "apply":
        args = tuple(exact(a, look) for a in tree[2])
        v = look(key(tree[1], args))
        if not isinstance(v, Fraction):
            raise NotExact("irrational value")
        return v
    if kind == "sigma":
        return _big(tree, look, exact, Fraction)
    if kind == "lim":
        v = _limit(tree, look)
        if not v.is_Rational:
            raise NotExact("an irrational limit")
        return Fraction(int(v.p), int(v.q))
    return _exact_call(tree, look)


def _closed(tree) -> None:
    """A limit's size guard: a closed power, factorial or binomial too large to build is refused
    (TooLarge); one that is not closed or not exact is left to sympy."""
    try:
        exact(tree, env_lookup({}))
    except (Unknown, NotExact, Undefined, ZeroDivisionError):
        pass


def _limit(tree, look: Lookup):
    """The value of ``lim_{x→a} body`` from sympy (its other names take their values first);
    Undefined when the limit is infinite or does not exist."""
    import sympy as sp

    from accord.mathcheck.reading._sympy_tree import to_sympy

    _, var, point, body = tree
    expr = to_sympy(body, _closed)
    if expr.atoms(sp.core.function.AppliedUndef):
        raise Unknown(f"a function inside {to_text(tree)}")
    values = {}
    for sym in sorted(expr.free_symbols, key=str):
        if sym.name != var:
            v = look(sym.name)
            values[sym.name] = (v.numerator, v.denominator) if isinstance(v, Fraction) else str(v)
    if isinstance(point, str):
        at = point
    else:
        a = exact(point, look)
        at = (a.numerator, a.denominator)
    return _limit_value(body, var, at, tuple(sorted(values.items())))


@lru_cache(maxsize=256)
def _limit_value(body, var: str, at, values: tuple):
    import sympy as sp

    from accord.mathcheck.reading._sympy_tree import to_sympy

    subs = {sp.Symbol(k): sp.Rational(*v) if isinstance(v, tuple) else sp.Float(v, mpmath.mp.dps) for k, v in values}
    point = sp.oo if at == "oo" else -sp.oo if at == "-oo" else sp.Rational(*at)
    v = sp.limit(to_sympy(body, _closed).xreplace(subs), sp.Symbol(var), point)
    if not v.is_number or v.has(sp.oo, -sp.oo, sp.zoo, sp.nan) or isinstance(v, sp.AccumBounds) or not v.is_real:
        raise Undefined(f"the limit is {v} (infinite or does not exist)")
    return v


MAX_TERMS = 5000  # a finite sum or product is evaluated term by term, up to this many terms


def _big(tree, look: Lookup, value, one):
    """A finite sum or product, term by term (``value`` is :func:`exact` or :func:`approx`)."""
    op, var, lo_tree, hi_tree, body = tree[1:]
    lo = _integer(exact(lo_tree, look), "sum bound")
    hi = _integer(exact(hi_tree, look), "sum bound")
    if hi - lo + 1 > MAX_TERMS:
        raise TooLarge(f"refused to evaluate {to_text(tree)[:40]}: {hi - lo + 1} terms (limit {MAX_TERMS})")

    def inner(name: str):
        return Fraction(k) if name == var else look(name)

    out = one(0) if op == "sum" else one(1)
    for k in range(lo, hi + 1):  # an empty range (hi < lo) is the empty sum 0 or product 1
        term = value(body, inner)
        out = out + term if op == "sum" else out * term
        if isinstance(out, Fraction) and bits(out) > MAX_BITS:
            raise _refuse(tree, bits(out))
    return out


def _exact_call(tree, look: Lookup) -> Fraction:
    fn, args = tree[1], tree[2]
    if fn in ("exp", "sin", "cos", "tan", "cot", "sec", "csc", "ln"):
        vals = [exact(a, look) for a in args]
        if fn in ("sin", "tan") and vals[0] == 0 or fn == "ln" and vals[0] == 1:
            return Fraction(0)
        if fn in ("cos", "exp") and vals[0] == 0:
            return Fraction(1)
        raise NotExact(fn)
    vals = [exact(a, look) for a in args]
    if fn == "sqrt":
        return _exact_root(vals[0], 2)
    if fn == "root":
        return _exact_root(vals[0], _integer(vals[1], "root index"))
    if fn == "abs":
        return abs(vals[0])
    if fn == "floor":
        return Fraction(math.floor(vals[0]))
    if fn == "ceil":
        return Fraction(math.ceil(vals[0]))
    if fn in ("max", "min"):
        return max(vals) if fn == "max" else min(vals)
    if fn in ("gcd", "lcm"):
        ints = [_integer(v, fn) for v in vals]
        return Fraction(math.gcd(*ints) if fn == "gcd" else math.lcm(*ints))
    if fn == "binom":
        return Fraction(
            _binom(tree, _integer(vals[0], "binomial coefficient"), _integer(vals[1], "binomial coefficient"))
        )
    if fn == "factorial":
        return Fraction(_factorial(tree, _integer(vals[0], "factorial")))
    if fn == "log":
        x, base = vals[0], (vals[1] if len(vals) > 1 else None)
        if x <= 0 or base is not None and (base <= 0 or base == 1):
            raise Undefined("logarithm of a non-positive number")
        if x == 1:
            return Fraction(0)
        if base is not None:  # log_b(x) is rational when x is an integer power of b
            k = round(math.log(float(x)) / math.log(float(base))) if bits(x) < 1000 else None
            if k is not None and abs(k) <= MAX_BITS and bits(base) * abs(k) <= MAX_BITS and base**k == x:
                return Fraction(k)
        raise NotExact("logarithm")
    raise Undefined(f"unknown function {fn}")


_MP_FUNCS = {
    "exp": mpmath.exp,
    "ln": mpmath.log,
    "sin": mpmath.sin,
    "cos": mpmath.cos,
    "tan": mpmath.tan,
    "cot": mpmath.cot,
    "sec": mpmath.sec,
    "csc": mpmath.csc,
}


def _mp(v) -> mpmath.mpf:
    if isinstance(v, Fraction):
        return mpmath.mpf(v.numerator) / v.denominator
    return mpmath.mpf(v)


def approx(tree, look: Lookup, log_base: int | None = None) -> mpmath.mpf:
    """The value to the working precision of mpmath (set by the caller); exact parts stay exact.

    A bare ``log`` is the natural logarithm, or base ``log_base`` when given.
    """
    try:
        return _mp(exact(tree, look))
    except NotExact:
        pass
    kind = tree[0]
    if kind == "name":
        return mpmath.pi if tree[1] == "pi" else _mp(look(tree[1]))
    if kind == "add":
        return mpmath.fsum(approx(t, look, log_base) for t in tree[1])
    if kind == "mul":
        return mpmath.fprod(approx(f, look, log_base) for f in tree[1])
    if kind == "neg":
        return -approx(tree[1], look, log_base)
    if kind == "div":
        b = approx(tree[2], look, log_base)
        if b == 0:
            raise Undefined("division by zero")
        return approx(tree[1], look, log_base) / b
    if kind == "pow":
        b, e = approx(tree[1], look, log_base), approx(tree[2], look, log_base)
        if b < 0 and e != int(e):
            raise Undefined("a fractional power of a negative number")
        if b == 0 and e <= 0:
            raise Undefined("0 to a non-positive power")
        if abs(e * mpmath.log(abs(b), 2)) > MAX_BITS if b != 0 else False:
            raise _refuse(tree, float(abs(e * mpmath.log(abs(b), 2))))
        return b**e
    if kind == "abs":
        return abs(approx(tree[1], look, log_base))
    if kind == "apply":
        args = tuple(exact(a, look) for a in tree[2])
        return _mp(look(key(tree[1], args)))
    if kind == "sigma":
        return _big(tree, look, lambda t, lk: approx(t, lk, log_base), mpmath.mpf)
    if kind == "lim":
        return mpmath.mpf(str(_limit(tree, look).evalf(mpmath.mp.dps)))
    if kind == "call":
        fn = tree[1]
        vals = [approx(a, look, log_base) for a in tree[2]]
        if fn in _MP_FUNCS:
            if fn == "ln" and vals[0] <= 0:
                raise Undefined("logarithm of a non-positive number")
            return _MP_FUNCS[fn](vals[0])
        if fn == "sqrt" or fn == "root":
            k = 2 if fn == "sqrt" else int(vals[1])
            if vals[0] < 0 and k % 2 == 0:
                raise Undefined("even root of a negative number")
            return mpmath.root(vals[0], k) if vals[0] >= 0 else -mpmath.root(-vals[0], k)
        if fn == "log":
            if vals[0] <= 0:
                raise Undefined("logarithm of a non-positive number")
            base = vals[1] if len(vals) > 1 else (log_base or mpmath.e)
            return mpmath.log(vals[0], base)
        if fn in ("floor", "ceil"):
            return mpmath.floor(vals[0]) if fn == "floor" else mpmath.ceil(vals[0])
        if fn in ("max", "min"):
            return max(vals) if fn == "max" else min(vals)
    raise NotExact(f"cannot evaluate {to_text(tree)} numerically")


def uses_bare_log(tree) -> bool:
    if tree[0] == "call" and tree[1] == "log" and len(tree[2]) == 1:
        return True
    return any(uses_bare_log(k) for k in children(tree))
