"""Where a problem's names live: their domain, and the facts that narrow it.

The problem says it in words and formulas: its names are positive ("positive", "a, b, c > 0"),
non-negative or real, integers when it says so, the sides of a triangle when it speaks of one, and
the inequalities it states as conditions hold ("with a > 0, a + b + c ≥ 0"; never the inequality
it asks about). Names that an equation or an ordering ties down are constrained. The steps add
signs ("c > 0") as they state them. Checks draw their random points here (:func:`draw`,
:func:`admissible_point`).
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache

from accord.mathcheck.reading import (
    LET,
    EvaluationError,
    MathParseError,
    Unknown,
    as_mp,
    names,
    nearly_equal,
    read_chains,
    value_of,
)
from accord.mathcheck.state._context import Facts, parse_side
from accord.mathcheck.state._identities import is_identity

_ORDER = {"<", "≤", ">", "≥"}
_POSITIVE = re.compile(r"\bpositive\b", re.IGNORECASE)
_NONNEGATIVE = re.compile(r"\bnon-?negative\b", re.IGNORECASE)
_REAL = re.compile(r"\breals?\b|\breal numbers?\b|\\mathbb\{R\}|ℝ", re.IGNORECASE)
_INTEGER = re.compile(r"\bintegers?\b|\bnatural numbers?\b|\\mathbb\{[NZ]\}", re.IGNORECASE)
_CONDITIONAL = re.compile(
    r"\b(?:if|when|whenever|suppose|assume|assuming|" + LET + r"|case|wlog|without loss|either|whether|need|want|goal|"
    r"suffices?|show|prove|claim|would|must|should|try|otherwise|unless|equality|maximi[sz]\w*|minimi[sz]\w*|"
    r"contradict\w*|impossible|false|not)\b|\?",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class Domain:
    """Where the problem's names live, and the names something else narrows."""

    sign: str  # "positive", "nonnegative" or "real"
    integers: bool
    constrained: frozenset[str]
    named: frozenset[str]  # the names the problem uses: only inequalities in these are checked
    start: int = 1  # the least positive integer ("n in {101, ..., 1000}": 101)
    signs: tuple[tuple[str, str], ...] = ()  # a sign the problem gives one name ("x, y > 0"): it wins
    conditions: tuple[tuple, ...] = ()  # (relation, tree, tree): the problem's stated conditions


def plain_term(tree) -> bool:
    """A number or a name, or its negative."""
    return tree[0] in ("num", "name") or tree[0] == "neg" and tree[1][0] in ("num", "name")


def _constrained(texts: list[str], functions: frozenset[str], orderings: bool = True) -> set[str]:
    """Names an equation (or, with ``orderings``, an ordering of bare names) ties down in ``texts``."""
    out: set[str] = set()
    for text in texts:
        for chain in read_chains(text):
            try:
                trees = [parse_side(s, functions)[0] for s in chain.sides]
            except MathParseError:
                continue
            for (a, b), rel in zip(
                zip(trees, trees[1:]), chain.relations[-len(trees) + 1 :] if chain.continues else chain.relations
            ):
                ordering = rel in _ORDER and plain_term(a) and plain_term(b) and not _zero(a) and not _zero(b)
                rewrite = rel == "=" and is_identity(a, b, Facts(functions=functions), 7, positive=True)
                if rel == "=" and not rewrite or orderings and ordering:
                    out |= names(a) | names(b)
    return out


def _zero(tree) -> bool:
    return tree[0] == "num" and tree[1] == 0


# "for how many values of n in {101, ..., 1000}": a name running over a range of positive integers
_POSITIVE_RANGE = re.compile(r"\bin\s*\\?\{\s*[1-9]\d*\s*,[^{}]*(?:\.\.\.|…|\\ldots|\\dots)[^{}]*\}")


# "a, b, c > 0", "x_1, x_2, ..., x_n > 0", "a_i ≥ 1": names the problem bounds below by a number
_NAME = r"[A-Za-z](?:_\{?\w+\}?)?"
_SIGNED_LIST = re.compile(
    rf"(?<![\w^+\-*/(])((?:{_NAME}\s*,\s*(?:(?:\.\.\.|…|\\[lc]?dots)\s*,\s*)?)*{_NAME})\s*"
    r"(>=|≥|\\geq?|>|\\gt)\s*(\d+(?:\.\d+)?)(?![\w^*/(]|\.\d)"
)
_TRIANGLE = re.compile(r"\bsides?\b[^.?]*\btriangle\b|\btriangle\b[^.?]*\bsides?\b", re.IGNORECASE)
# the question itself starts here: relations after it are asked about, not given
_ASKING = re.compile(
    r"\b(?:what|how|which|whether|find|determine|prove|show|compute|evaluate|calculate)\b|\?", re.IGNORECASE
)


