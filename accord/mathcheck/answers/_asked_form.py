"""Problems that ask for an answer in a form: there an equal value is not enough.

"Factorise x^2 - 1" is not answered by "x^2 - 1", nor "find a closed form of sum ..." by the sum.
:func:`asked_form` reads the form a problem asks for (rules, each in docs/jury.md):

- ``factored``: factorise / factorize / factor (completely, fully, the polynomial ...), "in
  factored form", "as a product";
- ``expanded``: expand, "in expanded form", "in standard form";
- ``simplified``: simplify, "simplest form", "lowest terms", "as a single fraction";
- ``closed``: "closed form", "closed-form", "without a sum".

An expression's :func:`shape` is read from sympy's srepr (kept in :class:`Expression.source`): the
head (Add, Mul, Pow, ...), how many of its top-level arguments are not plain numbers, the head of
a power's base, and whether an unevaluated Sum, Product or Integral is left. Under ``closed`` two
answers must agree on the last only; under ``expanded`` and ``simplified`` on the whole shape;
under ``factored`` on the factors written (:func:`~._symbolic.written_factors`: ``(x-1)(x^2-1)``
is not ``(x-1)^2 (x+1)``). Numbers are compared by value in every form; under ``simplified``
their texts must also agree on being in lowest terms (:func:`in_lowest_terms`: ``6/8`` is not
``3/4``, ``sqrt(8)`` not ``2 sqrt(2)``).
"""

from __future__ import annotations

import re
from math import gcd, isqrt

from accord.mathcheck.answers._forms import Expression, Value

FORMS = ("factored", "expanded", "simplified", "closed")
_ASKS = (
    ("closed", re.compile(r"\bclosed[- ]form\b|\bwithout\s+(?:a\s+)?(?:sum|summation|sigma)\b", re.IGNORECASE)),
    (
        "factored",
        re.compile(
            r"\bfactori[sz]e|\bfactor\s+(?:completely|fully|the\b|it\b|this\b|\S*\s*[-+^(])|\bfactored\s+form\b|\bas\s+a\s+product\b",
            re.IGNORECASE,
        ),
    ),
    ("expanded", re.compile(r"\bexpand\b|\bexpanded\s+form\b|\bstandard\s+form\b", re.IGNORECASE)),
    (
        "simplified",
        re.compile(
            r"\bsimplif(?:y|ied)\b|\bsimplest\s+form\b|\blowest\s+terms\b|\bas\s+a\s+single\s+fraction\b", re.IGNORECASE
        ),
    ),
)
_NUMBER_HEADS = {"Integer", "Rational", "Float", "NegativeOne", "One", "Zero", "Half"}
_UNEVALUATED = re.compile(r"\b(?:Sum|Product|Integral)\(")


def asked_form(problem: str | None) -> str | None:
    """The form the problem asks its answer in (one of :data:`FORMS`), or None."""
    if not problem:
        return None
    for form, rule in _ASKS:
        if rule.search(problem):
            return form
    return None


def _split(source: str) -> tuple[str, list[str]]:
    """Head and top-level argument texts of an srepr string."""
    i = source.find("(")
    if i < 0:
        return source, []
    head, args, depth, start = source[:i], [], 0, i + 1
    for j in range(i + 1, len(source) - 1):
        ch = source[j]
        if ch in "([":
            depth += 1
        elif ch in ")]":
            depth -= 1
        elif ch == "," and depth == 0:
            args.append(source[start:j].strip())
            start = j + 1
    last = source[start:-1].strip()
    if last:
        args.append(last)
    return head, args


def shape(source: str) -> tuple:
    """(head, non-numeric top-level arguments, a power's base head, unevaluated operator left)."""
    head, args = _split(source)
    heads = [_split(a)[0] for a in args]
    terms = sum(h not in _NUMBER_HEADS for h in heads)
    base = heads[0] if head == "Pow" and heads else ""
    return head, terms, base, bool(_UNEVALUATED.search(source))


_FRACTION = re.compile(r"(?<![\w.^)}])(\d+)\s*/\s*(\d+)(?![\d.])|\\d?frac\{\s*(\d+)\s*\}\{\s*(\d+)\s*\}")
_ROOT = re.compile(r"(?:sqrt|√)\s*[({]?\s*(\d+)(?![\d.])")


def in_lowest_terms(text: str) -> bool:
    """Whether the numbers written in an answer are in lowest terms: no fraction of integers with
    a common factor (``6/8``, ``\\frac{2}{4}``) and no square root of an integer with a square
    factor (``sqrt(8)``). Values are compared as numbers, so this is read from the text."""
    for m in _FRACTION.finditer(text):
        num, den = (int(g) for g in (m.groups()[:2] if m.group(1) else m.groups()[2:]))
        if den and gcd(num, den) > 1:
            return False
    for m in _ROOT.finditer(text):
        n = int(m.group(1))
        if any(n % (k * k) == 0 for k in range(2, isqrt(n) + 1)):
            return False
    return True


def same_written_form(a: str, b: str, form: str | None) -> bool:
    """Where a simplest form is asked, whether two answers' texts agree on being in lowest terms."""
    return form != "simplified" or in_lowest_terms(a) == in_lowest_terms(b)


def same_form(a: Value, b: Value, form: str | None) -> bool:
    """Whether two values (already equal in value) are written in the same asked form: under
    ``factored`` the same written factors (:attr:`Expression.factors`), under the others the
    same :func:`shape`."""
    if form is None or not (isinstance(a, Expression) and isinstance(b, Expression)):
        return True
    if form == "factored":
        return a.factors == b.factors
    sa, sb = shape(a.source), shape(b.source)
    if form == "closed":
        return sa[3] == sb[3]
    return sa == sb
