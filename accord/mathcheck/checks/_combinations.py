"""An equation got by adding or subtracting earlier equations must be a combination of them.

"x + y = a^2 (Equation 1)", "x + 2y = b^2 (Equation 2)", "2x + y = c^2 (Equation 3)", then
"Subtracting Equation 3 from Equation 4, we get: y = a^2 + b^2 - c^2": adding, subtracting or
scaling equations gives an equation whose difference of sides (left − right) is a sum of the earlier
differences times numbers. Evaluated exactly at random rational points, that is a linear system for
the numbers; it has a solution when the equation is such a combination, and none when it is not
(whatever the numbers, some point tells them apart). Every equation the context keeps is offered, so
an equation is flagged only when no combination of any of them gives it.
"""

from __future__ import annotations

import random
import re
from fractions import Fraction

from accord.mathcheck.reading import EvaluationError, Undefined, exact, to_text
from accord.mathcheck.state import Facts, RandomPoint, free_names

_COMBINES = re.compile(r"\b(?:add\w*|subtract\w*|sum\w*|combin\w*)\b[^.;]{0,60}\bequations?\b", re.IGNORECASE)
_OTHER = re.compile(r"\b(?:substitut\w*|plug\w*|into|solv\w*|divid\w*|multipl\w*|squar\w*)\b", re.IGNORECASE)
EXTRA_POINTS = 4


def combines_equations(words: str) -> bool:
    """ "Adding Equation 1 and Equation 2", "subtracting the first equation from the second"."""
    return bool(_COMBINES.search(words)) and not _OTHER.search(words)


def _rank(rows: list[list[Fraction]]) -> int:
    rows = [r[:] for r in rows]
    rank, width = 0, len(rows[0]) if rows else 0
    for col in range(width):
        pivot = next((i for i in range(rank, len(rows)) if rows[i][col] != 0), None)
        if pivot is None:
            continue
        rows[rank], rows[pivot] = rows[pivot], rows[rank]
        for i in range(len(rows)):
            if i != rank and rows[i][col] != 0:
                f = rows[i][col] / rows[rank][col]
                rows[i] = [a - f * b for a, b in zip(rows[i], rows[rank])]
        rank += 1
    return rank


def combination_check(ta, tb, facts: Facts, seed: int) -> tuple[bool, str] | None:
    """(holds, why) for ``ta = tb`` said to come from adding or subtracting earlier equations;
    None when there are none to combine or a side cannot be evaluated exactly."""
    new_names = free_names(ta, facts) | free_names(tb, facts)
    if not new_names or any(n.endswith("()") for n in new_names):
        return None
    earlier = [(a, b) for a, b, _ in facts.equations if free_names(a, facts) | free_names(b, facts)]
    if not earlier:
        return None
    rng = random.Random(seed)
    rows, target = [], []
    for _ in range(len(earlier) + EXTRA_POINTS):
        look = RandomPoint(facts, rng, False)
        try:
            row = [exact(a, look) - exact(b, look) for a, b in earlier]
            value = exact(ta, look) - exact(tb, look)
        except (EvaluationError, Undefined, ArithmeticError, ValueError, TypeError):
            return None
        if not all(isinstance(v, Fraction) for v in [*row, value]):
            return None
        rows.append(row)
        target.append(value)
    combined = _rank(rows) == _rank([r + [t] for r, t in zip(rows, target)])
    shown = "; ".join(f"{to_text(a)} = {to_text(b)}" for a, b in earlier[-4:])
    if combined:
        return True, f"a combination of the equations before ({shown})"
    return False, (
        f"{to_text(ta)} = {to_text(tb)} is no sum of multiples of the equations before ({shown}"
        f"{' …' if len(earlier) > 4 else ''}): adding or subtracting them cannot give it"
    )
