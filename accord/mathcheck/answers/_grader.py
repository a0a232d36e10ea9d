"""Whether two parsed answers say the same thing, and a grader that parses each answer once.

Comparison rules (a pair of answers matches when any of their alternative forms do):

- equal normalised text always matches; a blank answer matches nothing;
- numbers: exact rationals must be equal; irrationals (40 digits) agree to ``computed_rel_tol``;
  a written decimal matches a value it rounds or truncates to at its last written digit, when
  it has at least ``min_rounded_digits`` significant digits (0.35714 and 0.3571 match 5/14; 0.4
  does not); ±∞ match only themselves and "infinitely many";
- expressions: equal at every sample point where both are defined (at least two such points);
  where no point is defined on either side, math-verify's ``verify`` decides (in the worker,
  under ``timeout_s``);
- sets and bare lists match as sets, tuples in order, intervals by ends and closedness (an open
  interval also matches the pair ``(a, b)``); a one-element set or list matches its element;
- solutions match by variable names and values; a one-variable solution ``x = 3`` matches 3; a
  solution matches a tuple of its values in written order;
- relations match when the sign and the difference agree (a > b is b < a; = and != up to sign);
- keywords match the same keyword; text matches equal text;
- where the problem asks for a form (factorise, expand, simplify, a closed form: see
  :mod:`.asked_form`), two expressions must also be written in that same form (the same
  factors where a factorisation is asked), and under "simplest form" two answers must agree on
  being in lowest terms.
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction

import numpy as np

from accord.consensus_core.jury import MISSING, classify
from accord.mathcheck.answers._asked_form import same_form, same_written_form
from accord.mathcheck.answers._forms import (
    COMPUTED,
    WRITTEN,
    Assignment,
    Collection,
    Expression,
    Keyword,
    Number,
    ParsedAnswer,
    Relation,
    Text,
    Value,
)
from accord.mathcheck.answers._parser import AnswerParser
from accord.mathcheck.answers._symbolic import verify_sources
from accord.mathcheck.reading import AUTO, AnswerConfig, GradeConfig, run_limited

MIN_POINTS = 2


def same_number(a: Number, b: Number, cfg: GradeConfig) -> bool:
    if a.infinite or b.infinite:
        return a.infinite == b.infinite
    if a.value == b.value:
        return True
    if WRITTEN in (a.precision, b.precision):
        written = [x for x in (a, b) if x.precision == WRITTEN]
        w = min(written, key=lambda x: x.decimals)  # the coarser one is what the other rounds to
        other = b if w is a else a
        if w.significant < cfg.min_rounded_digits:
            return False
        ulp = Fraction(10) ** -w.decimals
        d = other.value - w.value
        if 2 * abs(d) <= ulp:
            return True
        return 0 <= d < ulp if w.value >= 0 else -ulp < d <= 0
    if COMPUTED in (a.precision, b.precision):
        scale = max(abs(a.value), abs(b.value))
        return abs(a.value - b.value) <= Fraction(cfg.computed_rel_tol) * scale
    return False


def negated(v: Value) -> Value:
    if isinstance(v, Number):
        return Number(-v.value, v.precision, v.decimals, v.significant, -v.infinite)
    if isinstance(v, Expression):
        return Expression(
            tuple(None if p is None else negated(p) for p in v.points),
            v.symbols,
            f"Mul(Integer(-1), {v.source})",
            v.factors,
        )
    return v


class Comparer:
    """The comparison rules under one :class:`GradeConfig`, with math-verify's verdicts cached."""

    def __init__(self, config: GradeConfig = GradeConfig()):
        self.config = config
        self.verified: dict[tuple[str, str], bool] = {}

    def same(self, a: ParsedAnswer, b: ParsedAnswer, form: str | None = None) -> bool:
        """Equal in value; where the problem asks for a ``form`` (:mod:`.asked_form`), also in form."""
        if a.blank or b.blank:
            return False
        if a.normal == b.normal:
            return True
        if not same_written_form(a.text, b.text, form):
            return False
        return any(self.value(x, y) and same_form(x, y, form) for x in a.forms for y in b.forms)

    def value(self, a: Value, b: Value) -> bool:
        if isinstance(a, Collection) and not isinstance(b, Collection):
            a, b = b, a
        if isinstance(b, Collection) and not isinstance(a, Collection):
            one = self._single(b)
            if isinstance(a, Assignment) and b.kind in ("tuple", "list"):
                return len(a.pairs) == len(b.items) and all(self.value(v, w) for (_, v), w in zip(a.pairs, b.items))
            return one is not None and self.value(a, one)
        if isinstance(a, Assignment) and not isinstance(b, Assignment):
            a, b = b, a
        if isinstance(b, Assignment) and not isinstance(a, Assignment):
            return len(b.pairs) == 1 and isinstance(a, (Number, Expression)) and self.value(a, b.pairs[0][1])
        if isinstance(a, (Number, Expression)) and isinstance(b, (Number, Expression)):
            return self._points(a, b)
        if isinstance(a, Keyword) or isinstance(b, Keyword):
            k, other = (a, b) if isinstance(a, Keyword) else (b, a)
            if isinstance(other, Keyword):
                return k.word == other.word
            return k.word == "infinite" and isinstance(other, Number) and other.infinite == 1
        if type(a) is not type(b):
            return False
        if isinstance(a, Text):
            return a.normal == b.normal
        if isinstance(a, Collection):
            return self._collections(a, b)
        if isinstance(a, Assignment):
            if a.names != b.names:
                return False
            bv = dict(b.pairs)
            return all(self.value(v, bv[n]) for n, v in a.pairs)
        if isinstance(a, Relation):
            if a.op != b.op:
                return False
            if self.value(a.difference, b.difference):
                return True
            return a.op in ("=", "!=") and self.value(a.difference, negated(b.difference))
        return False

    def _single(self, c: Collection) -> Value | None:
        if self.config.singleton_matches_element and c.kind in ("set", "list") and len(c.items) == 1:
            return c.items[0]
        return None

    def _points(self, a: Number | Expression, b: Number | Expression) -> bool:
        if isinstance(a, Number) and isinstance(b, Number):
            return same_number(a, b, self.config)
        n = len(a.points) if isinstance(a, Expression) else len(b.points)
        pa = a.points if isinstance(a, Expression) else (a,) * n
        pb = b.points if isinstance(b, Expression) else (b,) * n
        if len(pa) != len(pb):
            return False
        both = [(x, y) for x, y in zip(pa, pb) if x is not None and y is not None]
        if len(both) >= MIN_POINTS:
            return all(same_number(x, y, self.config) for x, y in both)
        if isinstance(a, Expression) and isinstance(b, Expression) and not any(pa) and not any(pb):
            return self._verify(a.source, b.source)
        return False

    def _verify(self, gold: str, answer: str) -> bool:
        key = (gold, answer)
        if key not in self.verified:
            got = run_limited(verify_sources, gold, answer, timeout=self.config.timeout_s)
            self.verified[key] = got.ok and bool(got.value)
        return self.verified[key]

    def _collections(self, a: Collection, b: Collection) -> bool:
        if "interval" in (a.kind, b.kind):
            if a.kind == b.kind:
                return a.closed == b.closed and self._in_order(a.items, b.items)
            iv, other = (a, b) if a.kind == "interval" else (b, a)
            return other.kind == "tuple" and iv.closed == (False, False) and self._in_order(iv.items, other.items)
        if {a.kind, b.kind} == {"set", "tuple"}:
            return False
        if "tuple" in (a.kind, b.kind):
            return self._in_order(a.items, b.items)
        return self._as_sets(a.items, b.items)

    def _in_order(self, xs: tuple, ys: tuple) -> bool:
        return len(xs) == len(ys) and all(self.value(x, y) for x, y in zip(xs, ys))

    def _as_sets(self, xs: tuple, ys: tuple) -> bool:
        exact = all(isinstance(v, Number) and v.precision != WRITTEN for v in xs + ys)
        if exact and all(v.precision != COMPUTED for v in xs + ys):
            return {(v.value, v.infinite) for v in xs} == {(v.value, v.infinite) for v in ys}
        return all(any(self.value(x, y) for y in ys) for x in xs) and all(any(self.value(x, y) for x in xs) for y in ys)


