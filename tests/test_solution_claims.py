"""Reading real-style solutions: formulas in prose and LaTeX, and checking them in context.

Every false verdict must come with a shown evaluation or counterexample; a step that states
something, or that accord cannot read, is not checked (None), never false.
"""

from __future__ import annotations

import pytest

from accord.mathcheck.checks._claims import check_step, solution_check, step_verdict
from accord.mathcheck.reading._parser import MathParseError, parse, to_text
from accord.mathcheck.reading._reader import applied_names, read_chains


def verdict(step, before=(), question="", following=""):
    return solution_check(question, list(before), step, False, following)


# ----------------------------------------------------------------------------------- reading


def test_formulas_are_found_in_prose_and_latex():
    chains = read_chains(r"Since $a = 3$ and \(b = 4\), we get $a^2 + b^2 = 25$, so there are 4 · 7 = 28 ways.")
    assert [(c.sides, c.relations) for c in chains] == [
        (("a", "3"), ("=",)),
        (("b", "4"), ("=",)),
        (("a^2 + b^2", "25"), ("=",)),
        (("4 · 7", "28"), ("=",)),
    ]
    (chain,) = read_chains(r"\[ x_2 = x_1 + y_1 = 1 + 1 = 2 \]")
    assert chain.relations == ("=", "=", "=") and chain.sides[0] == "x_2"
    (mod,) = read_chains(r"Hence $2^{10} \equiv 1 \pmod{11}$.")
    assert mod.relations == ("≡",) and mod.modulus == "11"
    (cont,) = read_chains("= 3 + 4")
    assert cont.continues
    (after_prose,) = read_chains("Total number of ways = 3 + 4 = 7")
    assert not after_prose.continues and after_prose.sides == ("3 + 4", "7")


@pytest.mark.parametrize(
    "text, expected",
    [
        ("x_1x_2", "x_1·x_2"),
        ("a_2(3) + f(n-1)", "a_2(3) + f(n - 1)"),
        (r"\frac{(2n)!}{2^n n!}", "(2·n)!/(2^n·n!)"),
        (r"\binom{10}{3} - C(5, 2) + 6 choose 2", "binom(10, 3) - binom(5, 2) + binom(6, 2)"),
        ("|12^3 - 5^5|", "|12^3 - 5^5|"),
        ("x_{n+1} - x_(n+1)", "x_{n+1} - x_{n+1}"),
        (r"2^{2^{2}} \cdot 3 \times 4", "2^(2^2)·3·4"),
        ("n(n-1)/2", "n·(n - 1)/2"),
    ],
)
def test_notation_of_real_solutions(text, expected):
    tree, _ = parse(text, applied_names("a_2(3) = 5, f(n) = f(n-1) + 1"))
    assert to_text(tree) == expected


@pytest.mark.parametrize(
    "text, why",
    [
        ("1 + 2 + ... + n", "ellipsis"),
        (r"\sum_{i=1}^n d_i", "sum over indexed terms"),
        (r"\sum_{n=0}^{\infty} x^n", "infty"),
        (r"\lim_{x \to 0^+} 1/x", "limit"),
        ("the number of ways", "prose"),
        (r"a \pm b", "±"),
    ],
)
def test_what_is_not_read_says_why(text, why):
    with pytest.raises(MathParseError, match=why):
        parse(text)


# ---------------------------------------------------------------------------- closed claims


@pytest.mark.parametrize(
    "step, holds",
    [
        (r"So the total is $4 \cdot 7 = 28$ ways.", 1.0),
        (r"So the total is $4 \cdot 7 = 26$ ways.", 0.0),
        (r"There are $\binom{6}{2} = 15$ pairs and $\frac{10!}{5!\,5!} = 252$ paths.", 1.0),
        ("|12^3 - 5^5| = |1728 - 3125| = 1397", 1.0),
        (r"$\sqrt{2} \approx 1.41$", 1.0),
        (r"$\sqrt{2} \approx 1.44$", 0.0),
        ("10 / 3 = 3.33, to two decimals", 1.0),
        ("10 / 3 = 3.4", 0.0),
        (r"$2^{10} > 1000$ and $3^5 < 250$", 1.0),
        (r"Clearly $3^5 < 200$.", 0.0),
        (r"$2^{10} \equiv 1 \pmod{11}$ and $17 \bmod 5 = 2$", 1.0),
        (r"$3^4 \equiv 2 \pmod{5}$", 0.0),
        ("So 5 + 5 = 10 = 2 modulo 8.", 1.0),
    ],
)
def test_closed_claims_are_evaluated(step, holds):
    value, why = verdict(step)
    assert value == holds, why


@pytest.mark.parametrize("word", ["But", "Yet", "Nor", "Back", "Real", "None", "Each"])
@pytest.mark.parametrize("claim, holds", [("4·7 + 1 mod 3 = 2", 1.0), ("4·7 + 1 mod 3 = 1", 0.0)])
def test_a_short_word_after_a_formula_ends_it(word, claim, holds):
    value, why = verdict(f"Then {claim}. {word} this is not the end of it.")
    assert value == holds and ". " + word not in why, why


