"""Claims about a sequence the problem defines (accord.mathcheck.checks._sequences), on hand-written problems."""

from fractions import Fraction

from accord.mathcheck.checks._claims import solution_check
from accord.mathcheck.checks._sequences import sequence_claims, sequences_of

DOUBLING = "The sequence is defined by $a_1 = 1$ and $a_{n+1} = 2a_n + 1$ for $n \\geq 1$. Find $a_5$."
FIBONACCI = "Let F_0 = 0, F_1 = 1 and F_{n+2} = F_{n+1} + F_n for n >= 0. Compute F_{12}."
EXPLICIT = "Let x_n = n^2 + 1 for every positive integer n. What is x_{10}?"


def verdicts(question: str, step: str) -> list[bool]:
    return [c.holds for c in sequence_claims(question, step)]


def test_terms_of_a_recurrence_and_of_an_explicit_formula():
    a = sequences_of(DOUBLING)["a"]
    assert [a.term(i) for i in range(1, 7)] == [1, 3, 7, 15, 31, 63]
    f = sequences_of(FIBONACCI)["F"]
    assert f.term(12) == 144
    assert sequences_of(EXPLICIT)["x"].term(10) == Fraction(101)


def test_claimed_terms():
    assert verdicts(DOUBLING, "So a_5 = 2a_4 + 1 = 2 \\cdot 15 + 1 = 31.") == [True, True]  # the last link has no term
    wrong = sequence_claims(DOUBLING, "Hence $a_5 = 30$.")
    assert [c.holds for c in wrong] == [False]
    assert "a_5 = 31" in wrong[0].reason
    assert verdicts(FIBONACCI, "F_{12} = 144") == [True]
    assert verdicts(FIBONACCI, "F_{12} = 143") == [False]
    assert verdicts(EXPLICIT, "x_{10} = 100") == [False]


def test_closed_forms_and_derived_recurrences_at_small_indices():
    assert verdicts(DOUBLING, "Thus a_n = 2^n - 1.") == [True]
    assert verdicts(DOUBLING, "Thus a_n = 2^n + 1.") == [False]
    assert verdicts(DOUBLING, "Two steps at once: a_{n+2} = 4a_n + 3.") == [True]
    assert verdicts(EXPLICIT, "The gaps are x_{n+1} - x_n = 2n + 1.") == [True]
    assert verdicts(EXPLICIT, "The gaps are x_{n+1} - x_n = 2n.") == [False]


def test_a_formula_valid_from_some_index_on_is_not_flagged():
    shifted = "Let c_1 = 5 and c_{n+1} = 2n for n >= 1. Find c_9."
    assert sequences_of(shifted)["c"].term(9) == 16
    assert verdicts(shifted, "For n >= 2, c_n = 2n - 2.") == []  # fails at n = 1 only
    assert verdicts(shifted, "So c_n = 2n.") == [False]


def test_abstains():
    assert sequence_claims(DOUBLING, "We need a_n = 100.") == []  # asks for n
    assert sequence_claims(DOUBLING, "Suppose a_5 = 30.") == []  # a supposition
    assert sequence_claims(DOUBLING, "b_5 = 30") == []  # not the problem's sequence
    piecewise = "Let a_n = n/2 if n is even and a_n = 3n + 1 if n is odd. Find a_7."
    assert sequences_of(piecewise) == {}
    assert sequences_of("Let a_1 = 1 and a_{2n} = a_n + 1. Find a_8.") == {}  # index 2n: not read
    assert sequences_of("Prove that a_n = 2^n - 1 for the numbers a_1, a_2, ....") == {}  # a claim, not a rule
    assert sequences_of("Let a_{n+1} = 2a_n + 1 for n >= 1. Find a_5.") == {}  # no first term
    assert sequences_of("Let a_{n+1} = c a_n for n >= 1 with a_1 = 2.") == {}  # another unknown
    assert verdicts(EXPLICIT, "x_{n} = n^2 + 1, so x_m = 5 means m = 2") == [True]


def test_the_step_judge_flags_a_wrong_term_with_the_definition_as_evidence():
    score, reason = solution_check(DOUBLING, ["We compute the terms one by one."], "Then a_5 = 2 \\cdot 15 + 2 = 32.")
    assert score == 0.0
    assert "problem's definition" in reason or "is false" in reason
    score, _ = solution_check(DOUBLING, ["We compute the terms one by one."], "Then a_5 = 30.")
    assert score == 0.0
    score, _ = solution_check(DOUBLING, ["We compute the terms one by one."], "Then a_5 = 31.")
    assert score != 0.0


def test_function_notation():
    q = "Define f(1) = 1 and f(n+1) = 2f(n) + 1 for n >= 1. Find f(10)."
    assert sequences_of(q)["f"].term(10) == 1023
    wrong = sequence_claims(q, "So f(10) = 2f(9) + 1 = 1025.")
    assert [c.holds for c in wrong] == [True, False] and "f(9) = 511" in wrong[1].reason
    assert "(f(1) = 1, f(n+1) = 2f(n) + 1)" in wrong[1].reason
    assert verdicts(q, "By induction f(n) = 2^n - 1.") == [True]
    assert verdicts(q, "By induction f(n) = 2^n.") == [False]


def test_an_equation_being_solved_is_not_a_claim_for_every_index():
    q = "Let f(x) = x^2 - 2 for every integer x. Find f(4)."
    assert verdicts(q, "f(4) = 14") == [True]
    assert verdicts(q, "Setting f(x) = x gives x^2 - x - 2 = 0.") == []
    assert verdicts(q, "The fixed points satisfy f(x) = x.") == []
    assert verdicts(q, "f(x) = 2x - 3 so x = 1") == []
    assert verdicts(q, "Since f(x) = x^2 - 2 we have f(x) = (x - 1)(x + 1) - 1.") == [True, True]
