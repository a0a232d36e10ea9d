"""A relation derived from the one before it, checked as its consequence where exact solving cannot.

- An equation derived by an operation on both sides (:mod:`accord.mathcheck.checks._transforms`) after
  an equation that is not linear in any of its names ("2^a/(2^b - 1) = 7"): a point where that
  equation holds is found numerically (one name solved by a root finder at 60 digits, the others
  drawn at random), and the new equation must hold there too (:func:`numeric_point`).
- An inequality derived by an operation on both sides ("dividing both sides by a gives ...") after
  an inequality of the step before in the same names: at random points of the problem's domain
  (positive, non-negative or real; integers when it says so) that satisfy the earlier inequality
  and every sign the solution states of a bare name ("a > 0", "b ≠ 0"), the new one must hold
  (:func:`inequality_follows`); points are drawn until enough satisfy an earlier inequality that
  few points do. Names an equation ties down, or a step that speaks of signs
  in words, are left alone: a point off the problem's condition is no evidence.
"""

from __future__ import annotations

import random
import re
from fractions import Fraction

import mpmath

from accord.mathcheck.reading import (
    EvaluationError,
    MathParseError,
    Unknown,
    approx,
    as_mp,
    nearly_equal,
    read_chains,
    show,
    to_text,
    value_of,
)
from accord.mathcheck.state import Facts, admissible_point, free_names, parse_side

N_POINTS = 60
MAX_DRAWS = 600  # an earlier inequality that few random points satisfy: draw on until N_POINTS do
MIN_ADMISSIBLE = 8
_ORDER = {"<", "≤", ">", "≥"}
_SIGN_WORDS = re.compile(r"\b(?:positive|negative|nonzero|non-zero|sign|flip\w*|revers\w*|absolute)\b", re.IGNORECASE)


def numeric_point(left, right, x: str, free: list[str], facts: Facts, rng: random.Random) -> dict | None:
    """A point where ``left = right`` holds to 60 digits: the names other than ``x`` random, ``x``
    found by a root finder; None when no root is found near the starting values."""
    fixed = {n: mpmath.mpf(rng.randint(1, 9)) / rng.randint(1, 4) for n in free if n != x}

    def f(v):
        point = dict(fixed, **{x: v})
        return approx(left, lambda n: point[n] if n in point else facts.value(n)) - approx(
            right, lambda n: point[n] if n in point else facts.value(n)
        )

    with mpmath.workdps(60):
        for start in (1, 2, 5, 0.5):
            try:
                root = mpmath.findroot(f, mpmath.mpf(start), tol=mpmath.mpf(10) ** -50)
            except (ValueError, ZeroDivisionError, EvaluationError, ArithmeticError, TypeError):
                continue
            if isinstance(root, mpmath.mpc) or not mpmath.isfinite(root):
                continue
            if abs(root) < mpmath.mpf(10) ** -6:
                continue  # a zero root: what a step divides by, "k cannot be zero"
            try:
                if abs(f(root)) < mpmath.mpf(10) ** -40:
                    return dict(fixed, **{x: root})
            except (EvaluationError, ArithmeticError, ValueError):
                continue
    return None


def holds_at(ta, tb, point: dict, facts: Facts) -> tuple[bool | None, object, object]:
    """Whether ``ta = tb`` at a numeric point (None: too close to tell), with both sides."""
    with mpmath.workdps(60):
        look = lambda n: point[n] if n in point else facts.value(n)  # noqa: E731
        a, b = approx(ta, look), approx(tb, look)
        return nearly_equal(a, b, 20), a, b


def _kind(domain) -> str:
    """The points drawn, in words: "positive", "real", or "admissible" when names have their own signs."""
    return "admissible" if domain.signs or domain.conditions else domain.sign


def _speaks_of_signs(step: str, domain) -> bool:
    """The step speaks of signs in words, other than restating that the problem's names are
    positive ("since x and y are positive", where the domain already is)."""
    words = {w.lower() for w in _SIGN_WORDS.findall(step)}
    signs = {_kind(domain)} if not domain.signs else {sign for _, sign in domain.signs}
    return bool(words) and not (words == {"positive"} and signs == {"positive"})


