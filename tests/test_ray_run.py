"""The step loop on Ray: same decisions as a local run, workers killed mid-run, resume of a cut trace.

A small real run: SmolLM2-135M generator, a panel of the arithmetic judge and the MiniLM
relevance judge, two problems, two chains (VERDICT and the unverified base chain).
"""

import json
import shutil
import threading
from collections import Counter

import pytest
import ray  # noqa: F401  (the ray extra: missing, these tests fail instead of being skipped)
from polling import wait_until

from accord.verify.loop import read_records
from accord.verify.run import RayOptions, close_servers, execute_on_ray, resolve

pytestmark = pytest.mark.slow

RUN = {
    "task": {"name": "basic_arithmetic", "options": {"size": 2, "seed": 3}},
    "generator": {"max_new_tokens": 8},
    "judges": [{"type": "arithmetic", "lambda": 1.5}, {"type": "embedding", "lambda": 0.8}],
    "baselines": [],
    "budgets": {"n_candidates": 2, "max_steps": 2, "max_tokens": 64},
    "threads": 1,
    "output": {"report": False},
}
# generator and panel servers and two workers share the test cluster's two CPUs
OPTS = RayOptions(workers=2, worker_cpus=0.25, server_cpus=0.75, separate=True, reuse_servers=True, max_retries=2)


@pytest.fixture(scope="session")
def ray_cluster():
    """One local two-CPU Ray cluster for the whole test session (start-up is slow)."""
    from accord.verify.io import connect_ray

    cluster = connect_ray(num_cpus=2)
    yield cluster
    close_servers()
    cluster.shutdown()


@pytest.fixture(scope="module", autouse=True)
def release_servers_after_module():
    """The servers kept for reuse hold most of the cluster's CPUs: free them for the other Ray tests."""
    yield
    close_servers()


@pytest.fixture(scope="module")
def cfg():
    return resolve(RUN)


def decisions(trace):
    """Everything a step decision consists of, keyed by (task, chain, step)."""
    recs, _ = read_records(trace)
    steps = {
        (r["task_id"], r["chain"], r["step"]): (r["context_id"], r["candidates"], r["raw"], r["accepted"], r["chosen"])
        for r in recs
        if r["type"] == "step"
    }
    ends = {
        (r["task_id"], r["chain"]): (r["steps"], r["answer"], r["correct"]) for r in recs if r["type"] == "task_end"
    }
    return steps, ends


@pytest.fixture(scope="module")
def local_trace(cfg, smollm2, tmp_path_factory):
    """The local backend over the same problems (the session's SmolLM2, one torch thread as on Ray)."""
    import torch

    from accord.adapters.local import TransformersGenerator
    from accord.verify.loop import StepLoop, TraceWriter
    from accord.verify.run import build_chains, build_panel_from, load_task_list

    g = cfg.generator
    generator = TransformersGenerator.from_loaded(
        *smollm2, temperature=g.temperature, top_p=g.top_p, max_new_tokens=g.max_new_tokens
    )
    panel = build_panel_from(cfg)
    path = tmp_path_factory.mktemp("local") / "trace.jsonl"
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        with TraceWriter(path) as writer:
            loop = StepLoop(
                generator, panel, build_chains(cfg), budgets=cfg.budgets.budgets(), seed=cfg.seed, writer=writer
            )
            loop.run(load_task_list(cfg.task))
    finally:
        torch.set_num_threads(threads)
    return path


@pytest.fixture(scope="module")
def killed_run(cfg, ray_cluster, tmp_path_factory):
    """A Ray run whose worker actors are all killed as soon as the first step is in the trace."""
    run_dir = tmp_path_factory.mktemp("ray") / "run"
    trace = run_dir / "trace.jsonl"
    killed: list[str] = []
    stop = threading.Event()

    def killer():
        wait_until(lambda: stop.is_set() or (trace.exists() and '"type": "step"' in trace.read_text()), "a step", 600)
        if stop.is_set():
            return
        for name in ray_cluster.util.list_named_actors():
            if name.startswith("accord-worker-"):
                ray_cluster.kill(ray_cluster.get_actor(name), no_restart=True)
                killed.append(name)

    thread = threading.Thread(target=killer, daemon=True)
    thread.start()
    try:
        summary = execute_on_ray(cfg, run_dir, opts=OPTS)
    finally:
        stop.set()
        thread.join()
    return run_dir, summary, killed


def test_ray_run_matches_local_decision_for_decision(local_trace, killed_run):
    run_dir, _, _ = killed_run
    local_steps, local_ends = decisions(local_trace)
    ray_steps, ray_ends = decisions(run_dir / "trace.jsonl")
    assert len(local_steps) >= 4 and len(local_ends) == 4  # 2 problems x 2 chains
    assert ray_steps == local_steps
    assert ray_ends == local_ends


