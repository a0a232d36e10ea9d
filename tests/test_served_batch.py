"""One request per step: a served judge sends a step's requests as one completions request where the
server renders its chat template, and reads the answers exactly as chat answers.

The server here is a real loopback HTTP server that renders a ChatML template (``POST
/apply-template``, as llama.cpp's llama-server does) and answers completions and chats from the same
rule, so the two paths must give the same scores. The same path against the real llama.cpp server is
in tests/test_served_models.py."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from loopback import JSONHandler, Loopback

from accord.adapters.served import Endpoint, Recorder, ServedJudges, ServedVLMJudges
from accord.adapters.served import _templates as templates
from accord.protocols import StepContext

CTX = StepContext("What is 2 + 3?", ("2 + 3 = 5",))
CANDIDATES = ["5 - 1 = 4", "5 - 1 = 7", "I like the sea."]


def chatml(messages: list[dict], upper: bool = False) -> str:
    text = "".join(
        f"<|im_start|>{m['role']}\n{m['content'].upper() if upper and m['role'] == 'user' else m['content']}"
        "<|im_end|>\n"
        for m in messages
    )
    return text + "<|im_start|>assistant\n"


def p_yes(prompt: str) -> float:
    """The rule both endpoints answer by: a fixed probability from the prompt's text."""
    return 0.15 + 0.7 * (sum(map(ord, prompt)) % 97) / 96


def top(prompt: str) -> list[dict]:
    p = p_yes(prompt)
    return [{"token": "Yes", "logprob": math.log(p)}, {"token": "No", "logprob": math.log(1 - p)}]


class TemplatedServer(Loopback):
    """A loopback server with llama-server's template, completions and chat endpoints.

    ``completions``: "list" answers every prompt of a list, "one" answers only the first (a server
    that takes one prompt), "missing" has no completions endpoint; ``template``: "chatml", "upper"
    (changes the user's text) or None (no template endpoint)."""

    def __init__(self, completions: str = "list", template: str | None = "chatml"):
        self.paths: list[str] = []
        self.prompts: list[list[str]] = []
        outer = self

        class Handler(JSONHandler):
            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                outer.paths.append(self.path)
                if self.path == "/apply-template" and template:
                    return self.answer(200, {"prompt": chatml(body["messages"], upper=template == "upper")})
                if self.path == "/v1/chat/completions":
                    prompt = chatml(body["messages"], upper=template == "upper")
                    return self.answer(
                        200,
                        {
                            "id": "c",
                            "object": "chat.completion",
                            "created": 0,
                            "model": "m",
                            "choices": [
                                {
                                    "index": 0,
                                    "finish_reason": "stop",
                                    "message": {"role": "assistant", "content": "Yes"},
                                    "logprobs": {
                                        "content": [
                                            {
                                                "token": "Yes",
                                                "logprob": top(prompt)[0]["logprob"],
                                                "top_logprobs": top(prompt),
                                            }
                                        ]
                                    },
                                }
                            ],
                            "usage": {
                                "prompt_tokens": len(prompt),
                                "completion_tokens": 1,
                                "total_tokens": len(prompt) + 1,
                            },
                        },
                    )
                if self.path == "/v1/completions" and completions != "missing":
                    prompts = body["prompt"] if isinstance(body["prompt"], list) else [body["prompt"]]
                    outer.prompts.append(prompts)
                    if completions == "one":
                        prompts = prompts[:1]
                    assert body["logprobs"] in (20, 200) and "top_logprobs" not in body  # 200: the local prompt
                    return self.answer(
                        200,
                        {
                            "id": "x",
                            "object": "text_completion",
                            "created": 0,
                            "model": "m",
                            "choices": [
                                {
                                    "index": i,
                                    "finish_reason": "stop",
                                    "text": "Yes",
                                    "logprobs": {
                                        "tokens": ["Yes"],
                                        "token_logprobs": [top(p)[0]["logprob"]],
                                        "top_logprobs": [{t["token"]: t["logprob"] for t in top(p)}],
                                    },
                                }
                                for i, p in enumerate(prompts)
                            ],
                            "usage": {
                                "prompt_tokens": sum(map(len, prompts)),
                                "completion_tokens": len(prompts),
                                "total_tokens": 0,
                            },
                        },
                    )
                return self.answer(404, {"error": "not found"})

            def do_GET(self):
                self.answer(404, {"error": "not found"})

        super().__init__(Handler)

    def close(self):
        super().close()
        templates.forget_templates(self.base_url)


