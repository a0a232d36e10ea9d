"""The proof state: each step's role, the scopes assumptions open, the labels steps cite, and the one
consequence check against everything in force, in correct and wrong forms."""

from __future__ import annotations

import pytest
from cli_runs import verified
from hypothesis import given, settings
from hypothesis import strategies as st

from accord.mathcheck import read_outline
from accord.mathcheck.checks._claims import solution_check

SYSTEM = "Find real numbers x and y with x + y = 10 and x - y = 4."


@pytest.mark.parametrize(
    ("step", "role"),
    [
        ("We are given that $x + y = 10$.", "given"),
        ("Let $f(n)$ be the number of valid strings of length $n$.", "definition"),
        ("Let $S = a + b$.", "definition"),
        ("Case 1: $n$ is odd.", "assumption"),
        ("If $c = 8$:", "assumption"),
        ("Suppose that $a \\le b \\le c$.", "assumption"),
        ("Assume, for the sake of contradiction, that $x > 3$.", "assumption"),
        ("So $2x = 14$.", "derived"),
        ("Since 1978 is even, it is not prime.", "derived"),
        ("Expanding, we get:", "lead-in"),
        ("To solve this problem, we will use induction.", "remark"),
        ("\\begin{align*}", "remark"),
        ("Now, let's find the values of $n$.", "remark"),
        ("What is the smallest such n?", "remark"),
        ("Therefore, the answer is $7$.", "conclusion"),
    ],
)
def test_every_step_gets_a_role(step, role):
    steps = [step, "$x = 7$"]  # a next line, so that a lead-in has something to announce
    assert read_outline(SYSTEM, steps).steps[0].role == role


def test_a_case_scope_ends_at_the_next_case_and_a_conclusion_ends_them_all():
    steps = ["Case 1: $x = 1$.", "Then $y = 9$.", "Case 2: $x = 2$.", "Then $y = 8$.", "Therefore, there are two."]
    reading = read_outline("Find x and y with x + y = 10.", steps)
    first, second = reading.scopes
    assert (first.kind, first.opened, first.closed) == ("case", 0, 1)
    assert (second.kind, second.opened, second.closed) == ("case", 2, 3)
    assert reading.steps[1].scopes != reading.steps[3].scopes and reading.steps[4].scopes == ()


def test_labels_and_references_resolve_to_the_steps_they_name():
    steps = [
        "$x + y = 10$ (1)",
        "$x - y = 4$ (2)",
        "Adding (1) and (2), we get $2x = 14$.",
        "From the first equation, y = 3.",
    ]
    reading = read_outline("", steps)
    assert reading.steps[0].labels == ("1",) and reading.steps[1].labels == ("2",)
    assert reading.steps[2].cites == (0, 1)
    assert reading.steps[3].cites == (0,)


def test_a_label_is_not_read_as_a_factor():
    steps = ["$x + y = 10$ (1)", "$x - y = 4$ (2)"]
    assert solution_check(SYSTEM, steps, "Adding (1) and (2), we get $2x = 14$.")[0] == 1.0
    got, why = solution_check(SYSTEM, steps, "Adding (1) and (2), we get $2x = 16$.")
    assert got == 0.0 and "refuted at" in why, why


def test_a_derived_equation_follows_from_everything_in_force_not_only_the_line_before():
    steps = ["$x + y = 10$", "Also $x - y = 4$.", "We will now find y."]
    got, why = solution_check("Find x and y.", steps, "So $y = 3$.")
    assert got == 1.0 and "follows from steps 1 and 2" in why, why
    got, why = solution_check("Find x and y.", steps, "So $y = 4$.")
    assert got == 0.0 and "y = 4 is refuted at y = 3" in why and "steps 1 and 2" in why, why


def test_the_absurdity_a_contradiction_proof_wants_is_no_error_but_a_slip_inside_it_is():
    problem = "Prove that there is no integer x with x^2 = 2."
    steps = ["Assume, for contradiction, that $x^2 = 2$ for an integer $x$.", "Then $x$ is even, so $x = 2k$."]
    got, why = solution_check(problem, steps, "So $4k^2 = 2$, that is $2k^2 = 1$, which is impossible.")
    assert got != 0.0, why
    got, why = solution_check(problem, steps, "So $4k^2 = 2$ and $7 \\cdot 8 = 54$, which is impossible.")
    assert got == 0.0 and "7·8 = 54" in why, why


def test_a_case_split_or_opens_alternatives_not_a_contradiction():
    steps = ["$x(x - 1) = 0$"]
    assert solution_check("Solve x^2 = x.", steps, "So $x = 0$ or $x = 1$.")[0] != 0.0
    assert solution_check("Solve x^2 = x.", steps, "So $x = 0$ and $x = 1$.")[0] != 0.0  # "and" meaning "or"
    got, why = solution_check("Solve x^2 = x.", steps, "So $x = 0$ or $x = 2$.")
    assert got == 0.0 and "x = 2" in why, why


