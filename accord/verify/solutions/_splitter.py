"""Split a written solution into steps: lines, then sentences; display math kept whole.

1. Display math (``$$..$$``, ``\\[..\\]``, ``\\begin{..}..\\end{..}``) and fenced code blocks are
   one step each, however many lines they span.
2. Every other non-blank line is cut into sentences: after ``.``, ``!`` or ``?`` followed by a space
   and then an upper-case letter, a digit, ``$``, ``\\(`` or an opening bracket, never inside inline
   math (``$..$``, ``\\(..\\)``), after a list number (``1.``), a decimal point or an abbreviation
   (e.g., i.e., etc., vs., cf., Fig., Eq., resp.).
3. Markdown headings and list items are steps like any line; blank pieces are dropped.
"""

from __future__ import annotations

import re

_BLOCK = re.compile(
    r"\$\$.+?\$\$|\\\[.+?\\\]|\\begin\{(?P<env>[A-Za-z*]+)\}.+?\\end\{(?P=env)\}|^```.*?^```[^\n]*$",
    re.DOTALL | re.MULTILINE,
)
_INLINE = re.compile(r"(?<!\\)\$[^$\n]+?(?<!\\)\$|\\\(.+?\\\)")
_BOUNDARY = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9$(\[]|\\\()")
_ABBREVIATIONS = ("e.g.", "i.e.", "etc.", "vs.", "cf.", "Fig.", "Eq.", "resp.", "approx.", "No.", "Mr.", "Dr.")


def _sentences(line: str) -> list[str]:
    """Sentences of one line, never cut inside inline math."""
    masked = _INLINE.sub(lambda m: "\x00" * len(m.group(0)), line)
    out, start = [], 0
    for m in _BOUNDARY.finditer(masked):
        head = line[start : m.start()]
        if head.rstrip().endswith(_ABBREVIATIONS) or re.fullmatch(r"\s*(?:\d+|[A-Za-z])[.)]", head):
            continue
        out.append(head)
        start = m.end()
    out.append(line[start:])
    return [s.strip() for s in out if s.strip()]


def split_steps(text: str) -> list[str]:
    """The steps of a solution written as text or Markdown (see the module docstring)."""
    steps: list[str] = []
    pos = 0
    for m in _BLOCK.finditer(text):
        steps.extend(_prose_steps(text[pos : m.start()]))
        steps.append(m.group(0).strip())
        pos = m.end()
    steps.extend(_prose_steps(text[pos:]))
    return [s for s in steps if s]


def _prose_steps(text: str) -> list[str]:
    out = []
    for line in text.splitlines():
        if line.strip():
            out.extend(_sentences(line))
    return out