def signed_names(question: str) -> dict[str, str]:
    """The names the problem bounds below by a number: "positive" (``> 0``, ``≥ 1``) or "nonnegative"."""
    out: dict[str, str] = {}
    for part in _given_parts(question):
        for m in _SIGNED_LIST.finditer(part):
            rel, bound = m.group(2), float(m.group(3))
            sign = "positive" if bound > 0 or rel in (">", "\\gt") else "nonnegative"
            for name in re.split(r"\s*,\s*", m.group(1)):
                if re.fullmatch(_NAME, name):
                    out[name.replace("{", "").replace("}", "")] = sign
    if _TRIANGLE.search(question):
        for name in _triangle_sides(question):
            out[name] = "positive"
    return out


def _triangle_sides(question: str) -> list[str]:
    sides = sorted(n for n in _listed_names(question, frozenset()) if re.fullmatch(r"[a-z]", n))
    return sides if len(sides) == 3 else []


def _given_parts(question: str) -> list[str]:
    """The problem's text up to where it asks (per sentence): what it gives, not what it asks about."""
    out = []
    for sentence in re.split(r"(?<=[.?!])\s+", question):
        asking = _ASKING.search(sentence)
        out.append(sentence[: asking.start()] if asking else sentence)
    return out


def _conditions(question: str, functions: frozenset[str]) -> tuple[tuple, ...]:
    """The inequalities the problem gives as conditions, and the triangle inequalities of its sides."""
    out = []
    for part in _given_parts(question):
        for chain in read_chains(part):
            try:
                trees = [parse_side(s, functions)[0] for s in chain.sides]
            except MathParseError:
                continue
            if chain.continues:
                continue
            for (a, b), rel in zip(zip(trees, trees[1:]), chain.relations):
                if rel in _ORDER:
                    out.append((rel, a, b))
    sides = _triangle_sides(question) if _TRIANGLE.search(question) else []
    if sides:
        strict = "<" if not re.search(r"degenerate", question, re.IGNORECASE) else "≤"
        for k in range(3):
            one, others = sides[k], [sides[j] for j in range(3) if j != k]
            out.append((strict, parse_side(one, functions)[0], parse_side(" + ".join(others), functions)[0]))
    return tuple(out)


def has_domain(question: str) -> bool:
    """The problem says where its names live, in words or by bounds ("x, y > 0")."""
    return domain_sign(question) is not None or bool(signed_names(question))


def domain_sign(question: str) -> str | None:
    """Where the problem says its names live: "positive", "nonnegative", "real", or None."""
    if _POSITIVE.search(question) or _POSITIVE_RANGE.search(question):
        return "positive"
    if _NONNEGATIVE.search(question):
        return "nonnegative"
    if _REAL.search(question):
        return "real"
    return None


def constrained_names(texts: list[str], functions: frozenset[str], orderings: bool = True) -> set[str]:
    """The names an equation (or, with ``orderings``, an ordering of bare names) in ``texts`` ties
    down. The problem's own orderings are conditions every drawn point meets, not ties."""
    return _constrained(texts, functions, orderings)


@lru_cache(maxsize=512)  # every step of a solution asks again, mostly with the same ties
def domain_with(question: str, functions: frozenset[str], constrained: frozenset[str]) -> Domain | None:
    """The problem's domain, given the names the problem and the steps so far tie down."""
    sign = domain_sign(question)
    signs = signed_names(question)
    if sign is None and not signs:
        return None
    named = frozenset(n for chain in read_chains(question) for side in chain.sides for n in _names_of(side, functions))
    named |= _listed_names(question, functions) | frozenset(signs)
    ranged = _POSITIVE_RANGE.search(question)
    integers = bool(_INTEGER.search(question) or ranged)
    start = int(re.search(r"\d+", ranged.group(0)).group(0)) if ranged else 1
    return Domain(
        sign or "real",
        integers,
        frozenset(constrained),
        named,
        start,
        tuple(sorted(signs.items())),
        _conditions(question, functions),
    )


def domain_of(question: str, steps: tuple[str, ...], functions: frozenset[str]) -> Domain | None:
    """The problem's domain, or None when it does not say where its names live."""
    if not has_domain(question):
        return None
    tied = _constrained([question], functions, orderings=False) | _constrained(list(steps), functions)
    return domain_with(question, functions, frozenset(tied))


