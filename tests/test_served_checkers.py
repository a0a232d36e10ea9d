"""The served code-check and critic judges: the real llama.cpp server (SmolLM2) end to end through
``accord verify``, and whatever a model writes — no program, a program that raises, loops, prints
no verdict, or tries to leave the sandbox — is a score or a null with the reason, never a crash."""

from __future__ import annotations

import json

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from accord.adapters import build_judges, parse_judge
from accord.adapters.served._checkers import CodeCheckJudge, CriticJudge, program_of, step_index
from accord.adapters.served._client import Endpoint
from accord.cli.main import main
from accord.protocols import StepContext

CTX = StepContext("How many 3-person committees can be chosen from 7 people?", ("Order does not matter.",))
DEAD = Endpoint("http://127.0.0.1:9/v1", "smollm2", max_retries=0, timeout_s=2)


def fenced(src: str) -> str:
    return f"Here is the check:\n```python\n{src}\n```\n"


@pytest.fixture(scope="module")
def checker():
    return CodeCheckJudge(DEAD, wall_s=2.0)


@pytest.mark.parametrize(
    "reply, value, words",
    [
        (fenced("from math import comb\nprint('PASS' if comb(7, 3) == 35 else 'FAIL')"), 1.0, "printed PASS"),
        (fenced("print('PASS' if 210 // 6 == 36 else 'FAIL')"), 0.0, "printed FAIL"),
        ("The step is right.", None, "no program in the reply"),
        (fenced("raise ValueError('boom')"), None, "did not run"),
        (fenced("while True:\n    pass"), None, "did not run"),
        (fenced("print(35)"), None, "printed no PASS or FAIL"),
        (fenced("import sympy\nprint('PASS')"), None, "did not run"),
        (fenced("print(open('/etc/shadow').read())\nprint('PASS')"), None, "did not run"),
        (
            fenced("import socket\nsocket.create_connection(('1.1.1.1', 80), timeout=1)\nprint('PASS')"),
            None,
            "did not run",
        ),
    ],
)
def test_the_sandbox_turns_any_program_into_a_score_or_a_null_with_the_reason(checker, reply, value, words):
    score = checker.judge(CTX, reply)
    assert score.value == value and words in score.reason
    if "```" in reply:
        assert "program:" in score.reason  # the program is the evidence


@pytest.mark.parametrize(
    "reply, k, value",
    [
        ("The earliest error is in paragraph 1. \\boxed{1}", 1, 0.0),
        ("All paragraphs are fine: \\boxed{-1}", 1, 1.0),
        ("\\boxed{0}", 1, None),  # an earlier step: this one is not judged by itself
        ("\\boxed{7}", 1, None),  # out of range
        ("I cannot tell.", 1, None),
    ],
)
def test_the_critic_reads_the_earliest_wrong_paragraph(reply, k, value):
    score = CriticJudge(DEAD).judge(StepContext("q", ("s",) * k), reply)
    assert score.value == value and score.reason


@settings(max_examples=40, deadline=None)
@given(st.text(max_size=300))
def test_any_reply_text_is_read_without_raising(text):
    program_of(text)
    idx = step_index(text)
    assert idx is None or isinstance(idx, int)
    score = CriticJudge(DEAD).judge(CTX, text)
    assert score.value in (None, 0.0, 1.0) and score.reason


def _build(entry: dict):
    return build_judges([parse_judge(entry, "judges[0]")])


def test_entries_are_checked():
    with pytest.raises(ValueError, match="base_url"):
        _build({"type": "critic", "model": "m"})
    with pytest.raises(ValueError, match="no option"):
        _build({"type": "code_check", "base_url": "http://x/v1", "model": "m", "role": "logic"})
    with pytest.raises(ValueError, match="wall_s"):
        _build({"type": "code_check", "base_url": "http://x/v1", "model": "m", "wall_s": 0})
    (built,) = _build({"type": "critic", "base_url": "http://x/v1", "model": "m", "lambda": 1.5})
    assert isinstance(built.judge, CriticJudge) and built.judge.name == "critic"


def test_an_unreachable_endpoint_is_a_null_with_the_reason():
    (score,) = CodeCheckJudge(DEAD).score(CTX, ["There are 35 committees."])
    assert score.value is None and "served call failed" in score.reason


@pytest.mark.slow
def test_accord_verify_with_served_code_check_and_critic_judges(llama_server, tmp_path, capsys):
    cfg = tmp_path / "panel.yaml"
    served = {"base_url": llama_server.base_url, "model": "smollm2", "cache": False}
    cfg.write_text(
        yaml.safe_dump(
            {
                "judges": [
                    {"type": "symbolic", "mode": "solution", "lambda": 1.5},
                    {"type": "code_check", "max_tokens": 160, "wall_s": 5, **served},
                    {"type": "critic", "max_tokens": 48, **served},
                ]
            }
        )
    )
    data, out = tmp_path / "sols.jsonl", tmp_path / "pred.jsonl"
    sols = [
        {
            "id": "committee",
            "problem": "How many 3-person committees can be chosen from 7 people?",
            "steps": [
                "There are $7 \\cdot 6 \\cdot 5 = 210$ ordered choices.",
                "Dividing by $3! = 6$ gives $210 / 6 = 36$ committees.",
            ],
            "label": 1,
        },
        {"id": "sum", "problem": "What is 2 + 3?", "steps": ["We have $2 + 3 = 5$."], "label": -1},
    ]
    data.write_text("".join(json.dumps(s) + "\n" for s in sols))
    rc = main(
        [
            "verify",
            str(data),
            "--config",
            str(cfg),
            "--out",
            str(out),
            "--json",
            "--bootstrap",
            "0",
            "--judge-timeout",
            "300",
        ]
    )
    doc = json.loads(capsys.readouterr().out)
    assert rc in (0, 1) and doc["judges"] == ["symbolic", "code_check", "critic"]
    recs = [json.loads(x) for x in out.read_text().splitlines()]
    assert [len(r["steps"]) for r in recs] == [2, 1]
    for r in recs:
        for step in r["steps"]:
            for j in ("code_check", "critic"):
                v, why = step["scores"][j], step["reasons"][j]
                assert (v is None or 0.0 <= v <= 1.0) and why  # a score, or a null with the reason
                assert j != "code_check" or "code check" in why
    assert recs[0]["steps"][1]["scores"]["symbolic"] == 0.0  # the math judge still finds 210/6 = 36
