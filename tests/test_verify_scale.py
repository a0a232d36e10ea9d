"""``accord verify --calibration``: the panel's judges on one scale before the steps are labelled.

Through the command: a scale fitted on the input (label-free, or Platt on its annotated steps),
fitted on other solutions (``--calibrate-on``), saved and reapplied; steps labelled on the mapped
scores; a judge without a score left out of that step's consensus; bad requests refused in one line.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from accord.cli.main import main
from accord.verify.loop import load_scale
from accord.verify.solutions import raw_matrix, rule_stats, step_labels, three_way

JUDGES = "arithmetic,symbolic,numeric"


def solution(ident: str, a: int, b: int, wrong_at: int | None) -> dict:
    """A short sum whose step ``wrong_at`` (if any) states a false total: label = that step."""
    total = a + b
    steps = [
        f"We add {a} and {b}; recall that $(x + {a})^2 = x^2 + {2 * a}x + {a * a}$.",
        f"First ${a} + {b} = {total + (1 if wrong_at == 1 else 0)}$.",
        f"Then ${total} \\cdot 2 = {2 * total + (3 if wrong_at == 2 else 0)}$.",
        f"So the doubled sum is {2 * total}.",
    ]
    return {"id": ident, "problem": f"Double {a} + {b}.", "steps": steps, "label": -1 if wrong_at is None else wrong_at}


SOLUTIONS = [solution(f"s{i}", 3 + i, 10 + 2 * i, (None, 1, 2)[i % 3]) for i in range(9)]
OTHERS = [solution(f"o{i}", 20 + i, 7 + i, (2, None, 1)[i % 3]) for i in range(6)]


def write(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def lines(path: Path) -> list[dict]:
    return [json.loads(x) for x in path.read_text().splitlines()]


def verify(capsys, *argv) -> tuple[int, str, str]:
    rc = main(["verify", *argv, "--judges", JUDGES, "--bootstrap", "0", "--workers", "1", "--fail-on", "never"])
    cap = capsys.readouterr()
    return rc, cap.out, cap.err


@pytest.fixture()
def pb(tmp_path) -> Path:
    return write(tmp_path / "sols.jsonl", SOLUTIONS)


def test_step_labels_come_from_the_first_wrong_step():
    assert step_labels(-1, 3).tolist() == [1, 1, 1]
    assert np.array_equal(step_labels(1, 4), [1, 0, np.nan, np.nan], equal_nan=True)
    assert np.isnan(step_labels(None, 2)).all()


def test_platt_on_the_input_labels_steps_on_the_mapped_scores_and_is_saved(pb, tmp_path, capsys):
    out, cal = tmp_path / "pred.jsonl", tmp_path / "cal.json"
    rc, stdout, _ = verify(
        capsys, str(pb), "--out", str(out), "--json", "--calibration", "platt", "--save-calibration", str(cal)
    )
    assert rc == 0
    doc, recs = json.loads(stdout), lines(out)
    judges = doc["judges"]
    scale = load_scale(cal)
    assert doc["calibration"]["method"] == scale.method == "platt"
    assert scale.fitted_on == sum(len(s["steps"]) for s in SOLUTIONS)
    assert "labelled" in scale.source
    changed = 0
    for r in recs:
        assert r["calibration"] == "platt"
        raw = raw_matrix(r["steps"], judges)
        scaled = np.array([[np.nan if s["scaled"][j] is None else s["scaled"][j] for j in judges] for s in r["steps"]])
        assert np.allclose(scaled, scale.apply(raw), equal_nan=True)  # each judge through its own saved map
        assert np.array_equal(np.isnan(scaled), np.isnan(raw))  # no score stays no score
        changed += int(np.nansum(np.abs(scaled - raw)) > 0.05)
        st = rule_stats(scaled, r["policy"], judges, r["lambdas"])
        assert r["step_labels"] == three_way(st, r["tau"], r["eps"])  # labelled on the scale, not on raw
    assert changed == len(recs)
    # a right step where the arithmetic judge said 1 is now P(right | 1) from the annotated steps
    p1 = float(scale.apply(np.array([[1.0, np.nan, np.nan]]))[0, 0])
    assert 0.5 < p1 < 1.0


def test_a_saved_scale_is_reapplied_as_it_is(pb, tmp_path, capsys):
    first, again, cal = tmp_path / "a.jsonl", tmp_path / "b.jsonl", tmp_path / "cal.json"
    verify(capsys, str(pb), "--out", str(first), "--calibration", "quantile", "--save-calibration", str(cal))
    other = write(tmp_path / "others.jsonl", OTHERS)
    # on other solutions the loaded scale is not refitted: a step scored like one of the first set maps the same
    rc, stdout, _ = verify(capsys, str(other), "--out", str(again), "--json", "--load-calibration", str(cal))
    doc = json.loads(stdout)
    assert rc == 0 and doc["calibration"] == json.loads(cal.read_text())
    scale = load_scale(cal)
    for r in lines(again):
        raw = raw_matrix(r["steps"], doc["judges"])
        got = np.array(
            [[np.nan if s["scaled"][j] is None else s["scaled"][j] for j in doc["judges"]] for s in r["steps"]]
        )
        assert np.allclose(got, scale.apply(raw), equal_nan=True)
    # the same file through --calibration FILE (as accord run and accord consensus take it) gives the same lines
    third = tmp_path / "c.jsonl"
    verify(capsys, str(other), "--out", str(third), "--calibration", str(cal))
    assert lines(third) == lines(again)


def test_calibrate_on_fits_platt_on_other_annotated_solutions(pb, tmp_path, capsys):
    other = write(tmp_path / "train.jsonl", OTHERS)
    cal = tmp_path / "cal.json"
    rc, stdout, _ = verify(
        capsys,
        str(pb),
        "--json",
        "--calibration",
        "platt",
        "--calibrate-on",
        str(other),
        "--save-calibration",
        str(cal),
    )
    doc = json.loads(stdout)
    assert rc == 0 and doc["calibration"]["fitted_on"] == sum(len(s["steps"]) for s in OTHERS)
    assert str(other) in doc["calibration"]["source"]
    on_input = tmp_path / "own.json"
    verify(capsys, str(pb), "--calibration", "platt", "--save-calibration", str(on_input))
    assert json.loads(cal.read_text())["maps"] != json.loads(on_input.read_text())["maps"]
    assert doc["metrics"]["n_solutions"] == len(SOLUTIONS)  # the input is still what is scored


def test_a_judge_without_a_score_leaves_the_steps_consensus(pb, tmp_path, capsys):
    """Where the arithmetic judge has nothing to check (no score), the step's consensus on the scale is
    that of the other judges alone: the same as a panel without it, on the same saved maps."""
    full, cal, two = tmp_path / "full.jsonl", tmp_path / "cal.json", tmp_path / "two.jsonl"
    verify(capsys, str(pb), "--out", str(full), "--calibration", "standardize", "--save-calibration", str(cal))
    rc = main(
        ["verify", str(pb), "--out", str(two), "--judges", "symbolic,numeric", "--load-calibration", str(cal)]
        + ["--bootstrap", "0", "--workers", "1", "--fail-on", "never", "--json"]
    )
    capsys.readouterr()
    assert rc == 0
    checked = 0
    for a, b in zip(lines(full), lines(two)):
        for sa, sb in zip(a["steps"], b["steps"]):
            if sa["scores"]["arithmetic"] is None and sb["mean"] is not None:
                assert sa["mean"] == pytest.approx(sb["mean"]) and sa["label"] == sb["label"]
                checked += 1
    assert checked >= 5


@pytest.mark.parametrize(
    "args, message",
    [
        (["--calibration", "platt"], "platt needs annotated solutions"),
        (["--calibration", "nosuch.json"], "no such judge scale file"),
        (["--save-calibration", "{tmp}/c.json"], "--save-calibration needs --calibration METHOD"),
        (["--calibrate-on", "{pb}"], "--calibrate-on needs --calibration METHOD"),
        (["--calibration", "quantile", "--load-calibration", "{tmp}/c.json"], "drop --calibration"),
        (["--calibration", "quantile", "--out", "{tmp}/o.jsonl", "--resume"], "drop --resume"),
        (["--load-calibration", "{wrong}"], "no map for judge(s)"),
        (["--load-calibration", "{binary}"], "not UTF-8 text"),
        (["--load-calibration", "{tmp}"], "no such judge scale file"),
    ],
)
def test_bad_calibration_requests_are_one_line_and_exit_2(pb, tmp_path, capsys, args, message):
    unlabelled = write(tmp_path / "plain.jsonl", [{k: v for k, v in s.items() if k != "label"} for s in SOLUTIONS])
    wrong = tmp_path / "wrong.json"
    wrong.write_text(json.dumps({"method": "quantile", "judges": ["oracle"], "maps": {"oracle": None}}))
    binary = tmp_path / "binary.json"
    binary.write_bytes(b"\xff\xfe\x00{")
    argv = [a.format(tmp=tmp_path, pb=pb, wrong=wrong, binary=binary) for a in args]
    target = unlabelled if "platt" in args else pb
    rc, _, err = verify(capsys, str(target), *argv)
    assert rc == 2 and message in err and len(err.strip().splitlines()) == 1
