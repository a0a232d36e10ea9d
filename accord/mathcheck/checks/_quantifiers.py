"""Relations a step claims "for all n": checked on small cases of the domain the step names.

"n^5 ≡ n (mod 8) for any integer n", "a^5 ≡ a (mod 25) for all integers a", "50^n ≡ 1 (mod 27) for
all odd n", "2 ≡ 0 (mod n(n+1)) for all n" state something about every admissible value, so one
small case where the relation fails refutes the step. The quantifier must name every free name of
the relation and say nothing that restricts it further ("for all n not divisible by 5", "for all
n ≥ 2", "for all i in 1 to n" are left alone); its words give the domain: odd, even, prime, or
(integer, natural, positive, or no word) the positive integers. A counterexample is the evidence.

A divisibility or parity claim with neither "always" nor a quantifier ("2^x must be a multiple of
3") is about particular values the solution has in mind: it is decided only when every integer
gives the same answer over a whole period (:func:`whatever_the_value`); otherwise what the solution
knows of the names decides, and it is left alone.
"""

from __future__ import annotations

import itertools
import random
import re
from dataclasses import dataclass
from fractions import Fraction

from accord.mathcheck.reading import EvaluationError, children, exact, names, show
from accord.mathcheck.state import Facts, RandomPoint, free_names

_KINDS = r"(?:(?:positive|natural|odd|even|prime|nonnegative|non-negative)\s+)*"
_NOUNS = r"(?:(?:integers?|natural\s+numbers?|numbers?|primes?|prime\s+numbers?|values?\s+of)\s+)?"
_ONE = _KINDS + _NOUNS + r"(?<!\w)([A-Za-z](?:_\w+)?)(?![\w(])"
_QUANTIFIER = re.compile(
    r"\bfor\s+(?:all|any|every|each)\s+(" + _ONE + r"(?:\s*(?:,|and)\s*" + _ONE + r")*)", re.IGNORECASE
)
_PART = re.compile(r"(" + _KINDS + _NOUNS + r")(?<!\w)([A-Za-z](?:_\w+)?)(?![\w(])", re.IGNORECASE)
# words after the names that restrict the domain further: the claim is then left alone
_RESTRICTED = re.compile(
    r"^\s*(?:not\b|such\b|with\b|where\b|satisfying\b|that\b|which\b|in\b|from\b|between\b|greater\b|less\b|"
    r"larger\b|smaller\b|at\b|up\b|dividing\b|divisible\b|coprime\b|relatively\b|except\b|other\b|[<>≤≥≠=|∣]|"
    r"\\(?:ge|le|geq|leq|ne|neq|nmid|mid|in)\b)",
    re.IGNORECASE,
)
_MATH = re.compile(r"\$|\\\(|\\\)")
N_SMALL = 12
# "for all n ≥ 3" (and nothing more restrictive after it): the integers from a lower bound on
_LOWER_BOUND = re.compile(
    r"\s*(≥|>=|\\geq?|\\gt|>)\s*(-?\d{1,4})(?![\w(^*/+\-]|\.\d)(?!\s*(?:and|or|with|except|but)\b|\s*[+\-*/^<>≤≥=])"
)
_PRIMES = [2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37]


def quantified(step: str) -> dict[str, str]:
    """The names the step quantifies over ("for all odd n": {"n": "odd"}), each with its domain."""
    text = _MATH.sub("", step)
    out: dict[str, str] = {}
    for m in _QUANTIFIER.finditer(text):
        parts = list(_PART.finditer(m.group(1)))
        bound = _LOWER_BOUND.match(text[m.end() :])
        if bound and len(parts) == 1 and not re.search(r"odd|even|prime", parts[0].group(1), re.IGNORECASE):
            start = int(bound.group(2)) + (bound.group(1) in (">", "\\gt"))
            out[parts[0].group(2)] = f"≥{start}"  # "for all n ≥ 3": the integers from 3 on
            continue
        if _RESTRICTED.match(text[m.end() :]):
            continue
        for part in parts:
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
    if kind.startswith("≥"):
        return list(range(int(kind[1:]), int(kind[1:]) + n))
    return list(range(1, n + 1))


def _small_cases(names: list[str], domains: dict[str, str], facts: Facts):
    """(combo, evaluation point) for the smallest cases of each quantified name's domain, up to
    about 300 cases in all."""
    per_name = max(2, int(300 ** (1 / len(names)))) if len(names) > 1 else N_SMALL
    for combo in itertools.product(*(_values(domains[x], min(per_name, N_SMALL)) for x in names)):
        point = {x: Fraction(v) for x, v in zip(names, combo)}
        yield combo, RandomPoint(facts, random.Random(0), False, point)


