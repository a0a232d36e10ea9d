"""The one consequence check: does a derived relation follow from what is in force?

A claim ``a REL b`` is checked against premises, the equations in force when it is made (the
problem's conditions, definitions, the current scope's assumptions, earlier claims not refuted:
:class:`Premise`, chosen by the proof state). Points of the premises' solution set are found by
solving them: the names a premise can be solved for are its pivots (jointly, when the premises are
affine in them: a linear system solved exactly over the rationals; one at a time otherwise, a
polynomial of low degree by its roots, anything else by a root finder at 60 digits), the other
names are drawn at random.

- **follows**: the claim holds at every point found (at least three), for one premise or for all of
  them together; the reason names the steps it follows from;
- **refuted where determined**: the premises leave the claim's names finitely many values (a linear
  system with one solution, a polynomial's roots) and the claim fails at every one of them;
- **refuted as a rewrite**: the claim rewrites a statement (``source``: the step says it operates on
  it, or continues its chain) and fails at a point that satisfies it and every premise in force;
- otherwise **not decided**: it may rest on what the text does not state in formulas.

A refutation always shows its point and the steps that point satisfies.
"""

from __future__ import annotations

import random
import zlib
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

import mpmath

from accord.mathcheck.reading import (
    EvaluationError,
    Undefined,
    as_mp,
    children,
    compare,
    exact,
    literal_decimals,
    names,
    nearly_equal,
    show,
    to_text,
    value_of,
)
from accord.mathcheck.state import Facts, Premise, RandomPoint, free_names

N_POINTS = 6
MAX_PREMISES = 6
MAX_DEGREE = 4
MAX_BRANCHES = 8
_ERRORS = (EvaluationError, ArithmeticError, ValueError, TypeError, ZeroDivisionError)


@dataclass(frozen=True)
class Verdict:
    holds: bool | None
    reason: str
    against: tuple[int, ...] = ()  # the steps checked against (-1: the problem)
    everywhere: bool = False  # refuted at every point the premises allow (what a contradiction derives)


def where(steps: Sequence[int]) -> str:
    """``steps 2 and 5``, ``the problem and step 3`` (steps numbered from 1)."""
    ordered = sorted(set(steps))
    parts = (["the problem"] if -1 in ordered else []) + [str(s + 1) for s in ordered if s >= 0]
    if not parts:
        return "nothing"
    named = [p for p in parts if p != "the problem"]
    steps_part = ""
    if named:
        steps_part = ("step " if len(named) == 1 else "steps ") + (
            named[0] if len(named) == 1 else ", ".join(named[:-1]) + " and " + named[-1]
        )
    return " and ".join(p for p in (("the problem" if -1 in ordered else ""), steps_part) if p)


def _residual(p: Premise, look) -> object:
    a, b = value_of(p.left, look), value_of(p.right, look)
    if isinstance(a, Fraction) and isinstance(b, Fraction):
        return a - b
    return as_mp(a) - as_mp(b)


def _is_zero(v) -> bool:
    if isinstance(v, Fraction):
        return v == 0
    return nearly_equal(v, 0, 30) is True


class _Point(RandomPoint):
    """A random point whose pivots are set by the solver."""


def _tautology(p: Premise, facts: Facts) -> bool:
    """The premise holds at two random points: an identity, which ties nothing down."""
    rng = random.Random(7)
    try:
        return all(_is_zero(_residual(p, _Point(facts, rng, False))) for _ in range(2))
    except _ERRORS:
        return False


def _affine_in(p: Premise, x: str, facts: Facts, rng: random.Random) -> bool:
    look = _Point(facts, rng, False)
    try:
        g = []
        for t in (Fraction(0), Fraction(1), Fraction(3)):
            look.assigned[x] = t
            g.append(exact(p.left, look) - exact(p.right, look))
    except _ERRORS:
        return False
    return g[1] != g[0] and g[2] - g[0] == 3 * (g[1] - g[0])


def _solve_linear(a: list[list[Fraction]], b: list[Fraction]) -> list[Fraction] | None:
    """A x = b over the rationals (None when singular)."""
    n = len(b)
    m = [row[:] + [b[i]] for i, row in enumerate(a)]
    for c in range(n):
        r = next((r for r in range(c, n) if m[r][c] != 0), None)
        if r is None:
            return None
        m[c], m[r] = m[r], m[c]
        for r2 in range(n):
            if r2 != c and m[r2][c] != 0:
                f = m[r2][c] / m[c][c]
                m[r2] = [x - f * y for x, y in zip(m[r2], m[c])]
    return [m[i][n] / m[i][i] for i in range(n)]


