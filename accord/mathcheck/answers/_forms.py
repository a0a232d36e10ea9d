"""What a parsed final answer is: small frozen values that can be compared without sympy.

A written answer becomes one or more *forms* (alternatives such as "C(10, 5), or equivalently
252"), each a tree of these values. Every value is hashable and picklable, so answers parsed in a
time-limited worker process come back whole, and the comparison rules
(:mod:`accord.mathcheck.answers._grader`) need nothing but these fields.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

EXACT, COMPUTED, WRITTEN = "exact", "computed", "written"


@dataclass(frozen=True)
class Number:
    """A constant. ``precision`` says how far to trust ``value``:

    - exact: a rational known exactly (``3``, ``5/14``, ``2*C(10, 5)``);
    - computed: an irrational evaluated to 40 significant digits (``sqrt(3)/3``);
    - written: a decimal as written (``0.357``): ``decimals`` is the position of its last digit
      (10**-decimals) and ``significant`` its count of significant digits.
    ``infinite`` is +1 or -1 for the infinities (``value`` is then 0).
    """

    value: Fraction
    precision: str = EXACT
    decimals: int = 0
    significant: int = 0
    infinite: int = 0


@dataclass(frozen=True)
class Expression:
    """An expression in free symbols, known by its values at fixed sample points of the symbols
    (``None`` where it is undefined there); two expressions are equal when all defined points are."""

    points: tuple[Number | None, ...]
    symbols: frozenset[str]
    source: str  # sympy's srepr, for the math-verify comparison when no point is defined
    # the factors it is written as, each primitive with a positive leading coefficient, with
    # their exponents (sorted): what "factor completely" compares
    factors: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True)
class Collection:
    """``set`` ({1, 2}), ``tuple`` ((1, 2)), ``list`` (1, 2 / 1 and 2: matches a set or a tuple),
    ``interval`` ([a, b), with ``closed`` per end)."""

    kind: str
    items: tuple[Value, ...]
    closed: tuple[bool, bool] = (True, True)


@dataclass(frozen=True)
class Assignment:
    """One solution given by variable names: ``x=1, y=2``, ``(x=0, y=0)``, ``x=y=0``."""

    pairs: tuple[tuple[str, Value], ...]  # in written order

    @property
    def names(self) -> frozenset[str]:
        return frozenset(n for n, _ in self.pairs)


@dataclass(frozen=True)
class Relation:
    """``lhs op rhs`` read as ``difference = rhs - lhs`` with op in <, <=, =, != (``a > b`` is ``b < a``)."""

    op: str
    difference: Value


@dataclass(frozen=True)
class Keyword:
    """A stated verdict rather than a value: ``yes``, ``no`` (also every way of saying that nothing
    exists: none, no such n, the empty set) and ``infinite`` (infinitely many, ∞)."""

    word: str


@dataclass(frozen=True)
class Text:
    """Anything else, compared as normalised text."""

    normal: str


Value = Number | Expression | Collection | Assignment | Relation | Keyword | Text


@dataclass(frozen=True)
class ParsedAnswer:
    """One answer, parsed once: its alternative forms and the rule that read it.

    ``how`` is one of blank, keyword, math, latex, sentence, text, timeout (math parsing ran
    past its limit: compared as text). A blank answer has no forms and equals nothing.
    """

    text: str
    forms: tuple[Value, ...]
    how: str
    normal: str = ""

    @property
    def blank(self) -> bool:
        return not self.forms
