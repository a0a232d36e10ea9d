"""Answer equivalence for juries: normalised text, and math-verify for mathematical answers.

Both are plain ``equivalent(x, y) -> bool`` functions for :func:`accord.consensus_core.jury.run_jury`.
``math_equivalent`` first compares normalised text, then asks math-verify whether the parsed
answers are equal (so ``\\boxed{\\frac12}``, ``0.5`` and ``1/2`` are one class); an answer that
math-verify cannot parse is compared as text only.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from typing import Callable

_SPACE = re.compile(r"\s+")
_TRAILING = re.compile(r"[\s.;:!]+$")
_MATHY = re.compile(r"^[\d\s\\{}()\[\]^_+\-*/=.,a-zA-Z|<>]*$")


def normalize_text(answer: str) -> str:
    """Unicode NFKC, case folded, white space collapsed, trailing punctuation and $ dropped."""
    t = unicodedata.normalize("NFKC", answer).strip().strip("$").strip()
    t = _TRAILING.sub("", t)
    return _SPACE.sub(" ", t).casefold()


def text_equivalent(x: str, y: str) -> bool:
    return normalize_text(x) == normalize_text(y)


@functools.lru_cache(maxsize=65536)
def _parse(answer: str) -> tuple:
    from math_verify import parse

    try:
        got = []
        if "$" not in answer and _MATHY.match(answer) and re.search(r"[\d\\]", answer):
            got = parse(f"${answer}$")  # bare LaTeX / numbers: read the whole string as math
        if not got:
            got = parse(answer)
    except Exception:  # math-verify raises on some malformed LaTeX; treat as unparseable
        return ()
    return tuple(got)


_BOXED = re.compile(r"^\\boxed\{(.*)\}$")


def plain_number(answer: str) -> float | None:
    """The value of an answer that is just a number (optionally in $...$ or \\boxed{}), else None."""
    t = answer.strip().strip("$").strip()
    m = _BOXED.match(t)
    if m:
        t = m.group(1).strip()
    try:
        return float(t.replace(",", "")) if re.fullmatch(r"[-+]?[\d,]*\.?\d+(e[-+]?\d+)?", t) else None
    except ValueError:
        return None


def math_equivalent(x: str, y: str) -> bool:
    """Text-equal, or mathematically equal as judged by math-verify (plain numbers compared directly)."""
    if text_equivalent(x, y):
        return True
    nx, ny = plain_number(x), plain_number(y)
    if nx is not None and ny is not None:
        return abs(nx - ny) <= 1e-9 * max(1.0, abs(nx), abs(ny))
    px, py = _parse(x.strip()), _parse(y.strip())
    if not px or not py:
        return False
    from math_verify import verify

    try:
        return bool(verify(list(px), list(py)))
    except Exception:
        return False


EQUIVALENCES: dict[str, Callable[[str, str], bool]] = {"text": text_equivalent, "math": math_equivalent}


def get_equivalence(name: str) -> Callable[[str, str], bool]:
    if name not in EQUIVALENCES:
        raise ValueError(f"unknown answer equivalence {name!r}; choose one of {', '.join(sorted(EQUIVALENCES))}")
    return EQUIVALENCES[name]