def _domain_text(kind: str, name: str) -> str:
    """How a quantified name is shown in the evidence: "n", "odd n", "n ≥ 3"."""
    if kind == "positive":
        return name
    return f"{name} {kind[0]} {kind[1:]}" if kind.startswith("≥") else f"{kind} {name}"


_ORDER = {"<": lambda a, b: a < b, "≤": lambda a, b: a <= b, ">": lambda a, b: a > b, "≥": lambda a, b: a >= b}


def universal_check(rel: str, ta, tb, modulus_tree, facts: Facts, domains: dict[str, str]):
    """``(holds, reason)`` for ``ta REL tb`` claimed for every value of the quantified names, or None
    when the claim is not one: a free name (or function) the quantifier does not name, or none."""
    trees = [ta, tb] + ([modulus_tree] if modulus_tree is not None else [])
    free = set().union(*(free_names(t, facts) for t in trees))
    if not free or not free <= set(domains):
        return None
    names = sorted(free)
    tried = 0
    for combo, look in _small_cases(names, domains, facts):
        try:
            a, b = exact(ta, look), exact(tb, look)
            m = exact(modulus_tree, look) if modulus_tree is not None else None
        except (EvaluationError, ArithmeticError, ValueError):
            continue
        if m is not None and (m == 0 or m.denominator != 1 or a.denominator != 1 or b.denominator != 1):
            continue
        tried += 1
        if (a - b) % m if m is not None else not _ORDER.get(rel, lambda x, y: x == y)(a, b):
            at = ", ".join(f"{x} = {v}" for x, v in zip(names, combo))
            shown = (
                f"{show(a)} ≢ {show(b)} (mod {show(m)})"
                if m is not None
                else f"the left side is {show(a)}, the right side {show(b)}"
                + (f" ({show(a)} {rel} {show(b)} is false)" if rel in _ORDER else "")
            )
            what = ", ".join(_domain_text(domains[x], x) for x in names)
            return False, f"claimed for all {what}, it fails at {at}: {shown}"
    if tried < 3:
        return None
    return True, f"holds at the {tried} smallest cases"


