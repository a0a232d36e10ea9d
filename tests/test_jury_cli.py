"""``accord jury``: tables, JSON, the law check, planning, methods and one-line errors."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from accord.cli.main import main
from accord.consensus_core.jury._law import simulate_unequal_panel

EXAMPLES = Path(__file__).resolve().parents[1] / "examples" / "jury"
EXAMPLE = EXAMPLES / "panel.jsonl"


@pytest.fixture(scope="module")
def panel_file(tmp_path_factory) -> Path:
    """A fresh 150-problem panel written by the example's generator."""
    sys.path.insert(0, str(EXAMPLES))
    try:
        import make_panel
    finally:
        sys.path.remove(str(EXAMPLES))
    return make_panel.main(n=150, seed=3, out=tmp_path_factory.mktemp("jury") / "panel.jsonl")


def _json(capsys, path, *argv) -> dict:
    assert main(["jury", str(path), "--json", "--n-boot", "40", *argv]) == 0
    return json.loads(capsys.readouterr().out)


def test_modal_jury_reports_accuracy_against_members(capsys):
    doc = _json(capsys, EXAMPLE, "--equivalence", "math", "--method", "modal")
    assert doc["references"]["use"] == "measure" and "did not read them" in doc["references"]["note"]
    assert doc["problems"] == 300 and doc["members"] == ["alpha", "bravo", "charlie", "delta"]
    assert 0 <= doc["jury"]["accuracy"] <= 1
    lo, hi = doc["jury"]["ci"]
    assert lo <= doc["jury"]["accuracy"] <= hi
    assert doc["best_member"]["name"] == "alpha"
    assert len(doc["verdicts"]) == 300 and {"id", "answer", "agreement", "abstained", "tie", "correct"} <= set(
        doc["verdicts"][0]
    )
    # the verdicts are the accuracy: recount them
    assert sum(v["correct"] for v in doc["verdicts"]) / 300 == pytest.approx(doc["jury"]["accuracy"])


def test_math_equivalence_changes_the_classes(capsys, panel_file):
    text = _json(capsys, panel_file, "--equivalence", "text")
    math = _json(capsys, panel_file, "--equivalence", "math")
    assert math["member_accuracy"]["alpha"]["accuracy"] > text["member_accuracy"]["alpha"]["accuracy"]


def test_check_law_and_plan(capsys, panel_file):
    doc = _json(capsys, panel_file, "--equivalence", "math", "--check-law", "--plan", "3", "--costs", "alpha=2")
    law = doc["law"]
    assert 0 < law["estimate"]["a"] < 1 and law["fit"]["df"] >= 1
    assert 0 <= law["fit"]["p_value"] <= 1
    assert abs(law["predicted"]["accuracy"] - law["observed"]["accuracy"]) < 0.1
    assert doc["plan"]["best"]["cost"] <= 3


@pytest.mark.parametrize("method", ["weighted", "dawid-skene"])
def test_weighted_methods_report_estimated_accuracies(capsys, panel_file, method):
    doc = _json(capsys, panel_file, "--equivalence", "math", "--method", method)
    assert set(doc["estimated_accuracy"]) == {"alpha", "bravo", "charlie", "delta"}
    for est in doc["estimated_accuracy"].values():
        assert 0 < est["value"] < 1 and est["ci"][0] <= est["ci"][1]
    lo, hi = doc["vs_best_member"]["ci"]
    assert lo <= doc["vs_best_member"]["difference"] <= hi


def test_abstention_threshold(capsys, panel_file):
    doc = _json(capsys, panel_file, "--min-agreement", "0.75", "--equivalence", "math")
    assert doc["coverage"] < 1
    assert all(v["answer"] is None for v in doc["verdicts"] if v["abstained"])


