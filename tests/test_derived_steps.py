"""A relation derived from the one before ("cross-multiplying gives", "dividing both sides by a gives")
is checked as its consequence: valid where it follows, invalid with a point where it does not."""

from __future__ import annotations

import json

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from accord.cli.main import main
from accord.mathcheck.checks._claims import solution_check

POSITIVE = "Let a, b, c be positive real numbers."
REAL = "Let a, b, c be real numbers."
KIND = "For positive a, b, c, d, how many of a+b<c+d and ab<cd can hold?"
CASES = [
    # an equation not linear in any name: a point on it found numerically
    (
        "Let a and b be positive integers with 2^a/(2^b - 1) = 7.",
        ["We have $\\frac{2^a}{2^b - 1} = 7$."],
        "Cross-multiplying gives $2^a = 7(2^b - 1)$.",
        1.0,
    ),
    (
        "Let a and b be positive integers with 2^a/(2^b - 1) = 7.",
        ["We have $\\frac{2^a}{2^b - 1} = 7$."],
        "Cross-multiplying gives $2^a = 7 \\cdot 2^b - 1$.",
        0.0,
    ),
    # solving for a name
    ("Let x and y be real numbers.", ["We have $3x + 2y = 12$."], "Solving for $y$ gives $y = (12 - 3x)/2$.", 1.0),
    ("Let x and y be real numbers.", ["We have $3x + 2y = 12$."], "Solving for $y$ gives $y = 12 - 3x/2$.", 0.0),
    ("Let x be a real number.", ["We have $x^2 + x = 6$."], "Rearranging gives $x^2 + x - 6 = 0$.", 1.0),
    ("Let x be a real number.", ["We have $x^2 + x = 6$."], "Rearranging gives $x^2 + x + 6 = 0$.", 0.0),
    # inequalities on points of the problem's domain that satisfy the one before
    (POSITIVE, ["We have $b^2 - 4ac > 0$."], "Dividing both sides by $a^2$ gives $(b/a)^2 - 4c/a > 0$.", 1.0),
    (POSITIVE, ["We have $b^2 - 4ac > 0$."], "Dividing both sides by $a$ gives $(b/a)^2 - 4c > 0$.", 0.0),
    (POSITIVE, ["We have $a + b > 2c$."], "Subtracting $c$ from both sides gives $a + b - c > c$.", 1.0),
    (POSITIVE, ["We have $a + b > 2c$."], "Subtracting $c$ from both sides gives $a + b - c > 2c$.", 0.0),
    # the domain: a sign the solution states is respected; without it, multiplying by c may flip
    (REAL, ["We know $c > 0$ and $a - b > c$."], "Multiplying both sides by $c$ gives $ac - bc > c^2$.", 1.0),
    (REAL, ["We know $a - b > c$."], "Multiplying both sides by $c$ gives $ac - bc > c^2$.", 0.0),
    # grouping, factoring and rewriting are operations too; names given by their kind ("For positive
    # a, b, c, d") are the problem's; an earlier inequality few random points satisfy is still used
    (KIND, ["$ac + bc - ab + ad + bd - cd < 0$", "Grouping terms, we get:"], "$c(a + b - d) + a(d + b - c) < 0$", 0.0),
    (KIND, ["$ac + bc - ab + ad + bd - cd < 0$", "Grouping terms, we get:"], "$c(a + b - d) + a(d - b) + bd < 0$", 1.0),
    (KIND, ["We have $a^2 + 2ab + b^2 > c^2$."], "Factoring the left side gives $(a + b)^2 > c^2$.", 1.0),
    (KIND, ["We have $a^2 + 2ab + b^2 > c^2$."], "Factoring the left side gives $(a - b)^2 > c^2$.", 0.0),
    (KIND, ["We have $a + b > 2c$."], "We can rewrite this as $a - c > c - b$.", 1.0),
    (KIND, ["We have $a + b > 2c$."], "We can rewrite this as $a - c > b - c$.", 0.0),
]