_PREDICATE = re.compile(
    r"\b(?:is|must\s+be|has\s+to\s+be)\s+(always\s+)?(?:(even|odd|(?:an?\s+)?prime(?:\s+number)?)\b|(?:divisible\s+by|an?\s+multiple\s+of)\s+(\d{1,6})(?![\d^*/+\-(])|"
    r"(?:congruent\s+to\s+)?(\d{1,6})\s+(?:mod(?:ulo)?|\(mod)\s+(\d{1,6})(?![\d^*/+\-(]))",
    re.IGNORECASE,
)
# the formula a predicate is about: single letters, digits and operators, read backwards from it
_SUBJECT = re.compile(r"(?:(?<![A-Za-z\\])[A-Za-z](?![A-Za-z])|\d|[\^*+\-/()·×{}_ ]|\\cdot)+$")
_HEDGED = re.compile(
    r"\b(?:if|when|whenever|where|suppose|assume|let|whether|case|odd|even|prime|divisible|"
    r"multiple|need|want|would|must|should|not)\b|\?",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class Always:
    """ "n^2 is always even": the formula, the residue and modulus it claims, the names' domains."""

    text: str
    subject: str
    residue: int
    modulus: int
    domains: dict
    prime: bool = False  # "is a prime number for every n": residue and modulus are unused
    plain: bool = False  # neither "always" nor "for all": decided only when every integer agrees


def _formula_before(before: str) -> tuple[str, int] | None:
    """The formula a predicate is about, read backwards from it, and where it starts; None when it
    is no formula with a name in it (a bare name, "n is even", depends on what the solution says of n)."""
    sub = _SUBJECT.search(before)
    if not sub:
        return None
    subject = sub.group(0).strip()
    while subject.count("(") > subject.count(")"):
        subject = subject[1:].lstrip()
    if not re.search(r"[A-Za-z]", subject) or not re.search(r"[\^*+\-/·×\d]", subject):
        return None
    return subject, sub.start()


def always_claims(step: str) -> list[Always]:
    """Divisibility and parity claims about a formula for every value of its names: "n^2 is always
    even", "32k^2 + 32k + 9 is always odd", "n^5 - n is divisible by 5 for any integer n". The
    sentence must not hedge or restrict before the claim ("if", "since n is odd", "must")."""
    out = []
    text = _MATH.sub("", step).replace("\\cdot", "·")
    for sentence in re.split(r"(?<=[.;!?])\s+|\n|,\s+(?:and|so|while|but)\s+", text):
        for m in _PREDICATE.finditer(sentence):
            before = sentence[: m.start()].rstrip()
            found = _formula_before(before)
            if found is None or _HEDGED.search(before[: found[1]].rsplit("(", 1)[-1]):
                continue
            subject = found[0]
            domains = quantified(sentence[m.end() :])
            plain = not m.group(1) and not domains  # "2^x is a multiple of 3": about the names' values
            parity, mult, res, mod = m.group(2), m.group(3), m.group(4), m.group(5)
            if parity and "prime" in parity.lower():
                if not plain:
                    out.append(Always(f"{subject} {m.group(0).strip()}", subject, 0, 0, domains, prime=True))
                continue
            if parity:
                residue, modulus = int(parity.lower() == "odd"), 2
            elif mult:
                residue, modulus = 0, int(mult)
            else:
                residue, modulus = int(res), int(mod)
            if modulus < 2:
                continue
            out.append(Always(f"{subject} {m.group(0).strip()}", subject, residue, modulus, domains, plain=plain))
    return out


def whatever_the_value(tree, residue: int, modulus: int, facts: Facts):
    """``(holds, reason)`` for "TREE ≡ RESIDUE (mod MODULUS)" said of particular integer values of
    its names, when the answer is the same at every integer: each name over 0 … 2·modulus + 12
    (a whole period of a sum of powers and polynomials modulo the modulus, at most 400 cases in
    all); None when it depends on the values (what the solution says of them decides) or too few
    cases have an integer value."""
    free = sorted(free_names(tree, facts))
    if not free or len(free) > 2 or modulus > 100:
        return None
    top = 2 * modulus + 12
    values = range(0, top + 1) if len(free) == 1 else range(0, min(top, 19) + 1)
    if len(free) == 2 and top > 19:
        return None  # two names and a modulus too large to cover both periods: not decided here
    seen, tried, example = set(), 0, None
    for combo in itertools.product(values, repeat=len(free)):
        point = {x: Fraction(v) for x, v in zip(free, combo)}
        try:
            v = exact(tree, RandomPoint(facts, random.Random(0), False, point))
        except (EvaluationError, ArithmeticError, ValueError):
            continue
        if v.denominator != 1:
            continue
        tried += 1
        holds = v.numerator % modulus == residue % modulus
        seen.add(holds)
        if len(seen) > 1:
            return None
        if example is None:
            example = (combo, v)
    if tried < 6:
        return None
    names = ", ".join(free)
    span = f"{names} = 0 … {values[-1]}"
    if seen == {True}:
        return True, f"holds whatever the integer value of {names} ({span})"
    combo, v = example
    at = ", ".join(f"{x} = {c}" for x, c in zip(free, combo))
    return False, (
        f"false whatever the integer value of {names}: at {span} it never holds (at {at} the value is "
        f"{show(v)}, {show(v % modulus)} mod {modulus})"
    )


def prime_check(tree, facts: Facts, domains: dict[str, str]):
    """``(holds, reason)`` for "TREE is a prime number" claimed for every value of its names (the
    smallest cases of each name's domain), or None when a name is not quantified or too few cases
    have an integer value."""
    from sympy import isprime

    free = free_names(tree, facts)
    if not free or not free <= set(domains):
        return None
    names = sorted(free)
    tried = 0
    for combo, look in _small_cases(names, domains, facts):
        try:
            v = exact(tree, look)
        except (EvaluationError, ArithmeticError, ValueError):
            continue
        if v.denominator != 1 or v.numerator.bit_length() > 256:
            continue
        tried += 1
        if not isprime(v.numerator):
            at = ", ".join(f"{x} = {c}" for x, c in zip(names, combo))
            return False, f"claimed prime for all {', '.join(names)}, it fails at {at}: the value is {show(v)}"
    if tried < 3:
        return None
    return True, f"prime at the {tried} smallest cases"


_LIST = (
    r"(-?\d{1,6}(?:\s*(?:,\s*(?:and\s+|or\s+)?|\s+or\s+|\s+and\s+)-?\d{1,6})*)"
    r"(?![\d^*/+(])(?!\s*(?:mod|\(mod|modulo)\b)"
)
_FORMULA = r"((?:(?<![A-Za-z\\])[A-Za-z](?![A-Za-z])|[0-9^*+\-()·×{}_ ])+?)"
_MOD = r"\s*\(?\s*(?:mod(?:ulo)?|\\mod|\\pmod|\\bmod)\s*\{?\s*(\d{1,4})\s*\}?\s*\)?"
_RESIDUE_SETS = [
    re.compile(
        r"(?<![\w^])"
        + _FORMULA
        + _MOD
        + r"\s*(?:can\s+(?:only\s+)?(?:take\s+(?:on\s+)?(?:the\s+)?values?\s+(?:of\s+)?|be\s+"
        r"(?:either\s+)?)|is\s+(?:either\s+)?|are\s+(?:either\s+)?)" + _LIST,
        re.IGNORECASE,
    ),
    re.compile(
        r"\bpossible\s+(?:values|remainders|residues)\s+of\s+" + _FORMULA + _MOD + r"\s+are\s+(?:either\s+)?" + _LIST,
        re.IGNORECASE,
    ),
]
_SET_HEDGED = re.compile(
    r"\b(?:if|when|whenever|where|suppose|assume|let|whether|case|odd|even|prime|primes|divisible|not|"
    r"need|want|would|must|should)\b|[<>≤≥?]|\\(?:ge|le|geq|leq|ne|neq|nmid)\b",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class Residues:
    """ "x^2 modulo 9 can take values of 0, 1, 4, and 7": the formula, the modulus, the residues claimed."""

    text: str
    subject: str
    modulus: int
    claimed: frozenset


def residue_claims(step: str) -> list[Residues]:
    """The residues a step says a formula takes modulo n, for every value of its names. A sentence
    that hedges or restricts the names ("for odd n", "if", "x > 30") is left alone."""
    out = []
    text = _MATH.sub("", step).replace("\\cdot", "·").replace("\\left", "").replace("\\right", "")
    for sentence in re.split(r"(?<=[.;!?])\s+|\n", text):
        for pat in _RESIDUE_SETS:
            for m in pat.finditer(sentence):
                subject, modulus = m.group(1).strip(), int(m.group(2))
                while subject.count("(") > subject.count(")"):
                    subject = subject[1:].lstrip()
                if not re.search(r"[A-Za-z]", subject) or not re.search(r"[\^*+\-/·×\d]", subject):
                    continue  # a bare name ("n mod 5 can be ...") depends on what the solution says of n
                if modulus < 2 or _SET_HEDGED.search(sentence[: m.start()]):
                    continue
                if _SET_HEDGED.search(sentence[m.end() :]):
                    continue
                claimed = frozenset(int(v) % modulus for v in re.findall(r"-?\d+", m.group(3)))
                if not any((r.subject, r.modulus, r.claimed) == (subject, modulus, claimed) for r in out):
                    out.append(Residues(m.group(0).strip(), subject, modulus, claimed))
    return out


def residue_check(tree, modulus: int, claimed: frozenset, facts: Facts) -> tuple[bool, str] | None:
    """Residues of a formula modulo n over its names: every residue class of each name when no
    name is in an exponent (the set is then exact: a residue claimed but never taken refutes the
    claim), else the names 1..12 (only a residue taken but not claimed refutes it)."""
    free = free_names(tree, facts)
    if not free or any(n.endswith("()") for n in free) or len(free) > 3:
        return None
    names = sorted(free)
    polynomial = _polynomial(tree) and modulus ** len(names) <= 20000
    values = list(range(modulus)) if polynomial else list(range(1, N_SMALL + 1))
    if not polynomial and len(names) > 1:
        values = values[:6]
    taken: dict[int, dict] = {}
    for combo in itertools.product(values, repeat=len(names)):
        point = {x: Fraction(v) for x, v in zip(names, combo)}
        try:
            v = exact(tree, RandomPoint(facts, random.Random(0), False, point))
        except (EvaluationError, ArithmeticError, ValueError):
            return None
        if v.denominator != 1:
            return None
        taken.setdefault(int(v) % modulus, point)
    outside = sorted(set(taken) - claimed)
    if outside:
        at = ", ".join(f"{x} = {v}" for x, v in taken[outside[0]].items())
        return False, f"at {at} it is {outside[0]} (mod {modulus}), not among {sorted(claimed)}"
    never = sorted(claimed - set(taken))
    if polynomial and never:
        return False, f"it takes only {sorted(taken)} (mod {modulus}) over all residues, never {never[0]}"
    return True, f"it takes {sorted(taken)} (mod {modulus})"


def _polynomial(tree) -> bool:
    if tree[0] == "pow" and names(tree[2]):
        return False
    if tree[0] in ("div", "call", "apply", "fact", "abs", "mod", "floor", "ceil"):
        return not names(tree)
    return all(_polynomial(c) for c in children(tree))


_NEVER = re.compile(
    r"\b(?:can\s*not\s+ever\s+be|can\s+never\s+be|will\s+never\s+be|is\s+never)\s+(?:an?\s+)?"
    r"(perfect\s+squares?|perfect\s+cubes?|square\s+numbers?|prime(?:\s+numbers?)?)\b",
    re.IGNORECASE,
)
N_SEARCH = 5000
_SUPPOSED = re.compile(r"\b(?:if|when|whenever|suppose|assume|unless|whether)\b|\?", re.IGNORECASE)


@dataclass(frozen=True)
class Never:
    """ "9 + b^2 can never be a perfect square": the formula and what it is said never to be."""

    text: str
    subject: str
    kind: str  # "square", "cube" or "prime"


def never_claims(step: str) -> list[Never]:
    """Formulas in a name the step says can never be a perfect square, a cube or a prime. One
    value of the name where it is one refutes the claim; no search can confirm it."""
    out = []
    text = _MATH.sub("", step).replace("\\cdot", "·")
    for sentence in re.split(r"(?<=[.;!?])\s+|\n", text):
        for m in _NEVER.finditer(sentence):
            before = sentence[: m.start()].rstrip()
            found = _formula_before(before)
            if found is None or _SUPPOSED.search(before[: found[1]]):
                continue
            subject = found[0]
            word = m.group(1).lower()
            kind = "prime" if word.startswith("prime") else "cube" if "cube" in word else "square"
            out.append(Never(f"{subject} {m.group(0).strip()}", subject, kind))
    return out


_BELOW = re.compile(r"\b(?:under|less\s+than|below|smaller\s+than)\s+(\d{1,6})\b|<\s*(\d{1,6})\b", re.IGNORECASE)
_AT_MOST = re.compile(r"\bat\s+most\s+(\d{1,6})\b|(?:≤|<=|\\le(?:q)?)\s*(\d{1,6})\b", re.IGNORECASE)
_NARROWED = re.compile(r"\b(?:primes?|digits?|divisible|multiples?|coprime|distinct|consecutive)\b", re.IGNORECASE)


def search_values(question: str) -> range | None:
    """The positive integers a name of the problem may take, as far as its words say: odd or even,
    below a bound; None when the problem narrows its names in a way a range cannot hold."""
    odd, even = bool(re.search(r"\bodd\b", question, re.I)), bool(re.search(r"\beven\b", question, re.I))
    if odd and even or _NARROWED.search(question):
        return None
    top = N_SEARCH
    for m in _BELOW.finditer(question):
        top = min(top, int(m.group(1) or m.group(2)) - 1)
    for m in _AT_MOST.finditer(question):
        top = min(top, int(m.group(1) or m.group(2)))
    return range(1, top + 1, 2) if odd else range(2, top + 1, 2) if even else range(1, top + 1)


def never_check(tree, kind: str, facts: Facts, values: range | None) -> tuple[bool, str] | None:
    """(False, a value where it is one) for a formula in one name said never to be a square, a cube
    or a prime, searched over ``values`` (the problem's, :func:`search_values`); None when none is
    found there (a search cannot show "never"), the formula is not in one name, or the problem
    narrows its names in a way the search cannot follow."""
    from sympy import integer_nthroot, isprime

    free = sorted(free_names(tree, facts))
    if len(free) != 1 or values is None:
        return None
    (name,) = free
    for v in values:
        try:
            value = exact(tree, RandomPoint(facts, random.Random(0), False, {name: Fraction(v)}))
        except (EvaluationError, ArithmeticError, ValueError):
            continue
        if value.denominator != 1 or value.numerator < 0 or value.numerator.bit_length() > 256:
            continue
        n = value.numerator
        if kind == "prime":
            if isprime(n):
                return False, f"at {name} = {v} the value is {n}, a prime"
            continue
        power = 2 if kind == "square" else 3
        root, exact_root = integer_nthroot(n, power)
        if exact_root:
            return False, f"at {name} = {v} the value is {n} = {root}^{power}"
    return None