def _holds(rel: str, a, b) -> bool | None:
    close = nearly_equal(a, b, 30)
    if close is not False:
        return None  # on the boundary, or too close to tell: no evidence either way
    if isinstance(a, Fraction) != isinstance(b, Fraction):
        a, b = as_mp(a), as_mp(b)  # an exact side against a side known to 60 digits
    return {"<": a < b, "≤": a <= b, ">": a > b, "≥": a >= b, "≠": a != b}[rel]


def inequality_follows(
    rel: str,
    ta,
    tb,
    facts: Facts,
    domain,
    before: list[str],
    signs: list[tuple[str, str]],
    step: str,
    seed: int,
    fewer_names: bool = False,
) -> tuple[bool, str] | None:
    """(False, the evidence) when ``ta REL tb`` fails at an admissible point where the inequality of
    ``before`` (the step before) in the same names holds, and the sign facts of the problem and the
    steps so far (``signs``, :func:`sign_facts`) hold; (True, why) when it holds at every such
    point; None when not checked (see the module docstring). With ``fewer_names`` the earlier
    inequality may have more names than the new one ("1 ≤ x^2 + xy, which implies x ≥ 1")."""
    if domain is None or _speaks_of_signs(step, domain):
        return None
    free = free_names(ta, facts) | free_names(tb, facts)
    if not free or any(n.endswith("()") for n in free) or free & domain.constrained or not free <= domain.named:
        return None  # only names the problem itself uses and nothing ties down: their domain is the problem's
    earlier = []
    for text in before:
        for chain in read_chains(text):
            try:
                trees = [parse_side(s, facts.functions)[0] for s in chain.sides]
            except MathParseError:
                continue
            for (a, b), r in zip(zip(trees, trees[1:]), chain.relations):
                used = free_names(a, facts) | free_names(b, facts)
                if r in _ORDER and (used == free or fewer_names and free < used <= domain.named - domain.constrained):
                    earlier.append((a, r, b))
    if not earlier:
        return None
    free = free | free_names(earlier[-1][0], facts) | free_names(earlier[-1][2], facts)
    signs = [(n, r) for n, r in signs if n in free]
    rng = random.Random(seed)
    for a0, r0, b0 in earlier[-1:]:  # the relation just before: the one the step operates on
        admissible, found = 0, None
        for _ in range(MAX_DRAWS):
            if admissible >= N_POINTS:
                break
            point = admissible_point(rng, domain, free, wide=True)
            if point is None or any(_holds(r, point[n], 0) is False for n, r in signs):
                continue
            look = lambda n: point[n] if n in point else facts.value(n)  # noqa: E731
            try:
                if _holds(r0, value_of(a0, look), value_of(b0, look)) is not True:
                    continue
                a, b = value_of(ta, look), value_of(tb, look)
                ok = _holds(rel, a, b)
            except (Unknown, EvaluationError, ArithmeticError, ValueError, TypeError):
                continue
            if ok is None:
                continue
            admissible += 1
            if ok is False and found is None:
                found = (point, a, b)
        if admissible < MIN_ADMISSIBLE:
            return None
        if found is None:
            return True, (
                f"follows from the inequality before it, {to_text(a0)} {r0} {to_text(b0)} (holds at "
                f"{admissible} {_kind(domain)} points where it holds)"
            )
        point, a, b = found
        at = ", ".join(f"{k} = {show(v)}" for k, v in sorted(point.items()))
        return False, (
            f"{to_text(ta)} {rel} {to_text(tb)} does not follow from the inequality before it, {to_text(a0)} "
            f"{r0} {to_text(b0)}: at {at} ({_kind(domain)}{' integers' if domain.integers else ''}), where that "
            f"inequality holds, the left side is {show(a)}, the right side {show(b)}"
        )
    return None
