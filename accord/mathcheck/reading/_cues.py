"""Words around a formula that change what it claims.

- moduli a step mentions ("mod 11", "modulo 8", "(mod 7)"): there ``=`` often means congruent
  (``5 + 5 = 10 = 2 modulo 8``), so an equation that holds modulo one of them is not an error;
- a contradiction spoken of in the step or the next one ("This is impossible", "a contradiction"):
  a false equation derived on purpose is not an error;
- an assumption or definition ("let", "suppose", "denote"): a formula there is supposed, not derived;
- a lead-in ("We can write this as", "Expanding, we get:"): its claim is the formula on the next line;
- a known inequality cited ("By AM-GM, we have:", "applying this inequality"): the inequality stated
  is an instance of a theorem, so it must hold wherever the problem's names may be.
"""

from __future__ import annotations

import re

from accord.mathcheck.reading._vocabulary import CITED_INEQUALITY, CONTRADICTION, LEAD_IN_END, LET

_MODULI = re.compile(r"(?:\b(?:mod(?:ulo)?|pmod|bmod)\b|\\pmod)\s*[{(]?\s*(\d+)", re.IGNORECASE)
_CONTRADICTION = re.compile(CONTRADICTION, re.IGNORECASE)


_ASSUMING = re.compile(r"\b(?:" + LET + r"|suppose|assume|assuming|define|denote|substitut\w*)\b", re.IGNORECASE)


_CITED_INEQUALITY = re.compile(r"\b(?:" + CITED_INEQUALITY + ")", re.IGNORECASE)


def moduli_in(text: str) -> frozenset[int]:
    """Moduli a step mentions ("mod 11", "modulo 8", "(mod 7)"): there '=' may mean congruent."""
    return frozenset(int(m) for m in _MODULI.findall(text) if 1 < int(m) < 10**12)


def speaks_of_contradiction(text: str) -> bool:
    return bool(_CONTRADICTION.search(text))


def assumes(text: str) -> bool:
    return bool(_ASSUMING.search(text))


def cites_inequality(step: str, lead_in: str = "") -> bool:
    """The step, or its lead-in line, cites a known inequality for what it states."""
    return bool(_CITED_INEQUALITY.search(f"{lead_in}\n{step}"))


_CONTINUED = re.compile(r"\b(?:" + LEAD_IN_END + r")\s*$", re.IGNORECASE)


def is_lead_in(step: str) -> bool:
    """ "We can simplify the expression as follows:", "We can write this as" — its claim is the
    formula on the next line."""
    text = step.rstrip()
    return text.endswith(":") or bool(_CONTINUED.search(text))
