"""First statements about the problem's names, and values a step concludes.

A first statement (an inequality no earlier relation leads to) may be a hypothesis about particular
values: it is valid only when it holds at every admissible point, false only when it fails at
every one, and unchecked in between. The domain is what the problem gives: signs in words or by
bounds ("a, b > 0"), its stated conditions ("with a + b ≤ 1"), the sides of a triangle. A value a
step concludes ("this implies y = 5") must satisfy the equation it was found from.
"""

from __future__ import annotations

import pytest
from cli_runs import verified
from hypothesis import given, settings
from hypothesis import strategies as st

from accord.mathcheck.checks._claims import solution_check
from accord.mathcheck.state._domain import domain_of, signed_names

BOUNDED = "Let a, b > 0 with a + b ≤ 1. What is the largest value of ab?"
POSITIVE = "Let a, b, c>0. What is the smallest value of a/(b+c)+b/(a+c)+c/(a+b)?"
TRIANGLE = "If a, b, c are side lengths of a triangle, what is the largest value of a/(b+c)+b/(a+c)+c/(a+b)?"


def test_signs_given_by_bounds_and_conditions_are_the_domain():
    assert signed_names(POSITIVE) == {"a": "positive", "b": "positive", "c": "positive"}
    assert signed_names("Let a_i ≥ 0 for all i. What is ...?") == {"a_i": "nonnegative"}
    # an inequality the problem asks about is not a condition, nor a sum's last term a bound
    assert signed_names("For how many n is 1/(n+1)+...+1/(2n)<3/4?") == {}
    assert signed_names("Let x, y satisfy x+y>0. Find x.") == {}
    domain = domain_of(BOUNDED, (), frozenset())
    assert "≤" in [rel for rel, _, _ in domain.conditions] and not domain.constrained
    assert len(domain_of(TRIANGLE, (), frozenset()).conditions) == 3


@pytest.mark.parametrize(
    "problem,step,score,says",
    [
        (POSITIVE, "We have $(a+b+c)/3 \\ge \\sqrt[3]{abc}$.", 1.0, "true wherever the problem's names live"),
        (POSITIVE, "We have $\\frac{c^3}{(a+b)^3(b+c)} \\le 0$.", 0.0, "false for every admissible value"),
        (POSITIVE, "We have $ab + bc \\ge 3abc$.", None, "holds at some admissible points and not at others"),
        # the problem's condition a + b ≤ 1 decides it: without it ab ≤ 1/4 holds only sometimes
        (BOUNDED, "So $ab \\le \\frac{1}{4}$.", 1.0, "admissible points"),
        (BOUNDED, "So $ab \\ge 1$.", 0.0, "at every one of"),
        ("Let a, b > 0. What is the largest value of ab?", "So $ab \\le \\frac{1}{4}$.", None, "not at others"),
        # the triangle inequalities hold at every point drawn
        (TRIANGLE, "Then $a^2 < ab + ac$.", 1.0, "admissible points"),
        (TRIANGLE, "Then $a > b + c$.", 0.0, "false for every admissible value"),
    ],
)
def test_a_first_statement_is_valid_everywhere_false_everywhere_or_unchecked(problem, step, score, says):
    got, why = solution_check(problem, [], step)
    assert got == score, why
    assert says in why, why


def test_what_a_first_statement_never_flags():
    n = "For positive integers n, is 1/(n+1)+1/(n+2)+...+1/(2n) > 1/2?"
    # equal sides: a slip of strictness, no evidence either way
    assert solution_check(n, [], "Then $\\frac{1}{2n} > \\frac{1}{2n}$.")[0] is None
    # the absurd statement a proof by contradiction derives on purpose
    never = "So $\\frac{c^3}{(a+b)^3(b+c)} \\le 0$."
    got, why = solution_check(POSITIVE, [], never, following="This is a contradiction, so the case cannot occur.")
    assert got is None and "contradiction" in why, why
    assert solution_check(POSITIVE, [], never.replace(".", ", which is impossible."))[0] is None
    # "/ abc" read one way of two ((.../a)·b·c or .../(abc)): never flagged on one reading
    got, why = solution_check(POSITIVE, [], "So $(a + b)(b + c)(a + c) / abc < 8$.")
    assert got is None, why
    # a hypothesis in words
    assert solution_check(POSITIVE, [], "Suppose $\\frac{c^3}{(a+b)^3(b+c)} \\le 0$.")[0] is None
    # a condition the problem gives holds at every point drawn: restating it checks nothing
    got, why = solution_check(BOUNDED, [], "We are given $a + b \\le 1$.")
    assert got is None and "a condition the problem gives" in why, why


def test_an_identity_ties_no_names_an_equation_does():
    rewrite = ["We have $a^2 - b^2 = (a - b)(a + b)$."]
    assert solution_check(POSITIVE, rewrite, "Also $a^2 + b^2 \\ge 2ab$.")[0] == 1.0
    tied = ["Suppose now $a + b = 2$."]
    got, why = solution_check(POSITIVE, tied, "Then $a^2 + b^2 \\ge 2ab$.")
    assert got is None and "ties down" in why, why


