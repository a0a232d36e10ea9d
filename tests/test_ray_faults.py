"""Ray workers that die mid-run, killed for real on a local two-CPU cluster: every item finishes, the
lost ones are done again once, nothing is written twice, the output is an uninterrupted run's, and
the run says how many items it did again.

``accord verify --backend ray``: judge actors killed (``ray.kill``) while a slow solution is judged;
Ray restarts them and runs the lost call again. ``accord run --backend ray``: every problem worker
killed (SIGKILL to its process) once steps are in the trace; each problem it held is resumed from
the trace by a new worker. The run's generator is a scripted OpenAI-compatible server on a loopback
port (no model to load), its judges the arithmetic and symbolic checks.
"""

from __future__ import annotations

import json
import os
import re
import signal
import threading
from collections import Counter
from pathlib import Path

import pytest
import ray
from loopback import JSONHandler, Loopback
from polling import wait_until

from accord.adapters.served._generator import NEXT_STEP
from accord.cli.main import main
from accord.verify.io import connect_ray
from accord.verify.loop import read_records

pytestmark = pytest.mark.slow

QUESTION = "How many strings of length 6 over the digits 1, 2, 3 have adjacent digits differing by at most 1?"
QUICK = (
    "For $n = 1$ there are three strings, so $a_1 = 3$.",
    "Then $a_2 = 2 a_1 + 1 = 7$.",
    "So $3 \\cdot 17 = 51$ and $51 + 4 = 56$.",
    "Since $x^2 - 5x + 6 = (x - 2)(x - 3)$, the roots are $x = 2$ and $x = 3$.",
)
SLOW_AT = 3  # the solution being judged when the actors are killed: its products take seconds to check


@pytest.fixture(scope="module")
def cluster():
    """The session's local Ray cluster of two CPUs (started here if no other test started it)."""
    return connect_ray(num_cpus=2)


@pytest.fixture(autouse=True)
def own_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("ACCORD_CACHE_DIR", str(tmp_path / "cache"))


def _named(cluster, prefix: str) -> list:
    return [cluster.get_actor(n) for n in cluster.util.list_named_actors() if n.startswith(prefix)]


def _solutions(path: Path) -> list[dict]:
    sols = []
    for i in range(8):
        steps = [QUICK[(i + k) % len(QUICK)] for k in range(3)]
        if i == SLOW_AT:
            steps = [f"Let $p_{{{k}}} = \\prod_{{j=1}}^{{1500}} (1 + {k}/j^2)$." for k in range(1, 9)]
        sols.append({"id": f"sol{i}", "problem": QUESTION, "steps": steps})
    path.write_text("".join(json.dumps(s) + "\n" for s in sols))
    return sols


def test_verify_on_ray_judges_again_what_a_killed_actor_held(cluster, tmp_path, capsys):
    data = tmp_path / "solutions.jsonl"
    sols = _solutions(data)
    common = [str(data), "--bootstrap", "0", "--fail-on", "never", "-q"]
    local = tmp_path / "local.jsonl"
    assert main(["verify", *common, "--out", str(local), "--cache", str(tmp_path / "local.cache")]) == 0
    capsys.readouterr()

    out = tmp_path / "ray.jsonl"
    killed: list[str] = []

    def kill_mid_run():  # once the lines before the slow solution are written, it is being judged
        wait_until(lambda: out.exists() and len(out.read_text().splitlines()) >= SLOW_AT, "the first lines", 300)
        for actor in _named(cluster, "accord-judge-"):
            cluster.kill(actor, no_restart=False)  # the process dies; Ray may restart the actor
            killed.append(actor._actor_id.hex())

    killer = threading.Thread(target=kill_mid_run)
    killer.start()
    on_ray = ["--backend", "ray", "--workers", "2", "--out", str(out), "--cache", str(tmp_path / "ray.cache")]
    rc = main(["verify", *common, *on_ray])
    killer.join()
    printed = capsys.readouterr().out
    assert rc == 0 and len(killed) == 2
    lines = out.read_text().splitlines()
    assert [json.loads(line)["id"] for line in lines] == [s["id"] for s in sols]  # every solution, once
    assert lines == local.read_text().splitlines()  # what an uninterrupted run writes
    again = re.search(r"; (\d+) judged again after their worker died", printed)
    assert again and 1 <= int(again.group(1)) <= 2, printed  # the slow one, and the other actor's, if it had one
    print(f"\nverify --backend ray: {len(lines)} solutions, {again.group(1)} judged again, output identical: True")


def _questions(path: Path) -> list[dict]:
    qs = [{"id": f"q{i}", "question": f"What is {10 + i} + {3 * i}?", "answer": str(10 + 4 * i)} for i in range(6)]
    path.write_text("".join(json.dumps(q) + "\n" for q in qs))
    return qs


