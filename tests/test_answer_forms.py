"""Answer forms beyond plain values: sentences stating the answer, function forms, ± and set
lists, comparisons in words, and problems that ask for a form (hand-written examples)."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from accord.cli.main import main
from accord.mathcheck.answers import AUTO, AnswerGrader, asked_form
from accord.mathcheck.answers._asked_form import in_lowest_terms, shape
from accord.mathcheck.answers._parser import function_alternatives, plus_minus_list
from accord.mathcheck.answers._text_forms import comparison, function_value, gloss, plus_minus


@pytest.fixture(scope="module")
def grader():
    return AnswerGrader(AUTO)


SAME = [
    ("The answer is 12.", "12"),
    ("So the final answer is 12", "12"),
    ("f(x)=x^2+1", "x^2+1"),
    ("$f(x) = x^2 + 1$", "1 + x^2"),
    ("g(t) = 2t", "f(t)=2*t"),
    ("f(n) = n", "n"),
    ("{1, -1}", "±1"),
    ("±1", "1 and -1"),
    ("1, -1", "±1"),
    ("x = ±2", "{2, -2}"),
    ("x = 3 and x = -3", "±3"),
    ("3 or -3", "+-3"),
    ("1 ± sqrt(2)", "{1 + sqrt(2), 1 - sqrt(2)}"),
    ("none", "There are no such numbers."),
    ("None", "No such n exists"),
    ("always greater", "The left side is always greater than the right side."),
    ("greater", "It is always larger."),
    ("always less", "The right-hand side is always greater than the left-hand side"),
    ("always smaller", "the first is smaller than the second"),
    ("greater than or equal", "The left side is always greater than or equal to the right side"),
]

DIFFERENT = [
    ("The answer is 12.", "13"),
    ("f(x)=x^2+1", "x^2+2"),
    ("f(x) = 2x", "f(x) = x"),
    ("±1", "1"),
    ("±1", "{1, 2}"),
    ("always greater", "always smaller"),
    ("always greater", "The right side is always greater than the left side."),
    ("greater", "greater than or equal"),
    ("always greater", "none"),
    ("greater", "2"),
    ("B is greater than A", "greater"),
    ("n", "n!"),  # a factorial, not an exclamation
    ("10", "10!"),
]


@pytest.mark.parametrize("a,b", SAME)
def test_forms_that_say_the_same(grader, a, b):
    assert grader.equivalent(a, b) and grader.equivalent(b, a)


@pytest.mark.parametrize("a,b", DIFFERENT)
def test_forms_that_differ(grader, a, b):
    assert not grader.equivalent(a, b) and not grader.equivalent(b, a)


def test_only_a_name_applied_to_variables_is_a_function_form():
    assert function_value("f(x) = x + 1") == "x + 1"
    assert function_value("f(x, y) = xy") == "xy"
    assert function_value("f(2) = 5") is None  # a value of f, not its form
    assert function_value("x = 3") is None


def test_plus_minus_expands_one_sign_only():
    assert plus_minus("±1") == "+1 and -1"
    assert plus_minus("x = 1 ± y") == "x = 1 + y and x = 1 - y"
    assert plus_minus("(±1, ±2)") is None  # two signs: which combinations is not said
    assert plus_minus("x^2 - 1") is None


def test_a_comparison_reads_its_subject():
    assert comparison("always greater") == "greater"
    assert comparison("the right side is always less than the left side") == "greater"
    assert comparison("lhs is smaller") == "less"
    assert comparison("a is greater than b") is None  # a sentence about other things is not a verdict
    assert comparison("the left side is greater than the left side") is None


ASKED = [
    ("Factorise x^2 - 1.", "factored"),
    ("Factor completely: x^3 - x", "factored"),
    ("Write x^2 + 5x + 6 as a product of two linear factors.", "factored"),
    ("Expand (x + 1)^3.", "expanded"),
    ("Simplify (x^2 - 1)/(x - 1).", "simplified"),
    ("Find a closed-form formula of sum_(k=1)^n k.", "closed"),
    ("How many subsets does {1, ..., n} have, as an expression of n?", None),
    ("Is 91 a prime factor of 1001?", None),
    (None, None),
]


@pytest.mark.parametrize("problem,form", ASKED)
def test_the_asked_form_is_read_from_the_problem(problem, form):
    assert asked_form(problem) == form


FORM_CASES = [  # (form, reference, answer, same)
    ("factored", "(x-1)(x+1)", "(x+1)*(x-1)", True),
    ("factored", "(x-1)(x+1)", "x^2-1", False),
    ("factored", "(x-1)^2", "x^2-2x+1", False),
    ("expanded", "x^2-2x+1", "(x-1)^2", False),
    ("expanded", "x^2-2x+1", "1 - 2x + x^2", True),
    ("simplified", "x+1", "(x^2-1)/(x-1)", False),
    ("simplified", "x+1", "1+x", True),
    ("closed", "n(n+1)/2", "sum_(k=1)^n k", False),
    ("closed", "n(n+1)/2", "n^2/2 + n/2", True),
    ("closed", "3", "3", True),
    (None, "(x-1)(x+1)", "x^2-1", True),
    (None, "n(n+1)/2", "sum_(k=1)^n k", True),
]


@pytest.mark.parametrize("form,reference,answer,same", FORM_CASES)
def test_form_sensitive_problems_compare_forms(grader, form, reference, answer, same):
    assert grader.equivalent(reference, answer, form) is same
    assert grader.equivalent(answer, reference, form) is same


def test_shape_reads_head_terms_base_and_unevaluated_sums():
    assert shape("Mul(Add(Symbol('x'), Integer(-1)), Add(Symbol('x'), Integer(1)))") == ("Mul", 2, "", False)
    assert shape("Pow(Add(Symbol('x'), Integer(-1)), Integer(2))") == ("Pow", 1, "Add", False)
    assert shape("Sum(Symbol('k'), Tuple(Symbol('k'), Integer(1), Symbol('n')))")[3] is True


@settings(max_examples=60, deadline=None)
@given(st.integers(-30, 30).filter(bool), st.integers(-30, 30))  # x^2 is both forms
def test_factored_and_expanded_quadratics_differ_only_where_form_is_asked(grader, a, b):
    factored = f"(x - ({a}))*(x - ({b}))"
    expanded = f"x^2 - ({a + b})*x + ({a * b})"
    assert grader.equivalent(factored, expanded)
    assert not grader.equivalent(factored, expanded, "factored")
    assert grader.equivalent(factored, f"(x - ({b}))*(x - ({a}))", "factored")


def test_the_cli_reads_the_problem_and_grades_the_asked_form(tmp_path, capsys):
    rows = [
        {
            "id": "p1",
            "problem": "Factorise x^2 - 1.",
            "answers": {"a": "(x-1)(x+1)", "b": "x^2-1", "c": "(x+1)(x-1)"},
            "reference": "(x+1)(x-1)",
        },
        {
            "id": "p2",
            "problem": "What is x^2 - 1 at x = 3?",
            "answers": {"a": "8", "b": "The answer is 8.", "c": "9"},
            "reference": "8",
        },
        {"id": "p3", "answers": {"a": "f(x)=x^2+1", "b": "x^2+1", "c": "±1"}, "reference": "x^2 + 1"},
    ]
    path = tmp_path / "panel.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    assert main(["jury", str(path), "--json", "--n-boot", "40", "--method", "modal"]) == 0
    doc = json.loads(capsys.readouterr().out)
    correct = {v["id"]: v["member_correct"] for v in doc["verdicts"]}
    assert correct["p1"] == {"a": True, "b": False, "c": True}
    assert correct["p2"] == {"a": True, "b": True, "c": False}
    assert correct["p3"] == {"a": True, "b": True, "c": False}
    assert doc["answers_read"]["asked_forms"] == {"factored": 1}


def test_a_problem_that_is_not_text_is_one_line_on_stderr(tmp_path, capsys):
    path = tmp_path / "panel.jsonl"
    path.write_text(json.dumps({"id": "p1", "problem": 3, "answers": {"a": "1", "b": "2"}}) + "\n", encoding="utf-8")
    assert main(["jury", str(path)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "'problem' must be text" in err[0]


SENTENCES_SAME = [  # a sentence or a glossed reference, and the short answer that says the same
    ("0 (none of the values)", "0"),
    ("0 (none of the values)", "none"),
    ("0 (none of the values)", "No"),
    ("100 (all of the values)", "all of the values"),
    ("It is not possible to find such a polynomial.", "no"),
    ("None, since every root is real.", "none"),
    ("Impossible, because the degree is odd", "No"),
    ("The equation has no real roots", "none"),
    ("The maximum value is 4, attained at x = 2", "4"),
    ("3 when a = b = c", "3"),
    ("The only such polynomial is P(x) = x^2", "x^2"),
    ("There aren't any such polynomials", "none"),
    ("None of the given polynomials has this property", "none"),
    ("Not necessarily", "No"),
    ("Such a polynomial exists", "yes"),
    ("There exists such a sequence", "Yes"),
]

SENTENCES_DIFFERENT = [  # the same sentences against wrong answers, and what must stay unread
    ("0 (none of the values)", "1"),
    ("0 (none of the values)", "infinitely many"),
    ("3 (none of the others)", "none"),  # a gloss that the value contradicts is a comment
    ("100 (all of the values)", "none"),
    ("2 (mod 5)", "2"),  # a parenthesis of math is not a gloss
    ("It is not possible to find such a polynomial.", "yes"),
    ("The equation has no solutions other than x = 0", "none"),
    ("The maximum value is 4, attained at x = 2", "2"),
    ("x = 1 when n is odd and x = 2 when n is even", "1"),  # piecewise: never cut to one branch
    ("The only such polynomial is P(x) = x^2", "x^3"),
    ("No more than 3", "no"),
    ("nothing but 3", "no"),
    ("None of them except 3", "none"),
    ("Such a polynomial exists", "no"),
    ("There is such a polynomial: P(x) = x^2", "yes"),  # a value follows: not read as a bare verdict
    ("There are 3 solutions", "yes"),
]


@pytest.mark.parametrize("a,b", SENTENCES_SAME)
def test_sentence_and_glossed_references_match_the_short_answer(grader, a, b):
    assert grader.equivalent(a, b) and grader.equivalent(b, a)


@pytest.mark.parametrize("a,b", SENTENCES_DIFFERENT)
def test_sentence_and_glossed_references_reject_wrong_answers(grader, a, b):
    assert not grader.equivalent(a, b) and not grader.equivalent(b, a)


def test_a_gloss_is_a_closing_parenthesis_of_words():
    assert gloss("0 (none of the values)") == ("0", "none of the values")
    assert gloss("sqrt(2) (about 1.414)") == ("sqrt(2)", "about 1.414")
    assert gloss("f(x)") is None and gloss("C(10, 5)") is None
    assert gloss("2 (mod 5)") is None and gloss("3 (x = 1)") is None and gloss("(1, 2) (3, 4)") is None


LISTS_SAME = [  # function-form alternatives and lists with several ±
    ("f(x)=0 or f(x)=1", "{0, 1}"),
    ("f(x)=0 or f(x)=1", "f(x) = 0, f(x) = 1"),
    ("$f(x)=0$ or $f(x)=1$", "0 and 1"),
    ("f(x) = 0 \\text{ or } f(x) = 1", "{1, 0}"),
    ("f(x) = x for all x or f(x) = -x for all x", "f(x)=x, f(x)=-x"),
    ("The solutions are f(x) = 0 and f(x) = x^2", "{0, x^2}"),
    ("x = \\pm 3", "3, -3"),
    ("$x = \\pm 3$", "3, −3"),  # a Unicode minus
    ("\\boxed{x=\\pm 3}", "x = 3 or x = −3"),
    ("x = \\pm\\sqrt{2}", "sqrt(2), -sqrt(2)"),
    ("x = \\pm 1, \\pm 2", "{1, -1, 2, -2}"),
    ("±1, ±2", "{1, -1, 2, -2}"),
    ("x = ±1, ±sqrt(2)", "1, -1, sqrt(2), -sqrt(2)"),
    ("x = ±1 and x = ±2", "x = 1, x = -1, x = 2, x = -2"),
    ("1 ± sqrt(2), 3", "{3, 1 + sqrt(2), 1 - sqrt(2)}"),
]

LISTS_DIFFERENT = [  # a missing or extra alternative, one sign of several, unsaid pairings
    ("f(x)=0 or f(x)=1", "{0}"),
    ("f(x)=0 or f(x)=1", "f(x) = 0"),
    ("f(x)=0 or f(x)=1", "{0, 2}"),
    ("f(x)=0 or g(x)=1", "{0, 1}"),  # two functions: not a list of one function's forms
    ("x = \\pm 3", "3"),
    ("x = \\pm 3", "x = 3"),
    ("±1, ±2", "{1, 2}"),
    ("±1, ±2", "{1, -1, 2}"),
    ("x = ±1, ±sqrt(2)", "1, -1"),
    ("(±1, ±2)", "(1, 2)"),
    ("x = ±1, y = ±2", "x = 1, y = 2"),
]


@pytest.mark.parametrize("a,b", LISTS_SAME)
def test_function_alternatives_and_plus_minus_lists_match(grader, a, b):
    assert grader.equivalent(a, b) and grader.equivalent(b, a)


@pytest.mark.parametrize("a,b", LISTS_DIFFERENT)
def test_function_alternatives_and_plus_minus_lists_reject_part_answers(grader, a, b):
    assert not grader.equivalent(a, b) and not grader.equivalent(b, a)


def test_plus_minus_lists_expand_each_item_once():
    assert plus_minus_list("±1, ±2") == "+1 and -1, +2 and -2"
    assert plus_minus_list("x = ±1, ±2") == "+1 and -1, +2 and -2"
    assert plus_minus_list("x = \\pm 3") == "x = + 3 and x = - 3"
    assert plus_minus_list("\\pm\\sqrt{2}, 1") is None  # other LaTeX: math-verify reads the \pm
    assert plus_minus_list("x = ±1, y = ±2") is None and plus_minus_list("1, 2") is None


def test_function_alternatives_need_one_function():
    assert function_alternatives("f(x) = 0 or f(x) = x^2") == "0, x^2"
    assert function_alternatives("f(x) = 0 or g(x) = 1") is None
    assert function_alternatives("f(x) = 0, 1") is None


ASKED_FORM_CASES = [  # (form, reference, answer, same): equal values that do not do what is asked
    ("factored", "(x-1)^2 (x+1)", "(x+1)(x-1)^2", True),
    ("factored", "(x-1)^2 (x+1)", "(x-1)(x^2-1)", False),  # same shape (a product of two), not complete
    ("factored", "(x-1)(x+1)(x^2+1)", "(x^2+1)(x+1)(x-1)", True),
    ("factored", "(x-1)(x+1)(x^2+1)", "(x-1)(x^3+x^2+x+1)", False),
    ("factored", "(x-1)(x+1)(x^2+1)", "(x^2-1)(x^2+1)", False),
    ("factored", "x(x-1)(x+1)", "x(x^2-1)", False),
    ("factored", "2(x-1)(x+1)", "(2x-2)(x+1)", True),  # the content may sit in any factor
    ("factored", "(x-1)(x+1)", "-(1-x)(x+1)", True),
    ("factored", "(a-b)(a^2+ab+b^2)", "a^3-b^3", False),
    ("factored", "\\left(x-1\\right)^{2}\\left(x+1\\right)", "(x-1)^2 (x+1)", True),
    ("simplified", "3/4", "6/8", False),
    ("simplified", "3/4", "\\frac{6}{8}", False),
    ("simplified", "3/4", "\\frac{3}{4}", True),
    ("simplified", "2\\sqrt{2}", "\\sqrt{8}", False),
    ("simplified", "2 sqrt(2)", "√8", False),
    (None, "3/4", "6/8", True),
    (None, "(x-1)^2 (x+1)", "(x-1)(x^2-1)", True),
]


@pytest.mark.parametrize("form,reference,answer,same", ASKED_FORM_CASES)
def test_an_answer_must_do_what_the_problem_asks(grader, form, reference, answer, same):
    assert grader.equivalent(reference, answer, form) is same
    assert grader.equivalent(answer, reference, form) is same


def test_lowest_terms_are_read_from_the_text():
    assert in_lowest_terms("3/4") and in_lowest_terms("n(n+1)/2") and in_lowest_terms("2^10/4")
    assert in_lowest_terms("sqrt(2)/2") and in_lowest_terms("\\sqrt[3]{16}")
    assert not in_lowest_terms("10/4") and not in_lowest_terms("\\frac{4}{2}") and not in_lowest_terms("sqrt(12)")


def test_the_cli_rejects_answers_that_do_not_do_what_is_asked(tmp_path, capsys):
    rows = [
        {
            "id": "p1",
            "problem": "Factor x^3 - x^2 - x + 1 completely.",
            "answers": {"a": "(x+1)(x-1)^2", "b": "(x-1)(x^2-1)", "c": "x^3-x^2-x+1"},
            "reference": "(x-1)^2 (x+1)",
        },
        {
            "id": "p2",
            "problem": "Write 18/24 in simplest form.",
            "answers": {"a": "3/4", "b": "6/8", "c": "9/12"},
            "reference": "3/4",
        },
        {
            "id": "p3",
            "problem": "Find all real solutions of x^2 = 9.",
            "answers": {"a": "3, -3", "b": "x = 3", "c": "3"},
            "reference": "x = \\pm 3",
        },
    ]
    path = tmp_path / "panel.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    assert main(["jury", str(path), "--json", "--n-boot", "40", "--method", "modal"]) == 0
    doc = json.loads(capsys.readouterr().out)
    correct = {v["id"]: v["member_correct"] for v in doc["verdicts"]}
    assert correct["p1"] == {"a": True, "b": False, "c": False}
    assert correct["p2"] == {"a": True, "b": False, "c": False}
    assert correct["p3"] == {"a": True, "b": False, "c": False}
    assert doc["answers_read"]["asked_forms"] == {"factored": 1, "simplified": 1}
