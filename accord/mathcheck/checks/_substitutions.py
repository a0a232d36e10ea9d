"""A relation after substituting an equation the step states: the changed side must equal the side
before wherever that equation holds.

"a^2bc + ab^2c + abc^2 > bc + ac + ab", then "Since abc = 1, we can substitute it into the
equation:" and "a^2 + b^2 + c^2 > bc + ac + ab": the right side is written as before, so the left
side must be the earlier left side at every point where abc = 1 (a^2bc is a there, not a^2). Points
on the stated equation are found by solving it for one of its names (when it is linear in that
name), the other names drawn at random; a point where the two sides differ is the evidence.
"""

from __future__ import annotations

import random
import re

from accord.mathcheck.checks._kept_sides import last_link
from accord.mathcheck.checks._transforms import solve_point
from accord.mathcheck.reading import (
    EvaluationError,
    MathParseError,
    Undefined,
    exact,
    is_lead_in,
    read_chains,
    show,
    to_text,
)
from accord.mathcheck.state import Facts, RandomPoint, free_names, parse_side

_SUBSTITUTES = re.compile(r"\b(?:substitut\w*|plug\w*)\b", re.IGNORECASE)
N_POINTS = 6


def _stated_equation(text: str, facts: Facts):
    """The one equation ``text`` states (two parsed sides), or None."""
    found = [c for c in read_chains(text) if c.relations]
    if len(found) != 1 or found[0].relations != ("=",):
        return None
    try:
        (a, odd_a), (b, odd_b) = (parse_side(s, facts.functions) for s in found[0].sides)
    except MathParseError:
        return None
    return None if odd_a or odd_b else (a, b)


def substituted_side(rel, ta, tb, before: list[str], step: str, facts: Facts, seed: int):
    """(holds, why) for ``ta rel tb`` shown after a lead-in that substitutes the equation it states
    into the relation before it; None when the rule does not apply (module docstring)."""
    if len(before) < 2 or not before[-1] or not is_lead_in(before[-1]) or not _SUBSTITUTES.search(before[-1]):
        return None
    stated = _stated_equation(before[-1], facts)
    earlier = last_link([t for t in before[:-1] if t], facts)
    if stated is None or earlier is None or earlier[1] != rel:
        return None
    a0, _, b0 = earlier
    same_left, same_right = to_text(ta) == to_text(a0), to_text(tb) == to_text(b0)
    if same_left == same_right:
        return None
    new, old, side = (tb, b0, "right") if same_left else (ta, a0, "left")
    ea, eb = stated
    eq_names = sorted(free_names(ea, facts) | free_names(eb, facts))
    names = sorted(set(eq_names) | free_names(new, facts) | free_names(old, facts))
    if not eq_names or any(n.endswith("()") for n in names):
        return None
    rng = random.Random(seed)
    agreed = 0
    for k in range(N_POINTS * 2):
        point = solve_point(ea, eb, eq_names[k % len(eq_names)], names, facts, rng)
        if point is None:
            continue
        look = RandomPoint(facts, rng, False, point)
        try:
            x, y = exact(new, look), exact(old, look)
        except (EvaluationError, Undefined, ArithmeticError, ValueError, TypeError):
            continue
        if x == y:
            agreed += 1
            if agreed >= N_POINTS:
                break
            continue
        at = ", ".join(f"{n} = {show(v)}" for n, v in sorted(look.assigned.items()))
        return False, (
            f"after substituting {to_text(ea)} = {to_text(eb)}, the {side} side must still be {to_text(old)}: at "
            f"{at}, where {to_text(ea)} = {to_text(eb)}, {to_text(new)} is {show(x)}, not {show(y)}"
        )
    if agreed < 3:
        return None
    return True, f"the {side} side is {to_text(old)} where {to_text(ea)} = {to_text(eb)} (holds at {agreed} points)"
