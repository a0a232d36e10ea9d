"""Step-loop runs on Ray: problems spread over workers, models in actors, one trace writer.

- **Model servers** (Ray actors) build the generator and the panel from the run config once, so
  each model is loaded once per server, and serve requests: one ``propose`` is the n candidates of
  one step in one batched generate call, one ``score`` is every judge on those candidates (the
  panel's own concurrency, timeouts and failure recording run inside the server). With GPUs there
  is one server per GPU (``num_gpus=1`` each); on CPU their number and CPUs are options.
  ``separate=True`` puts the generator and the panel in different servers.
- **Workers** (light Ray actors, ``workers`` of them) each run the unchanged
  :class:`~accord.verify.loop.StepLoop` over one problem at a time, calling the servers
  through thin proxies.
- **One writer**: every record goes through a single trace actor pinned to the driver's node,
  which appends and flushes it whole, so records never interleave or get lost.
- **One judge scale**: with ``calibration`` on, a scale actor on the driver's node holds the run's
  :class:`~accord.verify.loop.ScaleWarmup`: a saved scale from the first step, or a label-free one
  fitted once on the first ``calibration.warmup`` candidates scored by any worker (in the order
  they arrive), then the same maps for every worker. The worker whose candidates completed the
  warm-up writes the ``calibration`` record, as a local run does.
- **Failures**: a server that dies is restarted by Ray (``max_restarts``: its models loaded again)
  and the calls it was serving are run again on it (``max_task_retries``: a generation or a panel
  call is a pure function of its seeded request, so running it twice changes nothing); the
  workers waiting on them just wait. A worker that dies loses its problem's call: the driver
  records it (a ``retry`` record) and resubmits the problem to a fresh worker with the trace's
  records for that problem, so decided steps and finished chains are neither recomputed nor
  written twice (Ray running the lost call again would start the problem over from its first
  step). A problem that exhausts ``max_retries`` is recorded (``task_failed``) and reported;
  ``--resume`` picks it up later. The summary says which problems were run again.

Candidates are seeded per (run seed, context), exactly as in a local run, so with the same seed
(and the same torch thread count, ``threads``) decisions are identical to the local backend.
"""

from __future__ import annotations

import functools
import json
import time
import uuid
from collections import Counter
from dataclasses import dataclass, fields
from datetime import UTC, datetime
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from accord.consensus_core import ConsensusSpec
from accord.errors import UserError
from accord.verify.analysis import accept_rule, judge_counts, paired_from, read_trace
from accord.verify.io import SUMMARY_FILE, connect_ray, user_error_from
from accord.verify.loop import (
    CALIBRATION_FILE,
    JudgeScale,
    ResumeState,
    StepLoop,
    Totals,
    TraceWriter,
    load_resume_state,
    read_records,
    save_scale,
)
from accord.verify.run._config import RunConfig, TaskConfig
from accord.verify.run._setup import (
    build_chains,
    build_generator,
    build_panel_from,
    build_scale,
    load_task_list,
    start_run_folder,
)
from accord.verify.run._summary import make_summary, write_report


@dataclass(frozen=True)
class RayOptions:
    """Where and how a run executes on Ray (command-line flags of ``accord run --backend ray``)."""

    address: str | None = None  # None: RAY_ADDRESS or a new local cluster
    workers: int = 2  # problems in flight at once
    worker_cpus: float = 0.5  # a worker mostly waits on the servers
    servers: int | None = None  # None: one per GPU, else 1
    server_cpus: float = 1.0
    server_gpus: float | None = None  # None: 1 when the cluster has GPUs, else 0
    separate: bool = False  # generator and panel in different servers
    spread: bool = True  # spread servers over nodes (else pack them)
    max_retries: int = 2  # per problem; also each server's restarts
    reuse_servers: bool = False  # keep the servers (and their loaded models) for later runs in this process

    def __post_init__(self):
        if self.workers < 1 or self.max_retries < 0 or (self.servers is not None and self.servers < 1):
            raise UserError(f"ray options: workers >= 1, servers >= 1 and max retries >= 0 needed, got {self}")
        if self.worker_cpus < 0 or self.server_cpus < 0 or (self.server_gpus is not None and self.server_gpus < 0):
            raise UserError("ray options: CPU and GPU amounts must be >= 0")


