"""A counterexample that satisfies the problem's own equations, for the evidence of a false rewrite.

When a rewrite is not an identity and no earlier equation explains it, the evidence shows a point
where its sides differ. A point that breaks the problem's condition ("a + b + c = 9" with
a = 2, b = 3, c = 5) refutes the identity but not the step as the problem reads it; a point on
the condition (a = 2, b = 3, c = 4) refutes both. So the problem's equations over the rewrite's
names that are affine in one of them are tried first: the other names take small integers and
that one is solved for.
"""

from __future__ import annotations

import random
from fractions import Fraction

from accord.mathcheck.reading import EvaluationError, names, to_text, value_of
from accord.mathcheck.state import Facts, RandomPoint, agree, linear_solver

_POOLS = ([2, 3, 5, 7, 11, 13], [3, 2, 7, 5, 13, 11], [2, 5, 3, 11, 7, 13], [4, 3, 6, 5, 8, 7])


def on_the_problem(ta, tb, facts: Facts, free: list[str]) -> tuple[dict, object, object, str] | None:
    """(point, left value, right value, the problem's equation) where ``ta = tb`` fails on that
    equation; None when the problem states no usable equation or every small point agrees."""
    for left, right, at in facts.equations:
        eq_names = names(left) | names(right)
        if at >= 0 or not eq_names or not eq_names <= set(free):
            continue
        for x in sorted(eq_names):
            solve = linear_solver((left, right), x, facts)
            others = [n for n in free if n != x]
            for pool in _POOLS:
                fixed = {n: Fraction(pool[i % len(pool)] + 10 * (i // len(pool))) for i, n in enumerate(others)}
                look = RandomPoint(facts, random.Random(0), False, fixed)
                try:
                    if not solve(look):
                        break  # not affine in x
                    a, b = value_of(ta, look), value_of(tb, look)
                except (EvaluationError, ArithmeticError, ValueError):
                    continue
                if not agree(a, b, False):
                    point = {k: v for k, v in look.assigned.items() if k in free}
                    return point, a, b, f"{to_text(left)} = {to_text(right)}"
    return None