class Solver:
    """Points of the solution set of ``premises`` (see the module docstring).

    Premises are taken in order; one that the premises before it already imply (at two of their
    points) is a constraint, checked at every point; any other is solved for a name not solved yet,
    its pivot (a name of that premise alone first, then the claim's, one it is affine in first).
    A point is found by solving the pivots: all at once when the premises are affine in them (a
    linear system over the rationals); the affine ones for each value of the one pivot that is not,
    found by a root finder; one premise after the other when each uses only pivots solved before
    it; or all at once by a root finder when there are two at most."""

    def __init__(
        self,
        premises: Sequence[Premise],
        prefer: set[str],
        facts: Facts,
        seed: int,
        positive=False,
        first=None,
        free: frozenset[str] = frozenset(),
    ):
        self.facts = facts
        self.positive = positive
        self.rng = random.Random(seed)
        self.solving: list[Premise] = []
        self.pivots: list[str] = []
        self.affine: list[bool] = []
        self.constraints: list[Premise] = []
        self.unsolvable = False  # set when the root finder found nothing: not tried again
        self._implied_at: tuple[int, list[dict]] = (-1, [])  # the points _implied tried, for how many premises
        used = [free_names(p.left, facts) | free_names(p.right, facts) for p in premises]
        count = {n: sum(n in u for u in used) for u in used for n in u}
        for p, mine in zip(premises, used):
            if _tautology(p, facts):
                continue  # "n^2 - 1 = (n + 1)(n - 1)" ties nothing down
            if self.solving and self._implied(p):
                self.constraints.append(p)
                continue
            order = sorted(
                (n for n in mine if not n.endswith("()")),
                key=lambda n: (n != first, count[n] > 1, n not in prefer, n),
            )
            fresh = [n for n in order if n not in self.pivots and n not in free]
            affine = {n for n in fresh if _affine_in(p, n, facts, self.rng)}
            # a name of this premise alone (affine first), then a shared one it is affine in, then any
            ranked = sorted(fresh, key=lambda n: (count[n] > 1, n not in affine, n != first))
            x = ranked[0] if ranked else None
            if x is None:
                self.constraints.append(p)
            else:
                self.solving.append(p)
                self.pivots.append(x)
                self.affine.append(x in affine)

    def _implied(self, p: Premise) -> bool:
        """The premises taken so far imply ``p``: it holds at two points of those of them that are
        affine in their pivots (a linear system: cheap; what a part of the premises implies, all of
        them do), or else at the points of them all (two at least, found once for each premise
        solved)."""
        linear = [(q, x) for q, x, a in zip(self.solving, self.pivots, self.affine) if a]
        if linear:
            premises, pivots = [q for q, _ in linear], [x for _, x in linear]
            pts = [
                self._linear(_Point(self.facts, random.Random(i), False, positive=self.positive), premises, pivots)
                for i in (1, 2)
            ]
            if self._zero_at(p, pts):
                return True
        nonlinear = sum(not a for a in self.affine)
        if not nonlinear or not p.names <= set().union(*(q.names for q in self.solving)):
            return False  # a name the premises so far do not have is free: nothing implies p
        if self._implied_at[0] != len(self.solving):  # the points stay while premises become constraints
            self._implied_at = (len(self.solving), self.points(0x1D, n=2, tries=4))
        pts = self._implied_at[1]
        return len(pts) >= 2 and self._zero_at(p, pts)

    def _zero_at(self, p: Premise, pts) -> bool:
        try:
            return all(
                pt is not None and _is_zero(_residual(p, _Point(self.facts, random.Random(0), False, pt))) for pt in pts
            )
        except _ERRORS:
            return False

    def points(self, seed: int, n: int = N_POINTS, fixed: dict | None = None, tries: int = 2) -> list[dict]:
        """Up to ``n`` points of the solution set (each a complete assignment of the names drawn);
        ``tries``: the draws that may find none before it gives up (a root that exists only on part
        of the draws, as c in c^2 = 3a^2 - b^2)."""
        if not self.pivots:
            return []
        rng = random.Random(seed)
        out = []
        for attempt in range(max(n * 2, tries + 1)):
            if len(out) >= n or (attempt >= tries and not out):  # no point at the first draws: give up
                break
            look = _Point(self.facts, rng, False, dict(fixed or {}), positive=self.positive)
            branches = self._solved(look, rng)
            if branches:
                out.append(branches[rng.randrange(len(branches))])
        return out

    def branches(self, seed: int, fixed: dict | None = None) -> list[dict]:
        """Every solution at one draw of the free names (the branches of a polynomial's roots)."""
        if not self.pivots:
            return []
        rng = random.Random(seed)
        look = _Point(self.facts, rng, False, dict(fixed or {}), positive=self.positive)
        return self._solved(look, rng)

    def _solved(self, look: _Point, rng: random.Random) -> list[dict]:
        found: list[dict] = []
        try:
            if all(self.affine):
                got = self._linear(look)
                found = [got] if got is not None else []
            elif sum(not a for a in self.affine) == 1:
                found = self._nested(look)
            if not found and self._triangular():
                found = self._one_by_one(_Point(self.facts, rng, False, self._drawn(look), positive=self.positive), rng)
        except _ERRORS:
            found = []
        if not found:
            found = self._jointly(look, rng)
        return [pt for pt in found if self._satisfies_constraints(pt)]

    def _drawn(self, look: _Point) -> dict:
        """The names of this draw that are not pivots, every one the premises use drawn now."""
        trial = _Point(self.facts, look.rng, False, dict(look.assigned, **{x: Fraction(1, 3) for x in self.pivots}))
        trial.positive = self.positive
        for p in self.solving + self.constraints:
            try:
                _residual(p, trial)
            except _ERRORS:
                continue
        look.assigned.update({k: v for k, v in trial.assigned.items() if k not in self.pivots})
        return {k: v for k, v in look.assigned.items() if k not in self.pivots}

    def _triangular(self) -> bool:
        """Each premise, in order, uses no pivot of a later one: they can be solved one by one."""
        for i, p in enumerate(self.solving):
            later = set(self.pivots[i + 1 :])
            if free_names(p.left, self.facts) & later or free_names(p.right, self.facts) & later:
                return False
        return True

    def _linear(self, look: _Point, premises=None, pivots=None) -> dict | None:
        """The pivots of premises affine in them jointly: a linear system, solved exactly (or to the
        working precision when a name drawn is not rational)."""
        premises = self.solving if premises is None else premises
        pivots = self.pivots if pivots is None else pivots
        k = len(pivots)
        base = {x: Fraction(2 * i + 1, 3) for i, x in enumerate(pivots)}
        look.assigned.update(base)
        for p in premises:  # draw every other name now, so each residual sees the same point
            _residual(p, look)
        r0 = [_residual(p, look) for p in premises]
        cols = []
        for x in pivots:
            look.assigned[x] = base[x] + 1
            cols.append([_residual(p, look) - r for p, r in zip(premises, r0)])
            look.assigned[x] = base[x]
        a = [[cols[j][i] for j in range(k)] for i in range(k)]
        if all(isinstance(v, Fraction) for row in a for v in row) and all(isinstance(v, Fraction) for v in r0):
            delta = _solve_linear(a, [-r for r in r0])
        else:
            try:
                delta = list(
                    mpmath.lu_solve(mpmath.matrix([[as_mp(v) for v in row] for row in a]), [-as_mp(r) for r in r0])
                )
            except (ZeroDivisionError, ValueError):
                delta = None
        if delta is None:
            return None
        for x, d in zip(pivots, delta):
            look.assigned[x] = base[x] + d
        if not all(_is_zero(_residual(p, look)) for p in premises):
            return None
        return dict(look.assigned)

    def _nested(self, look: _Point) -> list[dict]:
        """One pivot the premises are not affine in: for each of its values the affine premises are
        a linear system, and the last premise's residual a function of that value, whose roots give
        the points."""
        i = self.affine.index(False)
        z, last = self.pivots[i], self.solving[i]
        rest = [p for j, p in enumerate(self.solving) if j != i]
        rest_pivots = [x for j, x in enumerate(self.pivots) if j != i]
        drawn = self._drawn(look)

        def solved_at(value):
            pt = _Point(self.facts, random.Random(0), False, dict(drawn, **{z: value}), positive=self.positive)
            return self._linear(pt, rest, rest_pivots) if rest else dict(pt.assigned)

        def g(value):
            pt = solved_at(value)
            if pt is None:
                raise ValueError("singular")
            return _residual(last, _Point(self.facts, random.Random(0), False, pt))

        out = []
        for root in _roots_of(g):
            pt = solved_at(root)
            if pt is not None and _is_zero(_residual(last, _Point(self.facts, random.Random(0), False, pt))):
                out.append(pt)
        return out[:MAX_BRANCHES]

    def _one_by_one(self, look: _Point, rng: random.Random) -> list[dict]:
        """Premise by premise, each solved for its pivot given the names drawn so far."""
        states = [look]
        for p, x in zip(self.solving, self.pivots):
            nxt = []
            for st in states:
                if x in st.assigned:
                    if _is_zero(_residual(p, st)):
                        nxt.append(st)
                    continue
                st.assigned[x] = Fraction(1, 7)  # draw the premise's other names once, then solve for x
                try:
                    _residual(p, st)
                except _ERRORS:
                    pass
                del st.assigned[x]
                for root in _roots(p, x, st):
                    child = _Point(self.facts, rng, False, dict(st.assigned, **{x: root}), positive=self.positive)
                    if _is_zero(_residual(p, child)):
                        nxt.append(child)
            states = nxt[:MAX_BRANCHES]
            if not states:
                return []
        return [dict(st.assigned) for st in states]

    def _jointly(self, look: _Point, rng: random.Random) -> list[dict]:
        """The pivots of all premises at once, by a root finder from a few starting points (the
        other names drawn first)."""
        k = len(self.pivots)
        if k > 2 or self.unsolvable:
            return []
        trial = dict(look.assigned, **{x: Fraction(1, 3) for x in self.pivots})
        draw = _Point(self.facts, rng, False, trial, positive=self.positive)
        try:
            for p in self.solving:
                _residual(p, draw)  # draws the names that are not pivots
        except _ERRORS:
            pass
        fixed = {n: v for n, v in draw.assigned.items() if n not in self.pivots}

        def residuals(*values):
            pt = _Point(self.facts, random.Random(0), False, dict(fixed, **dict(zip(self.pivots, values))))
            out = [as_mp(_residual(p, pt)) for p in self.solving]
            return out if k > 1 else out[0]

        def vector(values) -> list:
            got = residuals(*values)
            return got if k > 1 else [got]

        found: list[dict] = []
        with mpmath.workdps(30):  # the search; each root found is polished at the working precision below
            starts = [[mpmath.mpf(rng.uniform(0.5, 3.0)) * rng.choice([-1, 1]) for _ in range(k)] for _ in range(3)]
            roots = []
            for start in starts:
                try:
                    roots.append(mpmath.findroot(residuals, start if k > 1 else start[0], tol=mpmath.mpf(10) ** -25))
                except (*_ERRORS, mpmath.libmp.NoConvergence):
                    continue
        for root in roots:
            try:
                root = mpmath.findroot(residuals, root, tol=mpmath.mpf(10) ** -45)
            except (*_ERRORS, mpmath.libmp.NoConvergence):
                continue
            values = [root] if k == 1 else [root[i] for i in range(k)]
            if any(isinstance(v, mpmath.mpc) or not mpmath.isfinite(v) for v in values):
                continue
            values = [_exact_if_rational(v, _along(vector, values, i)) for i, v in enumerate(values)]
            if any(
                all(abs(as_mp(v) - as_mp(q[x])) < mpmath.mpf(10) ** -20 for x, v in zip(self.pivots, values))
                for q in found
            ):
                continue  # a root found before
            try:
                if all(abs(r) < mpmath.mpf(10) ** -30 for r in vector(values)):
                    found.append(dict(fixed, **dict(zip(self.pivots, values))))
            except _ERRORS:
                continue
        if not found:
            self.unsolvable = True
        return found[:MAX_BRANCHES]

    def _satisfies_constraints(self, pt: dict) -> bool:
        look = _Point(self.facts, random.Random(0), False, dict(pt), positive=self.positive)
        try:
            return all(_is_zero(_residual(p, look)) for p in self.constraints)
        except _ERRORS:
            return False