@pytest.mark.parametrize("problem,before,step,score", CASES, ids=[f"{c[2][:40]}-{c[3]}" for c in CASES])
def test_a_derived_relation_is_checked_against_the_one_before(problem, before, step, score):
    got, reason = solution_check(problem, before, step)
    if score:
        assert got == 1.0 and ("follows from" in reason or "side is" in reason), reason
    elif "the left side" in step or "Grouping" in before[-1]:  # one side rewritten: it must equal the side before
        assert got == 0.0 and "side rewritten must equal" in reason, reason
    else:  # the evidence is a point that satisfies the equation before
        assert got == 0.0, reason  # with the point: one that satisfies what it is derived from
        assert any(w in reason for w in ("which satisfies", "solution", "value", "where that")), reason


CITED = "For positive a, b, c, what is the smallest value of (a^3+b^3+c^3)/((a+b+c)(a^2+b^2+c^2))?"
E = "\\frac{a^3+b^3+c^3}{(a+b+c)(a^2+b^2+c^2)}"
CITED_CASES = [
    # a known inequality cited: what it gives must hold wherever the problem's names may be; the
    # last score is the same statement uncited (a first statement that may be a hypothesis)
    (CITED, [], "By the AM-GM inequality, we have $ab + bc + ca \\ge 3\\sqrt[3]{a^2b^2c^2}$.", 1.0, 1.0),
    (CITED, [], "By the AM-GM inequality, we have $ab + bc + ca \\ge 3\\sqrt{a^2b^2c^2}$.", 0.0, None),
    (CITED, ["By Cauchy-Schwarz, we have:"], "$(a^2 + b^2)(1 + 1) \\ge (a + b)^2$", 1.0, 1.0),
    (CITED, ["By Cauchy-Schwarz, we have:"], "$(a^2 + b^2)(1 + 1) \\ge (a + b)^3$", 0.0, None),
    # a side known only to 60 digits (a square root) compared with an exact one
    (CITED, ["Applying this inequality to the expression, we have:"], f"${E} \\le \\sqrt{{{E}}}$", 1.0, 1.0),
    (CITED, ["Applying this inequality to the expression, we have:"], f"${E} \\ge \\sqrt{{{E}}}$", 0.0, 0.0),
]


@pytest.mark.parametrize(
    "problem,before,step,score,uncited", CITED_CASES, ids=[f"{c[2][-30:]}-{c[3]}" for c in CITED_CASES]
)
def test_an_inequality_a_theorem_gives_holds_everywhere(problem, before, step, score, uncited):
    got, reason = solution_check(problem, before, step)
    if score:
        assert got == 1.0 and "holds at" in reason, reason
    else:
        assert got == 0.0 and "fails at" in reason, reason
    # uncited it may be a condition on particular values: valid only when it holds at every point,
    # false only when it fails at every one (the value 0 < E < 1 is never at least its square root)
    bare, why = solution_check(problem, [], "We have " + step.split("have ", 1)[-1])
    assert bare == uncited, why
    if uncited == 0.0:
        assert "at every one of" in why and "false for every admissible value" in why, why
    if uncited is None:
        assert "holds at some admissible points and not at others" in why, why


def test_names_the_problem_does_not_use_and_signs_in_words_are_left_alone():
    got, _ = solution_check(POSITIVE, ["We have $x + y > 2z$."], "Subtracting $z$ gives $x + y - z > 2z$.")
    assert got is None  # x, y, z: not the problem's names, their domain unknown
    got, _ = solution_check(
        REAL, ["We have $a - b > c$."], "Multiplying both sides by the negative $c$ flips it: $ac - bc < c^2$."
    )
    assert got is None


