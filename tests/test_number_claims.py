"""Number-theory claims ``accord verify`` checks exactly: facts about written-out whole numbers in
prose ("1977 is not divisible by 3", "p = 1991 is a prime") and relations a step claims "for all n"
(checked on the smallest cases of the domain the quantifier names).

End to end through the command users run, then each rule: a false claim is refuted with its
evidence, a true one holds, and hypotheses, expressions and restricted quantifiers are left alone.
"""

from __future__ import annotations

import json
import math

import pytest
import sympy
from hypothesis import given, settings
from hypothesis import strategies as st

from accord.cli.main import main
from accord.mathcheck.checks._arithmetic import check_arithmetic
from accord.mathcheck.checks._claims import solution_check
from accord.mathcheck.checks._numberfacts import number_facts
from accord.mathcheck.checks._quantifiers import quantified

SOLUTIONS = [
    {
        "id": "divisible",
        "problem": "Is 1977 a sum of two squares?",
        "steps": [
            "We look at remainders.",
            "The number 1977 is not divisible by 3, so its digit sum is not either.",
            "So the answer is no.",
        ],
        "label": 1,
    },
    {
        "id": "prime",
        "problem": "Find the primes p with p + 2 prime.",
        "steps": ["Try large values.", "In this case, $p = 1991$ is a prime number.", "So p = 1991 works."],
        "label": 1,
    },
    {
        "id": "for-all",
        "problem": "Show that 8 divides $n^5 - 5n^3 + 4n$ for every integer $n$.",
        "steps": [
            "We work modulo 8.",
            "Since $n^5 \\equiv n$ (mod 8) for any integer $n$, the expression is $n - 5n^3 + 4n$.",
            "Hence the claim.",
        ],
        "label": 1,
    },
    {
        "id": "odd",
        "problem": "Show that $50^n + 23^n a$ is divisible by 1971 for some a.",
        "steps": ["Note that $50^n \\equiv 1 \\pmod{27}$ for all odd $n$.", "So a works."],
        "label": 0,
    },
    {
        "id": "correct",
        "problem": "Show that $p^2 - 1$ is divisible by 24 for every prime $p > 3$.",
        "steps": [
            "Since 323 is not a prime number, we factor it as $323 = 17 \\cdot 19$.",
            "Since 17 and 19 are coprime, we may work modulo each.",
            "We have $n^2 \\equiv 1 \\pmod{8}$ for all odd $n$.",
            "Also $12^m \\equiv 0 \\pmod{3}$ for any $m$.",
            "If 12 were divisible by 5 we would be done, but it is not.",
        ],
        "label": -1,
    },
]


def test_number_claims_find_the_first_errors_through_the_command(tmp_path, capsys):
    data, out = tmp_path / "sols.jsonl", tmp_path / "pred.jsonl"
    data.write_text("".join(json.dumps(s) + "\n" for s in SOLUTIONS))
    rc = main(["verify", str(data), "--out", str(out), "--json", "--bootstrap", "0"])
    doc = json.loads(capsys.readouterr().out)
    assert rc == 1
    assert doc["predictions"] == {s["id"]: s["label"] for s in SOLUTIONS}
    recs = {r["id"]: r for r in map(json.loads, out.read_text().splitlines())}
    assert "1977 is not divisible by 3 is false: 1977 = 659·3" in recs["divisible"]["steps"][1]["reason"]
    assert "1991 is a prime is false: 1991 = 11·181" in recs["prime"]["steps"][1]["reason"]
    assert "claimed for all n, it fails at n = 2: 32 ≢ 2 (mod 8)" in recs["for-all"]["steps"][1]["reason"]
    assert "claimed for all odd n, it fails at n = 1: 50 ≢ 1 (mod 27)" in recs["odd"]["steps"][0]["reason"]
    assert "invalid" not in recs["correct"]["step_labels"]
    assert recs["correct"]["step_labels"][:4] == ["valid", "valid", "valid", "valid"]


@settings(max_examples=60, deadline=None)
@given(n=st.integers(1, 10**6), d=st.integers(2, 999), negated=st.booleans())
def test_divisibility_in_prose_is_judged_exactly(n, d, negated):
    facts = number_facts(f"Since {n} is {'not ' if negated else ''}divisible by {d}, we go on.")
    assert len(facts) == 1
    assert facts[0].holds == ((n % d == 0) != negated)
    assert f"{n} = {n // d}·{d}" in facts[0].reason


