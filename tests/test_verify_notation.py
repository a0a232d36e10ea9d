"""Ordinary notation is read as meant: each form correct (valid, never flagged) and wrong (invalid, with evidence)."""

from __future__ import annotations

import json

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from accord.cli.main import main
from accord.mathcheck.checks._claims import solution_check
from accord.mathcheck.reading._notation import expand_ellipsis

Q = "Find the answer."
IMAGINARY = "Let i be the imaginary unit. Compute (1 + i)^2."

# (problem, steps before, step, score): 1.0 valid, 0.0 invalid
CASES = [
    # "q remainder r" is a division with remainder, not a ÷ b = q
    (Q, [], "100 ÷ 7 = 14 remainder 2.", 1.0),
    (Q, [], "100 ÷ 7 = 14 remainder 3.", 0.0),
    (Q, [], "$100 \\div 7 = 14$ remainder $2$.", 1.0),
    (Q, [], "$100 \\div 7 = 13$ remainder $2$.", 0.0),
    (Q, [], "So 2023 divided by 9 is 224 with a remainder of 7.", 1.0),
    (Q, [], "So 2023 divided by 9 is 224 with a remainder of 16.", 0.0),
    # congruences and the mod operator
    (Q, [], "$2^{10} \\equiv 1$ (mod 11).", 1.0),
    (Q, [], "$2^{10} \\equiv 2$ (mod 11).", 0.0),
    (Q, [], "$2^{10} \\equiv 1 \\pmod{11}$, so $2^{20} \\equiv 1$.", 1.0),
    (Q, [], "$2^{10} \\equiv 1 \\pmod{11}$, so $2^{20} \\equiv 3$.", 0.0),
    (Q, [], "Thus 5^2 = 25 = 4 (mod 7).", 1.0),
    (Q, [], "Thus 5^2 = 25 = 3 (mod 7).", 0.0),
    (Q, [], "So 19 mod 4 = 3 mod 4.", 1.0),
    (Q, [], "So 19 mod 4 = 2 mod 4.", 0.0),
    (Q, [], "Modulo 13, we have 3^3 = 27 = 1.", 1.0),
    (Q, [], "Modulo 13, we have 3^3 = 26.", 0.0),
    # the imaginary unit when the problem makes i one
    (IMAGINARY, [], "$(1+i)^2 = 1 + 2i + i^2 = 2i$.", 1.0),
    (IMAGINARY, [], "$(1+i)^2 = 1 + 2i + i^2 = 2$.", 0.0),
    (IMAGINARY, [], "We know $i^2 = -1$.", 1.0),
    (IMAGINARY, [], "We know $i^4 = -1$.", 0.0),
    # finite sums and products written with an ellipsis
    (Q, [], "1 + 2 + ⋯ + 10 = 55.", 1.0),
    (Q, [], "1 + 2 + ⋯ + 10 = 56.", 0.0),
    (Q, [], "$1 + 2 + \\cdots + 10 = 55$.", 1.0),
    (Q, [], "$1^2 + 2^2 + \\dots + 10^2 = 385$.", 1.0),
    (Q, [], "$1^2 + 2^2 + \\dots + 10^2 = 390$.", 0.0),
    (Q, [], "$1 \\cdot 2 \\cdots 6 = 720$.", 1.0),
    (Q, [], "$1 + 2 + 4 + \\dots + 64 = 127$.", 1.0),
    (Q, [], "$1 + 2 + 4 + \\dots + 64 = 128$.", 0.0),
    # … up to a term with a name in it: a sum over the step count
    (Q, [], "$1 + 2 + \\dots + n = \\frac{n(n+1)}{2}$", 1.0),
    (Q, [], "So $S = 1 + 2 + \\dots + n = n(n+1)$.", 0.0),
    (Q, [], "1/1^2 + 2/2^2 + 3/3^2 + ... + n/n^2 = 1 + 1/2 + 1/3 + ... + 1/n.", 1.0),
    (Q, [], "T = 1/1^2 + 2/2^2 + 3/3^2 + ... + n/n^2 = 1 + 1/2 + 1/3 + ... + 1/(n+1).", 0.0),
    (Q, [], "$2 + 4 + 6 + \\cdots + 2n = n(n+1)$", 1.0),
    (Q, [], "$1 \\cdot 2 \\cdot 3 \\cdots n = n!$", 1.0),
    (Q, [], "So 1*2*...*(n-2)*(n-1) = (n-1)!", 1.0),
    (Q, [], "So P = 1*2*...*(n-2)*(n-1) = n!", 0.0),
    # the absurd statement a proof by contradiction derives on purpose
    (Q, ["Suppose such an x exists."], "Then 2^6 < 1, which is not true.", None),
    (Q, ["Suppose such an x exists."], "This gives 1 > 64, which is not true.", None),
    (Q, ["Suppose such an x exists."], "This gives 1 > 64.", 0.0),
    (Q, [], "Then $2 + 1 + 32 \\equiv 30 \\pmod{25}$, which is impossible.", 0.0),  # a computation is never excused
    # factorial identities are checked at integer points
    (Q, [], "This simplifies to $\\frac{k!(n-k)!}{n! n!} = \\frac{(n-k)!}{k! n!}$.", 0.0),
    (Q, [], "So $\\frac{n!}{k!(n-k)!} = \\frac{n!}{(n-k)!k!}$.", 1.0),
    (Q, [], "$(n+1)! = (n+1) n!$", 1.0),
    # ± is read in both branches
    (Q, [], "$\\frac{-1 \\pm 5}{2} = 2$", 1.0),
    (Q, [], "$\\frac{-1 \\pm 5}{2} = -3$", 1.0),
    (Q, [], "$\\frac{-1 \\pm 5}{2} = 3$", 0.0),
    # floor, ceiling and absolute values
    (Q, [], "$\\lfloor 7/2 \\rfloor = 3$.", 1.0),
    (Q, [], "$\\lceil 7/2 \\rceil = 3$.", 0.0),
    (Q, [], "$|3 - 5| = 2$.", 1.0),
    (Q, [], "$|3 - 5| = -2$.", 0.0),
    # binomial coefficients
    (Q, [], "$\\binom{10}{5} = 252$ ways.", 1.0),
    (Q, [], "$\\binom{10}{5} = 250$ ways.", 0.0),
    (Q, [], "$\\binom{n}{2} = \\frac{n(n-1)}{2}$", 1.0),
    # limits: evaluated by sympy, at a point or at infinity
    (Q, [], "$\\lim_{x \\to 2} \\frac{x^2 - 4}{x - 2} = 4$", 1.0),
    (Q, [], "$\\lim_{x \\to 2} \\frac{x^2 - 4}{x - 2} = 2$", 0.0),
    (Q, [], "$\\lim_{n \\to \\infty} \\frac{3n + 1}{n + 2} = 3$", 1.0),
    (Q, [], "$\\lim_{n \\to \\infty} \\frac{3n + 1}{n + 2} = 1$", 0.0),
    (Q, [], "$\\lim_{x \\to 0} \\frac{\\sin x}{x} = 1$", 1.0),
    (Q, [], "$\\lim_{x \\to 0} \\frac{1 - \\cos x}{x^2} = 0.4$", 0.0),
    # finite sums and products written with Σ and Π and their bounds
    (Q, [], "$\\sum_{k=1}^{10} k^2 = 385$", 1.0),
    (Q, [], "$\\sum_{k=1}^{10} k^2 = 384$", 0.0),
    (Q, [], "$\\prod_{k=1}^{5} \\frac{k+1}{k} = 6$", 1.0),
    (Q, [], "$\\prod_{k=1}^{5} \\frac{k+1}{k} = 5$", 0.0),
    (Q, [], "$2\\sum_{k=1}^{4} k + 1 = 21$", 1.0),
    (Q, [], "$\\sum_{k=1}^{n} \\binom{n}{k} k^2 = n(n+1) 2^{n-2}$", 1.0),
    (Q, [], "$(1 + x)^n = \\sum_{k=0}^{n} \\binom{n}{k} x^k$", 1.0),
    (
        Q,
        [],
        "$S = \\sum_{k=1}^{n} \\binom{n}{k} k^2 = \\sum_{k=1}^{n} \\binom{n}{k} k(k-1)"
        " + \\sum_{k=1}^{n} \\binom{n}{k} k$",
        1.0,
    ),
    (
        Q,
        [],
        "$S = \\sum_{k=1}^{n} \\binom{n}{k} k^2 = \\sum_{k=1}^{n} \\binom{n}{k} k(k-1)"
        " + 2\\sum_{k=1}^{n} \\binom{n}{k} k$",
        0.0,
    ),
    # sums, powers and roots written in plain text or with Unicode letters
    (Q, [], "S = Sum_{i=1}^{n} i^2 = n*(n+1)*(2n+1)/6", 1.0),
    (Q, [], "S = Sum_{i=1}^{n} i^2 = n*(n+1)*(2n+1)/3", 0.0),
    (Q, [], "The value is sum_(k=1)^4 k^2 = 30.", 1.0),
    (Q, [], "The value is sum_(k=1)^4 k^2 = 31.", 0.0),
    (Q, [], "Then 2^𝑛 = 8 when 𝑛 = 3, so 2^3 = 8.", 1.0),
    (Q, [], "So 2ⁿ + 1 = 2^n + 1 and 3⁵ = 243.", 1.0),
    (Q, [], "So 3⁵ = 245.", 0.0),
    (Q, [], "Taking cube roots, ∛27 = 3.", 1.0),
    (Q, [], "Taking cube roots, ∛27 = 9.", 0.0),
    ("For positive a, b, find the minimum.", [], "So (√a√b)^2 = ab and √a√b = √(ab).", 1.0),
    # a power of a negative number is defined at integers
    (Q, [], "So S = (1-3)^n = (-2)^n.", 1.0),
    (Q, [], "So S = (1-3)^n = (-2)^(n+1).", 0.0),
    # sums with "…" whose last term is the pattern at an index found from it, and subtracted runs
    (Q, [], "S = 1/(1*2) + 1/(2*3) + ... + 1/(n(n+1)) = 1 - 1/(n+1)", 1.0),
    (Q, [], "S = 1/(1*2) + 1/(2*3) + ... + 1/(n(n+1)) = 1 - 1/n", 0.0),
    (
        Q,
        [],
        "$$T = \\frac{1}{n+1} + \\frac{1}{n+2} + \\cdots + \\frac{1}{2n} = \\frac{2}{2n+2} + \\frac{2}{2n+4}"
        " + \\cdots + \\frac{2}{4n}$$",
        1.0,
    ),
    (
        Q,
        [],
        "$$T = \\frac{1}{n} + \\frac{1}{n+1} + \\frac{1}{n+2} + \\cdots + \\frac{1}{2n} = \\frac{2}{n}"
        " + \\frac{2}{n+1} + \\frac{2}{n+2} + \\cdots + \\frac{2}{2n}$$",
        0.0,
    ),
    (Q, [], "So U = 10 - 1 - 2 - … - 4 = 0.", 1.0),
    (Q, [], "So U = 10 - 1 - 2 - … - 4 = 1.", 0.0),
    ("For positive a, b, find the minimum.", [], "So t = (√a√b + √b)^2 = ab + b.", 0.0),
]


