"""`accord run` says how far it is and how long is left, and lets no model library's deprecation
notice through: a real run (a tiny random Llama over SmolLM2's tokenizer, real judges) through the CLI
in a subprocess whose stderr is not a terminal (the one-line-per-problem form), and the bar's own
progress moving with each decided step."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from test_trace_resume import _tiny_model, tiny_config

from accord.cli.commands.run import RichProgress, eta_line

ROOT = Path(__file__).resolve().parents[1]


def test_eta_line_says_done_elapsed_and_left():
    assert eta_line(1, 4, 30.0) == "accord run: 1/4 problems done in 30 s; about 1 min 30 s left"
    assert eta_line(4, 4, 3725.0) == "accord run: 4/4 problems done in 1 h 02 min"


def test_the_bar_moves_with_each_step_and_reaches_each_problem_at_its_end():
    from rich.console import Console

    p = RichProgress(Console(file=open(os.devnull, "w")), max_steps=3)
    p.lines = False
    p.start(2, ["verdict", "base"])
    p.event("task", task="a", index=0, total=2)
    done = []
    for step in range(2):
        p.event("step", task="a", chain="verdict", step=step)
        done.append(p.bar.tasks[0].completed)
    assert 0 < done[0] < done[1] < 1
    p.event("task_done", task="a", index=0, total=2)
    assert p.bar.tasks[0].completed == 1
    p.stop()


@pytest.mark.slow
def test_a_run_in_a_log_prints_progress_lines_and_no_deprecation_notice(tmp_path, smollm2):
    model = tmp_path / "tiny"
    model.mkdir()
    _tiny_model(model, smollm2[1])
    cfg = tiny_config(tmp_path, model, problems=2)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), *sys.path])}
    proc = subprocess.run(
        [sys.executable, "-m", "accord.cli.main", "run", "--config", str(cfg), "--out", str(tmp_path / "run")],
        capture_output=True,
        text=True,
        env=env,
        timeout=900,
    )
    assert proc.returncode == 0, proc.stderr
    lines = [line for line in proc.stderr.splitlines() if line.startswith("accord run: ")]
    assert lines[0].startswith("accord run: 1/2 problems done in ") and "left" in lines[0]
    assert lines[1].startswith("accord run: 2/2 problems done in ") and "left" not in lines[1]
    for noise in ("torch_dtype", "deprecated", "FutureWarning", "DeprecationWarning"):
        assert noise not in proc.stderr, proc.stderr
