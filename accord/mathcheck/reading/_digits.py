"""Numbers spelt by their digits (``abcd``, ``aabb``, ``abc0``) where a solution speaks of digits.

Read as a product of names such a formula would be a claim accord made up; it is neither checked
nor kept as an equation later steps are compared with.
"""

from __future__ import annotations

import re

_DIGIT_STRING = re.compile(r"(?<![A-Za-z0-9_\\.^¿])(?=[a-z][a-z0-9]*[a-z])[a-z][a-z0-9]{2,}(?![A-Za-z0-9_(])")
_WORDS = frozenset(
    {
        "sqrt",
        "sin",
        "cos",
        "tan",
        "log",
        "exp",
        "mod",
        "gcd",
        "lcm",
        "binom",
        "floor",
        "ceil",
        "max",
        "min",
        "frac",
        "cdot",
        "times",
        "pmod",
        "bmod",
        "choose",
        "and",
        "for",
        "the",
    }
)


def digit_string(text: str) -> bool:
    """``abcd``, ``aabb``, ``abc0`` where the solution speaks of digits: a numeral
    spelt by its digits; read as a product of names it would be a false claim accord made up."""
    return any(m.group(0) not in _WORDS for m in _DIGIT_STRING.finditer(text))
