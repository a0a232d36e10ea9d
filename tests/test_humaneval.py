"""The HumanEval task adapter, its registration, and the codepool command on real problems."""

from __future__ import annotations

import json

import pytest

from accord.adapters.code import CodeSpec
from accord.cli.main import main
from accord.protocols import Task
from accord.verify.tasks import load_humaneval, load_tasks


@pytest.fixture(scope="module")
def tasks():
    return load_humaneval()


def test_all_164_problems_load_with_visible_tests(tasks):
    assert len(tasks) == 164 and len({t.id for t in tasks}) == 164
    assert all(isinstance(t, Task) for t in tasks)
    with_tests = [t for t in tasks if t.spec.tests]
    assert len(with_tests) >= 140
    t0 = tasks[0]
    assert t0.spec.tests[0].expr == "has_close_elements([1.0, 2.0, 3.0], 0.5)"
    assert t0.spec.tests[0].expected == "False"


def test_context_carries_the_spec_and_hides_nothing_judges_need(tasks):
    ctx = tasks[2].context()
    spec = ctx.metadata["code"]
    assert isinstance(spec, CodeSpec) and spec.entry_point == "truncate_number"
    assert ctx.question == tasks[2].question and ctx.steps == ()
    assert "check(" in spec.hidden_check  # kept for scoring, never turned into judge items
    from accord.adapters.code import CodeRunner

    items, n_tests = CodeRunner(n_probes=3).plan(spec)
    assert n_tests == len(spec.tests) and len(items) > n_tests
    assert all(i["kind"] in ("expr", "probe") for i in items)


@pytest.mark.slow
def test_hidden_tests_score_programs(tasks):
    t = tasks[2]  # truncate_number
    body_ok = t.canonical_solution
    body_bad = "    return number\n"
    whole = "def truncate_number(number: float) -> float:\n    return number - int(number)\n"
    assert t.score([body_ok]) == 1.0
    assert t.score([body_bad]) == 0.0
    assert t.score([whole]) == 1.0
    assert t.score(["    return (\n"]) == 0.0
    assert t.extract_answer([body_ok]).endswith(body_ok) and t.extract_answer([]) is None


def test_registered_in_the_task_registry():
    got = load_tasks("humaneval", size=2, offset=10)
    assert [t.id for t in got] == ["HumanEval/10", "HumanEval/11"]
    assert load_tasks("humaneval", ids="HumanEval/7, HumanEval/3")[1].id == "HumanEval/3"
    with pytest.raises(ValueError, match="unknown HumanEval problem"):
        load_tasks("humaneval", ids=["HumanEval/999"])
    with pytest.raises(ValueError, match="size must be"):
        load_tasks("humaneval", size=0)


@pytest.mark.slow
def test_codepool_command_and_replay(tmp_path, capsys):
    saved = tmp_path / "pool.json"
    rc = main(
        [
            "codepool",
            "--ids",
            "HumanEval/0,HumanEval/2",
            "--mutants",
            "3",
            "--probes",
            "4",
            "--json",
            "--save",
            str(saved),
        ]
    )
    assert rc == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["problems"] == 2 and 6 <= doc["candidates"] <= 8 and 2 <= doc["correct_candidates"] < doc["candidates"]
    res = {r["policy"]: r for r in doc["results"]}
    assert {"verdict", "mean", "random", "pool", "oracle"} <= set(res)
    assert res["oracle"]["accuracy"] == 1.0
    assert all(0.0 <= r["accuracy"] <= 1.0 for r in doc["results"])
    rc = main(["codepool", "--load", str(saved), "--policies", "verdict,mean", "--json"])
    again = json.loads(capsys.readouterr().out)
    assert rc == 0 and [r["accuracy"] for r in again["results"][:2]] == [
        res["verdict"]["accuracy"],
        res["mean"]["accuracy"],
    ]


def test_codepool_bad_input_is_one_line(tmp_path, capsys):
    assert main(["codepool", "--ids", "HumanEval/999"]) == 2
    assert "unknown HumanEval problem id" in capsys.readouterr().err
    assert main(["codepool", "--load", str(tmp_path / "missing.json")]) == 2
    bad = tmp_path / "bad.json"
    bad.write_text('{"problems": []}')
    assert main(["codepool", "--load", str(bad)]) == 2
    assert "not a saved code pool" in capsys.readouterr().err
    assert main(["codepool", "--judges", "static,psychic"]) == 2
