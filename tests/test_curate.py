"""``accord curate``: questions put to a real panel without their essential context."""

from __future__ import annotations

import json

import pytest

from accord.adapters.local import TransformersGenerator
from accord.cli.main import main
from accord.verify.curation import (
    ANSWER_EXAMPLE,
    ANSWER_SYSTEM,
    blind_context,
    curate,
    read_benchmark,
    write_curation,
)

QUESTIONS = [
    {
        "id": "code",
        "passage": "The secret code written on the door is 9135.",
        "question": "What is the secret code written on the door?",
        "answer": "9135",
    },
    {"id": "sum", "passage": "Tom likes simple sums.", "question": "What is 2 + 2?", "answer": "4"},
    {
        "id": "capital",
        "passage": "Paris is the capital of France.",
        "question": "What is the capital of France?",
        "answer": "Paris",
    },
]


@pytest.fixture
def bench(tmp_path):
    path = tmp_path / "bench.jsonl"
    path.write_text("".join(json.dumps(q) + "\n" for q in QUESTIONS))
    return path


def test_the_dropped_field_never_reaches_the_prompt(tmp_path):
    path = tmp_path / "mixed.jsonl"
    rows = [
        {
            "id": "a",
            "image": "chart.png",
            "question": "Which bar is tallest?",
            "choices": ["red", "blue"],
            "answer": "blue",
        },
        {"id": "b", "image": ["x.png", "y.png"], "question": "Same shape?", "answer": "yes", "hint": "look closely"},
    ]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    items = read_benchmark(path, "image")
    ctx = blind_context(items[0], "image")
    assert (
        ctx.attachments == ()
        and "choices: red, blue" in ctx.question
        and ctx.question.endswith("Which bar is tallest?")
    )
    assert blind_context(items[1], "hint").attachments == ("x.png", "y.png")
    assert "look closely" not in blind_context(items[1], "hint").question


@pytest.mark.slow
def test_a_quorum_that_answers_without_the_passage_drops_the_question(smollm2, bench, tmp_path):
    lm, tok = smollm2
    member = dict(
        temperature=0.0, max_new_tokens=24, system_prompt=ANSWER_SYSTEM, instruction="", example=ANSWER_EXAMPLE
    )
    panel = {
        "a": TransformersGenerator.from_loaded(lm, tok, **member),
        "b": TransformersGenerator.from_loaded(lm, tok, **member),
    }
    items = read_benchmark(bench, "passage")
    verdicts = curate(items, panel, quorum=2, drop="passage")
    by_id = {v.id: v for v in verdicts}
    assert all(v.kept == (v.right_without_context < 2) for v in verdicts)
    assert by_id["code"].kept and by_id["code"].right_without_context == 0  # nobody guesses 9135
    assert not by_id["sum"].kept  # answerable without its passage
    for v in verdicts:
        assert [a.member for a in v.answers] == ["a", "b"] and all(a.steps for a in v.answers)
    kept, report = tmp_path / "kept.jsonl", tmp_path / "report.jsonl"
    write_curation(items, verdicts, kept, report)
    kept_ids = [json.loads(x)["id"] for x in kept.read_text().splitlines()]
    assert (
        kept_ids == [v.id for v in verdicts if v.kept] and json.loads(kept.read_text().splitlines()[0]) == QUESTIONS[0]
    )
    lines = [json.loads(x) for x in report.read_text().splitlines()]
    assert [x["id"] for x in lines] == ["code", "sum", "capital"] and len(lines[1]["answers"]) == 2


def test_bad_requests_are_one_line_errors(bench, capsys):
    assert main(["curate", str(bench), "--drop", "image"]) == 2
    assert "no field 'image'" in capsys.readouterr().err
    assert main(["curate", str(bench), "--drop", "passage", "--quorum", "3"]) == 2
    assert "--quorum" in capsys.readouterr().err
    assert main(["curate", str(bench), "--drop", "passage", "--member", "a="]) == 2
    assert "NAME=" in capsys.readouterr().err
    with pytest.raises(ValueError, match="quorum"):
        curate(read_benchmark(bench, "passage"), {"a": None}, quorum=0, drop="passage")