# --------------------------------------------------------------------------- actors


class ModelServer:
    """Holds the generator and/or the panel of one run config; loads their models once."""

    def __init__(self, cfg: RunConfig, roles: tuple[str, ...]):
        if cfg.threads:
            import torch  # heavy optional dependency: only when a thread count is set

            torch.set_num_threads(int(cfg.threads))
        self.generator = build_generator(cfg) if "generator" in roles else None
        self.panel = build_panel_from(cfg) if "panel" in roles else None

    def ready(self) -> dict[str, Any]:
        import os

        if self.panel is None:
            return {"pid": os.getpid()}
        p = self.panel
        return {
            "pid": os.getpid(),
            "names": list(p.names),
            "lambdas": list(p.lambdas),
            "influence": None if p.influence is None else p.influence.tolist(),
            "scoring": p.describe(),
        }

    def propose(self, ctx, n: int, seed: int):
        cands = self.generator.propose(ctx, n, seed)
        return cands, dict(getattr(self.generator, "last_stats", {}) or {})

    def is_final(self, step: str) -> bool:
        return bool(self.generator.is_final(step))

    def score(self, ctx, candidates):
        return self.panel.score(ctx, list(candidates))


class TraceSink:
    """The run's only trace writer (an actor on the driver's node)."""

    def __init__(self, path: str):
        self.writer = TraceWriter(path)

    def note(self) -> str | None:
        return self.writer.note

    def write(self, record: dict[str, Any]) -> None:
        self.writer.write(record)

    def close(self) -> None:
        self.writer.close()


class ScaleKeeper:
    """The run's one judge scale (an actor on the driver's node): every worker's scored candidates
    feed the same warm-up, and every worker reads the same fitted maps."""

    def __init__(self, warmup):
        self.warmup = warmup  # a ScaleWarmup

    def observe(self, raw, spec) -> bool:
        return self.warmup.observe(raw, spec)

    def fitted(self) -> dict[str, Any] | None:
        return self.warmup.scale.as_dict() if self.warmup.fitted else None


# --------------------------------------------------------------------------- worker side


class RemoteScale:
    """What the step loop uses of a ScaleWarmup, held by the scale actor (the fitted maps kept here
    once read: they never change after the fit)."""

    def __init__(self, keeper):
        self.keeper = keeper
        self._scale: JudgeScale | None = None

    @property
    def fitted(self) -> bool:
        if self._scale is None:
            import ray

            d = ray.get(self.keeper.fitted.remote())
            self._scale = None if d is None else JudgeScale.from_dict(d)
        return self._scale is not None

    @property
    def scale(self) -> JudgeScale | None:
        return self._scale if self.fitted else None

    def observe(self, raw, spec) -> bool:
        import ray

        if self.fitted:
            return False
        return bool(ray.get(self.keeper.observe.remote(raw, spec)))


class RemoteGenerator:
    """The Generator protocol over a model server."""

    def __init__(self, server):
        self.server = server
        self.last_stats: dict[str, Any] = {}

    def propose(self, ctx, n: int, seed: int) -> list[str]:
        import ray

        cands, self.last_stats = ray.get(self.server.propose.remote(ctx, n, seed))
        return cands

    def is_final(self, step: str) -> bool:
        import ray

        return ray.get(self.server.is_final.remote(step))


class RemotePanel:
    """What the step loop uses of a Panel, served by a model server."""

    def __init__(self, server, info: dict[str, Any]):
        import numpy as np

        self.server = server
        self.names = list(info["names"])
        influence = None if info["influence"] is None else np.asarray(info["influence"], dtype=float)
        self.consensus = ConsensusSpec(tuple(info["lambdas"]), influence)
        self.lambdas, self.influence = self.consensus.lambdas, self.consensus.influence
        self._describe = info["scoring"]

    estimating = False  # Ray runs use hand-set λ and fixed thresholds (see execute)
    thresholds = None

    @property
    def m(self) -> int:
        return len(self.names)

    def describe(self) -> dict[str, Any]:
        return self._describe

    def stats(self, raw):
        return self.consensus.stats(raw)

    def observe(self, raw) -> None:
        """Nothing to learn: λ is hand-set on Ray."""

    def score(self, ctx, candidates):
        import ray

        return ray.get(self.server.score.remote(ctx, list(candidates)))


