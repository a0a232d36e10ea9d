"""Served models without a model server: retries, failures as null scores, reading scores, the
call cache, the VLM request, configuration errors. The server here is a real loopback HTTP server
that answers with scripted status codes and chat-completion bodies."""

from __future__ import annotations

import base64
import io
import json
import re
import threading

import numpy as np
import pytest
from llama_server import free_port
from loopback import JSONHandler, Loopback

from accord.adapters.served import UNAVAILABLE, Endpoint, Recorder, ServedGenerator, ServedJudges, ServedVLMJudges
from accord.adapters.served._generator import request_seed
from accord.adapters.served._judges import score_from_logprobs, score_from_text
from accord.cli.main import main
from accord.errors import UserError
from accord.protocols import StepContext
from accord.verify.loop import build_panel
from accord.verify.run import resolve


def completion(answer: str = "yes", p_yes: float = 0.8) -> dict:
    top = [
        {"token": "yes", "logprob": float(np.log(p_yes)), "bytes": None},
        {"token": "No", "logprob": float(np.log(1 - p_yes)), "bytes": None},
    ]
    chosen = top[0] if answer.lower().startswith("yes") else top[1]
    return {
        "id": "x",
        "object": "chat.completion",
        "created": 0,
        "model": "m",
        "choices": [
            {
                "index": 0,
                "finish_reason": "stop",
                "message": {"role": "assistant", "content": answer},
                "logprobs": {"content": [{**chosen, "top_logprobs": top}]},
            }
        ],
        "usage": {"prompt_tokens": 11, "completion_tokens": 1, "total_tokens": 12},
    }


class Scripted(Loopback):
    """A loopback HTTP server: each chat request gets the next (status, body) of the script, then the
    last one; other POSTs (a template, completions) are not found. With ``hold`` a request is answered
    once ``hold`` requests are in flight at once (at most ``hold_s`` later): the concurrency a client
    reaches shows on any machine, however slow, and no more than a client allows ever shows."""

    def __init__(self, script, hold: int = 0, props: dict | None = None, hold_s: float = 10.0):
        self.script = list(script)
        self.gets: list[str] = []
        self.requests: list[dict] = []
        self.in_flight = self.most_in_flight = 0
        self.rounds = 0  # times ``hold`` requests were in flight at once: each time, those held go
        changed = threading.Condition()
        outer = self

        class Handler(JSONHandler):
            def do_GET(self):  # llama-server's /props, where the script has one
                outer.gets.append(self.path)
                found = props is not None and self.path == "/props"
                self.answer(200 if found else 404, props if found else {"error": "not found"})

            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                if not self.path.endswith("/chat/completions"):  # a chat-only server: no template, no completions
                    return self.answer(404, {"error": "not found"})
                with changed:
                    outer.requests.append({"body": body, "auth": self.headers.get("Authorization")})
                    status, payload = outer.script[min(len(outer.requests), len(outer.script)) - 1]
                    outer.in_flight += 1
                    outer.most_in_flight = max(outer.most_in_flight, outer.in_flight)
                    mine = outer.rounds
                    if outer.in_flight >= hold:
                        outer.rounds += 1
                        changed.notify_all()
                    changed.wait_for(lambda: outer.rounds > mine, timeout=hold_s)
                    outer.in_flight -= 1
                self.answer(status, payload, {"Retry-After": "0"} if status == 429 else None)

        super().__init__(Handler)


CTX = StepContext("What is 2 + 3?", ("2 + 3 = 5",))


@pytest.mark.parametrize("status", [429, 503])
def test_a_refused_request_is_retried_and_then_scored(status, tmp_path):
    server = Scripted([(status, {"error": {"message": "busy"}}), (200, completion("yes", 0.8))])
    try:
        judge = ServedJudges(
            Endpoint(server.base_url, "m", max_retries=2, cache=str(tmp_path / "c.sqlite")), ("logic",)
        )
        with Recorder() as rec:
            [[score]] = judge.score_many(CTX, ["The answer is 5."])
    finally:
        server.close()
    assert len(server.requests) == 2
    assert score.value == pytest.approx(0.8)
    assert rec.tally.requests == 1 and rec.tally.attempts == 2 and rec.tally.score_modes == {"logprobs": 1}
    body = server.requests[0]["body"]
    assert body["logprobs"] is True and body["top_logprobs"] == 20 and body["model"] == "m"
    assert "LOGICAL VALIDITY" in body["messages"][-1]["content"]


