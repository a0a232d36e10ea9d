"""Run reports and the `accord report` / `accord sweep` commands on recorded run folders."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from tracegen import simulate_run

from accord.cli.main import main
from accord.verify.analysis import (
    REPORT_FILE,
    ROC_FILE,
    SCATTER_FILE,
    build_report,
    read_trace,
    write_run_report,
)

PNG = b"\x89PNG\r\n\x1a\n"


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    return simulate_run(tmp_path_factory.mktemp("run"), n_tasks=12, seed=8)


def test_write_run_report_writes_json_and_plots(run):
    report = write_run_report(run, n_boot=300)
    on_disk = json.loads((run / REPORT_FILE).read_text())
    assert on_disk == report
    assert report["plots"] == [SCATTER_FILE, ROC_FILE]
    for name in report["plots"]:
        assert (run / name).read_bytes()[:8] == PNG
    summary = json.loads((run / "summary.json").read_text())
    assert report["summary"] == summary
    for chain, acc in summary["accuracy"].items():
        assert report["accuracy"][chain]["accuracy"] == pytest.approx(acc)
    verdict_replay = report["replay"][0]
    assert verdict_replay["name"] == "verdict" and verdict_replay["exact"] == 12
    assert verdict_replay["accuracy_exact"] == pytest.approx(summary["accuracy"]["verdict"])
    assert all(f["reproduced"] == f["steps"] for f in report["fidelity"].values())


def test_report_without_summary_or_verdict_chain(tmp_path):
    run = simulate_run(tmp_path, n_tasks=4, seed=1, chains={"mean": {"name": "mean"}})
    (run / "summary.json").unlink()
    rep = build_report(read_trace(run / "trace.jsonl"), None, n_boot=200)
    assert rep["summary"] is None and rep["primary_chain"] == "mean"
    assert rep["thresholds"]["tau"] == 0.6  # the paper's defaults when no VERDICT chain was recorded


def test_cli_report_json(run, capsys):
    assert main(["report", str(run), "--json", "--bootstrap", "200"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["n_tasks"] == 12 and "review_test" in out


def test_cli_report_replays_extra_policies(run, capsys):
    assert (
        main(
            [
                "report",
                str(run),
                "--json",
                "--bootstrap",
                "200",
                "--replay",
                "verdict:tau=0.3,eps=0.3",
                "--replay",
                "mean_preserving:lambdas=1,1,1",
            ]
        )
        == 0
    )
    rows = json.loads(capsys.readouterr().out)["replay"]
    assert rows[-2]["policy"] == "verdict:eps=0.3,tau=0.3" and rows[-1]["params"]["lambdas"] == [1.0, 1.0, 1.0]
    assert rows[-2]["exact"] + rows[-2]["diverged"] == 12
    assert main(["report", str(run), "--replay", "oracle"]) == 2
    assert "--replay: unknown policy 'oracle'" in capsys.readouterr().err


def test_cli_report_tables(run, capsys):
    assert main(["report", str(run), "--bootstrap", "200"]) == 0
    out = capsys.readouterr().out
    assert "Accuracy per recorded chain" in out and "Paired test" in out and "AUC" in out


def test_cli_sweep(run, capsys):
    assert main(["sweep", str(run), "--tau", "0.5,0.6", "--eps", "0.05", "0.1", "--lambdas", "1,1,1", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["thresholds"]["tau"] == [0.5, 0.6] and out["thresholds"]["eps"] == [0.05, 0.1]
    assert out["stubbornness"]["lambdas"] == [[1.0, 1.0, 1.0]]


@pytest.mark.parametrize(
    "argv,message",
    [
        (["sweep", "{run}", "--lambdas", "1,1"], "got [1.0, 1.0] for 3 judges"),
        (["sweep", "{run}", "--tau", "x"], "--tau: expected a number, got 'x'"),
        (["report", "{run}/nope"], "not a run folder"),
        (["report", "{run}", "--bootstrap", "5"], "argument --bootstrap: must be at least 100"),
        (["report", "{empty}"], "the trace has no step or task_end records yet"),
        (["sweep", "{empty}"], "the trace has no step records"),
    ],
)
def test_cli_errors_are_one_line(run, tmp_path, capsys, argv, message):
    (tmp_path / "trace.jsonl").write_text("")
    assert main([a.format(run=run, empty=tmp_path) for a in argv]) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1


def test_cli_names_the_malformed_trace_line(run, tmp_path, capsys):
    bad = tmp_path / "bad"
    shutil.copytree(run, bad)
    lines = (bad / "trace.jsonl").read_text().splitlines()
    lines[4] = lines[4].replace('"chosen": ', '"chosen": "x", "was": ')
    (bad / "trace.jsonl").write_text("\n".join(lines) + "\n")
    assert main(["report", str(bad)]) == 2
    assert "trace.jsonl:5: step record: field 'chosen' must be int" in capsys.readouterr().err


def test_report_of_a_real_smollm2_run(tmp_path):
    real = Path(__file__).resolve().parents[1] / "examples" / "runs" / "smollm2-tiny"
    run = tmp_path / "real"
    shutil.copytree(real, run)
    report = write_run_report(run, n_boot=200)
    summary = json.loads((real / "summary.json").read_text())
    assert {c: a["accuracy"] for c, a in report["accuracy"].items()} == summary["accuracy"]
    assert report["thresholds"]["tau"] == 0.6 and len(report["chains"]) == 5
    assert all(f["reproduced"] == f["steps"] for f in report["fidelity"].values())
