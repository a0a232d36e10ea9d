"""``accord verify`` as a library call: judge solutions, label steps, score against annotations.

Solutions are judged concurrently (``workers`` threads; the math judges' checks run in worker
processes, so they use the machine's cores), and written in input order, each line as soon as it
and every solution before it is done. A progress bar with an ETA counts steps.
"""

from __future__ import annotations

import threading
import time
from collections import deque
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Sequence

from accord.adapters.cache import JudgeCache
from accord.verify.errors import UserError
from accord.verify.panel import Panel, build_panel
from accord.verify.solutions.judging import PanelScorer, judge_solution, raw_matrix, solution_record
from accord.verify.solutions.metrics import Annotated, evaluate_rules
from accord.verify.solutions.output import OutFile, read_done
from accord.verify.solutions.reading import Solution
from accord.verify.solutions.settings import VerifySettings

COMPARED_RULES = ("mean", "verdict", "mean_preserving")


@dataclass
class VerifyResult:
    records: list[dict]
    judges: list[str]
    lambdas: list[float]
    settings: VerifySettings
    steps_judged: int = 0
    seconds: float = 0.0
    resumed: int = 0
    metrics: dict | None = None
    cache: dict = field(default_factory=dict)

    @property
    def steps_per_second(self) -> float | None:
        return self.steps_judged / self.seconds if self.seconds > 0 else None


def make_panel(settings: VerifySettings) -> Panel:
    try:
        return build_panel(list(settings.judges), influence=settings.influence, timeout_s=settings.judge_timeout_s)
    except (TypeError, ValueError) as exc:
        raise UserError(f"judges: {exc}") from None


def _progress(total: int, enabled: bool):
    from tqdm import tqdm

    return tqdm(total=total, unit="step", desc="verify", disable=None if enabled else True, dynamic_ncols=True)


def verify_solutions(solutions: Sequence[Solution], settings: VerifySettings, out: Path | None = None,
                     resume: bool = False, workers: int = 2, cache: Path | None = None, progress: bool = True,
                     n_boot: int = 1000, panel: Panel | None = None) -> VerifyResult:
    """Judge every solution (or those ``out`` does not have yet, with ``resume``)."""
    if workers < 1:
        raise UserError(f"--workers must be >= 1, got {workers}")
    panel = panel or make_panel(settings)
    judges, lambdas = list(panel.names), list(panel.lambdas)
    done: dict[str, dict] = {}
    if out is not None and out.exists() and out.stat().st_size > 0:
        if not resume:
            raise UserError(f"{out}: already exists; pass --resume to continue it, or choose another --out")
        done = read_done(out, judges, {s.id for s in solutions})
    elif resume and out is None:
        raise UserError("--resume needs --out FILE (the file to continue)")
    todo = [s for s in solutions if s.id not in done]
    judge_cache = JudgeCache(cache) if cache is not None else JudgeCache()
    scorer = PanelScorer(panel, judge_cache)
    writer = OutFile(out) if out is not None else None
    records: dict[str, dict] = dict(done)
    bar = _progress(sum(len(s.steps) for s in todo), progress)
    lock = threading.Lock()

    def advance(n: int) -> None:
        with lock:
            bar.update(n)

    def work(sol: Solution) -> dict:
        scored = judge_solution(sol, scorer, advance)
        return solution_record(sol, scored, judges, lambdas, settings.policy, settings.tau, settings.eps,
                               settings.influence)

    t0 = time.perf_counter()
    pool = ThreadPoolExecutor(max_workers=workers)
    try:
        pending: deque = deque()
        queue = iter(todo)
        for sol in queue:  # keep a bounded window in flight; write in input order
            pending.append((sol, pool.submit(work, sol)))
            while len(pending) >= 4 * workers:
                _flush_one(pending, records, writer)
        while pending:
            _flush_one(pending, records, writer)
    finally:
        pool.shutdown(wait=False, cancel_futures=True)
        bar.close()
        judge_cache.close()
        if writer is not None:
            writer.close()
    seconds = time.perf_counter() - t0
    ordered = [records[s.id] for s in solutions if s.id in records]
    result = VerifyResult(ordered, judges, lambdas, settings, sum(len(s.steps) for s in todo), seconds, len(done),
                          cache=judge_cache.stats())
    annotated = [Annotated(raw_matrix(r["steps"], judges), s.first_wrong)
                 for s, r in zip([s for s in solutions if s.id in records], ordered) if s.first_wrong is not None]
    if annotated:
        rules = list(dict.fromkeys(judges + list(COMPARED_RULES) + [settings.policy]))
        result.metrics = evaluate_rules(annotated, judges, lambdas, rules, settings.tau, settings.eps,
                                        settings.influence, n_boot=n_boot)
    return result


def _flush_one(pending: deque, records: dict, writer: OutFile | None) -> None:
    sol, fut = pending.popleft()
    rec = fut.result()
    records[sol.id] = rec
    if writer is not None:
        writer.write(rec)
