"""The contracts every judge, generator and task implements.

Kept deliberately small: a judge scores a batch of candidate steps for one context and returns one
:class:`JudgeScore` per candidate; a score is a float in [0, 1] or ``None`` with the reason it could
not be given. Judges raise only for misconfiguration, never because one candidate was bad.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from itertools import islice
from typing import Any, Protocol, runtime_checkable


def context_key(previous: str, text: str) -> str:
    """The key of a context after ``text``, chained from the key before it: one hash per step, so
    a long solution's keys cost as much as its text (the problem's key is ``context_key("", problem)``)."""
    h = hashlib.blake2b(previous.encode(), digest_size=20)
    h.update(b"\x00")
    h.update(text.encode("utf-8", "surrogatepass"))
    return h.hexdigest()


class StepsBefore(Sequence):
    """The first ``n`` steps of a solution, without copying them: the steps before step ``n`` of a
    long solution cost nothing to hand to a judge that does not read them all."""

    __slots__ = ("_steps", "_n")

    def __init__(self, steps: tuple[str, ...], n: int):
        self._steps, self._n = steps, min(max(n, 0), len(steps))

    def __len__(self) -> int:
        return self._n

    def __getitem__(self, i):
        if isinstance(i, slice):
            return tuple(self._steps[j] for j in range(self._n)[i])
        return self._steps[range(self._n)[i]]

    def __iter__(self) -> Iterator[str]:
        return islice(self._steps, self._n)

    def __eq__(self, other) -> bool:
        return isinstance(other, Sequence) and tuple(self) == tuple(other)

    def __hash__(self) -> int:
        return hash(tuple(self))

    def __add__(self, other) -> tuple[str, ...]:
        return tuple(self) + tuple(other)

    def __radd__(self, other) -> tuple[str, ...]:
        return tuple(other) + tuple(self)

    def __reduce__(self):
        return tuple, (tuple(self),)

    def __repr__(self) -> str:
        return f"StepsBefore({tuple(self)!r})"


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
