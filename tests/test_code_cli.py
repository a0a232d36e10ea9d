"""`accord code`: your own candidates, pytest-style or HumanEval-style tests, the sandboxed judges and a policy."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from accord.cli.main import main
from accord.verify import candidates

ROOT = Path(__file__).resolve().parents[1]

GOOD = "def clamp(x: int, lo: int, hi: int) -> int:\n    return max(lo, min(x, hi))\n"
SWAPPED = "def clamp(x: int, lo: int, hi: int) -> int:\n    return min(lo, max(x, hi))\n"
NO_HI = "def clamp(x: int, lo: int, hi: int) -> int:\n    return max(lo, x)\n"
ALSO_GOOD = "def clamp(x, lo, hi):\n    return lo if x < lo else hi if x > hi else x\n"
REV_GOOD = "def rev(s: str) -> str:\n    return s[::-1]\n"
REV_BAD = "def rev(s: str) -> str:\n    return s\n"
REV_LOOP = "def rev(s: str) -> str:\n    while True:\n        pass\n"


def _write(tmp_path, cands, tests):
    c, t = tmp_path / "cands.jsonl", tmp_path / "tests.jsonl"
    c.write_text("".join(json.dumps(x) + "\n" for x in cands))
    t.write_text("".join(json.dumps(x) + "\n" for x in tests))
    return c, t


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("code")
    cands = [
        {"task_id": "clamp", "id": i, "code": code}
        for i, code in (("good", GOOD), ("swapped", SWAPPED), ("no-hi", NO_HI), ("also-good", ALSO_GOOD))
    ]
    cands += [{"task_id": "rev", "code": code} for code in (REV_BAD, REV_GOOD, REV_LOOP)]
    tests = [
        {
            "task_id": "clamp",
            "entry_point": "clamp",
            "tests": "assert clamp(5, 0, 10) == 5\nassert clamp(-3, 0, 10) == 0\nassert clamp(42, 0, 10) == 10\n"
            "def test_edges():\n    assert clamp(0, 0, 0) == 0\n",
        },
        {
            "task_id": "rev",
            "entry_point": "rev",
            "check": "def check(candidate):\n    assert candidate('abc') == 'cba'\n    assert candidate('') == ''\n"
            "    assert candidate('xy') == 'yx'\n",
        },
    ]
    return _write(tmp, cands, tests)


@pytest.fixture(scope="module")
def doc(files):
    import contextlib
    import io

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        rc = main(["code", str(files[0]), "--tests", str(files[1]), "--json", "--quiet"])
    return rc, json.loads(out.getvalue())


def test_json_has_every_candidate_scored_and_the_right_picks(doc):
    rc, d = doc
    assert rc == 1  # rev: the one right candidate agrees with neither wrong one, so none is accepted
    assert d["judges"] == ["static", "execution", "consistency"] and d["policy"]["name"] == "verdict"
    by = {t["task_id"]: t for t in d["tasks"]}
    assert [c["id"] for c in by["clamp"]["candidates"]] == ["good", "swapped", "no-hi", "also-good"]
    assert [c["id"] for c in by["rev"]["candidates"]] == ["rev#1", "rev#2", "rev#3"]  # ids default to task#k
    clamp = {c["id"]: c for c in by["clamp"]["candidates"]}
    assert clamp["good"]["scores"]["execution"] == 1.0 and clamp["also-good"]["scores"]["execution"] == 1.0
    assert clamp["swapped"]["scores"]["execution"] < 1.0 and clamp["no-hi"]["scores"]["execution"] == 0.75
    assert by["clamp"]["picked"] in ("good", "also-good") and not by["clamp"]["fallback"]
    rev = {c["id"]: c for c in by["rev"]["candidates"]}
    assert by["rev"]["picked"] == "rev#2" and by["rev"]["fallback"]  # still picked, by the fallback ranking
    assert rev["rev#3"]["scores"]["execution"] == 0.0 and "timeout" in rev["rev#3"]["reasons"]["execution"]
    assert not rev["rev#3"]["accepted"]
    assert d["accepted_picks"] == 1


def test_table_and_out_file(files, tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "80")
    out = tmp_path / "verdicts.jsonl"
    assert main(["code", str(files[0]), "--tests", str(files[1]), "--out", str(out)]) == 1
    text = capsys.readouterr().out
    assert "accepted ◀" in text and "rejected ◀" in text and "also-good" in text and "2 tasks, 7 candidates" in text
    assert "no candidate accepted in rev (pick by fallback)" in " ".join(text.split())
    assert max(len(line) for line in text.splitlines()) <= 80
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert len(rows) == 7 and {r["task_id"] for r in rows} == {"clamp", "rev"}
    assert sum(r["picked"] for r in rows) == 2 and all("reasons" in r for r in rows)


def test_a_task_with_no_acceptable_candidate_exits_1(tmp_path, capsys):
    c, t = _write(
        tmp_path,
        [{"task_id": "rev", "code": REV_BAD}, {"task_id": "rev", "code": REV_BAD.replace("s\n", "s[1:]\n")}],
        [{"task_id": "rev", "entry_point": "rev", "tests": ["assert rev('ab') == 'ba'", "assert rev('abc') == 'cba'"]}],
    )
    assert main(["code", str(c), "--tests", str(t), "--judges", "code_static,code_execution", "--quiet"]) == 1
    assert "no candidate accepted in rev" in capsys.readouterr().out


@pytest.mark.parametrize(
    "cands, tests, message",
    [
        (
            [{"task_id": "t"}],
            [{"task_id": "t", "entry_point": "f", "tests": "assert f() == 1"}],
            "'code' must be a non-empty string",
        ),
        (
            [{"task_id": "t", "code": "x"}],
            [{"task_id": "u", "entry_point": "f", "tests": "assert f() == 1"}],
            "no tests in",
        ),
        ([{"task_id": "t", "code": "x"}], [{"task_id": "t", "entry_point": "f"}], "has no test"),
        (
            [{"task_id": "t", "code": "x"}],
            [{"task_id": "t", "entry_point": "f", "tests": "assert f(("}],
            "tests do not parse",
        ),
        (
            [{"task_id": "t", "code": "x"}],
            [{"task_id": "t", "entry_point": "f", "check": "assert 1"}],
            "check(candidate)",
        ),
        (
            [{"task_id": "t", "code": "x"}],
            [{"task_id": "t", "entry_point": "f-g", "tests": "assert 1"}],
            "not a Python name",
        ),
        (
            [{"task_id": "t", "code": "x"}],
            [{"task_id": "t", "entry_point": "f", "tests": "assert 1", "extra": 1}],
            "unknown field",
        ),
        (
            [{"task_id": "t", "code": "x", "id": "a"}, {"task_id": "t", "code": "y", "id": "a"}],
            [{"task_id": "t", "entry_point": "f", "tests": "assert 1"}],
            "appears twice",
        ),
    ],
)
def test_bad_input_is_one_line_exit_2(tmp_path, capsys, cands, tests, message):
    c, t = _write(tmp_path, cands, tests)
    assert main(["code", str(c), "--tests", str(t)]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and message in err and "Traceback" not in err


def test_test_sources_split_into_tests_with_setup_kept():
    tests = candidates.tests_from_source("import math\nassert f(4) == 2\ndef test_x():\n    assert f(9) == 3\n", "w")
    assert len(tests) == 2 and all(t.expected is None and t.expr.startswith("import math") for t in tests)
    plain = candidates.tests_from_source("assert f(4) == 2\nassert f(1) in (1, -1)\n", "w")
    assert (plain[0].expr, plain[0].expected) == ("f(4)", "2") and plain[1].expected is None
    split = candidates.tests_from_check(
        "def check(c):\n    'doc'\n    assert c(1) == 2\n    assert c(2) == 3\n", "g", "w"
    )
    assert [(t.expr, t.expected) for t in split] == [("g(1)", "2"), ("g(2)", "3")]
    whole = candidates.tests_from_check(
        "def check(c):\n    for x in range(3):\n        assert c(x) == x + 1\n", "g", "w"
    )
    assert len(whole) == 1 and whole[0].expr.endswith("check(g)")


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.integers(-99, 99), st.text("ab", max_size=3)), min_size=1, max_size=6))
def test_probe_inputs_are_the_tests_call_arguments(calls):
    src = "".join(f"assert f({x!r}, {s!r}) == 0\n" for x, s in calls)
    probes = candidates.call_args(candidates.tests_from_source(src, "w"), "f")
    assert list(probes) == list(dict.fromkeys(repr((x, s)) for x, s in calls))


def test_the_example_tests_file_reads():
    specs = candidates.read_code_tests(ROOT / "examples" / "code" / "tests.jsonl")
    assert set(specs) == {"digit_sum", "is_palindrome", "fizzbuzz", "median", "count_vowels", "gcd"}
    assert all(s.tests and s.probe_inputs for s in specs.values())
