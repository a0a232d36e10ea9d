"""Claims about a sequence the problem defines, checked against the terms the definition gives.

A problem that defines a sequence by a rule — a recurrence with its first terms
("a_1 = 1, a_{n+1} = 2a_n + 1", or in function notation "f(1) = 1, f(n+1) = 2f(n) + 1") or an
explicit formula ("a_n = n^2 + 1") — fixes every term, so a step's claims about it can be checked
exactly:

- a relation with a term at a given index: ``a_5 = 2a_4 + 1 = 31`` — each side is evaluated with
  the terms the definition gives (``a_5 = 30`` is false: "a_5 is 31 by the problem's definition");
- an equation in one index name, true for every index: a closed form (``a_n = 2^n - 1``) or a
  derived recurrence (``a_{n+2} = 4a_n + 3``), evaluated at the small indices where its terms
  exist. It is false only when it fails at the two largest of them (a formula valid from some
  index on is not flagged), and an equation with the index on one side only (``a_n = 100``)
  asks for n: not checked.

Everything else abstains: a letter the problem defines twice or piecewise ("if n is even"), an
index that is not the index name plus a constant (``a_{2n}``), a rule with other unknowns, a
"prove that" claim in the problem, a step that supposes, sets up or solves an equation in the index
name ("setting f(x) = x", "f(x) = 2x - 3 so x = 1"), terms before the first given one, terms that
are irrational or too large to compute exactly.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from fractions import Fraction
from functools import lru_cache

from accord.mathcheck.reading import (
    EvaluationError,
    MathParseError,
    Unknown,
    applied_names,
    assumes,
    children,
    exact,
    names,
    parse,
    read_chains,
    show,
    to_text,
)

MAX_INDEX = 400  # terms computed on demand up to this index
SMALL_INDICES = range(0, 13)  # where an equation in the index name is evaluated
_TERM = re.compile(r"^([A-Za-z])_\{?([^{}]+?)\}?$")
_APPLIED_VALUE = re.compile(r"^([A-Za-z])\((-?\d+)\)$")  # how the evaluator names f(3)
_PIECEWISE = re.compile(
    r"\b(?:odd|even|otherwise|unless|divisible|multiple|prime|mod|pmod)\b|"
    r"\b(?:if|when)\s+[a-z]\s*(?:is\b|≡|\\equiv)",
    re.IGNORECASE,
)
_CLAIMED = re.compile(r"\b(?:prove|show|verify)\b", re.IGNORECASE)
_CONDITION = re.compile(
    r"\b(?:if|when|whenever|such that|so that|need|want|solve|solving|solution|find|for which|"
    r"whether|suppose|assume|must|should|set|setting|equation|roots?|zeros?|fixed|intersect\w*)\b",
    re.IGNORECASE,
)
_SENTENCES = re.compile(r"(?<=[.;?!])\s+|\n+")


@dataclass(frozen=True)
class Claim:
    """A checked claim about a defined sequence: holds, with the evaluation as the reason."""

    text: str
    holds: bool
    reason: str


def term_of(name: str) -> tuple[str, object] | None:
    """``a_{n+1}`` -> ("a", index tree); None for a name that is not a subscripted letter."""
    m = _TERM.match(name)
    if m is None:
        return None
    try:
        return m.group(1), parse(m.group(2), frozenset())[0]
    except MathParseError:
        return None


def head_of(tree) -> tuple[str, object] | None:
    """A term as a whole tree: ``a_{n+1}`` or ``f(n+1)`` (a one-letter function of one argument)."""
    if tree[0] == "name":
        return term_of(tree[1])
    if tree[0] == "apply" and len(tree[1]) == 1 and len(tree[2]) == 1:
        return tree[1], tree[2][0]
    return None


def parts(tree, letters) -> tuple[set[str], list[tuple[str, object]]]:
    """(names outside the terms of ``letters``, with the names in their indices; those terms)."""
    head = head_of(tree)
    if head is not None and head[0] in letters:
        return names(head[1]), [head]
    if tree[0] == "name":
        return names(tree), []
    free, terms = {tree[1]} if tree[0] == "apply" else set(), []
    for child in children(tree):
        f, t = parts(child, letters)
        free |= f
        terms += t
    return free, terms


def _term_value(name: str, letter: str, index_of) -> int | None:
    """The index of ``name`` when it names a term of ``letter`` (``a_{n-1}``, or ``f(3)`` as the
    evaluator names an applied value), else None; ``index_of`` evaluates an index tree."""
    m = _APPLIED_VALUE.match(name)
    if m is not None:
        return int(m.group(2)) if m.group(1) == letter else None
    t = term_of(name)
    if t is None or t[0] != letter:
        return None
    j = index_of(t[1])
    if j.denominator != 1:
        raise Unknown(name)
    return int(j)


def _offset(index, var: str) -> int | None:
    """k when the index tree is ``var + k`` (k an integer), else None."""
    if index == ("name", var):
        return 0
    try:
        base = exact(index, lambda n: Fraction(0) if n == var else _unknown(n))
        one = exact(index, lambda n: Fraction(1) if n == var else _unknown(n))
    except EvaluationError:
        return None
    return int(base) if one - base == 1 and base.denominator == 1 else None


def _unknown(name: str):
    raise Unknown(name)


@dataclass
class Sequence:
    """One sequence of the problem: given terms and one rule ``letter_{var + shift} = rhs``."""

    letter: str
    given: dict[int, Fraction] = field(default_factory=dict)
    rule: tuple[str, int, object] | None = None  # (index name, shift, right-hand side tree)
    text: str = ""
    _terms: dict[int, Fraction | None] = field(default_factory=dict)

    @property
    def recursive(self) -> bool:
        return self.rule is not None and bool(parts(self.rule[2], {self.letter})[1])

    def term(self, i: int) -> Fraction:
        """The i-th term; :class:`Unknown` where the definition does not give it exactly."""
        if i in self.given:
            return self.given[i]
        if self.rule is None or not 0 <= i <= MAX_INDEX or (self.recursive and not self.given):
            raise Unknown(f"{self.letter}_{i}")
        if self.given and i < min(self.given):  # before the first given term: outside the definition
            raise Unknown(f"{self.letter}_{i}")
        if i not in self._terms:
            if self.recursive:  # fill from the first given term up, so recursion stays shallow
                for j in range(min(self.given), i):
                    if j not in self.given and j not in self._terms:
                        self._terms[j] = self._compute(j, lower=True)
            self._terms[i] = self._compute(i, lower=self.recursive)
        v = self._terms[i]
        if v is None:
            raise Unknown(f"{self.letter}_{i}")
        return v

    def _compute(self, i: int, lower: bool) -> Fraction | None:
        var, shift, rhs = self.rule
        n = i - shift

        def look(name: str):
            if name == var:
                return Fraction(n)
            j = _term_value(name, self.letter, lambda t: exact(t, lambda x: Fraction(n) if x == var else _unknown(x)))
            if j is None or (lower and j >= i):
                raise Unknown(name)
            return self.term(j)

        try:
            return exact(rhs, look)
        except (EvaluationError, ArithmeticError, ValueError, RecursionError):
            return None

    def describe(self) -> str:
        return self.text


def _definitions(
    sentence: str, functions: frozenset[str]
) -> tuple[dict[str, dict[int, Fraction]], dict[str, list], set[str]]:
    """Given terms, rules and letters used in a way not read (so not defined) in one sentence."""
    given: dict[str, dict[int, Fraction]] = {}
    rules: dict[str, list] = {}
    unread: set[str] = set()
    for chain in read_chains(sentence):
        if set(chain.relations) != {"="} or chain.continues:
            continue
        try:
            trees = [parse(s, functions)[0] for s in chain.sides]
        except MathParseError:
            continue
        heads = [head_of(t) for t in trees]
        try:  # a_1 = a_2 = 1
            value = exact(trees[-1], _unknown)
            idx = [exact(h[1], _unknown) for h in heads[:-1]]
            if all(h is not None for h in heads[:-1]) and all(i.denominator == 1 for i in idx):
                for h, i in zip(heads[:-1], idx):
                    given.setdefault(h[0], {})[int(i)] = value
                continue
        except (EvaluationError, TypeError):
            pass
        head = heads[0]
        if head is None or len(trees) != 2:
            continue
        free = names(head[1])
        shift = _offset(head[1], next(iter(free))) if len(free) == 1 else None
        if shift is None:
            unread.add(head[0])
            continue
        rules.setdefault(head[0], []).append((next(iter(free)), shift, trees[1], chain.text))
    return given, rules, unread


def _one_letter_functions(text: str) -> frozenset[str]:
    return frozenset(f for f in applied_names(text) if len(f) == 1)


@lru_cache(maxsize=256)
def sequences_of(question: str) -> dict[str, Sequence]:
    """The sequences the problem defines by one rule (and, for a recurrence, its given terms)."""
    given: dict[str, dict[int, Fraction]] = {}
    rules: dict[str, list] = {}
    unread: set[str] = set()
    functions = _one_letter_functions(question)
    for sentence in _SENTENCES.split(question.replace("$", " ")):
        g, r, u = _definitions(sentence, functions)
        for letter, terms in g.items():
            for i, v in terms.items():
                if given.setdefault(letter, {}).setdefault(i, v) != v:
                    unread.add(letter)
        for letter, found in r.items():
            if _CLAIMED.search(sentence):  # "Prove that a_n = 2^n - 1": the problem's claim, not its rule
                continue
            rules.setdefault(letter, []).extend(found)
            if _PIECEWISE.search(sentence):
                unread.add(letter)
        unread |= u
    out = {}
    for letter, found in rules.items():
        if len(found) != 1 or letter in unread:
            continue
        var, shift, rhs, text = found[0]
        if parts(rhs, {letter})[0] - {var}:
            continue
        seq = Sequence(letter, dict(given.get(letter, {})), (var, shift, rhs))
        if seq.recursive and not seq.given:
            continue
        form = "{}({}) = {}" if re.match(rf"{letter}\s*\(", text) else "{}_{} = {}"
        shown = ", ".join(form.format(letter, i, show(v)) for i, v in sorted(seq.given.items()))
        seq.text = f"{shown}, {text}" if shown else text
        out[letter] = seq
    return out


def _lookup(seqs: dict[str, Sequence], env: dict[str, Fraction], used: list[str]):
    def look(name: str):
        if name in env:
            return env[name]
        letter = name[0]
        i = (
            _term_value(name, letter, lambda t: exact(t, lambda x: env[x] if x in env else _unknown(x)))
            if letter in seqs
            else None
        )
        if i is None:
            raise Unknown(name)
        v = seqs[letter].term(i)
        used.append((f"{letter}({i})" if _APPLIED_VALUE.match(name) else f"{letter}_{i}", show(v), letter))
        return v

    return look


def _index_names(tree, seqs: dict[str, Sequence]) -> tuple[set[str], bool]:
    """(names outside the defined terms, whether a defined term occurs) of one side."""
    free, terms = parts(tree, set(seqs))
    return free, bool(terms)


def _fixed_link(ta, tb, seqs) -> tuple[bool, str] | None:
    used: list[str] = []
    try:
        va, vb = exact(ta, _lookup(seqs, {}, used)), exact(tb, _lookup(seqs, {}, used))
    except (EvaluationError, ArithmeticError, ValueError):
        return None
    if va == vb:
        return True, f"holds with the problem's terms ({_shown(used)}): both sides are {show(va)}"
    return False, (
        f"{to_text(ta)} = {to_text(tb)} is false with the problem's definition "
        f"({seqs[used[0][2]].describe()}): {_shown(used)}; the left side is {show(va)}, the right side {show(vb)}"
    )


def _shown(used: list[tuple[str, str, str]]) -> str:
    return ", ".join(f"{term} = {value}" for term, value, _ in dict.fromkeys(used))


def _general_link(ta, tb, var: str, seqs) -> tuple[bool, str] | None:
    checked = []
    for n in SMALL_INDICES:
        used: list[str] = []
        env = {var: Fraction(n)}
        try:
            va, vb = exact(ta, _lookup(seqs, env, used)), exact(tb, _lookup(seqs, env, used))
        except (EvaluationError, ArithmeticError, ValueError):
            continue
        checked.append((n, va, vb, used))
    if len(checked) < 3:
        return None
    if all(va == vb for _, va, vb, _ in checked[-2:]):
        if all(va == vb for _, va, vb, _ in checked):
            return True, f"holds at {var} = {checked[0][0]}..{checked[-1][0]} with the problem's terms"
        return None  # holds from some index on: not flagged, not confirmed
    if checked[-1][1] == checked[-1][2] or checked[-2][1] == checked[-2][2]:
        return None
    n, va, vb, used = next(c for c in checked if c[1] != c[2])
    letter = used[0][2] if used else next(iter(parts(ta, set(seqs))[1] + parts(tb, set(seqs))[1]))[0]
    return False, (
        f"{to_text(ta)} = {to_text(tb)} does not hold for the problem's sequence "
        f"({seqs[letter].describe()}): at {var} = {n}"
        f"{' (' + _shown(used) + ')' if used else ''} the left side is {show(va)}, the right side {show(vb)}"
    )


def _solved(chains: list[list]) -> set[str]:
    """Names the step gives a value (``x = 3``, ``f(x) = x = 3``): an equation in them is being solved."""
    return {t[1] for trees in chains if trees[-1][0] == "num" for t in trees[:-1] if t[0] == "name"}


def sequence_claims(question: str, step: str) -> list[Claim]:
    """The step's equations that involve a sequence the problem defines, checked (see module doc)."""
    seqs = sequences_of(question)
    if not seqs or assumes(step):
        return []
    out = []
    functions = _one_letter_functions(question) | _one_letter_functions(step)
    chains = []
    for chain in read_chains(step):
        if set(chain.relations) != {"="} or chain.continues:
            continue
        try:
            chains.append([parse(s, functions)[0] for s in chain.sides])
        except MathParseError:
            continue
    solved = _solved(chains)
    for trees in chains:
        for ta, tb in zip(trees, trees[1:]):
            (fa, ha), (fb, hb) = _index_names(ta, seqs), _index_names(tb, seqs)
            if not (ha or hb):
                continue
            if not fa and not fb:
                verdict = _fixed_link(ta, tb, seqs)
            elif len(fa | fb) == 1 and fa == fb and not _CONDITION.search(step) and not fa & solved:
                verdict = _general_link(ta, tb, next(iter(fa)), seqs)
            else:
                verdict = None
            if verdict is not None:
                out.append(Claim(f"{to_text(ta)} = {to_text(tb)}", *verdict))
    return out