@pytest.mark.parametrize(
    "before,step,score",
    [
        ([], "In this case $2^5 - 1 = 3^y$, which simplifies to $31 = 3^y$. This implies that $y = 5$.", 0.0),
        ([], "We have $243 = 3^y$, so $y = 5$.", 1.0),
        (["We have $243 = 3^y$."], "Therefore $y = 4$.", 0.0),
        (["$x^2 - 5x + 6 = 0$"], "Solving, we find $x = 2$ or $x = 3$.", 1.0),
        (["$x^2 - 5x + 6 = 0$"], "Solving, we find $x = 2$ and $x = 4$.", 0.0),
        # a case, a trial, a failure, a rounded value: not a value found
        (["$x^2 - 5x + 6 = 0$"], "If $x = 4$, the left side is 2.", None),
        (["$x^2 - 5x + 6 = 0$"], "So let's try $x = 4$.", None),
        (["$x^2 - 5x + 6 = 0$"], "So $x = 4$ does not work.", None),
        (["$x^2 = 2$"], "So $x = 1.41$.", None),
        # a value in other names: checked at random values of them
        (["$x^2 = c$"], "Therefore $x = \\sqrt{c}$.", 1.0),
        (["$x^3 = 8c$"], "Hence $x = 2c$.", 0.0),
    ],
)
def test_a_value_found_must_satisfy_the_equation_it_was_found_from(before, step, score):
    got, why = solution_check("Find all positive integers x, y with 2^x - 1 = 3^y.", before, step)
    assert got == score, why
    if score == 0.0:
        assert any(w in why for w in ("is refuted at", "is not the value", "does not satisfy")), why


@settings(max_examples=40, deadline=None)
@given(st.integers(-9, 9), st.integers(-9, 9), st.integers(-12, 12))
def test_a_root_found_is_valid_exactly_when_it_is_a_root(r, s, v):
    b, c = -(r + s), r * s
    equation = f"$x^2 {'+' if b >= 0 else '-'} {abs(b)}x {'+' if c >= 0 else '-'} {abs(c)} = 0$"
    got, why = solution_check("Solve the equation.", [equation], f"Solving, we find $x = {v}$.")
    assert got == (1.0 if v in (r, s) else 0.0), why


PELL = "Find all integer solutions of x^2 - 3y^2 = 17."
TRIPLES = "Find all integers x, y, z with (x^2-1)(y^2-1)+1984=z^2."


@pytest.mark.parametrize(
    "problem,step,score",
    [
        (PELL, "So, the integer solutions to the equation are (x, y) = (13, 4) and (-13, 4).", 0.0),
        ("Find x, y with x^2 - 3y^2 = 13.", "So the solutions are (x, y) = (5, 2) and (-5, -2).", 1.0),
        ("Find x, y with x^2 - 3y^2 = 13.", "So the solutions are (x, y) = (5, 2) and (4, 2).", 0.0),
        (TRIPLES, "So the solutions are (x, y, z) = (44, 7, 308), (-44, -7, 308) and (7, 44, 308).", 1.0),
        (TRIPLES, "So the solutions are (x, y, z) = (44, 7, 308) and (7, 44, 309).", 0.0),
        # the sentence's own equation when the problem writes none
        ("Solve the Diophantine equation.", "The only solution of $15x^2 - 7y^2 = 9$ is $(x, y) = (3, 0)$.", 0.0),
        ("Solve the Diophantine equation.", "The only solution of $15x^2 - 7y^2 = 135$ is $(x, y) = (3, 0)$.", 1.0),
        # a case, a trial, a doubt or a list cut off is not a claim
        (PELL, "If (x, y) = (13, 4) is a solution, we are done.", None),
        (PELL, "Let's check whether (x, y) = (13, 4) is a solution.", None),
        (PELL, "The solutions are (x, y) = (13, 4), (14, 4), ...", None),
        (PELL, "(x, y) = (13, 4) is not a solution.", None),
    ],
)
def test_tuples_claimed_as_solutions_must_solve_the_problem(problem, step, score):
    got, why = solution_check(problem, [], step)
    assert got == score, why
    if score == 0.0:
        assert "is not a solution of" in why, why


def test_tuples_are_put_into_the_problems_equation_not_one_derived_on_the_way():
    before = ["Completing the cube, x^3 + 14x^2 + 44x + 40 = y^3."]
    problem = "Find all non-negative integers x, y with x^3 + 8x^2 - 6x + 8 = y^3."
    got, why = solution_check(problem, before, "So one solution of the equation is (x, y) = (0, 2).")
    assert got == 1.0 and "satisfies x^3 + 8·x^2 - 6·x + 8 = y^3" in why, why


def test_first_statements_and_found_values_through_the_command(tmp_path, capsys):
    sols = [
        {
            "id": "never",
            "problem": POSITIVE,
            "steps": ["By AM-GM, $a + b \\ge 2\\sqrt{ab}$.", "So $\\frac{c^3}{(a+b)^3(b+c)} \\le 0$.", "Done."],
            "label": 1,
        },
        {
            "id": "root",
            "problem": "Find all positive integers x, y with 2^x - 1 = 3^y.",
            "steps": ["For $x = 2$ we have $2^2 - 1 = 3^y$, so $3 = 3^y$.", "This implies $y = 2$.", "Done."],
            "label": 1,
        },
        {
            "id": "correct",
            "problem": BOUNDED,
            "steps": ["By AM-GM, $\\sqrt{ab} \\le \\frac{a+b}{2} \\le \\frac{1}{2}$.", "So $ab \\le \\frac{1}{4}$."],
            "label": -1,
        },
    ]
    doc, recs = verified(tmp_path, sols, capsys)
    assert doc["predictions"] == {s["id"]: s["label"] for s in sols}
    assert "false for every admissible value" in recs["never"]["steps"][1]["reason"]
    root = recs["root"]["steps"][1]["reason"]  # y = 2 against 3 = 3^y, which fixes y = 1
    assert "y = 2 is refuted at y = 1, the only solution of" in root or "y = 2 does not satisfy 3 = 3^y" in root, root
    assert recs["correct"]["step_labels"][1] == "valid"
