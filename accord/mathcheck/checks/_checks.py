"""The sympy work behind the symbolic and numeric judges; runs inside a time-limited worker.

Both functions take plain strings (the candidate step and the lines before it) and return a
``(score or None, reason)`` pair, so they can cross a process boundary. A step is valid when each
equality in it is an identity, or follows from what came before: from the premises solved for the
declared unknowns, or else from the previous equation (an inline ``P => Q`` uses P). A line that
is prose rather than an equation ("The roots multiply to 1 x 5 = 5") is read like a step of a
solution (:mod:`accord.mathcheck.checks._claims`): its formulas are found and checked.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from functools import lru_cache

import numpy as np
import sympy as sp

from accord.mathcheck.checks._claims import solution_check
from accord.mathcheck.reading import MathParseError, classify, is_equation, parse_sympy

Result = tuple[float | None, str]


@dataclass
class Context:
    """What the lines before a step establish."""

    definitions: dict[sp.Symbol, sp.Expr] = field(default_factory=dict)
    premises: list[sp.Expr] = field(default_factory=list)  # each "lhs - rhs" = 0
    unknowns: list[sp.Symbol] = field(default_factory=list)
    equations: list[sp.Expr] = field(default_factory=list)  # every equation seen, as first side - last side
    _solutions: list | None = None

    @property
    def previous(self) -> sp.Expr | None:
        """The last equation that is not an identity (an identity implies nothing)."""
        rng = random.Random(0)
        for d in reversed(self.equations):
            if is_zero(d, rng)[0] is not True:
                return d
        return None

    def solutions(self) -> list[dict]:
        """The premises solved for the unknowns (computed once per context)."""
        if self._solutions is None:
            self._solutions = _solve(tuple(self.premises), tuple(self.unknowns))
        return self._solutions


@lru_cache(maxsize=32)
def _solve(premises: tuple[sp.Expr, ...], unknowns: tuple[sp.Symbol, ...]) -> list[dict]:
    """Memoised per worker process: the steps of one derivation share their premises."""
    return sp.solve(list(premises), list(unknowns), dict=True)


class UndefinedExpression(MathParseError):
    """A side is undefined everywhere (e.g. division by an expression that is identically 0)."""


def _sides(sides, defs) -> list[sp.Expr]:
    out = [parse_sympy(s).subs(defs) for s in sides]
    for text, e in zip(sides, out):
        if e.has(sp.zoo, sp.nan, sp.oo, -sp.oo):
            raise UndefinedExpression(f"domain problem: {text!r} is undefined (division by zero)")
    return out


def build_context(lines: list[str]) -> Context:
    """Definitions, premises, unknowns and the previous equation; unparseable lines are skipped."""
    ctx = Context()
    for text in lines:
        line = classify(text)
        try:
            if line.kind == "definition":
                ctx.definitions[sp.Symbol(line.name)] = parse_sympy(line.sides[1]).subs(ctx.definitions)
            elif line.kind == "unknowns":
                ctx.unknowns = [sp.Symbol(n) for n in line.names]
            elif is_equation(line.sides):
                sides = _sides(line.sides, ctx.definitions)
                if line.kind == "premise":
                    ctx.premises.extend(a - b for a, b in zip(sides, sides[1:]))
                ctx.equations.append(sides[0] - sides[-1])
        except MathParseError:
            continue
    return ctx


def _points(symbols, rng: random.Random, n: int) -> list[dict]:
    """Random exact rationals away from 0 and +-1, both signs."""
    out = []
    for k in range(n):  # first point all positive, second all negative, then mixed signs
        sign = (lambda: 1) if k == 0 else (lambda: -1) if k == 1 else (lambda: rng.choice([-1, 1]))
        out.append({s: sp.Rational(sign() * rng.randint(11, 97), rng.randint(7, 31)) for s in symbols})
    return out


def _is_rational_function(e: sp.Expr) -> bool:
    return (
        all(a.is_Symbol or a.is_Rational for a in e.atoms())
        and not any(isinstance(p, sp.Pow) and not p.exp.is_Integer for p in e.atoms(sp.Pow))
        and not e.atoms(sp.Function)
    )


def is_zero(expr: sp.Expr, rng: random.Random) -> tuple[bool | None, dict | None]:
    """(True, None) if expr is identically 0; (False, point) with a point where it is not zero;
    (None, None) if simplification fails and no point shows a non-zero value.

    Exact rational points are tried first (cheap, and a witness when the claim is false); only a
    claim that survives them pays for cancel/simplify.
    """
    if expr == 0:
        return True, None
    syms = sorted(expr.free_symbols, key=str)
    for pt in _points(syms, rng, 6) if syms else [{}]:
        v = expr.xreplace(pt)
        if v.is_number and v.is_finite and v.is_zero is False:
            return False, pt
    d = sp.cancel(sp.together(expr))  # decisive for rational functions
    if d == 0:
        return True, None
    if _is_rational_function(d):
        return None, None  # non-zero as a function yet zero at every point tried: undecided
    d = sp.simplify(d)
    if d == 0 or sp.expand(d) == 0:
        return True, None
    return None, None


def _fmt_point(pt: dict | None) -> str:
    if not pt:
        return ""
    return " (e.g. at " + ", ".join(f"{k} = {v}" for k, v in pt.items()) + ")"


def _coprime_multiple(q: sp.Expr, p: sp.Expr) -> bool:
    """q = c * p with c a rational function whose denominator shares no factor with p."""
    pn, _ = sp.fraction(sp.cancel(sp.together(p)))
    ratio = sp.cancel(sp.together(q / p))
    if ratio == 0:
        return False
    _, den = sp.fraction(ratio)
    gens = sorted((pn * den).free_symbols, key=str)
    if not gens:
        return True
    return sp.degree(sp.gcd(sp.Poly(den, *gens), sp.Poly(pn, *gens))) == 0 if den.free_symbols else True


def _follows_from(diff: sp.Expr, ctx: Context, premise: sp.Expr | None, rng: random.Random) -> tuple[bool | None, str]:
    if ctx.unknowns and ctx.premises and premise is None:
        sols = ctx.solutions()
        if not sols:
            return None, "the premises have no solution for the unknowns"
        for sol in sols:
            ok, pt = is_zero(diff.subs(sol), rng)
            if ok is not True:
                return ok, f"does not follow from the premises{_fmt_point(pt)}"
        return True, "follows from the premises"
    p = premise if premise is not None else ctx.previous
    if p is not None and is_zero(p, rng)[0] is True:
        p = None  # "identity => Q" claims Q outright
    if p is None:
        return False, "not an identity, and nothing before it to follow from"
    if _coprime_multiple(diff, p):
        return True, "follows from the previous equation"
    syms = sorted(p.free_symbols & diff.free_symbols, key=str) or sorted(p.free_symbols, key=str)
    failure, undecided = "", False
    for x in syms:
        sols = sp.solve(p, x)
        if not sols:
            continue
        verdicts = [(s, is_zero(diff.subs(x, s), rng)[0]) for s in sols]
        if all(v is True for _, v in verdicts):
            return True, f"follows from the previous equation (solved for {x})"
        bad = [s for s, v in verdicts if v is False]
        if bad:
            failure = failure or f" (which gives {x} = {bad[0]})"
        else:
            undecided = True
    if undecided and not failure:
        return None, "simplification could not decide whether it follows from the previous equation"
    return False, f"does not follow from the previous equation{failure}"


def _as_prose(step: str, context: list[str], reason: str, real: bool) -> Result:
    """A line that is not one equation, read as prose with formulas; the first reason if none."""
    value, why = solution_check("", context, step, real)
    found = value is not None or why.startswith("no checkable claim:")  # formulas were found
    return (value, why) if found else (None, reason)


def _show(v: sp.Expr) -> str:
    """A number for a reason: exact when short, else 12 significant digits."""
    text = str(v)
    return text if len(text) <= 30 else str(sp.N(v, 12))


def symbolic_check(step: str, context: list[str], seed: int = 0) -> Result:
    """1.0 if every equality of the step holds (identity or consequence), 0.0 if one does not."""
    line = classify(step)
    if line.kind != "claim":
        return None, f"a {line.kind}, not a claim to check"
    if not is_equation(line.sides):
        return _as_prose(step, context, "no equation to check", False)
    rng = random.Random(seed)
    ctx = build_context(context)
    try:
        sides = _sides(line.sides, ctx.definitions)
        premise = None
        if line.premise:
            if not is_equation(line.premise):
                return None, "the premise before '=>' is not an equation"
            ps = _sides(line.premise, ctx.definitions)
            premise = ps[0] - ps[-1]
    except UndefinedExpression as exc:
        return None, str(exc)
    except MathParseError as exc:
        return _as_prose(step, context, str(exc), False)
    reasons = []
    for i, (a, b) in enumerate(zip(sides, sides[1:])):
        ok, pt = is_zero(a - b, rng)
        if ok is True:
            continue
        if ok is False and not (a - b).free_symbols and premise is None:  # numbers: show the values
            return (
                0.0,
                f"equality {i + 1} ({line.sides[i]} = {line.sides[i + 1]}) is false: the left side is {_show(a)}, the "
                f"right side {_show(b)}",
            )
        implied, why = _follows_from(a - b, ctx, premise, rng)
        if implied is True:
            reasons.append(why)
            continue
        if ok is False and implied is False:
            where = _fmt_point(pt) if "nothing before it" in why else ""
            return 0.0, f"equality {i + 1} ({line.sides[i]} = {line.sides[i + 1]}) is false: {why}{where}"
        return None, f"could not decide equality {i + 1}: simplification inconclusive; {why}"
    return 1.0, "; ".join(dict.fromkeys(reasons)) or "identity"


# ----------------------------------------------------------------------------- numeric sampling


def _numeric(expr: sp.Expr, syms: list[sp.Symbol]):
    return sp.lambdify(syms, expr, modules="numpy")


def _sample(symbols, rng: np.random.Generator, n: int) -> np.ndarray:
    mag = rng.uniform(0.3, 3.0, size=(n, len(symbols)))
    return mag * rng.choice([-1.0, 1.0], size=mag.shape)


def _agree(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return np.abs(a - b) <= 1e-8 * (1.0 + np.abs(a) + np.abs(b))


def _eval(fn, pts: np.ndarray) -> np.ndarray:
    with np.errstate(all="ignore"):
        v = np.asarray(fn(*pts.T), dtype=np.complex128)
    v = np.broadcast_to(v, (pts.shape[0],)).copy()
    bad = ~np.isfinite(v) | (np.abs(v.imag) > 1e-12 * (1 + np.abs(v.real)))
    v = v.real
    v[bad] = np.nan
    return v


def numeric_check(step: str, context: list[str], seed: int = 0, n_points: int = 24) -> Result:
    """Fraction of random points at which every equality of the step holds.

    Points where a side is undefined (division by zero, a real root of a negative number) do not
    count; if fewer than half the points are usable the step is reported as a domain problem.
    """
    line = classify(step)
    if line.kind != "claim":
        return None, f"a {line.kind}, not a claim to check"
    if not is_equation(line.sides):
        return _as_prose(step, context, "no equation to check", True)
    ctx = build_context(context)
    try:
        sides = _sides(line.sides, ctx.definitions)
        premise = None
        if line.premise and is_equation(line.premise):
            ps = _sides(line.premise, ctx.definitions)
            premise = ps[0] - ps[-1]
    except UndefinedExpression as exc:
        return None, str(exc)
    except MathParseError as exc:
        return _as_prose(step, context, str(exc), True)
    rng = np.random.default_rng(seed)
    try:
        frac, usable = _identity_fraction(sides, rng, n_points)
    except OverflowError:
        return None, "a value too large for floating point (the symbolic judge evaluates it exactly)"
    if frac == 1.0:
        return 1.0, f"both sides agree at {usable} random points" if usable > 1 else "holds exactly"
    via = _premise_substitutions(ctx, premise, sides)
    if via:
        worst = None  # a consequence must hold on every solution branch
        for subs, label in via:
            f2, u2 = _identity_fraction([s.subs(subs) for s in sides], rng, n_points)
            if f2 is not None and (worst is None or f2 < worst[0]):
                worst = (f2, u2, label)
        if worst is not None:
            f2, u2, label = worst
            if u2 == 1:
                return f2, ("holds " if f2 == 1.0 else "fails ") + label
            return f2, f"agrees at {round(f2 * u2)} of {u2} random points {label}"
    if frac is None:
        return (
            None,
            f"domain problem: a side is undefined (e.g. division by zero) at {n_points - usable} of {n_points} sample "
            "points",
        )
    return frac, f"both sides agree at {round(frac * usable)} of {usable} random points"


def _identity_fraction(sides: list[sp.Expr], rng, n_points: int) -> tuple[float | None, int]:
    syms = sorted(set().union(*(s.free_symbols for s in sides)), key=str)
    pts = _sample(syms, rng, n_points) if syms else np.zeros((1, 0))
    vals = [_eval(_numeric(s, syms), pts) for s in sides]
    ok = np.ones(pts.shape[0], dtype=bool)
    usable = np.ones(pts.shape[0], dtype=bool)
    for a, b in zip(vals, vals[1:]):
        usable &= np.isfinite(a) & np.isfinite(b)
        ok &= _agree(a, b)
    n_use = int(usable.sum())
    if n_use * 2 < pts.shape[0]:
        return None, n_use
    return float((ok & usable).sum() / n_use), n_use


def _premise_substitutions(ctx: Context, premise, sides) -> list[tuple[dict, str]]:
    """Substitutions that make the premises hold: solved for the unknowns, or the previous
    equation solved for one of its symbols (each solution branch separately)."""
    if premise is None and ctx.unknowns and ctx.premises:
        return [(s, "given the premises") for s in ctx.solutions()]
    p = premise if premise is not None else ctx.previous
    if p is None or is_zero(p, random.Random(0))[0] is True:
        return []
    used = set().union(*(s.free_symbols for s in sides))
    for x in sorted(p.free_symbols & used, key=str):
        sols = sp.solve(p, x)
        if sols:
            return [({x: s}, f"given the previous equation solved for {x} ({x} = {s})") for s in sols]
    return []
