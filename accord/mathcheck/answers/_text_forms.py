"""The textual forms of real final answers, turned into values or value texts (no sympy here).

Rules, in the order they apply (each documented in docs/jury.md):

- cleaning: Unicode NFKC; ≤ ≥ ≠ − × · ∞ √ as ASCII; a final \\boxed{...}, $...$, \\(...\\) or
  \\text{...} unwrapped; a trailing period, quotes and * (bold) dropped; white space collapsed.
- alternatives: "A, or equivalently B", "A, or approximately B", "A, or an equivalent form such
  as B", "A (i.e., B)", "A (e.g. B)": each part is read and the answer matches if any part does;
  "A (words)" is A with a gloss (:func:`gloss`).
- keywords: yes / no; non-existence ("none", "no solutions", "no such n exists", "there is no
  ...", "does not exist", the empty set) is the same verdict as "no"; "infinitely many",
  "infinite", "∞" are one verdict. A verdict may open a sentence ("None, since ...", "It is not
  possible to ...", "Not necessarily"), and "... has no real roots" is "no" unless it goes on
  "other than", "except", "but"; "Such a polynomial exists" is "yes" as a whole answer only.
- sentences stating a value: "3 is the only possible value", "The limit exists and is equal to
  2", "the answer is 5", "exactly one", "at least 1 number", "98 values", "n times", "12 cm",
  "x(n) > y(n-1) for all n ≥ 2" give 3, 2, 5, 1, 1, 98, n, 12 and the relation; "4, attained at
  x = 2", "3 when a = b" and "0 since ..." give the value before the condition (not in a
  piecewise answer). Number words up to twenty are digits; "exactly", "only", "at least", "at
  most" are dropped (the question sets the direction of a bound).
- comparisons stated in words: "always greater", "greater", "it is always smaller", "the left
  side is greater than the right side" are one verdict (greater / less / greater or equal / less
  or equal / equal); a sentence counts only when its subject names the first or the left side
  (it, the first, the former, the left side, LHS) or the second or the right side (which flips
  it), so "B is greater than A" is never read as "greater".
- function forms: "f(x) = x^2 + 1" (a name applied to variables, then = or ≡) is its right-hand
  side; "f(x) = 0 or f(x) = 1" (every item a form of the same function) is the list "0, 1".
- ± lists: "±1" is "+1 and -1", "x = 1 ± sqrt(2)" is "x = 1 + sqrt(2) and x = 1 - sqrt(2)"; in a
  list each item may have one ± ("±1, ±2", "x = ±1, ±sqrt(2)": every signed value).
- percent: "35.7%" is 0.357 and also matches 35.7.
- units: a number followed by a unit of length, mass, time, area, money or angle ("12 cm",
  "$30", "45°") is the number.
"""

from __future__ import annotations

import re
import unicodedata

_SPACE = re.compile(r"\s+")
_UNICODE = {
    "≤": "<=",
    "⩽": "<=",
    "≥": ">=",
    "⩾": ">=",
    "≠": "!=",
    "−": "-",
    "–": "-",
    "×": "*",
    "·": "*",
    "⋅": "*",
    "∞": "oo",
    "√": "sqrt",
    "÷": "/",
    "∅": "{}",
    "π": "pi",
    "’": "'",
    "\u00a0": " ",
}
_WRAPPERS = (("$$", "$$"), ("$", "$"), ("\\(", "\\)"), ("\\[", "\\]"))
_TEXT_CMD = re.compile(r"\\(?:text|textbf|mathrm|mbox|operatorname)\{([^{}]*)\}")

WORD_NUMBERS = {
    w: str(i)
    for i, w in enumerate(
        "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen "
        "sixteen seventeen eighteen nineteen twenty".split()
    )
}
WORD_NUMBERS.update({"a single": "1", "single": "1", "once": "1", "twice": "2", "thrice": "3"})

_ALTERNATIVE = re.compile(
    r",?\s+or\s+(?:equivalently|approximately|about|roughly|an?\s+equivalent\s+form\s+(?:such\s+as|like)|in\s+other\s+words)[,:]?\s+"
    r"|,\s*(?:equivalently|i\.e\.|that\s+is)[,:]?\s+",
    re.IGNORECASE,
)
_ASIDE = re.compile(
    r"^(?P<main>.+?)\s*\((?:i\.e\.|e\.g\.|that\s+is|namely|or)[,:]?\s*(?P<alt>[^()]+)\)$", re.IGNORECASE
)

