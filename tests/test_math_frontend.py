"""The math package's one front end: one text -> sympy layer whose strategy a frozen config
selects, and one time-limited worker path, shared by the step judges and answer equivalence."""

from __future__ import annotations

import dataclasses

import pytest
import sympy as sp

from accord import mathcheck
from accord.adapters import math as math_judges
from accord.mathcheck import StepConfig, parse_sympy
from accord.mathcheck.answers import AUTO, AnswerGrader
from accord.mathcheck.reading._limited import run_limited
from accord.mathcheck.reading._sympy_text import LATEX, MathParseError, extract, same

n, k = sp.symbols("n k")


def test_the_config_selects_the_strategy():
    # a final answer: e is Euler's number, C is the binomial coefficient, H_n the harmonic number
    assert parse_sympy("e", AUTO) == sp.E
    assert parse_sympy("C(10, 5)", AUTO) == 252
    assert parse_sympy("H_n", AUTO) == sp.harmonic(n)
    # a step: every name is a symbol, and f(n) is applied only when f is declared a function
    assert parse_sympy("e", StepConfig()) == sp.Symbol("e")
    assert parse_sympy("C(10, 5)") == 252
    assert parse_sympy("f(n)", StepConfig(frozenset({"f"}))) == sp.Function("f")(n)
    assert parse_sympy("f(n)", StepConfig()) == sp.Symbol("f") * n
    assert parse_sympy("\\frac{n!}{2n}") == sp.factorial(n) / (2 * n)


def test_step_text_that_is_not_math_is_refused_with_a_reason():
    with pytest.raises(MathParseError, match="not a plain mathematical expression"):
        parse_sympy("__import__('os')")
    with pytest.raises(MathParseError, match="refused to evaluate"):
        parse_sympy("2^(10^9)")


def test_configs_are_frozen_and_hashable():
    with pytest.raises(dataclasses.FrozenInstanceError):
        AUTO.text_forms = False
    assert hash(StepConfig(frozenset({"f"}))) == hash(StepConfig(frozenset({"f"})))


def test_math_verify_through_the_same_layer():
    assert same(extract("$\\frac{1}{2}$", LATEX), extract("0.5"))
    assert not same(extract("3"), extract("4"))


def test_one_worker_path_reports_timeouts_and_errors():
    assert run_limited(pow, 2, 10, timeout=30).value == 1024
    slow = run_limited(parse_sympy, "factorial(factorial(12))", AUTO, timeout=0.5)  # sympy evaluates it
    assert not slow.ok and slow.why == "timed out after 0.5 s"
    broken = run_limited(parse_sympy, 123, timeout=30)
    assert not broken.ok and broken.why.startswith("check failed")


def test_the_package_api_is_small_and_lazy():
    assert {"AnswerConfig", "AnswerGrader", "StepConfig", "parse_sympy", "solution_check"} <= set(mathcheck.__all__)
    assert mathcheck.AnswerGrader is AnswerGrader
    with pytest.raises(AttributeError):
        mathcheck.no_such_name  # noqa: B018 - the lookup itself must fail
    assert "SymbolicEquivalenceJudge" in math_judges.__all__  # the judges wrap the engine, outside it


def test_every_answer_function_name_is_known_to_the_answer_parser():
    from accord.mathcheck.reading import _sympy_text as sympy_text

    assert sympy_text.ANSWER_FUNCTIONS <= set(sympy_text._LOCALS)
    assert parse_sympy("C(5, 2) + lg(100)", AUTO) == 12
