"""A congruence claimed within a residue case ("For y ≡ 6 (mod 8), we have y(y + 1) ≡ 0 (mod 8)") is
checked for every value of the class: valid when it holds, false with the first value where not."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from accord.mathcheck.checks._claims import solution_check
from accord.mathcheck.checks._residue_cases import ResidueCase, residue_case

PROBLEM = "Find all integers x, y with x^3 = y(y + 1) + 5."


def test_the_case_a_step_opens_with():
    assert residue_case("For x ≡ 1 (mod 4), we have x^3 ≡ 1 (mod 4).") == ResidueCase("x", 1, 4)
    assert residue_case("If $k \\equiv 2 \\pmod{3}$, then $k^3 + k \\equiv 1 \\pmod 3$.") == ResidueCase("k", 2, 3)
    assert residue_case("We have x^3 ≡ 1 (mod 4).") is None
    assert residue_case("For x ≡ 1 (mod 4) and x ≡ 2 (mod 4), ...") is None  # two cases: not one class


@pytest.mark.parametrize(
    "step,score",
    [
        ("For x ≡ 3 (mod 4), we have x^3 ≡ 3 (mod 4).", 1.0),
        ("For x ≡ 3 (mod 4), we have x^3 ≡ 1 (mod 4).", 0.0),
        ("For y ≡ 5 (mod 8), we have y(y + 1) ≡ 6 (mod 8).", 1.0),
        ("For y ≡ 6 (mod 8), we have y(y + 1) ≡ 0 (mod 8).", 0.0),
        ("If $k \\equiv 2 \\pmod{3}$, then $k^3 + k \\equiv 1 \\pmod 3$.", 1.0),
        # a congruence in another name is not the case's to decide
        ("For y ≡ 5 (mod 8), we have x^3 ≡ 6 (mod 8).", None),
    ],
)
def test_a_congruence_within_a_case_holds_for_the_whole_class(step, score):
    got, why = solution_check(PROBLEM, [], step)
    assert got == score, why
    if score == 0.0:
        assert "fails for" in why and "modulo" in why, why


@settings(max_examples=40, deadline=None)
@given(st.integers(-5, 5), st.integers(-5, 5), st.integers(2, 12), st.integers(0, 11), st.booleans())
def test_a_residue_claim_is_valid_exactly_when_it_is_the_class_value(a, b, m, r, right):
    r %= m
    value = (a * r * r + b * r) % m
    claimed = value if right else (value + 1) % m
    step = f"For n ≡ {r} (mod {m}), we have {a}n^2 + {b}n ≡ {claimed} (mod {m})."
    got, why = solution_check(PROBLEM, [], step.replace("+ -", "- "))
    assert got == (1.0 if right else 0.0), why
