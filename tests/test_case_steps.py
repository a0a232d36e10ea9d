"""Equations derived in a case the step opens with ("If y = 2, then x^2 = 29").

The case's values are put into the problem's equation, or one of the steps just before, that names
the case variable: the derived equation is valid when it follows there, invalid when it does not,
and the evidence names the case and the point. A run of cases goes back to the general equation,
not to the case before it.
"""

from __future__ import annotations

import pytest
from cli_runs import verified

from accord.mathcheck.checks._case_steps import case_values
from accord.mathcheck.checks._claims import solution_check
from accord.mathcheck.reading._reader import applied_names

PELL = "Find all integer solutions to the equation x^2-3y^2=17."
AUTOMORPHIC = "An integer a is called automorphic if a^2 ends in a. Find all two-digit automorphic numbers."
GENERAL = "Writing a = 10x + y, the last two digits give y(20x + y) = 10x + y, that is, y(20x + y - 1) = 10x."


@pytest.mark.parametrize(
    ("step", "values"),
    [
        ("If y = 0, then x^2 = 17, but x is not an integer.", {"y": 0}),
        ("For x=1, we get y(20 + y - 1) = 10.", {"x": 1}),
        ("If \\( x = 1 \\) and \\( y = 2 \\), we get 3 = 3.", {"x": 1, "y": 2}),
        ("- For $b = 0$, the number becomes 100.", {"b": 0}),
        ("For sin(x) = 0, we have x = 0 or x = π.", {}),  # a condition, not a case with a value
        ("If x^2 = 4, then x = 2.", {}),
        ("For n = 2.5, the sum is 7.", {}),
        ("So x = 3 and y = 1.", {}),  # a conclusion, not a case
    ],
)
def test_the_case_a_step_opens_with(step, values):
    assert case_values(step) == values


@pytest.mark.parametrize(
    ("step", "score"),
    [
        ("If y = 1, then x^2 = 20, but x is not an integer.", 1.0),
        ("If y = 2, then x^2 = 41, but x is not an integer.", 0.0),  # 17 + 12 = 29
        ("If y = 4, then x^2 = 65.", 1.0),
        ("If y = 4, then x^2 = 185, and x = 13 or x = -13.", 0.0),
        ("If y = 2, then x^2 - 12 = 17, so x^2 = 28.", 0.0),
    ],
)
def test_an_equation_in_a_case_is_the_problems_with_the_value_put_in(step, score):
    got, why = solution_check(PELL, [], step)
    assert got == score, why
    if score == 0.0:
        assert "in the case y = " in why and "does not follow from x^2 - 3·y^2 = 17" in why, why


def test_a_run_of_cases_goes_back_to_the_general_equation_not_the_case_before():
    before = [GENERAL, "Now try every x from 1 to 9.", "For x=1, we get y(20 + y - 1) = 10, so y^2 + 19y = 10."]
    got, why = solution_check(AUTOMORPHIC, before, "For x=2, we get y(40 + y - 1) = 20, so y^2 + 39y = 20.")
    assert got == 1.0 and "follows from step 1" in why, why  # the general equation, with the case's x = 2
    got, why = solution_check(
        AUTOMORPHIC, before, "For x=2, we get y(40 + y - 1) = 20, which simplifies to y(39) = 20."
    )
    # refuted in the case (by the case's check, or where its own equation fixes y: both roots fail)
    assert got == 0.0 and ("in the case x = 2: does not follow from" in why or "is refuted at y = " in why), why
    assert "y·(20 + y - 1) = 10" not in why  # never the previous case's equation


def test_a_letter_written_as_a_product_in_the_same_text_is_not_a_function():
    assert applied_names("For x=1, we get y(20 + y - 1) = 10, which simplifies to y(19) = 10.") == frozenset()
    assert applied_names("x(4) = 65536 and f(f(2)) = 3") == {"x", "f"}


def test_an_equation_with_several_names_left_is_not_refuted_by_one_of_several_equations():
    problem = "Real numbers x, y, n satisfy x + y = n and xy = n + 1. Find x^2 + y^2 in terms of n."
    got, why = solution_check(problem, [], "If n = 3, then x^2 + y^2 = 9 - 8 = 1.")
    assert got != 0.0, why  # (x + y)^2 - 2xy: both equations at once


def test_case_steps_through_the_command(tmp_path, capsys):
    sols = [
        {
            "id": "wrong",
            "problem": PELL,
            "steps": [
                "Try small values of y.",
                "If y = 1, then x^2 = 20, but x is not an integer.",
                "If y = 2, then x^2 = 41, but x is not an integer.",
                "So there are no solutions.",
            ],
            "label": 2,
        },
        {
            "id": "right",
            "problem": PELL,
            "steps": [
                "Try small values of y.",
                "If y = 1, then x^2 = 20, but x is not an integer.",
                "If y = 2, then x^2 = 29, but x is not an integer.",
            ],
            "label": -1,
        },
    ]
    _, recs = verified(tmp_path, sols, capsys)
    assert recs["wrong"]["step_labels"][1:3] == ["valid", "invalid"]
    assert recs["wrong"]["first_invalid_step_number"] == 3
    assert recs["right"]["step_labels"][1:3] == ["valid", "valid"]
    assert "in the case y = 2" in recs["wrong"]["steps"][2]["reasons"]["symbolic"]
