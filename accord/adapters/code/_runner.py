"""One sandboxed run per candidate, shared by the execution and self-consistency judges.

For a problem the runner fixes one list of items (the visible tests, then the probe inputs) and runs
each candidate program once with all of them; results are cached by program and items, so a second
judge on the same candidates costs nothing. Candidates that fail the static check (no parse, no entry
point) are never executed.
"""

from __future__ import annotations

import functools
import hashlib
import json
import threading
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass

from accord.adapters.code._probes import probe_inputs
from accord.adapters.code._sandbox import ItemResult, RunResult, Sandbox
from accord.adapters.code._spec import CodeSpec
from accord.adapters.code._static import analyse


@dataclass(frozen=True)
class Evaluation:
    """A candidate's run split into its test results and its probe outputs."""

    tests: list[ItemResult]
    probes: list[ItemResult]
    run: RunResult | None  # None when the static check stopped it
    reason: str | None  # why the run ended early / did not happen


class CodeRunner:
    """Plans items per problem and runs candidates in the sandbox, once each."""

    def __init__(self, sandbox: Sandbox | None = None, n_probes: int = 12, cache_size: int = 4096):
        self.sandbox = sandbox or Sandbox()
        self.n_probes = n_probes
        self.cache_size = cache_size
        self._cache: OrderedDict[str, RunResult] = OrderedDict()
        self._plans: dict[tuple, tuple[list[dict], int]] = {}
        self._lock = threading.Lock()
        self.runs = 0  # sandboxed processes started (for tests and benchmarks)

    def plan(self, spec: CodeSpec) -> tuple[list[dict], int]:
        """(items, number of tests): the visible tests followed by probe calls."""
        key = (spec.prompt, spec.entry_point, spec.tests, spec.probe_inputs, self.n_probes)
        if key not in self._plans:
            items = [t.item() for t in spec.tests]
            items += [{"kind": "probe", "args": a} for a in probe_inputs(spec, self.n_probes)]
            self._plans[key] = (items, len(spec.tests))
        return self._plans[key]

    def evaluate(self, spec: CodeSpec, programs: Sequence[str]) -> list[Evaluation]:
        """Run every program (in parallel, cached) against the problem's items."""
        items, n_tests = self.plan(spec)
        reports = [analyse(p, spec.entry_point) for p in programs]
        keys = [_key(p, items, spec.entry_point) for p in programs]
        todo = {}
        for p, k, rep in zip(programs, keys, reports):
            if rep.runnable and k not in self._cache and k not in todo:
                todo[k] = p
        if todo:
            results = self.sandbox.run_many([(p, items, spec.entry_point) for p in todo.values()])
            with self._lock:
                self.runs += len(todo)
                for k, r in zip(todo, results):
                    self._cache[k] = r
                while len(self._cache) > self.cache_size:
                    self._cache.popitem(last=False)
        out = []
        for k, rep in zip(keys, reports):
            if not rep.runnable:
                why = rep.score().reason or "not runnable"
                blank = [ItemResult("not_run", None, why)] * len(items)
                out.append(Evaluation(blank[:n_tests], blank[n_tests:], None, why))
                continue
            run = self._cache[k]
            out.append(Evaluation(run.items[:n_tests], run.items[n_tests:], run, run.reason))
        return out

    def ground_truth(self, spec: CodeSpec, programs: Sequence[str]) -> list[RunResult | None]:
        """Hidden-check results (task scoring only; never a judge). None for unrunnable programs."""
        if spec.hidden_check is None:
            raise ValueError(f"problem {spec.entry_point!r} has no hidden check")
        items = [{"kind": "check", "src": spec.hidden_check}]
        runnable = [analyse(p, spec.entry_point).runnable for p in programs]
        jobs = [(p, items, spec.entry_point) for p, ok in zip(programs, runnable) if ok]
        results = iter(self.sandbox.run_many(jobs))
        return [next(results) if ok else None for ok in runnable]


def _key(program: str, items: list[dict], entry: str) -> str:
    h = hashlib.sha256(program.encode())
    h.update(json.dumps(items, sort_keys=True).encode())
    h.update(entry.encode())
    return h.hexdigest()


@functools.cache
def shared_runner(isolation: str = "auto", workers: int | None = None, probes: int | None = None) -> CodeRunner:
    """One runner per (isolation, workers, probes) and process, so the execution and agreement judges
    share each candidate's run."""
    sandbox = Sandbox(isolation=isolation, workers=workers)
    return CodeRunner(sandbox) if probes is None else CodeRunner(sandbox, n_probes=int(probes))


def default_runner() -> CodeRunner:
    return shared_runner()
