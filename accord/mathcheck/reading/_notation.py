"""Ordinary notation that a plain reading of relations gets wrong.

- "100 ÷ 7 = 14 remainder 2" states a division with remainder: 100 = 7·14 + 2 with 0 ≤ 2 < 7, not
  100/7 = 14 (:func:`remainder_statements`; the reader sees the step with them blanked out,
  :func:`without_remainders`);
- "1 + 2 + ⋯ + 10", "1^2 + 2^2 + … + 10^2", "1·2·…·10": a finite sum or product whose terms
  before the ellipsis follow one pattern (numbers in arithmetic progression, or a geometric one)
  that reaches the term after it, written out term by term (:func:`expand_ellipsis`);
- the imaginary unit: where the problem or an earlier step makes ``i`` one ("imaginary",
  "i^2 = -1", "sqrt(-1)"), a relation in ``i`` is checked with ``i^2 = -1`` (:func:`imaginary_link`),
  never with ``i`` a real number.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from fractions import Fraction

MAX_TERMS = 2000

_NUM = r"\d+(?:,\d{3})*"
_GAP = r"\s*\$?\s*"
_REMAINDER = re.compile(
    rf"(?<![\w.^/])(?P<a>{_NUM}){_GAP}(?:\\div|÷|/|divided\s+by){_GAP}(?P<b>{_NUM}){_GAP}"
    rf"(?:=|is|equals|gives){_GAP}(?P<q>{_NUM}){_GAP},?\s*(?:with\s+)?(?:a\s+)?"
    rf"(?:remainder|rem\.?|R|r)(?:\s+of)?{_GAP}(?P<r>{_NUM})(?![\w.]\d)",
)


@dataclass(frozen=True)
class Remainder:
    """``a ÷ b = q remainder r`` and its verdict."""

    text: str
    holds: bool
    reason: str


def _int(s: str) -> int:
    return int(s.replace(",", ""))


def remainder_statements(step: str) -> list[Remainder]:
    """Every "a ÷ b = q remainder r" of a step, checked exactly: a = b·q + r and 0 ≤ r < b."""
    out = []
    for m in _REMAINDER.finditer(step):
        a, b, q, r = (_int(m.group(k)) for k in "abqr")
        text = f"{a} ÷ {b} = {q} remainder {r}"
        if b == 0:
            continue
        if a == b * q + r and 0 <= r < b:
            out.append(Remainder(text, True, f"{text} holds: {a} = {b}·{q} + {r}"))
        elif a != b * q + r:
            out.append(
                Remainder(
                    text,
                    False,
                    f"{text} is false: {b}·{q} + {r} = {b * q + r}, not {a} ({a} ÷ {b} = {a // b} remainder {a % b})",
                )
            )
        else:
            out.append(
                Remainder(
                    text,
                    False,
                    f"{text} is false: a remainder is less than {b} ({a} ÷ {b} = {a // b} remainder {a % b})",
                )
            )
    return out


def without_remainders(step: str) -> str:
    """The step with its remainder statements blanked out (their ``$`` kept, so inline math still pairs)."""
    return _REMAINDER.sub(lambda m: re.sub(r"[^$]", " ", m.group(0)), step)


# ---------------------------------------------------------------- finite sums and products with "…"
_DOTS = re.compile(r"\\[cl]?dots[bc]?|⋯|…|\.{3,}")
_INTEGER = re.compile(r"\d+")


def _enclosing(s: str, i: int) -> tuple[int, int]:
    """The bounds of the innermost bracket group around index ``i`` (the whole string if none)."""
    depth, start = 0, 0
    for j in range(i - 1, -1, -1):
        c = s[j]
        if c in ")]":
            depth += 1
        elif c in "([":
            if depth == 0:
                start = j + 1
                break
            depth -= 1
    depth, end = 0, len(s)
    for j in range(i, len(s)):
        c = s[j]
        if c in "([":
            depth += 1
        elif c in ")]":
            if depth == 0:
                end = j
                break
            depth -= 1
    return start, end


def _split_top(s: str, ops: str) -> list[str]:
    out, depth, cur = [], 0, []
    for c in s:
        if c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
        if depth == 0 and c in ops:
            out.append("".join(cur))
            cur = []
        else:
            cur.append(c)
    out.append("".join(cur))
    return out


def _pattern(before: list[str], last: str) -> list[str] | None:
    """Every term from ``before[0]`` to ``last``, when the terms differ only in integers that move
    by a constant step (or, for a bare number, by a constant ratio)."""
    skeleton = _INTEGER.sub("#", before[0].replace(" ", ""))
    if any(_INTEGER.sub("#", t.replace(" ", "")) != skeleton for t in before[1:] + [last]):
        return None
    rows = [[int(x) for x in _INTEGER.findall(t)] for t in before + [last]]
    if not rows[0]:
        return None
    steps = [rows[1][k] - rows[0][k] for k in range(len(rows[0]))]
    arithmetic = all(rows[j + 1][k] - rows[j][k] == steps[k] for j in range(len(before) - 1) for k in range(len(steps)))
    if arithmetic and any(steps):
        counts = {(rows[-1][k] - rows[0][k]) // steps[k] for k in range(len(steps)) if steps[k]}
        exact = all((rows[-1][k] - rows[0][k]) % steps[k] == 0 for k in range(len(steps)) if steps[k])
        same = all(rows[-1][k] == rows[0][k] for k in range(len(steps)) if not steps[k])
        if len(counts) != 1 or not exact or not same:
            return None
        m = counts.pop()
        if m < len(before) - 1 or m > MAX_TERMS:
            return None
        pieces = _INTEGER.split(before[0].replace(" ", ""))
        terms = []
        for j in range(m + 1):
            nums = [rows[0][k] + j * steps[k] for k in range(len(steps))]
            if any(x < 0 for x in nums):
                return None
            terms.append("".join(p + (str(nums[k]) if k < len(nums) else "") for k, p in enumerate(pieces)))
        return terms
    if len(rows[0]) == 1 and skeleton == "#" and len(before) >= 2 and rows[0][0] > 0:
        ratio = Fraction(rows[1][0], rows[0][0])
        if ratio.denominator != 1 or ratio <= 1:
            return None
        if any(Fraction(rows[j + 1][0], rows[j][0]) != ratio for j in range(len(before) - 1)):
            return None
        terms, x = [], rows[0][0]
        while x < rows[-1][0] and len(terms) <= MAX_TERMS:
            terms.append(x)
            x *= int(ratio)
        if x != rows[-1][0]:
            return None
        return [str(t) for t in terms + [x]]
    return None


_INDEX_NAMES = "jkqtuvw"  # the index of a sum read from "… + n": a letter the terms do not use


def _symbolic_pattern(before: list[str], last: str, op: str) -> str | None:
    """``1/1^2 + 2/2^2 + … + n/n^2``: terms that differ only in integers moving by a constant step,
    ending at a term with an expression in their place, as a Σ (``op`` "sum") or Π ("prod") over
    the step count (LaTeX); None when the last term does not fit the pattern."""
    if len(before) < 2:
        return None
    first = before[0].replace(" ", "")
    skeleton = _INTEGER.sub("#", first)
    if any(_INTEGER.sub("#", t.replace(" ", "")) != skeleton for t in before[1:]):
        return None
    rows = [[int(x) for x in _INTEGER.findall(t)] for t in before]
    if not rows[0]:
        return None
    steps = [rows[1][k] - rows[0][k] for k in range(len(rows[0]))]
    if not any(steps) or any(
        rows[j + 1][k] - rows[j][k] != steps[k] for j in range(len(before) - 1) for k in range(len(steps))
    ):
        return None
    pieces = _INTEGER.split(first)
    if any(steps[k] and re.search(r"_\{?$", pieces[k]) for k in range(len(steps))):
        return None  # x_1 + x_2 + … + x_n: indexed terms, a sum accord does not evaluate
    pattern = "".join(
        re.escape(p) + ((r"(.+?)" if steps[k] else str(rows[0][k])) if k < len(steps) else "")
        for k, p in enumerate(pieces)
    )
    var = next((v for v in _INDEX_NAMES if not re.search(rf"(?<![A-Za-z\\]){v}(?![A-Za-z])", first + last)), None)
    if var is None:
        return None
    start, step = next((rows[0][k], steps[k]) for k in range(len(steps)) if steps[k])
    body = "".join(
        p + ((f"({rows[0][k]} + {steps[k]}*{var})" if steps[k] else str(rows[0][k])) if k < len(steps) else "")
        for k, p in enumerate(pieces)
    )
    m = re.fullmatch(pattern, last.replace(" ", ""))
    if m is not None and len({(rows[0][k], steps[k]) for k in range(len(steps)) if steps[k]}) != 1:
        return None  # every moving integer runs over the same values to the same end
    if m is None:
        count = _solved_count(body, var, last)  # "1/(n+1) + … + 1/(2n)": where the body is the last term
        if count is None:
            return None
    else:
        ends = list(m.groups())
        if any(_INTEGER.fullmatch(e) for e in ends) or not all(re.fullmatch(r"[\w+\-*/^(){} ]+", e) for e in ends):
            return None  # a number at the end is the numeric pattern's case; anything else is not a bound
        if len(set(ends)) != 1:
            return None  # every moving integer runs to the same end
        count = f"(({ends[0]}) - {start})/{step}" if step != 1 else f"({ends[0]}) - {start}"
    return f"(\\{op}_{{{var}=0}}^{{{count}}} ({body}))"  # bracketed: a factor after it is not in the body


_SOLVE_AT = (5, 6, 7, 11)  # values of the other name at which the last term's index is found
_MAX_INDEX = 400


def _solved_count(body: str, var: str, last: str) -> str | None:
    """The index at which ``body`` is the last term, when the terms have one other name and that
    index is linear in it ("1/(n + (1 + 1*j))" is "1/(2n)" at j = n - 1): found exactly at a few
    values of the name, then fitted and checked at one more; None otherwise."""
    from accord.mathcheck.reading._evaluate import EvaluationError, exact  # here: the parser reads this module
    from accord.mathcheck.reading._parser import MathParseError, names, parse

    try:
        (tf, _), (tl, _) = parse(body), parse(last)
    except MathParseError:
        return None
    other = names(tl)
    if len(other) != 1 or var in other or var not in names(tf) or not names(tf) <= other | {var}:
        return None
    (x,) = other
    found = []
    for xv in _SOLVE_AT:
        try:
            target = exact(tl, {x: Fraction(xv)}.__getitem__)
            at = [{x: Fraction(xv), var: Fraction(j)} for j in range(_MAX_INDEX)]
            hits = [j for j in range(_MAX_INDEX) if exact(tf, at[j].__getitem__) == target]
        except (EvaluationError, ArithmeticError, ValueError, KeyError):
            return None
        if len(hits) != 1:
            return None
        found.append(hits[0])
    slope = Fraction(found[1] - found[0], _SOLVE_AT[1] - _SOLVE_AT[0])
    intercept = found[0] - slope * _SOLVE_AT[0]
    if slope.denominator != 1 or intercept.denominator != 1 or slope <= 0:
        return None
    if any(slope * xv + intercept != j for xv, j in zip(_SOLVE_AT, found)):
        return None
    return f"({slope}*{x} + ({intercept}))"


def _subtracted_run(seg: str) -> str | None:
    """ "a - t1 - t2 - … - tn": the terms after the first, all subtracted, as ``a - (t1 + … + tn)``
    when they follow a pattern; None otherwise (a leading minus sign is not a subtraction)."""
    terms = [t.strip() for t in _split_top(seg, "-")]
    at = [k for k, t in enumerate(terms) if t == "…"]
    if len(at) != 1 or not terms[0] or at[0] < 3 or at[0] + 1 >= len(terms) or not all(terms):
        return None
    k = at[0]
    run = expand_ellipsis(" + ".join(terms[1:k] + ["…"] + terms[k + 1 :]))
    if run is None:
        return None
    return f"({terms[0]} - ({run}))"


def expand_ellipsis(text: str) -> str | None:
    """``text`` with each "t1 + t2 + … + tn" (or a product with ``·``/``*``/``×``) written out (as a
    Σ or Π when the last term has a name in place of the moving integers: "1 + 2 + … + n"), or
    None when some ellipsis does not follow a pattern accord can read."""
    text = _DOTS.sub("…", text)
    if re.search(r"\)\s*…\s*\(", text):  # "(n+1)(n+2)…(2n)": a product of groups written side by side
        text = re.sub(r"\)\s*\(", ")*(", text)
    if re.search(r"[*·×]", text):  # "1 · 2 ⋯ 6": the dots stand between two factors
        text = re.sub(r"(?<=[\w)!])\s*…\s*(?=[\w(])", " * … * ", text)
    for _ in range(4):
        i = text.find("…")
        if i < 0:
            return text
        start, end = _enclosing(text, i)
        seg = text[start:end]
        expanded = None
        for ops in ("+", "*·×"):
            terms = _split_top(seg, ops)
            at = [k for k, t in enumerate(terms) if t.strip() == "…"]
            if not at or at[0] + 1 >= len(terms) or terms[at[0] + 1].strip() == "…":
                continue
            k = at[0]  # the first run; a later one ("(1/2)·…·(99/100)·(2/3)·…·(100/101)") is read next
            before, last = [t.strip() for t in terms[:k]], terms[k + 1].strip()
            for first in range(0, k - 1):
                run = _pattern(before[first:], last)
                if run is not None:
                    joined = ops[0] if ops == "+" else "*"
                    kept = [t.strip() for t in terms[:first]] + run + [t.strip() for t in terms[k + 2 :]]
                    expanded = "(" + f" {joined} ".join(kept) + ")"
                    break
            if expanded is not None:
                break
            if len(at) > 1:
                continue  # a bound with a name is read only where the dots stand once (it is costly to find)
            for first in range(0, k - 1):  # "1 + 2 + … + n": a sum up to a bound with a name in it
                big = _symbolic_pattern(before[first:], last, "sum" if ops == "+" else "prod")
                if big is not None:
                    joined = ops[0] if ops == "+" else "*"
                    kept = [t.strip() for t in terms[:first]] + [big] + [t.strip() for t in terms[k + 2 :]]
                    expanded = "(" + f" {joined} ".join(kept) + ")"
                    break
            if expanded is not None:
                break
        if expanded is None:
            expanded = _subtracted_run(seg)  # "4n - 4/(n+1) - 4/(n+2) - … - 4/(2n)"
        if expanded is None:
            return None
        text = text[:start] + expanded + text[end:]
    return None


# ---------------------------------------------------------------- the imaginary unit
_IMAGINARY = re.compile(r"imaginary|\bi\s*\^\s*\{?2\}?\s*=\s*-\s*1|sqrt\s*[({]?\s*-\s*1|√\s*\(?-1", re.IGNORECASE)


def makes_imaginary(question: str, steps: tuple[str, ...]) -> bool:
    """The problem or an earlier step makes ``i`` the imaginary unit."""
    return any(_IMAGINARY.search(t) for t in (question,) + tuple(steps))


def imaginary_link(rel: str, ta, tb) -> tuple[bool | None, str]:
    """``a REL b`` with ``i`` the imaginary unit (and any other name a complex variable): an identity
    in sympy, or a false closed equation; else not decided."""
    import sympy as sp

    from accord.mathcheck.reading._parser import to_text
    from accord.mathcheck.reading._sympy_text import to_sympy

    if rel not in ("=", "≠"):
        return None, "a relation between complex numbers: not checked"
    try:
        a, b = (to_sympy(t).subs(sp.Symbol("i"), sp.I) for t in (ta, tb))
        diff = sp.simplify(sp.expand(a - b))
    except Exception as exc:  # sympy raises many kinds on odd input
        return None, f"cannot evaluate it with i the imaginary unit ({type(exc).__name__})"
    zero = diff == 0
    if rel == "≠":
        zero = not zero
    if zero:
        return True, "holds with i the imaginary unit"
    if diff.free_symbols:
        return None, "an equation in complex numbers stating something (not an identity, not checked)"
    what = f"{to_text(ta)} {rel} {to_text(tb)}"
    if rel == "≠":
        return False, f"{what} is false with i the imaginary unit: both sides are {sp.nsimplify(a)}"
    return (
        False,
        f"{what} is false with i the imaginary unit: the left side is {sp.expand(a)}, the right side {sp.expand(b)}",
    )