def test_errors_are_one_line(tmp_path, capsys):
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"answers": {"a": "1", "b": "2"}}\n{"answers": [1, 2\n')
    assert main(["jury", str(bad)]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "bad.jsonl:2" in err
    nolabel = tmp_path / "nolabel.jsonl"
    nolabel.write_text('{"answers": {"a": "1", "b": "2"}}\n')
    assert main(["jury", str(nolabel), "--check-law"]) == 2
    assert "reference" in capsys.readouterr().err
    assert main(["jury", str(nolabel), "--method", "weighted"]) == 2
    assert "at least 3 members" in capsys.readouterr().err


@pytest.mark.slow
def test_table_output_runs_as_a_program(tmp_path, panel_file):
    out = tmp_path / "verdicts.jsonl"
    proc = subprocess.run(
        [sys.executable, "-m", "accord.cli.main", "jury", str(panel_file), "--n-boot", "40", "--out", str(out)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    text = " ".join(proc.stdout.split())
    assert "references: the references on 150 rows are labels" in text and "jury (" in proc.stdout
    assert "out-of-fold" in text and "reliability (bins of equal rows)" in text
    assert f"wrote 150 rows (jsonl) to {out}; 150 labelled rows marked 'labeled'" in proc.stderr
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert len(rows) == 150
    assert {"members", "member_correct", "labeled", "held_out"} <= set(rows[0]) and all(r["labeled"] for r in rows)


def test_label_budget_measures_on_the_rows_it_did_not_read(capsys, panel_file):
    doc = _json(capsys, panel_file, "--label-budget", "40", "--label-choice", "random")
    assert doc["labeled"] == 40 and sum(v["labeled"] for v in doc["verdicts"]) == 40
    un = doc["unlabeled"]
    assert un["rows"] == 110
    for key in ("jury", "best_member", "best_member_on_labels", "modal", "weighted", "accuracy_weighted", "label_free"):
        lo, hi = un[key]["ci"]
        assert 0 <= lo <= un[key]["accuracy"] <= hi <= 1
    assert doc["few_label"]["rules"] and set(doc["few_label"]["member_accuracy"]) == {
        "alpha",
        "bravo",
        "charlie",
        "delta",
    }
    row = next(v for v in doc["verdicts"] if not v["abstained"])
    assert set(row["member_correct"]) == {"alpha", "bravo", "charlie", "delta"} and row["members"]
    assert row["correct"] == any(row["member_correct"][m] for m in row["members"])


def test_rows_with_a_reference_teach_the_rest(capsys, tmp_path, panel_file):
    lines = [json.loads(x) for x in panel_file.read_text().splitlines()]
    for i, obj in enumerate(lines):
        if i % 3:
            obj.pop("reference")
    partial = tmp_path / "partial.jsonl"
    partial.write_text("".join(json.dumps(o) + "\n" for o in lines))
    doc = _json(capsys, partial)
    assert doc["method"].startswith("few-label") and doc["labeled"] == 50
    assert [v["labeled"] for v in doc["verdicts"]] == [i % 3 == 0 for i in range(150)]
    # the unreferenced rows measure nothing; the labelled ones, each as the jury answered without its label
    assert doc["jury"]["n"] == 50 and "out-of-fold" in doc["scored_on"] and doc["references"]["use"] == "labels"
    assert all(("held_out" in v) == v["labeled"] for v in doc["verdicts"])
    held = [v["held_out"]["correct"] for v in doc["verdicts"] if v["labeled"]]
    assert doc["jury"]["accuracy"] == pytest.approx(sum(held) / 50)
    assert main(["jury", str(partial), "--label-budget", "10"]) == 2
    assert "reference" in capsys.readouterr().err


def test_textual_answers_form_one_class(capsys, tmp_path):
    rows = [
        {"id": "a", "answers": {"m1": "The limit exists and is equal to 2", "m2": "2", "m3": "3"}, "reference": "2"},
        {
            "id": "b",
            "answers": {"m1": "no such n exists", "m2": "None", "m3": "n = 4"},
            "reference": "No integer solutions",
        },
        {"id": "c", "answers": {"m1": "n!", "m2": "factorial(n)", "m3": ""}, "reference": "n!"},
    ]
    path = tmp_path / "textual.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    doc = _json(capsys, path, "--method", "modal")
    assert [v["correct"] for v in doc["verdicts"]] == [True, True, True]
    assert doc["verdicts"][0]["members"] == ["m1", "m2"] and doc["verdicts"][2]["member_correct"]["m3"] is False
    assert _json(capsys, path, "--method", "modal", "--equivalence", "text")["jury"]["accuracy"] < 1
    assert main(["jury", str(path), "--label-budget", "-1"]) == 2


@pytest.mark.parametrize(
    "body, message",
    [
        (
            '{"id": "a", "answers": {"x": "1", "y": "2"}}\n{"id": "a", "answers": {"x": "3", "y": "2"}}\n',
            "id 'a' already given on line 1",
        ),
        ('{"id": "a", "answers": {"x": NaN, "y": "2"}}\n', "answer of 'x' is nan"),
        ('{"id": "a", "answers": {"x": "1", "y": "2"}, "reference": NaN}\n', "'reference' is nan"),
    ],
)
def test_a_repeated_id_or_a_nan_answer_is_refused(tmp_path, capsys, body, message):
    path = tmp_path / "panel.jsonl"
    path.write_text(body, encoding="utf-8")
    assert main(["jury", str(path)]) == 2
    err = capsys.readouterr().err.strip()
    assert message in err and len(err.splitlines()) == 1 and f"{path}:" in err


def test_a_row_nobody_answered_abstains_under_every_label_setting(capsys, tmp_path):
    rows = [
        {"id": f"p{i}", "answers": {"a": str(i % 3), "b": str(i % 2), "c": "1"}, "reference": "1"} for i in range(30)
    ]
    rows[4]["answers"] = {"a": "", "b": None, "c": " "}
    path = tmp_path / "blank.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    for argv in (["--label-budget", "10"], ["--label-budget", "10", "--label-choice", "random"]):
        doc = _json(capsys, path, *argv)
        assert doc["verdicts"][4]["abstained"] and doc["verdicts"][4]["answer"] is None
        assert any(r["trust"] == [] for r in doc["few_label"]["rules"])
    for i in range(1, 30, 2):
        rows[i].pop("reference")
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    doc = _json(capsys, path)
    assert doc["method"].startswith("few-label") and doc["verdicts"][4]["abstained"]


def test_risk_answers_only_above_a_certified_threshold(capsys, tmp_path, panel_file):
    doc = _json(capsys, panel_file, "--equivalence", "math", "--risk", "0.2", "--delta", "0.2", "--label-budget", "100")
    risk = doc["risk"]
    assert doc["labeled"] == 100 and risk["calibration_rows"] == 100 and risk["unlabeled_rows"] == 50
    assert "random" in risk["calibration"] and "hypergeometric" in risk["test"] and risk["method"] == "hypergeometric"
    assert risk["candidate_rows"] >= 100 and risk["candidate_rows"] >= 0.6 * 150
    answered = [v for v in doc["verdicts"] if not v["abstained"]]
    if risk["threshold"] is None:
        assert not answered and risk["reason"]
    else:
        assert risk["bound"] <= 0.2 and all(v["score"] >= risk["threshold"] for v in answered)
        assert all(
            "below the certified threshold" in v["reason"]
            or v["reason"] in ("no member answered", "labelled: no member's answer matches its reference")
            for v in doc["verdicts"]
            if v["abstained"]
        )
        un = [v for v in answered if not v["labeled"]]
        assert risk["answered_unlabeled"] == len(un)
        if un:
            assert risk["realised_error"] == pytest.approx(1 - sum(v["correct"] for v in un) / len(un))
    # the rows with a reference calibrate when there is no budget; actively chosen rows cannot
    lines = [json.loads(x) for x in panel_file.read_text().splitlines()]
    for i, obj in enumerate(lines):
        if i % 2:
            obj.pop("reference")
    partial = tmp_path / "partial.jsonl"
    partial.write_text("".join(json.dumps(o) + "\n" for o in lines))
    doc = _json(capsys, partial, "--risk", "0.2")
    assert doc["risk"]["calibration_rows"] == 75 and "assumed to be a random sample" in doc["risk"]["calibration"]
    assert "realised_error" not in doc["risk"]
    for argv, message in (
        (["--risk", "0.1", "--label-budget", "20", "--label-choice", "active"], "drawn at random"),
        (["--risk", "0.1"], "--label-budget"),
        (["--risk", "1"], "(0, 1)"),
        (["--risk", "0.1", "--delta", "0"], "(0, 1)"),
    ):
        assert main(["jury", str(panel_file), *argv]) == 2
        err = capsys.readouterr().err.strip()
        assert message in err and len(err.splitlines()) == 1


def _risk_panel(path: Path, n: int = 800, seed: int = 0) -> Path:
    """Four members; agreement goes with being right, so a high threshold is certifiable."""
    rng = np.random.default_rng(seed)
    lines = []
    for i in range(n):
        acc = rng.choice([0.95, 0.75, 0.45])  # easy, middling and hard rows
        answers = {m: "right" if rng.random() < acc else f"w{rng.integers(3)}" for m in ("a", "b", "c", "d")}
        lines.append(json.dumps({"id": i, "answers": answers, "reference": "right"}))
    path.write_text("\n".join(lines) + "\n")
    return path


@pytest.mark.parametrize("bound", ["binomial", "hb", "clopper-pearson"])
def test_risk_reports_its_bound_threshold_coverage_and_error_bound(capsys, tmp_path, bound):
    path = _risk_panel(tmp_path / "risk.jsonl")
    argv = ["--equivalence", "text", "--risk", "0.1", "--label-budget", "300", "--risk-bound", bound]
    risk = _json(capsys, path, *argv)["risk"]
    assert risk["method"] == bound and risk["threshold"] is not None and risk["bound"] <= 0.1
    assert 0 < risk["coverage"] <= 1 and risk["realised_error"] <= 0.15
    assert main(["jury", str(path), "--n-boot", "40", *argv]) == 0
    out = " ".join(capsys.readouterr().out.split())
    assert f"(bound {bound}), coverage {risk['coverage']:.1%}" in out
    assert f"upper bound on the error among answered rows {risk['bound']:.3f}" in out


def test_risk_that_certifies_nothing_answers_nothing_and_prints_no_accuracy(capsys, tmp_path):
    path = _risk_panel(tmp_path / "risk.jsonl", n=300)
    argv = ["--equivalence", "text", "--risk", "0.01", "--label-budget", "100"]
    assert main(["jury", str(path), "--json", "--n-boot", "40", *argv]) == 0
    raw = capsys.readouterr().out
    doc = json.loads(raw, parse_constant=lambda c: pytest.fail(f"not strict JSON: {c}"))
    risk = doc["risk"]
    assert risk["threshold"] is None and risk["bound"] is None and risk["coverage"] == 0 and risk["reason"]
    assert doc["answered"] == 0 and doc["jury"]["accuracy"] is None
    assert doc["unlabeled"]["jury"]["accuracy"] is None and doc["unlabeled"]["jury"]["note"] == "answered no row"
    assert main(["jury", str(path), "--n-boot", "40", *argv]) == 0
    out = capsys.readouterr().out
    assert "abstains on every row (bound hypergeometric)" in " ".join(out.split())
    jury_lines = [line for line in out.splitlines() if line.strip().startswith("jury")]
    assert jury_lines and all("answered no row" in line for line in jury_lines)


def test_an_unknown_risk_bound_is_a_one_line_error(capsys, panel_file):
    assert main(["jury", str(panel_file), "--risk", "0.1", "--label-budget", "50", "--risk-bound", "bonferroni"]) == 2
    err = capsys.readouterr().err.strip()
    assert "--risk-bound" in err and "Traceback" not in err


def test_a_panel_that_cannot_be_ranked_without_labels_says_so(capsys, tmp_path):
    rng = np.random.default_rng(0)
    n = 1500  # member b is a weaker model whose answers c mostly repeats: agreement makes the pair look expert
    a, b, other = rng.random(n) < 0.65, rng.random(n) < 0.45, rng.random(n) < 0.45
    copy, d = rng.random(n) < 0.9, rng.random(n) < 0.3
    bb = np.where(b, "1", "2")
    rows = [
        {
            "id": i,
            "answers": {
                "a": "1" if a[i] else "3",
                "b": bb[i],
                "c": bb[i] if copy[i] else ("1" if other[i] else "4"),
                "d": "1" if d[i] else "5",
            },
        }
        for i in range(n)
    ]
    path = tmp_path / "copied.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    assert main(["jury", str(path), "--n-boot", "40", "--equivalence", "text"]) == 0
    out = " ".join(capsys.readouterr().out.split())
    assert "cannot tell which member is best" in out and "labels would rank the members" in out
    assert "vote minus best member within" not in out


def test_a_well_separated_panel_still_gets_no_label_free_claim(capsys, tmp_path):
    """Independent members, well apart: the estimates are right here, yet agreement could not tell this
    panel from one whose weak members share wrong answers, so the model-free bounds hold and nothing is claimed."""
    sim = simulate_unequal_panel([0.75, 0.55, 0.5], correlation=0.05, s=0.1, n=1500, seed=2)
    rows = [{"id": i, "answers": {f"m{j}": f"a{c}" for j, c in enumerate(row)}} for i, row in enumerate(sim.codes)]
    path = tmp_path / "ranked.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    assert main(["jury", str(path), "--n-boot", "40", "--equivalence", "text", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    lf = doc["label_free"]
    assert not lf["ranks_members"] and lf["claims"] is None and lf["labels_needed"] >= 1 and lf["label_rows"]
    assert doc["method"] == "majority vote (label-free)"
    lo, hi = lf["advantage_ci"]
    assert -lf["parting"] <= lo <= lf["advantage"] <= hi <= lf["overrides"]
