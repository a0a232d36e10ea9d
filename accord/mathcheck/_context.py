"""What the problem and the steps before a step establish: values, definitions, equations.

Read in order, each relation chain may

- give a value: ``f(1) = 3``, ``x_2 = x_1 + y_1 = 1 + 1 = 2``, ``For n = 5`` (the subject is the
  first side, a name or an applied function; the value is the last side of its ``=`` run that
  evaluates to a number);
- define a name: ``a = dm`` (a name equal to an expression with free names);
- state an equation (kept, the most recent :data:`KEEP_EQUATIONS`, for "follows from").

Values of indexed names and applied functions (``x_1``, ``a_4``, ``f(3)``), values computed
by a chain (``S = 1 + 2 + 3 = 6``) and values in the problem are carried to later steps (while
the solution gives the name one value only, or gave it again in the step before); a plain
``x = 2`` holds in its own step only: it is usually a case ("If x = 2, ...") or a conclusion, and
the name is reused in the next case. Values are stored as the solution states them, right or
wrong, so one slip is reported where it is made, not again in every later step.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from functools import lru_cache
from itertools import takewhile

from accord.mathcheck._evaluate import EvaluationError, NotExact, Unknown, approx, exact, key
from accord.mathcheck._notation import expand_ellipsis
from accord.mathcheck._parser import MathParseError, names, parse
from accord.mathcheck._reader import Chain, ends_with_formula, read_chains

KEEP_EQUATIONS = 8
_STOP = object()  # the end of a chain's leading run of '='


@dataclass
class Facts:
    """The state after some text; copied (not shared) before a step adds to it."""

    functions: frozenset[str] = frozenset()
    values: dict[str, list[tuple[object, int, bool]]] = field(default_factory=dict)  # key -> [(value, step, carried)]
    definitions: dict[str, tuple] = field(default_factory=dict)  # name -> tree
    equations: list[tuple[tuple, tuple, int]] = field(default_factory=list)  # (left, right, step)
    last_side: tuple | None = None  # the last side read, for a chain that continues it ("= 29")
    last_subject: str | None = None
    step: int = -1  # index of the step being read (-1: the problem)

    def copy(self) -> Facts:
        return Facts(
            self.functions,
            {k: list(v) for k, v in self.values.items()},
            dict(self.definitions),
            list(self.equations),
            self.last_side,
            self.last_subject,
            self.step,
        )

    def forget_spent(self) -> None:
        """Drop what no later step can use, once the step ``self.step`` has been read: a value
        that held in its own step only, and a carried value stated again later (the later one is
        kept). The last entry of each name stays (:meth:`origin`). What :meth:`value` answers for
        any later step is unchanged, and a long solution's facts stay as large as its distinct
        values, not its length."""
        for name, entries in self.values.items():
            if len(entries) < 2:
                continue
            kept, seen = [entries[-1]], set()
            if entries[-1][2]:
                seen.add(_identity(entries[-1][0]))
            for v, at, carried in reversed(entries[:-1]):
                if not carried:
                    if at >= self.step + 1:
                        kept.append((v, at, carried))
                    continue
                ident = _identity(v)
                if ident is not None and ident in seen:
                    continue
                if ident is not None:
                    seen.add(ident)
                kept.append((v, at, carried))
            if len(kept) < len(entries):
                kept.reverse()
                self.values[name] = kept

    def value(self, name: str):
        """The value of a name or applied function usable in the current step (Unknown if none)."""
        usable = [(v, at) for v, at, carried in self.values.get(name, ()) if carried or at == self.step]
        if not usable:
            raise Unknown(name)
        v, at = usable[-1]
        if at >= self.step - 1 or all(_same(v, w) for w, _ in usable):
            return v
        raise Unknown(name)

    def origin(self, name: str) -> int:
        return self.values[name][-1][1]


def _identity(v):
    """A value with its type, when hashable: two entries with the same identity answer every
    comparison alike."""
    try:
        return type(v), hash(v), v
    except TypeError:
        return None


def _same(a, b) -> bool:
    if isinstance(a, Fraction) and isinstance(b, Fraction):
        return a == b
    try:
        return abs(float(a) - float(b)) <= 1e-12 * (1 + abs(float(a)))
    except (TypeError, ValueError, OverflowError):
        return False


def closed_value(tree, facts: Facts):
    """The exact (or 50-digit) value of a tree under the facts' values; EvaluationError if none."""
    try:
        return exact(tree, facts.value)
    except NotExact:
        return approx(tree, facts.value)