_NO = re.compile(
    r"^(?:no|nope|false|none|nothing|never|impossible|not\s+possible|(?:(?:it|this|that)\s+is|it's)\s+(?:not\s+possible|impossible)"
    r"|(?:the\s+)?empty\s+set|\{\s*\}|\\emptyset|\\varnothing|no\s+solutions?)(?:$|\s*[,.;:!(]|\s+[-–—]\s)"
    r"|^(?:(?:it|this|that)\s+is\s+|it's\s+)?(?:not\s+possible|impossible)\s+(?:to|for)\b"
    r"|\b(?:has|have|admits?)\s+no\s+(?:[a-z]+\s+){0,2}(?:solutions?|roots?|zeros?)\b"
    r"(?!.*\b(?:other\s+than|except|besides|apart\s+from|but)\b)"
    r"|^no\s*[,.;:!]"
    r"|^no\s+(?!more\b|less\b|fewer\b|greater\b|larger\b|smaller\b)[a-z]"
    r"|^there\s+(?:is|are|exists?)\s+no\b|^there\s+(?:isn't|aren't|is\s+not|are\s+not)\b"
    r"|^none\s+(?:exists?|of)\b(?!.*\b(?:except|but|other\s+than|besides|apart\s+from)\b)"
    r"|^not\s+(?:necessarily|always)\b"
    r"|\b(?:does|do|can)\s*(?:not|n't)\s+exist\b|\bcannot\s+exist\b|\bnon-?existent\b",
    re.IGNORECASE,
)
_YES = re.compile(r"^(?:yes|yeah|yep|true|(?:it\s+is|it's)\s+(?:possible|true))(?:$|\s*[,.;:!]|\s)", re.IGNORECASE)
# "Such a polynomial exists", "There exists such a sequence": a whole answer only (a value may follow otherwise)
_EXISTS = re.compile(
    r"^(?:such\s+(?:an?\s+)?[a-z]+(?:\s+[a-z]+)?\s+(?:does\s+)?exists?|there\s+(?:exists?|is|are)\s+such\s+(?:an?\s+)?[a-z]+(?:\s+[a-z]+)?)$",
    re.IGNORECASE,
)
_INFINITE = re.compile(
    r"^(?:there\s+(?:are|exist)\s+)?(?:infinitely\s+many|an\s+infinite\s+(?:number|amount)|infinite(?:ly)?|infinity|unboundedly\s+many|oo|\+oo|\\infty)\b",
    re.IGNORECASE,
)

_FIRST = (
    r"(?:it|this|the\s+first(?:\s+(?:one|expression|quantity|number|side|term))?|the\s+former"
    r"|the\s+left(?:[- ]hand)?(?:\s+side)?|(?:the\s+)?lhs)"
)
_SECOND = (
    r"(?:the\s+second(?:\s+(?:one|expression|quantity|number|side|term))?|the\s+latter"
    r"|the\s+right(?:[- ]hand)?(?:\s+side)?|(?:the\s+)?rhs)"
)
_COMPARATIVE = re.compile(
    rf"^(?:(?P<subject>{_FIRST}|{_SECOND})\s+(?:is|are|will\s+be|remains?)\s+)?(?:always\s+|strictly\s+|necessarily\s+)*"
    r"(?P<word>greater|larger|bigger|more|less|smaller|fewer|equal)"
    r"(?:\s+than)?(?P<eq>\s+or\s+equal(?:\s+to)?)?"
    rf"(?:\s+(?:to\s+)?(?P<object>{_FIRST}|{_SECOND}))?(?:\s+(?:for\s+all|always)\b.*)?$",
    re.IGNORECASE,
)
_GREATER = {"greater", "larger", "bigger", "more"}
_FUNCTION = re.compile(
    r"^(?P<head>[A-Za-z]\w*\s*\(\s*[A-Za-z]\w*(?:\s*,\s*[A-Za-z]\w*)*\s*\))\s*(?:=|≡|\\equiv)\s*(?P<rhs>[^=<>]+)$"
)
_FOR_ALL = re.compile(r",?\s+for\s+(?:all|every|each|any)\b[^,]*$", re.IGNORECASE)
_PLUS_MINUS = re.compile(r"±|\+/-|\+-(?=\s*[\w(])")