def test_accord_verify_flags_the_step_that_does_not_follow(tmp_path, capsys):
    row = {
        "id": "d",
        "problem": POSITIVE,
        "label": 1,
        "steps": [
            "We have $b^2 - 4ac > 0$.",
            "Dividing both sides by $a$ gives $(b/a)^2 - 4c > 0$.",
            "So the claim holds.",
        ],
    }
    path = tmp_path / "d.jsonl"
    path.write_text(json.dumps(row) + "\n")
    out = tmp_path / "pred.jsonl"
    rc = main(["verify", str(path), "--out", str(out), "--bootstrap", "0"])
    capsys.readouterr()
    rec = json.loads(out.read_text())
    assert (
        rc == 1
        and rec["prediction"] == 1
        and "does not follow from the inequality before it" in rec["steps"][1]["reason"]
    )


NUMBERS = "Find all positive integers x, y, a, b, c, n, m with 2x + y = c^2 and n(n^2 - 1) = a^m."
KEPT = [
    # one side written exactly as before: the other must be the earlier side rewritten
    (["(2x + y) - (x + 2y) = c^2 - b^2"], "2x - x = c^2 - b^2", 0.0),
    (["(2x + y) - (x + 2y) = c^2 - b^2"], "2x + y - x - 2y = c^2 - b^2", 1.0),  # the solved-for check decides it
    (["(2x + y) - (x + 2y) = b^2 + c^2 - 2b^2"], "x - y = b^2 + c^2 - 2b^2", 1.0),
    (["n(n^2 - 1) = a^m", "Next, using the difference of squares:"], "(n-1)(n+1) = a^m", 0.0),
    (["n(n^2 - 1) = a^m", "Next, using the difference of squares:"], "n(n-1)(n+1) = a^m", 1.0),
    (["x^2 = 7^2 y^2 + 3^2"], "x^2 = 49y^2 + 6", 0.0),
    (["x^2 = 7^2 y^2 + 3^2"], "x^2 = 49y^2 + 9", 1.0),
]


@pytest.mark.parametrize("before,step,score", KEPT, ids=[f"{c[1]}-{c[2]}" for c in KEPT])
def test_an_equation_keeping_one_side_must_rewrite_the_other(before, step, score):
    got, reason = solution_check(NUMBERS, before, step)
    if score:
        assert got == 1.0 and ("side is kept" in reason or "follows from" in reason), reason
    else:
        assert got == 0.0 and ("must equal" in reason or "does not follow from" in reason), reason
    if step in ("2x - x = c^2 - b^2", "x^2 = 49y^2 + 6"):  # the kept side marks a rewrite of the other
        assert "does not follow from" in reason and "(step 1)" in reason and "which satisfies" in reason, reason


@pytest.mark.parametrize(
    "before,step",
    [
        (["a^2 = a + 100k"], "a^2 = a + 200j"),  # a new name: a substitution
        (["p = 6n - 1"], "p = 6n + 1"),  # a bare name kept: a list of forms
        (["Case 1: x + y = c^2 - 1"], "Case 2: x + y = c^2 + 1"),  # cases
        (["x + y = c^2 - 1"], "Substituting $y = 2$, we get $x + 2 = c^2 - 1$."),
        (["x + y = c^2 - 1"], "Similarly, $x + 2y = c^2 - 1$."),
    ],
)
def test_substitutions_lists_and_cases_are_not_rewrites(before, step):
    got, reason = solution_check(NUMBERS, before, step)
    assert got is None or "side is kept" not in reason, reason


def test_an_announced_operation_is_not_a_supposition():
    """ "Let's factor", "let's expand" announce an operation: the result is checked; "let's say" and
    "let x = 2" still suppose."""
    q = "Solve x^3 + 8x^2 - 6x + 8 = y^3 in integers x, y."
    before = ["x^3 + 8x^2 - 6x + 8 - y^3 = 0", "Now, let's factor the left side of the equation:"]
    score, reason = solution_check(q, before, "(x + 2)^3 - y^3 = 0")
    assert score == 0.0 and "does not follow from x^3 + 8·x^2 - 6·x + 8 - y^3 = 0 (step 1)" in reason, reason
    before[1] = "Now, let's say the left side is a cube:"
    assert solution_check(q, before, "(x + 2)^3 - y^3 = 0")[0] is None