@pytest.mark.parametrize("real", [False, True], ids=["exact", "real"])
@pytest.mark.parametrize("problem,before,step,score", CASES, ids=[c[2][:40] for c in CASES])
def test_ordinary_notation_is_read_as_meant(problem, before, step, score, real):
    got, reason = solution_check(problem, before, step, real)
    if score is None:  # neither valid nor flagged: the absurd statement is the point of the step
        assert got is None, reason
    elif score == 0.0:
        assert got is not None and got < 0.5, reason
        assert "false" in reason or "not an identity" in reason
    else:
        assert got == 1.0, reason


@pytest.mark.parametrize("step", ["100 ÷ 7 = 14 remainder 2.", "100 / 7 = 14 R 2", "So 1 + 2 + ⋯ + 10 = 55."])
def test_the_arithmetic_judge_does_not_read_a_remainder_or_an_ellipsis_as_an_equation(step):
    from accord.mathcheck.checks._arithmetic import check_arithmetic

    assert check_arithmetic(step)[0] is None


def test_the_imaginary_unit_is_a_real_name_where_the_problem_does_not_make_it_one():
    got, reason = solution_check("Find i such that i^2 = 4.", [], "So $i^2 = -1$.")
    assert "imaginary" not in reason


def test_a_one_sided_or_infinite_limit_is_not_judged():
    for step in ("$\\lim_{x \\to 0^+} \\frac{1}{x} = 5$", "$\\lim_{n \\to \\infty} n = 5$"):
        got, reason = solution_check(Q, [], step)
        assert got is None and ("cannot read" in reason or "the limit is oo" in reason), reason


