"""A relation that keeps one side of the relation before it: the other side was rewritten.

(An equation that keeps a side is a rewrite of the equation before, checked by the consequence
check against it and everything in force: :mod:`accord.mathcheck.checks._consequence`.) Words that
rewrite one named side ("Simplifying the right side, we have:") say the same of an
inequality: the other side stays, and the named side must be the earlier one rewritten
(:func:`side_rewritten`). So do words that rewrite without naming a side ("Expanding the square,
we get:") when one side is written exactly as before and nothing else is done to the relation
(no multiplying, adding, bounding or theorem applied).

An equation whose sides differ by the same nonzero number wherever they are evaluated holds for
no value of its names (:func:`never_equal`), whatever the solution knows of them.
"""

from __future__ import annotations

import random
import re

from accord.mathcheck.reading import LET, EvaluationError, MathParseError, exact, read_chains, show, to_text
from accord.mathcheck.state import Facts, RandomPoint, free_names, holds_at_points, parse_side

_ELSEWHERE = re.compile(
    r"\b(?:substitut\w*|plug\w*|replac\w*|insert\w*|set|sets|setting|" + LET + r"|suppos\w*|assum\w*|case|if|when|"
    r"mod\w*|equations|system|from\s+(?:the|equation)|equation\s*\(?\d|into|where|for\s+some|try|trying|"
    r"check\w*|similarly|another|other)\b|\(\d\)|≡",
    re.IGNORECASE,
)


def never_equal(ta, tb, facts: Facts, seed: int) -> str | None:
    """Why ``ta = tb`` holds for no value of its names, when its sides differ by the same nonzero
    number at every point ("7y^2 + 9 = 7y^2 + 2^2"); None otherwise."""
    free = sorted(free_names(ta, facts) | free_names(tb, facts))
    if not free or any(n.endswith("()") for n in free):
        return None
    rng = random.Random(seed)
    gaps = set()
    for _ in range(6):
        look = RandomPoint(facts, rng, False)
        try:
            gaps.add(exact(ta, look) - exact(tb, look))
        except (EvaluationError, ArithmeticError, ValueError, TypeError):
            return None
        if len(gaps) > 1:
            return None
    gap = gaps.pop()
    if gap == 0:
        return None
    return f"its sides differ by {show(gap)} whatever the value of {', '.join(free)}: it holds for no value"


_NAMED_SIDE = re.compile(r"\b(right|left)[- ](?:hand[- ])?side\b|\b(RHS|LHS)\b", re.IGNORECASE)
_REWRITES_SIDE = re.compile(r"\b(?:simplif\w*|expand\w*|rewrit\w*|factor\w*|combin\w*|group\w*|writ\w*)\b", re.I)


_CHANGING = re.compile(
    r"\b(?:both\s+sides|multipl\w*|divid\w*|add\w*|subtract\w*|squaring|squared|square\s+(?:both|each|it|this|the\s+inequality)|rais\w*|tak\w*|apply\w*|using|"
    r"since|because|by|inequalit(?:y|ies)\s+(?:of|for|to)|bound\w*|minim\w*|maxim\w*|drop\w*|omit\w*|ignor\w*)\b",
    re.IGNORECASE,
)


def last_link(texts: list[str], facts: Facts):
    """(left, relation, right) of the last link of the latest text that has one, or None."""
    for text in reversed(texts):
        for chain in reversed(read_chains(text)):
            if not chain.relations:
                continue
            k = len(chain.relations) - 1
            try:
                (a, odd_a), (b, odd_b) = (parse_side(chain.sides[j], facts.functions) for j in (k, k + 1))
            except MathParseError:
                return None
            return None if odd_a or odd_b else (a, chain.relations[k], b)
    return None


def agree_at_points(new, old, facts: Facts, seed: int, positive: bool):
    """(agreeing points, defined points, first disagreeing point) of ``new = old``, again at positive
    points when most random points leave a side undefined."""
    good, defined, witness = holds_at_points(new, old, facts, seed, False, False, stop=True, positive=positive)
    if not positive and witness is None and defined < 3:  # √a, log b: undefined at negative points
        good, defined, witness = holds_at_points(new, old, facts, seed, False, False, stop=True, positive=True)
    return good, defined, witness


def side_rewritten(rel, ta, tb, before: list[str], step: str, facts: Facts, seed: int, positive: bool):
    """(holds, why) for a relation after words that rewrite one named side of the relation before
    ("Simplifying the right side, we have:"): the other side must be the same expression, and
    the named side the earlier one rewritten (at positive points when the problem's names are
    positive); None when the words name no single side or the relation before differs."""
    words = "\n".join([*before[-1:], step])
    sides = {(m.group(1) or m.group(2)).lower()[0] for m in _NAMED_SIDE.finditer(words)}
    if len(sides) > 1 or not _REWRITES_SIDE.search(words) or _ELSEWHERE.search(words):
        return None
    earlier = last_link(before, facts)
    if earlier is None or earlier[1] != rel:
        return None
    a0, _, b0 = earlier
    if not sides:  # "Expanding the square, we get:" and one side written as before: the other is rewritten
        if _CHANGING.search(words) or (to_text(ta) == to_text(a0)) == (to_text(tb) == to_text(b0)):
            return None
        sides = {"r" if to_text(ta) == to_text(a0) else "l"}
    named = sides.pop()  # "r" or "l"
    new, old, other_new, other_old = (tb, b0, ta, a0) if named == "r" else (ta, a0, tb, b0)
    if not free_names(old, facts) | free_names(new, facts):
        return None
    _, defined, witness = agree_at_points(other_new, other_old, facts, seed, positive)
    if witness is not None or defined < 3:
        return None  # the other side changed too: not a rewrite of one side
    good, defined, witness = agree_at_points(new, old, facts, seed, positive)
    side = "right" if named == "r" else "left"
    if witness is None:
        return (True, f"the {side} side is {to_text(old)} rewritten (holds at {good} points)") if defined >= 3 else None
    point, a, b = witness
    at = ", ".join(f"{k} = {show(v)}" for k, v in sorted(point.items()))
    return False, (
        f"the {side} side rewritten must equal the {side} side before, {to_text(old)}: at {at}, {to_text(new)} is "
        f"{show(a)}, not {show(b)}"
    )