def _along(vector, values: list, i: int):
    """The i-th residual as a function of the i-th pivot alone (the others at ``values``)."""
    return lambda q: vector([*values[:i], q, *values[i + 1 :]])[i]


def _roots(p: Premise, x: str, look: _Point) -> list:
    """The real values of ``x`` solving the premise at this point (see :func:`_roots_of`)."""

    def g(v):
        pt = _Point(look.facts, random.Random(0), False, dict(look.assigned, **{x: v}), positive=look.positive)
        return _residual(p, pt)

    return _roots_of(g)


def _roots_of(g) -> list:
    """Real roots of a function of one value: exactly when it is a polynomial of low degree with
    rational values at integers (every root), else numerically from the starts :func:`_starts` picks
    (each as the rational it is when it is one)."""
    try:
        samples = [g(Fraction(i)) for i in range(MAX_DEGREE + 2)]
    except _ERRORS:
        samples = None
    if samples is not None and all(isinstance(v, Fraction) for v in samples):
        coeffs = _interpolate(samples)
        if coeffs is not None:
            coeffs = _trim(coeffs)
            if len(coeffs) == 2:
                return [-coeffs[0] / coeffs[1]]
            if len(coeffs) > 2:
                with mpmath.workdps(60):
                    try:
                        found = mpmath.polyroots([as_mp(c) for c in reversed(coeffs)], maxsteps=200, extraprec=200)
                    except (mpmath.libmp.NoConvergence, ZeroDivisionError):
                        return []
                    real = [mpmath.re(r) for r in found if abs(mpmath.im(r)) < mpmath.mpf(10) ** -30]
                    return [_rational(r, coeffs) for r in real]
            return []
    out = []
    for start in _starts(g):
        try:
            with mpmath.workdps(30):  # found at 30 digits, then polished at the working precision
                rough = mpmath.findroot(lambda v: as_mp(g(v)), start, tol=mpmath.mpf(10) ** -25)
            root = mpmath.findroot(lambda v: as_mp(g(v)), rough, tol=mpmath.mpf(10) ** -50)
        except (*_ERRORS, mpmath.libmp.NoConvergence):
            continue
        if isinstance(root, mpmath.mpc) or not mpmath.isfinite(root):
            continue
        if all(abs(root - r) > mpmath.mpf(10) ** -20 for r in out):
            out.append(root)
    return [_exact_if_rational(r, g) for r in out]


