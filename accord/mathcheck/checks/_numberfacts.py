"""Facts about given whole numbers stated in prose, checked exactly.

"1980 is divisible by 100", "1977 is not divisible by 3", "p = 1991 is a prime number", "495 is a
multiple of 991", "7 divides 63", "17 and 19 are coprime", "45 is odd", "1993 is not a perfect
square", "... = 0, which is greater than 1/4", "becomes 144, which is a perfect square": a claim about numbers
written out, true or false whatever the solution is about. Only a number standing alone is read
(not the end of an expression: ``10^981 + 1 is ...``, ``divisible by 2^3``), and never in a
hypothesis or a question ("if 12 is divisible by 5", "check whether ...", "would be").
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from fractions import Fraction

import sympy

from accord.mathcheck.reading import HYPOTHETICAL

_MATH = re.compile(r"\$|\\\(|\\\)|\\\[|\\\]|\*\*|\\text\{|\\mathrm\{")
_NUM = r"(\d{1,40})(?![\d,]?\d)(?!\.\d)"
_NOT = r"(not\s+|n't\s+)?"
_FACTS = [
    ("divisible", re.compile(r"(?:is|are)\s+" + _NOT + r"(?:evenly\s+|exactly\s+)?divisible\s+by\s+" + _NUM, re.I)),
    ("divisible", re.compile(r"(?:is|are)\s+" + _NOT + r"(?:a|an)\s+(?:integer\s+)?multiple\s+of\s+" + _NUM, re.I)),
    ("divides", re.compile(r"(?:is|are)\s+" + _NOT + r"(?:a|an)\s+(?:factor|divisor)\s+of\s+" + _NUM, re.I)),
    ("divides", re.compile(r"(does\s+not\s+|doesn't\s+)?divides?\s+" + _NUM, re.I)),
    (
        "prime",
        re.compile(
            r"(?:is|are)\s+" + _NOT + r"(?:a\s+|an\s+)?(prime|composite|even|odd)\b(?!\s+(?:factor|divisor|power))",
            re.I,
        ),
    ),
    (
        "compare",
        re.compile(
            r"(?:which\s+)?is\s+" + _NOT + r"(greater|larger|bigger|more|less|smaller|fewer)\s+than\s+"
            r"(or\s+equal\s+to\s+)?(-?\d{1,40}(?:/\d{1,40}|\.\d+)?)(?![\d^*/+\-(])",
            re.I,
        ),
    ),
    ("coprime", re.compile(r"are\s+" + _NOT + r"(?:co-?prime|relatively\s+prime)\b", re.I)),
    (
        "power",
        re.compile(r"(?:is|are)\s+" + _NOT + r"(?:a\s+)?(perfect\s+square|perfect\s+cube|square\s+number)\b", re.I),
    ),
]
_SUBJECT = re.compile(r"(?:(?<![\w.])([A-Za-z](?:_\w+)?)\s*=\s*)?(?<![\w.^,])" + r"(\d{1,40})\s+$")
_PAIR = re.compile(r"(?<![\w.^,])(\d{1,40})\s+and\s+(\d{1,40})\s+$")
_OPERATOR = re.compile(r"[-+*/^·×=({\[|\\_!<>≤≥]\s*$")
_HYPOTHESIS = re.compile(r"\b(?:" + HYPOTHETICAL + r"|let|whenever|iff|only if)\b|\?", re.I)
_SENTENCE = re.compile(r"(?<=[.;!?])\s+|\n")
MAX_PRIME = 10**30


@dataclass(frozen=True)
class NumberFact:
    text: str
    holds: bool
    reason: str


def _subject(before: str, pair_wanted: bool) -> list[int] | None:
    """The whole number(s) the predicate is about, or None if the text before is an expression.
    "... = 0, which is greater than 1/4": the value a computation ends with is the subject."""
    before = re.sub(r"\bwhich\s*$", "", before)  # "becomes 144, which is a perfect square"
    end = re.search(r"=\s*(-?\d{1,40})\s*,\s*$", before)
    if end:
        return [int(end.group(1))]
    named = re.search(r"(?<![\w.^,])(\d{1,40})\s*,\s*$", before)
    if named and not _OPERATOR.search(before[: named.start()]):
        return [int(named.group(1))]
    pair = _PAIR.search(before) if pair_wanted else None
    if pair and not _OPERATOR.search(before[: pair.start()]):
        return [int(pair.group(1)), int(pair.group(2))]
    m = _SUBJECT.search(before)
    if not m:
        return None
    if _OPERATOR.search(before[: m.start()]) and not m.group(1):
        return None
    if m.group(1) and _OPERATOR.search(before[: m.start()]):
        return None
    return [int(m.group(2))]


def _judge(
    kind: str, negated: bool, word: str, subject: list[int], other, strict_not: bool = False
) -> tuple[bool, str] | None:
    if kind == "coprime":
        if len(subject) != 2:
            return None
        g = math.gcd(*subject)
        claim = g == 1
        why = f"gcd({subject[0]}, {subject[1]}) = {g}"
    elif len(subject) != 1:
        return None
    elif kind == "compare":
        a, b = Fraction(subject[0]), Fraction(other)
        bigger = word.lower() in ("greater", "larger", "bigger", "more")
        claim = (a > b or strict_not and a == b) if bigger else (a < b or strict_not and a == b)
        why = f"{a} {'>' if a > b else '<' if a < b else '='} {b}"
    elif kind == "power":
        power = 3 if "cube" in word.lower() else 2
        n = subject[0]
        if n < 0:
            return None
        root, claim = sympy.integer_nthroot(n, power)
        why = f"{n} = {root}^{power}" if claim else f"{root}^{power} < {n} < {root + 1}^{power}"
    elif kind in ("divisible", "divides"):
        n, d = (subject[0], other) if kind == "divisible" else (other, subject[0])
        if d == 0:
            return None
        claim = n % d == 0
        why = f"{n} = {n // d}·{d}" + (f" + {n % d}" if n % d else "")
    else:
        n = subject[0]
        word = word.lower()
        if word in ("even", "odd"):
            claim = (n % 2 == 0) == (word == "even")
            why = f"{n} = {n // 2}·2" + (" + 1" if n % 2 else "")
        else:
            if n > MAX_PRIME or n < 2 and word == "composite":
                return None
            prime = sympy.isprime(n)
            claim = prime if word == "prime" else (not prime and n > 1)
            f = sympy.factorint(n) if not prime and n > 1 else {}
            why = (
                f"{n} is prime"
                if prime
                else f"{n} = " + "·".join(f"{p}^{e}" if e > 1 else str(p) for p, e in sorted(f.items()))
                if f
                else f"{n} is not prime"
            )
    return claim != negated, why


def number_facts(step: str) -> list[NumberFact]:
    """Every fact about written-out whole numbers the step states, judged exactly."""
    out = []
    text = _MATH.sub("", step).replace("\\cdot", "·").replace("\\times", "×").replace("\\mid", "|")
    for sentence in _SENTENCE.split(text):
        for kind, pat in _FACTS:
            for m in pat.finditer(sentence):
                before = sentence[: m.start()]
                if _HYPOTHESIS.search(before):
                    continue
                subject = _subject(before, kind == "coprime")
                if subject is None:
                    continue
                groups = m.groups()
                negated = bool(groups[0])
                other = int(groups[1]) if kind in ("divisible", "divides") else None
                word = groups[1] if kind in ("prime", "compare", "power") else ""
                if kind == "compare":
                    other = Fraction(groups[3])
                if other is not None and re.match(r"\s*[-+*/^·×!(]|\s*\d", sentence[m.end() :]):
                    continue  # "divisible by 2^3", "a multiple of 3 + 1": an expression, not a number
                if m.group(0).lower().startswith("are") and len(subject) == 1:
                    continue  # "2, 4, 7 are even": a list, read only as a pair
                verdict = _judge(kind, negated, word, subject, other, kind == "compare" and bool(groups[2]))
                if verdict is None:
                    continue
                said = (
                    " and ".join(map(str, subject))
                    + (", " if m.group(0).startswith("which") else " ")
                    + m.group(0).strip()
                )
                holds, why = verdict
                out.append(NumberFact(said, holds, f"{said} is {'true' if holds else 'false'}: {why}"))
    return out
