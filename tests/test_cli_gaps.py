"""The rough edges a new user hits, each closed and checked through the command line."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from tracegen import simulate_run

from accord.cli.main import main

ROOT = Path(__file__).resolve().parents[1]


def _scores(tmp_path, body: str, name="scores.csv") -> Path:
    p = tmp_path / name
    p.write_text("step,candidate,a,b,c\n" + body, encoding="utf-8")
    return p


def test_influence_with_nan_names_the_influence_file(tmp_path, capsys):
    scores = _scores(tmp_path, "1,x,0.9,0.8,0.7\n1,y,0.2,0.3,0.1\n")
    w = tmp_path / "w.csv"
    w.write_text("0,0.5,0.5\n0.5,0,nan\n0.5,0.5,0\n", encoding="utf-8")
    assert main(["consensus", str(scores), "--influence", str(w)]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and f"{w}:" in err and "scores.csv" not in err and "(2, 3)" in err


@pytest.mark.parametrize("streamed", [False, True])
def test_nan_score_is_an_error_by_default_naming_file_and_line(tmp_path, capsys, streamed):
    scores = _scores(tmp_path, "1,x,0.9,0.8,0.7\n1,y,0.2,nan,0.1\n2,x,0.5,0.5,0.5\n")
    extra = ["--output", str(tmp_path / "out.parquet")] if streamed else []
    assert main(["consensus", str(scores), *extra]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and f"{scores}:3 (b): score is NaN" in err and "--nan failed" in err
    assert not (tmp_path / "out.parquet").exists()


@pytest.mark.parametrize("streamed", [False, True])
def test_nan_failed_reads_nan_as_a_failed_judge_like_an_empty_cell(tmp_path, capsys, streamed):
    nan = _scores(tmp_path, "1,x,0.9,0.8,0.7\n1,y,0.2,NaN,0.1\n", "nan.csv")
    empty = _scores(tmp_path, "1,x,0.9,0.8,0.7\n1,y,0.2,,0.1\n", "empty.csv")
    docs = []
    for path in (nan, empty):
        if streamed:
            out = tmp_path / f"{path.stem}.parquet"
            assert main(["consensus", str(path), "--nan", "failed", "--output", str(out)]) == 0
            import pyarrow.parquet as pq

            docs.append(pq.read_table(out).drop_columns([]).to_pylist())
        else:
            assert main(["consensus", str(path), "--nan", "failed", "--json"]) == 0
            docs.append(json.loads(capsys.readouterr().out))
    assert docs[0] == docs[1]
    if not streamed:
        assert docs[0]["steps"][0]["candidates"][1]["n_scored"] == 2


def test_nan_in_jsonl_is_refused_too(tmp_path, capsys):
    p = tmp_path / "s.jsonl"
    p.write_text('{"step": 1, "candidate": "x", "scores": {"a": 0.5, "b": NaN}}\n', encoding="utf-8")
    assert main(["consensus", str(p)]) == 2
    assert f"{p}:1 (b): score is NaN" in capsys.readouterr().err


def test_sweep_notes_a_half_written_last_line(tmp_path, capsys):
    run = simulate_run(tmp_path / "run", n_tasks=6, seed=3)
    trace = run / "trace.jsonl"
    whole = trace.read_text(encoding="utf-8")
    trace.write_text(whole + '{"type": "step", "task_id": "task-0', encoding="utf-8")  # killed mid-write
    assert main(["sweep", str(run), "--tau", "0.6", "--eps", "0.1"]) == 0
    out = capsys.readouterr().out
    assert "note:" in out and "half-written last line" in out
    assert main(["sweep", str(run), "--tau", "0.6", "--eps", "0.1", "--json"]) == 0
    assert any("half-written" in n for n in json.loads(capsys.readouterr().out)["notes"])


def test_check_with_no_checkable_line_says_so_and_fails(tmp_path, capsys):
    p = tmp_path / "prose.txt"
    p.write_text("Given the equation:\nWe now think about it carefully.\n", encoding="utf-8")
    assert main(["check", str(p)]) == 1
    out = capsys.readouterr().out
    assert "no line could be checked" in out and "no invalid step" not in out
    assert main(["check", str(p), "--json"]) == 1
    assert json.loads(capsys.readouterr().out)["checked"] == 0
    good = tmp_path / "good.txt"
    good.write_text("2*(x + 3) = 2*x + 6\n", encoding="utf-8")
    assert main(["check", str(good)]) == 0


def test_jury_collect_help_is_its_own(capsys):
    assert main(["jury", "collect", "--help"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("usage: accord jury collect QUESTIONS.jsonl")
    assert "--member" in out and "--check-law" not in out and "--equivalence" not in out
    assert main(["jury", "--help"]) == 0
    assert "--check-law" in capsys.readouterr().out


def test_a_closed_pipe_ends_quietly(tmp_path):
    """`accord labels score --json | head`: the reader is gone before the output is written."""
    ref = ROOT / "examples" / "step_labels" / "processbench.jsonl"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen(
        [sys.executable, "-m", "accord.cli.main", "labels", "score", str(ref), str(ref), "--json"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=tmp_path,
        env=env,
    )
    proc.stdout.close()  # the only reader closes before the command writes anything
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=120) == 141
    assert "Traceback" not in err and "BrokenPipe" not in err and err == ""


def _rewards(tmp_path) -> Path:
    rows = []
    for p in range(12):
        for r in range(3):
            good = r == p % 3
            rows.append(
                {
                    "prompt_id": f"p{p}",
                    "response_id": f"r{r}",
                    "label": int(good),
                    "rm_a": 1.0 + good + 0.1 * r,
                    "rm_b": 0.2 * good - 0.05 * r,
                    "n_tokens": 50 + 13 * r + p,
                }
            )
    path = tmp_path / "rewards.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


@pytest.mark.parametrize("fmt", ["jsonl", "csv"])
def test_numeric_metadata_is_not_a_reward_model(tmp_path, capsys, fmt):
    path = _rewards(tmp_path)
    if fmt == "csv":
        rows = [json.loads(x) for x in path.read_text().splitlines()]
        path = tmp_path / "rewards.csv"
        path.write_text(",".join(rows[0]) + "\n" + "".join(",".join(str(v) for v in r.values()) + "\n" for r in rows))
    assert main(["ensemble", str(path), "--n-boot", "40", "--json"]) == 0
    cap = capsys.readouterr()
    doc = json.loads(cap.out)
    assert doc["models"] == ["rm_a", "rm_b"] and doc["metadata_columns"] == ["n_tokens"]
    assert doc["models_from"] == "numeric columns"
    note = cap.err.strip()
    assert len(note.splitlines()) == 1 and "rm_a, rm_b" in note and "metadata: n_tokens" in note
    # --meta names more metadata; --models names the models and the note goes
    assert main(["ensemble", str(path), "--n-boot", "40", "--json", "--meta", "rm_b", "--models", "rm_a,n_tokens"]) == 0
    cap = capsys.readouterr()
    assert json.loads(cap.out)["models"] == ["rm_a", "n_tokens"] and cap.err == ""


def test_bootstrap_zero_and_one_get_the_same_message(capsys):
    run = str(ROOT / "examples" / "runs" / "synthetic")
    messages = []
    for b in ("0", "1"):
        assert main(["report", run, "--bootstrap", b]) == 2
        messages.append(capsys.readouterr().err.strip().replace(f"got {b}", "got B"))
    assert messages[0] == messages[1] and "at least 100" in messages[0]
