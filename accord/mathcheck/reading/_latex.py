"""LaTeX math to the plain notation the parser reads (``\\frac{a}{b}`` -> ``((a)/(b))``).

Relation commands become their Unicode signs (``\\le`` -> ``≤``), so a chain can be split on them;
commands that name something accord does not evaluate (sums, integrals, limits, ``\\infty``,
``\\pm``, set relations) become markers the parser refuses with a reason, never a guess. Prose
inside math (``\\text{..}``) becomes :data:`BREAK`, where a reader splits the formula.
"""

from __future__ import annotations

import re

from accord.mathcheck.reading._vocabulary import GREEK

BREAK = "\x1f"  # prose inside a formula: relation chains do not run across it
ELLIPSIS = "…"
UNREAD = "¿"  # followed by the command name: something the parser refuses to evaluate

_FRACTIONS = ("frac", "dfrac", "tfrac", "cfrac")
_BINOMS = ("binom", "dbinom", "tbinom")
_DROPPED = {
    "left",
    "right",
    "big",
    "Big",
    "bigg",
    "Bigg",
    "bigl",
    "bigr",
    "Bigl",
    "Bigr",
    "biggl",
    "biggr",
    "displaystyle",
    "textstyle",
    "limits",
    "nolimits",
    "mathrm",
    "mathit",
    "mathbf",
    "boldsymbol",
    "rm",
    "bf",
}
_SPACES = {"quad", "qquad", ",", ";", ":", "!", " ", "enspace", "thinspace", "medspace", "thickspace"}
_SIGNS = {
    "cdot": "*",
    "times": "*",
    "ast": "*",
    "div": "/",
    "le": "≤",
    "leq": "≤",
    "leqslant": "≤",
    "ge": "≥",
    "geq": "≥",
    "geqslant": "≥",
    "ne": "≠",
    "neq": "≠",
    "approx": "≈",
    "equiv": "≡",
    "lt": "<",
    "gt": ">",
    "cdots": ELLIPSIS,
    "ldots": ELLIPSIS,
    "dots": ELLIPSIS,
    "dotsb": ELLIPSIS,
    "dotsc": ELLIPSIS,
    "vdots": ELLIPSIS,
    "ddots": ELLIPSIS,
    "mod": " mod ",
    "bmod": " mod ",
    "lfloor": " floor(",
    "rfloor": ")",
    "lceil": " ceil(",
    "rceil": ")",
    "{": "(",
    "}": ")",
    "lbrace": "(",
    "rbrace": ")",
    "langle": "(",
    "rangle": ")",
    "vert": "|",
    "lvert": "|",
    "rvert": "|",
    "mid": " ¿mid ",
    "implies": " ⇒ ",
    "Rightarrow": " ⇒ ",
    "Longrightarrow": " ⇒ ",
    "rightarrow": " ⇒ ",
    "to": " ⇒ ",
    "iff": " ⇒ ",
    "Leftrightarrow": " ⇒ ",
    "longrightarrow": " ⇒ ",
    "therefore": " ⇒ ",
    "%": "¿percent",
    "#": "",
    "pm": " ± ",
    "mp": " ∓ ",
}
_NAMES = {
    "pi",
    "sqrt",
    "ln",
    "log",
    "exp",
    "sin",
    "cos",
    "tan",
    "cot",
    "sec",
    "csc",
    "gcd",
    "lcm",
    "max",
    "min",
    *GREEK,
    "deg",
}
_PROSE = (
    "text",
    "textbf",
    "textit",
    "mbox",
    "textrm",
    "texttt",
    "emph",
    "hbox",
    "operatorname",
    "mathbb",
    "mathcal",
    "mathfrak",
    "label",
    "tag",
)


class LatexError(ValueError):
    """Malformed LaTeX (unbalanced braces, a \\frac without its two groups)."""


def group(s: str, i: int) -> tuple[str, int]:
    """The brace group starting at ``s[i] == '{'`` (nesting respected) and the index after it."""
    depth = 0
    for j in range(i, len(s)):
        c = s[j]
        if c == "\\" and j + 1 < len(s) and s[j + 1] in "{}":
            continue
        if c == "{" and (j == 0 or s[j - 1] != "\\"):
            depth += 1
        elif c == "}" and (j == 0 or s[j - 1] != "\\"):
            depth -= 1
            if depth == 0:
                return s[i + 1 : j], j + 1
    raise LatexError("unbalanced braces")


