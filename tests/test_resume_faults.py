"""A run killed at any point and resumed equals the uninterrupted run with the same seed.

Kills are real SIGKILLs at exact points, set by the ``ACCORD_FAULT`` hook of the trace writer
(accord.verify.io): after the header, between a step record and its task end, after a task
end, half-way through writing a step or task-end line (a torn last line), and a second kill while
resuming. The step loop runs the rule-based generator and judges of test_engine (no model); the
``accord run`` command itself runs a tiny random Llama (slow).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from test_engine import AdditionWalker, chains, panel, tasks
from test_trace_resume import _rounded, _tiny_model, tiny_config

from accord.cli.main import main
from accord.verify.io import is_live
from accord.verify.loop import Budgets, StepLoop, TraceWriter, load_resume_state, read_records

ROOT = Path(__file__).resolve().parents[1]
TESTS = Path(__file__).resolve().parent


def drive(path: str) -> None:
    """Run (or resume) the step loop into ``path``, with a run or resume header like ``accord run``."""
    state = load_resume_state(path)
    with TraceWriter(path) as w:
        w.write({"type": "run", "seed": 1} if w.seq == 0 else {"type": "resume", "notes": [w.note] if w.note else []})
        StepLoop(AdditionWalker(), panel(), chains(), budgets=Budgets(3, 5, 200), seed=1, writer=w, resume=state).run(
            tasks()
        )


def _env(fault: str | None) -> dict:
    env = {**os.environ, "PYTHONPATH": f"{ROOT}{os.pathsep}{TESTS}", "OMP_NUM_THREADS": "1", "PYTHONHASHSEED": "0"}
    env.pop("ACCORD_FAULT", None)
    if fault:
        env["ACCORD_FAULT"] = fault
    return env


def _killed(argv: list[str], fault: str) -> None:
    res = subprocess.run(argv, check=False, env=_env(fault), capture_output=True, text=True, timeout=900)
    assert res.returncode == -signal.SIGKILL, res.stderr[-2000:]


def decided(path: Path) -> list[str]:
    """The step and task-end records, without what differs between two runs of one seed, sorted."""
    keep = [r for r in read_records(path)[0] if r["type"] in ("step", "task_end")]
    drop = ("timings", "tokens", "run_id", "writer", "seq")
    return sorted(json.dumps(_rounded({k: v for k, v in r.items() if k not in drop}), sort_keys=True) for r in keep)


def assert_one_clean_run(path: Path) -> list[dict]:
    """Every record once, numbered by position, one run id (read_records refuses anything else)."""
    records, notes = read_records(path)
    assert notes == [] and path.read_text().endswith("\n")
    assert [r["seq"] for r in records] == list(range(len(records)))
    assert len({r["run_id"] for r in records}) == 1
    steps = [(r["task_id"], r["chain"], r["step"]) for r in records if r["type"] == "step"]
    ends = [(r["task_id"], r["chain"]) for r in records if r["type"] == "task_end"]
    assert len(steps) == len(set(steps)) and len(ends) == len(set(ends))
    return records


def kill_points(records: list[dict]) -> dict[str, str]:
    """Faults named by where they hit, as record counts of the uninterrupted trace (header = 1)."""
    kinds = [r["type"] for r in records]
    step_before_end = next(i for i in range(1, len(kinds) - 1) if kinds[i] == "step" and kinds[i + 1] == "task_end")
    mid_step = next(i for i in range(len(kinds) // 2, len(kinds)) if kinds[i] == "step" and records[i]["step"] >= 1)
    end = next(i for i in range(len(kinds) // 3, len(kinds) - 1) if kinds[i] == "task_end")
    return {
        "after the header": "trace:1",
        "between a step and its task end": f"trace:{step_before_end + 1}",
        "after a task end": f"trace:{end + 1}",
        "torn step line": f"trace:{mid_step + 1}:torn",  # mid-chain: the chain's earlier steps are reused
        "torn task-end line": f"trace:{end + 1}:torn",
    }


def test_the_step_loop_killed_at_each_point_and_resumed_equals_the_uninterrupted_run(tmp_path):
    ref = tmp_path / "ref.jsonl"
    drive(str(ref))
    reference = read_records(ref)[0]
    script = [sys.executable, "-c", "import sys; from test_resume_faults import drive; drive(sys.argv[1])"]
    points = kill_points(reference)
    for name, fault in points.items():
        path = tmp_path / f"{name.replace(' ', '-')}.jsonl"
        _killed([*script, str(path)], fault)
        n_written = int(fault.split(":")[1])
        before = path.read_text()
        if fault.endswith("torn"):
            assert not before.endswith("\n") and before.count("\n") == n_written - 1, name
        else:
            assert before.endswith("\n") and before.count("\n") == n_written, name
        drive(str(path))
        records = assert_one_clean_run(path)
        assert decided(path) == decided(ref), name  # nothing lost, nothing twice, same decisions
        resume = next(r for r in records if r["type"] == "resume")
        assert any("half-written" in note for note in resume["notes"]) == fault.endswith("torn"), name
        kept = before[: before.rfind("\n") + 1]
        assert path.read_text().startswith(kept), name  # what was on disk was kept, not rewritten
    # killed again while resuming (its resume header is record 1 of that writer, then a step)
    path = tmp_path / "twice.jsonl"
    _killed([*script, str(path)], points["between a step and its task end"])
    _killed([*script, str(path)], "trace:3:torn")
    drive(str(path))
    records = assert_one_clean_run(path)
    assert decided(path) == decided(ref)
    assert [r["type"] for r in records].count("resume") == 2 and len({r["writer"] for r in records}) == 3


# ------------------------------------------------------------------ `accord run` itself
@pytest.fixture(scope="module")
def tiny_model(tmp_path_factory, smollm2):
    folder = tmp_path_factory.mktemp("tiny-llama-faults")
    _tiny_model(folder, smollm2[1])
    return folder


def _summary(run: Path) -> dict:
    s = json.loads((run / "summary.json").read_text())
    return {k: s[k] for k in ("accuracy", "accuracy_ci95", "stopped", "n_problems", "chains")}


@pytest.mark.slow
def test_accord_run_killed_and_resumed_equals_an_uninterrupted_run(tiny_model, tmp_path, capsys):
    cfg = tiny_config(tmp_path, tiny_model, problems=2)
    full = tmp_path / "full"
    assert main(["run", "--config", str(cfg), "--out", str(full), "--quiet", "--json"]) == 0
    capsys.readouterr()
    points = kill_points(read_records(full / "trace.jsonl")[0])
    accord = [sys.executable, "-m", "accord.cli.main", "run", "--config", str(cfg), "--quiet"]
    for name in ("between a step and its task end", "torn step line"):
        run = tmp_path / name.replace(" ", "-")
        _killed([*accord, "--out", str(run)], points[name])
        assert not (run / "summary.json").exists() and is_live(run) is None
        assert main(["run", "--resume", str(run), "--json"]) == 0
        assert json.loads(capsys.readouterr().out)["work"]["resumed_steps"] >= 1
        assert_one_clean_run(run / "trace.jsonl")
        assert decided(run / "trace.jsonl") == decided(full / "trace.jsonl"), name
        assert _summary(run) == _summary(full), name


@pytest.mark.slow
def test_a_second_accord_run_is_refused_while_the_first_finishes_and_readers_see_it_live(tiny_model, tmp_path, capsys):
    cfg = tiny_config(tmp_path, tiny_model, problems=2)
    full, run = tmp_path / "full", tmp_path / "run"
    assert main(["run", "--config", str(cfg), "--out", str(full), "--quiet", "--no-report"]) == 0
    kinds = [r["type"] for r in read_records(full / "trace.jsonl")[0]]
    first_end = kinds.index("task_end") + 1
    first = subprocess.Popen(
        [sys.executable, "-m", "accord.cli.main", "run", "--config", str(cfg), "--out", str(run), "--quiet"],
        env=_env(f"trace:{first_end}:stop"),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        _, status = os.waitpid(first.pid, os.WUNTRACED)  # the hook stopped it after its first task end
        assert os.WIFSTOPPED(status)
        capsys.readouterr()
        assert main(["run", "--resume", str(run), "--quiet"]) == 2
        err = capsys.readouterr().err.strip()
        assert err.startswith("accord run: error:") and f"PID {first.pid}" in err and len(err.splitlines()) == 1
        assert main(["run", "--config", str(cfg), "--out", str(run), "--quiet"]) == 2
        assert f"PID {first.pid}" in capsys.readouterr().err
        assert main(["labels", "score", str(run), "--json"]) == 0  # a reader works on the live folder
        captured = capsys.readouterr()
        assert json.loads(captured.out)["live"] == {"pid": first.pid}
        assert f"{run} is live (being written by PID {first.pid})" in captured.err
    finally:
        first.send_signal(signal.SIGCONT)
    _, stderr = first.communicate(timeout=900)
    assert first.returncode == 0, stderr[-2000:]
    assert_one_clean_run(run / "trace.jsonl")
    assert decided(run / "trace.jsonl") == decided(full / "trace.jsonl")
    assert is_live(run) is None