class SinkWriter:
    """The TraceWriter interface of the step loop, forwarding each record to the one writer."""

    def __init__(self, sink):
        self.sink = sink

    def write(self, record: dict[str, Any]) -> None:
        import ray

        ray.get(self.sink.write.remote(record))  # durable before the loop goes on, as locally


@functools.lru_cache(maxsize=4)
def _tasks_for(task_json: str):
    task = json.loads(task_json)
    return load_task_list(TaskConfig(task["name"], task["options"]))


class ProblemWorker:
    """Runs the step loop over one problem at a time (a Ray actor: killable, replaceable)."""

    def solve(self, cfg, index: int, chains, resume, generator_server, panel_server, panel_info, sink, keeper=None):
        """One problem, every chain: its task_end records and the work it did."""

        task = _tasks_for(json.dumps(cfg.task.as_dict(), sort_keys=True))[index]
        loop = StepLoop(
            RemoteGenerator(generator_server),
            RemotePanel(panel_server, panel_info),
            chains,
            budgets=cfg.budgets.budgets(),
            seed=cfg.seed,
            adaptive=cfg.adaptive.settings(),
            writer=SinkWriter(sink),
            resume=resume,
            scale=None if keeper is None else RemoteScale(keeper),
        )
        ends = loop.run_task(task)
        return ends, loop.totals


# --------------------------------------------------------------------------- driver


def resume_for(state, task_id: str):
    """The part of a resume state that concerns one problem (what its worker needs)."""

    steps = {k: v for k, v in state.steps.items() if k[0] == task_id}
    cids = {r["context_id"] for r in steps.values()}
    return ResumeState(
        ends={k: v for k, v in state.ends.items() if k[0] == task_id},
        steps=steps,
        candidates={c: v for c, v in state.candidates.items() if c in cids},
        candidate_tokens={c: v for c, v in state.candidate_tokens.items() if c in cids},
        scores={c: v for c, v in state.scores.items() if c in cids},
        judges=state.judges,
        tasks={t for t in state.tasks if t == task_id},
    )


def _short(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[-1] if text else ''}"[:500]


class ServerPool:
    """The model servers of one run: placement, resources, restarts, round-robin assignment."""

    def __init__(self, ray, cfg, opts: RayOptions, tag: str):
        gpus = int(ray.cluster_resources().get("GPU", 0))
        n = opts.servers or max(1, gpus)
        per_gpu = opts.server_gpus if opts.server_gpus is not None else (1.0 if gpus else 0.0)
        _check_fits(ray, opts, n * (2 if opts.separate else 1), per_gpu)
        actor = ray.remote(ModelServer).options
        common = dict(
            num_cpus=opts.server_cpus,
            num_gpus=per_gpu,
            max_restarts=opts.max_retries,
            max_task_retries=opts.max_retries,  # calls lost with a server are run again on it: they are pure
            scheduling_strategy="SPREAD" if opts.spread else "DEFAULT",
        )
        if opts.separate:
            self.generators = [
                actor(name=f"accord-server-generator-{i}-{tag}", **common).remote(cfg, ("generator",)) for i in range(n)
            ]
            self.panels = [
                actor(name=f"accord-server-panel-{i}-{tag}", **common).remote(cfg, ("panel",)) for i in range(n)
            ]
        else:
            both = [
                actor(name=f"accord-server-{i}-{tag}", **common).remote(cfg, ("generator", "panel")) for i in range(n)
            ]
            self.generators = self.panels = both
        self.n = n
        self.gpus_per_server = per_gpu
        try:
            infos = ray.get([s.ready.remote() for s in dict.fromkeys(self.generators + self.panels)])
        except Exception:
            self.close(ray)  # a server that cannot build its models would only restart and fail again
            raise
        self.info = next(i for i in infos if "names" in i)

    def pick(self, index: int):
        return self.generators[index % self.n], self.panels[index % self.n]

    def close(self, ray) -> None:
        for s in dict.fromkeys(self.generators + self.panels):
            ray.kill(s, no_restart=True)


