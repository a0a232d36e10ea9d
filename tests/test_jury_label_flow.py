"""``accord jury``'s labels say what they do: references are labels, every file written is named,
the jury is measured only on rows it did not see, and its confidence comes with its reliability."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from accord.cli.main import main
from accord.consensus_core.jury import calibration_error, calibration_error_count, reliability_table
from accord.consensus_core.jury._shared import shared_error_panel

EXAMPLES = Path(__file__).resolve().parents[1] / "examples" / "jury"
CLI_SETTINGS = settings(
    max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture]
)


def _write(path: Path, codes, refs=None) -> Path:
    """One row per code row; ``refs``: the rows (indices) that carry a reference (default: all)."""
    lines = []
    for i, row in enumerate(codes):
        obj = {"id": f"q{i}", "answers": {f"m{j}": None if c < 0 else f"a{c}" for j, c in enumerate(row)}}
        if refs is None or i in refs:
            obj["reference"] = "a0"
        lines.append(json.dumps(obj) + "\n")
    path.write_text("".join(lines))
    return path


def _run(capsys, *argv) -> tuple[dict, str]:
    assert main(["jury", *map(str, argv), "--json", "-q", "--equivalence", "text", "--n-boot", "40"]) == 0
    out, err = capsys.readouterr()
    return json.loads(out), err


@pytest.fixture(scope="module")
def codes():
    return shared_error_panel((0.6,), 0.4, 3, 0.6, 300, seed=5).codes


def test_references_in_the_file_are_labels_and_the_output_says_so(capsys, tmp_path, codes):
    full = _write(tmp_path / "full.jsonl", codes)
    doc, _ = _run(capsys, full)
    assert (
        doc["references"]["use"] == "labels" and "are labels: the jury learned from them" in doc["references"]["note"]
    )
    assert doc["labeled"] == 300 and doc["method"].startswith("few-label")
    # measured only as it answered without each label
    assert "out-of-fold" in doc["scored_on"] and doc["jury"]["n"] == 300
    held = [v["held_out"]["correct"] for v in doc["verdicts"]]
    assert doc["jury"]["accuracy"] == pytest.approx(np.mean(held))
    # a rule that reads no reference is measured by them, and says so
    doc, _ = _run(capsys, full, "--method", "modal")
    assert doc["references"]["use"] == "measure" and doc["labeled"] == 0 and doc["jury"]["n"] == 300
    doc, _ = _run(capsys, full, "--label-budget", "0")
    assert doc["method"] == "majority vote (label-free)" and doc["references"]["use"] == "measure"
    assert main(["jury", str(full), "--equivalence", "text", "--n-boot", "40", "-q"]) == 0
    assert "references: the references on 300 rows are labels" in " ".join(capsys.readouterr().out.split())


def test_ask_labels_asks_only_for_rows_without_one_and_names_its_file(capsys, tmp_path, codes):
    full = _write(tmp_path / "full.jsonl", codes)
    ask = tmp_path / "ask.jsonl"
    doc, err = _run(capsys, full, "--ask-labels", "20", "--ask-out", ask)
    assert not ask.exists() and doc["asked"]["rows"] == [] and "nothing to ask" in err and str(ask) in err
    partial = _write(tmp_path / "partial.jsonl", codes, refs=set(range(0, 300, 2)))
    doc, err = _run(capsys, partial, "--ask-labels", "20", "--ask-out", ask)
    asked = [json.loads(x) for x in ask.read_text().splitlines()]
    assert len(asked) == 20 and all(int(a["id"][1:]) % 2 == 1 for a in asked)  # never a row with a reference
    assert f"wrote 20 rows to label (mixed choice, of the 150 without a reference) to {ask}" in err
    out = tmp_path / "v.jsonl"
    doc, err = _run(capsys, partial, "--out", out)
    assert f"wrote 300 rows (jsonl) to {out}; 150 labelled rows marked 'labeled'" in err


def test_labels_that_repeat_the_file_are_counted_not_ignored(capsys, tmp_path, codes):
    full = _write(tmp_path / "full.jsonl", codes)
    labels = tmp_path / "labels.jsonl"
    labels.write_text("".join(json.dumps({"id": f"q{i}", "reference": "a0"}) + "\n" for i in range(12)))
    doc, _ = _run(capsys, full, "--labels", labels)
    assert doc["labels_file"] == {"file": str(labels), "labels": 12, "new": 0, "already_in_file": 12}
    assert main(["jury", str(full), "--labels", str(labels), "--equivalence", "text", "--n-boot", "40", "-q"]) == 0
    assert "labels.jsonl: 12 labels, 0 new, 12 already in the file" in "".join(capsys.readouterr().out.split("\n"))


def test_a_few_labels_say_they_are_too_few_to_calibrate(capsys, tmp_path, codes):
    path = _write(tmp_path / "six.jsonl", codes, refs=set(range(6)))
    doc, _ = _run(capsys, path)
    conf = doc["confidence"]
    assert conf["calibrated"] is False and conf["too_few_labels"]
    assert conf["meaning"].startswith("6 labels are too few to calibrate on (at least 10)")
    assert all(v["confidence"] is None for v in doc["verdicts"])
    assert main(["jury", str(path), "--equivalence", "text", "--n-boot", "40", "-q"]) == 0
    assert "6 labels are too few to calibrate on" in " ".join(capsys.readouterr().out.split())


def test_a_labelled_row_no_member_got_right_is_never_sure(capsys, tmp_path):
    rows = [{"id": f"q{i}", "answers": {"a": "1", "b": "1", "c": "2"}, "reference": "1"} for i in range(30)]
    rows[3]["reference"] = "9"  # no member gave it
    rows += [{"id": f"u{i}", "answers": {"a": "1", "b": "2", "c": "1"}} for i in range(10)]
    path = tmp_path / "nobody.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    doc, _ = _run(capsys, path)
    v = doc["verdicts"][3]
    assert v["labeled"] and v["score"] == 0.0 and v["abstained"] and v["answer"] is None
    assert v["reason"] == "labelled: no member's answer matches its reference" and v["correct"] is False
    sure = [x for x in doc["verdicts"] if x["labeled"] and x["reference"] == "1"]
    assert all(x["score"] == 1.0 and x["correct"] for x in sure)


def test_the_jury_is_measured_only_on_rows_it_did_not_read_with_its_reliability(capsys, tmp_path, codes):
    path = _write(tmp_path / "full.jsonl", codes)
    doc, _ = _run(capsys, path, "--label-budget", "60", "--label-choice", "random")
    unseen = [v for v in doc["verdicts"] if not v["labeled"]]
    assert doc["labeled"] == 60 and doc["jury"]["n"] == 240 == len(unseen)
    assert doc["references"]["use"] == "labels and measure"
    assert doc["jury"]["accuracy"] == pytest.approx(np.mean([v["correct"] for v in unseen]))
    for m, e in doc["member_accuracy"].items():
        assert e["n"] == 240 and e["accuracy"] == pytest.approx(np.mean([v["member_correct"][m] for v in unseen]))
    answered = [v for v in unseen if not v["abstained"]]
    p = [v["confidence"] for v in answered]
    y = [v["correct"] for v in answered]
    rel = doc["reliability"]
    assert doc["confidence_error"]["equal_width"] == pytest.approx(calibration_error(p, y))
    assert doc["confidence_error"]["equal_count"] == pytest.approx(calibration_error_count(p, y))
    for kind in ("equal_width", "equal_count"):
        table = rel[kind]["table"]
        assert sum(b["rows"] for b in table) == len(answered) == rel["rows"]
        assert all(0 <= b["accuracy"] <= 1 and b["low"] <= b["confidence"] <= b["high"] for b in table)
    assert main(["jury", str(path), "--label-budget", "60", "--equivalence", "text", "--n-boot", "40", "-q"]) == 0
    out = " ".join(capsys.readouterr().out.split())
    assert "(10 bins of equal rows)" in out and "reliability (bins of equal rows)" in out


def test_the_csv_marks_labelled_rows_and_their_out_of_fold_result(capsys, tmp_path, codes):
    path = _write(tmp_path / "partial.jsonl", codes, refs=set(range(0, 300, 3)))
    out = tmp_path / "v.csv"
    argv = ["jury", str(path), "--equivalence", "text", "--n-boot", "40", "-q", "--out", str(out), "--format", "csv"]
    assert main(argv) == 0
    capsys.readouterr()
    rows = list(csv.DictReader(io.StringIO(out.read_text())))
    assert [r["labeled"] == "true" for r in rows] == [i % 3 == 0 for i in range(300)]
    assert all((r["held_out_correct"] != "") == (r["labeled"] == "true") for r in rows)


def test_equal_count_bins_keep_ties_together():
    p = np.array([0.3] * 60 + [0.9] * 40)
    y = np.array([1] * 18 + [0] * 42 + [1] * 36 + [0] * 4)
    table = reliability_table(p, y)
    assert [b["rows"] for b in table["equal_count"]["table"]] == [60, 40]  # a value is never cut by row order
    assert table["equal_count"]["ece"] == pytest.approx(0.0) and calibration_error_count(p, y) == pytest.approx(0.0)
    assert calibration_error(p, y) == pytest.approx(0.0)


def test_the_trust_table_flags_a_rule_the_labels_disagree_with(capsys, tmp_path):
    sim = shared_error_panel((0.55,), 0.35, 3, 0.8, 400, seed=1)
    path = _write(tmp_path / "p.jsonl", sim.codes, refs=set(range(0, 400, 40)))
    doc, _ = _run(capsys, path)
    for r in doc["few_label"]["rules"]:
        if r["decision"] is not None:
            assert r["against_labels"] == (max(r["counts"]) > r["counts"][r["decision"]])


@given(
    budget=st.integers(0, 120),
    choice=st.sampled_from(["mixed", "active", "random"]),
    seed=st.integers(0, 5),
)
@CLI_SETTINGS
def test_any_budget_measures_exactly_the_rows_it_did_not_read(tmp_path_factory, capsys, budget, choice, seed):
    codes = shared_error_panel((0.6,), 0.4, 2, 0.7, 120, seed=3).codes
    path = _write(tmp_path_factory.mktemp("budget") / "p.jsonl", codes)
    argv = ["--label-budget", budget, "--label-choice", choice, "--seed", seed]
    doc, _ = _run(capsys, path, *argv)
    read = sum(v["labeled"] for v in doc["verdicts"])
    assert read == doc["labeled"] == budget
    if budget < 120:
        assert doc["jury"]["n"] == 120 - budget
    else:  # every reference read: measured out-of-fold
        assert doc["jury"]["n"] == 120 and "out-of-fold" in doc["scored_on"]
    ece = doc.get("confidence_error")
    if ece is not None:
        assert 0 <= ece["equal_width"] <= 1 and 0 <= ece["equal_count"] <= 1