_INLINE = re.compile(r"\$([^$]+)\$|\\\((.+?)\\\)")
_LISTED = re.compile(
    r"\b(?:let|if|where|numbers|reals|integers)\s+((?:[a-z]\s*,\s*)*[a-z](?:\s*,?\s*and\s+[a-z])?)\s+"
    r"(?:be|are|is|satisfy|such)\b",
    re.IGNORECASE,
)
# "For positive a, b, c, what is ...", "for positive real numbers x and y": names given by their kind alone
_LISTED_BY_KIND = re.compile(
    r"\bfor\s+(?:all\s+|any\s+)?(?:(?:positive|non-?negative|nonzero|real)\s+)+(?:(?:real\s+)?numbers?\s+|reals\s+)?"
    r"((?:[a-z]\s*,\s*)*[a-z](?:\s*,?\s*and\s+[a-z])?)(?![\w(])",
    re.IGNORECASE,
)
_SUBSCRIPTED = re.compile(r"(?<![A-Za-z\\])[A-Za-z]_\{?[A-Za-z0-9]+\}?")


def _listed_names(question: str, functions: frozenset[str]) -> frozenset[str]:
    """Names the problem introduces without a relation: "Let $a, b, c$ be ...", "x_1, y_1, z_1 are ..."."""
    pieces = [p for m in _INLINE.finditer(question) for part in m.groups() if part for p in part.split(",")]
    pieces += _SUBSCRIPTED.findall(question)
    lists = [m.group(1) for pattern in (_LISTED, _LISTED_BY_KIND) for m in pattern.finditer(question)]
    pieces += [p for listed in lists for p in re.split(r",|\band\b", listed)]
    return frozenset(n for p in pieces for n in _names_of(p.strip(), functions))


def _names_of(side: str, functions: frozenset[str]) -> set[str]:
    try:
        return names(parse_side(side, functions)[0])
    except MathParseError:
        return set()


def conditional(step: str) -> bool:
    """The step states a condition, a case or a goal, not a claim that holds everywhere."""
    return bool(_CONDITIONAL.search(step))


def draw(rng: random.Random, domain: Domain, name: str | None = None, wide: bool = False) -> Fraction:
    """A random value of one name: small integers (from ``domain.start`` when positive), else
    fractions of either sign where the name is real; ``wide``: as often below 1 as above it."""
    sign = dict(domain.signs).get(name, domain.sign) if name is not None else domain.sign
    if domain.integers:
        lo = domain.start if sign == "positive" else 0 if sign == "nonnegative" else -12
        return Fraction(rng.randint(lo, lo + 11 if lo > 1 else 12))
    v = Fraction(rng.randint(1, 120), rng.randint(1, 40))
    if wide and rng.random() < 0.5:
        v = Fraction(rng.randint(1, 99), 100) if rng.random() < 0.5 else 1 / v
    if sign == "real" and rng.random() < 0.5:
        v = -v
    return v


def admissible_point(rng: random.Random, domain: Domain, free, wide: bool = False) -> dict[str, Fraction] | None:
    """Random values of ``free`` (and of the names a condition ties to them) where every condition
    of the problem on them holds; None when this draw breaks one (draw again)."""
    touching = [c for c in domain.conditions if (names(c[1]) | names(c[2])) & set(free)]
    usable = [c for c in touching if names(c[1]) | names(c[2]) <= domain.named - domain.constrained | set(free)]
    drawn = set(free).union(*(names(c[1]) | names(c[2]) for c in usable))
    point = {n: draw(rng, domain, n, wide) for n in sorted(drawn)}
    for rel, a, b in usable:
        try:
            if holds_between(rel, value_of(a, point.__getitem__), value_of(b, point.__getitem__)) is not True:
                return None
        except (KeyError, Unknown, EvaluationError, ArithmeticError, ValueError, TypeError):
            return None
    return point


def holds_between(rel: str, a, b) -> bool | None:
    close = nearly_equal(a, b, 30)
    if close is True:
        return rel in ("≤", "≥")
    if close is None:
        return None  # too close to tell at the working precision
    if isinstance(a, Fraction) != isinstance(b, Fraction):
        a, b = as_mp(a), as_mp(b)  # an exact side against a side known to 60 digits
    return {"<": a < b, "≤": a <= b, ">": a > b, "≥": a >= b}[rel]


def sign_facts(texts: list[str]) -> list[tuple[str, str]]:
    """ "a > 0", "b ≠ 0", "0 < c" in the problem and the steps: (name, relation to 0)."""
    out = []
    flip = {"<": ">", ">": "<", "≤": "≥", "≥": "≤", "≠": "≠"}
    for text in texts:
        for chain in read_chains(text):
            for (a, b), rel in zip(zip(chain.sides, chain.sides[1:]), chain.relations):
                if rel not in _ORDER | {"≠"}:
                    continue
                a, b = a.strip(), b.strip()
                if re.fullmatch(r"[A-Za-z](?:_\w+)?", a) and b == "0":
                    out.append((a, rel))
                elif re.fullmatch(r"[A-Za-z](?:_\w+)?", b) and a == "0":
                    out.append((b, flip[rel]))
    return out