def test_a_sum_over_indexed_terms_or_to_infinity_stays_unread():
    for step in ("$\\sum_{i=1}^n d_i = 0$", "$\\sum_{n=0}^{\\infty} x^n = \\frac{1}{1-x}$"):
        got, reason = solution_check(Q, [], step)
        assert got is None and "cannot read" in reason, reason


def test_an_ellipsis_without_a_pattern_stays_unread():
    assert expand_ellipsis("x_1 + x_2 + … + x_n") is None
    assert expand_ellipsis("1 + 2 + … + 10") == "(1 + 2 + 3 + 4 + 5 + 6 + 7 + 8 + 9 + 10)"
    assert expand_ellipsis("2(1 + 3 + … + 9)") == "2((1 + 3 + 5 + 7 + 9))"
    assert expand_ellipsis("x_1 + x_2 + … + x_n") is None  # indexed terms: a sum accord does not evaluate
    assert expand_ellipsis("1 + 2 + … + n") == "((\\sum_{j=0}^{(n) - 1} ((1 + 1*j))))"
    assert expand_ellipsis("1^2 + 2^2 + … + n^3") is None  # the last term does not fit the pattern


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 10**6), st.integers(2, 999), st.integers(-3, 3))
def test_remainder_statements_hold_exactly_when_a_is_bq_plus_r(a, b, off):
    q, r = divmod(a, b)
    assume(r + off >= 0)
    got, reason = solution_check(Q, [], f"{a} ÷ {b} = {q} remainder {r + off}.")
    if off == 0:
        assert got == 1.0, reason
    else:
        assert got == 0.0, reason