@settings(max_examples=60, deadline=None)
@given(n=st.integers(2, 10**7))
def test_primality_parity_and_coprimality_in_prose(n):
    (prime,) = number_facts(f"We know that {n} is a prime number.")
    assert prime.holds == sympy.isprime(n)
    (odd,) = number_facts(f"Clearly {n} is odd.")
    assert odd.holds == (n % 2 == 1)
    (co,) = number_facts(f"Since {n} and 12 are relatively prime, we divide.")
    assert co.holds == (math.gcd(n, 12) == 1)


def test_numbers_in_expressions_and_hypotheses_are_left_alone():
    for text in [
        "Since 10^1962 - 1 is divisible by 10^981 + 1, it follows that 10^1962 + 1 is not prime.",
        "Since 984 is divisible by 2^3 * 3 * 41, we stop.",
        "If 12 is divisible by 5, then we are done.",
        "We check whether 91 is prime.",
        "The values 2, 4, 7 are even.",
        "Is 15 divisible by 4?",
    ]:
        assert number_facts(text) == [], text
    (fact,) = number_facts("7 divides 63, so we are done.")
    assert fact.holds


def test_quantifiers_name_their_domain_and_restrictions_are_left_alone():
    assert quantified("for any positive integer a and prime number p") == {"a": "positive", "p": "prime"}
    assert quantified("$x^2 \\equiv 1$ for all odd $n$") == {"n": "odd"}
    assert quantified("for all even k") == {"k": "even"}
    # a lower bound alone: the integers from it on
    assert quantified("for all n \\ge 2") == {"n": "≥2"}
    assert quantified("for every integer n≥0.") == {"n": "≥0"}
    assert quantified("for all n > 2, so") == {"n": "≥3"}
    for restricted in [
        "for any n not divisible by 3",
        "for all n ≥ 2k+1",
        "for all odd n ≥ 3",
        "for all n ≥ 2 and m",
        "for all n ≥ 2.5",
        "for all i in 1 to n",
        "for all sufficiently large n",
        "for each of the values",
    ]:
        assert quantified(restricted) == {}, restricted


def test_a_relation_claimed_for_all_n_from_a_bound_is_checked_from_that_bound():
    assert solution_check("", [], "So $4^n+15n-1 \\bmod 9 = 0$ for all integer $n \\ge 0$.")[0] == 1.0
    score, reason = solution_check("", [], "So $4^n+15n-1 \\bmod 9 = 3$ for all integer $n \\ge 0$.")
    assert score == 0.0 and "claimed for all n ≥ 0, it fails at n = 0" in reason
    assert solution_check("", [], "Hence $n^2 \\equiv 1 \\pmod 3$ for all $n \\geq 3$.")[0] == 0.0
    # inequalities too: true from 5 on, false from 1 on (2^2 = 2^2)
    assert solution_check("", [], "Thus $2^n > n^2$ for all $n \\ge 5$.")[0] == 1.0
    score, reason = solution_check("", [], "Thus $2^n > n^2$ for all $n \\ge 1$.")
    assert score == 0.0 and "fails at n = 2" in reason and "4 > 4 is false" in reason
    assert solution_check("", [], "So $(n+1)^n \\ge 2^n n!$ holds for all $n \\ge 1$.")[0] == 1.0
    # a case named beside the quantifier ("n = 1") is not claimed for all n
    step = "For every $n > 2$, $2^n > n + 2$ holds, while for $n = 1$ it does not."
    score, reason = solution_check("", [], step)
    assert score is None and "only side relations hold: 2^n > n + 2" in reason, reason
    # an inequality with a name the quantifier does not name is a statement about that name
    assert solution_check("", [], "Then $c^n > 2^n$ for all $n \\ge 3$.")[0] is None


def test_a_universal_claim_needs_every_name_quantified():
    # m is not named by the quantifier: a statement about m, not checked
    assert solution_check("", [], "So $m \\equiv n^2 \\pmod{7}$ for all $n$.")[0] is None
    # restricted: left alone even though it fails at n = 3
    assert solution_check("", [], "We have $n^2 \\equiv 1 \\pmod{3}$ for any $n$ not divisible by 3.")[0] is None
    score, reason = solution_check("", [], "Fermat gives $a^5 \\equiv a \\pmod{25}$ for all integers $a$.")
    assert score == 0.0 and "fails at a = 2: 32 ≢ 2 (mod 25)" in reason
    assert solution_check("", [], "So $a^p \\equiv a \\pmod{p}$ for any integer a and prime p.")[0] == 1.0


