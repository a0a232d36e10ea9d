"""Find and check the arithmetic in a natural-language step ("She has 12 x 2 = 24 apples.").

Pure Python and exact (fractions), so it needs no time limit: only numbers, ``+ - * /`` and
parentheses are evaluated (no powers, so no huge numbers). A claimed result written with d
decimals counts as correct when it is the exact value rounded to d decimals. Numbers next to
``mod``, ``choose``, ``!`` or ``^`` are not plain arithmetic and are skipped; a wrong equation that
holds modulo a modulus the step mentions, or that the step calls a contradiction, is not reported
(:mod:`accord.mathcheck.reading._cues`). A step is valid only if all its equations were read: with a
formula that is not plain arithmetic beside them (``x^2 = 4``, LaTeX), the judge does not score it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from fractions import Fraction

from accord.mathcheck.reading import moduli_in, speaks_of_contradiction, without_remainders

_WORDS = [
    (r"\bmultiplied\s+by\b", "*"),
    (r"\bdivided\s+by\b", "/"),
    (r"\btimes\b", "*"),
    (r"\bplus\b", "+"),
    (r"\bminus\b", "-"),
    (r"\bequals\b|\bis\s+equal\s+to\b", "="),
]
_NUM = r"\d+(?:\.\d+)?"
_NOT_ARITHMETIC = {"mod", "modulo", "pmod", "bmod", "choose", "binom", "equiv", "c", "p"}
_SEGMENT = re.compile(r"[\d.\s+\-*/()]*\d[\d.\s+\-*/()]*(?:=[\d.\s+\-*/()]*\d[\d.\s+\-*/()]*)+")


@dataclass(frozen=True)
class Equation:
    text: str  # the normalised equation, e.g. "12 * 2 = 24"
    values: tuple[Fraction, ...]  # exact value of each side
    claimed: tuple[str, ...]  # each side's text
    correct: bool


def normalize(text: str) -> str:
    """Operators to ASCII, thousands separators and currency signs out, unit words dropped."""
    s = re.sub(r"<<[^<>]*>>", "", text)  # calculator annotations: 48/2 = <<48/2=24>>24
    s = re.sub(r"^\s*(?:\d+[.)]|[-*+•])\s+", "", s)  # a list marker is not a number
    s = re.sub(r"\\[()\[\]]|\*\*|__", " ", s)  # \( \) \[ \] and Markdown bold
    for a, b in (
        ("−", "-"),
        ("–", "-"),
        ("×", "*"),
        ("·", "*"),
        ("÷", "/"),
        ("∗", "*"),
        ("\\times", "*"),
        ("\\cdot", "*"),
    ):
        s = s.replace(a, b)
    s = re.sub(r"\\?\$|€|£|¥", " ", s)
    for pat, rep in _WORDS:
        s = re.sub(pat, rep, s, flags=re.IGNORECASE)
    s = re.sub(r"(?<=\d),(?=\d{3}(?!\d))", "", s)  # 1,234,567 -> 1234567
    s = re.sub(r"(?<=\d),(?=\d{3}(?!\d))", "", s)
    # "x" between two quantities is multiplication: "12 x 2", "12x2", "3 boxes x 4"
    s = re.sub(r"(?<=[\d)])\s*[xX]\s*(?=[\d(])", " * ", s)
    s = re.sub(r"(?<=[A-Za-z%])\s+[xX]\s+(?=[\d(])", " * ", s)
    # unit words after a number and a space, before an operator or "=": "3 kg + 2 kg = 5 kg"
    # ("3x" stays: a letter touching a number is a variable, not a unit)
    s = re.sub(r"(?<=\d)(?:%|\s+[A-Za-z]+\.?)(?:\s+[A-Za-z]+\.?)?(?=\s*[-+*/=)])", " ", s)
    return s


class _Parser:
    """Recursive descent over + - * / and parentheses; raises ValueError on anything else."""

    def __init__(self, text: str):
        self.toks = re.findall(rf"{_NUM}|[-+*/()]", text)
        if "".join(self.toks) != re.sub(r"\s+", "", text):
            raise ValueError("stray characters")
        self.i = 0

    def parse(self) -> Fraction:
        v = self.expr()
        if self.i != len(self.toks):
            raise ValueError("trailing tokens")
        return v

    def peek(self):
        return self.toks[self.i] if self.i < len(self.toks) else None

    def take(self):
        t = self.peek()
        if t is None:
            raise ValueError("unexpected end")
        self.i += 1
        return t

    def expr(self) -> Fraction:
        v = self.term()
        while self.peek() in ("+", "-"):
            v = v + self.term() if self.take() == "+" else v - self.term()
        return v

    def term(self) -> Fraction:
        v = self.factor()
        while self.peek() in ("*", "/"):
            op = self.take()
            w = self.factor()
            if op == "/" and w == 0:
                raise ZeroDivisionError("division by zero")
            v = v * w if op == "*" else v / w
        return v

    def factor(self) -> Fraction:
        t = self.take()
        if t == "-":
            return -self.factor()
        if t == "+":
            return self.factor()
        if t == "(":
            v = self.expr()
            if self.take() != ")":
                raise ValueError("unbalanced parenthesis")
            return v
        if re.fullmatch(_NUM, t):
            return Fraction(t)
        raise ValueError(f"unexpected {t!r}")


def _decimals(side: str) -> int | None:
    """Decimals of a bare number (the precision a written result claims); None for expressions."""
    m = re.fullmatch(r"\s*-?\s*\d+(?:\.(\d+))?\s*", side)
    if not m:
        return None
    return len(m.group(1) or "")


def _equal(a: Fraction, b: Fraction, sa: str, sb: str) -> bool:
    if a == b:
        return True
    for side in (sa, sb):  # a result written with d decimals is right if it is the rounding
        d = _decimals(side)
        if d and abs(a - b) <= Fraction(1, 2 * 10**d):
            return True
    return False


def _algebra_around(s: str, start: int, end: int) -> bool:
    """The numbers found are part of an algebraic expression ("3x - 6 = 2x", "(x+3)^2 - 4 = 0")."""
    body = s[start:end]
    lead = len(body) - len(body.lstrip())
    first, i = body.lstrip()[:1], start + lead
    j = start + len(body.rstrip())
    before = s[i - 1] if i > 0 else " "
    after = s[j] if j < len(s) else " "
    if before.isalnum() or before in "^_)!]}\\" or after.isalnum() or after in "^_(!":
        return True
    word_before = re.search(r"([A-Za-z]+)\W*$", s[:i])
    word_after = re.match(r"\W*([A-Za-z]+)", s[j:])
    if any(w and w.group(1).lower() in _NOT_ARITHMETIC for w in (word_before, word_after)):
        return True  # "4 mod 11 = 1 + 1 mod 11", "101 choose 2"
    prev = s[:i].rstrip()[-1:]
    negative_number = body.lstrip()[1:2].isdigit()  # "-5", not "- 5"
    return first in "+*/" or (first == "-" and not negative_number and (prev.isalnum() or prev in ")!]"))


_ANNOTATION = re.compile(r"<<([^<>=]+)=([^<>=]+)>>\s*(-?\d[\d,]*(?:\.\d+)?)?")


def calculator_annotations(text: str) -> list[Equation]:
    """Every ``<<expr=value>>shown`` (GSM8K's calculator annotation), checked exactly: the value is
    the expression's (or its rounding at the decimals written), and the number shown after it is
    the value. An annotation with words or other operations in it is skipped."""
    out = []
    for m in _ANNOTATION.finditer(text):
        expr, value, shown = m.group(1).strip(), m.group(2).strip(), m.group(3)
        sides = [expr, value] + ([shown.replace(",", "")] if shown else [])
        try:
            values = tuple(_Parser(p.replace(",", "")).parse() for p in sides)
        except ZeroDivisionError:
            out.append(Equation(f"calculator annotation {m.group(0).strip()}", (), tuple(sides), False))
            continue
        except ValueError:
            continue
        inside = _equal(values[0], values[1], sides[0], sides[1])
        ok = inside and (not shown or values[1] == values[2])
        claimed = (sides[0], sides[1] if not inside else sides[-1])
        out.append(Equation(f"calculator annotation {m.group(0).strip()}", values[:1] + values[-1:], claimed, ok))
    return out


def find_equations(text: str) -> list[Equation]:
    """Every ``expr = expr (= expr ...)`` with at least one operator, evaluated exactly, and every
    calculator annotation (:func:`calculator_annotations`)."""
    out = calculator_annotations(text)
    s = normalize(text)
    for m in _SEGMENT.finditer(s):
        start = m.start()
        while s[start] in ". ":  # a full stop ending the sentence before
            start += 1
        if _algebra_around(s, start, m.end()):
            continue
        seg = s[start : m.end()].strip().strip(".").strip()
        sides = [re.sub(r"\s+", " ", p).strip().rstrip(".").strip() for p in seg.split("=")]
        if any(not p for p in sides):
            continue
        if not any(re.search(r"\d\s*[-+*/]\s*[\d(]|\)\s*[-+*/]", p) for p in sides):
            continue  # "x = 5" or "2024 = year": nothing computed
        try:
            values = tuple(_Parser(p).parse() for p in sides)
        except ZeroDivisionError:
            out.append(Equation(" = ".join(sides), (), tuple(sides), False))
            continue
        except ValueError:
            continue
        ok = all(_equal(a, b, sa, sb) for a, b, sa, sb in zip(values, values[1:], sides, sides[1:]))
        out.append(Equation(" = ".join(sides), values, tuple(sides), ok))
    return out


def _congruent(e: Equation, moduli: frozenset[int]) -> bool:
    """Every side equal modulo one modulus the text mentions ("10 = 2 modulo 8")."""
    vals = e.values
    return (
        bool(vals)
        and all(v.denominator == 1 for v in vals)
        and any(all((a - b) % m == 0 for a, b in zip(vals, vals[1:])) for m in moduli)
    )


def _fmt(v: Fraction) -> str:
    return str(v.numerator) if v.denominator == 1 else f"{float(v):.6g}"


def check_arithmetic(text: str) -> tuple[float | None, str]:
    """(1.0, why) if every equation is right, (0.0, which is wrong), (None, reason) if none. A
    division with remainder ("100 ÷ 7 = 14 remainder 2") is not read as 100/7 = 14: the solution
    judges check it."""
    text = without_remainders(text)
    eqs = find_equations(text)
    if not eqs:
        return None, "no arithmetic to check"
    moduli, contradiction = moduli_in(text), speaks_of_contradiction(text)
    wrong = [e for e in eqs if not e.correct and not contradiction and not _congruent(e, moduli)]
    if not wrong:
        read = sum(len(e.claimed) - 1 for e in eqs if not e.text.startswith("calculator annotation"))
        if normalize(_ANNOTATION.sub(" ", text)).count("=") > read:
            return None, (
                f"{len(eqs)} equation(s) correct ({'; '.join(e.text for e in eqs)}), but the step has "
                "formulas that are not plain arithmetic: not judged valid on part of it"
            )
        return 1.0, f"{len(eqs)} equation(s) correct: " + "; ".join(e.text for e in eqs)
    e = wrong[0]
    if not e.values:
        return 0.0, f"{e.text}: division by zero"
    return 0.0, f"{e.text} is wrong: {e.claimed[0]} = {_fmt(e.values[0])}" + (
        f", not {e.claimed[-1]}" if len(e.claimed) == 2 else ""
    )
