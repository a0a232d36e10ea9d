"""A value found for a name, checked in the equation it was found from.

"... which simplifies to 31 = 3^y. This implies that y = 5": the value a step concludes for y must
make the last equation in y alone (earlier in the step, or in the step before) hold, and 3^5 is
243, not 31. Only a conclusion is checked: the sentence says so ("so", "implies", "we find",
"solving"), and says nothing of a case, a trial or a failure ("if x = 3", "try x = 7", "x = 7 does
not work"). Decimals are rounded values and are not checked, nor identities (every value
satisfies them). A value may be an expression in other names ("x = sqrt(c)" after "x^2 = c"): the
equation must then be in the name and those names alone, and is checked at random values of them.
"""

from __future__ import annotations

import random
import re
from fractions import Fraction

from accord.mathcheck.reading import (
    EvaluationError,
    MathParseError,
    Unknown,
    names,
    nearly_equal,
    read_chains,
    show,
    to_text,
    value_of,
)
from accord.mathcheck.state import Facts, is_identity, parse_side

_CONCLUDES = re.compile(
    r"\b(?:so|thus|therefore|hence|implies|implying|gives|giving|get|find|found|solv\w*|solutions?|roots?|"
    r"means|conclude\w*|obtain\w*|yields?)\b",
    re.IGNORECASE,
)
_NOT_CONCLUDED = re.compile(
    r"\b(?:if|suppose|assume|assuming|let|case|try|trying|tried|check\w*|test\w*|not|no|never|cannot|fails?|"
    r"impossible|contradict\w*|when|for|plug\w*|substitut\w*|set|setting|take|taking|say|example|only|other|"
    r"approximately|about)\b|n't\b|≈|\?",
    re.IGNORECASE,
)
N_POINTS = 6


def equations_in(text: str, facts: Facts) -> list[tuple]:
    """The equations ``text`` states, as (left tree, right tree), in reading order."""
    out = []
    for chain in read_chains(text):
        if chain.continues:
            continue
        try:
            trees = [parse_side(s, facts.functions) for s in chain.sides]
        except MathParseError:
            continue
        for (a, b), rel in zip(zip(trees, trees[1:]), chain.relations):
            if rel == "=" and not a[1] and not b[1]:  # neither side read one way of two
                out.append((a[0], b[0]))
    return out


def concludes_value(sentence: str) -> bool:
    """The sentence states a value as found, not as a case, a trial or a failure."""
    return bool(_CONCLUDES.search(sentence)) and not hypothetical(sentence)


def hypothetical(sentence: str) -> bool:
    """The sentence puts its formula as a case, a trial, a failure or a rough value, not as found."""
    return bool(_NOT_CONCLUDED.search(sentence))


def sentence_of(step: str, left: str, right: str) -> str:
    """The sentence of ``step`` that writes ``left = right`` (the whole step when none does)."""
    plain = re.sub(r"\\[()\[\]]|\$", "", step)
    pattern = re.compile(rf"{re.escape(left.strip())}\s*=\s*{re.escape(right.strip())}")
    for sentence in re.split(r"(?<=[.!?])\s+|\n", plain):
        if pattern.search(sentence):
            return sentence
    return plain


def value_found(left: str, right: str, sentence: str, earlier: list[tuple], facts: Facts):
    """(holds, why) for ``left = right`` read as a value found for a name (a number, or an
    expression in other names: "x = (c - b)/a") from the last equation of ``earlier`` in that name
    and the value's names alone; None when it is not such a value or there is no such equation."""
    if not concludes_value(sentence):
        return None
    if not re.fullmatch(r"\s*[A-Za-z]\s*", left) and re.fullmatch(r"\s*[A-Za-z]\s*", right):
        left, right = right, left
    if not re.fullmatch(r"\s*[A-Za-z]\s*", left) or "." in right:  # a decimal is a rounded value
        return None
    name = left.strip()
    try:
        value, odd = parse_side(right, facts.functions)
    except MathParseError:
        return None
    others = names(value)
    if odd or name in others:
        return None
    for a, b in reversed(earlier):
        used = names(a) | names(b)
        if name not in used or not used <= others | {name} or ("name", name) in (a[:2], b[:2]):
            continue
        if is_identity(a, b, Facts(functions=facts.functions), 3, positive=True):  # every value satisfies it
            continue
        return _substituted(name, value, others, a, b)
    return None


def _points(others, rng: random.Random):
    """The values of the other names: none, or a few random positive rationals."""
    if not others:
        return [{}]
    return [{n: Fraction(rng.randint(2, 60), rng.randint(1, 9)) for n in sorted(others)} for _ in range(N_POINTS)]