@settings(max_examples=30, deadline=None)
@given(k=st.integers(1, 6), m=st.integers(2, 30))
def test_a_power_congruence_for_all_n_is_refuted_exactly_when_it_fails(k, m):
    score, reason = solution_check("", [], f"Then $n^{k} \\equiv n \\pmod{{{m}}}$ for all $n$.")
    fails = [n for n in range(1, 13) if (n**k - n) % m]
    if fails:
        assert score == 0.0 and f"fails at n = {fails[0]}:" in reason
    else:
        assert score == 1.0


def test_parity_and_divisibility_claimed_for_every_value_are_checked_on_small_cases():
    score, reason = solution_check("", [], "Since $n^2$ is always even, $(n^2+2)^2$ is always even.")
    assert score == 0.0 and "n^2 is always even: claimed for all n, it fails at n = 1: 1 ≢ 0 (mod 2)" in reason
    score, reason = solution_check("", [], "x is odd (since 3y^2 is always even, adding 17 makes it odd).")
    assert score == 0.0 and "fails at y = 1" in reason
    for true in [
        "Notice that $32k^2 + 32k + 9$ is always odd.",
        "However, $c^2 + c$ is always even for any integer $c$.",
        "So the expression $n^5 - 5n^3 + 4n$ is always 0 modulo 8 for any integer $n$.",
        "Since $(n - 1)n(n + 1)$ is always a multiple of 3, we are done.",
    ]:
        assert solution_check("", [], true)[0] == 1.0, true
    # hedged, restricted, or about a bare name: a statement in context, not checked
    for left in [
        "Since n is odd, $n^2$ is always odd.",
        "If $n^2 + 1$ is always even then we win.",
        "So $n^2 + 1$ is even.",
        "So n is always even.",
        "$n^2 + 1$ is even for all n not divisible by 2.",
    ]:
        assert solution_check("", [], left)[0] is None, left
    # a restricted claim that every integer satisfies holds for the restricted ones too
    assert solution_check("", [], "$n^2 + n$ is even for all n not divisible by 3.")[0] == 1.0


def test_a_claim_about_particular_values_is_decided_only_when_every_integer_agrees():
    """ "2^x must be a multiple of 3" says nothing about which x, so it is false only because no
    integer x makes it true; one that some values satisfy depends on what the solution knows."""
    q = "Find all positive integers x, y with 2^x + 1 = 3^y."
    score, reason = solution_check(q, [], "Then, $2^x$ must be a multiple of 3.")
    assert score == 0.0 and "false whatever the integer value of x" in reason and "1 mod 3" in reason
    score, reason = solution_check(q, [], "This implies that z = 2c + 1 is divisible by 4.")
    assert score == 0.0 and "whatever the integer value of c" in reason
    assert solution_check(q, [], "Since 3^k + 1 is odd, a must be a power of 2.")[0] == 0.0
    for true in ["Then $4^x - 1$ is divisible by 3.", "So $x^2 + x$ is even.", "Therefore, (n-2)(n-1) is even."]:
        score, reason = solution_check(q, [], true)
        assert score == 1.0 and "holds whatever the integer value" in reason, (true, reason)
    for left in [
        "So $x^2 + 1$ is odd.",  # true for even x only: what x is decides
        "Since 36n^2 is a multiple of 24, we are done.",
        "If $2^x$ is a multiple of 3, then we are done.",
        "Then $2^x$ must be a multiple of 3, which is impossible.",  # refuted on purpose
    ]:
        assert solution_check(q, [], left)[0] is None, left


@settings(max_examples=30, deadline=None)
@given(a=st.integers(1, 9), b=st.integers(0, 9), m=st.integers(2, 12), r=st.integers(0, 11))
def test_a_residue_said_of_particular_values_is_false_exactly_when_no_integer_has_it(a, b, m, r):
    r %= m
    claim = f"Then ${a}x^2 + {b}x + {r}$ is divisible by {m}." if r else f"Then ${a}x^2 + {b}x$ is divisible by {m}."
    score, _ = solution_check("Let x be an integer.", [], claim)
    residues = {(a * x * x + b * x + r) % m for x in range(m)}
    assert score == (1.0 if residues == {0} else 0.0 if 0 not in residues else None)


