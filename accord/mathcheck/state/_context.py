"""What the problem and the steps before a step establish: values, definitions, equations.

Read in order, each relation chain may

- give a value: ``f(1) = 3``, ``x_2 = x_1 + y_1 = 1 + 1 = 2``, ``For n = 5`` (the subject is the
  first side, a name or an applied function; the value is the last side of its ``=`` run that
  evaluates to a number);
- define a name: ``a = dm`` (a name equal to an expression with free names);
- state an equation: kept as a :class:`Premise` with the step it was stated in and the scopes open
  there (:mod:`accord.mathcheck.state._roles`), so that the consequence check can use every equation
  still in force (:mod:`accord.mathcheck.checks._consequence`); the most recent :data:`KEEP_EQUATIONS`
  are also kept apart for the readers of "the equation before".

Values of indexed names and applied functions (``x_1``, ``a_4``, ``f(3)``), values computed
by a chain (``S = 1 + 2 + 3 = 6``) and values in the problem are carried to later steps (while
the solution gives the name one value only, or gave it again in the step before); a plain
``x = 2`` holds in its own step only: it is usually a case ("If x = 2, ...") or a conclusion, and
the name is reused in the next case. Values are stored as the solution states them, right or
wrong, so one slip is reported where it is made, not again in every later step.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Callable
from dataclasses import dataclass, field
from fractions import Fraction
from functools import lru_cache
from itertools import takewhile

from accord.mathcheck.reading import (
    Chain,
    EvaluationError,
    MathParseError,
    NotExact,
    Unknown,
    approx,
    ends_with_formula,
    exact,
    expand_ellipsis,
    key,
    names,
    parse,
    read_chains,
    to_text,
)

KEEP_EQUATIONS = 8
REACH = 100  # how many steps back an uncited premise is used (the problem's always are)
_STOP = object()  # the end of a chain's leading run of '='


@dataclass(frozen=True)
class Premise:
    """An equation ``left = right`` stated at ``step`` (-1: the problem) inside ``scopes`` (the ids of
    the scopes open there): in force while those scopes are open and the step is not refuted."""

    left: tuple
    right: tuple
    step: int
    scopes: frozenset[int] = frozenset()
    names: frozenset[str] = frozenset()

    @property
    def text(self) -> str:
        return f"{to_text(self.left)} = {to_text(self.right)}"

    @property
    def substitutes(self) -> bool:
        """``x = 3v + b``: a name given an expression, what a step substitutes rather than operates on."""
        return any(
            a[0] == "name" and a[1] not in names(b) for a, b in ((self.left, self.right), (self.right, self.left))
        )

    @property
    def assigns(self) -> bool:
        """``n = 3``: a name given a number (a case, a trial, a value found), not an equation."""
        return any(
            a[0] == "name" and (b[0] == "num" or b[0] == "neg" and b[1][0] == "num")
            for a, b in ((self.left, self.right), (self.right, self.left))
        )


@dataclass
class Facts:
    """The state after some text; copied (not shared) before a step adds to it.

    The premises are one list shared by the states of a solution and appended to as the steps are
    read (``n_premises``: how many of them are this state's); a copy made to check a step keeps the
    step's own equations apart (``local``) until the step is read for good (:meth:`copy` with
    ``owner``), so a long solution's premises are never copied whole."""

    functions: frozenset[str] = frozenset()
    values: dict[str, list[tuple[object, int, bool]]] = field(default_factory=dict)  # key -> [(value, step, carried)]
    definitions: dict[str, tuple] = field(default_factory=dict)  # name -> tree
    equations: list[tuple[tuple, tuple, int]] = field(default_factory=list)  # (left, right, step)
    last_side: tuple | None = None  # the last side read, for a chain that continues it ("= 29")
    last_subject: str | None = None
    step: int = -1  # index of the step being read (-1: the problem)
    premises: list[Premise] = field(default_factory=list)  # shared: see the class docstring
    n_premises: int = 0
    by_name: dict[str, list[int]] = field(default_factory=dict)  # shared: name -> indexes into premises
    local: list[Premise] = field(default_factory=list)  # premises of the step being checked
    owner: bool = True  # appends to the shared premises (else to local)
    scopes: frozenset[int] = frozenset()  # the scopes open while the current step is read
    in_force: Callable[[Premise], bool] | None = None  # set by the checker of a step
    cited: tuple[int, ...] = ()  # the steps the step being checked cites (its role in the proof)
    claims: bool = True  # the step claims what it states (not an assumption, a case)
    absurd: bool = False  # the step says the absurdity its contradiction scope wanted
    operated: tuple[int, ...] = ()  # the steps the step being checked says it derives from
    case: dict[str, int] = field(default_factory=dict)  # the values the step's opening case gives
    clause: str = ""  # the clause the step opens its case with ("For q = p and r = p")
    in_case: bool = False  # the step sits in a case (a scope, or a case it opens itself)
    positive: bool = False  # the problem's names are positive: points drawn are too

    def copy(self, owner: bool = False) -> Facts:
        return Facts(
            self.functions,
            {k: list(v) for k, v in self.values.items()},
            dict(self.definitions),
            list(self.equations),
            self.last_side,
            self.last_subject,
            self.step,
            self.premises,
            self.n_premises,
            self.by_name,
            list(self.local),
            owner,
            self.scopes,
            self.in_force,
            self.cited,
            self.claims,
            self.absurd,
            self.operated,
            self.case,
            self.clause,
            self.in_case,
            self.positive,
        )

    def add_premise(self, left, right) -> None:
        p = Premise(left, right, self.step, self.scopes, frozenset(names(left) | names(right)))
        if not self.owner:
            self.local.append(p)
            return
        if len(self.premises) != self.n_premises:  # a second continuation of the same steps: its own lists
            self.premises = self.premises[: self.n_premises]
            self.by_name = {k: [i for i in v if i < self.n_premises] for k, v in self.by_name.items()}
        for n in p.names:
            self.by_name.setdefault(n, []).append(self.n_premises)
        self.premises.append(p)
        self.n_premises += 1

    def source(self) -> Premise | None:
        """The equation the current step says it derives from: the latest one in force of the first
        step it operates on (the statement before a lead-in, not the lead-in's own substitution),
        never a substitution ``x = 3v + b`` while an equation of those steps is there."""
        found = []
        for step in self.operated:
            for i in range(self.n_premises - 1, -1, -1):
                p = self.premises[i]
                if p.step < step:
                    break
                if p.step == step and (self.in_force is None or self.in_force(p)) and not p.assigns:
                    found.append(p)
        equations = [p for p in found if not p.substitutes]
        return (equations or found or [None])[0]

    def kept_from(self, left, right) -> Premise | None:
        """The equation of the step before that the claim ``left = right`` keeps one side of, when
        that side is an expression in names: the other side was rewritten from it."""
        for i in range(self.n_premises - 1, -1, -1):
            p = self.premises[i]
            if p.step < self.step - 1:
                break
            if p.step == self.step - 1 and (self.in_force is None or self.in_force(p)):
                for kept, before in ((p.left, p.right), (p.right, p.left)):
                    if kept not in (left, right) or not names(kept) or before in (left, right):
                        continue
                    rewritten = right if kept == left else left
                    # a value put in for a name ("2^5 - 1" for "2^x - 1") in a case is no rewrite
                    kept_names = names(rewritten)
                    if kept_names == names(before) or kept_names and kept_names < names(before) and not self.in_case:
                        return p
        return None

    def premises_on(self, wanted: set[str], limit: int = 40) -> list[Premise]:
        """The premises in force that use one of ``wanted``, the latest first (this step's own first)."""
        found: set[int] = set()
        for n in wanted:  # each name's latest (its list is in the order premises came): a long solution's
            listed = self.by_name.get(n, ())  # premises are never all read for one step
            end = bisect_left(listed, self.n_premises)
            found.update(listed[max(0, end - 4 * limit) : end])
        out = [p for p in reversed(self.local) if p.names & wanted]
        for i in sorted(found, reverse=True):
            out.append(self.premises[i])
            if len(out) >= 4 * limit:
                break
        if self.in_force is not None:
            out = [p for p in out if self.in_force(p)]
        # within REACH steps, or the problem's, or cited: a step costs the same early or late in a long solution
        out = [p for p in out if p.step < 0 or p.step >= self.step - REACH or p.step in self.cited]
        # "n = 3" holds in its own step and the next only: it is usually a case, and the name is reused
        out = [p for p in out if not p.assigns or p.step < 0 or p.step >= self.step - 1]
        return out[:limit]

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
            facts.add_premise(a, b)
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
