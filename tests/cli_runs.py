"""Runs of the CLI that several test files make the same way, so each file states only what differs."""

from __future__ import annotations

import json
from pathlib import Path

from accord.cli.main import main


def verify_to(solutions: Path, out: Path, *extra: str) -> None:
    """``accord verify`` on ``solutions`` into ``out`` with JSON on stdout: one worker, no bootstrap, never failing."""
    args = ["verify", str(solutions), "--out", str(out), "--json", "--bootstrap", "0", "--workers", "1"]
    assert main([*args, "--fail-on", "never", *extra]) == 0


def verified(tmp_path: Path, solutions: list[dict], capsys) -> tuple[dict, dict[str, dict]]:
    """``accord verify`` on ``solutions`` written as JSONL: the JSON summary it printed and the
    ``--out`` record of each solution by id."""
    data, out = tmp_path / "sols.jsonl", tmp_path / "pred.jsonl"
    data.write_text("".join(json.dumps(s) + "\n" for s in solutions))
    capsys.readouterr()
    verify_to(data, out)
    summary = json.loads(capsys.readouterr().out)
    return summary, {r["id"]: r for r in map(json.loads, out.read_text().splitlines())}