@settings(max_examples=40, deadline=None)
@given(a=st.integers(1, 9), b=st.integers(0, 9), m=st.integers(2, 12))
def test_a_formula_always_divisible_is_refuted_exactly_when_a_small_case_fails(a, b, m):
    score, reason = solution_check("", [], f"Clearly ${a}n^2 + {b}n$ is always divisible by {m}.")
    fails = [n for n in range(1, 13) if (a * n * n + b * n) % m]
    assert score == (0.0 if fails else 1.0)
    if fails:
        assert f"fails at n = {fails[0]}:" in reason


def test_a_formula_claimed_prime_for_every_value_is_checked_on_small_cases():
    score, reason = solution_check("", [], "So $2^n+3^n+5^n+7^n$ is a prime number for any positive integer $n$.")
    assert score == 0.0 and "fails at n = 2: the value is 87" in reason
    score, reason = solution_check("", [], "Then $6n+5$ is prime for all odd n.")
    assert score == 0.0 and "fails at n = 5: the value is 35" in reason
    score, reason = solution_check("", [], "$2^{2^n}+1$ is always prime.")
    assert score == 0.0 and "4294967297" in reason
    assert solution_check("", [], "Then $n^2 - n + 41$ is prime for every positive integer $n$.")[0] == 1.0
    for left in [
        "$x^2 + 2y^2$ is a prime number.",  # no quantifier: a statement about the names
        "If $p$ is prime, then $p^2 + 2$ is prime for every odd p.",
        "$n^2 + 1$ is prime for all n not divisible by 3.",
    ]:
        assert solution_check("", [], left)[0] is None, left


@settings(max_examples=30, deadline=None)
@given(a=st.integers(1, 12), b=st.integers(-5, 30))
def test_a_linear_formula_claimed_prime_is_refuted_exactly_when_a_small_case_is_not(a, b):
    from sympy import isprime

    score, reason = solution_check("", [], f"Clearly ${a}n + {b}$ is a prime number for all n.")
    values = [a * n + b for n in range(1, 13)]
    fails = [n for n, v in zip(range(1, 13), values) if not isprime(v)]
    assert score == (0.0 if fails else 1.0), reason
    if fails:
        assert f"fails at n = {fails[0]}:" in reason


def test_residues_claimed_modulo_n_are_computed_over_every_residue_class():
    score, reason = solution_check(
        "",
        [],
        "For integer x, x^2 modulo 9 can take values of 0, 1, 4, and 7. "
        "Therefore, (x^2-1) modulo 9 can take values of 8, 2, 3, and 6.",
    )
    assert score == 0.0 and "at x = 1 it is 0 (mod 9), not among [2, 3, 6, 8]" in reason
    score, reason = solution_check("", [], "So the possible values of $x^2 + 1 \\mod 4$ are 1, 2, or 3.")
    assert score == 0.0 and "it takes only [1, 2] (mod 4) over all residues, never 3" in reason
    for true in [
        "We know that $x^2 \\mod 8$ can be 0, 1, or 4. Therefore, $x^2 - 1 \\mod 8$ can be -1, 0, or 3.",
        "So, the possible values of $(x^2 - 1)(y^2 - 1) \\mod 8$ are 0, 1, or 5.",
        "However, $5^n$ mod 6 can be either 1 or 5.",
    ]:
        assert solution_check("", [], true)[0] == 1.0, true
    for left in [
        "Since x is odd, $x^2$ mod 8 is 1.",
        "So, n mod 5 can be 0, 2, or 4.",
        "The possible values of $20^n - 1 \\mod 323$ for even n are 0.",
    ]:
        assert solution_check("", [], left)[0] is None, left


@settings(max_examples=40, deadline=None)
@given(
    k=st.integers(1, 4),
    c=st.integers(0, 9),
    m=st.integers(2, 13),
    claimed=st.sets(st.integers(0, 12), min_size=1, max_size=6),
)
def test_a_residue_set_claim_holds_exactly_when_it_is_the_set_taken(k, c, m, claimed):
    listed = ", ".join(map(str, sorted(claimed)))
    score, _ = solution_check("", [], f"Hence $x^{k} + {c}$ modulo {m} can take values of {listed}.")
    taken = {(x**k + c) % m for x in range(m)}
    assert score == (1.0 if taken == {v % m for v in claimed} else 0.0)


