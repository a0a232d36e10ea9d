"""``accord verify`` says why a step is uncertain and how much it decided, and numbers steps from 1
wherever a person reads them (tables, CSV, the page, ``accord check``)."""

from __future__ import annotations

import csv
import io
import json

from hypothesis import given, settings
from hypothesis import strategies as st

from accord.cli.main import main
from accord.verify.solutions import decided
from accord.verify.solutions._uncertainty import uncertain_reason

SOLUTION = {
    "id": "mixed",
    "problem": "Find x.",
    "label": 3,
    "steps": [
        "We count the cases one by one.",  # no formula
        "So $x^2 + y = 3$.",  # read, not checkable
        "Then $\\int_0^1 x \\, dx = 5$.",  # unreadable
        "So $3 \\cdot 4 = 13$.",  # invalid
        "And $2 + 2 = 4$.",
    ],
}  # valid


def _verify(tmp_path, capsys, *extra):
    path = tmp_path / "s.jsonl"
    path.write_text(json.dumps(SOLUTION) + "\n")
    out = tmp_path / "pred.jsonl"
    rc = main(["verify", str(path), "--out", str(out), "--bootstrap", "0", "--fail-on", "never", *extra])
    return rc, capsys.readouterr(), json.loads(out.read_text().splitlines()[0])


def test_each_uncertain_step_says_why_and_the_summary_gives_the_decided_share(tmp_path, capsys):
    rc, cap, rec = _verify(tmp_path, capsys, "--json")
    assert rc == 0
    assert rec["step_labels"] == ["uncertain", "uncertain", "uncertain", "invalid", "valid"]
    why = [s.get("uncertain_reason") for s in rec["steps"]]
    assert why[0] == "no formula" and why[1] == "read, not checkable" and why[2].startswith("unreadable: ")
    assert why[3] is None and why[4] is None
    doc = json.loads(cap.out)
    assert doc["steps_decided"] == 2 and doc["decided_share"] == 0.4
    assert doc["uncertain_by_reason"] == {"no formula": 1, "read, not checkable": 1, "unreadable": 1}


def test_steps_are_numbered_from_1_in_the_table_the_csv_and_the_record(tmp_path, capsys):
    rc, cap, rec = _verify(tmp_path, capsys)
    assert rec["prediction"] == 3  # ProcessBench's 0-based index, the format's own field
    assert rec["first_invalid_step_number"] == 4 and [s["step_number"] for s in rec["steps"]] == [1, 2, 3, 4, 5]
    row = next(line for line in cap.out.splitlines() if "mixed" in line).split()
    assert row[:3] == ["mixed", "5", "4"]  # id, steps, first invalid step
    assert "decided: 2 of 5 steps (40%)" in cap.out
    main(["verify", str(tmp_path / "s.jsonl"), "--format", "csv", "--bootstrap", "0", "--fail-on", "never"])
    rows = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    assert [r["step_number"] for r in rows] == ["1", "2", "3", "4", "5"]
    assert {r["first_invalid_step_number"] for r in rows} == {"4"}
    assert {r["annotated_first_wrong_step_number"] for r in rows} == {"4"}
    assert rows[2]["uncertain_reason"].startswith("unreadable") and rows[3]["uncertain_reason"] == ""


def test_accord_check_numbers_steps_from_1_beside_the_file_line(tmp_path, capsys):
    path = tmp_path / "d.txt"
    path.write_text("# a slip\n\ngiven: 3x - 2 = 2x + 5\nx = 3\n")
    rc = main(["check", str(path)])
    out = capsys.readouterr().out
    assert rc == 1 and "first invalid step: 2 (line 4)" in out
    rc = main(["check", str(path), "--json"])
    doc = json.loads(capsys.readouterr().out)
    assert doc["first_invalid_step_number"] == 2 and doc["first_invalid_line"] == 4
    assert [s["step_number"] for s in doc["steps"]] == [1, 2]


@settings(max_examples=60, deadline=None)
@given(
    st.dictionaries(
        st.sampled_from(["arithmetic", "symbolic", "numeric"]),
        st.one_of(
            st.none(),
            st.text(max_size=40),
            st.sampled_from(
                [
                    "no checkable claim (no relation found)",
                    "no arithmetic to check",
                    "no checkable claim: x = 1: cannot read it: contains an ellipsis",
                    "no checkable claim: x = y: an equation stating something",
                ]
            ),
        ),
        min_size=1,
    )
)
def test_every_uncertain_step_gets_one_of_the_reasons(reasons):
    why = uncertain_reason(dict.fromkeys(reasons), reasons, None, 0.1)
    assert why in ("no formula", "read, not checkable") or why.startswith("unreadable: ")
    rec = {"steps": [{"label": "uncertain", "uncertain_reason": why}, {"label": "valid"}]}
    assert decided([rec])["decided_share"] == 0.5 and sum(decided([rec])["uncertain_by_reason"].values()) == 1
