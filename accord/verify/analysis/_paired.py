"""What verification bought in a run, problem by problem: paired comparisons of its chains.

A run's chains share candidates and judge scores, so they are compared paired over problems: for
each pair, the accuracy difference, a paired bootstrap interval of it (problems resampled) and the
exact McNemar test (:func:`accord.verify.analysis._evaluation.paired_difference`). The comparisons:

- every verified chain against the unverified base chain, as recorded;
- the run's primary chain (VERDICT by default) against Mean (as recorded when the run has a Mean
  chain, else replayed), against mean-preserving VERDICT and against the best single judge (each
  judge alone, ranking candidates by its raw score), replayed on the recorded candidates and scores.

A replayed chain that takes a candidate no recorded chain took has left recorded ground. Given the
run's tasks and its generator's ``is_final``, a replayed chain that ends there (the step ends the
answer, or the step budget is spent) is still scored exactly, by the task itself, as the step loop
would score it (:func:`with_task_scores`); a chain that would need a context nobody generated has
unknown correctness, and that problem is left out of the comparison (``excluded``). The best
single judge is the one most accurate on this run's own problems (over its exact chains), which
favours it: a comparison against it is conservative for the panel.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

from accord.protocols import Task
from accord.verify.analysis._evaluation import paired_difference, verdict_params
from accord.verify.analysis._records import TaskEnd, Trace, read_trace
from accord.verify.analysis._replay import ContextTree, PolicySpec, make_spec, replay
from accord.verify.analysis._report import primary_chain
from accord.verify.loop import BASE, json_safe


class _EndsScoredByTask(dict):
    """Recorded chain ends by (task id, steps); on a miss, the end a chain with these steps has, scored by its task."""

    def __init__(self, recorded, tasks: Mapping[str, Task]):
        super().__init__(recorded)
        self.tasks = tasks

    def get(self, key, default=None):
        if key in self:
            return self[key]
        task = self.tasks.get(key[0])
        if task is None:
            return default
        steps = list(key[1])
        self[key] = TaskEnd(
            key[0],
            "",
            key[1],
            task.extract_answer(steps),
            str(getattr(task, "reference", "") or ""),
            float(task.score(steps)),
            "replayed",
        )
        return self[key]


class _FinalByText(dict):
    """Whether a step ends the answer: as recorded, else as the run's generator says."""

    def __init__(self, recorded, is_final: Callable[[str], bool]):
        super().__init__(recorded)
        self.is_final = is_final

    def get(self, text, default=None):
        if text not in self:
            self[text] = bool(self.is_final(text))
        return self[text]


def with_task_scores(tree: ContextTree, tasks: Mapping[str, Task], is_final: Callable[[str], bool]) -> ContextTree:
    """The tree with the run's tasks and generator at hand: a replayed chain that ends on recorded
    contexts, on a candidate no recorded chain took, is scored by its task (as the step loop scores
    a chain: ``task.score(steps)``) instead of being unknown. Only the ends a replay reaches are
    scored. Needs the run's step budget (config.yaml); without it the tree is returned unchanged.
    """
    if tree.settings.max_steps is None:
        return tree
    return replace(
        tree, final_by_text=_FinalByText(tree.final_by_text, is_final), ends=_EndsScoredByTask(tree.ends, tasks)
    )


def recorded_correct(trace: Trace, chain: str) -> dict[str, float]:
    """Correctness per task of a recorded chain."""
    return {t: e.correct for t, e in trace.end_of(chain).items()}


def _replayed(trace: Trace, spec: PolicySpec, tree: ContextTree) -> tuple[dict[str, float], dict[str, Any]]:
    r = replay(trace, spec, tree)
    c = r.correct_exact()
    return c, {"accuracy": sum(c.values()) / len(c) if c else None, "exact": r.n_exact, "n_tasks": r.n_tasks}


def _recorded_chain_with_policy(trace: Trace, name: str) -> str | None:
    return next((c for c in trace.chains() if (trace.chain_policy(c) or {}).get("name") == name), None)


def paired_summary(
    trace: Trace,
    n_boot: int = 2000,
    seed: int = 0,
    tree: ContextTree | None = None,
    tasks: Mapping[str, Task] | None = None,
    is_final: Callable[[str], bool] | None = None,
) -> dict[str, Any]:
    """The paired comparisons of a recorded run (see the module docstring), JSON-ready.

    ``tasks`` (by id) and ``is_final`` (the run's generator's): replays that end off recorded ground
    are scored by the task (:func:`with_task_scores`) instead of being left out.
    """
    tree = tree or ContextTree.from_trace(trace)
    if tasks is not None and is_final is not None:
        tree = with_task_scores(tree, tasks, is_final)
    primary = primary_chain(trace)
    chains = trace.chains()
    comparisons: list[dict[str, Any]] = []

    def add(first: str, second: str, a: dict[str, float], b: dict[str, float], source: str) -> None:
        d = paired_difference(a, b, n_boot, seed)
        comparisons.append(
            {"first": first, "second": second, "source": source, "excluded": max(len(a), len(b)) - d["n_pairs"], **d}
        )

    if BASE in chains:
        base = recorded_correct(trace, BASE)
        for c in chains:
            if c != BASE:
                add(c, BASE, recorded_correct(trace, c), base, "recorded")
    out: dict[str, Any] = {
        "primary": primary,
        "base": BASE if BASE in chains else None,
        "n_boot": n_boot,
        "comparisons": comparisons,
        "replayed": {},
        "single_judges": {},
        "best_single_judge": None,
    }
    if primary is None or primary == BASE or not trace.steps:
        return out
    mine = recorded_correct(trace, primary)
    mean_chain = _recorded_chain_with_policy(trace, "mean")
    if mean_chain is not None and mean_chain != primary:
        add(primary, mean_chain, mine, recorded_correct(trace, mean_chain), "recorded")
    elif mean_chain is None:
        correct, info = _replayed(trace, make_spec("mean"), tree)
        out["replayed"]["mean"] = info
        add(primary, "mean", mine, correct, "replayed")
    p = {k: v for k, v in verdict_params(trace, primary).items() if v is not None}
    if (trace.chain_policy(primary) or {}).get("name") != "mean_preserving":
        correct, info = _replayed(trace, make_spec("mean_preserving", **p), tree)
        out["replayed"]["mean_preserving"] = info
        add(primary, "mean_preserving", mine, correct, "replayed")
    singles = {}
    for j, name in enumerate(trace.steps[0].judges):
        correct, info = _replayed(trace, make_spec("single_judge", judge=j), tree)
        out["single_judges"][name] = info
        singles[name] = correct
    scored = [n for n, v in out["single_judges"].items() if v["accuracy"] is not None]
    if scored:
        best = max(scored, key=lambda n: (out["single_judges"][n]["accuracy"], out["single_judges"][n]["exact"]))
        out["best_single_judge"] = best
        add(primary, f"single_judge:{best}", mine, singles[best], "replayed")
    return out


__all__ = ["paired_summary", "recorded_correct", "with_task_scores"]


def paired_from(trace_path: Path, tasks=None, is_final: Callable[[str], bool] | None = None) -> dict[str, Any]:
    """The run's paired comparisons, JSON-ready; with the tasks and the generator's ``is_final``,
    replays ending off recorded ground are scored too."""
    by_id = {t.id: t for t in tasks} if tasks is not None else None
    return json_safe(paired_summary(read_trace(trace_path), tasks=by_id, is_final=is_final))