def test_an_equation_whose_sides_differ_by_a_number_holds_for_no_value():
    q = "Solve 15x^2 - 7y^2 = 9 in integers."
    before = ["\\[15x^2 = 7y^2 + 9\\]", "Notice that the right side can be written as:"]
    score, reason = solution_check(q, before, "\\[7y^2 + 9 = 7y^2 + 2^2\\]")
    assert score == 0.0 and any(w in reason for w in ("differ by 5", "not an identity", "refuted at")), reason
    assert solution_check(q, before, "\\[7y^2 + 9 = 7y^2 + 3^2\\]")[0] == 1.0
    # derived on purpose in a proof by contradiction: not an error
    assert solution_check(q, ["\\[15x^2 = 7y^2 + 9\\]"], "So $7y^2 + 9 = 7y^2 + 4$, which is impossible.")[0] is None


def test_a_number_spelt_by_its_digits_is_never_evidence():
    q = "Find a four-digit number aabb (digits a, b) that is a perfect square."
    steps = ["The number is 1100a + 11b.", "1100a + 11b = aabb", "Rearranging the terms, we have:"]
    score, reason = solution_check(q, steps, "aabb - 1100a - 11b = 0")
    assert score is None and "a·a·b·b" not in reason
    steps += ["aabb - 1100a - 11b = 0", "Now, let's factor out the common factor of 11:"]
    score, reason = solution_check(q, steps, "11(aa - 100a - b) = 0")
    assert "a·a·b·b" not in reason, reason


def test_a_sum_is_not_a_number_spelt_by_its_digits():
    from accord.mathcheck.reading._digits import digit_string

    assert digit_string("aabb - 1100a - 11b = 0") and digit_string("4 * abc0 = 0dcba")
    assert not digit_string("¿sum _{k=0}^m 2^(n-k) = 2^n - 1") and not digit_string("binom(n, k) = 3")


SIDES = "For positive a, b, c, what is the largest value of sqrt(ab+bc+ac)/(a+b+c)?"
RIGHT = "Simplifying the right side, we have:"
SIDE_CASES = [
    # words that rewrite one named side: the other stays, the named one must be the earlier one rewritten
    ("(a + b + c)(b + c + a) ≥ (√a√b + √b√c + √c√a)^2", RIGHT, "(a + b + c)^2 ≥ (ab + bc + ac)", 0.0),
    ("(a + b + c)(a + b + c) ≥ (√a√b + √b√c)^2", RIGHT, "(a + b + c)^2 ≥ ab + 2b√(ac) + bc", 1.0),
    ("(a + b)^2 ≥ 4ab", "Expanding the left side, we get:", "a^2 + 2ab + b^2 ≥ 4ab", 1.0),
    ("(a + b)^2 ≥ 4ab", "Expanding the left side, we get:", "a^2 + ab + b^2 ≥ 4ab", 0.0),
    # words that rewrite without naming a side: the side written as before stays, the other is rewritten
    ("(a + b)^2 ≥ 4ab", "Expanding the square, we get:", "a^2 + 2ab + b^2 ≥ 4ab", 1.0),
    ("(a + b)^2 ≥ 4ab", "Expanding the square, we get:", "a^2 + b^2 ≥ 4ab", 0.0),
    ("(a + b - 2√(ab))^2 ≥ 0", "Expanding, we get:", "a^2 + b^2 + 2ab - 4(a + b)√(ab) + 4ab ≥ 0", 1.0),
    ("(a + b - 2√(ab))^2 ≥ 0", "Expanding, we get:", "a^2 + b^2 + 2ab - 4ab√(ab) + 4ab ≥ 0", 0.0),
]


