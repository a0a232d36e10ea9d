"""Inequalities between expressions with free names, checked at random admissible points.

A later link of a chain (``(a + b)^2 ≥ 4ab + 1`` after ``a^2 + b^2 + 2ab``) in a solution about
positive reals is a step of a derivation: it holds for every admissible a, b. The first link may
be a hypothesis about particular values and is not checked.

The domain comes from the problem: its names are positive ("positive", "a, b, c > 0"),
non-negative or real, integers when it says so, and the sides of a triangle when it speaks of one;
the inequalities the problem states as conditions ("with a > 0, a + b + c ≥ 0") hold at every
point drawn (never the inequality it asks about). A claim is checked only in names the problem itself uses and nothing
else narrows — no equation in them (``abc = 1``), no ordering of bare names (``a ≥ b``,
``n ≥ 3``) in the problem or an earlier step — and only when the step is not a condition, a case
or a goal ("if", "suppose", "we need to show"). Then the inequality is evaluated exactly at random
admissible points; it is false with the first point where it fails as evidence, and valid when it
holds at all of them. A first statement that holds at every point is true whatever its role; one
that fails somewhere may be a hypothesis about particular values and is left unchecked.
"""

from __future__ import annotations

import random

from accord.mathcheck.reading import EvaluationError, Unknown, nearly_equal, show, to_text, value_of
from accord.mathcheck.state import Domain, Facts, admissible_point, free_names, holds_between, plain_term

N_POINTS = 24
N_FIRST = 60  # a first statement: valid or false only on this many points drawn at every scale
MAX_DRAWS = 400  # conditions few random points satisfy: draw on until N_POINTS do
_ORDER = {"<", "≤", ">", "≥"}


def check_inequality(
    rel: str, ta, tb, facts: Facts, domain: Domain | None, seed: int, first: bool = False
) -> tuple[bool | None, str]:
    """(holds, reason) of ``ta REL tb`` over the domain; None with the reason when not checked.

    ``first``: the first statement of a chain, which may be a hypothesis about particular values:
    valid when it holds at every point, false only when it fails at every point (it then holds for
    no admissible values at all), unchecked in between."""
    if domain is None:
        return None, "an inequality with free names, and the problem does not say where they live: not checked"
    free = free_names(ta, facts) | free_names(tb, facts)
    if not free or any(n.endswith("()") for n in free):
        return None, "an inequality between values of functions: not checked"
    if not free <= domain.named:
        return None, "an inequality in names the problem does not use: not checked"
    if free & domain.constrained:
        return None, "an inequality in names an equation or ordering ties down: not checked"
    if plain_term(ta) and plain_term(tb):
        return None, "an ordering of names (a condition): not checked"
    if first and (rel, ta, tb) in domain.conditions:
        return None, "a condition the problem gives, restated: not checked"
    rng = random.Random(seed)
    tried, failed = 0, None
    where = "admissible" if domain.signs or domain.conditions else domain.sign
    for _ in range(MAX_DRAWS):
        if tried >= (N_FIRST if first else N_POINTS):
            break
        point = admissible_point(rng, domain, free, wide=first)
        if point is None:
            continue
        look = lambda name: point[name] if name in point else facts.value(name)  # noqa: E731
        try:
            a, b = value_of(ta, look), value_of(tb, look)
            ok = holds_between(rel, a, b)
            if first and ok is not None and nearly_equal(a, b, 30) is not False:
                continue  # on the boundary: "x > x" is a slip of strictness, no evidence either way
        except (Unknown, EvaluationError, ArithmeticError, ValueError, TypeError):
            continue
        if ok is None:
            continue
        tried += 1
        if ok is False and failed is None:
            failed = (point, a, b)
            if not first:
                break
        if ok is True and first and failed is not None:
            return None, "a first statement that holds at some admissible points and not at others: not checked"
    if failed is not None and (not first or tried >= 6):
        point, a, b = failed
        at = ", ".join(f"{k} = {show(v)}" for k, v in sorted(point.items()) if k in free)
        never = f" (and at every one of {tried} random {where} points)" if first else ""
        return False, (
            f"the inequality {to_text(ta)} {rel} {to_text(tb)} fails at {at} ({where}"
            f"{' integers' if domain.integers else ''}){never}: the left side is {show(a)}, the right side "
            f"{show(b)}"
        )
    if tried < 6:
        return None, "an inequality accord could evaluate at too few admissible points: not checked"
    return True, f"holds at {tried} random {where} points"