def test_a_call_that_keeps_failing_is_a_null_score_with_its_reason(tmp_path):
    server = Scripted([(500, {"error": {"message": "broken"}})])
    dead = f"http://127.0.0.1:{free_port()}/v1"  # nothing listens there
    try:
        failing = ServedJudges(Endpoint(server.base_url, "m", max_retries=1, cache=False), ("logic", "relevance"))
        unreachable = ServedJudges(Endpoint(dead, "m", max_retries=0, timeout_s=5, cache=False), ("logic",))
        with Recorder() as rec:
            scores = failing.score_many(CTX, ["a", "b"])
            [[gone]] = unreachable.score_many(CTX, ["a"])
    finally:
        server.close()
    assert len(server.requests) == 8  # 2 roles x 2 candidates, each tried twice
    flat = [s for col in scores for s in col]
    assert all(s.value is None and s.reason.startswith(UNAVAILABLE) and "500" in s.reason for s in flat)
    assert gone.value is None and gone.reason.startswith(UNAVAILABLE) and "Connection" in gone.reason
    assert rec.tally.failed == 5


def test_requests_in_flight_to_an_endpoint_are_bounded():
    server = Scripted([(200, completion())], hold=2)
    try:
        judge = ServedJudges(
            Endpoint(server.base_url, "m", max_concurrency=2, cache=False), ("grounding", "logic", "relevance")
        )
        judge.score_many(CTX, ["a", "b"])  # 6 requests
    finally:
        server.close()
    assert len(server.requests) == 6 and server.most_in_flight == 2


@pytest.mark.parametrize("props, expected", [({"total_slots": 2}, 2), ({"total_slots": 6}, 6), (None, 4)])
def test_by_default_requests_in_flight_follow_the_servers_slot_count(props, expected):
    server = Scripted([(200, completion())], hold=expected, props=props)
    try:
        judge = ServedJudges(Endpoint(server.base_url, "m", cache=False), ("grounding", "logic", "relevance"))
        judge.score_many(CTX, ["a", "b", "c", "d"])  # 12 requests: whole rounds of 2, 4 or 6 at once
        judge.score_many(CTX, ["e", "f", "g", "h"])
    finally:
        server.close()
    assert len(server.requests) == 24 and server.most_in_flight == expected
    assert server.gets.count("/props") == 1  # asked once per endpoint


def test_a_candidates_roles_go_out_next_to_each_other():
    server = Scripted([(200, completion())])
    try:
        judge = ServedJudges(
            Endpoint(server.base_url, "m", max_concurrency=1, cache=False), ("grounding", "logic", "relevance")
        )
        judge.score_many(CTX, ["first candidate", "second candidate"])
    finally:
        server.close()
    users = [r["body"]["messages"][-1]["content"] for r in server.requests]
    assert ["first candidate" in u for u in users] == [True] * 3 + [False] * 3  # the shared prefix, back to back


def test_answers_come_from_the_cache_the_second_time(tmp_path):
    server = Scripted([(200, completion("no", 0.3))])
    cache = str(tmp_path / "calls.sqlite")
    try:
        first = ServedJudges(Endpoint(server.base_url, "m", cache=cache), ("logic",)).score_many(CTX, ["x", "y"])
        with Recorder() as rec:
            again = ServedJudges(Endpoint(server.base_url, "m", cache=cache), ("logic",)).score_many(CTX, ["x", "y"])
    finally:
        server.close()
    assert len(server.requests) == 2 and rec.tally.requests == 0 and rec.tally.cached == 2
    assert [s.value for s in again[0]] == [s.value for s in first[0]] == [pytest.approx(0.3)] * 2