def _check_fits(ray, opts: RayOptions, servers: int, gpus_each: float) -> None:
    """Servers and workers must fit what the cluster has free now, or the run would wait forever."""
    cpus = servers * opts.server_cpus + opts.workers * opts.worker_cpus
    gpus = servers * gpus_each
    deadline = time.monotonic() + 3.0  # actors just stopped free their resources after a moment
    while True:
        have = ray.available_resources()
        fits = cpus <= have.get("CPU", 0) + 1e-9 and gpus <= have.get("GPU", 0) + 1e-9
        if fits or time.monotonic() > deadline:
            break
        time.sleep(0.5)
    if not fits:
        raise UserError(
            f"ray: {servers} server(s) x {opts.server_cpus:g} CPU/{gpus_each:g} GPU + {opts.workers} worker(s) x "
            f"{opts.worker_cpus:g} CPU need {cpus:g} CPUs and {gpus:g} GPUs; the cluster has {have.get('CPU', 0):g} "
            "CPUs "
            f"and {have.get('GPU', 0):g} GPUs free (lower --servers/--workers or their --*-cpus)"
        )


_POOLS: dict[str, ServerPool] = {}


def _pool_key(cfg: RunConfig, opts: RayOptions) -> str:
    model_keys = ("generator", "judges", "influence", "judge_timeout_s", "threads")
    models = {k: v for k, v in cfg.as_dict().items() if k in model_keys}
    return json.dumps([models, {**opts.__dict__, "address": None, "workers": None}], sort_keys=True)


def server_pool(ray, cfg: RunConfig, opts: RayOptions, tag: str) -> ServerPool:
    """The run's servers: new ones, or with ``reuse_servers`` those of an earlier run of the same models."""
    key = _pool_key(cfg, opts)
    if opts.reuse_servers and key in _POOLS:
        return _POOLS[key]
    try:
        pool = ServerPool(ray, cfg, opts, tag)
    except ray.exceptions.RayError as exc:
        err = user_error_from(exc)
        raise (
            err if isinstance(err, UserError) else UserError(f"model servers failed to start: {_short(exc)}")
        ) from None
    if opts.reuse_servers:
        _POOLS[key] = pool
    return pool


def close_servers() -> None:
    """Stops the servers kept by ``reuse_servers``."""
    import ray

    while _POOLS:
        _POOLS.popitem()[1].close(ray)


