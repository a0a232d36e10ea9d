"""``accord check``: derivation files, per-step consensus verdicts, JSON output and user errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from accord.adapters.math import ArithmeticJudge, NumericSamplingJudge, SymbolicEquivalenceJudge
from accord.cli.main import main
from accord.errors import UserError
from accord.verify.analysis import check_derivation
from accord.verify.io import parse_derivation, read_derivation

EXAMPLES = Path(__file__).resolve().parents[1] / "examples" / "derivations"


def run_json(capsys, *argv):
    rc = main(["check", *argv, "--json"])
    out = capsys.readouterr().out
    return rc, json.loads(out)


def test_algebra_slip_is_found_with_its_line_and_reason(capsys):
    rc, doc = run_json(capsys, str(EXAMPLES / "algebra_slip.txt"))
    assert rc == 1
    assert doc["first_invalid"] == 5
    by_line = {s["line"]: s for s in doc["steps"]}
    assert by_line[2]["verdict"] == "unchecked"  # the premise
    assert by_line[3]["verdict"] == by_line[4]["verdict"] == "valid"
    slip = by_line[5]
    assert slip["text"] == "x = 3" and slip["verdict"] == "invalid"
    assert slip["scores"]["symbolic"] == 0.0 and slip["scores"]["numeric"] == 0.0
    assert slip["scores"]["arithmetic"] is None
    assert "x = 7" in doc["first_invalid_reason"] or "does not follow" in doc["first_invalid_reason"]
    assert by_line[6]["verdict"] == "valid"  # x^2 = 9 does follow from x = 3
    for s in doc["steps"]:
        assert set(s) >= {"line", "text", "scores", "mean", "dispersion", "verdict"}


def test_correct_derivation_has_no_invalid_step(capsys):
    rc, doc = run_json(capsys, str(EXAMPLES / "correct.txt"))
    assert rc == 0 and doc["first_invalid"] is None
    claims = [s for s in doc["steps"] if s["kind"] == "claim"]
    assert claims and all(s["verdict"] == "valid" for s in claims)
    words = [s for s in claims if s["text"].startswith("The two roots")][0]
    assert words["scores"] == {"symbolic": 1.0, "numeric": 1.0, "arithmetic": 1.0}  # prose read for its formulas


@pytest.mark.slow
def test_the_papers_closed_form_derivation_checks(capsys):
    rc, doc = run_json(capsys, str(EXAMPLES / "closed_form.md"))
    assert rc == 0
    claims = [s for s in doc["steps"] if s["kind"] == "claim"]
    assert len(claims) == 9
    assert all(s["scores"]["symbolic"] == 1.0 and s["scores"]["numeric"] == 1.0 for s in claims)


def test_a_slip_in_the_closed_form_is_caught(tmp_path):
    text = (
        (EXAMPLES / "closed_form.md")
        .read_text()
        .replace(
            "S = 2 (λ_V w_V r_V + λ_L w_L r_L + λ_C w_C r_C)/(1 - w_V - w_L - w_C)",
            "S = 2 (λ_V w_V r_V + λ_L w_L r_L + λ_C w_C r_C)/(1 + w_V - w_L - w_C)",
        )
    )
    lines = parse_derivation(text, "slip.md", markdown=True)
    slip = [ln for ln in lines if "(1 + w_V" in ln.text]
    judges = [SymbolicEquivalenceJudge(), NumericSamplingJudge()]
    report = check_derivation(lines[: lines.index(slip[0]) + 1], judges, source="slip.md")
    assert report.first_invalid is not None and report.first_invalid.line == slip[0].line


def test_policy_and_lambdas_are_configurable(capsys):
    rc, doc = run_json(capsys, str(EXAMPLES / "algebra_slip.txt"), "--policy", "raw_average", "--lambdas", "2,1,1")
    assert doc["policy"] == "raw_average" and doc["params"]["lambdas"] == [2.0, 1.0, 1.0]
    assert doc["first_invalid"] == 5


def test_consensus_statistics_come_from_the_core():
    lines = parse_derivation("given: 2x + 3 = 7\nx = 2\nx = 5\n")
    judges = [SymbolicEquivalenceJudge(), NumericSamplingJudge(), ArithmeticJudge()]
    rep = check_derivation(lines, judges, lambdas=(1.5, 1.0, 0.8), eps=0.1, tau=0.6)
    ok, bad = rep.steps[1], rep.steps[2]
    assert ok.mean == 1.0 and ok.dispersion == 0.0 and ok.verdict == "valid"
    assert bad.mean == 0.0 and bad.verdict == "invalid"
    assert rep.first_invalid.line == 3


def test_table_output_names_the_first_invalid_step(capsys):
    rc = main(["check", str(EXAMPLES / "algebra_slip.txt")])
    out = capsys.readouterr().out
    assert rc == 1 and "first invalid step: 4 (line 5)" in out  # step numbered from 1, with its file line


@pytest.mark.parametrize(
    "content, args, message",
    [
        (None, [], "no such file"),
        ("", [], "no steps found"),
        ("# only a comment\n", [], "no steps found"),
        ("x = x\n", ["--lambdas", "1,2"], "--lambdas: λ must be finite numbers > 0, one per judge"),
        ("x = x\n", ["--lambdas", "a,b,c"], "--lambdas"),
        ("x = x\n", ["--judges", "symbolic,oracle"], "unknown judge"),
        ("x = x\n", ["--judges", "symbolic"], "at least 2 judges"),
        ("x = x\n", ["--judges", "symbolic,final_answer"], "needs --answer"),
        ("x = x\n", ["--policy", "nope"], "unknown policy"),
        ("x = x\n", ["--lambdas", "1,0,1"], "--lambdas: λ must be finite numbers > 0, one per judge"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(tmp_path, capsys, content, args, message):
    path = tmp_path / "d.txt"
    if content is not None:
        path.write_text(content)
    rc = main(["check", str(path), *args])
    err = capsys.readouterr().err
    assert rc == 2
    assert message in err and len(err.strip().splitlines()) == 1


def test_prose_and_unreadable_lines_are_reported_not_fatal(tmp_path, capsys):
    path = tmp_path / "solution.txt"
    path.write_text(
        "Given the equation:\n"
        "unknowns:\n"
        "given: x\n"
        "We have $2^2^2^2^2^2^2 = 1$, a tower.\n" + "x = 1 " * 400 + "\n"
        "Then 4 · 7 = 26 apples.\n"
    )
    rc, doc = run_json(capsys, str(path))
    assert rc == 1 and doc["first_invalid"] == 6
    by_line = {s["line"]: s for s in doc["steps"]}
    assert by_line[1]["kind"] == "unread" and "premise must be an equation" in by_line[1]["reasons"]["symbolic"]
    assert by_line[2]["kind"] == "unread" and "names no symbols" in by_line[2]["reasons"]["symbolic"]
    assert by_line[3]["kind"] == "unread"
    assert by_line[5]["kind"] == "unread" and "longer than 2000" in by_line[5]["reasons"]["symbolic"]
    assert all(by_line[n]["verdict"] == "unchecked" for n in (1, 2, 3, 4, 5))
    assert "refused to evaluate" in by_line[4]["reasons"]["symbolic"]
    assert "the left side is 28" in by_line[6]["reasons"]["symbolic"]


def test_solution_mode_reads_equations_as_statements(tmp_path, capsys):
    path = tmp_path / "solution.txt"
    path.write_text("f(1) = 3\nf(2) = 7\nf(3) = f(1) + 2f(2) = 3 + 14 = 17\n")
    rc, doc = run_json(capsys, str(path), "--mode", "solution")
    assert rc == 0 and doc["first_invalid"] is None
    assert doc["steps"][-1]["verdict"] == "valid"
    rc, doc = run_json(capsys, str(path), "--mode", "derivation")
    assert rc == 1  # as a derivation, f(1) = 3 neither holds nor follows


def test_non_utf8_file_names_the_line(tmp_path):
    path = tmp_path / "d.txt"
    path.write_bytes(b"x = x\n\xff\xfe = 1\n")
    with pytest.raises(UserError, match=r"d.txt:2: not UTF-8"):
        read_derivation(path)


def test_markdown_reading_keeps_line_numbers():
    md = "# Title\n\nSome prose here.\n\n```\ngiven: x = 1\n# a comment\nx + 1 = 2\n```\n- 2x = 2  # note\n"
    lines = parse_derivation(md, "d.md", markdown=True)
    assert [(ln.line, ln.text, ln.kind) for ln in lines] == [
        (6, "given: x = 1", "premise"),
        (8, "x + 1 = 2", "claim"),
        (10, "- 2x = 2", "claim"),
    ]


def test_final_answer_judge_joins_with_answer(tmp_path, capsys):
    path = tmp_path / "d.txt"
    path.write_text("She buys 3 x 4 = 12 apples.\nThe answer is 12.\n")
    rc, doc = run_json(capsys, str(path), "--answer", "12")
    assert doc["judges"] == ["symbolic", "numeric", "arithmetic", "final_answer"]
    last = doc["steps"][-1]
    assert last["scores"]["final_answer"] == 1.0 and last["verdict"] == "valid"