_GRID = (-5, -2, -1, -0.5, 0.5, 1, 2, 3, 5, 10)


def _starts(g) -> list:
    """Where a root finder starts: beside each sign change of ``g`` on a small grid, else where
    ``|g|`` is least there (two at most)."""
    values = []
    with mpmath.workdps(15):
        for x in _GRID:
            try:
                values.append((mpmath.mpf(x), as_mp(g(mpmath.mpf(x)))))
            except _ERRORS:
                continue
    changes = [x for x, fx in values if fx == 0]
    changes += [(a + b) / 2 for (a, fa), (b, fb) in zip(values, values[1:]) if fa * fb < 0]
    if changes:
        return changes[:2]
    values.sort(key=lambda v: abs(v[1]))
    return [x for x, _ in values[:1]]


def _exact_if_rational(root, g):
    """A root found numerically, as the rational it is when it is one (3^y = 243: y = 5, not 5.0)."""
    q = Fraction(mpmath.nstr(root, 40)).limit_denominator(1000)
    try:
        return q if g(q) == 0 else root
    except _ERRORS:
        return root


def _rational(root, coeffs: list[Fraction]):
    """A root as an exact rational when it is one (``x^2 = 4``: 2, not 2.0000...)."""
    q = Fraction(mpmath.nstr(root, 40)).limit_denominator(10**6)
    return q if sum(c * q**i for i, c in enumerate(coeffs)) == 0 else root


