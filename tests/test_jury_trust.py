"""``accord jury`` a person can trust: no label-free claims that shared wrong answers would make
wrong, what the user knows (--prior, --trust), labels a person gives (--ask-labels, --labels),
calibrated confidence, strict JSON, a flat CSV, and statistics that say when rows are too few."""

from __future__ import annotations

import csv
import io
import json

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from accord.cli.main import main
from accord.consensus_core.jury import label_free_jury, rows_to_label, weighted_vote
from accord.consensus_core.jury._calibration import calibration_error, platt
from accord.consensus_core.jury._shared import shared_error_panel

CLI_SETTINGS = settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture]
)


def _write(path, codes, reference: bool = True, ids=None):
    rows = []
    for i, row in enumerate(codes):
        answers = {f"m{j}": None if c < 0 else f"a{c}" for j, c in enumerate(row)}
        obj = {"id": f"q{i}" if ids is None else ids[i], "answers": answers}
        if reference:
            obj["reference"] = "a0"
        rows.append(json.dumps(obj) + "\n")
    path.write_text("".join(rows))
    return path


def _strict(text: str) -> dict:
    def refuse(name):
        raise AssertionError(f"not JSON: {name}")

    return json.loads(text, parse_constant=refuse)


def _json(capsys, *argv) -> dict:
    assert main(["jury", *map(str, argv), "--json", "-q", "--equivalence", "text", "--n-boot", "40"]) == 0
    return _strict(capsys.readouterr().out)


@pytest.fixture(scope="module")
def shared(tmp_path_factory):
    """One strong member (0.55) and a bloc of three weak ones (0.35) that copy one another's answers."""
    panel = shared_error_panel((0.55,), 0.35, 3, 0.8, 400, seed=1)
    return panel, _write(tmp_path_factory.mktemp("shared") / "shared.jsonl", panel.codes)


def test_agreement_ranks_a_copying_bloc_first(shared):
    """The failure the command guards against: every label-free estimator ranks a bloc member best."""
    panel, _ = shared
    lf = label_free_jury(panel.codes, n_boot=5)
    assert panel.best == 0 and lf.best_member != 0
    assert all(v != 0 for v in lf.other_estimates.values())
    assert not lf.ranks_members and lf.claims is None and "share wrong answers" in lf.reasons[0]


def test_shared_wrong_answers_give_no_claim_and_the_majority_decides(capsys, shared):
    panel, path = shared
    doc = _json(capsys, path, "--label-budget", "0")  # the label-free default, every reference measuring it
    assert doc["references"]["use"] == "measure" and doc["jury"]["n"] == 400
    lf = doc["label_free"]
    assert doc["method"] == "majority vote (label-free)" and lf["ranks_members"] is False and lf["claims"] is None
    assert lf["estimated_best_member"] != "m0"  # the estimate is wrong, and it is not claimed
    assert lf["labels_needed"] and len(lf["label_rows"]) == min(lf["labels_needed"], 400)
    assert all(v["confidence"] is None for v in doc["verdicts"]) and doc["confidence"]["calibrated"] is False
    for v in doc["verdicts"]:  # agreement is the vote share, never a posterior
        answered = [a for a in v["answers"].values() if a is not None]
        if v["answer"] is not None:
            assert v["agreement"] == pytest.approx(answered.count(v["answer"]) / len(answered))
    assert main(["jury", str(path), "--equivalence", "text", "--n-boot", "40", "--label-budget", "0"]) == 0
    out = " ".join(capsys.readouterr().out.split())
    assert "cannot tell which member is best" in out and "not claims" in out and "estimated best member" not in out


def test_a_trusted_member_or_known_accuracies_decide(capsys, shared):
    panel, path = shared
    doc = _json(capsys, path, "--trust", "m0")
    assert doc["method"] == "trusted member (m0)" and doc["jury"]["accuracy"] == pytest.approx(panel.accuracy[0])
    prior = [0.55, 0.35, 0.35, 0.35]
    doc = _json(capsys, path, "--prior", "m0=0.55,m1=0.35,m2=0.35,m3=0.35")
    expected = weighted_vote(panel.codes, prior, 0.0, 0).chosen == 0
    assert doc["method"].startswith("accuracy-weighted") and doc["prior"]["m0"] == 0.55
    assert doc["jury"]["accuracy"] == pytest.approx(expected.mean())
    for argv, message in (
        (["--trust", "zz"], "unknown member"),
        (["--prior", "m0=0.5"], "missing m1"),
        (["--prior", "m0=1.5,m1=.3,m2=.3,m3=.3"], "strictly between"),
        (["--prior", "m0"], "member=accuracy"),
        (["--prior", "m0=.5,m1=.3,m2=.3,m3=.3", "--trust", "m0"], "give one"),
    ):
        assert main(["jury", str(path), "--equivalence", "text", *argv]) == 2
        err = capsys.readouterr().err.strip()
        assert message in err and len(err.splitlines()) == 1, err


