"""The shape of one derivation line, as text (no sympy here).

A line is one of:

- ``given: EQUATION`` (or ``assume:``) — a premise; later steps may follow from it;
- ``let NAME = EXPR`` (or ``NAME := EXPR``) — a definition, substituted into every later step;
- ``unknowns: x, y, z`` — later steps may be checked by solving the premises for these symbols;
- a claim: an equality chain ``a = b = c``, an implication ``P => Q`` (``⇒``, ``==>``, ``implies``),
  or ``=> Q`` which claims that Q follows from the lines before it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

_IMPLIES = re.compile(r"\s*(?:==>|=>|⟹|⇒|\\implies|\\Rightarrow|\bimplies\b|\btherefore\b|∴)\s*")
_PREMISE = re.compile(r"^(?:given|assume|premise|suppose)\s*[:,]?\s+(.*)$", re.IGNORECASE)
_DEFINE_LET = re.compile(r"^(?:let|define|def)\s+([A-Za-z_\u0370-\u03ff][\w]*)\s*(?::=|=)\s*(.+)$", re.IGNORECASE)
_DEFINE_COLON = re.compile(r"^([A-Za-z_\u0370-\u03ff][\w]*)\s*:=\s*(.+)$")
_UNKNOWNS = re.compile(r"^(?:unknowns?\s*:|solve\s+for\b:?)\s*(.*)$", re.IGNORECASE)
_LIST_MARK = re.compile(r"^(?:[-*+]\s+|\d+[.)]\s+|>\s*)")
_RELATION = re.compile(r"(?<![<>!=])==?(?![=>])")


@dataclass(frozen=True)
class Line:
    """One classified line: ``kind`` is premise, definition, unknowns or claim."""

    kind: str
    text: str
    sides: tuple[str, ...] = ()  # for premise and claim: the chain's sides (len >= 2 for an equation)
    premise: tuple[str, ...] = ()  # for an inline "P => Q": the sides of P
    follows: bool = False  # the claim starts with "=>": it must follow from what came before
    name: str | None = None  # definition name
    names: tuple[str, ...] = field(default=())  # unknowns


def clean(text: str) -> str:
    """Strip Markdown list marks, inline code/math quoting and a trailing full stop."""
    s = text.strip()
    s = _LIST_MARK.sub("", s, count=1).strip()
    s = s.strip("`").strip()
    if s.startswith("$$") and s.endswith("$$"):
        s = s[2:-2]
    elif s.startswith("$") and s.endswith("$") and len(s) > 1:
        s = s[1:-1]
    return s.strip().rstrip(".;").strip()


def split_chain(text: str) -> tuple[str, ...]:
    """``a = b = c`` -> ('a', 'b', 'c'); ``==`` counts as ``=``; ``<=``/``>=``/``!=`` do not split."""
    return tuple(p.strip() for p in _RELATION.split(text))


def classify(text: str) -> Line:
    s = clean(text)
    m = _PREMISE.match(s)
    if m:
        return Line("premise", s, sides=split_chain(m.group(1).rstrip(".;")))
    m = _UNKNOWNS.match(s)
    if m:
        names = tuple(n for n in re.split(r"[\s,]+", m.group(1).strip()) if n)
        return Line("unknowns", s, names=names)
    m = _DEFINE_LET.match(s) or _DEFINE_COLON.match(s)
    if m:
        return Line("definition", s, sides=(m.group(1), m.group(2).strip()), name=m.group(1))
    parts = [p for p in _IMPLIES.split(s)]
    follows = False
    premise: tuple[str, ...] = ()
    if len(parts) > 1:
        if parts[0].strip() == "":
            follows = True
        else:
            premise = split_chain(parts[-2])
        body = parts[-1]
    else:
        body = s
    return Line("claim", s, sides=split_chain(body), premise=premise, follows=follows)


def is_equation(sides: tuple[str, ...]) -> bool:
    return len(sides) >= 2 and all(sides)