@pytest.mark.parametrize("premise,lead_in,step,score", SIDE_CASES, ids=[f"{c[2][:30]}-{c[3]}" for c in SIDE_CASES])
def test_a_named_side_rewritten_must_equal_the_side_before(premise, lead_in, step, score):
    got, reason = solution_check(SIDES, [premise, lead_in], step)
    if score:
        assert got == 1.0, reason
    else:
        assert got == 0.0 and ("side rewritten must equal" in reason or "does not follow" in reason), reason


def test_a_relation_changed_on_one_side_by_a_step_that_is_not_a_rewrite_is_left_to_other_checks():
    """Squaring, multiplying or bounding changes one side while the other (0, 4ab) stays: not a rewrite."""
    for lead_in, step in [
        ("Squaring, we get:", "(a - b)^2 ≥ 0"),
        ("Multiplying by 2, we get:", "2(a + b)^2 ≥ 4ab"),
        ("Using ab ≤ (a + b)^2/4, we get:", "(a + b)^2 ≥ 4ab"),
    ]:
        _, reason = solution_check(SIDES, ["a - b ≥ 0" if "Squaring" in lead_in else "(a + b)^2 ≥ 4ab", lead_in], step)
        assert "rewritten must equal" not in reason, (lead_in, reason)


def test_an_identity_in_square_roots_is_checked_at_positive_points():
    got, reason = solution_check("Let a and b be positive.", [], "So t = (√a√b + √b)^2 = ab + 2b√a + b.")
    assert got == 1.0 and "positive points" in reason, reason
    got, reason = solution_check("Let a and b be positive.", [], "So t = (√a√b + √b)^2 = ab + b.")
    assert got == 0.0, reason


def test_a_range_of_positive_integers_is_the_domain_and_its_start_is_used():
    """ "n in {101, ..., 1000}": positive integers from 101; an inequality derived from the one
    before is checked there (4n times the sum is not 4n minus the terms)."""
    q = "For how many values of n in {101, ..., 1000} is 1/(n+1)+1/(n+2)+...+1/(2n)<3/4?"
    before = ["$$\\frac{1}{n+1}+\\frac{1}{n+2}+\\cdots+\\frac{1}{2n}<\\frac{3}{4}$$", "Multiplying both sides by $4n$:"]
    score, reason = solution_check(q, before, "$$4n-\\frac{4}{n+1}-\\frac{4}{n+2}-\\cdots-\\frac{4}{2n}<3$$")
    assert score == 0.0 and "positive integers" in reason and "at n = 1" in reason, reason
    score, reason = solution_check(q, before, "$$\\frac{4n}{n+1}+\\frac{4n}{n+2}+\\cdots+\\frac{4n}{2n}<3n$$")
    assert score == 1.0, reason


