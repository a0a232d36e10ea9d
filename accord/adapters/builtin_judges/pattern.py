"""Judge type ``pattern``: does the step match a regular expression (a required format, a forbidden
phrase)? Model-free and instant; a step that does not match scores ``0`` (``1`` with ``negate``).

``{type: pattern, pattern: 'answer is -?\\d+', name: answer_format}``: Python's ``re`` syntax, searched
anywhere in the step (``^``/``$`` anchor it), case-insensitive unless ``case_sensitive: true``.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from accord.adapters._registry import JudgeSpec, register_judge
from accord.protocols import JudgeScore, StepContext

MAX_PATTERN = 1_000  # characters: a pattern is a format check, not a program


class PatternJudge:
    """1 if the step matches the pattern (0 with ``negate``), else the opposite; never fails."""

    def __init__(self, pattern: str, name: str = "pattern", negate: bool = False, case_sensitive: bool = False):
        self.name = name
        self.negate = bool(negate)
        self.regex = re.compile(pattern, 0 if case_sensitive else re.IGNORECASE)

    def describe(self) -> dict:
        return {"pattern": self.regex.pattern, "negate": self.negate}

    def score(self, ctx: StepContext, candidates: Sequence[str]) -> list[JudgeScore]:
        out = []
        for text in candidates:
            hit = self.regex.search(text) is not None
            ok = hit != self.negate
            said = "matches" if hit else "does not match"
            out.append(JudgeScore(1.0 if ok else 0.0, f"{said} {self.regex.pattern!r}"))
        return out


@dataclass(frozen=True)
class PatternSpec(JudgeSpec):
    """``{type: pattern, pattern: REGEX, negate: false, case_sensitive: false}``."""

    pattern: str | None = None
    negate: bool = False
    case_sensitive: bool = False

    def __post_init__(self):
        if not isinstance(self.pattern, str) or not self.pattern:
            raise ValueError("needs a 'pattern' (a regular expression)")
        if len(self.pattern) > MAX_PATTERN:
            raise ValueError(f"'pattern' is {len(self.pattern)} characters; at most {MAX_PATTERN}")
        try:
            re.compile(self.pattern)
        except re.error as exc:
            raise ValueError(f"'pattern' is not a regular expression: {exc}") from None
        for key in ("negate", "case_sensitive"):
            if not isinstance(getattr(self, key), bool):
                raise ValueError(f"'{key}' must be true or false, got {getattr(self, key)!r}")


@register_judge("pattern", PatternSpec, columns={"pattern": 1.0})
def _pattern(spec: PatternSpec, models: dict):
    """Does the step match a regular expression (a required format, a forbidden phrase)? Model-free."""
    return PatternJudge(spec.pattern, spec.name or "pattern", spec.negate, spec.case_sensitive)