class AnswerGrader:
    """Parses each answer once (``prepare`` parses many together) and compares parsed forms.

    ``equivalent(x, y)`` is an ``(str, str) -> bool`` for :func:`accord.consensus_core.jury.run_jury`.
    """

    def __init__(self, parse_config: AnswerConfig = AUTO, grade_config: GradeConfig = GradeConfig()):
        self.parser = AnswerParser(parse_config)
        self.comparer = Comparer(grade_config)

    def prepare(self, texts) -> None:
        self.parser.parse_many(texts)

    def parse(self, text: str | None) -> ParsedAnswer:
        return self.parser.parse(text)

    def equivalent(self, x: str, y: str, form: str | None = None) -> bool:
        """Same answer (``form``: the form the problem asks for, see :mod:`.asked_form`)."""
        return self.comparer.same(self.parser.parse(x), self.parser.parse(y), form)

    __call__ = equivalent

    def codes(self, rows: Sequence[Sequence[str | None]], forms: Sequence[str | None] | None = None) -> np.ndarray:
        """Class codes (problems, members): blank answers are no answer (MISSING); ``forms``: per
        problem the form it asks for (None: compare values)."""
        self.prepare(a for row in rows for a in row)
        forms = forms if forms is not None else [None] * len(rows)
        out = [
            classify([None if self.parse(a).blank else a for a in row], lambda x, y, f=f: self.equivalent(x, y, f))
            for row, f in zip(rows, forms)
        ]
        return np.stack(out) if out else np.zeros((0, 0), dtype=np.int64)

    def truth(
        self, reference: str | None, row: Sequence[str | None], codes: np.ndarray, form: str | None = None
    ) -> int:
        """The class code of the answers equivalent to ``reference``; -2 when none is (or no reference)."""
        if reference is None:
            return -2
        for ans, code in zip(row, codes):
            if code != MISSING and self.equivalent(reference, ans, form):
                return int(code)
        return -2
