"""An equation derived from the one before it by an operation on both sides, checked against it.

"Subtracting a, 10b, 100c and 1000d from both sides gives: 3999a + 390b + 30c - 996d = 0", after
"4000a + 400b + 40c + 4d = 1000d + 100c + 10b + a": when the step (or its lead-in) says it
rearranges, subtracts, adds, moves, expands, simplifies, collects, groups, factors, rewrites, divides
or multiplies, and does not substitute or bring in another equation, the new equation must hold wherever an equation of
the previous step (or the one before, across a lead-in) holds. It is false when, for every such
equation in the same names, a point satisfying it (solved for one name; the others drawn at
random) violates the new one: that point is the evidence.
"""

from __future__ import annotations

import random
import re
from fractions import Fraction

from accord.mathcheck.checks._consequences import holds_at, numeric_point
from accord.mathcheck.reading import LET, EvaluationError, exact, names, show, to_text
from accord.mathcheck.state import Facts, RandomPoint, free_names, is_identity

_TRANSFORM = re.compile(
    r"\b(?:rearrang\w*|subtract\w*|adding|add|mov(?:e|es|ing)|expand\w*|simplif\w*|collect\w*|"
    r"combin\w*|bring\w*|divid\w*|multiply\w*|multiplied|cancel\w*|both sides|"
    r"cross[- ]?multipl\w*|solv\w*|isolat\w*|squar\w*|raising|(?:re)?group\w*|factor\w*|rewrit\w*|rewrote)\b",
    re.IGNORECASE,
)
_OTHER = re.compile(
    r"\b(?:set|sets|setting|substitut\w*|plug\w*|insert\w*|replac\w*|equations|system|first equation|second equation|"
    r"other equation|into|using\s+(?:equations?|eq|the\s+(?:first|second|third|other|given|previous)\s+equation)|"
    r"mod\w*|if|when|case|assum\w*|suppos\w*|" + LET + r")\b|\(\d\)|≡",
    re.IGNORECASE,
)
N_TRIES = 8


def transforms(step: str, lead_in: str = "") -> bool:
    """The step, or its lead-in line, says it operates on the equation before it, and nothing else."""
    both = f"{lead_in}\n{step}"
    return bool(_TRANSFORM.search(both)) and not _OTHER.search(both)


def solve_point(left, right, x: str, free: list[str], facts: Facts, rng: random.Random):
    """A point where ``left = right`` holds: the other names random, ``x`` solved (when linear in x)."""
    fixed = {n: Fraction(rng.randint(-9, 9) or 1, rng.randint(1, 4)) for n in free if n != x}

    def f(v):
        look = RandomPoint(facts, rng, False, dict(fixed, **{x: Fraction(v)}))
        return exact(left, look) - exact(right, look)

    f0, f1, f2 = f(0), f(1), f(2)
    slope = f1 - f0
    if slope == 0 or f2 - f1 != slope:
        return None
    fixed[x] = -f0 / slope
    return fixed if f(fixed[x]) == 0 else None


def is_case(left, right) -> bool:
    """``b = 1``: a name given a value (a case, or a conclusion), not an equation to operate on."""
    return any(
        a[0] == "name" and (b[0] == "num" or b[0] == "neg" and b[1][0] == "num")
        for a, b in ((left, right), (right, left))
    )


def _candidates(ta, tb, free: set[str], facts: Facts, seed: int) -> list[tuple]:
    """The equations of the step before (or the one before that) in the same names that a derived
    equation may come from: not an identity (it constrains nothing), not a case such as ``b = 0``."""
    if is_case(ta, tb):
        return []
    return [
        (l, r)
        for l, r, at in facts.equations
        if facts.step - 2 <= at < facts.step
        and (free_names(l, facts) | free_names(r, facts)) == free
        and not is_case(l, r)
        and not identity_safely(l, r, facts, seed)
    ]


def identity_safely(left, right, facts: Facts, seed: int) -> bool:
    """Whether ``left = right`` holds everywhere (False when it cannot be evaluated)."""
    try:
        return is_identity(left, right, facts, seed)
    except (EvaluationError, ArithmeticError, ValueError):
        return False


def _point(left, right, x: str, free: list[str], facts: Facts, rng: random.Random) -> tuple[dict | None, bool]:
    """A point where ``left = right`` holds and whether it is exact (``x`` solved when linear in it,
    else found by a root finder)."""
    try:
        pt = solve_point(left, right, x, free, facts, rng)
    except (EvaluationError, ArithmeticError, ValueError):
        pt = None
    if pt is not None:
        return pt, True
    return numeric_point(left, right, x, free, facts, rng), False


def does_not_follow(ta, tb, facts: Facts, seed: int, candidates: list[tuple] | None = None) -> str | None:
    """The evidence that ``ta = tb`` fails where every candidate earlier equation holds (by default
    those of the steps just before in the same names), or None."""
    free = free_names(ta, facts) | free_names(tb, facts)
    if not free or any(n.endswith("()") for n in free):
        return None
    if candidates is None:
        candidates = _candidates(ta, tb, free, facts, seed)
    if not candidates:
        return None
    rng = random.Random(seed)
    evidence = None
    for left, right in candidates:
        found = None
        for x in sorted(free & (names(left) | names(right))):
            for _ in range(N_TRIES):
                try:
                    pt, solved = _point(left, right, x, sorted(free), facts, rng)
                    if pt is None:
                        break
                    if not solved:  # a root found numerically
                        same, a, b = holds_at(ta, tb, pt, facts)
                        if same is not False:
                            return None
                    else:
                        look = RandomPoint(facts, rng, False, pt)
                        a, b = exact(ta, look), exact(tb, look)
                except (EvaluationError, ArithmeticError, ValueError, TypeError):
                    break
                if a == b:
                    return None  # it holds where this equation holds, at least here: not refuted
                found = found or (pt, a, b)
            if found:
                break
        if found is None:
            return None
        if evidence is None:
            pt, a, b = found
            at = ", ".join(f"{k} = {show(v)}" for k, v in sorted(pt.items()))
            evidence = (
                f"does not follow from the equation before it, {to_text(left)} = {to_text(right)}: at {at}, "
                f"where that equation holds, the left side is {show(a)}, the right side {show(b)}"
            )
    return evidence


def follows(ta, tb, facts: Facts, seed: int, candidates: list[tuple] | None = None) -> str | None:
    """Why ``ta = tb`` follows from a candidate equation (by default one of the step before in the
    same names): it holds at every one of several points where that equation holds; or None."""
    free = free_names(ta, facts) | free_names(tb, facts)
    if not free or any(n.endswith("()") for n in free):
        return None
    if candidates is None:
        candidates = _candidates(ta, tb, free, facts, seed)
    rng = random.Random(seed)
    for left, right in candidates:
        for x in sorted(free & (names(left) | names(right))):
            good = 0
            for _ in range(4):
                try:
                    pt, solved = _point(left, right, x, sorted(free), facts, rng)
                    if not solved:
                        same = None if pt is None else holds_at(ta, tb, pt, facts)[0]
                    else:
                        look = RandomPoint(facts, rng, False, pt)
                        same = exact(ta, look) == exact(tb, look)
                except (EvaluationError, ArithmeticError, ValueError, TypeError):
                    same = None
                if same is not True:
                    break
                good += 1
            if good == 4:
                return (
                    f"follows from the equation before it, {to_text(left)} = {to_text(right)} "
                    "(holds at 4 points where it holds)"
                )
    return None
