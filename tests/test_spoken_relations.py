"""Relations said in words between formulas ("-1 is congruent to 8 mod 9", "we can rewrite x^3 as
…", "3^3 is greater than 2^2") are checked like their written forms; products written side by side
with an ellipsis ("(n+1)(n+2)…(2n)") are read; a root written after a product of groups
("(ab)(bc)(ac)^(1/6)") that holds read as the root of the whole product is not flagged."""

from __future__ import annotations

import pytest
from cli_runs import verified
from hypothesis import given, settings
from hypothesis import strategies as st

from accord.mathcheck.checks._claims import solution_check
from accord.mathcheck.reading._notation import expand_ellipsis
from accord.mathcheck.reading._reader import read_chains

CUBES = "Find all integers x, y with x^3 + 3 = 4y(y + 1)."
POSITIVE = "Let a, b, c > 0. Find the smallest value of (a + b + c)/sqrt(ab + bc + ca)."


def _read(text: str) -> list[tuple[tuple[str, ...], tuple[str, ...], str | None]]:
    return [(c.sides, c.relations, c.modulus) for c in read_chains(text)]


def test_the_phrase_becomes_the_sign_only_between_formulas():
    assert _read("This is 8, because -1 is congruent to 8 mod 9.") == [(("-1", "8"), ("≡",), "9")]
    assert _read("but 16 is congruent to 1 modulo 5.") == [(("16", "1"), ("≡",), "5")]
    assert _read("So \\( 8x^2 \\) is congruent to \\( -x^2 \\) modulo 3.") == [(("8x^2", "-x^2"), ("≡",), "3")]
    assert _read("because 3^3 is greater than 2^2, and") == [(("3^3", "2^2"), (">",), None)]
    assert _read("so 2^10 is less than or equal to 1024.") == [(("2^10", "1024"), ("≤",), None)]
    assert _read("we can rewrite x^3 as (2y + 1)(2y^2 + 2y + 1).") == [
        (("x^3", "(2y + 1)(2y^2 + 2y + 1)"), ("=",), None)
    ]
    assert _read("We can write 50 as $2^2\\cdot5^2$.") == [(("50", "2^2*5^2"), ("=",), None)]
    assert _read("write 3^105 as (3^5)^21 and 4^105 as (4^5)^21.") == [
        (("3^105", "(3^5)^21"), ("=",), None),
        (("4^105", "(4^5)^21"), ("=",), None),
    ]
    # the subject is prose, or the operand is: nothing is read
    assert _read("So, yes, A is greater than 0.1.") == []
    assert _read("The number of strings is equal to the number of subsets.") == []
    assert _read("we can write it as a single fraction.") == []
    assert _read("Then 3 is not congruent to 2 mod 4.") == []  # no sign says a negated congruence


@pytest.mark.parametrize(
    "problem,step,score",
    [
        ("Find 8^10 mod 9.", "This is simply 8, because -1 is congruent to 8 mod 9.", 1.0),
        ("Find 8^10 mod 9.", "This is simply 7, because -1 is congruent to 7 mod 9.", 0.0),
        ("Find all x.", "If a number ends in 4, its square ends in 6, but 16 is congruent to 1 modulo 5.", 1.0),
        ("Find all x.", "If a number ends in 4, its square ends in 6, but 16 is congruent to 2 modulo 5.", 0.0),
        ("Is 3^3 > 2^2?", "The first grows faster because 3^3 is greater than 2^2.", 1.0),
        ("Is 3^3 > 2^2?", "The second grows faster because 2^2 is greater than 3^3.", 0.0),
        ("Simplify.", "Notice that (x^2 + 1) / sqrt(x^2 + 1) simplifies to sqrt(x^2 + 1), so:", 1.0),
        ("Simplify.", "Notice that (x^2 + 1) / sqrt(x^2 + 1) simplifies to sqrt(x^2 - 1), so:", 0.0),
        ("Is 2^640 - 1 divisible by 641?", "We can rewrite 2^(641-1) as (2^6)^(106) * 2^4.", 1.0),
        ("Is 2^640 - 1 divisible by 641?", "We can rewrite 2^(641-1) as (2^6)^(106) * 2^5.", 0.0),
        # tied to the problem's equation: x^3 = 4y(y + 1) - 3, not (2y + 1)(2y^2 + 2y + 1)
        (CUBES, "Using the information given, we can rewrite x^3 as 4y^2 + 4y - 3.", 1.0),
        (CUBES, "Using the information given, we can rewrite x^3 as (2y + 1)(2y^2 + 2y + 1).", 0.0),
    ],
)
def test_a_relation_said_in_words_is_checked_like_its_sign(problem, step, score):
    got, why = solution_check(problem, [], step)
    assert got == score, why


def test_a_root_after_a_product_of_groups_is_not_flagged_when_meant_of_the_whole():
    step = "To simplify further, we can rewrite sqrt((ab)(bc)(ac))^(1/3) as (ab)(bc)(ac)^(1/6)."
    got, why = solution_check(POSITIVE, [], step)
    assert got is None and "read one way of two" in why, why
    wrong = "To simplify further, we can rewrite sqrt((ab)(bc)(ac))^(1/3) as (ab)(bc)(ac)^(1/5)."
    got, why = solution_check(POSITIVE, [], wrong)
    assert got == 0.0, why  # wrong read either way


def test_products_side_by_side_and_two_runs_with_an_ellipsis_are_read():
    assert expand_ellipsis("(n+1)(n+2)...(2n)") == "((\\prod_{j=0}^{(1*n + (-1))} ((n+(1 + 1*j)))))"
    assert expand_ellipsis("(1+a_1)(1+a_2)...(1+a_n)") is None  # indexed terms: not evaluated
    got, why = solution_check("Find A.", [], "A = (1/2)*(3/4)*...*(9/10) * (2/3)*(4/5)*...*(10/11) = 1/11")
    assert got == 1.0, why
    got, why = solution_check("Find A.", [], "A = (1/2)*(3/4)*...*(9/10) * (2/3)*(4/5)*...*(10/11) = 1/10")
    assert got == 0.0, why


@settings(max_examples=40, deadline=None)
@given(st.integers(-40, 40), st.integers(0, 40), st.integers(2, 13), st.booleans())
def test_a_congruence_in_words_between_numbers_is_valid_exactly_when_it_holds(a, b, m, modulo_word):
    word = "modulo" if modulo_word else "mod"
    got, why = solution_check("Find all n.", [], f"Here {a} is congruent to {b} {word} {m}, so we go on.")
    assert got == (1.0 if (a - b) % m == 0 else 0.0), why


def test_relations_in_words_through_the_command(tmp_path, capsys):
    sols = [
        {
            "id": "rewritten",
            "problem": CUBES,
            "steps": [
                "Using the information given, we can rewrite x^3 as (2y + 1)(2y^2 + 2y + 1).",
                "So there are no solutions.",
            ],
            "label": 0,
        },
        {
            "id": "congruent",
            "problem": "Find 8^10 mod 9.",
            "steps": ["8 is congruent to -1 modulo 9.", "So 8^10 is congruent to 1 mod 9."],
            "label": -1,
        },
    ]
    doc, recs = verified(tmp_path, sols, capsys)
    assert doc["predictions"] == {"rewritten": 0, "congruent": -1}
    assert "does not follow from" in recs["rewritten"]["steps"][0]["reason"]
    assert recs["congruent"]["step_labels"] == ["valid", "valid"]