EXPR = "For positive a, b, c, what is the smallest value of abc - (a+b-c)(a+c-b)(b+c-a)?"
DISPLAY_CASES = [
    # an expression shown alone after words that rewrite: it must be the expression before, rewritten
    (
        ["The given expression is abc - (a+b-c)(a+c-b)(b+c-a).", "We can rewrite the expression as follows:"],
        "abc - (a^2 + b^2 + c^2 - ab - ac - bc)",
        0.0,
    ),
    (
        ["The given expression is $abc - (a+b-c)(a+c-b)(b+c-a)$.", "Expanding the product, we get:"],
        "$a^3 + b^3 + c^3 - a^2b - a^2c - ab^2 - b^2c - ac^2 - bc^2 + 3abc$",
        1.0,
    ),
    (
        ["This simplifies to (a+b+c)/(abc/a^2 + abc/b^2 + abc/c^2)."],
        "Further simplifying, we get (a+b+c)/(bc + ac + ab).",
        0.0,
    ),
    (
        ["This simplifies to (a+b+c)/(abc/a^2 + abc/b^2 + abc/c^2)."],
        "Further simplifying, we get abc(a+b+c)/(b^2c^2 + a^2c^2 + a^2b^2).",
        1.0,
    ),
    # a lead-in without a colon ("We can write this as") is one claim with the display after it
    (["$$a^2 + b^2 + c^2 - ab - bc - ca$$", "We can write this as"], "$$\\frac{(a-b)^2 + (b-c)^2 + (c-a)^2}{2}$$", 1.0),
    (["$$a^2 + b^2 + c^2 - ab - bc - ca$$", "We can write this as"], "$$(a-b)^2 + (b-c)^2 + (c-a)^2$$", 0.0),
    # not a rewrite: a part of a relation, a new name, or words that change the expression
    (["$$a + b \\ge 2c$$", "Expanding the left side:"], "$$b + a$$", None),
    (["The given expression is $abc - (a+b)(b+c)$.", "Substituting $c = a$, we get:"], "$$a^2b - (a+b)^2$$", None),
    (["The given expression is $abc - (a+b)(b+c)$.", "We can rewrite it as follows:"], "$$abc - (a+b)(b+d)$$", None),
    (["The given expression is $abc - (a+b)(b+c)$.", "Adding $ab$, we get:"], "$$abc - b^2 - bc - ac$$", None),
    (["Now our expression becomes sqrt(ab+bc+ac)/(abc)^(1/3)."], "We can rewrite abc as sqrt((ab)(bc)(ac)).", None),
]


@pytest.mark.parametrize("before,step,score", DISPLAY_CASES, ids=[f"{c[1][:30]}-{c[2]}" for c in DISPLAY_CASES])
def test_an_expression_shown_after_rewriting_words_is_the_expression_before(before, step, score):
    got, reason = solution_check(EXPR, before, step)
    if score is None:
        assert got is None or "rewritten" not in reason, reason
    elif score:
        assert got == 1.0 and "rewritten" in reason, reason
    else:
        assert got == 0.0 and "is shown as" in reason and "rewritten, but at" in reason, reason


def test_a_lead_in_without_a_colon_takes_the_verdict_of_the_display_after_it():
    before = ["$$a^2 + b^2 + c^2 - ab - bc - ca$$"]
    got, reason = solution_check(EXPR, before, "We can write this as", following="$$(a-b)^2 + (b-c)^2 + (c-a)^2$$")
    assert got == 0.0 and reason.startswith("the claim of the next line"), reason
    got, _ = solution_check(EXPR, before, "We can write this as.", following="$$(a-b)^2 + (b-c)^2 + (c-a)^2$$")
    assert got is None  # a sentence that ends is not a lead-in


def test_a_lead_in_with_several_formulas_does_not_say_which_one_is_rewritten():
    q = "Find the minimum of sin(x)^3/cos(x) + cos(x)^3/sin(x) for 0 < x < π/2."
    lead_in = "1. Write sin(x)^3/cos(x) as sin(x)^3*(1/cos(x)), and write cos(x)^3/sin(x) as cos(x)^3*(1/sin(x)):"
    got, reason = solution_check(q, [lead_in], "sin(x)^3*(1/cos(x)) + cos(x)^3*(1/sin(x))")
    assert got is None, reason


SYSTEM = [
    "x + y = a^2   (Equation 1)",
    "x + 2y = b^2  (Equation 2)",
    "2x + y = c^2  (Equation 3)",
]


@pytest.mark.parametrize(
    "lead_in,step,score",
    [
        ("Adding Equation 1 and Equation 2, we get:", "2x + 3y = a^2 + b^2", 1.0),
        ("Adding Equation 1 and Equation 2, we get:", "2x + 3y = a^2 + 2b^2", 0.0),
        ("Subtracting Equation 1 from Equation 3, we get:", "x = c^2 - a^2", 1.0),
        ("Subtracting Equation 1 from Equation 3, we get:", "x = c^2 + a^2", 0.0),
        ("Subtracting the first equation from twice the second, we get:", "x + 3y = 2b^2 - a^2", 1.0),
    ],
)
def test_an_equation_got_by_adding_or_subtracting_equations_is_their_combination(lead_in, step, score):
    got, reason = solution_check("Find positive integers x, y with x+y, x+2y, 2x+y squares.", [*SYSTEM, lead_in], step)
    assert got == score, reason
    if score:
        assert "follows from steps 1, 2 and 3" in reason, reason
    else:
        assert "refuted at" in reason or "no sum of multiples" in reason, reason  # the point, or the combination


