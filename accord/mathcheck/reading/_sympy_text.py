"""Text to sympy: the one parsing layer of the math package, for solution steps and final answers.

:func:`parse_sympy` reads one expression under a frozen config (:mod:`accord.mathcheck.reading._config`):

- :class:`StepConfig`: accord's own parser (:mod:`accord.mathcheck.reading._parser`, LaTeX converted by
  :mod:`accord.mathcheck.reading._latex`; no ``eval``, only numbers, names, operators and a few known
  functions), then built as a sympy expression. Every name is a symbol (``S``, ``E``, ``I``, ``N``
  and ``gamma`` are symbols here, not sympy's constants); the solution's own functions (``f(n)``)
  are undefined sympy functions; decimals become exact rationals. A power, factorial or binomial
  whose value would be too large is refused before sympy computes it
  (:data:`accord.mathcheck.reading._evaluate.MAX_BITS`).
- :class:`AnswerConfig`: a final answer's expression leaf (``factorial(n)/(2*n)``, ``(2n)!/(2^n n!)``,
  ``C(n, 4)``, ``sum_(k=1)^n 1/k``, ``H_n``) by sympy's parser with implicit multiplication, ``^``
  as power and ``n!`` as factorial, over the answer names below (``C`` is the binomial, ``e`` Euler's
  number); the caller admits only arithmetic names first
  (:func:`accord.mathcheck.answers._plain_math.names_allowed`).

LaTeX answers and the final-answer judge use math-verify (:func:`extract`, :func:`same`), with its
own signal-based timeouts off: every caller runs these functions in a worker under a time limit
(:mod:`accord.mathcheck.reading._limited`).
"""

from __future__ import annotations

import logging
import re
from collections.abc import Sequence
from functools import lru_cache

import sympy as sp
from math_verify import ExprExtractionConfig, LatexExtractionConfig
from math_verify import parse as mv_parse
from math_verify import verify as mv_verify
from sympy.parsing.sympy_parser import (
    convert_xor,
    factorial_notation,
    implicit_multiplication,
    parse_expr,
    standard_transformations,
)

from accord.mathcheck.reading._config import STEP, AnswerConfig, StepConfig
from accord.mathcheck.reading._evaluate import NotExact, TooLarge, Undefined, Unknown, env_lookup, exact
from accord.mathcheck.reading._parser import MathParseError, parse
from accord.mathcheck.reading._sympy_tree import to_sympy as tree_to_sympy

__all__ = ["LATEX", "LATEX_OR_EXPRESSION", "MathParseError", "extract", "parse_sympy", "same", "to_sympy"]

# math-verify warns once that its own timeout is off: here the worker's time limit replaces it.
logging.getLogger("math_verify").setLevel(logging.ERROR)

LATEX = (LatexExtractionConfig(),)  # an answer's LaTeX: its plain math is read by parse_sympy
LATEX_OR_EXPRESSION = (LatexExtractionConfig(), ExprExtractionConfig())  # math-verify's default: a step, a reference

# The names a final answer may use (sympy's parser sees nothing else).
ANSWER_FUNCTIONS = frozenset(
    (
        "sqrt cbrt factorial binomial choose C floor ceil ceiling log ln lg exp sin cos tan cot sec csc arcsin arccos "
        "arctan asin acos atan sinh cosh tanh abs Abs gcd lcm max min Max Min mod Mod Sum sum harmonic fibonacci "
        "catalan sign"
    ).split()
)
ANSWER_CONSTANTS = frozenset("pi oo inf infinity".split())
ANSWER_GREEK = frozenset(
    "alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu xi rho sigma tau phi chi psi omega".split()
)
ANSWER_STOPWORDS = frozenset("is or of to in an as at be by if it on so we no do up us me my he am go".split())


def parse_sympy(text: str, config: StepConfig | AnswerConfig = STEP):
    """One expression (no relation signs for a step) as a sympy object; :class:`MathParseError`
    for a step that cannot be read (an answer leaf raises whatever sympy's parser raises)."""
    if isinstance(config, AnswerConfig):
        return _parse_answer(text)
    return _parse_step_checked(text, config)


def extract(text: str, targets: Sequence = LATEX_OR_EXPRESSION) -> list:
    """What math-verify's extraction finds in ``text`` (sympy objects and their strings)."""
    return mv_parse(text, extraction_config=list(targets), parsing_timeout=None)


def same(gold, answer) -> bool:
    """math-verify's verdict on two extractions or sympy objects."""
    return bool(mv_verify(gold, answer, timeout_seconds=None))


# ---------------------------------------------------------------- steps: accord's own parser
_SCREEN = re.compile(r"__|[\"`;@]|(?<!\.)\.(?!\.)\s*[A-Za-z_]|\blambda\s*:|\bimport\b")
_NO_VALUES = env_lookup({})