def _argument(s: str, i: int) -> tuple[str, int]:
    """One argument of a command: a brace group, or a single character/command (``\\frac12``)."""
    while i < len(s) and s[i] == " ":
        i += 1
    if i >= len(s):
        raise LatexError("a command is missing its argument")
    if s[i] == "{":
        return group(s, i)
    if s[i] == "\\":
        m = re.match(r"\\[A-Za-z]+", s[i:])
        if m:
            return m.group(0), i + len(m.group(0))
    return s[i], i + 1


def from_latex(s: str) -> str:
    """Plain math text for LaTeX math (no ``$`` delimiters)."""
    out: list[str] = []
    i = 0
    while i < len(s):
        c = s[i]
        if c == "\\":
            m = re.match(r"\\([A-Za-z]+|.)", s[i:])
            word = m.group(1) if m else ""
            i += 1 + len(word)
            if word in _FRACTIONS:
                num, i = _argument(s, i)
                den, i = _argument(s, i)
                out.append(f"(({from_latex(num)})/({from_latex(den)}))")
            elif word in _BINOMS:
                n, i = _argument(s, i)
                k, i = _argument(s, i)
                out.append(f" binom({from_latex(n)}, {from_latex(k)})")
            elif word == "sqrt":
                index = None
                if i < len(s) and s[i] == "[":
                    j = s.find("]", i)
                    if j < 0:
                        raise LatexError("\\sqrt[ without ]")
                    index, i = s[i + 1 : j], j + 1
                body, i = _argument(s, i)
                out.append(f" root({from_latex(body)}, {from_latex(index)})" if index else f" sqrt({from_latex(body)})")
            elif word == "pmod":
                body, i = _argument(s, i)
                out.append(f" (mod {from_latex(body)})")
            elif word in ("boxed", "underbrace", "overbrace", "overline", "bar", "hat", "tilde", "widehat"):
                if i < len(s) and s[i] in " {":
                    body, i = _argument(s, i)
                    out.append(f"({from_latex(body)})" if word == "boxed" else f" ¿{word} ")
            elif word == "lim" and re.match(r"\s*_\s*\{", s[i:]):  # lim_{x \to a}: its arrow is no implication
                j = s.index("{", i)
                body, i = group(s, j)
                out.append(" ¿lim _{" + re.sub(r"⇒|→|->", " ¿to ", from_latex(body)) + "} ")
            elif word == "choose":
                out.append(" choose ")
            elif word in _PROSE:
                if i < len(s) and s[i] in " {":
                    body, i = _argument(s, i)
                    if word == "operatorname":
                        out.append(" " + body.strip())
                    elif word in ("mathbb", "mathcal", "mathfrak"):
                        out.append(" ¿set ")
                    else:
                        out.append(BREAK)
            elif word in _DROPPED:
                continue
            elif word in _SPACES:
                out.append(" ")
            elif word in _SIGNS:
                out.append(_SIGNS[word])
            elif word in _NAMES:
                out.append(" " + ("lamda" if word == "lambda" else word) + " ")
            elif word == "\\":
                out.append(BREAK)  # a line break in an align environment
            elif word in ("begin", "end"):
                if i < len(s) and s[i] == "{":
                    _, i = group(s, i)
                out.append(BREAK)
            elif word:
                out.append(f" ¿{word} ")
        elif c == "^" and i + 1 < len(s) and s[i + 1] == "{":
            body, i = group(s, i + 1)
            out.append(f"^({from_latex(body)})")
        elif c == "_" and i + 1 < len(s) and s[i + 1] == "{":
            body, i = group(s, i + 1)
            out.append("_{" + from_latex(body).strip() + "}")
        elif c == "{" or c == "}":
            out.append("(" if c == "{" else ")")
            i += 1
        elif c == "&":
            i += 1
        elif c == "~":
            out.append(" ")
            i += 1
        else:
            out.append(c)
            i += 1
    return "".join(out)