def execute(
    cfg: RunConfig, run_dir: Path, resume: bool = False, progress=None, opts: RayOptions | None = None
) -> dict[str, Any]:
    """Runs (or resumes) the configured run on Ray; writes the same run folder as a local run."""

    opts = opts or RayOptions()
    if cfg.stubbornness.mode == "estimated" or cfg.thresholds.mode == "calibrated":  # learned per process
        raise UserError(
            "--backend ray needs hand-set stubbornness and fixed thresholds: estimated λ and calibrated "
            "τ, ε are learned per process; run locally first, then set the values from its summary.json"
        )
    if cfg.adaptive.enabled and cfg.adaptive.margin == "calibrated":
        raise UserError(
            "--backend ray needs a fixed adaptive margin: a calibrated one is learned per process; run "
            "locally first, then set adaptive.min_mean and adaptive.max_dispersion from its summary.json"
        )
    t_start = time.perf_counter()
    trace_path = start_run_folder(cfg, run_dir, resume)
    say = progress.say if progress else (lambda text: None)
    say("connecting to Ray")
    ray = connect_ray(opts.address)
    from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

    tasks = load_task_list(cfg.task)
    state = load_resume_state(trace_path) if resume else None
    tag = uuid.uuid4().hex[:8]
    here = NodeAffinitySchedulingStrategy(ray.get_runtime_context().get_node_id(), soft=False)
    sink = (
        ray.remote(TraceSink)
        .options(num_cpus=0, scheduling_strategy=here, name=f"accord-trace-{tag}", max_restarts=opts.max_retries)
        .remote(str(trace_path.resolve()))
    )
    say("starting model servers")
    t0 = time.perf_counter()
    pool = keeper = None
    try:
        pool = server_pool(ray, cfg, opts, tag)
        load_s = time.perf_counter() - t0
        info = pool.info
        warm = build_scale(cfg, SimpleNamespace(names=info["names"]))
        if warm is not None:
            warm = _resumed_scale(warm, trace_path) if resume else warm
            keeper = (
                ray.remote(ScaleKeeper)
                .options(num_cpus=0, scheduling_strategy=here, name=f"accord-scale-{tag}")
                .remote(warm)
            )
        chains = build_chains(cfg)
        labels = [c.label for c in chains]
        if state is not None and state.judges is not None and tuple(state.judges) != tuple(info["names"]):
            raise UserError(
                f"{run_dir}: the trace was recorded with judges {list(state.judges)}, the panel has {info['names']}"
            )
        backend = {
            "name": "ray",
            "workers": opts.workers,
            "servers": pool.n,
            "gpus_per_server": pool.gpus_per_server,
            "separate": opts.separate,
            "max_retries": opts.max_retries,
        }
        note = ray.get(sink.note.remote())
        if not resume or not trace_path.stat().st_size:
            header = {
                "type": "run",
                "seed": cfg.seed,
                "judges": info["names"],
                "lambdas": info["lambdas"],
                "chains": labels,
                "scoring": info["scoring"],
                "backend": backend,
                "started": datetime.now(UTC).isoformat(),
            }
        else:
            header = {
                "type": "resume",
                "at_steps": state.n_steps,
                "finished_chains": len(state.ends),
                "notes": state.notes + ([note] if note else []),
                "backend": backend,
                "started": datetime.now(UTC).isoformat(),
            }
        ray.get(sink.write.remote(header))
        if warm is not None and warm.fitted and header["type"] == "run":  # a saved scale: before the first step
            ray.get(sink.write.remote({"type": "calibration", **warm.scale.as_dict()}))
        if progress:
            progress.start(len(tasks), labels)
        ends, totals, failed = _drive(ray, cfg, tasks, chains, state, pool, sink, opts, trace_path, progress, keeper)
        fitted = None if keeper is None else ray.get(keeper.fitted.remote())
    finally:
        if progress:
            progress.stop()
        try:
            ray.get(sink.close.remote())
        finally:
            ray.kill(sink, no_restart=True)
            if pool is not None and not opts.reuse_servers:
                pool.close(ray)
            if keeper is not None:
                ray.kill(keeper, no_restart=True)
    summary = make_summary(cfg, ends, SimpleNamespace(totals=totals), labels, load_s, time.perf_counter() - t_start)
    if cfg.calibration.mode != "off":
        summary["calibration"] = fitted or warm.scale.as_dict()
        if fitted is not None:
            save_scale(run_dir / CALIBRATION_FILE, JudgeScale.from_dict(fitted))
    summary["paired"] = paired_from(trace_path)
    recorded = read_trace(trace_path)
    summary["accept_rule"] = accept_rule(recorded)
    summary["judge_counts"] = judge_counts(recorded)  # candidates scored / abstained / failed per judge
    retried = retried_problems(trace_path)
    summary["backend"] = {
        **backend,
        "retries": sum(retried.values()),
        "retried_problems": sorted(retried),
        "failed_problems": failed,
    }
    (run_dir / SUMMARY_FILE).write_text(json.dumps(summary, indent=2) + "\n", encoding="utf-8")
    if cfg.output.report:
        say("writing report and plots")
        summary["report"] = write_report(run_dir)
    if failed:
        raise UserError(
            f"{len(failed)} problem(s) failed after {opts.max_retries} retries ({', '.join(failed[:5])}); everything "
            f"finished is in {run_dir}; rerun with --resume {run_dir} --backend ray"
        )
    return summary