def test_comparisons_of_numbers_in_prose():
    (fact,) = number_facts("a(1-b) = 1(1-1) = 1(0) = 0, which is greater than 1/4.")
    assert not fact.holds and fact.reason == "0, which is greater than 1/4 is false: 0 < 1/4"
    assert [f.holds for f in number_facts("Since 1318 is less than 1979, and 7 is greater than or equal to 7.")] == [
        True,
        True,
    ]
    assert number_facts("because 3^3 is greater than 2^2, and") == []


def test_a_prose_rewrite_is_checked_as_an_identity():
    score, reason = solution_check("", [], "We can rewrite 1978^m - 1000^m as (2^m * 989^m) - (2^m * 5^m).")
    assert score == 0.0 and reason.startswith("read as a rewrite: ") and "at m = 2 the left side is 2912484" in reason
    score, reason = solution_check("", [], "We can write 50 as $2^2\\cdot5^2$ and 23 as $23^1$.")
    assert score == 0.0 and "50 = 2^2·5^2 is false: the right side is 100" in reason
    assert solution_check("", [], "Write $\\sin(x)^3/\\cos(x)$ as $\\sin(x)^3 \\cdot (1/\\cos(x))$.")[0] == 1.0
    # different names (a substitution from context), words, or a bare name introducing a form: left alone
    for left in [
        "Using the information given, we can rewrite x^3 as (2y + 1)(2y^2 + 2y + 1).",
        "We can rewrite it as a single fraction by finding a common denominator.",
        "We can write x as x = 3v + b, where b is the remainder.",
    ]:
        assert solution_check("", [], left)[0] is None, left


def test_an_equation_derived_by_operating_on_both_sides_must_follow_from_the_one_before():
    before = [
        "$4000a + 400b + 40c + 4d = 1000d + 100c + 10b + a$",
        "Subtracting a, 10b, 100c, and 1000d from both sides gives:",
    ]
    score, reason = solution_check("", before, "$3999a + 390b + 30c - 996d = 0$")
    assert (
        score == 0.0
        and "does not follow from 4000·a + 400·b + 40·c + 4·d = 1000·d + 100·c + 10·b + a (step 1)" in reason
        and "which satisfies step 1" in reason
    )
    score, reason = solution_check("", before, "$3999a + 390b - 60c - 996d = 0$")
    assert score == 1.0 and "follows from step 1" in reason  # checked as a consequence
    score, reason = solution_check("", ["We have $3x + 6 = 2y$.", "Squaring both sides:"], "$9x^2 + 36x + 36 = 4y^2$")
    assert score == 1.0 and "follows from step 1" in reason
    # a substitution or another equation: not a transformation of the one before
    assert solution_check("", ["We have $3x + 6 = 2y$.", "Substituting y = 3 and subtracting:"], "$x = 0$")[0] == 1.0


@settings(max_examples=30, deadline=None)
@given(a=st.integers(1, 9), b=st.integers(1, 9), c=st.integers(1, 30), k=st.integers(2, 5), slip=st.integers(-3, 3))
def test_dividing_both_sides_is_refuted_exactly_when_the_result_differs(a, b, c, k, slip):
    before = [f"We get ${k * a}x + {k * b}y = {k * c}$.", f"Dividing both sides by {k}, we get:"]
    score, _ = solution_check("", before, f"${a}x + {b}y = {c + slip}$")
    if slip:
        assert score == 0.0
    else:
        assert score in (None, 1.0)


def test_a_number_spelt_by_its_digits_is_not_read_as_a_product():
    problem = "Find the four-digit number abcd with 4 abcd = dcba."
    assert solution_check(problem, [], "$abcd = 1000a + 100b + 10c + d$")[0] is None
    assert solution_check(problem, [], "$1100a + 11b = aabb$")[0] is None
    # without digits in sight, juxtaposed names are a product as usual
    score, reason = solution_check("Let a, b, c, d be reals.", [], "We simplify: $abcd = 1000a + 100b + 10c + d$")
    assert score == 0.0 and "a·b·c·d" in reason