def _closed_size(tree) -> None:
    """Refuse a closed power/factorial/binomial that is too large (evaluating it exactly is bounded)."""
    try:
        exact(tree, _NO_VALUES)
    except TooLarge as exc:
        raise MathParseError(str(exc)) from None
    except (Unknown, NotExact, Undefined, ZeroDivisionError):
        pass  # not closed, irrational or undefined: sympy decides


def to_sympy(tree) -> sp.Expr:
    """The sympy expression of a parsed tree, refusing a closed power too large to build."""
    return tree_to_sympy(tree, _closed_size)


@lru_cache(maxsize=4096)
def _parse_step(text: str, config: StepConfig) -> sp.Expr:
    tree, _ = parse(text, config.functions)
    return to_sympy(tree)


def _parse_step_checked(text: str, config: StepConfig) -> sp.Expr:
    if _SCREEN.search(text):
        raise MathParseError(f"not a plain mathematical expression: {text.strip()!r}")
    try:
        return _parse_step(text, config)
    except RecursionError:
        raise MathParseError("expression nested too deeply") from None


# ---------------------------------------------------------------- answers: sympy's parser
TRANSFORMS = standard_transformations + (implicit_multiplication, convert_xor, factorial_notation)

_LOCALS: dict = {c: sp.Symbol(c) for c in "abcdefghijklmnopqrstuvwxyzABCDFGHJKLMNOPQRSTUVWXYZ"}
_LOCALS.update({g: sp.Symbol(g) for g in ANSWER_GREEK})
_LOCALS.update(
    e=sp.E,
    E=sp.E,
    I=sp.I,
    pi=sp.pi,
    oo=sp.oo,
    inf=sp.oo,
    infinity=sp.oo,
    C=sp.binomial,
    choose=sp.binomial,
    binomial=sp.binomial,
    factorial=sp.factorial,
    floor=sp.floor,
    ceil=sp.ceiling,
    ceiling=sp.ceiling,
    sqrt=sp.sqrt,
    cbrt=sp.cbrt,
    log=sp.log,
    ln=sp.log,
    lg=lambda x: sp.log(x, 10),
    exp=sp.exp,
    sin=sp.sin,
    cos=sp.cos,
    tan=sp.tan,
    cot=sp.cot,
    sec=sp.sec,
    csc=sp.csc,
    arcsin=sp.asin,
    arccos=sp.acos,
    arctan=sp.atan,
    asin=sp.asin,
    acos=sp.acos,
    atan=sp.atan,
    sinh=sp.sinh,
    cosh=sp.cosh,
    tanh=sp.tanh,
    abs=sp.Abs,
    Abs=sp.Abs,
    gcd=sp.gcd,
    lcm=sp.lcm,
    max=sp.Max,
    min=sp.Min,
    Max=sp.Max,
    Min=sp.Min,
    mod=sp.Mod,
    Mod=sp.Mod,
    Sum=sp.Sum,
    sum=sp.Sum,
    harmonic=sp.harmonic,
    fibonacci=sp.fibonacci,
    catalan=sp.catalan,
    sign=sp.sign,
)

_SUM = re.compile(r"\b[sS]um_\(?\{?\s*([A-Za-z])\s*=\s*([^)}]+?)\s*\)?\}?\s*\^\s*\(?\{?([^\s)}]+)\)?\}?\s+(.+)$")
_HARMONIC = re.compile(r"\bH_\{?([A-Za-z0-9]+)\}?")
_BRACED_SUB = re.compile(r"_\{([A-Za-z0-9]+)\}")
_ABS = re.compile(r"\|([^|]+)\|")
_WORD = re.compile(r"(?<![0-9._])[A-Za-z]{2}(?![A-Za-z_(])")
_JUXTAPOSED = re.compile(r"(?<=[\w)!])\s+(?=[\w(])")  # "2^n n!": a space between operands is a product


def preprocess(text: str) -> str:
    """Plain-text notations sympy's parser does not know, rewritten for it."""
    t = _SUM.sub(lambda m: f"Sum(({m.group(4)}), ({m.group(1)}, {m.group(2)}, {m.group(3)}))", text.strip())
    t = _HARMONIC.sub(r"harmonic(\1)", t)
    t = _BRACED_SUB.sub(r"_\1", t)
    t = _ABS.sub(r"Abs(\1)", t)
    t = _JUXTAPOSED.sub("*", t)  # sympy's implicit product would otherwise bind tighter than ^
    return _WORD.sub(
        lambda m: m.group() if m.group() in _LOCALS or m.group().lower() in ANSWER_STOPWORDS else " ".join(m.group()), t
    )


def _parse_answer(text: str):
    return parse_expr(preprocess(text), local_dict=dict(_LOCALS), transformations=TRANSFORMS, evaluate=True)