def test_lets_consider_announces_no_supposition_and_a_number_side_kept_fixes_the_other():
    lead_in = "Now, let's consider the relationship among x+1 and y. We can rewrite the equation as:"
    before = ["x^3 + 3x^2 + 3x + 1 - y^3 = 0", lead_in]
    got, reason = solution_check("Find integers x, y with x^3+3x^2+3x+1 = y^3.", before, "(x+1)^3 - y^3 = 0")
    assert got == 1.0, reason
    got, reason = solution_check("Find integers x, y with x^3+3x^2+3x+1 = y^3.", before, "(x+1)^3 - (y^3 - 1) = 0")
    assert got == 0.0, reason


def test_nothing_is_derived_from_a_number_spelt_by_its_digits():
    q = "Find all four-digit numbers aabb that are perfect squares."
    before = ["aabb - 1100a - 11b = 0", "Now, let's factor out the common factor of 11:"]
    got, reason = solution_check(q, before, "11(aa - 100a - b) = 0")
    assert got is None, reason


@pytest.mark.parametrize(
    "step,score",
    [
        ("m^2 + m + 1 = n^4 + 2n^3 + 3n^2 + 2n + 1", 1.0),
        ("m^2 + m + 1 = n^4 + 2n^3 + 3n^2 + 2n + 1 - (n^2 + n)^2", 0.0),
    ],
)
def test_lets_complete_the_square_is_an_operation_on_the_equation_before(step, score):
    before = ["m^2 + m = n^4 + 2n^3 + 3n^2 + 2n", "Now, let's complete the square by adding 1 to both sides:"]
    got, reason = solution_check("Find integers m, n with m^2 + m = n^4 + 2n^3 + 3n^2 + 2n.", before, step)
    assert got == score, reason


@pytest.mark.parametrize(
    "before,step,score",
    [
        (
            ["a^2bc + ab^2c + abc^2 > bc + ac + ab", "Since abc = 1, we can substitute it into the inequality:"],
            "a + b + c > bc + ac + ab",
            1.0,
        ),
        (
            ["a^2bc + ab^2c + abc^2 > bc + ac + ab", "Since abc = 1, we can substitute it into the inequality:"],
            "a^2 + b^2 + c^2 > bc + ac + ab",
            0.0,
        ),
        (["x^2y + xy^2 = 12", "Substituting xy = 3, we get:"], "3(x + y) = 12", 1.0),
        (["x^2y + xy^2 = 12", "Substituting xy = 3, we get:"], "x + y = 12", 0.0),
    ],
)
def test_a_side_after_substituting_a_stated_equation_is_the_side_before_where_it_holds(before, step, score):
    got, reason = solution_check("For real a, b, c, x, y with abc = 1 and xy = 3, show it.", before, step)
    assert got == score, reason
    assert "where" in reason or ("follows from" if score else "refuted at") in reason, reason


_COEF = st.integers(-5, 5)


