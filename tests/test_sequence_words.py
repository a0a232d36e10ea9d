"""Claims in words about the problem's own sequence are compared with the terms its definition gives."""

from __future__ import annotations

import pytest

from accord.mathcheck.checks._claims import solution_check

PERIODIC = "The sequence is defined by a_1 = 1, a_2 = 2 and a_{n+2} = a_{n+1} - a_n. Find a_100."
GROWING = "Let x_1 = 2 and x_{n+1} = x_n^2 - x_n + 1. Find the sum of 1/x_n."


@pytest.mark.parametrize(
    "problem,step,score",
    [
        (PERIODIC, "So $a_n$ repeats every 6 terms.", 1.0),
        (PERIODIC, "So $a_n$ repeats every 4 terms.", 0.0),
        (PERIODIC, "The sequence is periodic with period 6.", 1.0),
        (PERIODIC, "The sequence is periodic with period 3.", 0.0),
        (GROWING, "So $x_n$ is increasing.", 1.0),
        (GROWING, "So $x_n$ is decreasing.", 0.0),
        (GROWING, "The sequence is strictly increasing.", 1.0),
        (GROWING, "Hence x_n is always greater than 1.", 1.0),
        (GROWING, "Hence x_n is always greater than 2.", 0.0),
        (GROWING, "If x_n is decreasing, we would get a contradiction.", None),
        (GROWING, "So $y_n$ is decreasing.", None),  # not the problem's sequence
    ],
)
def test_claims_in_words_about_the_problems_sequence(problem, step, score):
    got, reason = solution_check(problem, [], step)
    assert got == score, reason
    if score == 0.0:
        assert "is false for the problem's sequence" in reason
