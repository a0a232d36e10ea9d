"""Relations a step claims "for all n": checked on small cases of the domain the step names.

"n^5 ≡ n (mod 8) for any integer n", "a^5 ≡ a (mod 25) for all integers a", "50^n ≡ 1 (mod 27) for
all odd n", "2 ≡ 0 (mod n(n+1)) for all n" state something about every admissible value, so one
small case where the relation fails refutes the step. The quantifier must name every free name of
the relation and say nothing that restricts it further ("for all n not divisible by 5", "for all
n ≥ 2", "for all i in 1 to n" are left alone); its words give the domain: odd, even, prime, or
(integer, natural, positive, or no word) the positive integers. A counterexample is the evidence.
"""

from __future__ import annotations

import itertools
import random
import re
from fractions import Fraction

from accord.adapters.math.context import Facts
from accord.adapters.math.evaluate import EvaluationError, exact
from accord.adapters.math.identities import RandomPoint, free_names
from accord.adapters.math.precision import show

_KINDS = r"(?:(?:positive|natural|odd|even|prime|nonnegative|non-negative)\s+)*"
_NOUNS = r"(?:(?:integers?|natural\s+numbers?|numbers?|primes?|prime\s+numbers?|values?\s+of)\s+)?"
_ONE = _KINDS + _NOUNS + r"(?<!\w)([A-Za-z](?:_\w+)?)(?![\w(])"
_QUANTIFIER = re.compile(r"\bfor\s+(?:all|any|every|each)\s+(" + _ONE + r"(?:\s*(?:,|and)\s*" + _ONE + r")*)",
                         re.IGNORECASE)
_PART = re.compile(r"(" + _KINDS + _NOUNS + r")(?<!\w)([A-Za-z](?:_\w+)?)(?![\w(])", re.IGNORECASE)
# words after the names that restrict the domain further: the claim is then left alone
_RESTRICTED = re.compile(
    r"^\s*(?:not\b|such\b|with\b|where\b|satisfying\b|that\b|which\b|in\b|from\b|between\b|greater\b|less\b|"
    r"larger\b|smaller\b|at\b|up\b|dividing\b|divisible\b|coprime\b|relatively\b|except\b|other\b|[<>≤≥≠=|∣]|"
    r"\\(?:ge|le|geq|leq|ne|neq|nmid|mid|in)\b)", re.IGNORECASE)
_MATH = re.compile(r"\$|\\\(|\\\)")
N_SMALL = 12
_PRIMES = [2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37]


def quantified(step: str) -> dict[str, str]:
    """The names the step quantifies over ("for all odd n": {"n": "odd"}), each with its domain."""
    text = _MATH.sub("", step)
    out: dict[str, str] = {}
    for m in _QUANTIFIER.finditer(text):
        if _RESTRICTED.match(text[m.end():]):
            continue
        for part in _PART.finditer(m.group(1)):
            words, name = part.group(1).lower(), part.group(2)
            kind = next((k for k in ("odd", "even", "prime") if k in words), "positive")
            out[name] = kind
    return out


def _values(kind: str, n: int) -> list[int]:
    if kind == "prime":
        return _PRIMES[:n]
    if kind == "odd":
        return [2 * i + 1 for i in range(n)]
    if kind == "even":
        return [2 * i + 2 for i in range(n)]
    return list(range(1, n + 1))


def universal_check(rel: str, ta, tb, modulus_tree, facts: Facts, domains: dict[str, str]):
    """``(holds, reason)`` for ``ta REL tb`` claimed for every value of the quantified names, or None
    when the claim is not one: a free name (or function) the quantifier does not name, or none."""
    trees = [ta, tb] + ([modulus_tree] if modulus_tree is not None else [])
    free = set().union(*(free_names(t, facts) for t in trees))
    if not free or not free <= set(domains):
        return None
    names = sorted(free)
    per_name = max(2, int(300 ** (1 / len(names)))) if len(names) > 1 else N_SMALL
    tried = 0
    for combo in itertools.product(*(_values(domains[x], min(per_name, N_SMALL)) for x in names)):
        point = {x: Fraction(v) for x, v in zip(names, combo)}
        look = RandomPoint(facts, random.Random(0), False, point)
        try:
            a, b = exact(ta, look), exact(tb, look)
            m = exact(modulus_tree, look) if modulus_tree is not None else None
        except (EvaluationError, ArithmeticError, ValueError):
            continue
        if m is not None and (m == 0 or m.denominator != 1 or a.denominator != 1 or b.denominator != 1):
            continue
        tried += 1
        if (a - b) % m if m is not None else a != b:
            at = ", ".join(f"{x} = {v}" for x, v in zip(names, combo))
            shown = f"{show(a)} ≢ {show(b)} (mod {show(m)})" if m is not None else f"the left side is {show(a)}, the right side {show(b)}"
            what = ", ".join(f"{domains[x]} {x}" if domains[x] != "positive" else x for x in names)
            return False, f"claimed for all {what}, it fails at {at}: {shown}"
    if tried < 3:
        return None
    return True, f"holds at the {tried} smallest cases"
