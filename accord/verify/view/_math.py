"""Math in user text: which spans are TeX, marked for KaTeX to typeset in the browser.

:func:`tex_html` escapes a text and wraps each math span in ``<span class="tex">SOURCE</span>``
(``data-display="1"`` for display math). The page's script typesets those spans with the KaTeX
shipped in ``_katex/`` (inlined into every page, fonts included, so a page still opens offline);
the TeX source stays the span's text until then, and copying typeset math gives the source back
(KaTeX's copy-tex). Spans: ``$$…$$``, ``\\[…\\]`` and ``\\begin{…}…\\end{…}`` (display), ``\\(…\\)``
and ``$…$`` (inline, with pandoc's rule so that "$5 and $10" stays text), and common bare commands
written outside any delimiter (``\\frac{1}{2}``, ``\\boxed{5}``, ``\\sqrt{2}``).
"""

from __future__ import annotations

import html
import re
from functools import lru_cache
from importlib import resources

# Bare commands typeset even outside $…$: those solutions and answers write without delimiters.
BARE = (
    "frac",
    "dfrac",
    "tfrac",
    "sqrt",
    "boxed",
    "binom",
    "cdot",
    "times",
    "div",
    "pm",
    "mp",
    "le",
    "leq",
    "ge",
    "geq",
    "neq",
    "ne",
    "approx",
    "equiv",
    "infty",
    "pi",
    "theta",
    "alpha",
    "beta",
    "gamma",
    "delta",
    "lambda",
    "sigma",
    "sum",
    "prod",
    "int",
    "lfloor",
    "rfloor",
    "lceil",
    "rceil",
    "log",
    "ln",
    "sin",
    "cos",
    "tan",
    "circ",
    "angle",
    "cdots",
    "ldots",
    "dots",
    "in",
    "subseteq",
    "cup",
    "cap",
    "mid",
    "pmod",
    "bmod",
    "mathbb",
    "text",
    "mathrm",
    "overline",
    "vec",
    "hat",
)
_DELIMITED = re.compile(
    r"(?P<dd>\$\$(?P<dd_src>.+?)\$\$)"
    r"|(?P<br>\\\[(?P<br_src>.+?)\\\])"
    r"|(?P<env>\\begin\{(?P<env_name>[A-Za-z*]+)\}.+?\\end\{(?P=env_name)\})"
    r"|(?P<pa>\\\((?P<pa_src>.+?)\\\))"
    r"|(?P<d>(?<![\\$])\$(?=[^\s$])(?P<d_src>(?:\\.|[^$\\])*?[^\s\\])\$(?!\d))",
    re.DOTALL,
)
_BARE = re.compile(r"\\(?:" + "|".join(sorted(BARE, key=len, reverse=True)) + r")(?![A-Za-z])")


def _balanced(text: str, i: int) -> int | None:
    """The index after the group opened at ``i`` ({ or [), or None if it never closes."""
    close, depth = "}" if text[i] == "{" else "]", 0
    for k in range(i, len(text)):
        if text[k] == text[i]:
            depth += 1
        elif text[k] == close:
            depth -= 1
            if depth == 0:
                return k + 1
    return None


def _groups_end(text: str, i: int) -> int:
    """The end of the brace/bracket groups (and ^/_ scripts) that follow a bare command at ``i``."""
    while i < len(text):
        if text[i] in "{[" or (text[i] in "^_" and text[i + 1 : i + 2] == "{"):
            end = _balanced(text, i if text[i] in "{[" else i + 1)
            if end is None:
                return i
            i = end
        elif text[i] in "^_" and text[i + 1 : i + 2].strip():
            i += 2
        else:
            return i
    return i


def esc(value) -> str:
    return html.escape("" if value is None else str(value), quote=True)


def _span(src: str, display: bool) -> str:
    return f'<span class="tex" data-display="{1 if display else 0}">{esc(src)}</span>'


def _bare(text: str) -> str:
    out, pos = [], 0
    for m in _BARE.finditer(text):
        if m.start() < pos:
            continue
        end = _groups_end(text, m.end())
        out += [esc(text[pos : m.start()]), _span(text[m.start() : end], False)]
        pos = end
    out.append(esc(text[pos:]))
    return "".join(out)


def tex_html(value) -> str:
    """The text escaped, with each math span marked for typesetting (see the module's docstring)."""
    text = "" if value is None else str(value)
    if "$" not in text and "\\" not in text:
        return esc(text)
    out, pos = [], 0
    for m in _DELIMITED.finditer(text):
        out.append(_bare(text[pos : m.start()]))
        if m.group("env"):
            out.append(_span(m.group("env"), True))
        else:
            kind = next(k for k in ("dd", "br", "pa", "d") if m.group(k))
            out.append(_span(m.group(f"{kind}_src"), kind in ("dd", "br")))
        pos = m.end()
    out.append(_bare(text[pos:]))
    return "".join(out)


@lru_cache(maxsize=1)
def katex_assets() -> tuple[str, str]:
    """``(css, script)``: KaTeX's stylesheet with its fonts inlined as data URIs, and its script with copy-tex."""
    import base64

    root = resources.files("accord.verify.view") / "_katex"
    css = (root / "katex.min.css").read_text(encoding="utf-8")

    def font(m: re.Match) -> str:
        data = base64.b64encode((root / "fonts" / f"{m.group(1)}.woff2").read_bytes()).decode("ascii")
        return f'url(data:font/woff2;base64,{data}) format("woff2")'

    css = re.sub(r'url\(fonts/([\w-]+)\.woff2\) format\("woff2"\)(?:,url\(fonts/[\w.-]+\) format\("\w+"\))*', font, css)
    script = "\n".join((root / name).read_text(encoding="utf-8") for name in ("katex.min.js", "copy-tex.min.js"))
    return css, script


__all__ = ["BARE", "katex_assets", "tex_html"]