def test_the_key_is_read_from_the_named_variable_and_sent_only_to_the_server(tmp_path, monkeypatch):
    server = Scripted([(200, completion())])
    monkeypatch.setenv("ACCORD_TEST_KEY", "sk-test-secret-123")
    try:
        judge = ServedJudges(
            Endpoint(server.base_url, "m", api_key_env="ACCORD_TEST_KEY", cache=str(tmp_path / "c.sqlite")), ("logic",)
        )
        seen: list[dict] = []
        with Recorder(seen.append):
            judge.score_many(CTX, ["x"])
    finally:
        server.close()
    assert server.requests[0]["auth"] == "Bearer sk-test-secret-123"
    assert "sk-test-secret" not in json.dumps(seen) + json.dumps(judge.describe())
    assert b"sk-test-secret" not in (tmp_path / "c.sqlite").read_bytes()
    monkeypatch.delenv("ACCORD_TEST_KEY")
    with pytest.raises(ValueError, match="ACCORD_TEST_KEY .* is not set"):
        ServedJudges(Endpoint(server.base_url, "m", api_key_env="ACCORD_TEST_KEY"), ("logic",))


def test_scores_are_read_from_logprobs_else_parsed_from_the_text():
    top = lambda pairs: [{"token": t, "logprob": float(np.log(p))} for t, p in pairs]  # noqa: E731
    # the first position ranking an answer is read, after a preamble; variants are summed
    content = [
        {"token": "LOG", "logprob": -1, "top_logprobs": top([("LOG", 0.9)])},
        {
            "token": " Yes",
            "logprob": float(np.log(0.5)),
            "top_logprobs": top([(" Yes", 0.5), ("yes", 0.1), (" no", 0.2)]),
        },
    ]
    assert score_from_logprobs(content, "yes_no") == pytest.approx(0.6 / 0.8)
    # a reply opening with "The step is ..." is read where it ranked Yes and No, not where it chose them
    preamble = [
        {"token": "The", "logprob": float(np.log(0.6)), "top_logprobs": top([("The", 0.6), ("Yes", 0.1), ("No", 0.3)])},
        {"token": " step", "logprob": -0.1, "top_logprobs": top([(" step", 0.9)])},
        {"token": " yes", "logprob": -0.1, "top_logprobs": top([(" yes", 0.9)])},
    ]
    assert score_from_logprobs(preamble, "yes_no") == pytest.approx(0.25)
    digits = [{"token": "7", "logprob": float(np.log(0.5)), "top_logprobs": top([("7", 0.5), ("3", 0.5)])}]
    assert score_from_logprobs(digits, "digits") == pytest.approx(5 / 9)
    assert score_from_logprobs([{"token": "Maybe", "logprob": 0, "top_logprobs": []}], "yes_no") is None
    assert score_from_text("LOGICAL VALIDITY: No.", "yes_no") == 0.0
    assert score_from_text("I would say 8/10", "yes_no") == 0.8
    assert score_from_text("Grade: 6", "digits") == pytest.approx(6 / 9)
    assert score_from_text("I cannot tell", "yes_no") is None


def test_a_reply_without_logprobs_is_parsed_and_the_mode_recorded(tmp_path):
    body = completion("No, it is wrong.")
    del body["choices"][0]["logprobs"]
    server = Scripted([(200, body)])
    try:
        seen: list[dict] = []
        with Recorder(seen.append):
            [[score]] = ServedJudges(Endpoint(server.base_url, "m", cache=False), ("logic",)).score_many(CTX, ["x"])
    finally:
        server.close()
    assert score.value == 0.0 and seen[0]["score_mode"] == "parsed" and seen[0]["label"] == "llm_logic"


def test_the_vlm_judge_sends_the_images_as_data_urls():
    from PIL import Image

    img = Image.fromarray(np.arange(48, dtype=np.uint8).reshape(4, 4, 3) * 5)
    ctx = StepContext("How many squares?", (), attachments=(img,))
    judge = ServedVLMJudges(Endpoint("http://127.0.0.1:1/v1", "qwen2.5-vl", cache=False), ("visual",))
    system, user = judge.messages("visual", ctx, "There are 4 squares.")
    assert system["role"] == "system" and "image" in system["content"]
    image, text = user["content"]
    url = image["image_url"]["url"]
    assert image["type"] == "image_url" and url.startswith("data:image/png;base64,")
    back = Image.open(io.BytesIO(base64.b64decode(url.split(",", 1)[1])))
    assert np.array_equal(np.asarray(back), np.asarray(img))
    assert "VISUAL GROUNDING" in text["text"] and "There are 4 squares." in text["text"]


