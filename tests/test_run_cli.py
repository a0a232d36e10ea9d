"""`accord run`: one-line errors, the run folder it writes, the summary and the report hook."""

from __future__ import annotations

import json

import pytest
import yaml
from test_trace_resume import _tiny_model, tiny_config

from accord.cli.main import main


def test_print_config_shows_the_resolved_defaults(capsys):
    assert main(["run", "--print-config", "--problems", "3"]) == 0
    cfg = json.loads(capsys.readouterr().out)
    assert cfg["task"]["options"]["size"] == 3 and cfg["policy"]["name"] == "verdict"


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--set", "budgets.nope=1"], "unknown config key 'budgets.nope'"),
        (["--policy", "nope"], "unknown policy 'nope'"),
        (["--config", "/nonexistent.yaml"], "no such file"),
        (["--resume", "/nonexistent-run"], "not a run folder"),
    ],
)
def test_user_errors_are_one_line_with_exit_2(argv, message, capsys):
    assert main(["run", *argv]) == 2
    err = capsys.readouterr().err.strip()
    assert message in err and len(err.splitlines()) == 1 and err.startswith("accord run: error:")


def test_bad_task_file_and_taken_run_folder_fail_before_any_model_loads(tmp_path, capsys):
    bad = tmp_path / "q.jsonl"
    bad.write_text('{"question": "2+2?"}\n')
    assert main(["run", "--tasks-file", str(bad), "--out", str(tmp_path / "r")]) == 2
    assert "q.jsonl:1: 'answer' must be" in capsys.readouterr().err
    taken = tmp_path / "taken"
    taken.mkdir()
    (taken / "trace.jsonl").write_text('{"type": "run"}\n')
    assert main(["run", "--out", str(taken)]) == 2
    assert "already holds a run" in capsys.readouterr().err


@pytest.fixture(scope="module")
def tiny(tmp_path_factory, smollm2):
    folder = tmp_path_factory.mktemp("tiny-llama-cli")
    _tiny_model(folder, smollm2[1])
    return folder


@pytest.mark.slow
def test_a_run_writes_its_folder(tiny, tmp_path, capsys):
    cfg_path = tiny_config(tmp_path, tiny, problems=2)
    cfg = yaml.safe_load(cfg_path.read_text())
    cfg["output"]["report"] = True
    cfg["baselines"] = ["mean", "variance", "raw_average"]
    cfg_path.write_text(yaml.safe_dump(cfg))
    run = tmp_path / "run"
    assert main(["run", "--config", str(cfg_path), "--out", str(run), "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    for name in ("config.yaml", "versions.json", "trace.jsonl", "summary.json"):
        assert (run / name).is_file(), name
    assert json.loads((run / "summary.json").read_text())["accuracy"] == summary["accuracy"]
    assert set(summary["accuracy"]) == {"verdict", "mean", "variance", "raw_average", "base"}
    assert summary["n_problems"] == 2
    assert set(summary["timing"]) >= {"generate_s", "judge_s", "wall_s"}
    assert summary["work"]["candidates_generated"] == 2 * summary["work"]["generate_calls"]
    saved = yaml.safe_load((run / "config.yaml").read_text())
    assert saved["generator"]["model"] == str(tiny) and saved["policy"]["params"] == {"tau": 0.6, "eps": 0.1}
    first = json.loads((run / "trace.jsonl").read_text().splitlines()[0])
    assert first["type"] == "run" and first["scoring"]["llm_logic"]["scoring"] == "next-token"
    paired = summary["paired"]  # every verified chain vs base, VERDICT vs Mean, mean-preserving, best single judge
    by = {(c["first"], c["second"]): c for c in paired["comparisons"]}
    assert {
        ("verdict", "base"),
        ("mean", "base"),
        ("variance", "base"),
        ("raw_average", "base"),
        ("verdict", "mean"),
        ("verdict", "mean_preserving"),
    } <= set(by)
    assert set(paired["single_judges"]) == set(first["judges"]) and paired["best_single_judge"] in first["judges"]
    assert ("verdict", f"single_judge:{paired['best_single_judge']}") in by
    acc = summary["accuracy"]
    for chain in ("verdict", "mean", "variance", "raw_average"):
        c = by[(chain, "base")]
        assert c["source"] == "recorded" and c["n_pairs"] == 2
        assert c["difference"] == pytest.approx(acc[chain] - acc["base"]) and 0 <= c["mcnemar"]["p_value"] <= 1
    assert (run / "report.json").is_file()
    # the same folder cannot be overwritten by accident, and a finished run resumes to the same summary
    assert main(["run", "--config", str(cfg_path), "--out", str(run)]) == 2
    capsys.readouterr()
    assert main(["run", "--resume", str(run), "--json", "--no-report"]) == 0
    again = json.loads(capsys.readouterr().out)
    assert again["accuracy"] == summary["accuracy"] and again["work"]["generate_calls"] == 0
    assert again["paired"]["comparisons"] == paired["comparisons"]
    assert main(["run", "--resume", str(run), "--no-report", "--quiet"]) == 0  # the table people read
    printed = capsys.readouterr().out
    assert "Paired over problems" in printed and "verdict vs base" in printed and "McNemar" in printed


@pytest.mark.slow
def test_a_run_learns_its_adaptive_margin_and_reports_it(tiny, tmp_path, capsys):
    cfg_path = tiny_config(tmp_path, tiny, problems=2)
    run = tmp_path / "run"
    argv = [
        "run",
        "--config",
        str(cfg_path),
        "--out",
        str(run),
        "--json",
        "--adaptive-margin",
        "calibrated",
        "--set",
        "adaptive.warmup_steps=1",
        "--set",
        "adaptive.target_agreement=0.9",
    ]
    assert main(argv) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["adaptive"]["enabled"] is True
    margin = summary["adaptive"]["margin"]
    assert margin["source"] == "calibrated" and margin["steps"] == 1 and margin["agreement"] >= 0.9
    steps = [json.loads(x) for x in (run / "trace.jsonl").read_text().splitlines() if '"type": "step"' in x]
    assert steps[0]["adaptive"]["margin"]["source"] == "calibrating"
    assert yaml.safe_load((run / "config.yaml").read_text())["adaptive"]["margin"] == "calibrated"


def test_ray_backend_refuses_a_calibrated_adaptive_margin(tmp_path):
    from accord.errors import UserError
    from accord.verify.run import execute_on_ray, resolve

    with pytest.raises(UserError, match="fixed adaptive margin"):
        execute_on_ray(resolve({"adaptive": {"enabled": True, "margin": "calibrated"}}), tmp_path)
    with pytest.raises(UserError, match="adaptive.margin"):
        resolve({"adaptive": {"margin": "guessed"}})
    with pytest.raises(UserError, match="adaptive.group below budgets.n_candidates"):
        resolve({"adaptive": {"margin": "calibrated"}, "budgets": {"n_candidates": 1}})