def test_the_arithmetic_judge_is_valid_only_when_it_read_every_formula():
    assert check_arithmetic("She has 12 x 2 = 24 apples and 3 + 4 = 7 pears.")[0] == 1.0
    score, reason = check_arithmetic("Then $(1^3\\cdot2+2^3\\cdot3)/(1+2) = \\frac{12}{6} = 2$, and 1*2*3 = 6.")
    assert score is None and "not plain arithmetic" in reason
    assert check_arithmetic("So 7 * 8 = 54, and $x^2 = 4$.")[0] == 0.0  # a wrong one is wrong whatever else is there


def test_thousands_separators_and_bracketed_remarks_are_read_whole():
    assert solution_check("", [], "So there are 10 * 9 * 8 * 7 * 6 = 30,240 strings.")[0] == 1.0
    score, reason = solution_check("", [], "$3^{105} \\bmod 13 = 1$ (since 3^4 mod 13 = 1)")
    assert score == 0.0 and "3^4 mod 13 = 1 is false: the left side is 3" in reason


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 10**6), st.booleans(), st.sampled_from(["perfect square", "perfect cube"]))
def test_perfect_powers_in_prose_are_judged_exactly(n, negated, word):
    power = 3 if "cube" in word else 2
    facts = number_facts(f"We get {n}, which is {'not ' if negated else ''}a {word}.")
    assert len(facts) == 1, facts
    is_power = sympy.integer_nthroot(n, power)[1]
    assert facts[0].holds == (is_power != negated), facts[0].reason
    assert number_facts(f"If {n} is a {word}, then ...") == []  # a hypothesis
    assert number_facts(f"x + {n} is a {word}.") == []  # the end of an expression


def test_a_formula_said_never_to_be_a_square_is_refuted_by_one_value():
    problem = "Find all positive integers a, b with a^2 + b^2 a perfect square."
    got, why = solution_check(problem, [], "Since b^2 is positive, 9 + b^2 can never be a perfect square.")
    assert got == 0.0 and "at b = 4 the value is 25 = 5^2" in why, why
    got, why = solution_check(problem, [], "So 3481 + b^2 can never be a perfect square.")
    assert got == 0.0 and "at b = 1740" in why, why  # 59 is prime: the only solution is far out
    got, why = solution_check(problem, [], "Hence n^2 + n + 41 is never prime.")
    assert got == 0.0 and "at n = 1 the value is 43, a prime" in why, why
    # true claims: a search cannot confirm "never", so they stay unchecked
    assert solution_check(problem, [], "So 4n + 2 can never be a perfect square.")[0] is None
    assert solution_check(problem, [], "So 4 + b^2 can never be a perfect square.")[0] is None
    # the problem's words narrow the name: odd b below 100 (9 + b^2 is 2 modulo 4 for odd b)
    odd = "How many pairs of positive odd integers (a, b) both under 100 make a^2+b^2 a perfect square?"
    assert solution_check(odd, [], "Again, 9 + b^2 can never be a perfect square.")[0] is None
    # a hypothesis, and the absurd statement of a proof by contradiction
    assert solution_check(problem, [], "If 9 + b^2 can never be a perfect square, then ...")[0] is None
    contradiction = "So 9 + b^2 can never be a perfect square, a contradiction."
    assert solution_check(problem, [], contradiction)[0] is None


@pytest.mark.parametrize(
    "step,score",
    [
        ("So, the last digit of 385^1980 is 5.", 1.0),
        ("So, the last digit of 387^1980 is 5.", 0.0),  # 7^4 ends in 1: 387^1980 ends in 1
        ("Since 1980 is divisible by 4, the last digit of 18^1980 is 6.", 1.0),
        ("the units digit of $7^{2023}$ is 3.", 1.0),
        ("the units digit of $7^{2023}$ is 7.", 0.0),
        ("The last digit of 36^m is always 6, whatever m is.", 1.0),
        ("The last digit of 2^n is always 2, whatever n is.", 0.0),  # 4 at n = 2
        # prose, a hypothesis, or a name without "always": not read
        ("So the last digit of the product is 4.", None),
        ("If the last digit of 3^4 were 3, we would be done.", None),
        ("The last digit of 2^n is 2.", None),
    ],
)
def test_a_last_digit_said_in_words_is_computed_modulo_10(step, score):
    got, why = solution_check("Find the last digit.", [], step)
    assert got == score, why
    if score == 0.0:
        assert "is false: it is" in why, why