@pytest.fixture
def server(request):
    s = TemplatedServer(**getattr(request, "param", {}))
    yield s
    s.close()


def scores(judge, ctx=CTX, candidates=CANDIDATES):
    with Recorder() as rec:
        out = [[s.value for s in col] for col in judge.score_many(ctx, candidates)]
    return out, rec


def test_a_steps_requests_go_out_as_one_request_with_the_servers_own_prompts(server):
    judge = ServedJudges(Endpoint(server.base_url, "m", cache=False), ("logic", "relevance"), prompt="question")
    got, rec = scores(judge)
    assert len(server.prompts) == 1 and len(server.prompts[0]) == 6  # 3 candidates x 2 roles, one request
    expected = [chatml(judge.messages(role, CTX, c)) for c in CANDIDATES for role in ("logic", "relevance")]
    assert server.prompts[0] == expected  # the template's text, each candidate's roles next to each other
    assert rec.tally.requests == 1 and rec.tally.score_modes == {"logprobs": 6}
    chat, _ = scores(ServedJudges(Endpoint(server.base_url, "m", cache=False), ("logic", "relevance"), batch=False))
    np.testing.assert_allclose(got, chat, atol=1e-12)
    assert got[0] == pytest.approx([p_yes(expected[0]), p_yes(expected[2]), p_yes(expected[4])])


def test_the_template_is_learnt_once_per_server_and_system_message(server):
    judge = ServedJudges(Endpoint(server.base_url, "m", cache=False), ("logic",))
    scores(judge)
    scores(judge, StepContext("What is 7 * 6?", ()), ["42", "43"])
    assert server.paths.count("/apply-template") == 2  # the marked shape and one real rendering to check it
    assert server.paths.count("/v1/completions") == 2 and "/v1/chat/completions" not in server.paths


@pytest.mark.parametrize("server", [{"template": "upper"}], indirect=True)
def test_a_template_that_changes_the_text_is_asked_for_each_prompt(server):
    judge = ServedJudges(Endpoint(server.base_url, "m", cache=False), ("logic",), prompt="question")
    got, _ = scores(judge)
    assert server.prompts[0] == [chatml(judge.messages("logic", CTX, c), upper=True) for c in CANDIDATES]
    chat, _ = scores(ServedJudges(Endpoint(server.base_url, "m", cache=False), ("logic",), batch=False))
    np.testing.assert_allclose(got, chat, atol=1e-12)


@pytest.mark.parametrize(
    "server", [{"template": None}, {"completions": "missing"}, {"completions": "one"}], indirect=True
)
def test_a_server_that_cannot_take_a_list_of_prompts_gets_chat_requests(server):
    judge = ServedJudges(Endpoint(server.base_url, "m", cache=False), ("logic",))
    records = []
    with Recorder(records.append) as rec:
        got = [[s.value for s in col] for col in judge.score_many(CTX, CANDIDATES)]
    assert server.paths.count("/v1/chat/completions") == 3 and rec.tally.requests == 3
    assert got[0] == pytest.approx([p_yes(chatml(judge.messages("logic", CTX, c))) for c in CANDIDATES])
    # the default prompt (auto) could not be the local one: every call says so, and so do the sums
    assert {r["prompt"] for r in records} == {"question"}
    assert all("renders no chat template" in r["prompt_fallback"] for r in records)
    assert rec.tally.prompts == {"question": 3} and sum(rec.tally.prompt_fallbacks.values()) == 3


def test_by_default_a_templated_server_gets_the_local_prompt_in_one_request_per_step(server):
    auto = ServedJudges(Endpoint(server.base_url, "m", cache=False), ("logic", "relevance"))
    records = []
    with Recorder(records.append) as rec:
        got = [[s.value for s in col] for col in auto.score_many(CTX, CANDIDATES)]
    local, _ = scores(ServedJudges(Endpoint(server.base_url, "m", cache=False), ("logic", "relevance"), prompt="local"))
    assert got == local and rec.tally.requests == 1 and "/v1/chat/completions" not in server.paths
    assert server.prompts[0][0].endswith("LOGICAL VALIDITY:")  # the in-process judge's prompt
    assert rec.tally.prompts == {"local": 6} and rec.tally.prompt_fallbacks == {}
    assert all(r["prompt"] == "local" and "prompt_fallback" not in r for r in records)
    assert auto.describe()["prompt"] == "auto"