def test_label_round_trip(capsys, tmp_path, shared):
    """Ask for the rows worth labelling, fill them in, run again: the few-label jury on those labels."""
    panel, _ = shared
    bare = _write(tmp_path / "bare.jsonl", panel.codes, reference=False)
    ask = tmp_path / "ask.jsonl"
    doc = _json(capsys, bare, "--ask-labels", "30", "--ask-out", ask)
    asked = [json.loads(x) for x in ask.read_text().splitlines()]
    assert len(asked) == 30 and len({a["id"] for a in asked}) == 30 and doc["asked"]["rows"] == [a["id"] for a in asked]
    assert all(a["reference"] is None and set(a["answers"]) == {"m0", "m1", "m2", "m3"} for a in asked)
    for a in asked[:25]:  # a person fills in 25 and leaves 5
        a["reference"] = "a0"
    filled = tmp_path / "filled.jsonl"
    filled.write_text("".join(json.dumps(a) + "\n" for a in asked))
    doc = _json(capsys, bare, "--labels", filled)
    assert doc["method"].startswith("few-label") and doc["labeled"] == 25
    assert {v["id"] for v in doc["verdicts"] if v["labeled"]} == {a["id"] for a in asked[:25]}
    assert doc["confidence"]["calibrated"] is True
    probs = [v["confidence"] for v in doc["verdicts"] if not v["abstained"]]
    assert all(p is not None and 0 <= p <= 1 for p in probs)
    # the choice is the same as the library's
    assert [f"q{i}" for i in rows_to_label(panel.codes, 30, choice="mixed")] == [a["id"] for a in asked]
    for body, message in (
        ('{"id": "nope", "reference": "a0"}\n', "not in the jury file"),
        ('{"id": "q1", "reference": "a0", "extra": 1}\n', "unknown field"),
        ('{"reference": "a0"}\n', "'id'"),
        ('{"id": "q1", "reference": [1]}\n', "must be text"),
    ):
        bad = tmp_path / "bad.jsonl"
        bad.write_text(body)
        assert main(["jury", str(bare), "--labels", str(bad), "--equivalence", "text"]) == 2
        err = capsys.readouterr().err.strip()
        assert message in err and len(err.splitlines()) == 1, err
    assert main(["jury", str(bare), "--ask-labels", "3"]) == 2 and "go together" in capsys.readouterr().err


@given(picks=st.lists(st.tuples(st.integers(0, 39), st.sampled_from(["a0", "a1", "", "  ", None, 7])), max_size=12))
@settings(CLI_SETTINGS)
def test_any_label_file_is_read_or_refused_in_one_line(tmp_path_factory, capsys, picks):
    tmp = tmp_path_factory.mktemp("labels")
    codes = shared_error_panel((0.6,), 0.4, 2, 0.7, 40, seed=3).codes
    bare = _write(tmp / "bare.jsonl", codes, reference=False)
    lines = [json.dumps({"id": f"q{i}", "reference": ref}) + "\n" for i, ref in picks]
    (tmp / "labels.jsonl").write_text("".join(lines))
    rc = main(
        [
            "jury",
            str(bare),
            "--labels",
            str(tmp / "labels.jsonl"),
            "--json",
            "-q",
            "--equivalence",
            "text",
            "--n-boot",
            "40",
        ]
    )
    out, err = capsys.readouterr()
    filled: dict[str, str] = {}
    clash = False
    for i, ref in picks:
        if ref is None or not str(ref).strip():
            continue
        clash |= filled.get(f"q{i}", str(ref)) != str(ref)
        filled[f"q{i}"] = str(ref)
    if clash:
        assert rc == 2 and len(err.strip().splitlines()) == 1
        return
    assert rc == 0, err
    doc = _strict(out)
    assert doc["labeled"] == len(filled)
    assert {v["id"] for v in doc["verdicts"] if v["labeled"]} == set(filled)


def test_strict_json_and_no_accuracy_when_nothing_is_answered(capsys, tmp_path):
    codes = np.random.default_rng(0).integers(0, 4, size=(60, 3))
    path = _write(tmp_path / "hard.jsonl", codes)
    doc = _json(capsys, path, "--risk", "0.01", "--label-budget", "30", "--seed", "1")
    assert doc["answered"] == 0 and doc["jury"]["accuracy"] is None and doc["jury_answered"]["accuracy"] is None
    assert doc["risk"]["threshold"] is None
    argv = ["--equivalence", "text", "--n-boot", "40", "--risk", "0.01", "--label-budget", "30"]
    assert main(["jury", str(path), *argv]) == 0
    out = capsys.readouterr().out
    assert "answered no row" in out and "nan" not in out