def test_a_premise_stated_in_a_case_is_not_in_force_in_the_next_case():
    problem = "Find integers x and y with x + y = 10."
    steps = ["Case 1: $x = 1$.", "Then $y = 9$.", "Case 2: $x = 2$."]
    assert solution_check(problem, steps, "Then $y = 8$.")[0] != 0.0  # y = 9 belonged to case 1


def test_a_case_that_opens_with_its_condition_and_claims_ends_the_case_before():
    problem = "Find positive integers x, y with x = p + q and y = p + r, where qr = p^2."
    steps = [
        "1. For $q = 1$ and $r = p^2$, we get $x = p + 1$ and $y = p + p^2$.",
    ]
    got, why = solution_check(problem, steps, "2. For $q = p$ and $r = p$, we get $x = p + p$ and $y = p + p$.")
    assert got == 1.0, why  # q = p is the case's condition, and x = p + 1 belonged to the case before
    got, why = solution_check(problem, steps, "2. For $q = p$ and $r = p$, we get $x = p + 2$ and $y = p + p$.")
    assert got == 0.0, why  # a slip in the case is still one


def test_a_new_general_form_binds_its_unknowns_again():
    problem = "Is there a polynomial f(x) with integer coefficients with f(7) = 11 and f(11) = 13?"
    steps = [
        "Try a degree 1 polynomial, $f(x) = ax + b$.",
        "$7a + b = 11$",
        "$11a + b = 13$",
        "Subtracting, $4a = 2$, so $a = 1/2$: no integer coefficients.",
        "Let's try a degree 2 polynomial, $f(x) = ax^2 + bx + c$. Then:",
    ]
    got, why = solution_check(problem, steps, "$49a + 7b + c = 11$")
    assert got != 0.0, why  # a and b of the degree 1 attempt are not in force
    got, why = solution_check(problem, steps[:4], "$49a + 7b = 11$")
    assert got == 0.0, why  # while the degree 1 form stands, its a and b are fixed


def test_a_premise_the_others_imply_is_checked_not_solved():
    """x + y = a^2, x + 2y = b^2, 2x + y = c^2 tie a, b, c together (b^2 + c^2 = 3a^2): a rewrite is
    refuted at a point of them all, found through the one name the linear part leaves (c)."""
    problem = "Find positive integers x, y, a, b, c with x + y = a^2, x + 2y = b^2 and 2x + y = c^2."
    steps = ["$y = b^2 - a^2$", "$(2x + y) - (x + 2y) = c^2 - b^2$"]
    assert solution_check(problem, steps[:1], steps[1])[0] == 1.0
    got, why = solution_check(problem, steps, "$2x - x = c^2 - b^2$")
    assert got == 0.0 and "refuted at" in why and "which satisfies" in why, why
    assert solution_check(problem, steps, "$x - y = c^2 - b^2$")[0] == 1.0


def test_a_refuted_step_is_no_premise_of_a_later_one():
    problem = "Solve x + 2 = 5."
    got, _ = solution_check(problem, [], "So $x = 4$.")
    assert got == 0.0
    got, why = solution_check(problem, ["So $x = 4$."], "Then $x + 1 = 5$.")
    assert got == 0.0 and "the problem" in why, why  # checked against the problem, never against x = 4
    assert solution_check(problem, ["So $x = 4$."], "Then $x + 1 = 4$.")[0] == 1.0


@settings(max_examples=25, deadline=None)
@given(st.integers(-20, 20), st.integers(-20, 20), st.integers(-3, 3))
def test_a_value_derived_from_a_linear_system_is_valid_exactly_when_it_solves_it(x, y, slip):
    steps = [f"$a + b = {x + y}$", f"$a - b = {x - y}$"]
    got, why = solution_check("Find a and b.", steps, f"Adding them gives $2a = {2 * x + slip}$.")
    assert got == (1.0 if slip == 0 else 0.0), why


def test_roles_and_no_claim_labels_through_the_command(tmp_path, capsys):
    sols = [
        {
            "id": "system",
            "problem": SYSTEM,
            "steps": [
                "To solve this problem, we add the two equations.",
                "Let $s = x + y$.",
                "Adding them, we get:",
                "$2x = 16$",
                "Therefore, the answer is $x = 8$.",
            ],
            "label": 2,
        }
    ]
    doc, recs = verified(tmp_path, sols, capsys)
    steps = recs["system"]["steps"]
    assert [s["role"] for s in steps] == ["remark", "definition", "lead-in", "derived", "conclusion"]
    assert recs["system"]["step_labels"][:4] == ["no claim", "no claim", "invalid", "invalid"]
    assert "refuted at" in steps[3]["reasons"]["symbolic"]
    assert doc["steps_no_claim"] == 2 and doc["steps_by_role"]["lead-in"] == 1