def _interpolate(values: list[Fraction]) -> list[Fraction] | None:
    """Coefficients (constant first) of the polynomial through (i, values[i]), when its degree is at
    most MAX_DEGREE (the last value is the check)."""
    n = len(values) - 1
    coeffs = _newton(values[:n])
    if coeffs is None:
        return None
    x = Fraction(n)
    if sum(c * x**i for i, c in enumerate(coeffs)) != values[n]:
        return None
    return coeffs


def _newton(values: list[Fraction]) -> list[Fraction] | None:
    """Monomial coefficients of the polynomial through (0, v0), (1, v1), ... (Newton's differences)."""
    n = len(values)
    diffs, row = [], list(values)
    for _ in range(n):
        diffs.append(row[0])
        row = [b - a for a, b in zip(row, row[1:])]
    coeffs = [Fraction(0)] * n
    basis = [Fraction(1)]  # falling factorial x(x-1)...(x-k+1)/k!
    fact = Fraction(1)
    for k, d in enumerate(diffs):
        if k:
            fact *= k
            basis = [Fraction(0)] + basis
            basis = [b - (k - 1) * c for b, c in zip(basis, basis[1:] + [Fraction(0)])]
        for i, b in enumerate(basis):
            coeffs[i] += d * b / fact
    return coeffs


