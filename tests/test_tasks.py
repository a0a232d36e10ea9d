"""Task sources: discovery, reasoning-gym problems, the JSONL format, answer extraction and scoring."""

from __future__ import annotations

import json

import pytest

from accord.errors import UserError
from accord.verify.tasks import (
    TextTask,
    answers_match,
    extract_answer,
    list_tasks,
    load_tasks,
    register_task,
    stated_answer,
)
from accord.verify.tasks._gym import _worked_arithmetic


def test_sources_are_discovered():
    names = list_tasks()
    for name in ("basic_arithmetic", "gsm_symbolic", "reasoning_gym", "jsonl"):
        assert name in names


def test_register_task_adds_a_source():
    @register_task("two_questions_for_test")
    def _two(prefix: str = "q"):
        return [TextTask(f"{prefix}/{i}", f"Calculate {i} + 1.", str(i + 1)) for i in range(2)]

    tasks = load_tasks("two_questions_for_test", prefix="x")
    assert [t.id for t in tasks] == ["x/0", "x/1"]


def test_unknown_source_and_option_are_named():
    with pytest.raises(ValueError, match="unknown task source 'nope'"):
        load_tasks("nope")
    with pytest.raises(ValueError, match="basic_arithmetic"):
        load_tasks("basic_arithmetic", size=2, colour="red")


def test_builtin_arithmetic_is_fixed_by_its_seed_and_easy():
    a = load_tasks("basic_arithmetic", size=5, seed=0)
    b = load_tasks("basic_arithmetic", size=5, seed=0)
    c = load_tasks("basic_arithmetic", size=5, seed=1)
    assert [t.question for t in a] == [t.question for t in b] != [t.question for t in c]
    for t in a:
        assert t.question.startswith("Calculate") and "*" not in t.question and "/" not in t.question
        assert t.worked_steps[-1] == f"The answer is {t.reference}."
        assert t.score(list(t.worked_steps)) == 1.0  # the worked reference is right
        assert t.score(["The answer is 1000."]) == 0.0


def test_worked_arithmetic_steps():
    assert _worked_arithmetic("3 + 4 - 2") == ("3 + 4 = 7", "7 - 2 = 5", "The answer is 5.")


def test_gsm_symbolic_carries_its_worked_solution():
    (t,) = load_tasks("gsm_symbolic", size=1, seed=2)
    assert len(t.worked_steps) > 2 and t.reference
    assert t.score([f"The answer is {t.reference}."]) == 1.0


def test_any_reasoning_gym_dataset_by_name():
    ts = load_tasks("reasoning_gym", dataset="chain_sum", size=2, seed=0)
    assert ts[0].id == "chain_sum/0/0" and ts[0].reference
    with pytest.raises(ValueError, match="no_such_dataset"):
        load_tasks("reasoning_gym", dataset="no_such_dataset", size=1)


@pytest.mark.parametrize(
    "steps, answer, how",
    [
        (["3 + 4 = 7", "The answer is 7."], "7", "stated"),
        (["Answer: -12"], "-12", "stated"),
        (["so #### 1,250"], "1250", "stated"),
        (["\\boxed{3/4}"], "3/4", "stated"),
        (["The final answer is $12 apples."], "12", "stated"),
        (["3 + 4 = 7"], "7", "last_number"),
        (["no numbers"], None, "none"),
        ([], None, "none"),
    ],
)
def test_answer_extraction(steps, answer, how):
    assert extract_answer(steps) == (answer, how)


def test_answers_match_numbers_and_text():
    assert answers_match("7.0", "7") == 1.0 and answers_match("3/4", "0.75") == 1.0
    assert answers_match("8", "7") == 0.0 and answers_match(None, "7") == 0.0
    assert answers_match("Paris.", "paris") == 1.0
    assert stated_answer("nothing stated") is None


def test_jsonl_tasks(tmp_path):
    path = tmp_path / "q.jsonl"
    rows = [
        {"question": "What is 2 + 2?", "answer": 4, "steps": ["2 + 2 = 4"]},
        {"id": "mine", "question": "Capital of France?", "answer": "Paris"},
    ]
    path.write_text("# my questions\n" + "\n".join(json.dumps(r) for r in rows) + "\n\n")
    ts = load_tasks("jsonl", path=str(path))
    assert [t.id for t in ts] == ["q/0", "mine"]
    assert ts[0].reference == "4" and ts[0].worked_steps == ("2 + 2 = 4",)
    assert ts[0].score(["The answer is 4."]) == 1.0 and ts[1].score(["The answer is paris."]) == 1.0
    assert len(load_tasks("jsonl", path=str(path), limit=1)) == 1


@pytest.mark.parametrize(
    "line, problem",
    [
        ("not json", "not valid JSON"),
        ('{"answer": 3}', "'question' must be a non-empty string"),
        ('{"question": "q"}', "'answer' must be"),
        ('{"question": "q", "answer": true}', "'answer' must be"),
        ('{"question": "q", "answer": 1, "steps": "x"}', "'steps' must be a list"),
        ('{"question": "q", "answer": 1, "colour": 2}', "unknown field"),
        ("[1, 2]", "must be a JSON object"),
    ],
)
def test_jsonl_errors_name_file_and_line(tmp_path, line, problem):
    path = tmp_path / "bad.jsonl"
    path.write_text('{"question": "ok", "answer": 1}\n' + line + "\n")
    with pytest.raises(UserError, match=rf"bad.jsonl:2: .*{problem}"):
        load_tasks("jsonl", path=str(path))


def test_jsonl_missing_and_empty_files(tmp_path):
    with pytest.raises(UserError, match="no such task file"):
        load_tasks("jsonl", path=str(tmp_path / "none.jsonl"))
    (tmp_path / "e.jsonl").write_text("\n# nothing\n")
    with pytest.raises(UserError, match="no questions"):
        load_tasks("jsonl", path=str(tmp_path / "e.jsonl"))