def _resumed_scale(warm, trace_path: Path):
    """A resumed run keeps the scale its trace recorded (the last ``calibration`` record), else it
    starts the warm-up again."""
    from accord.verify.loop import ScaleWarmup

    recs = [r for r in read_records(trace_path)[0] if r["type"] == "calibration"]
    if not recs:
        return warm
    return ScaleWarmup(JudgeScale.from_dict({k: v for k, v in recs[-1].items() if k != "type"}))


def retried_problems(trace_path: Path) -> dict[str, int]:
    """Retry records per problem in the trace (this attempt of the run and every earlier, resumed one)."""

    return dict(Counter(r["task_id"] for r in read_records(trace_path)[0] if r["type"] == "retry"))


def _drive(
    ray, cfg, tasks, chains, state, pool: ServerPool, sink, opts: RayOptions, trace_path: Path, progress, keeper=None
):
    """Keeps ``workers`` problems in flight; retries a problem whose worker or server died."""

    state = state or ResumeState()
    labels = [c.label for c in chains]
    tag = uuid.uuid4().hex[:8]
    made = iter(range(10**9))

    def new_worker():
        name = f"accord-worker-{next(made)}-{tag}"
        return (
            ray.remote(ProblemWorker)
            .options(num_cpus=opts.worker_cpus, max_restarts=0, max_task_retries=0, name=name)
            .remote()
        )

    results: dict[int, list] = {}
    totals = Totals()
    failed: list[str] = []
    attempts = {i: 0 for i in range(len(tasks))}
    running: dict[Any, tuple[int, Any]] = {}
    free = [new_worker() for _ in range(min(opts.workers, len(tasks)) or 1)]

    def submit(i: int, st) -> None:
        gen, pan = pool.pick(i)
        w = free.pop()
        running[w.solve.remote(cfg, i, chains, resume_for(st, tasks[i].id), gen, pan, pool.info, sink, keeper)] = (i, w)

    for i in range(len(tasks)):
        if all((tasks[i].id, lab) in state.ends for lab in labels):
            results[i] = [state.ends[(tasks[i].id, lab)] for lab in labels]  # finished before: not resubmitted
            if progress:
                progress.event("task_done", task=tasks[i].id, index=i, total=len(tasks))
    queue = [i for i in range(len(tasks)) if i not in results]
    try:
        while queue or running:
            while queue and free:
                submit(queue.pop(0), state)
            done, _ = ray.wait(list(running), num_returns=1)
            i, worker = running.pop(done[0])
            try:
                ends, t = ray.get(done[0])
            except ray.exceptions.RayError as exc:
                if isinstance(exc, ray.exceptions.RayTaskError) and isinstance(exc.cause, UserError):
                    raise UserError(str(exc.cause)) from None
                ray.kill(worker, no_restart=True)  # a fresh worker replaces one whose problem failed
                free.append(new_worker())
                attempts[i] += 1
                again = attempts[i] <= opts.max_retries
                rec = {
                    "type": "retry" if again else "task_failed",
                    "task_id": tasks[i].id,
                    "attempt": attempts[i],
                    "error": _short(exc),
                    "time": datetime.now(UTC).isoformat(),
                }
                ray.get(sink.write.remote(rec))
                if again:
                    state = load_resume_state(trace_path)  # what the failed attempt finished is kept
                    queue.insert(0, i)
                else:
                    failed.append(tasks[i].id)
                continue
            free.append(worker)
            results[i] = ends
            for f in fields(Totals):
                setattr(totals, f.name, getattr(totals, f.name) + getattr(t, f.name))
            if progress:
                progress.event("task_done", task=tasks[i].id, index=i, total=len(tasks))
    finally:
        for _, w in running.values():
            ray.kill(w, no_restart=True)
        for w in free:
            ray.kill(w, no_restart=True)
    ends = [e for i in sorted(results) for e in results[i]]
    return ends, totals, failed