def _trim(coeffs: list[Fraction]) -> list[Fraction]:
    while coeffs and coeffs[-1] == 0:
        coeffs = coeffs[:-1]
    return coeffs


def _holds(rel: str, a, b, ta=None, tb=None) -> bool | None:
    if rel == "=":
        if ta is not None and (literal_decimals(ta) or literal_decimals(tb)):  # "x = 1.41": a rounded value
            return None if compare("=", a, b, ta, tb, None) else False
        if isinstance(a, Fraction) and isinstance(b, Fraction):
            return a == b
        return nearly_equal(a, b, 20)
    fa, fb = as_mp(a), as_mp(b)
    if nearly_equal(fa, fb, 20):
        return rel in ("≤", "≥") or None
    return {"<": fa < fb, "≤": fa <= fb, ">": fa > fb, "≥": fa >= fb, "≠": fa != fb}.get(rel)


def _at(rel, ta, tb, point: dict, facts: Facts):
    """(holds, left value, right value) of the claim at a point (None: undefined or too close)."""
    look = _Point(facts, random.Random(0), False, dict(point))
    with mpmath.workdps(60):
        try:
            a, b = value_of(ta, look), value_of(tb, look)
        except (Undefined, *_ERRORS):
            return None, None, None
        return _holds(rel, a, b, ta, tb), a, b


def _shown(point: dict, names: set[str]) -> str:
    return ", ".join(f"{k} = {show(v)}" for k, v in sorted(point.items()) if k in names)


def relevant(names: set[str], facts: Facts, cited: Sequence[int] = ()) -> list[Premise]:
    """The premises in force a claim in ``names`` may rest on: those sharing a name with it, then
    those sharing a name with them (one step further); the cited ones and the latest first."""
    first = facts.premises_on(names)
    reach = set().union(*(p.names for p in first)) - names if first else set()
    second = [p for p in facts.premises_on(reach) if p not in first] if reach else []
    order = lambda ps: sorted(ps, key=lambda p: (p.step not in cited, -p.step))  # noqa: E731
    out, seen = [], set()
    for p in order(first) + order(second):  # a condition restated ("... = y^3", "... - y^3 = 0") counts once
        key = _signature(p, facts)
        if key not in seen:
            seen.add(key)
            out.append(p)
    return out[:MAX_PREMISES]


def _signature(p: Premise, facts: Facts):
    """The premise's residual at three fixed random points, up to a constant factor: equal for two
    ways of writing one equation (kept: a long solution asks it of the same premises again)."""
    if _applies(p.left) or _applies(p.right):  # f(7): its value is the solution's own, not in the key
        return _signature_of(p, facts)
    key = (p.left, p.right)
    if key not in _SIGNATURES:
        _SIGNATURES[key] = _signature_of(p, facts)
        while len(_SIGNATURES) > KEEP_DECIDED:
            _SIGNATURES.pop(next(iter(_SIGNATURES)))
    return _SIGNATURES[key]


_SIGNATURES: dict = {}


def _signature_of(p: Premise, facts: Facts):
    values = []
    try:
        for i in range(3):
            fixed = {n: Fraction(zlib.crc32(f"{n}|{i}".encode()) % 97 + 3, 7 + i) for n in p.names}
            values.append(as_mp(_residual(p, _Point(facts, random.Random(i), False, fixed))))
    except _ERRORS:
        return p.text
    scale = next((v for v in values if v != 0), None)
    if scale is None:
        return ("tautology",)
    return tuple(mpmath.nstr(v / scale, 12) for v in values)


def consequence(
    rel: str,
    ta,
    tb,
    facts: Facts,
    seed: int,
    source: Premise | None = None,
    cited: Sequence[int] = (),
    positive: bool = False,
    rewrite: bool = False,
) -> Verdict | None:
    """The claim ``ta REL tb`` against the premises in force in ``facts`` (see the module
    docstring); None when no premise shares a name with it. ``source``: the statement the claim is
    derived from by an operation the step names; ``rewrite``: the claim rewrites an expression (a
    later link of a chain), so it must hold wherever what is in force holds. Either lets a point
    of the premises where the claim fails refute it."""
    with mpmath.workdps(60):
        try:
            return _consequence(rel, ta, tb, facts, seed, source, cited, positive, rewrite)
        except _ERRORS:  # a premise or claim the evaluator cannot take at some point: not decided here
            return None


