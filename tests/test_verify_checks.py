"""The checks of ``accord verify`` that read more than one relation at a time: opening links that
rewrite, lead-in lines, the contradiction cue's scope, calculator annotations, prose words next to
numbers, inequalities at admissible points, and conclusions that were not checked.

End to end through the command users run, plus the checks one by one (every false verdict shows
its evaluation or counterexample; a correct solution is never flagged).
"""

from __future__ import annotations

import json
from fractions import Fraction

from hypothesis import given, settings
from hypothesis import strategies as st

from accord.cli.main import main
from accord.mathcheck.checks._arithmetic import check_arithmetic
from accord.mathcheck.checks._claims import solution_check

SOLUTIONS = [
    {
        "id": "rewrite",
        "problem": "Factor $x^8 + x^4 + 1$.",
        "steps": ["We complete the square.", "$x^8 + x^4 + 1 = (x^4)^2 + 2x^4 + 1 - 2x^4$", "$= (x^4 + 1)^2 - 2x^4$."],
        "label": 1,
    },
    {
        "id": "lead-in",
        "problem": "Simplify $(a+b)^2 - 2ab$.",
        "steps": ["First we expand the square:", "$$(a+b)^2 = a^2 + b^2$$", "So the expression is $a^2 + b^2 - 2ab$."],
        "label": 0,
    },
    {
        "id": "excused",
        "problem": "Is there an integer n with 7n = 54?",
        "steps": ["Suppose $7 \\cdot 8 = 54$.", "That is impossible, so no such n exists."],
        "label": 0,
    },
    {
        "id": "calculator",
        "problem": "Weng earns $12 an hour. How much for 50 minutes?",
        "steps": [
            "Weng earns 12/60 = $<<12/60=0.2>>0.2 per minute.",
            "Working 50 minutes, she earned 0.2 x 50 = $<<0.2*50=11>>11.",
        ],
        "label": 1,
    },
    {
        "id": "inequality",
        "problem": "Let $a, b$ be positive reals. Prove that $a^2 + b^2 \\ge 2ab$.",
        "steps": ["We have $a^2 + b^2 + 2ab = (a+b)^2 \\ge 4ab + 1$.", "So the claim follows."],
        "label": 0,
    },
    {
        "id": "correct",
        "problem": "Let $a, b$ be positive reals. Prove that $a^2 + b^2 \\ge 2ab$.",
        "steps": [
            "We rewrite:",
            "$a^2 + b^2 - 2ab = (a - b)^2 \\ge 0$",
            "Hence $a^2 + b^2 \\ge 2ab$.",
            "Natalia sold 48/2 = <<48/2=24>>24 clips in May.",
        ],
        "label": -1,
    },
]


def test_new_checks_find_the_first_errors_through_the_command(tmp_path, capsys):
    data, out = tmp_path / "sols.jsonl", tmp_path / "pred.jsonl"
    data.write_text("".join(json.dumps(s) + "\n" for s in SOLUTIONS))
    rc = main(["verify", str(data), "--out", str(out), "--json", "--bootstrap", "0"])
    doc = json.loads(capsys.readouterr().out)
    assert rc == 1
    assert doc["predictions"] == {s["id"]: s["label"] for s in SOLUTIONS}
    recs = {r["id"]: r for r in map(json.loads, out.read_text().splitlines())}
    assert "read as a rewrite" in recs["rewrite"]["steps"][1]["reason"]
    assert "at x = 2 the left side is 273, the right side 257" in recs["rewrite"]["steps"][1]["reason"]
    lead = recs["lead-in"]["steps"]
    assert "the claim of the next line" in lead[0]["reason"] and lead[1]["label"] == "invalid"
    assert "7·8 = 54 is false" in recs["excused"]["steps"][0]["reason"]
    assert (
        "calculator annotation <<0.2*50=11>>11 is wrong: 0.2*50 = 10, not 11"
        in recs["calculator"]["steps"][1]["reason"]
    )
    assert "the inequality (a + b)^2 ≥ 4·a·b + 1 fails at" in recs["inequality"]["steps"][0]["reason"]
    assert recs["correct"]["step_labels"] == ["valid", "valid", "valid", "valid"]  # a^2 + b^2 ≥ 2ab everywhere


def test_an_opening_equation_to_solve_is_not_read_as_a_rewrite():
    assert solution_check("", [], "We get the equation $20xy + y^2 = 10x + y$.")[0] is None
    assert solution_check("", [], "Substituting, $x^2 + y^2 + x^2 = x^3 + y^3 - x^3$.")[0] is None
    assert solution_check("", [], "Let $f(n) = n^2 + 1$.")[0] is None
    # the same leading terms, a slip below them: a rewrite
    value, why = solution_check("", [], "Then $n^3 + 3n^2 + 3n + 1 = (n+1)^3 + n$.")
    assert value == 0.0 and "at n = 2" in why


def test_the_contradiction_cue_excuses_a_derived_contradiction_not_a_slip():
    assert solution_check("", [], "So $1 = 0$.", following="This is impossible.")[0] is None
    assert solution_check("", [], "So $7 \\cdot 8 = 54$.", following="This is impossible.")[0] == 0.0


def test_inequalities_need_a_stated_domain_and_free_names():
    q = "Let $a, b$ be positive reals with $ab = 1$."
    assert solution_check(q, [], "$a^2 + b^2 = (a+b)^2 - 2ab \\ge 3$")[0] is None  # ab = 1 ties a, b down
    value, why = solution_check("Let $a, b$ be numbers.", [], "$(a+b)^2 = a^2+2ab+b^2 \\ge 4ab + 1$")  # no domain
    assert value is None and "was not checked" in why
    assert solution_check("Let $a, b$ be positive reals.", [], "If $a > b$, then $a^2 + ab > 2b^2$.")[0] is None


def test_a_conclusion_that_was_not_checked_is_not_valid():
    value, why = solution_check("", [], "Each of the 3 letters has 2 choices, $2^3 = 8$, so $a_3 = 9$.")
    assert value is None and "conclusion a_3 = 9 was not checked" in why


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 999), st.integers(1, 99), st.sampled_from("+-*/"), st.integers(-3, 3))
def test_calculator_annotations_are_checked_exactly(a, b, op, off):
    value = {"+": Fraction(a + b), "-": Fraction(a - b), "*": Fraction(a * b), "/": Fraction(a, b)}[op]
    claimed = value + off
    written = str(claimed.numerator) if claimed.denominator == 1 else f"{float(claimed):.6f}"
    text = f"So it is {a}{op}{b} = <<{a}{op}{b}={written}>>{written} apples."
    score, why = check_arithmetic(text)
    assert score == (1.0 if off == 0 else 0.0), why
    if score == 0.0:
        assert "calculator annotation" in why or "is wrong" in why
    sym, why = solution_check("", [], text)
    assert sym == score, why


@settings(max_examples=30, deadline=None)
@given(st.integers(-9, 9), st.integers(-9, 9), st.integers(-5, 5))
def test_an_opening_expansion_is_checked_as_an_identity(a, b, slip):
    left = f"(x + ({a}))(x + ({b}))"
    right = f"x^2 + ({a + b})x + ({a * b + slip})"
    value, why = solution_check("", [], f"Then ${left} = {right}$.")
    assert value == (1.0 if slip == 0 else 0.0), why
    if slip:
        assert "read as a rewrite" in why and "is not an identity: at x = " in why