# A sentence that states a value: each rule gives a shorter candidate text.
_QUANTIFIER = re.compile(
    r"^(?:exactly|precisely|only|just|at\s+least|at\s+most|no\s+more\s+than|no\s+less\s+than|no\s+fewer\s+than|"
    r"approximately|about|around|roughly|~|≈)\s+(?P<v>.+)$",
    re.IGNORECASE,
)
_VALUE_FIRST = re.compile(
    r"^(?P<v>.+?)\s+(?:is|are|would\s+be)\s+(?:the\s+|a\s+|an\s+)?(?:only|unique|sole|final|correct|required|desired|answer|"
    r"largest|smallest|greatest|least|maximum|minimum|maximal|minimal|possible|value|solution|result)\b.*$",
    re.IGNORECASE,
)
_VALUE_THEN_NOUN = re.compile(r"^(?P<v>\S+)\s+(?P<w>[a-z][a-z'-]*(?:\s+[a-z][a-z'-]*){0,2})$", re.IGNORECASE)
_QUALIFIER = re.compile(
    r"^(?P<v>.+?),?\s+(?:for\s+(?:all|every|each|any)\b|for\s+[a-z]\w*\s*(?:>=|<=|>|<|=|!=|in)\s*).*$", re.IGNORECASE
)
# "4, attained at x = 2", "3 when a = b = c", "0 since ...": the value before a condition or reason;
# never for piecewise answers (a second condition, "otherwise").
_CONDITION = re.compile(
    r"^(?P<v>.+?),?\s+(?:when|whenever|where|attained|achieved|reached|obtained|since|because)\b.*$", re.IGNORECASE
)
_PIECEWISE = re.compile(r"\b(?:otherwise|else|elsewhere)\b|\b(?:when|if|for)\b.*\b(?:when|if|for)\b", re.IGNORECASE)
# "0 (none of the values)": a closing parenthesis of words that says the answer again or comments on it.
_GLOSS = re.compile(r"^(?P<main>.*[^\s(])\s+\((?P<gloss>[^()]*)\)$")
_GLOSS_WORD = re.compile(r"(?<![\\A-Za-z])[A-Za-z]{3,}(?![A-Za-z(])")
_NOT_GLOSS = re.compile(r"^\s*(?:mod(?:ulo)?|base)\b|[=<>]|\\", re.IGNORECASE)
_MATH_WORDS = frozenset("sqrt cbrt log exp sin cos tan floor ceil abs gcd lcm max min mod".split())
_LEAD_IN = re.compile(
    r"^.*\b(?:is|are|equals|was|becomes|be|gives|get|obtain)\s+(?:equal\s+to\s+|exactly\s+|precisely\s+|given\s+by\s+)?(?P<v>.+)$"
    r"|^.*?(?:answer|result)\s*[:=]\s*(?P<v2>.+)$",
    re.IGNORECASE,
)
_DEGREE = re.compile(r"^(?P<v>.+?)\s*(?:°|\^\s*\{?\\circ\}?|\\circ|\s+degrees?)$", re.IGNORECASE)
_CURRENCY = re.compile(r"^\$\s*(?P<v>\d[\d,]*(?:\.\d+)?)$")
_UNIT = re.compile(
    r"^(?P<v>[-+]?\d[\d,]*(?:\.\d+)?(?:/\d+)?)\s*(?:mm|cm|dm|m|km|in|ft|yd|mi|mg|g|kg|lbs?|oz|ml|l|s|sec|min|h|hrs?|ms|"
    r"km/h|m/s|mph|(?:sq\s*)?(?:cm|m|km|units?)(?:\^?[23])?|units?|dollars?|cents?|euros?|degrees?|deg|rad|radians?)\.?$",
    re.IGNORECASE,
)


def _unwrap_boxed(t: str) -> str:
    """The contents of the last \\boxed{...} (the answer a solution marks), if there is one."""
    start = t.rfind("\\boxed{")
    if start < 0:
        return t
    i = start + len("\\boxed{")
    depth = 1
    for j in range(i, len(t)):
        if t[j] == "{":
            depth += 1
        elif t[j] == "}":
            depth -= 1
            if depth == 0:
                return t[i:j]
    return t


def clean(text: str) -> str:
    """The answer with its typography normalised (see the module docstring)."""
    t = unicodedata.normalize("NFKC", text)
    for k, v in _UNICODE.items():
        t = t.replace(k, v)
    t = _SPACE.sub(" ", t).strip()
    t = _unwrap_boxed(t)
    m = _CURRENCY.match(t)
    if m:
        return m.group("v")
    changed = True
    while changed:
        changed = False
        t = t.strip().rstrip(".").strip().strip("\"'`*").strip()
        for a, b in _WRAPPERS:
            if len(t) > len(a) + len(b) and t.startswith(a) and t.endswith(b) and a not in t[len(a) : -len(b)]:
                t, changed = t[len(a) : -len(b)], True
        new = _TEXT_CMD.sub(r"\1", t)
        if new != t:
            t, changed = new, True
    return _SPACE.sub(" ", t).strip()


def normalize_text(text: str) -> str:
    """Cleaned, case folded, trailing punctuation and $ dropped: the key of plain text comparison."""
    t = unicodedata.normalize("NFKC", text).strip().strip("$").strip()
    t = _TRAILING.sub("", t)  # "Yes!" is "Yes", but "n!", "10!" and "(2n)!" are factorials
    return _SPACE.sub(" ", t).casefold()


_TRAILING = re.compile(r"(?:[\s.;:]|(?<=[A-Za-z]{2})!)+$")