def _consequence(rel, ta, tb, facts, seed, source, cited, positive, rewrite) -> Verdict | None:
    claim_names = free_names(ta, facts) | free_names(tb, facts)
    plain = {n for n in claim_names if not n.endswith("()")}
    if not plain:
        return None
    positive = positive or facts.positive
    if source is not None and not source.names & plain:  # what shares no name with the claim is not its source
        source = None
    chosen = relevant(plain, facts, cited)
    if source is not None and source not in chosen:
        chosen = [source, *chosen][:MAX_PREMISES]
    if not chosen:
        return None
    # the symbolic and the numeric judge ask the same of one worker: the answer is kept for the second
    # (not for applied functions, whose values are the solution's own and not in the key)
    if any(_applies(t) for t in (ta, tb, *(side for p in chosen for side in (p.left, p.right)))):
        return _decide(rel, ta, tb, facts, seed, source, chosen, plain, positive, rewrite)
    valued = tuple(sorted((n, str(v)) for n in plain.union(*(p.names for p in chosen)) for v in _value_of(n, facts)))
    key = (rel, ta, tb, tuple(chosen), source, seed, positive, rewrite, facts.in_case, valued)
    if key not in _DECIDED:
        _DECIDED[key] = _decide(rel, ta, tb, facts, seed, source, chosen, plain, positive, rewrite)
        while len(_DECIDED) > KEEP_DECIDED:
            _DECIDED.pop(next(iter(_DECIDED)))
    return _DECIDED[key]


_DECIDED: dict = {}
KEEP_DECIDED = 4096


def _applies(tree) -> bool:
    """The tree applies one of the solution's functions (``f(7)``)."""
    return tree[0] == "apply" or any(_applies(c) for c in children(tree))


def _value_of(name: str, facts: Facts) -> list:
    try:
        return [facts.value(name)]
    except EvaluationError:
        return []


def _decide(rel, ta, tb, facts, seed, source, chosen, plain, positive, rewrite) -> Verdict | None:
    claim = f"{to_text(ta)} {rel} {to_text(tb)}"
    solved = next((s[1] for s in (ta, tb) if s[0] == "name" and s[1] in plain), None)  # "x = 2c": a value found
    steps = tuple(sorted({p.step for p in chosen}))
    free = plain - set().union(*(p.names for p in chosen)) - _valued(plain, facts)  # no premise has them
    whole = Solver(chosen, plain, facts, seed, positive, solved)
    singles = [Solver([p], plain, facts, seed, positive, solved) for p in chosen[:2]] if len(chosen) > 1 else []
    for solver in [whole] if free else [*singles, whole]:  # the fewest steps it follows from, first
        if _holds_everywhere(solver, rel, ta, tb, facts, seed):
            follows_from = tuple(sorted({p.step for p in solver.solving + solver.constraints}))
            return Verdict(True, f"follows from {where(follows_from)}", follows_from)
    if free:  # it holds for no value of them everywhere: it gives them a meaning
        return Verdict(None, f"it brings in a name {where(steps)} do not have (a definition, not checked)", steps)
    if solved is not None and len(plain) > 1:  # "r = (10^k - 1.5)d/5": solved for r, the other names left free
        whole_value = Solver(chosen, plain, facts, seed, positive, solved, frozenset(plain - {solved}))
        determined = _determined(whole_value, rel, ta, tb, plain, seed)
    else:
        determined = _determined(whole, rel, ta, tb, plain, seed)
    if determined:
        checked = [(pt, _at(rel, ta, tb, pt, facts)) for pt in determined]
        if checked and all(v[0] is False for _, v in checked):
            pt, (_, a, b) = checked[0]
            premises = "; ".join(p.text for p in chosen[:3])
            if not plain <= set(whole.pivots) | _valued(plain, facts):  # "y = 12 - 3x/2": a value in other names
                others = plain - {solved}
                return Verdict(
                    False,
                    f"{claim} is not the value {where(steps)} ({premises}) gives: at {_shown(pt, others)} they give "
                    f"{solved} = {show(pt[solved])}, and the right side is {show(b if ta[0] == 'name' else a)}",
                    steps,
                    True,
                )
            only = "the only solution" if len(checked) == 1 else f"one of the {len(checked)} solutions"
            return Verdict(
                False,
                f"{claim} is refuted at {_shown(pt, plain)}, {only} of {where(steps)} ({premises}): there the left "
                f"side is {show(a)}, the right side {show(b)}",
                steps,
                True,
            )
    value_found = rel == "=" and solved is not None and solved not in (free_names(ta, facts) & free_names(tb, facts))
    # a rewrite in other names than its source is refuted only where the premises tie those names together
    tied = free_names(ta, facts) == free_names(tb, facts) or plain <= set().union(*(p.names for p in chosen))
    if facts.in_case and not set().union(*(p.names for p in chosen)) <= plain:
        return Verdict(None, f"does not follow from {where(steps)} alone (in a case: a name may be fixed)", steps)
    if (source is not None or rewrite and tied) and not value_found:  # a value may pick one solution of several
        signed = positive and any(_sign_sensitive(t) for t in (ta, tb, *(s for p in chosen for s in (p.left, p.right))))
        points = whole.points(seed ^ 0x5EED, tries=6)
        others = [p for p in chosen if p is not source and p.names & plain]
        if not points and source is not None and not others:  # the solver failed on the rest: the source alone
            chosen = [source]
            steps = (source.step,)
            points = Solver(chosen, plain, facts, seed, positive).points(seed ^ 0x5EED)
        for pt in points:
            if signed and any(as_mp(v) <= 0 for v in pt.values()):
                continue  # off the problem's domain, where a root or an absolute value reads otherwise
            holds, a, b = _at(rel, ta, tb, pt, facts)
            if holds is False and nearly_equal(a, b, 6) is False:
                names = plain | set().union(*(p.names for p in chosen))
                what = f"does not follow from {source.text} ({where([source.step])})" if source else "does not hold"
                return Verdict(
                    False,
                    f"{claim} {what}: it is refuted at {_shown(pt, names)}, which satisfies {where(steps)} "
                    f"({'; '.join(p.text for p in chosen[:3])}): there the left side is {show(a)}, the right "
                    f"side {show(b)}",
                    steps,
                )
    return Verdict(None, f"does not follow from {where(steps)} alone (not checked further)", steps)


