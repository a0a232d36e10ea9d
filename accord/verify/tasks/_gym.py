"""reasoning-gym problems as tasks, scored by the data set's own ``score_answer``.

The built-in default is ``basic_arithmetic`` restricted to two or three terms of one or two digits
with + and - only: SmolLM2-135M solves part of these (so verification has something to improve
and something to lose), the answers are exact integers, and every step the model writes ("12 +
7 = 19") can be checked by the arithmetic judge. A worked reference (left-to-right partial
results) is attached to each problem. ``gsm_symbolic`` (with the data set's worked solution) and
any other reasoning-gym data set are available by name.
"""

from __future__ import annotations

import re
from typing import Any

from accord.extras import require
from accord.verify.tasks._registry import register_task
from accord.verify.tasks._text import TextTask

EASY_ARITHMETIC: dict[str, Any] = dict(
    min_terms=2,
    max_terms=3,
    min_digits=1,
    max_digits=2,
    operators=("+", "-"),
    allow_parentheses=False,
    allow_negation=False,
)


def _worked_arithmetic(expression: str) -> tuple[str, ...]:
    """Left-to-right partial results of a +/- expression ("3 + 4 - 2" -> "3 + 4 = 7", "7 - 2 = 5")."""
    tokens = re.findall(r"\d+|[+\-]", expression)
    if not tokens or not tokens[0].isdigit():
        return ()
    acc, steps = int(tokens[0]), []
    for op, num in zip(tokens[1::2], tokens[2::2]):
        if not num.isdigit():
            return ()
        new = acc + int(num) if op == "+" else acc - int(num)
        steps.append(f"{acc} {op} {num} = {new}")
        acc = new
    return tuple(steps) + (f"The answer is {acc}.",)


def _worked(entry: dict) -> tuple[str, ...]:
    meta = entry.get("metadata", {})
    if meta.get("answer_cot"):
        return tuple(s.strip() for s in str(meta["answer_cot"]).split("\n") if s.strip())
    if meta.get("expression"):
        return _worked_arithmetic(str(meta["expression"]))
    return ()


def gym_tasks(dataset: str, size: int = 10, seed: int = 0, **config) -> list[TextTask]:
    """``size`` problems of reasoning-gym data set ``dataset`` drawn with ``seed``."""
    reasoning_gym = require("reasoning_gym", "reasoning-gym tasks")
    if size < 1:
        raise ValueError(f"size must be >= 1, got {size}")
    try:
        ds = reasoning_gym.create_dataset(dataset, size=size, seed=seed, **config)
    except (KeyError, ValueError, TypeError, AssertionError) as exc:
        raise ValueError(f"reasoning-gym data set {dataset!r} with {config}: {exc}") from None
    tasks = []
    for i, entry in enumerate(ds):

        def scorer(answer, reference, _entry=entry, _ds=ds):
            return float(_ds.score_answer(answer, _entry)) if answer is not None else 0.0

        tasks.append(
            TextTask(
                id=f"{dataset}/{seed}/{i}",
                question=entry["question"],
                reference=str(entry["answer"]),
                worked_steps=_worked(entry),
                metadata={"source": "reasoning_gym", "dataset": dataset},
                scorer=scorer,
            )
        )
    return tasks


@register_task("reasoning_gym")
def reasoning_gym_tasks(dataset: str = "basic_arithmetic", size: int = 10, seed: int = 0, **config) -> list[TextTask]:
    """Any reasoning-gym data set by name, with its own configuration options."""
    return gym_tasks(dataset, size, seed, **config)


@register_task("basic_arithmetic")
def basic_arithmetic(size: int = 10, seed: int = 0, **config) -> list[TextTask]:
    """Short +/- problems a 135M model partly solves (the built-in default); options override."""
    return gym_tasks("basic_arithmetic", size, seed, **{**EASY_ARITHMETIC, **config})


@register_task("gsm_symbolic")
def gsm_symbolic(size: int = 10, seed: int = 0, **config) -> list[TextTask]:
    """Grade-school word problems with the data set's worked solution as reference steps."""
    return gym_tasks("gsm_symbolic", size, seed, **config)