def alternatives(text: str) -> list[str]:
    """The parts of an answer that offers alternatives ("A, or equivalently B"; "A (i.e., B)")."""
    m = _ASIDE.match(text)
    if m:
        return alternatives(m.group("main")) + [m.group("alt").strip()]
    parts = [p.strip() for p in _ALTERNATIVE.split(text)]
    return [p for p in parts if p]


def gloss(text: str) -> tuple[str, str] | None:
    """``(main, gloss)`` when the answer ends in a parenthesis of words ("0 (none of the values)"),
    else None. A parenthesis of math ("(mod 5)", "(x = 2)", "f(x)") is not a gloss."""
    m = _GLOSS.match(text.strip())
    if not m:
        return None
    main, words = m.group("main").strip(), m.group("gloss").strip()
    if _NOT_GLOSS.search(words) or main.count("(") != main.count(")"):
        return None
    if not any(w.lower() not in _MATH_WORDS for w in _GLOSS_WORD.findall(words)):
        return None
    return main, words


def keyword(text: str) -> str | None:
    """``yes``, ``no`` or ``infinite`` when the answer states a verdict, else None."""
    t = text.strip().lower()
    if _INFINITE.match(t):
        return "infinite"
    if _YES.match(t) or _EXISTS.match(t):
        return "yes"
    if _NO.search(t):
        return "no"
    return None


def comparison(text: str) -> str | None:
    """The verdict of a comparison stated in words (see the module docstring), else None."""
    m = _COMPARATIVE.match(text.strip())
    if not m:
        return None
    word = m.group("word").lower()
    if word == "equal":
        return None if m.group("eq") else "equal"
    first = re.fullmatch(_FIRST, (m.group("subject") or "it").lower()) is not None
    obj = m.group("object")
    if obj is not None and (re.fullmatch(_FIRST, obj.lower()) is not None) == first:
        return None  # "the left side is greater than the left side": nothing sensible
    greater = (word in _GREATER) == first
    return ("greater" if greater else "less") + (" or equal" if m.group("eq") else "")


def function_form(text: str) -> tuple[str, str] | None:
    """``(head, rhs)`` of "f(x) = ..." / "f(x) ≡ ..." (a name applied to variables; the head
    without spaces, a closing "for all x" dropped from the right-hand side), else None."""
    m = _FUNCTION.match(text.strip())
    if not m:
        return None
    return re.sub(r"\s+", "", m.group("head")), _FOR_ALL.sub("", m.group("rhs")).strip()


def function_value(text: str) -> str | None:
    """The right-hand side of "f(x) = ..." (a name applied to variables), else None."""
    form = function_form(text)
    return form[1] if form else None


def plus_minus_signs(text: str) -> int:
    """How many ± signs (±, +/-, +-, LaTeX's \\pm) the text has."""
    return len(_PLUS_MINUS.findall(text)) + text.count("\\pm")


def plus_minus(text: str) -> str | None:
    """ "a ± b" as "a + b and a - b" (one ± only; LaTeX's \\pm is read by the LaTeX parser), else None."""
    found = _PLUS_MINUS.findall(text)
    if len(found) != 1:
        return None
    i = text.index(found[0])
    head, tail = text[:i], text[i + len(found[0]) :]
    return f"{head}+{tail} and {head}-{tail}"


def percent(text: str) -> str | None:
    """The number of "35.7%" / "35.7 percent" (without the sign), else None."""
    m = re.fullmatch(r"(?P<v>[-+]?\d+(?:\.\d+)?)\s*(?:\\?%|percent|per\s*cent)", text.strip(), re.IGNORECASE)
    return m.group("v") if m else None


def number_with_unit(text: str) -> str | None:
    """The number of "12 cm", "30 dollars", "3 units", else None (a unit is not a variable here)."""
    m = _UNIT.match(text.strip())
    return m.group("v") if m else None


def value_candidates(text: str) -> list[str]:
    """Shorter texts a sentence may state its value as, most specific first (tried in order)."""
    out: list[str] = []
    t = text.strip()
    low = t.lower()
    if low in WORD_NUMBERS:
        out.append(WORD_NUMBERS[low])
    rules = (_DEGREE, _QUANTIFIER, _QUALIFIER, _VALUE_FIRST, _VALUE_THEN_NOUN)
    if not _PIECEWISE.search(t):
        rules += (_CONDITION,)
    for rule in rules:
        m = rule.match(t)
        if m and m.group("v").strip() != t:
            out.append(m.group("v").strip())
    m = _LEAD_IN.match(t)
    if m:
        v = (m.group("v") or m.group("v2") or "").strip()
        if v and v != t:
            out.append(v)
    return [c.rstrip(".,;:").strip() for c in out if c.strip()]
