"""Tables fit an 80-column terminal without cutting names; --output takes its format from the extension."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rich.cells import cell_len
from rich.console import Console
from rich.markup import escape

from accord.cli.display import Table
from accord.cli.main import main

ROOT = Path(__file__).resolve().parents[1]
EX = ROOT / "examples"


def _fits(out: str, width: int = 80) -> None:
    lines = out.splitlines()
    assert lines, "no output"
    assert max(cell_len(line) for line in lines) <= width, max(lines, key=cell_len)
    assert "…" not in out  # nothing truncated with an ellipsis


@pytest.fixture
def narrow(monkeypatch, tmp_path):
    """An 80-column terminal; commands that write files beside a run write into a copy."""
    monkeypatch.setenv("COLUMNS", "80")
    return tmp_path


def _copy_run(tmp_path) -> Path:
    import shutil

    return Path(shutil.copytree(EX / "runs" / "synthetic", tmp_path / "run"))


@pytest.mark.parametrize(
    "command, names",
    [
        (lambda t: ["consensus", str(EX / "scores.csv")], ["visual=1.5", "contextual=0.8"]),
        (lambda t: ["report", str(_copy_run(t)), "--bootstrap", "200"], ["raw_average", "variance"]),
        (lambda t: ["sweep", str(_copy_run(t)), "--tau", "0.5", "0.6", "--eps", "0.05", "0.1"], ["τ=0.5", "ε=0.05"]),
        (
            lambda t: ["check", str(EX / "derivations" / "algebra_slip.txt")],
            ["arithmetic", "symbolic", "numeric", "verdict"],
        ),
        (
            lambda t: ["ensemble", str(EX / "ensemble" / "rewards.jsonl"), "--n-boot", "50"],
            ["fj:no_rejection", "similarity"],
        ),
        (
            lambda t: ["jury", str(EX / "jury" / "panel.jsonl"), "--check-law", "--n-boot", "40"],
            ["unanimous_accuracy", "charlie"],
        ),
        (
            lambda t: [
                "labels",
                "score",
                str(EX / "step_labels" / "processbench_predicted.json"),
                str(EX / "step_labels" / "processbench.jsonl"),
            ],
            ["first"],
        ),
        (lambda t: ["prove", "--check", "determinant-all-to-all"], ["determinant-all-to-all", "PROVED"]),
    ],
)
def test_tables_fit_80_columns_and_keep_names_whole(narrow, capsys, command, names):
    assert main(command(narrow)) in (0, 1)
    out = capsys.readouterr().out
    _fits(out)
    for name in names:
        assert name in out, name


@settings(max_examples=30, deadline=None)
@given(
    names=st.lists(st.text("abcdefghij_-:.[]/", min_size=1, max_size=30), min_size=1, max_size=8),
    width=st.integers(40, 120),
)
def test_any_table_fits_its_width_and_keeps_every_character(names, width):
    """Long cells wrap and fold: every line within the width, every character still printed."""
    con = Console(width=width, record=True, file=open("/dev/null", "w"), emoji=False)  # as display.console
    t = Table(title="t")
    for i in range(len(names)):
        t.add_column(f"column {i}")
    t.add_row(*[escape(n) for n in names])
    con.print(t)
    out = con.export_text()
    _fits(out, width)
    flat = "".join(out.split())
    for name in names:
        assert all(flat.count(ch) >= name.count(ch) for ch in set(name))


def _rows(path: Path, fmt: str) -> list[dict]:
    if fmt == "csv":
        with path.open(newline="") as fh:
            return list(csv.DictReader(fh))
    if fmt == "jsonl":
        return [json.loads(line) for line in path.read_text().splitlines()]
    import pyarrow.parquet as pq

    return pq.read_table(path).to_pylist()


@pytest.mark.parametrize(
    "command, item", [("consensus", EX / "scores.csv"), ("ensemble", EX / "ensemble" / "rewards.jsonl")]
)
def test_output_format_follows_the_extension(tmp_path, capsys, command, item):
    rows = {}
    for fmt in ("csv", "jsonl", "parquet"):
        out = tmp_path / f"out.{fmt}"
        extra = ["--n-boot", "40"] if command == "ensemble" else []
        assert main([command, str(item), "--output", str(out), *extra]) == 0
        rows[fmt] = _rows(out, fmt)
    capsys.readouterr()
    assert len(rows["csv"]) == len(rows["jsonl"]) == len(rows["parquet"]) > 0
    assert list(rows["csv"][0]) == list(rows["jsonl"][0]) == list(rows["parquet"][0])
    key = "candidate" if command == "consensus" else "response_id"
    assert [r[key] for r in rows["csv"]] == [r[key] for r in rows["jsonl"]] == [r[key] for r in rows["parquet"]]
    assert [r["chosen" if command == "consensus" else "selected_mean"] for r in rows["jsonl"]] == [
        r["chosen" if command == "consensus" else "selected_mean"] for r in rows["parquet"]
    ]
    assert (tmp_path / "out.parquet").read_bytes()[:4] == b"PAR1"
    assert (tmp_path / "out.csv").read_bytes()[:1] == b'"'


@pytest.mark.parametrize(
    "command, item", [("consensus", EX / "scores.csv"), ("ensemble", EX / "ensemble" / "rewards.jsonl")]
)
@pytest.mark.parametrize("name", ["out.txt", "out", "out.parquet.bak"])
def test_an_unknown_output_extension_is_refused(tmp_path, capsys, command, item, name):
    assert main([command, str(item), "--output", str(tmp_path / name)]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "unknown extension" in err and ".csv, .jsonl or .parquet" in err
    assert not (tmp_path / name).exists()


def test_ensemble_without_labels_prints_its_picks(tmp_path, capsys):
    rows = [json.loads(line) for line in (EX / "ensemble" / "rewards.jsonl").read_text().splitlines()]
    path = tmp_path / "unlabelled.jsonl"
    path.write_text("".join(json.dumps({k: v for k, v in r.items() if k != "label"}) + "\n" for r in rows))
    assert main(["ensemble", str(path)]) == 0
    out = capsys.readouterr().out
    assert "picks" in out and "accuracy" not in out
    assert main(["ensemble", str(path), "--json"]) == 0
    picks = json.loads(capsys.readouterr().out)["picks"]
    prompts = {r["prompt_id"] for r in rows}
    assert {p["prompt_id"] for p in picks} == prompts
    first = picks[0]
    ids = {r["response_id"] for r in rows if r["prompt_id"] == first["prompt_id"]}
    assert first["mean"] and set(first["mean"]) <= ids
    shown = [line.split()[0] for line in out.splitlines() if line.split() and line.split()[0] in prompts]
    assert shown == [p["prompt_id"] for p in picks[:20]]
    assert "more prompts" in out


def test_run_summary_fits_80_columns(narrow, capsys):
    from accord.cli.commands.run import print_summary
    from accord.cli.display import console

    chains = ["verdict", "mean_preserving", "raw_average", "single_judge:grounding", "base"]
    summary = {
        "n_problems": 40,
        "chains": chains,
        "accuracy": {c: 0.5 + 0.05 * i for i, c in enumerate(chains)},
        "accuracy_ci95": {c: [0.35, 0.7] for c in chains},
        "stopped": {c: {"final": 30, "step_budget": 8, "token_budget": 2} for c in chains},
        "timing": {
            "wall_s": 812.4,
            "load_s": 10.2,
            "generate_s": 500.1,
            "judge_s": 290.0,
            "generate_share": 0.63,
            "judge_share": 0.37,
        },
        "paired": {
            "comparisons": [
                {
                    "first": "verdict",
                    "second": second,
                    "source": "recorded chains",
                    "n_pairs": 40,
                    "excluded": 0,
                    "accuracy_first": 0.5,
                    "accuracy_second": 0.45,
                    "difference": 0.05,
                    "ci": [-0.1, 0.2],
                    "mcnemar": {"p_value": 0.62},
                }
                for second in chains[1:]
            ]
        },
    }
    print_summary(summary, Path("runs/a-long-run-folder-name-2026-12-02"), console())
    out = capsys.readouterr().out
    _fits(out)
    for chain in chains:
        assert chain in out


@pytest.mark.slow
def test_verify_table_fits_80_columns(narrow, capsys):
    assert main(["verify", str(EX / "solutions" / "processbench.jsonl"), "--quiet"]) in (0, 1)
    out = capsys.readouterr().out
    _fits(out)
    assert "handshakes" in out and "arithmetic: 8 * 7 = 54" in " ".join(out.split())


@pytest.mark.parametrize(
    "argv",
    [
        ["verify", str(EX / "solutions" / "processbench.jsonl")],
        ["jury", str(EX / "jury" / "panel.jsonl"), "--n-boot", "40"],
        ["report", str(EX / "runs" / "synthetic"), "--bootstrap", "200"],
    ],
)
def test_piped_output_without_columns_fits_80(argv, tmp_path):
    """A pipe or a log without $COLUMNS gets 80 columns, not a table as wide as its longest cell."""
    import os
    import subprocess
    import sys

    if argv[0] == "report":
        argv = ["report", str(_copy_run(tmp_path)), *argv[2:]]
    env = {k: v for k, v in os.environ.items() if k != "COLUMNS"}
    proc = subprocess.run(
        [sys.executable, "-m", "accord.cli.main", *argv], capture_output=True, text=True, env=env, timeout=600
    )
    assert proc.returncode in (0, 1), proc.stderr
    _fits(proc.stdout)
