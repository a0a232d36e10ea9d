"""The counterexample of a false rewrite satisfies the problem's own equation when it states one."""

import re
from fractions import Fraction

from accord.mathcheck.checks._claims import solution_check

PROBLEM = "Real numbers a, b and c satisfy a + b + c = 9. Find the least value of a^2 + b^2 + c^2 - ab - bc - ca."


def point(reason: str) -> dict[str, Fraction]:
    return {
        k: Fraction(v)
        for k, v in re.findall(
            r"\b([abc]) = (-?\d+(?:\.\d+)?(?:/\d+)?)", re.split(r" \(where|, which", reason)[0].split(" at ")[-1]
        )
    }


def test_the_shown_point_lies_on_the_problem_condition():
    score, reason = solution_check(
        PROBLEM,
        ["We complete squares."],
        "So E = a^2 + b^2 + c^2 - ab - bc - ca = (a - b)^2 + (b - c)^2 + (c - a)^2 - 9.",
    )
    assert score == 0.0 and "which satisfies the problem (a + b + c = 9)" in reason, reason
    pt = point(reason)
    assert set(pt) == {"a", "b", "c"} and sum(pt.values()) == 9
    left = pt["a"] ** 2 + pt["b"] ** 2 + pt["c"] ** 2 - pt["a"] * pt["b"] - pt["b"] * pt["c"] - pt["c"] * pt["a"]
    right = (pt["a"] - pt["b"]) ** 2 + (pt["b"] - pt["c"]) ** 2 + (pt["c"] - pt["a"]) ** 2 - 9
    assert left != right


def test_a_rewrite_that_holds_on_the_condition_is_not_flagged():
    score, _ = solution_check(
        PROBLEM,
        ["We complete squares."],
        "So E = a^2 + b^2 + c^2 - ab - bc - ca = ((a - b)^2 + (b - c)^2 + (c - a)^2)/2.",
    )
    assert score != 0.0
    score, _ = solution_check(PROBLEM, ["We use the condition."], "So F = a + b + c - 9 + a = a.")
    assert score != 0.0


def test_without_a_condition_the_small_point_is_kept():
    score, reason = solution_check("Simplify x^2 - y^2.", ["We factor."], "So D = x^2 - y^2 = (x - y)^2.")
    assert score == 0.0 and "where" not in reason