def test_killed_workers_are_retried_and_every_problem_finishes_once(killed_run):
    run_dir, summary, killed = killed_run
    assert killed, "no worker was running when the first step was written"
    recs, notes = read_records(run_dir / "trace.jsonl")
    assert not notes
    retries = [r for r in recs if r["type"] == "retry"]
    assert retries and all("ActorDied" in r["error"] or "Actor" in r["error"] for r in retries)
    assert summary["backend"]["retries"] == len(retries) and summary["backend"]["failed_problems"] == []
    ends = Counter((r["task_id"], r["chain"]) for r in recs if r["type"] == "task_end")
    assert len(ends) == 4 and set(ends.values()) == {1}
    steps = Counter((r["task_id"], r["chain"], r["step"]) for r in recs if r["type"] == "step")
    assert set(steps.values()) == {1}  # nothing decided twice: retries resumed from the trace
    assert recs[0]["type"] == "run" and recs[0]["backend"]["name"] == "ray"
    assert json.loads((run_dir / "summary.json").read_text())["n_problems"] == 2


def test_resume_of_an_interrupted_cluster_run(cfg, killed_run, local_trace, tmp_path):
    """Cut the trace before its last step (leaving a half-written line) and resume on Ray."""
    run_dir, _, _ = killed_run
    cut = tmp_path / "run"
    shutil.copytree(run_dir, cut)
    lines = (cut / "trace.jsonl").read_text().splitlines(keepends=True)
    last_step = max(i for i, line in enumerate(lines) if '"type": "step"' in line)
    kept = sum('"type": "step"' in line for line in lines[:last_step])
    (cut / "trace.jsonl").write_text("".join(lines[:last_step]) + '{"type": "step", "task_')
    summary = execute_on_ray(cfg, cut, resume=True, opts=OPTS)
    assert summary["work"]["resumed_steps"] >= 1 and summary["work"]["resumed_steps"] <= kept
    recs, notes = read_records(cut / "trace.jsonl")
    assert not notes and any(r["type"] == "resume" for r in recs)
    assert decisions(cut / "trace.jsonl") == decisions(local_trace)
    assert set(Counter((r["task_id"], r["chain"], r["step"]) for r in recs if r["type"] == "step").values()) == {1}
    assert set(Counter((r["task_id"], r["chain"]) for r in recs if r["type"] == "task_end").values()) == {1}


def test_cli_refuses_a_run_that_does_not_fit_the_cluster(ray_cluster, tmp_path, capsys):
    from accord.cli.main import main

    out = tmp_path / "run"
    args = ["run", "--backend", "ray", "--servers", "3", "--out", str(out), "--quiet", "--no-report", "--problems", "1"]
    assert main(args) == 2
    err = capsys.readouterr().err
    assert "need 4 CPUs" in err and "GPUs free" in err and len(err.strip().splitlines()) == 1
    trace = out / "trace.jsonl"
    assert not trace.exists() or trace.read_text() == ""  # refused before any model was loaded


def test_ray_run_puts_judges_on_one_scale_as_a_local_run_does(ray_cluster, tmp_path):
    """A label-free scale fitted during a Ray run: one worker scores the problems in the local order, so
    the warm-up, the fitted maps and every decision are the local run's; abstentions are counted."""
    import torch

    from accord.verify.run import execute_locally

    cfg = resolve({**RUN, "calibration": {"mode": "quantile", "warmup": 5}})
    threads = torch.get_num_threads()
    try:
        local = execute_locally(cfg, tmp_path / "local")
    finally:
        torch.set_num_threads(threads)
    one = RayOptions(workers=1, worker_cpus=0.25, server_cpus=0.75, separate=True, reuse_servers=True)
    remote = execute_on_ray(cfg, tmp_path / "ray", opts=one)

    def scale_of(run):
        recs, _ = read_records(tmp_path / run / "trace.jsonl")
        keys = ("method", "judges", "fitted_on", "source", "maps", "thresholds", "notes")
        return [{k: r[k] for k in keys} for r in recs if r["type"] == "calibration"]

    assert remote["calibration"]["maps"] is not None and remote["calibration"]["fitted_on"] >= 5
    assert scale_of("ray") == scale_of("local") == [local["calibration"]]  # written once, by the worker
    assert json.loads((tmp_path / "ray" / "calibration.json").read_text()) == local["calibration"]
    assert decisions(tmp_path / "ray" / "trace.jsonl") == decisions(tmp_path / "local" / "trace.jsonl")
    recs, _ = read_records(tmp_path / "ray" / "trace.jsonl")
    assert any(r.get("scale") == "quantile" for r in recs if r["type"] == "step")  # decided on the scale
    assert remote["judge_counts"] == local["judge_counts"] and remote["accept_rule"] == local["accept_rule"]
    # a saved scale on two workers: used from the first step, the same decisions as locally with it
    saved = resolve({**RUN, "calibration": {"mode": "file", "file": str(tmp_path / "local" / "calibration.json")}})
    again = execute_on_ray(saved, tmp_path / "ray-saved", opts=OPTS)
    try:
        here = execute_locally(saved, tmp_path / "local-saved")
    finally:
        torch.set_num_threads(threads)
    assert again["calibration"] == here["calibration"] == local["calibration"]
    assert decisions(tmp_path / "ray-saved" / "trace.jsonl") == decisions(tmp_path / "local-saved" / "trace.jsonl")
    steps = [r for r in read_records(tmp_path / "ray-saved" / "trace.jsonl")[0] if r["type"] == "step"]
    assert steps and all(r.get("scale") == "quantile" for r in steps)
