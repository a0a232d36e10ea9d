"""`accord consensus`: reading score tables, decisions, JSON output, and one-line errors."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from accord.cli.main import main

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


def run_json(capsys, *args):
    assert main(["consensus", *args, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_csv_example_decisions(capsys):
    doc = run_json(capsys, str(EXAMPLES / "scores.csv"))
    assert doc["judges"] == ["visual", "logical", "contextual"]
    steps = {s["step"]: s for s in doc["steps"]}
    assert steps["1"]["chosen"] == "a" and not steps["1"]["fallback"]
    assert steps["2"]["fallback"] and steps["2"]["chosen"] == "c"
    b = steps["1"]["candidates"][1]
    assert b["mean"] == pytest.approx(0.6756, abs=1e-4) and b["dispersion"] == pytest.approx(0.1268, abs=1e-4)
    assert set(b) >= {"candidate", "consensus", "mean", "dispersion", "accepted"}
    failed = steps["3"]["candidates"][0]
    assert failed["raw"][1] is None and failed["consensus"][1] is None and failed["n_scored"] == 2


def test_jsonl_example_and_null_scores(capsys):
    doc = run_json(capsys, str(EXAMPLES / "scores.jsonl"))
    assert [s["chosen"] for s in doc["steps"]] == ["b", "b"]


def test_policy_lambdas_and_influence_flags(capsys):
    doc = run_json(capsys, str(EXAMPLES / "scores.csv"), "--policy", "mean", "--lambdas", "1,1,1")
    assert doc["policy"]["name"] == "mean" and doc["lambdas"] == [1.0, 1.0, 1.0]
    doc = run_json(capsys, str(EXAMPLES / "scores.csv"), "--influence", str(EXAMPLES / "influence.csv"), "--tau", "0.5")
    assert doc["policy"]["tau"] == 0.5


@pytest.mark.parametrize(
    "content, suffix, message",
    [
        ("step,candidate,a,b\n1,x,0.5,1.5\n", ".csv", "bad.csv:2 (b): score 1.5 is outside [0, 1]"),
        ("step,candidate,a,b\n1,x,0.5,abc\n", ".csv", "bad.csv:2 (b): score 'abc' is not a number"),
        ("step,candidate,a,b\n1,x,0.5\n", ".csv", "bad.csv:2: expected 4 columns, got 3"),
        ("step,candidate,a\n1,x,0.5\n", ".csv", "bad.csv:1: header must be"),
        ("step,candidate,a,b\n1,x,0.5,0.5\n1,x,0.1,0.1\n", ".csv", "appears twice"),
        (
            '{"step":1,"candidate":"a","scores":{"p":0.1,"q":0.2}}\n{"step":1,"candidate":"b"\n',
            ".jsonl",
            "bad.jsonl:2: not valid JSON",
        ),
        (
            '{"step":1,"candidate":"a","scores":{"p":0.1,"q":0.2}}\n{"step":1,"candidate":"b","scores":{"p":0.1}}\n',
            ".jsonl",
            "bad.jsonl:2: judges",
        ),
        ("", ".csv", "bad.csv:1: empty file"),
    ],
)
def test_malformed_input_is_one_line_exit_2(tmp_path, capsys, content, suffix, message):
    path = tmp_path / f"bad{suffix}"
    path.write_text(content)
    assert main(["consensus", str(path)]) == 2
    err = capsys.readouterr().err.strip()
    assert message in err and "\n" not in err and "Traceback" not in err


def test_bad_lambdas_and_unknown_policy(capsys):
    assert main(["consensus", str(EXAMPLES / "scores.csv"), "--lambdas", "1,0,1"]) == 2
    assert "> 0" in capsys.readouterr().err
    assert main(["consensus", str(EXAMPLES / "scores.csv"), "--lambdas", "1,1"]) == 2
    assert "got '1,1' for 3 judges" in capsys.readouterr().err
    assert main(["consensus", str(EXAMPLES / "scores.csv"), "--policy", "bogus"]) == 2
    assert "unknown policy" in capsys.readouterr().err
    assert main(["consensus", str(EXAMPLES / "scores.csv"), "--policy", "mean", "--tau", "0.3"]) == 2
    assert "does not use --tau" in capsys.readouterr().err


def test_entry_point_runs_as_a_program():
    out = subprocess.run(
        [sys.executable, "-m", "accord.cli.main", "consensus", str(EXAMPLES / "scores.csv")],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert "step 1" in out and "s̄*" in out


def test_columns_take_lambda_by_name_never_by_position(capsys, tmp_path):
    """The example's columns are the VLM roles (their defaults); unknown columns take 1.0 and say so;
    reordering the columns reorders λ with them and changes no decision."""
    doc = run_json(capsys, str(EXAMPLES / "scores.csv"))
    assert doc["lambdas"] == [1.5, 1.0, 0.8] and doc["lambda_note"] is None
    rows = [r.split(",") for r in (EXAMPLES / "scores.csv").read_text().splitlines()]
    swapped = tmp_path / "swapped.csv"
    swapped.write_text("\n".join(",".join([r[0], r[1], r[4], r[2], r[3]]) for r in rows) + "\n")
    again = run_json(capsys, str(swapped))
    assert again["lambdas"] == [0.8, 1.5, 1.0]
    assert [s["chosen"] for s in again["steps"]] == [s["chosen"] for s in doc["steps"]]
    renamed = tmp_path / "renamed.csv"
    renamed.write_text(
        "\n".join([",".join(rows[0][:2] + ["mystery", "logical", "other"])] + [",".join(r) for r in rows[1:]]) + "\n"
    )
    doc = run_json(capsys, str(renamed))
    assert doc["lambdas"] == [1.0, 1.0, 1.0] and "mystery, other" in doc["lambda_note"]
    assert main(["consensus", str(renamed)]) == 0
    assert "note: λ = 1 for mystery, other" in capsys.readouterr().out
