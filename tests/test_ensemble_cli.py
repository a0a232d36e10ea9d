"""``accord ensemble``: real rewards from the packaged models, calibration saved and reapplied, errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from accord.cli.main import main

HERE = Path(__file__).resolve().parents[1] / "examples" / "ensemble"
REWARDS = HERE / "rewards.jsonl"
PAIRS = HERE / "pairs.jsonl"


def _doc(capsys, *argv) -> dict:
    assert main(["ensemble", *argv, "--json", "--n-boot", "200"]) == 0
    return json.loads(capsys.readouterr().out)


def test_best_of_n_report_on_real_rewards(capsys):
    doc = _doc(capsys, str(REWARDS))
    assert doc["kind"] == "best_of_n" and doc["models"] == ["loglik", "judge", "similarity"]
    assert doc["prompts"] == 40 and doc["responses"] == 160
    acc = doc["accuracy"]
    assert {"loglik", "judge", "similarity", "mean", "min", "uwo", "fj:verdict", "fj:no_rejection"} <= set(acc)
    for e in acc.values():
        assert 0 <= e["ci"][0] <= e["accuracy"] <= e["ci"][1] <= 1
    assert doc["baselines"]["random"] == pytest.approx(0.25)
    assert -1 <= doc["agreement"]["krippendorff_alpha"] <= 1
    assert sum(doc["influence"]["share_of_mean"].values()) == pytest.approx(1.0)


def test_calibration_is_saved_and_reapplied(capsys, tmp_path):
    saved = tmp_path / "cal.json"
    first = _doc(capsys, str(REWARDS), "--calibration", "quantile", "--save-calibration", str(saved))
    assert json.loads(saved.read_text())["loglik"]["method"] == "quantile"
    again = _doc(capsys, str(REWARDS), "--load-calibration", str(saved))
    assert again["accuracy"] == first["accuracy"] and again["calibration"] == first["calibration"]


def test_platt_uses_labels_and_pairs_give_preference_accuracy(capsys):
    platt = _doc(capsys, str(REWARDS), "--calibration", "platt", "--rules", "mean,fj:mean_preserving", "--tau", "0.5")
    assert platt["calibration"]["judge"]["method"] == "platt" and "fj:mean_preserving" in platt["accuracy"]
    pairs = _doc(capsys, str(PAIRS), "--calibrate-on", str(REWARDS), "--lambdas", "1,2,1", "--k", "0.5")
    assert pairs["kind"] == "pairs" and pairs["lambdas"] == [1.0, 2.0, 1.0]
    assert all(0 <= e["accuracy"] <= 1 for e in pairs["accuracy"].values())


def test_tables_print(capsys):
    assert main(["ensemble", str(REWARDS), "--n-boot", "50"]) == 0
    out = capsys.readouterr().out
    assert "best-of-n accuracy" in out and "Krippendorff" in out


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--rules", "median"], "unknown rule 'median'"),
        (
            ["--lambdas", "1,2"],
            "--lambdas: λ must be finite numbers > 0, one per judge, comma-separated (e.g. 1.5,1,0.8); got '1,2' for 3 "
            "judges",
        ),
        (["--load-calibration", "/nonexistent.json"], "/nonexistent.json: no such file"),
        (["--models", "loglik"], "at least 2 reward models"),
    ],
)
def test_errors_are_one_line(capsys, argv, message):
    assert main(["ensemble", str(REWARDS), *argv]) == 2
    err = capsys.readouterr().err.strip()
    assert message in err and "\n" not in err


def test_model_order_does_not_change_the_result(capsys):
    """λ is never given by position: models no judge type names take 1.0 each, and the output says so."""
    docs = [_doc(capsys, str(REWARDS), "--models", m) for m in ("loglik,judge,similarity", "similarity,judge,loglik")]
    assert docs[0]["accuracy"] == docs[1]["accuracy"] and docs[0]["lambdas"] == [1.0, 1.0, 1.0]
    assert "loglik, judge, similarity" in docs[0]["lambda_note"]
    given = _doc(capsys, str(REWARDS), "--lambdas", "1.5,1,0.8")
    assert given["lambdas"] == [1.5, 1.0, 0.8] and given["lambda_note"] is None
