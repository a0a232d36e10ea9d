"""Is an equation an identity? Exact evaluation at random points, and what explains it if not.

A side's free names get random exact rationals (random positive integers when a side uses n!,
binomials, mod or gcd), the solution's own functions a random value per argument; agreeing at
every point is an identity (a rational function of bounded degree that is not zero vanishes at
random rationals with negligible probability). A non-identity may still follow from what came
before: from the definitions made earlier, or from a recent equation solved for one of its names
(:func:`explained`). A counterexample for the evidence uses small positive integers.
"""

from __future__ import annotations

import random
import zlib
from fractions import Fraction

import mpmath

from accord.mathcheck.reading import (
    TOL_DIGITS,
    EvaluationError,
    Undefined,
    Unknown,
    children,
    exact,
    names,
    nearly_equal,
    to_text,
    value_of,
)
from accord.mathcheck.state._context import Facts

N_POINTS = 6
N_FLOAT_POINTS = 16


class RandomPoint:
    """A random point: free names and unknown applied values get random numbers, memoised."""

    def __init__(
        self,
        facts: Facts,
        rng: random.Random,
        real: bool,
        fixed: dict | None = None,
        definitions: bool = False,
        depth: int = 0,
        integers: bool = False,
        positive: bool = False,
    ):
        self.facts, self.rng, self.real = facts, rng, real
        self.positive = positive  # where a square root or a log of a name needs it
        self.assigned: dict[str, object] = dict(fixed or {})
        self.definitions = definitions
        self.depth = depth
        self.integers = integers  # factorials, binomials, mod: random positive integers

    def draw(self):
        if self.integers:
            return Fraction(self.rng.randint(2, 60))
        sign = 1 if self.positive else self.rng.choice([-1, 1])
        if self.real:
            return mpmath.mpf(sign * self.rng.uniform(0.3, 3.0))
        return Fraction(sign * self.rng.randint(11, 97), self.rng.randint(7, 31))

    def __call__(self, name: str):
        if name in self.assigned:
            return self.assigned[name]
        try:
            return self.facts.value(name)
        except Unknown:
            pass
        if self.definitions and name in self.facts.definitions and self.depth < 4:
            inner = RandomPoint(
                self.facts, self.rng, self.real, self.assigned, True, self.depth + 1, self.integers, self.positive
            )
            v = value_of(self.facts.definitions[name], inner)
            self.assigned.update(inner.assigned)
        else:
            v = self.draw()
        self.assigned[name] = v
        return v


def free_names(tree, facts: Facts) -> set[str]:
    """Names without a value in the facts, and ``f()`` for every function the tree applies."""
    out = set()
    for n in names(tree):
        try:
            facts.value(n)
        except Unknown:
            out.add(n)
    stack = [tree]
    while stack:
        t = stack.pop()
        if t[0] == "apply":
            out.add(t[1] + "()")
        stack.extend(children(t))
    return out


def agree(a, b, real: bool) -> bool:
    if not real and isinstance(a, Fraction) and isinstance(b, Fraction):
        return a == b
    return nearly_equal(a, b, 9 if real else TOL_DIGITS) is True


_INTEGER_NODES = {"fact", "mod", "sigma"}
_INTEGER_CALLS = {"binom", "factorial", "gcd", "lcm"}


def integer_only(tree) -> bool:
    """The tree uses an operation defined on integers only (n!, binomials, mod, gcd)."""
    if tree[0] in _INTEGER_NODES or tree[0] == "call" and tree[1] in _INTEGER_CALLS:
        return True
    return any(integer_only(c) for c in children(tree))


