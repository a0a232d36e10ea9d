"""The contracts every judge, generator and task implements.

Kept deliberately small: a judge scores a batch of candidate steps for one context and returns one
:class:`JudgeScore` per candidate; a score is a float in [0, 1] or ``None`` with the reason it could
not be given. Judges raise only for misconfiguration, never because one candidate was bad.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable


@dataclass(frozen=True)
class StepContext:
    """What a judge or generator sees when the next step is chosen."""

    question: str
    steps: tuple[str, ...] = ()
    attachments: tuple[Any, ...] = ()  # e.g. image paths or PIL images for VLM tasks
    reference: str | None = None  # worked reference, for judges allowed to see it (rarely)
    metadata: dict[str, Any] = field(default_factory=dict)

    def extend(self, step: str) -> StepContext:
        """The context after ``step`` has been accepted."""
        return StepContext(self.question, self.steps + (step,), self.attachments, self.reference, self.metadata)


@dataclass(frozen=True)
class JudgeScore:
    """One judge's verdict on one candidate: a score in [0, 1], or None and why.

    A None is either a failure (the judge could not score: timeout, crash, unreadable output) or an
    abstention (``abstained``: the judge ran and the candidate holds nothing it checks, e.g. no
    arithmetic for the arithmetic judge). Either way the judge leaves the panel for that candidate;
    only failures are counted as such.
    """

    value: float | None
    reason: str | None = None
    abstained: bool = False

    def __post_init__(self) -> None:
        if self.abstained and self.value is not None:
            raise ValueError("an abstaining judge gives no score")
        if self.value is not None:
            v = float(self.value)
            if not (0.0 <= v <= 1.0):
                raise ValueError(f"judge score {v!r} is outside [0, 1]")
            object.__setattr__(self, "value", v)

    @classmethod
    def failed(cls, reason: str) -> JudgeScore:
        return cls(None, reason)

    @classmethod
    def abstain(cls, reason: str) -> JudgeScore:
        """No score because the candidate holds nothing this judge checks (not a failure)."""
        return cls(None, reason, abstained=True)


@runtime_checkable
class Judge(Protocol):
    """Scores a batch of candidate next steps for one context."""

    name: str

    def score(self, ctx: StepContext, candidates: Sequence[str]) -> list[JudgeScore]: ...


@runtime_checkable
class Generator(Protocol):
    """Proposes candidate next steps; seeded so that runs repeat exactly.

    A generator whose candidate i depends only on (seed, i) may say so with ``seeded_by_row = True``
    and accept ``propose(ctx, n, seed, first=i)`` (candidates i .. i + n - 1); the step loop then asks
    for the rest of a step's candidates under the same seed.
    """

    def propose(self, ctx: StepContext, n: int, seed: int) -> list[str]: ...

    def is_final(self, step: str) -> bool: ...


@runtime_checkable
class Task(Protocol):
    """A question with a reference answer and a way to score a final chain."""

    id: str
    question: str

    def context(self) -> StepContext: ...

    def extract_answer(self, steps: Sequence[str]) -> str | None: ...

    def score(self, steps: Sequence[str]) -> float: ...
