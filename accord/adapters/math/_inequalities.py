"""Inequalities between expressions with free names, checked at random admissible points.

A later link of a chain (``(a + b)^2 ≥ 4ab + 1`` after ``a^2 + b^2 + 2ab``) in a solution about
positive reals is a step of a derivation: it holds for every admissible a, b. The first link may
be a hypothesis about particular values and is not checked.

The domain comes from the problem: its names are positive ("positive"), non-negative or real, and
integers when it says so. A claim is checked only in names the problem itself uses and nothing
else narrows — no equation in them (``abc = 1``), no ordering of bare names (``a ≥ b``,
``n ≥ 3``) in the problem or an earlier step — and only when the step is not a condition, a case
or a goal ("if", "suppose", "we need to show"). Then the inequality is evaluated exactly at random
admissible points; it is false with the first point where it fails as evidence, and valid when it
holds at all of them.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass
from fractions import Fraction

from accord.adapters.math._context import Facts, parse_side
from accord.adapters.math._cues import LET
from accord.adapters.math._evaluate import EvaluationError, Unknown
from accord.adapters.math._identities import free_names
from accord.adapters.math._parser import MathParseError, names, to_text
from accord.adapters.math._precision import as_mp, nearly_equal, show, value_of
from accord.adapters.math._reader import read_chains

N_POINTS = 24
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


def _simple(tree) -> bool:
    return tree[0] in ("num", "name") or tree[0] == "neg" and tree[1][0] in ("num", "name")


def _constrained(texts: list[str], functions: frozenset[str]) -> set[str]:
    """Names an equation or an ordering of bare names ties down in ``texts``."""
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
                if rel == "=" or rel in _ORDER and _simple(a) and _simple(b) and not _zero(a) and not _zero(b):
                    out |= names(a) | names(b)
    return out


def _zero(tree) -> bool:
    return tree[0] == "num" and tree[1] == 0


# "for how many values of n in {101, ..., 1000}": a name running over a range of positive integers
_POSITIVE_RANGE = re.compile(r"\bin\s*\\?\{\s*[1-9]\d*\s*,[^{}]*(?:\.\.\.|…|\\ldots|\\dots)[^{}]*\}")


def domain_sign(question: str) -> str | None:
    """Where the problem says its names live: "positive", "nonnegative", "real", or None."""
    if _POSITIVE.search(question) or _POSITIVE_RANGE.search(question):
        return "positive"
    if _NONNEGATIVE.search(question):
        return "nonnegative"
    if _REAL.search(question):
        return "real"
    return None


def constrained_names(texts: list[str], functions: frozenset[str]) -> set[str]:
    """The names an equation or an ordering of bare names in ``texts`` ties down."""
    return _constrained(texts, functions)


def domain_with(question: str, functions: frozenset[str], constrained: frozenset[str]) -> Domain | None:
    """The problem's domain, given the names the problem and the steps so far tie down."""
    sign = domain_sign(question)
    if sign is None:
        return None
    named = frozenset(n for chain in read_chains(question) for side in chain.sides for n in _names_of(side, functions))
    named |= _listed_names(question, functions)
    ranged = _POSITIVE_RANGE.search(question)
    integers = bool(_INTEGER.search(question) or ranged)
    start = int(re.search(r"\d+", ranged.group(0)).group(0)) if ranged else 1
    return Domain(sign, integers, frozenset(constrained), named, start)


def domain_of(question: str, steps: tuple[str, ...], functions: frozenset[str]) -> Domain | None:
    """The problem's domain, or None when it does not say where its names live."""
    if domain_sign(question) is None:
        return None
    return domain_with(question, functions, frozenset(_constrained([question, *steps], functions)))


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


def draw(rng: random.Random, domain: Domain) -> Fraction:
    """A random point of the domain for one name: small integers (from ``domain.start`` when
    positive), else fractions of either sign where the names are real."""
    if domain.integers:
        lo = domain.start if domain.sign == "positive" else 0 if domain.sign == "nonnegative" else -12
        return Fraction(rng.randint(lo, lo + 11 if lo > 1 else 12))
    v = Fraction(rng.randint(1, 120), rng.randint(1, 40))
    if domain.sign == "real" and rng.random() < 0.5:
        v = -v
    return v


def _holds(rel: str, a, b) -> bool | None:
    close = nearly_equal(a, b, 30)
    if close is True:
        return rel in ("≤", "≥")
    if close is None:
        return None  # too close to tell at the working precision
    if isinstance(a, Fraction) != isinstance(b, Fraction):
        a, b = as_mp(a), as_mp(b)  # an exact side against a side known to 60 digits
    return {"<": a < b, "≤": a <= b, ">": a > b, "≥": a >= b}[rel]


def check_inequality(rel: str, ta, tb, facts: Facts, domain: Domain | None, seed: int) -> tuple[bool | None, str]:
    """(holds, reason) of ``ta REL tb`` over the domain; None with the reason when not checked."""
    if domain is None:
        return None, "an inequality with free names, and the problem does not say where they live: not checked"
    free = free_names(ta, facts) | free_names(tb, facts)
    if not free or any(n.endswith("()") for n in free):
        return None, "an inequality between values of functions: not checked"
    if not free <= domain.named:
        return None, "an inequality in names the problem does not use: not checked"
    if free & domain.constrained:
        return None, "an inequality in names an equation or ordering ties down: not checked"
    if _simple(ta) and _simple(tb):
        return None, "an ordering of names (a condition): not checked"
    rng = random.Random(seed)
    tried = 0
    for _ in range(N_POINTS):
        point = {n: draw(rng, domain) for n in sorted(free)}

        def look(name: str):
            if name in point:
                return point[name]
            return facts.value(name)

        try:
            a, b = value_of(ta, look), value_of(tb, look)
            ok = _holds(rel, a, b)
        except (Unknown, EvaluationError, ArithmeticError, ValueError, TypeError):
            continue
        if ok is None:
            continue
        tried += 1
        if ok is False:
            at = ", ".join(f"{k} = {show(v)}" for k, v in sorted(point.items()))
            return False, (
                f"the inequality {to_text(ta)} {rel} {to_text(tb)} fails at {at} ({domain.sign}"
                f"{' integers' if domain.integers else ''}): the left side is {show(a)}, the right side "
                f"{show(b)}"
            )
    if tried < 6:
        return None, "an inequality accord could evaluate at too few admissible points: not checked"
    return True, f"holds at {tried} random {domain.sign} points"
