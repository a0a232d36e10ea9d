"""Relations said in words between formulas, written back as the sign a formula would use.

"-1 is congruent to 8 mod 9", "\\( 8x^2 \\) is congruent to \\( -x^2 \\) modulo 3", "3^3 is greater
than 2^2", "(x^2 + 1)/sqrt(x^2 + 1) simplifies to sqrt(x^2 + 1)", "we can rewrite x^3 as
(2y + 1)(2y^2 + 2y + 1)": each is a claim as checkable as its written form, so it becomes
``-1 ≡ 8 (mod 9)``, ``3^3 > 2^2``, ``x^3 = (2y + 1)(2y^2 + 2y + 1)``. Only a phrase with a formula
on both sides is rewritten ("the sum is equal to 5", "A is greater than 0.1" stay prose: their
subject is not a formula), and never a negated congruence, which no sign here says.
"""

from __future__ import annotations

import re

_PHRASES = (
    (r"is\s+(?:exactly\s+)?equal\s+to|equals|is\s+the\s+same\s+as|simplifies\s+to|reduces\s+to", "="),
    (r"is\s+not\s+equal\s+to|does\s+not\s+equal", "≠"),
    (r"is\s+congruent\s+to", "≡"),
    (r"is\s+less\s+than\s+or\s+equal\s+to", "≤"),
    (r"is\s+greater\s+than\s+or\s+equal\s+to", "≥"),
    (r"is\s+(?:less|smaller)\s+than", "<"),
    (r"is\s+(?:greater|larger|bigger)\s+than", ">"),
)
_DELIMITED = r"(?:\\\((?:(?!\\\)).)+?\\\)|(?<![$\\])\$[^$]+\$(?!\$))"
_MATHY = re.compile(r"[\d^*/+()_!√\\]")
_PROSE_WORD = re.compile(r"[A-Za-z]{2,}")
_FUNCTIONS = frozenset({"sqrt", "mod", "gcd", "lcm", "log", "ln", "sin", "cos", "tan", "exp", "binom", "frac", "cdot"})
_RELATION_SIGN = re.compile(r"[=<>≤≥≠≡]")
_REWRITE = re.compile(r"\b(?:(?:re)?writ(?:e|ten)|express(?:ed)?)\s+", re.I)
_REWRITE_OR_AND = re.compile(r"\b(?:(?:re)?writ(?:e|ten)|express(?:ed)?|and)\s+", re.I)


def _formula_token(token: str) -> bool:
    """A token that is mathematics on its own: a digit or an operator, and no English word in it."""
    core = token.strip(",.;:!?\"'")
    if not core.strip("()$\\") or not _MATHY.search(core) or _RELATION_SIGN.search(core):
        return False
    return all(w.lower() in _FUNCTIONS or len(w) <= 2 for w in _PROSE_WORD.findall(core))


def _operand_token(token: str) -> bool:
    """The first word after the phrase: a formula, a number, or a one-letter name."""
    core = token.strip(",.;:!?\"'")
    return _formula_token(core) or bool(re.fullmatch(r"-?[A-Za-z]|-?\d+(?:\.\d+)?", core))


_INLINE = tuple((re.compile(r"(?<=\S)(\s+)(" + phrase + r")\s+(?=(\S+))", re.I), sign) for phrase, sign in _PHRASES)
_BETWEEN = tuple(
    (
        re.compile(
            r"(" + _DELIMITED + r")\s+(?:" + phrase + r")\s+(" + _DELIMITED + r")"
            r"(?:\s+(?:mod|modulo)\s+(" + _DELIMITED + r"|\d+\b))?",
            re.I | re.S,
        ),
        sign,
    )
    for phrase, sign in _PHRASES
)


def _inline(line: str) -> str:
    """Phrases between undelimited formulas: ``3^3 is greater than 2^2`` → ``3^3 > 2^2``."""
    for pattern, sign in _INLINE:

        def swap(m: re.Match, sign=sign) -> str:
            before = line[: m.start()].split()
            if not before or not _formula_token(before[-1]) or not _operand_token(m.group(3)):
                return m.group(0)
            return f" {sign} "

        line = pattern.sub(swap, line)
    if "≡" in line:
        line = re.sub(r"(≡[^.;:≡]*?)\s+modulo\s+(?=\S)", r"\1 mod ", line)
    return _rewritten_as(line)


def _rewritten_as(line: str) -> str:
    """ "we can rewrite x^3 as (2y + 1)(...)": the two formulas around "as" are equal (every such
    phrase of the line: "write a as b, and write c as d")."""
    out, last = [], 0
    for verb in _REWRITE_OR_AND.finditer(line):
        if verb.start() < last or verb.group(0).lower().startswith("and") and not out:
            continue  # "write 3^105 as (3^5)^21 and 4^105 as (4^5)^21": "and" goes on with a rewrite
        m = re.match(r"(\S+(?:\s+\S+){0,6}?)\s+as\s+(\S+)", line[verb.end() :])
        if not m:
            continue
        subject = m.group(1).split()
        if all(_formula_token(t) or t in "+-*/" for t in subject) and _formula_token(m.group(2)):
            at = verb.end() + len(m.group(1))
            out.append(line[last:at] + " =")
            last = at + len(" as")
    return "".join(out) + line[last:]


def _delimited(text: str) -> str:
    """Phrases between delimited formulas: ``\\( a \\) is congruent to \\( b \\) modulo 3`` →
    ``\\( a ≡ b \\pmod{3} \\)``."""
    for pattern, sign in _BETWEEN:

        def join(m: re.Match, sign=sign) -> str:
            left, right = _body(m.group(1)), _body(m.group(2))
            if _RELATION_SIGN.search(left) or _RELATION_SIGN.search(right):
                return m.group(0)
            modulus = m.group(3)
            if not modulus:
                return f"\\( {left} {sign} {right} \\)"
            if sign != "≡":
                return m.group(0)  # "a is less than b mod 3": not a reading this knows
            return f"\\( {left} {sign} {right} \\pmod{{{_body(modulus)}}} \\)"

        text = pattern.sub(join, text)
    return _REWRITE_DELIMITED.sub(_equated, text)


_REWRITE_DELIMITED = re.compile(
    r"(" + _REWRITE.pattern + r")(" + _DELIMITED + r"|[^\s$\\]+(?:\s+[^\s$\\]+){0,6}?)\s+as\s+(" + _DELIMITED + r")",
    re.I | re.S,
)


def _equated(m: re.Match) -> str:
    """ "write 50 as $2^2\\cdot5^2$": one formula, ``\\( 50 = 2^2\\cdot5^2 \\)``."""
    left, right = _body(m.group(2)), _body(m.group(3))
    delimited = m.group(2).startswith(("\\(", "$"))
    if not delimited and not all(_formula_token(t) or t in "+-*/" for t in left.split()):
        return m.group(0)
    if _RELATION_SIGN.search(left) or _RELATION_SIGN.search(right):
        return m.group(0)
    return f"{m.group(1)}\\( {left} = {right} \\)"


def _body(formula: str) -> str:
    if formula.startswith("\\("):
        return formula[2:-2].strip()
    if formula.startswith("$"):
        return formula.strip("$").strip()
    return formula


_CUE = re.compile(r"equal|congruent|than|simplifies|reduces|same\s+as|writ|express", re.I)


def between_formulas(text: str) -> str:
    """The step with relations said in words between delimited formulas written as signs."""
    return _delimited(text) if _CUE.search(text) else text


def in_prose(line: str) -> str:
    """A line of prose (delimited formulas taken out) with relations said in words written as signs."""
    return _inline(line) if _CUE.search(line) else line
