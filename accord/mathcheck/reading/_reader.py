"""Find the mathematical claims in a step of a real solution: prose with inline math and LaTeX.

A step is searched for formulas: delimited ones (``$..$``, ``$$..$$``, ``\\(..\\)``, ``\\[..\\]``,
``\\begin{align}..\\end{align}``, `` `..` ``) and undelimited runs of mathematical words in prose
("so f(1) = 3 and 4 · 7 = 28 ways" has the runs ``f(1) = 3`` and ``4 · 7 = 28``). Each formula is
cut into relation chains at prose (``\\text{..}``), line breaks, arrows (``⇒``, ``\\implies``),
semicolons and top-level commas; a chain is its sides and the relations between them
(``=``, ``≠``, ``<``, ``≤``, ``>``, ``≥``, ``≈``, ``≡`` with a modulus). A chain that starts with a
relation (``= 10!/(5!5!)``) continues the previous chain.

Pure text, no evaluation: :mod:`accord.mathcheck.reading._parser` reads each side.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from accord.mathcheck.reading._english import COMMON_WORDS
from accord.mathcheck.reading._latex import BREAK, LatexError, from_latex
from accord.mathcheck.reading._spoken import between_formulas, in_prose

RELATIONS = {
    "=": "=",
    "==": "=",
    "≠": "≠",
    "!=": "≠",
    "<": "<",
    ">": ">",
    "≤": "≤",
    "<=": "≤",
    "≥": "≥",
    ">=": "≥",
    "≈": "≈",
    "≡": "≡",
    "=<": "≤",
    "≃": "≈",
    "≅": "≈",
}
_RELATION = re.compile(r"==|!=|<=|>=|=<|[=≠<>≤≥≈≡≃≅]")
_DELIMITED = re.compile(
    r"\$\$(?P<dd>.+?)\$\$|(?<!\\)\$(?P<d>[^$]+?)(?<!\\)\$|\\\[(?P<br>.+?)\\\]|\\\((?P<pa>.+?)\\\)"
    r"|\\begin\{(?P<env>equation|align|aligned|eqnarray|gather|multline|split|array)\*?\}(?P<body>.+?)\\end\{(?P=env)\*?\}"
    r"|`(?P<code>[^`]+)`",
    re.DOTALL,
)
_LOOSE_DELIMITERS = re.compile(r"\\\[|\\\]|\\\(|\\\)|\$\$?|\\begin\{\w+\*?\}|\\end\{\w+\*?\}")
_MARKDOWN = re.compile(r"(?:^|(?<=\s))\*\*|\*\*(?=\s|$)|(?:^|(?<=\s))__|__(?=\s|$)")
_LIST_MARK = re.compile(r"^\s*(?:[-*+•]\s+|\d+[.)]\s+|\(\w\)\s+|>\s*)")
_CALCULATOR = re.compile(r"<<[^<>]*>>")
_ARROW = re.compile(r"⇒|⟹|⟺|⇔|→|=>|==>|->|\bimplies\b|\btherefore\b|∴")
_MOD_SUFFIX = re.compile(r"\(\s*mod\s+([^()]+(?:\([^()]*\)[^()]*)*)\)|\bmod(?:ulo)?\s+(\S+)\s*$")
_LABEL = re.compile(
    r"(?:(?<![-+*/^=(,\s])\s+|\s*(?:-{2,}|\.{2,}|…|⋯)\s*)\(\s*(?:eq(?:uation|n)?\.?\s*)?(?:\d{1,2}|[*†‡]|[ivx]{1,4})\s*\)\s*$"
    r"|\s*\\tag\{[^{}]*\}\s*$",
    re.IGNORECASE,
)
_MATH_CHARS = re.compile(r"[\d+\-*/^()\[\]|!_=<>≤≥≠≈≡√π∑∏∞·×÷−²³\\{}]")
_PROSE_HYPHEN = re.compile(r"^[A-Za-z]{2,}(?:-[A-Za-z]+)+$")
_ORDINAL = re.compile(r"^\d+(?:st|nd|rd|th|s)$")
_FUNCTION_WORDS = {
    "sqrt",
    "gcd",
    "lcm",
    "mod",
    "log",
    "ln",
    "sin",
    "cos",
    "tan",
    "exp",
    "max",
    "min",
    "choose",
    "floor",
    "ceil",
    "pi",
}
_PUNCT_END = ",.;:!?\"'"
_ENV_LINE = re.compile(r"\\\\")


@dataclass(frozen=True)
class Chain:
    """One relation chain: ``sides[k] relations[k] sides[k + 1]``; plain notation, LaTeX converted."""

    sides: tuple[str, ...]
    relations: tuple[str, ...]
    text: str  # the chain as written (after LaTeX conversion)
    modulus: str | None = None  # for ≡: the modulus ("mod n")
    continues: bool = False  # starts with a relation: the first side is the previous chain's last


def _strip_outer(s: str) -> str:
    """No sentence punctuation around a side (a factorial's ``!`` is kept), nor the bracket of a
    remark it ends or opens: "(since 3^4 mod 13 = 1)" gives ``3^4 mod 13 = 1``."""
    s = s.strip().strip(",.;:?\"' ").strip()
    while s.endswith(")") and s.count(")") > s.count("("):
        s = s[:-1].strip().strip(",.;:?\"' ").strip()
    while s.startswith("(") and s.count("(") > s.count(")"):
        s = s[1:].strip()
    return s


_THOUSANDS = re.compile(r"(?<=\d),(?=\d{3}(?!\d))")


def _top_level_split(s: str, seps: str) -> list[str]:
    """Split at separator characters outside (), [] and {} (a thousands separator, ``30,240``, is
    part of its number)."""
    out, depth, cur = [], 0, []
    grouping = {m.start() for m in _THOUSANDS.finditer(s)} if "," in seps else set()
    for i, ch in enumerate(s):
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth = max(0, depth - 1)
        if ch in seps and depth == 0 and i not in grouping:
            out.append("".join(cur))
            cur = []
        else:
            cur.append(ch)
    out.append("".join(cur))
    return out


def _relations(s: str) -> tuple[list[str], list[str]]:
    """Sides and relations of a chain, splitting at top-level relation signs only."""
    sides, rels, depth, start, i = [], [], 0, 0, 0
    while i < len(s):
        ch = s[i]
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth = max(0, depth - 1)
        elif depth == 0:
            m = _RELATION.match(s, i)
            if m:
                sides.append(s[start:i])
                rels.append(RELATIONS[m.group(0)])
                i = start = m.end()
                continue
        i += 1
    sides.append(s[start:])
    return sides, rels


def _chains_of(formula: str, expressions: bool = False) -> list[Chain]:
    """The relation chains in one formula (plain notation); with ``expressions``, a piece without
    a relation is kept too, as a chain of one side (what a following ``= ...`` continues)."""
    out = []
    formula = _CALCULATOR.sub(" ", formula)
    for piece in re.split(f"{BREAK}|;|\n|" + _ARROW.pattern, formula):
        for part in _top_level_split(piece, ","):
            part = _strip_outer(part)
            if not part:
                continue
            if not _RELATION.search(part):
                if expressions and _MATH_CHARS.search(part):
                    out.append(Chain((part,), (), part))
                continue
            part = _LABEL.sub("", part)  # "x + y = 5 (2)", "y = b^2 - a^2 ...(4)": the equation's label
            modulus = None
            m = _MOD_SUFFIX.search(part)
            congruence = bool(m and "≡" not in part and m.group(1) and "=" in part)  # "25 = 4 (mod 7)"
            if m and ("≡" in part or congruence):
                modulus = (m.group(1) or m.group(2)).strip()
                part = part[: m.start()].strip()
            sides, rels = _relations(part)
            if congruence:
                rels = ["≡" if r == "=" else r for r in rels]
            sides = [_strip_outer(x) for x in sides]
            if not rels:
                continue
            continues = sides[0] == ""
            if continues:
                sides = sides[1:]
                rels_kept = rels
            else:
                rels_kept = rels
            # drop empty sides at the end ("x =") and chains with an empty side in the middle
            while sides and sides[-1] == "" and rels_kept:
                sides, rels_kept = sides[:-1], rels_kept[:-1]
            if not rels_kept or any(x == "" for x in sides):
                continue
            if continues:
                out.append(Chain(tuple(sides), tuple(rels_kept), part, modulus, True))
            else:
                out.append(Chain(tuple(sides), tuple(rels_kept), part, modulus, False))
    return out


def _is_prose_word(w: str) -> bool | None:
    """True: prose; False: strongly mathematical; None: weak (a one-letter or short letter name)."""
    core = w.strip(_PUNCT_END + "()[]\"'")
    if not core:
        if "..." in w or "…" in w:
            return False  # an ellipsis inside a formula
        return None if w.strip(_PUNCT_END) else True
    if "'" in w.strip("'") or "’" in w:
        return True
    if _PROSE_HYPHEN.match(core) or _ORDINAL.match(core):
        return True
    letters = re.sub(r"[^A-Za-z]", "", core)
    if _MATH_CHARS.search(w) or not letters:
        inner = re.findall(r"[A-Za-z]{2,}", core)
        if any(
            x.lower() in COMMON_WORDS or len(x) > 4 and x not in _FUNCTION_WORDS
            for x in inner
            if x not in _FUNCTION_WORDS
        ):
            return True if not _RELATION.search(w) else False
        return False
    if core in _FUNCTION_WORDS:
        return False
    if len(core) == 1:
        return None
    if len(core) <= 4 and core.lower() not in COMMON_WORDS and core.isalpha():
        return None
    return True


def _runs(prose: str, whole_line: bool = False) -> list[tuple[int, str]]:
    """(offset, run): maximal runs of mathematical words in prose that contain a relation sign
    (with ``whole_line``, also a line that is entirely mathematics)."""
    spans = [(m.start(), m.group(0)) for m in re.finditer(r"\S+", prose)]
    words = [w for _, w in spans]
    kinds = [_is_prose_word(w) for w in words]
    for i in range(len(words) - 1):  # "sold 48/2 = 24": a word before a number is prose, not s·o·l·d
        core = words[i].strip(_PUNCT_END + "()[]\"'")
        if kinds[i] is None and len(core) >= 3 and core.isalpha() and core.islower() and words[i + 1][:1].isdigit():
            kinds[i] = True
    if whole_line and words and all(k is not True for k in kinds) and any(k is False for k in kinds):
        return [(spans[0][0], " ".join(words))]
    out: list[tuple[int, str]] = []
    cur: list[int] = []  # indices of the current run's words
    for i, k in enumerate(kinds + [True]):
        if k is not True and not (words[i].endswith(":") and not _RELATION.search(words[i])):
            cur.append(i)
            continue
        if cur and any(_RELATION.search(words[j]) for j in cur):
            # weak words at the edges stay only when next to a strong one
            while len(cur) > 1 and kinds[cur[0]] is None and kinds[cur[1]] is None:
                cur = cur[1:]
            while len(cur) > 1 and kinds[cur[-1]] is None and kinds[cur[-2]] is None:
                cur = cur[:-1]
            out.append((spans[cur[0]][0], " ".join(words[j] for j in cur)))
        cur = []
    return out


def _located_formulas(text: str, expressions: bool) -> list[tuple[bool, str]]:
    """(at the start of the step, formula) in reading order, LaTeX not yet converted."""
    s = _MARKDOWN.sub(" ", text)
    s = between_formulas("\n".join(_LIST_MARK.sub("", line) for line in s.split("\n")))
    found: list[tuple[int, str]] = []
    last = 0
    pieces = []
    for m in _DELIMITED.finditer(s):
        pieces.append((last, s[last : m.start()]))
        body = next(
            g
            for g in (m.group("dd"), m.group("d"), m.group("br"), m.group("pa"), m.group("body"), m.group("code"))
            if g is not None
        )
        if m.group("body") is not None:
            body = _ENV_LINE.sub(BREAK, body)
        found.append((m.start(), body))
        last = m.end()
    pieces.append((last, s[last:]))
    for start, prose in pieces:
        prose = _LOOSE_DELIMITERS.sub(lambda m: " " * len(m.group(0)), prose)
        if "\\" in prose:  # undelimited LaTeX: "a^2 \\cdot b = c"
            prose = _ENV_LINE.sub(lambda m: BREAK + " ", prose)
        offset = start
        for line in prose.split("\n"):
            for at, run in _runs(in_prose(line), expressions):
                found.append((offset + at, run))
            offset += len(line) + 1
    found.sort(key=lambda x: x[0])
    return [(not re.search(r"[A-Za-z0-9]", _LOOSE_DELIMITERS.sub("", s[:pos])), f) for pos, f in found]


def formulas(text: str, expressions: bool = False) -> list[str]:
    """The formulas of a step in reading order, LaTeX converted (prose runs included); with
    ``expressions``, a step that is one bare expression (no prose, no relation) is one too."""
    return [f for _, f in _converted(text, expressions)]


def _converted(text: str, expressions: bool) -> list[tuple[bool, str]]:
    out = []
    for first, f in _located_formulas(text, expressions):
        try:
            f = from_latex(f) if ("\\" in f or "{" in f) else f.replace("&", " ")  # & aligns, in LaTeX or not
        except LatexError:
            continue
        out.append((first, f))
    return out


@lru_cache(maxsize=8192)
def read_chains(text: str) -> tuple[Chain, ...]:
    """Every relation chain of a step, in reading order; a formula without a relation (a bare
    expression) is a chain of one side and no relation. Only a formula at the very start of the
    step may continue the previous one ("= 29"); elsewhere a leading relation follows prose
    ("Total = 3 + 4"), and that first relation is dropped."""
    out: list[Chain] = []
    for first, f in _converted(text, True):
        for chain in _chains_of(f, expressions=True):
            if chain.continues and (not first or out):
                if len(chain.sides) < 2:
                    continue
                chain = Chain(chain.sides, chain.relations[1:], chain.text, chain.modulus, False)
            out.append(chain)
    return tuple(out)


_TAIL = re.compile(r"(?:\\\\|\\\]|\\\)|\$|[\s:.,;]|\\end\{\w+\*?\})+$")


def ends_with_formula(text: str) -> bool:
    """The step ends with mathematics (so a next step starting with '=' continues it)."""
    s = _TAIL.sub("", text)
    if not s:
        return False
    if "\\[" in s and s.rfind("\\[") > s.rfind("\\]"):  # inside an open display formula
        return True
    last = s.split()[-1]
    return _is_prose_word(last) is not True


def trailing_expression(text: str) -> str | None:
    """The expression a prose step ends with, written without delimiters ("This simplifies to
    (a+b+c)/(ab+bc+ca)."): the run of mathematical words at its end, when it has an operator and no
    relation, and the prose before it has no formula; None otherwise."""
    words = _TAIL.sub("", text).split()
    run: list[str] = []
    for w in reversed(words):
        if _is_prose_word(w) is True:
            break
        run.append(w)
    if any(_is_prose_word(w) is False for w in words[: len(words) - len(run)]):
        return None  # "write A as B, and C as D": not one expression
    run.reverse()
    while len(run) > 1 and _is_prose_word(run[0]) is None and _is_prose_word(run[1]) is None:
        run = run[1:]
    expr = " ".join(run)
    if (
        not any(_is_prose_word(w) is False for w in run)
        or _RELATION.search(expr)
        or not re.search(r"[-+*/^·×()]", expr)
    ):
        return None
    return expr


_LAYOUT_LINE = re.compile(r"^(?:\\\[|\\\]|\$\$|\\begin\{\w+\*?\}|\\end\{\w+\*?\}|&|\\\\|\s)*$")
DISPLAY_LINES = 8


def display_after(steps, k: int) -> str:
    """The display a lead-in step ``k`` announces: the next line, with the lines that belong to the
    same display (inside ``\\[ .. \\]`` or ``$$ .. $$``, or continuing it with ``=``), at most
    :data:`DISPLAY_LINES` of them, as one text; an ``align`` environment's rows are claims of their
    own, so there only the next line."""
    lines: list[str] = []
    depth = 0  # displays opened and not yet closed
    if k + 1 < len(steps) and _ROWS.match(steps[k + 1].strip()):
        return steps[k + 1]  # an aligned derivation: each row is a claim of its own, as annotators mark them
    for text in steps[k + 1 : k + 1 + DISPLAY_LINES]:
        s = text.strip()
        if depth == 0 and any(not _LAYOUT_LINE.match(t) for t in lines) and not _CONTINUES.match(s):
            break
        lines.append(text)
        depth = max(0, depth + len(_OPENS.findall(s)) - len(_CLOSES.findall(s)) + (s == "$$") * (1 - 2 * depth))
        if depth == 0 and has_prose(text):
            break
    return "\n".join(lines)


_ROWS = re.compile(r"\\begin\{(?:align|eqnarray|gather|array|aligned|split)\*?\}")
_OPENS = re.compile(r"\\\[|\\begin\{\w+\*?\}")
_CLOSES = re.compile(r"\\\]|\\end\{\w+\*?\}")
_CONTINUES = re.compile(r"^(?:&\s*)?(?:=|≤|≥|<|>|\\le|\\ge|\\leq|\\geq)")


def has_prose(text: str) -> bool:
    """Some word of ``text`` outside its delimited formulas is prose."""
    return any(_is_prose_word(w) is True for w in _DELIMITED.sub(" ", text).split())


_APPLIED = re.compile(
    r"(?<![A-Za-z_\d])([A-Za-z](?:_(?:\d+|[A-Za-z]|\{[^{}]{1,8}\}))?)\(\s*"
    r"((?:[A-Za-z]|\d+|[A-Za-z]\s*[-+]\s*\d+)(?:\s*,\s*(?:[A-Za-z]|\d+|[A-Za-z]\s*[-+]\s*\d+))*)\s*\)\s*([=≤≥<>]?)"
)
_FUNCTION_LETTERS = set("fghFGHPQ")
_GROUPED = re.compile(r"(?<![A-Za-z_\d])([A-Za-z])\(([^()]*)\)")  # y(20 + y - 1): a product when y is inside


@lru_cache(maxsize=8192)
def applied_names(text: str) -> frozenset[str]:
    """Names written as functions in ``text``: ``f(n)``, ``a_2(3)``, ``x(4) = ...``.

    A one-letter name counts when it is a usual function letter (f, g, h, F, G, H, P, Q) or an
    application of it is followed by a relation (``x(4) = 65536``), and it is not part of its own
    argument (``n(n-1)`` is a product). Nor is another letter written once as a product in the
    same text (``y(20 + y - 1) = 10, which simplifies to y(19) = 10``).
    """
    out, products = set(), set()
    for f in formulas(text):
        for m in _GROUPED.finditer(f):
            if re.search(rf"(?<![A-Za-z]){m.group(1)}(?![A-Za-z])", m.group(2)):
                products.add(m.group(1))
        for m in _APPLIED.finditer(f):
            name, arg, rel = m.group(1), m.group(2), m.group(3)
            base = name.split("_")[0]
            if re.search(rf"(?<![A-Za-z]){re.escape(base)}(?![A-Za-z])", arg):
                continue
            if base in _FUNCTION_LETTERS or rel or "_" in name:
                out.add(name.replace("{", "").replace("}", "") if re.fullmatch(r"[A-Za-z]_\{\d+\}", name) else name)
    return frozenset(n for n in out if n not in products or n in _FUNCTION_LETTERS or "_" in n)