@pytest.mark.parametrize(
    "kind, role, options, why",
    [(ServedJudges, "logic", {"batch": False}, "batch: false"), (ServedVLMJudges, "visual", {}, "images")],
)
def test_judges_that_must_send_chats_record_why_the_local_prompt_was_not_used(server, kind, role, options, why):
    judge = kind(Endpoint(server.base_url, "m", cache=False), (role,), **options)
    records = []
    with Recorder(records.append) as rec:
        judge.score_many(StepContext("What is 2 + 3?", ()), CANDIDATES[:1])
    assert "/apply-template" not in server.paths and rec.tally.prompts == {"question": 1}
    assert why in records[0]["prompt_fallback"]


def test_answers_sent_together_are_cached_one_by_one_and_read_by_either_path(server, tmp_path):
    endpoint = Endpoint(server.base_url, "m", cache=str(tmp_path / "calls.sqlite"))
    first, _ = scores(ServedJudges(endpoint, ("logic",), prompt="question"), candidates=CANDIDATES[:2])
    # two answers cached, the third asked alone
    again, rec = scores(ServedJudges(endpoint, ("logic",), prompt="question"))
    assert again[0][:2] == first[0] and server.prompts[-1] == [
        chatml(ServedJudges(endpoint, ("logic",)).messages("logic", CTX, CANDIDATES[2]))
    ]
    assert rec.tally.cached == 2 and rec.tally.requests == 1
    chats, rec = scores(ServedJudges(endpoint, ("logic",), batch=False))
    assert chats == again and rec.tally.cached == 3 and "/v1/chat/completions" not in server.paths


def test_calls_sent_together_are_recorded_each_with_the_request_they_rode_in(server):
    records = []
    judge = ServedJudges(Endpoint(server.base_url, "m", cache=False), ("logic",))
    with Recorder(records.append):
        judge.score_many(CTX, CANDIDATES)
    assert [r["batched"] for r in records] == [3, 3, 3]
    assert [r["attempts"] for r in records] == [1, 0, 0]  # the request is counted once, on its first call
    assert records[0]["prompt_tokens"] > 0 and records[1]["prompt_tokens"] == 0


def test_a_vlm_judge_and_batch_false_always_send_chats(server):
    judge = ServedJudges(Endpoint(server.base_url, "m", cache=False), ("logic",), batch=False)
    scores(judge)
    assert "/apply-template" not in server.paths and server.paths.count("/v1/chat/completions") == 3
    assert ServedVLMJudges(Endpoint(server.base_url, "m"), ("visual",)).batch is False


@pytest.mark.parametrize("bad", [True, "yes", 1, None])
def test_batch_takes_auto_or_false(bad):
    with pytest.raises(ValueError, match="batch must be 'auto'"):
        ServedJudges(Endpoint("http://127.0.0.1:9/v1", "m"), ("logic",), batch=bad)


def test_the_local_prompt_is_the_chat_without_its_closing_and_the_role_label_opening_the_reply(server):
    judge = ServedJudges(Endpoint(server.base_url, "m", cache=False), ("logic", "relevance"), prompt="local")
    got, rec = scores(judge)
    expected = [
        chatml(judge.local_request(role, CTX, c)[0]) + label
        for c in CANDIDATES
        for role, label in (("logic", "LOGICAL VALIDITY:"), ("relevance", "RELEVANCE:"))
    ]
    assert server.prompts == [expected] and rec.tally.requests == 1
    assert got[0] == pytest.approx([p_yes(expected[0]), p_yes(expected[2]), p_yes(expected[4])])
    assert judge.describe()["prompt"] == "local"


@pytest.mark.parametrize("server", [{"template": None}], indirect=True)
def test_the_local_prompt_on_a_server_without_a_template_is_a_null_score_with_the_reason(server):
    judge = ServedJudges(Endpoint(server.base_url, "m", cache=False), ("logic",), prompt="local")
    with Recorder() as rec:
        (column,) = judge.score_many(CTX, CANDIDATES)
    assert all(s.value is None and "needs a server that renders its chat template" in s.reason for s in column)
    assert "/v1/chat/completions" not in server.paths and rec.tally.failed == 3


@pytest.mark.parametrize(
    "options, message",
    [({"prompt": "other"}, "prompt must be one of"), ({"prompt": "local", "batch": False}, "needs batch: auto")],
)
def test_bad_prompt_options_are_errors(options, message):
    with pytest.raises(ValueError, match=message):
        ServedJudges(Endpoint("http://127.0.0.1:9/v1", "m"), ("logic",), **options)