class StepServer(Loopback):
    """A chat-completions server that writes two-step solutions: candidate i of the first step adds
    the question's numbers (odd i: off by one), the second states the sum. Deterministic, so two runs
    see the same candidates. Requests for a second step are held until ``go`` is set (at most 120 s):
    the workers are surely in the middle of their problems when they are killed."""

    def __init__(self):
        self.go = threading.Event()
        go = self.go

        class Handler(JSONHandler):
            def do_GET(self):
                self.answer(404, {"error": "not found"})

            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                a, b = map(int, re.findall(r"What is (\d+) \+ (\d+)", json.dumps(body["messages"]))[-1])
                done = body["messages"][-1]["content"] == NEXT_STEP  # a step was written: the answer now
                texts = [
                    f"The answer is {a + b}." if done else f"We add: {a} + {b} = {a + b + i % 2}."
                    for i in range(int(body.get("n", 1)))
                ]
                if done:
                    go.wait(timeout=120)
                try:
                    self.answer(
                        200,
                        {
                            "id": "x",
                            "object": "chat.completion",
                            "created": 0,
                            "model": "m",
                            "choices": [
                                {"index": i, "finish_reason": "stop", "message": {"role": "assistant", "content": t}}
                                for i, t in enumerate(texts)
                            ],
                            "usage": {"prompt_tokens": 20, "completion_tokens": 8, "total_tokens": 28},
                        },
                    )
                except OSError:  # the worker that asked was killed meanwhile
                    pass

        super().__init__(Handler)


def _decisions(trace: Path):
    recs, notes = read_records(trace)
    assert not notes
    steps = Counter((r["task_id"], r["chain"], r["step"]) for r in recs if r["type"] == "step")
    ends = Counter((r["task_id"], r["chain"]) for r in recs if r["type"] == "task_end")
    assert set(steps.values()) == {1} and set(ends.values()) == {1}  # nothing written twice
    made = {
        (r["task_id"], r["chain"], r["step"]): (r["candidates"], r["raw"], r["accepted"], r["chosen"])
        for r in recs
        if r["type"] == "step"
    }
    return made, {(r["task_id"], r["chain"]): (r["answer"], r["correct"]) for r in recs if r["type"] == "task_end"}


def test_run_on_ray_resumes_the_problems_of_killed_workers(cluster, tmp_path, capsys):
    tasks = tmp_path / "questions.jsonl"
    _questions(tasks)
    server = StepServer()
    try:
        cfg = {
            "task": {"name": "jsonl", "options": {"path": str(tasks)}},
            "generator": {"base_url": server.base_url, "model": "m", "cache": False, "max_new_tokens": 16},
            "judges": [{"type": "arithmetic", "lambda": 1.5}, {"type": "symbolic", "mode": "solution"}],
            "baselines": [],
            "base_chain": True,
            "budgets": {"n_candidates": 2, "max_steps": 3, "max_tokens": 64},
            "output": {"report": False},
        }
        config = tmp_path / "run.json"
        config.write_text(json.dumps(cfg))
        server.go.set()  # the uninterrupted run: nothing held
        assert main(["run", "--config", str(config), "--out", str(tmp_path / "local"), "--quiet"]) == 0
        server.go.clear()
        capsys.readouterr()

        run_dir = tmp_path / "ray"
        trace = run_dir / "trace.jsonl"
        killed: list[int] = []

        def kill_mid_run():  # SIGKILL every problem worker's process once steps are in the trace
            from ray._private.state import state

            try:
                wait_until(lambda: trace.exists() and '"type": "step"' in trace.read_text(), "the first step", 300)
                for actor in _named(cluster, "accord-worker-"):
                    pid = state.actor_table(actor._actor_id.hex())["Pid"]
                    os.kill(pid, signal.SIGKILL)
                    killed.append(pid)
            finally:
                server.go.set()

        killer = threading.Thread(target=kill_mid_run)
        killer.start()
        args = ["run", "--config", str(config), "--out", str(run_dir), "--backend", "ray", "--quiet"]
        rc = main(args + ["--workers", "2", "--worker-cpus", "0.5", "--server-cpus", "1"])
        killer.join()
        printed = capsys.readouterr().out
    finally:
        server.close()
    assert rc == 0 and killed
    summary = json.loads((run_dir / "summary.json").read_text())
    backend = summary["backend"]
    assert backend["failed_problems"] == [] and 1 <= len(backend["retried_problems"]) <= 2
    recs, _ = read_records(trace)
    assert backend["retries"] == sum(r["type"] == "retry" for r in recs) == len(backend["retried_problems"])
    assert f"ray: {len(backend['retried_problems'])} problem(s) run again" in printed
    ray_made = _decisions(trace)
    assert len(ray_made[1]) == 12  # every problem's two chains finished
    assert ray_made == _decisions(tmp_path / "local" / "trace.jsonl")  # the decisions of an uninterrupted run
    print(
        f"\nrun --backend ray: {len(ray_made[1]) // 2} problems, {len(backend['retried_problems'])} run again "
        f"after {len(killed)} worker(s) were killed, decisions identical: True"
    )


def test_cluster_is_released(cluster):
    """Nothing of the runs above is left holding the cluster's CPUs."""
    assert not _named(cluster, "accord-judge-") and not _named(cluster, "accord-worker-")
    wait_until(lambda: ray.available_resources().get("CPU", 0) >= 2, "the CPUs freed", 60)
