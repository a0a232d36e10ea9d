"""A question with a short reference answer, solved in lines of text (the step loop's usual task).

The final answer is read from the last step that states it ("The answer is X", "Answer: X",
"#### X", ``\\boxed{X}``); a chain that never states one is read from the last number of its
last step, and the trace records which (``answer_source``).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from accord.mathcheck.answers import normalize_text
from accord.protocols import StepContext

_STATED = re.compile(
    r"(?:the\s+(?:final\s+)?answer\s+is|answer\s*:|####)\s*(?P<a>[^\n]*)|\\boxed\{(?P<b>[^{}]*)\}", re.IGNORECASE
)
_NUMBER = re.compile(r"-?\d[\d,]*(?:\.\d+)?(?:/\d+)?")


def stated_answer(step: str) -> str | None:
    """The answer a step states, if it states one."""
    found = None
    for m in _STATED.finditer(step):
        found = m.group("a") if m.group("a") is not None else m.group("b")
    if found is None:
        return None
    found = found.strip().strip("$*").strip()
    found = re.sub(r"[\s.;:!]+$", "", found)
    nums = _NUMBER.findall(found)
    if nums and re.fullmatch(r"[^\d]*" + re.escape(nums[0]) + r"[^\d]*", found):
        return nums[0].replace(",", "")  # "$12 apples" -> "12"
    return found or None


def extract_answer(steps: Sequence[str]) -> tuple[str | None, str]:
    """(answer, how it was found): "stated", "last_number" or "none"."""
    for step in reversed(steps):
        a = stated_answer(step)
        if a is not None:
            return a, "stated"
    if steps:
        nums = _NUMBER.findall(steps[-1])
        if nums:
            return nums[-1].replace(",", ""), "last_number"
    return None, "none"


def _number(text: str) -> float | None:
    try:
        if "/" in text:
            a, b = text.split("/", 1)
            return float(a) / float(b)
        return float(text.replace(",", ""))
    except (ValueError, ZeroDivisionError):
        return None


def answers_match(answer: str | None, reference: str) -> float:
    """1.0 when the answer equals the reference as a number (1e-6 relative) or as normalised text."""
    if answer is None:
        return 0.0
    a, r = _number(answer), _number(reference.strip())
    if a is not None and r is not None:
        return 1.0 if abs(a - r) <= 1e-6 * max(1.0, abs(r)) else 0.0
    return 1.0 if normalize_text(answer) == normalize_text(reference) else 0.0


@dataclass
class TextTask:
    """One question; ``scorer(answer, reference) -> float`` defaults to :func:`answers_match`."""

    id: str
    question: str
    reference: str
    worked_steps: tuple[str, ...] = ()
    metadata: dict[str, Any] = field(default_factory=dict)
    scorer: Callable[[str | None, str], float] | None = field(default=None, repr=False)

    def context(self) -> StepContext:
        return StepContext(self.question, reference=self.reference, metadata={"task_id": self.id, **self.metadata})

    def extract_answer(self, steps: Sequence[str]) -> str | None:
        return extract_answer(steps)[0]

    def answer_source(self, steps: Sequence[str]) -> str:
        return extract_answer(steps)[1]

    def score(self, steps: Sequence[str]) -> float:
        answer = self.extract_answer(steps)
        if self.scorer is not None:
            return float(self.scorer(answer, self.reference))
        return answers_match(answer, self.reference)
