"""Progress: one bar (done/total, elapsed, ETA) on a terminal's stderr, none in a pipe or with --quiet;
the library's long calls report through a ``progress(done, total)`` callback."""

from __future__ import annotations

import os
import pty
import subprocess
import sys
from pathlib import Path

import pytest
from test_engine import AdditionWalker, chains, panel, tasks

from accord.adapters.math import ArithmeticJudge, SymbolicEquivalenceJudge
from accord.cli.main import main
from accord.consensus_core import get_policy
from accord.proofs import run_all
from accord.verify.analysis import check_derivation
from accord.verify.io import read_derivation
from accord.verify.loop import Budgets, StepLoop
from accord.verify.tables import decide_streaming, open_source

ROOT = Path(__file__).resolve().parents[1]
SLIP = ROOT / "examples" / "derivations" / "algebra_slip.txt"


class Calls(list):
    def __call__(self, done, total):
        self.append((done, total))


def _counts_up(calls: Calls, total: int) -> None:
    assert calls and calls[-1] == (total, total)
    assert [d for d, _ in calls] == sorted(d for d, _ in calls)
    assert all(t == total for _, t in calls)


def test_step_loop_reports_each_task():
    calls = Calls()
    StepLoop(AdditionWalker(), panel(), chains(), budgets=Budgets(3, 5, 200), seed=0).run(tasks(3), progress=calls)
    assert calls == [(1, 3), (2, 3), (3, 3)]


def test_derivation_check_and_proofs_report_progress():
    calls = Calls()
    lines = read_derivation(SLIP)
    check_derivation(lines, [SymbolicEquivalenceJudge(timeout=20), ArithmeticJudge()], progress=calls)
    _counts_up(calls, sum(ln.kind == "claim" for ln in lines))
    calls = Calls()
    run_all(["determinant-all-to-all", "equilibrium-foc"], progress=calls)
    assert calls == [(1, 2), (2, 2)]


def test_verify_runner_reports_steps_judged(tmp_path):
    from accord.verify.solutions import read_solutions, resolve_settings, verify_solutions

    sols = read_solutions(ROOT / "examples" / "solutions" / "processbench.jsonl", None)[:2]
    settings = resolve_settings(None, "arithmetic,symbolic", "verdict", None, None, with_reference=False)
    calls = Calls()
    verify_solutions(sols, settings, progress=calls, n_boot=0, cache=tmp_path / "cache")
    _counts_up(calls, sum(len(s.steps) for s in sols))
    assert calls[0] == (0, calls[-1][1])


@pytest.mark.parametrize("fmt", ["csv", "jsonl"])
def test_streamed_decisions_report_rows(tmp_path, fmt):
    rows = [(s, c, 0.1 * (c + 1), 0.5) for s in range(40) for c in range(3)]
    if fmt == "csv":
        text = "step,candidate,a,b\n" + "".join(f"{s},{c},{x},{y}\n" for s, c, x, y in rows)
    else:
        text = "".join(f'{{"step": {s}, "candidate": {c}, "scores": {{"a": {x}, "b": {y}}}}}\n' for s, c, x, y in rows)
    path = tmp_path / f"scores.{fmt}"
    path.write_text(text)
    calls = Calls()
    decide_streaming(open_source(path), get_policy("verdict"), tmp_path / "out.jsonl", 25, progress=calls)
    _counts_up(calls, len(rows))
    assert len(calls) == 5  # one call per chunk of 25 rows


def _on_a_terminal(argv: list[str]) -> tuple[int, str, str]:
    """Run ``accord`` with stderr on a pseudo-terminal: (exit code, stdout, what the terminal showed)."""
    master, slave = pty.openpty()
    env = {**os.environ, "PYTHONPATH": str(ROOT), "COLUMNS": "100", "TERM": "xterm"}
    proc = subprocess.Popen(
        [sys.executable, "-m", "accord.cli.main", *argv], stdout=subprocess.PIPE, stderr=slave, cwd=ROOT, env=env
    )
    os.close(slave)
    shown = b""
    while True:
        try:
            data = os.read(master, 65536)
        except OSError:  # the child closed the terminal
            break
        if not data:
            break
        shown += data
    out = proc.stdout.read().decode()
    os.close(master)
    return proc.wait(timeout=300), out, shown.decode(errors="replace")


@pytest.mark.slow
def test_a_terminal_gets_a_bar_with_eta_and_quiet_or_a_pipe_gets_none(capsys):
    rc, out, shown = _on_a_terminal(["check", str(SLIP)])
    assert rc == 1 and "first invalid step" in out
    assert "checking lines" in shown and "ETA" in shown
    rc, out, shown = _on_a_terminal(["check", str(SLIP), "--quiet"])
    assert rc == 1 and "checking lines" not in shown and "ETA" not in shown
    assert main(["check", str(SLIP)]) == 1  # stderr is not a terminal here
    assert capsys.readouterr().err == ""


@pytest.mark.parametrize(
    "argv",
    [
        ["run"],
        ["prove"],
        ["check", "x"],
        ["jury", "x"],
        ["verify", "x"],
        ["codepool"],
        ["curate", "x"],
        ["ensemble", "x"],
        ["consensus", "x"],
        ["jury", "collect"],
    ],
)
def test_every_long_command_takes_quiet(argv, capsys):
    assert main([*argv, "--help"]) == 0
    assert "--quiet" in capsys.readouterr().out


def test_model_loading_bars_are_silenced():
    """transformers' own bars (and the GGUF reader's) stay off: the command's one bar speaks."""
    import transformers.modeling_gguf_pytorch_utils as gguf_utils
    from transformers.utils import logging as hf_logging

    from accord.adapters.local import quiet_model_loading

    quiet_model_loading()
    quiet_model_loading()  # twice is harmless
    assert not hf_logging.is_progress_bar_enabled()
    bar = gguf_utils.tqdm(range(3))
    assert bar.disable and list(bar) == [0, 1, 2]