@pytest.mark.parametrize(
    "generator, message",
    [
        ({"base_url": "http://127.0.0.1:1/v1", "model": "m", "nope": 1}, "unknown served generator key(s) ['nope']"),
        ({"base_url": "ftp://x", "model": "m"}, "base_url must be an http(s) URL"),
        ({"nope": 1}, "unknown config key 'generator.nope'"),
    ],
)
def test_bad_served_generator_entries_are_config_errors(generator, message):
    with pytest.raises(UserError, match=re.escape(message)):
        resolve({"generator": generator})


@pytest.mark.parametrize(
    "judge, message",
    [
        ({"base_url": "http://127.0.0.1:1/v1"}, "judges[0]: served judge: a served model needs a 'model'"),
        ({"base_url": "http://127.0.0.1:1/v1", "model": "m", "max_retries": -1}, "max_retries must be an integer >= 0"),
        (
            {"base_url": "http://127.0.0.1:1/v1", "model": "m", "device": "cuda"},
            "llm judge takes no option(s) ['device']",
        ),
        ({"base_url": "http://127.0.0.1:1/v1", "model": "m", "batch": "yes"}, "batch must be 'auto'"),
        ({"batch": False}, "llm judge takes no option(s) ['batch'] without a 'base_url'"),
    ],
)
def test_bad_served_judge_entries_are_errors_naming_the_entry(judge, message):
    with pytest.raises(ValueError, match=re.escape(message)):
        build_panel([{"type": "llm", "role": "logic", **judge}, {"type": "arithmetic"}])


def test_the_generator_falls_back_to_one_seeded_request_per_candidate_when_n_is_ignored(tmp_path):
    server = Scripted([(200, completion("12 + 7 = 19\nmore"))])  # one choice, whatever n asked for
    try:
        gen = ServedGenerator(Endpoint(server.base_url, "m", cache=str(tmp_path / "c.sqlite")), max_new_tokens=8)
        assert not gen.seeded_by_row  # not known yet: n is tried first
        first = gen.propose(StepContext("What is 12 + 7?"), 3, seed=5)
        assert gen.seeded_by_row and first == ["12 + 7 = 19"] * 3
        more = gen.propose(StepContext("What is 12 + 7?", ("12 + 7 = 19",)), 2, seed=5, first=1)
    finally:
        server.close()
    bodies = [r["body"] for r in server.requests]
    assert bodies[0]["n"] == 3 and all("n" not in b for b in bodies[1:])
    assert sorted(b["seed"] for b in bodies[1:4]) == sorted(request_seed(5, i) for i in range(3))  # any order
    assert sorted(b["seed"] for b in bodies[4:]) == sorted(
        [request_seed(5, 1), request_seed(5, 2)]
    )  # rows 1, 2 of the same seed
    assert bodies[1]["stop"] == ["\n"] and bodies[1]["max_tokens"] == 8 and bodies[1]["temperature"] == 0.8
    last = bodies[-1]["messages"]
    assert last[-2] == {"role": "assistant", "content": "12 + 7 = 19\n"} and last[-1]["role"] == "user"
    assert more == ["12 + 7 = 19"] * 2 and gen.last_stats["per_candidate"] == [1, 1]


