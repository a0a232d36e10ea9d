"""The four math judges: true and false steps, unparseable input, and steps that would hang sympy."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from accord.adapters.math import (
    ArithmeticJudge,
    FinalAnswerJudge,
    NumericSamplingJudge,
    SymbolicEquivalenceJudge,
)
from accord.mathcheck.checks import _checks as checks
from accord.protocols import Judge, StepContext
from accord.timelimit import CheckError, CheckTimeout, call_with_limit

CTX = StepContext("q")
# true, but proving it expands two degree-40000 polynomials: sympy would run for minutes
HANG_IDENTITY = "(x+1)^20000 (x-1)^20000 = (x^2-1)^20000"
HANG_PREMISE = "given: (x+1)^20000 (x-1)^20000 = (x^2-1)^20000 + y"


def one(judge, text, ctx=CTX):
    return judge.score(ctx, [text])[0]


def test_judges_implement_the_protocol():
    for j in (ArithmeticJudge(), SymbolicEquivalenceJudge(), NumericSamplingJudge(), FinalAnswerJudge("1")):
        assert isinstance(j, Judge)
        assert isinstance(j.name, str) and j.name


# ------------------------------------------------------------------------------------ arithmetic


@pytest.mark.parametrize(
    "text",
    [
        "She has 12 x 2 = 24 apples.",
        "The total is $1,250 + $750 = $2,000.",
        "3 kg + 2 kg + 4 kg = 9 kg",
        "10 ÷ 4 = 2.5",
        "8 − 3 = 5",
        "12 × 3 = 36, then 36 / 4 = 9",
        "(3 + 4) * 2 = 14",
        "3 boxes x 4 pens = 12 pens",
        "He pays 3 * $4.50 = $13.50.",
        "12 times 3 equals 36",
        "1,000,000 / 1,000 = 1,000",
        "1 + 2 + 3 = 6 = 12 / 2",
        "It fell to -5 + 3 = -2 degrees",
        "Each third is 10 / 3 = 3.33 litres",
        "Natalia sold 48/2 = <<48/2=24>>24 clips in May.",
        "2. 3 + 4 = 7",
        "She has 5 apples. 5 - 2 = 3",
        "**12 × 2 = 24**",
        "\\( 12 \\times 2 = 24 \\)",
    ],
)
def test_arithmetic_true_steps(text):
    s = one(ArithmeticJudge(), text)
    assert s.value == 1.0, s.reason


@pytest.mark.parametrize(
    "text, fragment",
    [
        ("She has 12 x 2 = 25 apples.", "12 * 2 = 24"),
        ("So 7 - 2 = 4.", "7 - 2 = 5"),
        ("The total is $1,250 + $750 = $1,900.", "2000"),
        ("12 × 3 = 36, then 36 / 4 = 8", "36 / 4 = 9"),
        ("10 / 3 = 3.4", "3.33333"),
        ("5 / 0 = 1", "division by zero"),
        ("Natalia sold 48/2 = <<48/2=24>>25 clips in May.", "48/2 = 24"),
    ],
)
def test_arithmetic_false_steps_name_the_error(text, fragment):
    s = one(ArithmeticJudge(), text)
    assert s.value == 0.0
    assert fragment in s.reason


@pytest.mark.parametrize(
    "text",
    ["I think the answer is 42.", "So x = 5.", "3x - 6 + 4 = 2x + 5", "(x + 3)^2 - 4 = 0", "", "In 2024 = year"],
)
def test_arithmetic_without_arithmetic_is_none(text):
    s = one(ArithmeticJudge(), text)
    assert s.value is None and s.reason == "no arithmetic to check" and s.abstained


@settings(max_examples=60, deadline=None)
@given(
    a=st.integers(0, 10**7),
    b=st.integers(1, 10**4),
    op=st.sampled_from(["+", "-", "x", "×", "*"]),
    off=st.integers(-3, 3),
    commas=st.booleans(),
)
def test_arithmetic_matches_exact_results(a, b, op, off, commas):
    exact = {"+": a + b, "-": a - b, "x": a * b, "×": a * b, "*": a * b}[op]
    fmt = (lambda n: f"{n:,}") if commas else str
    text = f"We get {fmt(a)} {op} {fmt(b)} = {fmt(exact + off)} items."
    s = one(ArithmeticJudge(), text)
    assert s.value == (1.0 if off == 0 else 0.0), (text, s.reason)


# ------------------------------------------------------------------------------------- symbolic


def test_symbolic_true_and_false_identities():
    j = SymbolicEquivalenceJudge()
    good, bad, trig = j.score(CTX, ["(a+b)^2 = a^2 + 2ab + b^2", "(a+b)^2 = a^2 + b^2", "sin(x)^2 + cos(x)^2 = 1"])
    assert good.value == 1.0 and trig.value == 1.0
    assert bad.value == 0.0 and "e.g. at" in bad.reason


def test_symbolic_steps_follow_from_premises_and_previous_lines():
    j = SymbolicEquivalenceJudge()
    ctx = StepContext("q", steps=("given: 2x + 3 = 7",))
    assert one(j, "x = 2", ctx).value == 1.0
    assert one(j, "=> 2x = 4", ctx).value == 1.0
    assert one(j, "x = 3", ctx).value == 0.0
    assert one(j, "2x + 3 = 7 => x = 2").value == 1.0
    lost_root = one(j, "x = 2", StepContext("q", steps=("given: x^2 = 4",)))
    assert lost_root.value == 0.0 and "-2" in lost_root.reason
    # an identity implies nothing: the last non-identity equation is the one a step follows from
    after_identity = StepContext("q", steps=("given: x^2 = 4", "(x^2 - 1)/(x - 1) = x + 1"))
    assert one(j, "sqrt(x^2) = x", after_identity).value == 0.0
    assert one(j, "x^2 + 1 = 5", after_identity).value == 1.0
    assert one(j, "x = 1 => x = 1").value == 1.0
    assert one(j, "x = x => y = 2").value == 0.0
    system = StepContext("q", steps=("unknowns: x, y", "given: x + y = 3", "given: x - y = -1", "let S = x + y"))
    assert one(j, "y = 2", system).value == 1.0
    assert one(j, "S = 3", system).value == 1.0
    assert one(j, "y = 1", system).value == 0.0


def test_symbolic_and_numeric_read_latex_steps():
    steps = [r"$\frac{x^2 - 1}{x - 1} = x + 1$", r"$(a+b)^{2} = a^{2} + 2ab + b^{2}$", r"$\sqrt{x^{2}} \cdot 2 = 3x$"]
    sym_scores = [s.value for s in SymbolicEquivalenceJudge().score(CTX, steps)]
    num_scores = [s.value for s in NumericSamplingJudge().score(CTX, steps)]
    assert sym_scores == [1.0, 1.0, 0.0]
    assert num_scores[:2] == [1.0, 1.0] and num_scores[2] == 0.0


@pytest.mark.parametrize(
    "text, why",
    [
        ("hello world", "no equation"),
        (r"\frac{1}{2 = 1", "unbalanced braces"),
        ("She has twelve apples.", "no equation"),
        ("x = = 3", "no equation"),
        ('__import__("os") = 1', "not a plain mathematical expression"),
        ("x.real = 1", "not a plain mathematical expression"),
        ("(x + = 2", "cannot parse"),
        ("given: x = 1", "premise"),
    ],
)
def test_symbolic_unparseable_is_none(text, why):
    s = one(SymbolicEquivalenceJudge(), text)
    assert s.value is None and why in s.reason


def test_prose_lines_are_read_for_their_formulas():
    # a derivation line in prose is read like a solution step: its formulas are found and checked
    j = SymbolicEquivalenceJudge()
    right = one(j, "She has 12 x 2 = 24 apples.")
    wrong = one(j, r"So the total is $4 \cdot 7 = 26$ ways.")
    assert right.value == 1.0
    assert wrong.value == 0.0 and "4·7 = 26 is false: the left side is 28" in wrong.reason


def test_huge_numbers_are_refused_before_evaluation():
    # a power tower and a factorial whose values have millions of digits: refused at once, with the reason
    for judge in (SymbolicEquivalenceJudge(timeout=30), NumericSamplingJudge(timeout=30)):
        tower, fact = judge.score(CTX, ["2^2^2^2^2^2^2 = 1", "1000000! = 2"])
        assert tower.value is None and "refused to evaluate" in tower.reason and "digits" in tower.reason
        assert fact.value is None and "refused to evaluate 1000000!" in fact.reason
    big = one(SymbolicEquivalenceJudge(timeout=30), "(2^10)! = 5")  # 2,640 digits: evaluated, and false
    assert big.value == 0.0 and "the left side is 5.4185" in big.reason


def test_symbolic_time_limit_holds():
    s = one(SymbolicEquivalenceJudge(timeout=2), HANG_IDENTITY)
    assert s.value is None and "timed out after 2 s" in s.reason
    # the killed worker is replaced: the next check works
    assert one(SymbolicEquivalenceJudge(timeout=30), "x + x = 2x").value == 1.0


# -------------------------------------------------------------------------------------- numeric


def test_numeric_true_false_and_partial():
    j = NumericSamplingJudge()
    good, bad, half = j.score(CTX, ["(x^2 - 1)/(x - 1) = x + 1", "(a+b)^2 = a^2 + b^2", "sqrt(x^2) = x"])
    assert good.value == 1.0
    assert bad.value == 0.0
    assert 0.0 < half.value < 1.0  # holds for positive x only: the sampled fraction says so


def test_numeric_domain_problems_are_failures_not_wrong_steps():
    j = NumericSamplingJudge()
    undefined, never_real = j.score(CTX, ["1/(x - x) = 0", "sqrt(-x^2 - 1) = 2"])
    assert undefined.value is None and "division by zero" in undefined.reason
    assert never_real.value is None and "domain problem" in never_real.reason


def test_numeric_follows_from_previous_equation():
    j = NumericSamplingJudge()
    ctx = StepContext("q", steps=("given: 3x - 2 = 2x + 5",))
    assert one(j, "x = 7", ctx).value == 1.0
    assert one(j, "x = 3", ctx).value == 0.0
    after_identity = StepContext("q", steps=("(x^2 - 1)/(x - 1) = x + 1",))
    assert one(j, "x = 3", after_identity).value == 0.0


def test_numeric_unparseable_and_time_limit():
    j = NumericSamplingJudge(timeout=2)
    assert one(j, "the answer is seven").value is None
    hang = one(j, "=> y = 0", StepContext("q", steps=(HANG_PREMISE,)))
    assert hang.value is None and "timed out" in hang.reason


# --------------------------------------------------------------------------------- final answer


def test_final_answer_against_constructor_and_context_reference():
    j = FinalAnswerJudge("24")
    right, wrong, none, frac = j.score(
        CTX, ["So she has $24$ apples.", "The answer is \\boxed{25}", "no numbers here", "$\\frac{48}{2}$"]
    )
    assert right.value == 1.0 and wrong.value == 0.0 and frac.value == 1.0
    assert none.value is None and "no answer" in none.reason
    ctx = StepContext("q", reference="\\frac{1}{2}")
    assert one(FinalAnswerJudge(), "The probability is 0.5", ctx).value == 1.0
    missing = one(FinalAnswerJudge(), "The answer is 3")
    assert missing.value is None and "no reference" in missing.reason


@pytest.mark.parametrize(
    "reference,step,value",
    [
        ("n(n-3)/2", "So the number of diagonals of a convex n-gon is given by the expression n(n-3)/2.", 1.0),
        ("n(n-3)/2", "So the number of diagonals is n(n-1)/2.", None),
        ("Yes", "Therefore, the answer is yes, $2n$ is always a sum of two perfect squares.", 1.0),
        ("Yes", "Therefore, the answer is no.", None),
        ("Exactly one", "We conclude that none of the three numbers can be greater than 1.", None),
        ("n", "In conclusion, the sum is $n!$.", None),
    ],
)
def test_a_reference_math_verify_cannot_read_is_compared_by_answer_forms(reference, step, value):
    """ "n(n-3)/2", "Yes": a match is valid; no match leaves the step unjudged (a sentence that
    matches no form is not a wrong answer), and a bare number in prose is not the answer."""
    got = one(FinalAnswerJudge(), step, StepContext("q", reference=reference, metadata={"final": True}))
    assert got.value == value, got.reason
    if value is None:
        assert "cannot parse the reference answer" in got.reason


def test_final_answer_time_limit_holds():
    s = one(FinalAnswerJudge("2", timeout=2), "The answer is $9^{9^{9^{9}}}$")
    assert s.value is None and "timed out" in s.reason


# ------------------------------------------------------------------------------ threads, errors


def test_judges_work_from_threads_with_a_hang_among_them():
    sym = SymbolicEquivalenceJudge(timeout=2)
    steps = ["x + x = 2x", HANG_IDENTITY, "(a+b)^2 = a^2 + b^2"]
    with ThreadPoolExecutor(max_workers=3) as pool:
        got = list(pool.map(lambda t: one(sym, t), steps))
    assert [g.value for g in got] == [1.0, None, 0.0]
    assert "timed out" in got[1].reason


def test_time_limit_reports_errors_and_rejects_bad_limits():
    with pytest.raises(CheckError, match="TypeError|AttributeError"):
        call_with_limit(checks.symbolic_check, 123, [], timeout=30)
    with pytest.raises(ValueError):
        call_with_limit(checks.symbolic_check, "x = x", [], timeout=0)
    with pytest.raises(ValueError):
        SymbolicEquivalenceJudge(timeout=-1)
    assert issubclass(CheckTimeout, Exception)


def test_arithmetic_never_hands_work_to_sympy():
    # powers are not evaluated (a tower would take forever); huge products are exact and immediate
    tower = one(ArithmeticJudge(), "so 9^9^9^9 = 1")
    assert tower.value is None and tower.reason == "no arithmetic to check"
    big = "7" * 400
    assert one(ArithmeticJudge(), f"{big} * {big} - {big} * {big} = 0").value == 1.0
    assert one(ArithmeticJudge(), f"{big} * {big} = 1").value == 0.0
