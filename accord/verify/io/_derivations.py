"""Read a derivation file: one step per line, text or Markdown, with line numbers kept.

Text files: blank lines and lines starting with ``#`` are skipped; ``  # note`` ends a line.
Markdown files: headings, blank lines and fence markers are skipped; inside a fenced code block
every line is a step; outside one, list items and lines with ``=`` or ``=>`` are steps and other
prose is skipped (a Markdown file with no such line is read line by line). Line syntax (premises,
definitions, unknowns, claims) is :mod:`accord.mathcheck.reading._steps`; a claim in prose is read for
its formulas by the judges. A line that cannot be read as written ("Given the equation:" is no
premise, "unknowns:" names nothing, a line over 2000 characters) is kept as kind ``unread`` with
the reason, and reported: only a file that cannot be read at all is an error.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from accord.errors import UserError
from accord.mathcheck import classify
from accord.verify.io._inputs import read_text

MAX_LINE = 2000
_COMMENT = re.compile(r"\s+#\s.*$|\s+#$")


@dataclass(frozen=True)
class DerivationLine:
    line: int  # 1-based line number in the file
    text: str  # the step as written (comment stripped)
    kind: str  # premise, definition, unknowns, claim, or unread
    note: str | None = None  # why an unread line could not be read


def _markdown_lines(lines: list[str]):
    in_fence = False
    for n, raw in enumerate(lines, 1):
        s = raw.strip()
        if s.startswith("```") or s.startswith("~~~"):
            in_fence = not in_fence
            continue
        if not s:
            continue
        if in_fence:
            if not s.startswith("#"):
                yield n, s
            continue
        if s.startswith("#"):
            continue
        if re.match(r"^(?:[-*+]\s+|\d+[.)]\s+)", s) or "=" in s or "⇒" in s:
            yield n, s
        elif re.match(r"^(?:given|assume|let|unknowns?)\b", s, re.IGNORECASE):
            yield n, s


def _text_lines(lines: list[str]):
    for n, raw in enumerate(lines, 1):
        s = raw.strip()
        if s and not s.startswith("#"):
            yield n, s


def parse_derivation(text: str, source: str = "<derivation>", markdown: bool = False) -> list[DerivationLine]:
    """The steps of a derivation; :class:`UserError` naming ``source:line`` for bad input."""
    lines = text.splitlines()
    out = []
    found = list((_markdown_lines if markdown else _text_lines)(lines))
    if markdown and not found:
        found = [(n, s) for n, s in _text_lines(lines) if not s.startswith(("```", "~~~"))]
    for n, s in found:
        s = _COMMENT.sub("", s).strip()
        if not s:
            continue
        if "\x00" in s:
            raise UserError(f"{source}:{n}: binary data in a text file")
        if len(s) > MAX_LINE:
            out.append(DerivationLine(n, s[:80] + "...", "unread", f"line longer than {MAX_LINE} characters"))
            continue
        line = classify(s)
        if line.kind == "unknowns" and not line.names:
            out.append(DerivationLine(n, s, "unread", "'unknowns:' names no symbols"))
        elif line.kind == "premise" and len(line.sides) < 2:
            out.append(
                DerivationLine(n, s, "unread", "a premise must be an equation (read as prose, not as a premise)")
            )
        else:
            out.append(DerivationLine(n, s, line.kind))
    if not out:
        raise UserError(f"{source}: no steps found (one step per line; see docs/proofs.md)")
    return out


def read_derivation(path: str | Path) -> list[DerivationLine]:
    p = Path(path)
    text = read_text(p, "derivation file")
    return parse_derivation(text, str(p), markdown=p.suffix.lower() in (".md", ".markdown"))