def test_a_false_claim_shows_its_evaluation():
    value, why = verdict(r"So the total is $4 \cdot 7 = 26$ ways.")
    assert value == 0.0 and why == "4·7 = 26 is false: the left side is 28"
    value, why = verdict(r"$3^4 \equiv 2 \pmod{5}$")
    assert "the left side is 1, the right side 2 (mod 5)" in why


def test_huge_values_are_refused_before_evaluation():
    value, why = verdict(r"$2^{2^{2^{2^{2^{2^2}}}}} = 1$")
    assert value is None and "refused to evaluate" in why
    value, why = verdict("We know 1000000! > 1.")
    assert value is None and "refused to evaluate 1000000!" in why


def test_a_derived_contradiction_is_not_an_error():
    assert verdict(r"This gives $1 \equiv 0 \pmod 2$, a contradiction.")[0] is None
    assert verdict(r"Simplifying, $-1 \equiv 0 \pmod 6$.", following="This is impossible.")[0] is None
    assert verdict(r"Simplifying, $-1 \equiv 0 \pmod 6$.")[0] == 0.0


# ------------------------------------------------------------------------ context and identities


def test_values_from_earlier_steps_are_substituted():
    before = ("Let $f(n)$ be the number of valid strings of length $n$.", "Clearly $f(1) = 3$ and $f(2) = 5$.")
    assert verdict("Then f(3) = f(1) + f(2) = 3 + 5 = 8.", before)[0] == 1.0
    value, why = verdict("Then f(3) = f(1) + f(2) = 3 + 6 = 9.", before)
    assert value == 0.0 and "the left side is 8, the right side 9" in why and "f(1) = 3 from step 2" in why
    seq = ("We have x_1 = 1 and y_1 = 1 (one string each).",)
    assert verdict("So x_2 = x_1 + y_1 = 1 + 1 = 2.", seq)[0] == 1.0
    assert verdict("So x_2 = x_1 + y_1 = 3.", seq)[0] == 0.0


def test_a_case_value_stays_in_its_step():
    assert verdict("If $a = 70$, then $a^2 = 4900$, which has four digits.")[0] == 1.0
    before = ("Case 1: $p = 3$. Then $p^2 - 1 = 8$.",)
    value, why = verdict("Case 2: $p > 3$, so $p^2 - 1 = 24k$ for some k.", before)
    assert value is None, why


def test_statements_are_not_errors_but_rewritings_are_checked():
    value, why = verdict(r"We need integers with $x^2 + y^2 = z^2$.")
    assert value is None and "stating something" in why
    assert verdict("$(a+b)^2 = a^2 + 2ab + b^2$")[0] == 1.0
    value, why = verdict("$(a + b)^2 = (a + b)(a + b) = a^2 + b^2$")
    assert value == 0.0 and "at a = 2, b = 3 the left side is 25, the right side 13" in why


def test_definitions_and_equations_before_explain_a_step():
    before = (r"Write $a = dm$ and $b = dn$ with $m, n$ coprime.",)
    assert verdict("Then $a + b = dm + dn = d(m + n)$.", before)[0] == 1.0
    assert verdict("Then $a + b = dm + dn = d(m + 2n)$.", before)[0] == 0.0
    solved = ("From $3x - 2 = 2x + 5$ we get:",)
    assert verdict("$x = 7$", solved)[0] == 1.0
    assert verdict("$x = 3$", solved)[0] == 0.0  # derived from the one equation that fixes x: it says x = 7


def test_a_formula_continued_in_the_next_step():
    assert verdict("= x^2 + 2x + 1", ("(x + 1)^2",))[0] == 1.0
    value, why = verdict("= x^2 + 1", ("(x + 1)^2",))
    assert value == 0.0 and "at x = 2 the left side is 9, the right side 5" in why
    assert verdict("= x^2 + 1", ("Now we expand the square:",))[0] is None  # nothing to continue


def test_functions_and_indexed_names_in_context():
    before = ("Let a_2(n) be the count for two colours; a_2(1) = 2 and a_2(2) = 4.",)
    assert verdict("So a_2(3) = a_2(1) + a_2(2) = 6.", before)[0] == 1.0
    assert verdict("So a_2(3) = a_2(1) a_2(2) = 6.", before)[0] == 0.0


def test_step_verdict_and_links():
    links = check_step("", (), "Then $2 + 2 = 4$, $x = y + 1$ and $7 \\cdot 8 = 54$.")
    assert [ln.holds for ln in links] == [True, None, False]
    assert step_verdict(links)[0] == 0.0
    assert step_verdict(check_step("", (), "We now count the cases."))[1] == "no checkable claim (no relation found)"


def test_float_mode_repeats_the_reading_in_floating_point():
    assert solution_check("", [], "$(a+b)^2 = a^2 + 2ab + b^2$", True)[0] == 1.0
    value, why = solution_check("", [], "$(a + b)^2 = (a + b)(a + b) = a^2 + b^2$", True)
    assert value < 1.0 and "at a = 2, b = 3" in why  # the share of random points where it holds
    value, why = solution_check("", [], "$\\sqrt{x^2} = x$ for our positive x, and $(x^2)^{1/2} = \\sqrt{x^2}$", True)
    assert value == 1.0
