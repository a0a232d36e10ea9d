"""``accord verify`` as a library call: judge solutions, label steps, score against annotations.

Solutions are judged concurrently — locally by ``workers`` threads (the math judges' checks run in
worker processes, so they use the machine's cores), or by ``workers`` Ray actors
(:mod:`.ray_judging`) — and written in input order, each line as soon as it and every solution
before it is done. A progress bar with an ETA counts steps.
"""

from __future__ import annotations

import threading
import time
from collections import deque
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from accord.adapters import JudgeCache
from accord.errors import UserError
from accord.verify.loop import JudgeScale, Panel
from accord.verify.solutions._judging import (
    PanelScorer,
    ScoreCache,
    judge_solution,
    make_panel,
    raw_matrix,
    solution_record,
)
from accord.verify.solutions._metrics import Annotated, evaluate_rules
from accord.verify.solutions._output import OutFile, read_done
from accord.verify.solutions._ray_judging import RayJudges
from accord.verify.solutions._reading import Solution
from accord.verify.solutions._scale import fit_on_records
from accord.verify.solutions._settings import VerifySettings

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
    scale: JudgeScale | None = None  # the judges' common scale the steps were labelled on
    retried: list[str] = field(default_factory=list)  # solutions judged again after their Ray worker died

    @property
    def steps_per_second(self) -> float | None:
        return self.steps_judged / self.seconds if self.seconds > 0 else None


class _Counter:
    """Steps judged so far, reported to a ``progress(done, total)`` callback."""

    def __init__(self, total: int, callback):
        self.done, self.total, self.callback = 0, total, callback
        callback(0, total)

    def update(self, n: int) -> None:
        self.done += n
        self.callback(self.done, self.total)

    def close(self) -> None:
        pass


def _progress(total: int, progress):
    """A callable ``progress(done, total)`` is called as steps are judged; True draws a tqdm bar."""
    if callable(progress):
        return _Counter(total, progress)
    from tqdm import tqdm

    return tqdm(total=total, unit="step", desc="verify", disable=None if progress else True, dynamic_ncols=True)


def verify_solutions(
    solutions: Sequence[Solution],
    settings: VerifySettings,
    out: Path | None = None,
    resume: bool = False,
    workers: int = 2,
    cache: Path | None = None,
    progress=True,
    n_boot: int = 1000,
    panel: Panel | None = None,
    backend: str = "local",
    address: str | None = None,
    scale: JudgeScale | str | None = None,
) -> VerifyResult:
    """Judge every solution (or those ``out`` does not have yet, with ``resume``), locally or on Ray.

    ``progress``: a callable ``progress(done, total)`` over steps judged, True for a tqdm bar, False for none.
    ``scale``: label the steps with the judges on one scale: a fitted :class:`JudgeScale`, or a method
    (``quantile``, ``agreement``, ``standardize``, ``platt``) fitted on these solutions once all are
    judged (``platt`` on their annotated steps); nothing is written before the fit."""
    if workers < 1:
        raise UserError(f"--workers must be >= 1, got {workers}")
    if resume and out is None:
        raise UserError("--resume needs --out FILE (the file to continue)")
    if backend not in ("local", "ray"):
        raise UserError(f"unknown backend {backend!r}; choose local or ray")
    if isinstance(scale, str) and resume:
        raise UserError("a judge scale fitted on the input labels every solution again: drop --resume")
    on_ray = RayJudges(settings, workers, address) if backend == "ray" else None
    try:
        if on_ray is None:
            panel = panel or make_panel(settings)
            judges, lambdas, info = list(panel.names), list(panel.lambdas), panel.describe()
        else:
            judges, lambdas, info = on_ray.names, on_ray.lambdas, on_ray.info
        if isinstance(scale, JudgeScale):
            try:
                scale = scale.for_judges(judges)
            except ValueError as exc:
                raise UserError(f"judge scale: {exc}") from None
        return _run(
            solutions,
            settings,
            out,
            resume,
            workers,
            cache,
            progress,
            n_boot,
            panel,
            on_ray,
            judges,
            lambdas,
            info,
            scale,
        )
    finally:
        if on_ray is not None:
            on_ray.close()