def test_accord_verify_reads_the_notation_without_false_alarms(tmp_path, capsys):
    """Through the command users run: a correct solution in these notations gets no invalid step,
    a wrong one is flagged at its slip."""
    rows = [
        {
            "id": "right",
            "problem": IMAGINARY,
            "label": -1,
            "steps": [
                "100 ÷ 7 = 14 remainder 2.",
                "$1 + 2 + \\cdots + 10 = 55$.",
                "$2^{10} \\equiv 1$ (mod 11).",
                "$(1+i)^2 = 1 + 2i + i^2 = 2i$.",
                "$\\binom{10}{5} = 252$.",
            ],
        },
        {
            "id": "wrong",
            "problem": IMAGINARY,
            "label": 1,
            "steps": ["$100 \\div 7 = 14$ remainder $2$.", "$1 + 2 + \\cdots + 10 = 56$.", "So the answer is 56."],
        },
    ]
    path = tmp_path / "s.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    out = tmp_path / "pred.jsonl"
    rc = main(["verify", str(path), "--out", str(out), "--bootstrap", "0", "--fail-on", "never"])
    capsys.readouterr()
    assert rc == 0
    right, wrong = (json.loads(x) for x in out.read_text().splitlines())
    assert right["step_labels"] == ["valid"] * 5
    assert wrong["prediction"] == 1 and wrong["step_labels"][0] == "valid"