def _substituted(name: str, value, others, a, b):
    shown, tried = f"{to_text(a)} = {to_text(b)}", 0
    for point in _points(others, random.Random(11)):
        try:
            v = value_of(value, point.__getitem__)
            look = {**point, name: v}.__getitem__
            va, vb = value_of(a, look), value_of(b, look)
        except (Unknown, EvaluationError, ArithmeticError, ValueError, TypeError, KeyError):
            continue
        same = nearly_equal(va, vb, 30)
        if same is None:
            continue
        tried += 1
        if not same:
            at = "".join(f"{k} = {show(x)}, " for k, x in sorted(point.items()))
            return False, (
                f"{name} = {to_text(value)} does not satisfy {shown}, the equation it is found from: at "
                f"{at}{name} = {show(v)} the left side is {show(va)}, the right side {show(vb)}"
            )
    if tried < (1 if not others else 3):
        return None
    return True, f"{name} = {to_text(value)} satisfies {shown}, the equation it is found from"


_NAMED_TUPLE = re.compile(r"\(\s*([A-Za-z](?:_\d)?(?:\s*,\s*[A-Za-z](?:_\d)?)+)\s*\)\s*=\s*(?=\()")
_NUMBER_TUPLE = re.compile(r"\(\s*(-?\d+(?:/\d+)?(?:\s*,\s*-?\d+(?:/\d+)?)+)\s*\)")
_SOLUTION_WORD = re.compile(r"\bsolutions?\b|\bsatisf", re.IGNORECASE)
_NOT_CLAIMED = re.compile(
    r"\b(?:if|suppose|assume|assuming|let|case|try|trying|check\w*|test\w*|not|no|never|cannot|fails?|"
    r"impossible|when|whether|other|candidates?|possible|could|might|would|may)\b|n't\b|\?|\.\.\.|…",
    re.IGNORECASE,
)


def solutions_claimed(step: str) -> list[tuple[str, tuple[str, ...], list[tuple[Fraction, ...]]]]:
    """(sentence, names, values) for each sentence that says number tuples are solutions: "the integer
    solutions to the equation x^2 - 3y^2 = 17 are (x, y) = (13, 4) and (-13, 4)". Every tuple of
    the names' length after "(x, y) =" is claimed; a case, a trial, a doubt or a list cut off with
    "..." is not a claim."""
    out = []
    plain = re.sub(r"\\[()\[\]]|\$", "", step).replace("\\pm", "±")
    for sentence in re.split(r"(?<=[.!?])\s+|\n", plain):
        named = _NAMED_TUPLE.search(sentence)
        if named is None or not _SOLUTION_WORD.search(sentence) or _NOT_CLAIMED.search(sentence):
            continue
        names_ = tuple(re.split(r"\s*,\s*", named.group(1).strip()))
        values = []
        for m in _NUMBER_TUPLE.finditer(sentence, named.end()):
            parts = re.split(r"\s*,\s*", m.group(1).strip())
            if len(parts) == len(names_):
                values.append(tuple(Fraction(p) for p in parts))
        if values and len(set(names_)) == len(names_):
            out.append((sentence, names_, values))
    return out


def solutions_check(names_: tuple[str, ...], values, equations: list[tuple]) -> tuple[bool, str] | None:
    """(holds, why): each tuple put into the last of ``equations`` (the problem's, then the
    sentence's own) in exactly these names; None when there is no such equation, it is an
    identity, or it cannot be evaluated. An equation the solution derived on the way is not used:
    the tuples are claimed to solve the problem."""
    wanted = set(names_)
    for a, b in reversed(equations):
        if names(a) | names(b) != wanted:
            continue
        if is_identity(a, b, Facts(), 3):
            return None
        shown = f"{to_text(a)} = {to_text(b)}"
        for tup in values:
            look = dict(zip(names_, tup)).__getitem__
            try:
                va, vb = value_of(a, look), value_of(b, look)
            except (Unknown, EvaluationError, ArithmeticError, ValueError, TypeError, KeyError):
                return None
            same = nearly_equal(va, vb, 30)
            if same is None:
                return None
            if not same:
                at = ", ".join(f"{n} = {show(v)}" for n, v in zip(names_, tup))
                return False, (
                    f"({', '.join(names_)}) = ({', '.join(show(v) for v in tup)}) is not a solution of {shown}: "
                    f"at {at} the left side is {show(va)}, the right side {show(vb)}"
                )
        listed = ", ".join("(" + ", ".join(show(v) for v in tup) + ")" for tup in values)
        return True, f"({', '.join(names_)}) = {listed} satisfies {shown}"
    return None
