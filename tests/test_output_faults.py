"""``accord verify --out`` killed at exact points of its output (the ``ACCORD_FAULT`` hook, site
``verify``) and resumed writes the same lines as an uninterrupted run, each solution once."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from test_verify_cli import SOLUTIONS

from accord.cli.main import main
from accord.verify.io import is_live, lock_path

ROOT = Path(__file__).resolve().parents[1]


def _verify(solutions: Path, out: Path, *more: str, fault: str | None = None) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "OMP_NUM_THREADS": "1"}
    env.pop("ACCORD_FAULT", None)
    if fault:
        env["ACCORD_FAULT"] = fault
    argv = [
        sys.executable,
        "-m",
        "accord.cli.main",
        "verify",
        str(solutions),
        "--out",
        str(out),
        "--bootstrap",
        "0",
        "--json",
        *more,
    ]
    return subprocess.run(argv, env=env, capture_output=True, text=True, timeout=600)


@pytest.mark.parametrize("fault", ["verify:1", "verify:3:torn", "verify:5"])
def test_verify_killed_at_a_line_and_resumed_writes_the_uninterrupted_lines(tmp_path, capsys, fault):
    solutions = tmp_path / "solutions.jsonl"
    solutions.write_text("".join(json.dumps(s) + "\n" for s in SOLUTIONS))
    full, out = tmp_path / "full.jsonl", tmp_path / "pred.jsonl"
    assert main(["verify", str(solutions), "--out", str(full), "--bootstrap", "0", "--json"]) == 1
    capsys.readouterr()

    killed = _verify(solutions, out, fault=fault)
    assert killed.returncode == -signal.SIGKILL, killed.stderr[-2000:]
    assert is_live(out) is None  # the killed writer's lock file holds no lock
    n = int(fault.split(":")[1])
    text = out.read_text()
    assert text.count("\n") == (n - 1 if fault.endswith("torn") else n)  # a torn line has no newline yet

    assert main(["verify", str(solutions), "--out", str(out), "--resume", "--bootstrap", "0", "--json"]) == 1
    doc = json.loads(capsys.readouterr().out)
    assert doc["resumed"] == text.count("\n")
    assert sorted(out.read_text().splitlines()) == sorted(full.read_text().splitlines())  # each solution once
    assert not lock_path(out).exists()  # removed on the resumed run's normal exit