def test_jury_collect_records_a_failed_member_and_asks_again_on_the_next_run(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("ACCORD_CACHE_DIR", str(tmp_path / "cache"))
    questions = tmp_path / "q.jsonl"
    questions.write_text('{"id": "q1", "question": "What is 12 + 7?", "answer": 19}\n{"question": "What is 3 + 4?"}\n')
    server = Scripted([(200, completion("12 + 7 = 19\nThe answer is 19."))])
    out = tmp_path / "panel.jsonl"
    dead = f"http://127.0.0.1:{free_port()}/v1"
    argv = [
        "jury",
        "collect",
        str(questions),
        "--member",
        f"a={server.base_url},m",
        "--max-retries",
        "0",
        "--out",
        str(out),
        "--json",
    ]
    try:
        assert main([*argv, "--member", f"b={dead},m"]) == 1
        first = json.loads(capsys.readouterr().out)
        lines = {x["id"]: x for x in map(json.loads, out.read_text().splitlines())}
        assert first["asked"] == 2 and first["failed_answers"] == 2 and set(lines) == {"q1", "2"}
        assert lines["q1"]["answers"] == {"a": "19", "b": None} and lines["q1"]["reference"] == "19"
        assert lines["q1"]["failures"]["b"].startswith(UNAVAILABLE) and "reference" not in lines["2"]
        assert main([*argv, "--member", f"b={server.base_url.replace('127.0.0.1', 'localhost')},m"]) == 0  # b is back
        second = json.loads(capsys.readouterr().out)
    finally:
        server.close()
    assert second["kept"] == 0 and second["asked"] == 2
    assert second["calls"]["cached"] == 2 and second["calls"]["requests"] == 2  # a's answers were paid for once
    lines = [json.loads(x) for x in out.read_text().splitlines()]
    assert len(lines) == 2 and all(x["answers"] == {"a": "19", "b": "19"} and "failures" not in x for x in lines)
    assert main(["jury", "collect", str(questions), "--member", "a=nope", "--out", str(out)]) == 2
    assert "expected NAME=BASE_URL,MODEL" in capsys.readouterr().err


@pytest.mark.parametrize(
    "reuse",
    [
        {"timings": {"cache_n": 7, "prompt_n": 4}},
        {"usage": {"prompt_tokens": 11, "completion_tokens": 1, "prompt_tokens_details": {"cached_tokens": 7}}},
    ],
)
def test_prompt_tokens_the_server_took_from_its_cache_are_recorded(reuse):
    server = Scripted([(200, {**completion(), **reuse})])
    try:
        with Recorder() as rec:
            ServedJudges(Endpoint(server.base_url, "m", max_concurrency=1, cache=False), ("logic",)).score_many(
                CTX, ["a", "b"]
            )
    finally:
        server.close()
    assert rec.tally.requests == 2 and rec.tally.prompt_cached_tokens == 14 and rec.tally.prompt_tokens == 22


def test_a_reply_that_ranks_no_answer_at_its_first_token_is_asked_again_for_more_tokens(tmp_path):
    opening = completion("yes", 0.8)
    opening["choices"][0]["message"]["content"] = "The"
    opening["choices"][0]["logprobs"] = {
        "content": [
            {
                "token": "The",
                "logprob": -0.1,
                "top_logprobs": [{"token": "The", "logprob": -0.1}, {"token": "A", "logprob": -2.5}],
            }
        ]
    }
    server = Scripted([(200, opening), (200, completion("yes", 0.7))])
    try:
        judge = ServedJudges(Endpoint(server.base_url, "m", cache=False), ("logic",))
        records = []
        with Recorder(records.append) as rec:
            ((score,),) = judge.score_many(CTX, ["5 - 1 = 4"])
        assert score.value == pytest.approx(0.7)
        assert [r["body"]["max_tokens"] for r in server.requests] == [1, 8]
        assert rec.tally.requests == 2 and [r.get("read_further") for r in records] == [True, None]
        short = ServedJudges(Endpoint(server.base_url, "m", cache=False), ("logic",), max_tokens=1)
        server.script = [(200, opening)]
        ((score,),) = short.score_many(CTX, ["5 - 1 = 4"])
        assert score.value is None and "no verdict" in score.reason and len(server.requests) == 3
    finally:
        server.close()


def test_a_served_judge_entry_chooses_one_request_per_step_or_chats():
    entry = {"type": "llm", "role": "logic", "base_url": "http://127.0.0.1:1/v1", "model": "m"}
    (default, _), (chats, _) = (
        build_panel([{**entry, **extra}, {"type": "arithmetic"}]).groups for extra in ({}, {"batch": False})
    )
    assert default.batch is True and chats.batch is False
    assert default.describe()["batch"] == "auto" and chats.describe()["batch"] is False
