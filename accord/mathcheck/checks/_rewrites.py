"""When does the first link of a chain rewrite an expression rather than state an equation?

``x^8 + x^4 + 1 = (x^4)^2 + 2x^4 + 1 - 2x^4`` opens its chain, so it used to be read as an
equation stating something and left unchecked. A first link is read as a rewrite (and checked as
an identity) when neither side is a bare name or function value (``f(n) = ..`` defines), both
sides have the same free names, and

- it is a row of an aligned derivation (``(n+2)^(n+1) &= ...``), or
- the step (or the lead-in line before it) says it simplifies, rewrites, expands or factors, or
  writes an expression "as follows" — and it does not solve, substitute, work on both sides or
  under a condition (:func:`rewrite_context`), or
- a side is a sum or product up to a bound in a name (``1 + 2 + … + n``, ``\\sum_{k=1}^n``): a formula
  for it is claimed for every n, not an equation to solve, or
- the two sides have the same leading behaviour, and the step does not speak of an equation: at
  points scaled far out they agree to many digits, so the sides match in their highest-degree
  terms and differ only below — what a slip in a rewrite looks like; an equation to solve
  (``20xy + y^2 = 10x + y``) differs in its leading terms.
"""

from __future__ import annotations

import random
import re
from fractions import Fraction

from accord.mathcheck.reading import EvaluationError, Unknown, children, names, value_of
from accord.mathcheck.state import Facts, free_names

ALIGNED, REWRITE, EQUATION, PLAIN = "aligned", "rewrite", "equation", ""
_ALIGNED = re.compile(r"&\s*=")
_REWRITE = re.compile(
    r"\b(?:simplif\w*|rewrit\w*|re-writ\w*|expand\w*|factori[sz]\w*|factor(?:s|ed|ing)?|"
    r"as follows|written as|write \S+ as|expression)\b",
    re.IGNORECASE,
)
_SOLVING = re.compile(
    r"\bboth sides\b|\bsolv\w*|\bsubstitut\w*|\bplug\w*|\bas an equation\b|\bequations\b|"
    r"\b(?:even|odd|if|when|whenever|unless|assum\w*|suppos\w*)\b",
    re.IGNORECASE,
)
_EQUATION = re.compile(r"\bequation\b", re.IGNORECASE)
SCALE = 10**6
N_SCALED = 3


def rewrite_context(step: str, lead_in: str = "") -> str:
    """How the step presents its formulas: an aligned derivation row, a rewrite, an equation, or
    plain (``lead_in``: the line before, when it ends in ":"). Solving, substituting, "both
    sides", several equations, or a condition ("for even n", "if") make it an equation; "we can
    write the left side of the equation as follows" is a rewrite."""
    if _ALIGNED.search(step):
        return ALIGNED
    both = f"{lead_in}\n{step}"
    if _SOLVING.search(both):
        return EQUATION
    if _REWRITE.search(both):
        return REWRITE
    return EQUATION if _EQUATION.search(both) else PLAIN


def _bare(tree) -> bool:
    return tree[0] in ("name", "apply")


def same_leading_terms(ta, tb, facts: Facts, seed: int) -> bool:
    """At points scaled far out the sides agree to 4 digits relative (and are not equal)."""
    rng = random.Random(seed)
    for _ in range(N_SCALED):
        point: dict[str, Fraction] = {}

        def look(name: str):
            try:
                return facts.value(name)
            except Unknown:
                pass
            if name not in point:
                point[name] = Fraction(rng.randint(11, 97) * SCALE, rng.randint(7, 31))
            return point[name]

        try:
            a, b = value_of(ta, look), value_of(tb, look)
        except (EvaluationError, ArithmeticError, ValueError, OverflowError):
            return False
        if not isinstance(a, Fraction) or not isinstance(b, Fraction):
            return False
        big = max(abs(a), abs(b))
        if big == 0 or abs(a - b) * 10**4 > big:
            return False
    return True


def first_link_rewrites(ta, tb, facts: Facts, context: str, seed: int) -> bool:
    """Whether the opening link ``ta = tb`` is a rewrite to check as an identity (module docstring)."""
    if _bare(ta) or _bare(tb) or context == EQUATION:
        return False
    fa, fb = free_names(ta, facts), free_names(tb, facts)
    if not fa or fa != fb or any(n.endswith("()") for n in fa):
        return False
    return context in (ALIGNED, REWRITE) or _running(ta) or _running(tb) or same_leading_terms(ta, tb, facts, seed)


def _running(tree) -> bool:
    """A sum or product whose bounds have a name in them."""
    if tree[0] == "sigma" and (names(tree[3]) or names(tree[4])):
        return True
    return any(_running(c) for c in children(tree))