def holds_at_points(
    ta,
    tb,
    facts: Facts,
    seed: int,
    real: bool,
    definitions: bool,
    solve=None,
    n=N_POINTS,
    stop: bool = False,
    positive: bool = False,
    integers: bool = False,
):
    """(agreeing points, defined points, first disagreeing point) of ``a = b`` at random points
    (random positive integers when a side needs integers or with ``integers``; positive numbers with
    ``positive``); with
    ``stop``, it returns at the first disagreement."""
    rng = random.Random(seed)
    good, defined, witness = 0, 0, None
    integers = integers or integer_only(ta) or integer_only(tb)
    for _ in range(n):
        look = RandomPoint(
            facts, rng, real and not integers, definitions=definitions, integers=integers, positive=positive
        )
        try:
            if solve is not None and not solve(look):
                continue
            a, b = value_of(ta, look), value_of(tb, look)
        except (Undefined, ZeroDivisionError, ValueError, ArithmeticError):
            continue
        defined += 1
        if agree(a, b, real and not integers):  # at integer points exactly: n!-sized values dwarf any tolerance
            good += 1
        elif witness is None:
            witness = (dict(look.assigned), a, b)
            if stop:
                break
    return good, defined, witness


def is_identity(ta, tb, facts, seed, definitions=False, solve=None, positive=False) -> bool:
    good, defined, _ = holds_at_points(ta, tb, facts, seed, False, definitions, solve, stop=True, positive=positive)
    return defined >= 3 and good == defined


def explained(ta, tb, facts: Facts, seed: int, recent: bool = False) -> str | None:
    """Why a non-identity still holds given what came before (a reason), or None; ``recent``:
    only equations of this step and the one before."""
    link_names = names(ta) | names(tb)
    for premise in facts.premises_on(link_names, limit=12):  # in force: never a refuted step's
        left, right, at = premise.left, premise.right, premise.step
        if recent and at < facts.step - 1:
            break
        for x in sorted((names(left) | names(right)) & link_names):
            try:
                if is_identity(ta, tb, facts, seed, solve=linear_solver((left, right), x, facts)):
                    where = "the problem" if at < 0 else f"step {at + 1}"
                    return f"follows from {to_text(left)} = {to_text(right)} ({where}) solved for {x}"
            except EvaluationError:
                continue
    return None


def linear_solver(eq, x: str, facts: Facts):
    """At a point, set x so that the equation ``eq = (left, right)`` holds, if it is affine in x."""
    left, right = eq

    def solve(look: RandomPoint) -> bool:
        g = []
        for t in (Fraction(0), Fraction(1), Fraction(2)):
            look.assigned[x] = t
            g.append(exact(left, look) - exact(right, look))
        slope = g[1] - g[0]
        if slope == 0 or g[2] - g[1] != slope:
            return False
        look.assigned[x] = -g[0] / slope
        return True

    return solve


def small_counterexample(ta, tb, facts: Facts, free: list[str]):
    """A point with small positive integers where the sides differ, for the evidence."""
    pools = [[2, 3, 5, 7, 11, 13], [3, 2, 7, 5, 13, 11], [2, 5, 3, 11, 7, 13], [4, 3, 6, 5, 8, 7]]
    for pool in pools:
        fixed = {n: Fraction(pool[i % len(pool)] + 10 * (i // len(pool))) for i, n in enumerate(free)}
        look = RandomPoint(facts, random.Random(0), False, fixed)
        try:
            a, b = value_of(ta, look), value_of(tb, look)
        except (EvaluationError, ArithmeticError, ValueError):
            continue
        if not agree(a, b, False):
            return {k: v for k, v in look.assigned.items() if k in fixed}, a, b
    return None


def seed_of(text: str) -> int:
    return zlib.crc32(text.encode("utf-8"))


def congruence_holds(ta, tb, modulus_tree, facts: Facts, seed: int) -> bool | None:
    """``a ≡ b (mod n)`` with free names at random positive integers: True if it holds at every
    one (Fermat's ``a^5 ≡ a (mod 5)``), False if not, None if too few could be evaluated."""
    rng = random.Random(seed)
    tried = 0
    for _ in range(N_POINTS):
        look = RandomPoint(facts, rng, False, integers=True)
        try:
            a, b, m = exact(ta, look), exact(tb, look), exact(modulus_tree, look)
        except (EvaluationError, ArithmeticError, ValueError):
            continue
        if not all(v.denominator == 1 for v in (a, b, m)) or m == 0:
            continue
        tried += 1
        if (a - b) % m:
            return False
    return True if tried >= 3 else None
