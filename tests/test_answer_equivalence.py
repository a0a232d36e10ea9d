"""Answer equivalence on real-style final answers: textual forms, math, parse-once, bad input."""

from __future__ import annotations

import pytest

from accord.consensus_core.jury import MISSING
from accord.mathcheck.answers import AUTO, MATH, AnswerConfig, AnswerGrader, equivalence


@pytest.fixture(scope="module")
def grader():
    return AnswerGrader(AUTO)


SAME = [
    ("The limit exists and is equal to 2", "2"),
    ("3 is the only possible value", "3"),
    ("the answer is 17", "17"),
    ("n!", "factorial(n)"),
    ("(2n)!/(2^n n!)", "factorial(2*n)/(2^n*factorial(n))"),
    ("n!/(2n)", "factorial(n - 1)/2"),
    ("C(10, 5)", "252"),
    ("\\binom{10}{5}", "252"),
    ("2*C(10, 5), or equivalently 504", "504"),
    ("binomial(n, 4)", "n(n-1)(n-2)(n-3)/4!"),
    ("sum_(k=1)^n 1/k", "H_n"),
    ("x=y=0", "(x=0, y=0)"),
    ("(x=1, y=1); (x=3, y=2)", "x=3, y=2 and x=1, y=1"),
    ("p=3, q=2 or p=5, q=3", "(p=5, q=3); (p=3, q=2)"),
    ("{1, 19}", "1 and 19"),
    ("1, 4 and 9", "{9, 4, 1}"),
    ("none", "no such n exists"),
    ("No positive integer solutions", "There is no solution."),
    ("the empty set", "{}"),
    ("No", "none"),
    ("infinitely many", "There are infinitely many solutions"),
    ("Yes", "yes, it is possible"),
    ("[-1, 1]", "-1 <= x <= 1"),
    ("x > 0", "(0, oo)"),
    ("35.7%", "0.357"),
    ("5/14, or approximately 35.7%", "0.3571"),
    ("0.35714", "5/14"),
    ("12 cm", "12"),
    ("45°", "45"),
    ("Exactly one", "1"),
    ("At least 1 number", "1"),
    ("98 values", "98"),
    ("n times", "n"),
    ("\\boxed{\\frac12}", "0.5"),
    ("2\\sqrt{2}", "\\sqrt{8}"),
    ("x = 3", "3"),
    ("sqrt(3)/3", "1/sqrt(3)"),
    ("x(n) > y(n-1) for all n >= 2", "y(n-1) < x(n)"),
    ("2,001,000", "2001000"),
]

DIFFERENT = [
    ("2", "3"),
    ("n!", "n! - 1"),
    ("Yes", "No"),
    ("none", "infinitely many"),
    ("0.4", "5/14"),
    ("{1, 19}", "{1, 19, 25}"),
    ("(1, 2)", "{1, 2}"),
    ("(1, 2)", "(2, 1)"),
    ("x(n) > y(n-1)", "x(n) < y(n-1)"),
    ("1", "sum_(k=1)^n 1/k"),
    ("[0, 1]", "(0, 1)"),
    ("(x=1, y=1); (x=3, y=2)", "(x=1, y=1)"),
    ("6.277777777777778e+799", "2001000"),
    ("At least 1 number", "2"),
    ("binomial(n, k)", "binomial(n, m)"),
    ("hello", "olleh"),
    ("", ""),
]


@pytest.mark.parametrize("a, b", SAME)
def test_equal_answers_match_both_ways(grader, a, b):
    assert grader.equivalent(a, b) and grader.equivalent(b, a)


@pytest.mark.parametrize("a, b", DIFFERENT)
def test_different_answers_do_not_match(grader, a, b):
    assert not grader.equivalent(a, b) and not grader.equivalent(b, a)


def test_math_equivalence_leaves_textual_forms_to_text():
    math = AnswerGrader(MATH)
    assert math.equivalent("n!", "factorial(n)") and math.equivalent("\\frac{1}{2}", "0.5")
    assert not math.equivalent("3 is the only possible value", "3")
    assert not math.equivalent("none", "no such n exists")
    assert equivalence("text")("Paris.", "paris")


def test_each_answer_is_parsed_once(grader):
    texts = ["factorial(n)", "n!", "factorial(n)", "The answer is 5", "5"]
    grader.prepare(texts)
    first = {t: grader.parse(t) for t in texts}
    leaves = dict(grader.parser.leaves)
    grader.prepare(texts + ["n!"])
    assert all(grader.parse(t) is first[t] for t in texts)
    assert grader.parser.leaves == leaves


def test_blank_answers_are_no_answer(grader):
    codes = grader.codes([["7", "  ", "7.0", None], ["", "", "x", "x"]])
    assert codes.tolist() == [[0, MISSING, 0, MISSING], [MISSING, MISSING, 0, 0]]
    assert grader.truth("7", ["7", "  ", "7.0", None], codes[0]) == 0
    assert grader.truth("8", ["7", "  ", "7.0", None], codes[0]) == -2


@pytest.mark.parametrize(
    "hostile", ["__import__('os').system('touch /tmp/accord-owned')", "().__class__.__bases__", "lambda: 1", "exec"]
)
def test_code_in_answers_is_text_never_run(grader, hostile):
    parsed = grader.parse(hostile)
    assert parsed.how == "text"
    assert not grader.equivalent(hostile, "0")


def test_math_past_its_time_limit_is_compared_as_text():
    slow = AnswerGrader(AnswerConfig(timeout_s=0.5))
    parsed = slow.parse("factorial(factorial(12))")
    assert parsed.how == "timeout" and slow.parser.timeouts == 1
    assert slow.equivalent("factorial(factorial(12))", "factorial(factorial(12)) ")
    assert slow.equivalent("3 is the only possible value", "3")  # the worker is replaced and keeps working


def test_bad_settings_are_refused():
    with pytest.raises(ValueError, match="timeout"):
        AnswerConfig(timeout_s=0)
    with pytest.raises(ValueError, match="unknown answer equivalence"):
        equivalence("fuzzy")