@settings(max_examples=40, deadline=None)
@given(
    st.lists(st.tuples(_COEF, _COEF, _COEF), min_size=2, max_size=3),
    st.lists(_COEF, min_size=3, max_size=3),
    st.integers(1, 4),
)
def test_a_sum_of_multiples_of_the_equations_is_valid_and_a_shifted_one_is_not(rows, multiples, shift):
    """Equations p·x + q·y = r·a^2 combined with integer multiples give an equation that is valid;
    the same equation with its constant shifted is no combination of them."""
    import sympy

    assume(sympy.Matrix([list(r) for r in rows]).rank() == len(rows))  # independent, consistent equations
    x, y, sq = sympy.symbols("x y sq")  # sq stands for a^2: the system must leave it a value >= 0 (a real a)
    solved = sympy.solve([p * x + q * y - r * sq - (k + 1) for k, (p, q, r) in enumerate(rows)], [x, y, sq], dict=True)
    assume(solved and not (solved[0].get(sq, sq).is_number and solved[0][sq] < 0))
    assume(any(m for m, _ in zip(multiples, rows)))
    # two lines with the same left side read as one side kept and the other rewritten (docs/verify.md)
    assume(len({(p, q) for p, q, _ in rows}) == len(rows))
    equations = [f"{p}*x + {q}*y = {r}*a^2 + {k + 1}" for k, (p, q, r) in enumerate(rows)]
    total = [sum(m * r[i] for m, r in zip(multiples, rows)) for i in range(3)]
    constant = sum(m * (k + 1) for k, m in enumerate(multiples[: len(rows)]))
    left = f"{total[0]}*x + {total[1]}*y - {total[2]}*a^2"
    assume(any(total))
    before = [*equations, "Adding these equations, we get:"]
    got, reason = solution_check("Find x, y, a.", before, f"{left} = {constant}")
    assert got == 1.0, reason
    got, reason = solution_check("Find x, y, a.", before, f"{left} = {constant + shift}")
    assert got == 0.0 and ("refuted at" in reason or "no sum of multiples" in reason), reason


SMALLEST = "Let x, y>0 and s be the smallest of x, 1/(x+y), 1/y. What is the largest possible value of s?"


@pytest.mark.parametrize(
    "step,score",
    [
        ("From \\( x \\leq \\frac{1}{y} \\), we get \\( xy \\leq 1 \\).", 1.0),
        ("From \\( x \\leq \\frac{1}{y} \\), we get \\( xy \\geq 1 \\).", 0.0),
        ("From \\( \\frac{1}{x+y} \\leq x \\), we get \\( 1 \\leq x^2 + xy \\).", 1.0),
        # fewer names than the inequality it comes from; "positive" restates the problem's domain
        (
            "From \\( \\frac{1}{x+y} \\leq x \\), we get \\( 1 \\leq x^2 + xy \\), which implies \\( x \\geq 1 \\) "
            "since \\( x \\) and \\( y \\) are positive.",
            0.0,
        ),
        # a supposition, or a step that speaks of other signs, is left alone
        ("If \\( x \\leq \\frac{1}{y} \\), we get \\( xy \\geq 1 \\).", None),
        ("From \\( x \\leq \\frac{1}{y} \\), and as x is negative, we get \\( xy \\geq 1 \\).", None),
    ],
)
def test_an_inequality_derived_within_a_step_must_follow_from_the_one_it_comes_from(step, score):
    got, why = solution_check(SMALLEST, [], step)
    assert got == score, why
    if score == 0.0:
        assert "does not follow from the inequality it is derived from" in why and "(admissible)" in why, why


TRIANGLE = "Let a, b, c be the sides of a triangle. What is the largest value of (a^2+b^2+c^2)/(ab+bc+ac)?"


@pytest.mark.parametrize(
    "step,score",
    [
        ("so $a+b+c \\ge 2$.", 0.0),  # false for small sides: points are drawn below 1 as often as above
        ("so $a+b+c \\ge 0$.", 1.0),
        ("Therefore, $a+b+c \\ge 0$.", 1.0),
        ("We also know $a+b+c \\ge 2$.", None),  # no word concludes it from the line before: a first statement
    ],
)
def test_an_inequality_a_step_concludes_from_the_one_before_must_follow_from_it(step, score):
    got, why = solution_check(TRIANGLE, ["Adding these three inequalities, we get $$2(a+b+c) \\ge a+b+c,$$"], step)
    assert got == score, why
