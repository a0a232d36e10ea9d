"""Claims in words about a sequence the problem defines, compared with the terms its definition gives.

"The sequence is increasing", "x_n is strictly decreasing", "a_n repeats every 6 terms", "the
sequence is periodic with period 3", "a_n is always greater than 1", "x_n > 0 for all n": the
terms from the first given index on (:data:`N_TERMS` of them, or three periods) are computed by
:mod:`accord.mathcheck.checks._sequences`, and the claim is false with the first index where it fails.
The subject is a defined letter with the index name (``a_n``), or "the sequence" when the problem
defines one. A step that supposes, asks or sets a goal ("if", "prove", "we need") is left alone,
and so is a claim whose terms are not all computable.
"""

from __future__ import annotations

import re
from fractions import Fraction

from accord.mathcheck.checks._sequences import Claim, sequences_of
from accord.mathcheck.reading import HEDGING, HYPOTHETICAL, EvaluationError, Unknown, show

N_TERMS = 12
_SUBJECT = r"(?:the\s+sequence(?:\s+\$?\(?\{?(?P<s>[A-Za-z])_?\{?n\}?\)?\}?\$?)?|\$?\(?(?P<l>[A-Za-z])_\{?n\}?\)?\$?)"
_MONOTONE = re.compile(
    _SUBJECT + r"\s+(?:is|are)\s+(?:always\s+)?(?P<strict>strictly\s+)?"
    r"(?P<way>increasing|decreasing|non-?decreasing|non-?increasing)\b",
    re.IGNORECASE,
)
_PERIOD = re.compile(
    _SUBJECT + r"\s+(?:repeats|is\s+periodic)\s+(?:every|with\s+(?:a\s+)?period(?:\s+of)?)\s+"
    r"\$?(?P<p>\d+)\$?",
    re.IGNORECASE,
)
_BOUND = re.compile(
    _SUBJECT + r"\s+is\s+always\s+(?P<rel>greater\s+than|less\s+than|positive|negative|at\s+least|"
    r"at\s+most)\s*\$?(?P<k>-?\d+(?:/\d+)?)?\$?",
    re.IGNORECASE,
)
_HEDGE = re.compile(r"\b(?:" + HYPOTHETICAL + "|" + HEDGING + r"|prove|show)\b|\?", re.IGNORECASE)
_RELATIONS = {"greater than": ">", "less than": "<", "positive": ">", "negative": "<", "at least": "≥", "at most": "≤"}


def _letter(m: re.Match, seqs: dict) -> str | None:
    letter = m.group("s") or m.group("l")
    if letter is None:
        return next(iter(seqs)) if len(seqs) == 1 else None
    return letter if letter in seqs else None


def _terms(seq, count: int) -> list[tuple[int, Fraction]] | None:
    start = min(seq.given) if seq.given else 0
    try:
        return [(i, seq.term(i)) for i in range(start, start + count)]
    except (Unknown, EvaluationError, ArithmeticError, ValueError, RecursionError):
        return None


def word_claims(question: str, step: str) -> list[Claim]:
    """The step's claims in words about a sequence the problem defines, checked (see the module docstring)."""
    if _HEDGE.search(step):
        return []
    seqs = sequences_of(question)
    if not seqs:
        return []
    out = []
    for m in _MONOTONE.finditer(step):
        letter = _letter(m, seqs)
        terms = _terms(seqs[letter], N_TERMS) if letter else None
        if not terms:
            continue
        way, strict = m.group("way").lower().replace("-", ""), bool(m.group("strict"))
        up = way in ("increasing", "nondecreasing")
        bad = next(
            (
                (i, a, j, b)
                for (i, a), (j, b) in zip(terms, terms[1:])
                if (b < a if up else b > a) or (strict and a == b)
            ),
            None,
        )
        text = m.group(0).strip()
        if bad is None:
            out.append(Claim(text, True, f"{text}: holds for the first {len(terms)} terms by the problem's definition"))
        else:
            i, a, j, b = bad
            out.append(
                Claim(
                    text,
                    False,
                    f"{text} is false for the problem's sequence: {letter}_{i} = {show(a)}, {letter}_{j} = {show(b)}",
                )
            )
    for m in _PERIOD.finditer(step):
        letter, p = _letter(m, seqs), int(m.group("p"))
        terms = _terms(seqs[letter], 3 * p + 1) if letter and 0 < p <= 100 else None
        if not terms:
            continue
        text = m.group(0).strip()
        bad = next(((i, a, terms[k + p][1]) for k, (i, a) in enumerate(terms[:-p]) if terms[k + p][1] != a), None)
        if bad is None:
            out.append(Claim(text, True, f"{text}: holds for the first {len(terms)} terms by the problem's definition"))
        else:
            i, a, b = bad
            out.append(
                Claim(
                    text,
                    False,
                    f"{text} is false for the problem's sequence: {letter}_{i} = {show(a)}, "
                    f"{letter}_{i + p} = {show(b)}",
                )
            )
    for m in _BOUND.finditer(step):
        letter = _letter(m, seqs)
        rel = _RELATIONS[re.sub(r"\s+", " ", m.group("rel").lower())]
        k = (
            Fraction(m.group("k"))
            if m.group("k")
            else Fraction(0)
            if m.group("rel").lower() in ("positive", "negative")
            else None
        )
        terms = _terms(seqs[letter], N_TERMS) if letter and k is not None else None
        if not terms:
            continue
        ok = {">": lambda v: v > k, "<": lambda v: v < k, "≥": lambda v: v >= k, "≤": lambda v: v <= k}[rel]
        text = m.group(0).strip()
        bad = next(((i, v) for i, v in terms if not ok(v)), None)
        if bad is None:
            out.append(Claim(text, True, f"{text}: holds for the first {len(terms)} terms by the problem's definition"))
        else:
            out.append(
                Claim(text, False, f"{text} is false for the problem's sequence: {letter}_{bad[0]} = {show(bad[1])}")
            )
    return out