_SIGNED_CALLS = {"sqrt", "root", "abs", "log", "ln"}


def _sign_sensitive(tree) -> bool:
    """A root, an absolute value, a logarithm or a power with a fractional exponent: its value at a
    negative point says nothing about the problem's positive names."""
    if tree[0] == "abs" or tree[0] == "call" and tree[1] in _SIGNED_CALLS:
        return True
    if tree[0] == "pow" and tree[2][0] not in ("num", "neg"):
        return False if not names(tree[2]) else True
    if tree[0] == "pow" and tree[2][0] == "num" and tree[2][1].denominator != 1:
        return True
    return any(_sign_sensitive(c) for c in children(tree))


def _holds_everywhere(solver: Solver, rel: str, ta, tb, facts: Facts, seed: int) -> bool:
    """The claim holds at every point found (at least three; the first that fails ends the search)."""
    found = 0
    for pt in solver.points(seed, n=4):
        if _at(rel, ta, tb, pt, facts)[0] is not True:
            return False
        found += 1
    return found >= 3


def _determined(solver: Solver, rel: str, ta, tb, names: set[str], seed: int) -> list[dict]:
    """The solutions at one draw, when the premises determine the claim there: the claim's names
    all take finitely many values (the same at two draws), or the claim gives a solved name as an
    expression in names left free ("x = 2c" after "x^3 = 8c")."""
    if not solver.pivots:
        return []
    valued = _valued(names, solver.facts)
    pivots = set(solver.pivots)
    solved_for = None
    if rel == "=" and not names <= pivots | valued:
        for side, other in ((ta, tb), (tb, ta)):
            if side[0] == "name" and side[1] in pivots and side[1] not in free_names(other, solver.facts):
                solved_for = side[1]
        others = (free_names(ta, solver.facts) | free_names(tb, solver.facts)) - {solved_for}
        if solved_for is None or others & pivots:
            return []
        left_free = set().union(*(p.names for p in solver.solving + solver.constraints)) - pivots - valued
        if not left_free <= others:  # "n = N/57" with "N = 10^k d + n": the claim says something of d, k too
            return []
    elif not names <= pivots | valued:
        return []
    first, second = solver.branches(seed), solver.branches(seed + 1)
    if not first:
        return []
    if solved_for is not None:
        return first if second else []

    def key(pt):
        return tuple(sorted((n, mpmath.nstr(as_mp(pt[n]), 15)) for n in names if n in pt))

    if {key(p) for p in first} != {key(p) for p in second}:
        return []
    return first


def _valued(names: set[str], facts: Facts) -> set[str]:
    out = set()
    for n in names:
        try:
            facts.value(n)
            out.add(n)
        except EvaluationError:
            continue
    return out