def test_csv_holds_the_per_row_output(capsys, tmp_path, shared):
    panel, path = shared
    out_csv, out_jsonl = tmp_path / "v.csv", tmp_path / "v.jsonl"
    argv = ["jury", str(path), "--equivalence", "text", "--n-boot", "40", "-q", "--out"]
    assert main([*argv, str(out_csv), "--format", "csv"]) == 0
    assert main([*argv, str(out_jsonl)]) == 0
    capsys.readouterr()
    rows = list(csv.DictReader(io.StringIO(out_csv.read_text())))
    lines = [_strict(x) for x in out_jsonl.read_text().splitlines()]
    assert len(rows) == len(lines) == 400
    for r, v in zip(rows, lines):
        assert r["id"] == v["id"] and r["answer"] == (v["answer"] or "") and r["correct"] == str(v["correct"]).lower()
        assert r["answer:m0"] == (v["answers"]["m0"] or "") and float(r["agreement"]) == pytest.approx(v["agreement"])
    assert main(["jury", str(path), "--format", "csv"]) == 2 and "--out" in capsys.readouterr().err


def test_a_handful_of_rows_gets_counts_not_statistics(capsys, tmp_path):
    path = _write(tmp_path / "three.jsonl", np.array([[0, 0, 1], [0, 1, 1], [2, 0, 0]]))
    doc = _json(capsys, path)
    assert "too few" in doc["too_few_rows"] and "label_free" not in doc
    assert doc["jury"]["ci"] is None and doc["vs_best_member"]["ci"] is None
    assert all(e["ci"] is None for e in doc["member_accuracy"].values())
    assert main(["jury", str(path), "--equivalence", "text"]) == 0
    assert "too few" in capsys.readouterr().out


@pytest.mark.parametrize("answers", ['["1", "2"]', '"1"', "{}", "null"])
def test_answers_must_be_an_object(capsys, tmp_path, answers):
    path = tmp_path / "list.jsonl"
    path.write_text('{"id": "a", "answers": ' + answers + "}\n")
    assert main(["jury", str(path)]) == 2
    err = capsys.readouterr().err.strip()
    assert "'answers' must be a non-empty object" in err and len(err.splitlines()) == 1


def test_platt_scaling_repairs_an_overconfident_score():
    rng = np.random.default_rng(0)
    score = rng.uniform(0.6, 0.999, 3000)
    right = rng.random(3000) < 0.5 + 0.3 * (score - 0.6)  # far less often right than the score says
    slope, intercept = platt(score, right)
    fixed = 1 / (1 + np.exp(-(slope * np.log(score / (1 - score)) + intercept)))
    assert calibration_error(fixed, right) < 0.05 < calibration_error(score, right)


def test_the_map_reaches_an_agreement_level_only_as_far_as_its_labels():
    from accord.consensus_core.jury._calibration import LEVEL_PSEUDO, Calibration, agreement_levels

    codes = np.array([[0, 0, 0], [0, 0, 1], [0, 1, 2], [0, 1, -1], [-1, -1, -1]])
    assert agreement_levels(codes).tolist() == [1.0, round(2 / 3, 3), round(1 / 3, 3), 0.5, 0.0]
    cal = Calibration(slope=0.5, intercept=-0.5, rows=40, cross_fitted_error=0.1, level_rows=((0.5, 40),))
    score = np.array([0.99, 0.99])
    mapped = cal(score)  # without levels: the map everywhere
    blended = cal(score, [1.0, 0.5])  # no label at 1.0 keeps the score; 40 labels at 0.5 move it most of the way
    assert blended[0] == pytest.approx(0.99)
    w = 40 / (40 + LEVEL_PSEUDO)
    assert blended[1] == pytest.approx(w * mapped[1] + (1 - w) * 0.99)
    assert mapped[1] < blended[1] < 0.99


def test_asked_rows_spread_over_the_uncertain_patterns():
    panel = shared_error_panel((0.55,), 0.35, 3, 0.8, 400, seed=1)
    rows = rows_to_label(panel.codes, 40)
    assert len(set(rows.tolist())) == 40
    unanimous = np.all(panel.codes == panel.codes[:, :1], axis=1)
    assert not unanimous[rows].any()  # a unanimous row's label changes no decision


@given(
    spec=st.lists(
        st.tuples(
            st.sampled_from(["m0", "m1", "m2", "zz", "", " m0"]),
            st.sampled_from(["0.5", "0.9", "1", "0", "-0.2", "nan", "x", ""]),
        ),
        max_size=5,
    ),
    sep=st.sampled_from(["=", ":", ""]),
)
@settings(CLI_SETTINGS)
def test_any_prior_is_used_or_refused_in_one_line(tmp_path_factory, capsys, spec, sep):
    tmp = tmp_path_factory.mktemp("prior")
    codes = shared_error_panel((0.6,), 0.4, 2, 0.7, 30, seed=4).codes
    path = _write(tmp / "p.jsonl", codes)
    text = ",".join(f"{name}{sep}{value}" for name, value in spec)
    rc = main(["jury", str(path), "--prior", text, "--json", "-q", "--equivalence", "text", "--n-boot", "40"])
    out, err = capsys.readouterr()
    if rc == 0:
        doc = _strict(out)
        assert doc["method"].startswith("accuracy-weighted") and set(doc["prior"]) == {"m0", "m1", "m2"}
        assert all(0 < a < 1 for a in doc["prior"].values())
    else:
        assert rc == 2 and len(err.strip().splitlines()) == 1 and "--prior" in err