def _run(
    solutions, settings, out, resume, workers, cache, progress, n_boot, panel, on_ray, judges, lambdas, info, scale
):
    done: dict[str, dict] = {}
    if out is not None and out.exists() and out.stat().st_size > 0:
        if not resume:
            raise UserError(f"{out}: already exists; pass --resume to continue it, or choose another --out")
        done = read_done(out, judges, {s.id for s in solutions})
    todo = [s for s in solutions if s.id not in done]
    judge_cache = JudgeCache(cache) if cache is not None else JudgeCache()
    writer = OutFile(out) if out is not None else None
    records: dict[str, dict] = dict(done)
    bar = _progress(sum(len(s.steps) for s in todo), progress)
    lock = threading.Lock()

    def advance(n: int) -> None:
        with lock:
            bar.update(n)

    t0 = time.perf_counter()
    try:
        if on_ray is None:
            scored = _scored_locally(todo, PanelScorer(panel, judge_cache), workers, advance)
        else:
            scored = on_ray.scored(todo, ScoreCache(judges, info, judge_cache), advance)
        if isinstance(scale, str):  # every solution judged, then the scale fitted on them, then labelled
            scored = list(scored)
            scale = _fit_on_input(scale, scored, judges)
        for sol, steps in scored:  # in input order
            rec = solution_record(
                sol, steps, judges, lambdas, settings.policy, settings.tau, settings.eps, settings.influence, scale
            )
            records[sol.id] = rec
            if writer is not None:
                writer.write(rec)
    finally:
        bar.close()
        judge_cache.close()
        if writer is not None:
            writer.close()
    seconds = time.perf_counter() - t0
    ordered = [records[s.id] for s in solutions if s.id in records]
    result = VerifyResult(
        ordered,
        judges,
        lambdas,
        settings,
        sum(len(s.steps) for s in todo),
        seconds,
        len(done),
        cache=judge_cache.stats(),
        scale=scale,
        retried=[] if on_ray is None else [todo[i].id for i in on_ray.retried],
    )
    seen = (lambda raw: raw) if scale is None else scale.apply
    annotated = [
        Annotated(seen(raw_matrix(r["steps"], judges)), s.first_wrong)
        for s, r in zip([s for s in solutions if s.id in records], ordered)
        if s.first_wrong is not None
    ]
    if annotated:
        rules = list(dict.fromkeys(judges + list(COMPARED_RULES) + [settings.policy]))
        result.metrics = evaluate_rules(
            annotated, judges, lambdas, rules, settings.tau, settings.eps, settings.influence, n_boot=n_boot
        )
    return result


def _fit_on_input(method: str, scored, judges) -> JudgeScale:
    """The scale ``method`` fitted on the judged input (a UserError when it cannot be)."""
    raw = [{"steps": [{"scores": s.scores} for s in steps]} for _, steps in scored]
    try:
        return fit_on_records(method, judges, raw, [sol.first_wrong for sol, _ in scored], "the input")
    except ValueError as exc:
        raise UserError(f"--calibration {method}: {exc}") from None


def _scored_locally(todo: Sequence[Solution], scorer: PanelScorer, workers: int, advance):
    """(solution, step scores) in input order, ``workers`` solutions judged at once in threads."""
    pool = ThreadPoolExecutor(max_workers=workers)
    try:
        pending: deque = deque()
        for sol in todo:  # a bounded window in flight
            pending.append((sol, pool.submit(judge_solution, sol, scorer, advance)))
            while len(pending) >= 4 * workers:
                sol0, fut = pending.popleft()
                yield sol0, fut.result()
        while pending:
            sol0, fut = pending.popleft()
            yield sol0, fut.result()
    finally:
        pool.shutdown(wait=False, cancel_futures=True)
