"""Runs of the CLI that several test files make the same way, so each file states only what differs."""

from __future__ import annotations

from pathlib import Path

from accord.cli.main import main


def verify_to(solutions: Path, out: Path, *extra: str) -> None:
    """``accord verify`` on ``solutions`` into ``out`` with JSON on stdout: one worker, no bootstrap, never failing."""
    args = ["verify", str(solutions), "--out", str(out), "--json", "--bootstrap", "0", "--workers", "1"]
    assert main([*args, "--fail-on", "never", *extra]) == 0