def subject_key(tree, facts: Facts) -> str | None:
    """The name a chain's first side gives a value to: a name or an applied function of numbers."""
    if tree[0] == "name" and tree[1] != "pi":
        return tree[1]
    if tree[0] == "apply":
        try:
            return key(tree[1], tuple(exact(a, facts.value) for a in tree[2]))
        except EvaluationError:
            return None
    return None


@lru_cache(maxsize=16384)
def parse_side(text: str, functions: frozenset[str]):
    """A side's tree (memoised: a formula is read again when a step repeats it, or when a new
    function name makes the earlier steps be read again); a
    finite sum or product with an ellipsis is read written out when its terms follow a pattern."""
    if any(dots in text for dots in ("…", "⋯", "...", "dots")):
        text = expand_ellipsis(text) or text
    return parse(text, functions)


def record(chain: Chain, trees: list, facts: Facts) -> None:
    """Add what one chain establishes (trees: each side's tree, or None if unreadable)."""
    if not chain.relations:  # an expression on its own: what a following "= ..." continues
        facts.last_side, facts.last_subject = trees[0], None
        return
    subject = None
    if chain.continues and facts.last_subject is not None:
        subject = facts.last_subject
    elif trees[0] is not None and chain.relations[0] == "=":
        subject = subject_key(trees[0], facts)
    if subject is not None:
        value = None
        run = list(
            takewhile(lambda t: t is not _STOP, (t if r == "=" else _STOP for t, r in zip(trees[1:], chain.relations)))
        )
        for t in reversed(run):
            if t is None:
                continue
            try:
                value = closed_value(t, facts)
                break
            except (EvaluationError, ArithmeticError, ValueError):
                continue
        rhs = trees[1] if len(trees) == 2 else None
        if value is not None:
            computed = len(trees) > 2 or chain.continues or trees[-1][0] not in ("num", "neg")
            carried = facts.step < 0 or computed or "_" in subject or "(" in subject
            facts.values.setdefault(subject, []).append((value, facts.step, carried))
        elif rhs is not None and trees[0][0] == "name" and not chain.continues and subject not in names(rhs):
            facts.definitions[subject] = rhs
    for (a, b), r in zip(zip(trees, trees[1:]), chain.relations):
        if r == "=" and a is not None and b is not None:
            facts.equations.append((a, b, facts.step))
    del facts.equations[:-KEEP_EQUATIONS]
    facts.last_side = trees[-1]
    facts.last_subject = subject if subject is not None and chain.relations[-1] == "=" else None


def side_trees(chain: Chain, facts: Facts) -> tuple[list, list[str | None]]:
    """Each side's tree (None where unreadable, with the reason); a continued chain's first side
    is the previous formula's last side."""
    trees, why = [], []
    if chain.continues:
        trees.append(facts.last_side)
        why.append(None if facts.last_side is not None else "it continues a formula accord could not read")
    for side in chain.sides:
        try:
            trees.append(parse_side(side, facts.functions)[0])
            why.append(None)
        except MathParseError as exc:
            trees.append(None)
            why.append(str(exc))
    return trees, why


def read_text(text: str, facts: Facts, skip=None) -> None:
    """Add everything a text (the problem or a step) establishes; ``skip(chain text)`` says which
    chains establish nothing (a number spelt by its digits)."""
    for chain in read_chains(text):
        if skip is not None and skip(chain.text):
            continue
        trees, _ = side_trees(chain, facts)
        record(chain, trees, facts)
    end_of_step(text, facts)


def end_of_step(text: str, facts: Facts) -> None:
    """A step that ends in prose cannot be continued by a formula starting with '='."""
    if not ends_with_formula(text):
        facts.last_side = facts.last_subject = None
