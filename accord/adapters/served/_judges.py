"""LLM and VLM judges behind an OpenAI-compatible endpoint, in the local judges' roles and prompts.

Each (role, candidate) is one chat request. Where the server renders its chat template on request
(llama.cpp's ``llama-server``), a step's requests go out as one completions request holding all
their prompts (``batch: auto``, the default); elsewhere they go out together as chats (bounded per
endpoint). Either way a candidate's roles are next to each other: their prompts differ only in the
closing line, so a server's prompt cache computes their shared prefix once.

The score is P(yes) normalised over the yes/no variants (or, in ``digits`` mode, the expected digit
/ 9), read from ``top_logprobs`` at the answer position: each request asks for one token, the
next-token read the local judge makes; a reply whose first token ranks no answer is asked again for
up to ``max_tokens`` tokens and read at the first position that ranks one. A server that returns no
log-probabilities (or no answer among the top ones) is read from the reply's text instead: yes /
no, or a grade (0-9 in ``digits`` mode, 0-10 otherwise). Every call record says which
(``score_mode``: ``logprobs`` or ``parsed``); a reply with neither is a null score with the reason,
and so is a call that failed.

Which prompt: ``prompt: auto`` (the default) sends the local judge's own prompt (see
:meth:`ServedJudges.local_request`), which gives the in-process scores in one request per step, where
the server renders its chat template and answers a list of prompts; elsewhere it asks the check in
the user's turn as chats, and every such call record says why (``prompt_fallback``), as the summary
does. ``local`` and ``question`` force one or the other.
"""

from __future__ import annotations

import asyncio
import base64
import io
import math
import re
from collections.abc import Sequence
from typing import Any

from accord.adapters.local import (
    CLOSING,
    LLM_JUDGE_SYSTEM,
    LLM_ROLES,
    NO_VARIANTS,
    VLM_JUDGE_SYSTEM,
    VLM_ROLES,
    YES_VARIANTS,
    check_roles_and_mode,
    judge_body,
    judge_user_text,
    load_image,
    role_label,
)
from accord.adapters.served._client import Endpoint, Reply, ServedClient
from accord.adapters.served._runner import run
from accord.protocols import JudgeScore, StepContext

_YES = {v.strip().lower() for v in YES_VARIANTS}
_NO = {v.strip().lower() for v in NO_VARIANTS}
_DIGITS = {str(d) for d in range(10)}
# auto: the local prompt where the server allows, else the question; question: the check asked in the
# user's turn; local: the local judge's prompt, read after the role label
PROMPTS = ("auto", "question", "local")
LOCAL_ALTERNATIVES = (
    200  # log-probabilities asked per token with the local prompt: the answer variants beyond the top 20
)
NO_TEMPLATE = (
    "served judge: prompt 'local' needs a server that renders its chat template and answers a list of "
    "prompts (llama.cpp's llama-server); {url} does not"
)
FALLBACK = {  # why ``prompt: auto`` asked the question as chats
    "template": "the server renders no chat template or answers no list of prompts (llama.cpp's llama-server does)",
    "images": "images travel only in chat requests",
    "batch": "batch: false sends chats",
}
_WORD = re.compile(r"\b(yes|no)\b", re.IGNORECASE)
_GRADE = re.compile(r"(?<![\d.])(\d+(?:\.\d+)?)\s*(/\s*10\b)?")


def _token(text: str) -> str:
    return text.strip().strip(".,:;!*\"'").lower()


def score_from_logprobs(content: Sequence[dict[str, Any]], mode: str) -> float | None:
    """The score at the answer position of a reply's ``logprobs.content`` (None if it has none).

    The answer position is the first one at which a yes/no variant (a digit in ``digits`` mode) is
    the chosen token or among its ``top_logprobs``: a small model that opens with "The step is ..."
    still ranks Yes and No there, which is the choice the local judge reads. The variants' mass
    there, summed, normalised over the answers present, gives the score.
    """
    answers = _DIGITS if mode == "digits" else _YES | _NO
    for position in content:
        mass: dict[str, float] = {}
        seen = {position.get("token"): position.get("logprob")}
        for alt in position.get("top_logprobs") or []:
            seen.setdefault(alt.get("token"), alt.get("logprob"))
        for tok, lp in seen.items():
            t = _token(tok or "")
            if t in answers and lp is not None and math.isfinite(lp):
                mass[t] = mass.get(t, 0.0) + math.exp(lp)
        total = sum(mass.values())
        if total <= 0:
            continue
        if mode == "digits":
            return sum(int(d) * p for d, p in mass.items()) / total / 9.0
        return sum(p for t, p in mass.items() if t in _YES) / total
    return None


def score_from_text(text: str, mode: str) -> float | None:
    """A verdict parsed from the reply: yes -> 1, no -> 0, or a grade (0-9 in digits mode, else 0-10)."""
    if mode == "yes_no":
        m = _WORD.search(text)
        if m:
            return 1.0 if m.group(1).lower() == "yes" else 0.0
    for m in _GRADE.finditer(text):
        value = float(m.group(1))
        top = 10.0 if (m.group(2) or mode == "yes_no") else 9.0
        if 0 <= value <= top:
            return value / top
    return None


def read_score(reply: Reply, mode: str) -> tuple[JudgeScore, str | None]:
    """(score, how it was read: "logprobs", "parsed" or None) from one reply."""
    if reply.error is not None:
        return JudgeScore.failed(reply.error), None
    if not reply.choices:
        return JudgeScore.failed("served judge: the reply has no choices"), None
    choice = reply.choices[0]
    content = ((choice.get("logprobs") or {}).get("content")) or []
    value = score_from_logprobs(content, mode)
    if value is not None:
        return JudgeScore(min(1.0, max(0.0, value))), "logprobs"
    text = ((choice.get("message") or {}).get("content")) or ""
    value = score_from_text(text, mode)
    if value is not None:
        return JudgeScore(value), "parsed"
    return JudgeScore.failed(f"served judge answered {text[:80]!r}: no verdict in it"), None


class ServedJudges:
    """A served model judging in one or more roles (one panel column per role), LLM prompts."""

    roles_known: dict[str, str] = LLM_ROLES
    kind = "served LLM judge"
    default_prefix = "llm_"

    batchable = True  # text prompts: a step's requests can go out as one completions request

    def __init__(
        self,
        endpoint: Endpoint,
        roles: Sequence[str] = ("grounding", "logic", "relevance"),
        mode: str = "yes_no",
        names: Sequence[str] | None = None,
        max_tokens: int = 8,
        top_logprobs: int = 20,
        batch: bool | str = "auto",
        prompt: str = "auto",
    ):
        check_roles_and_mode(self.kind, roles, self.roles_known, mode)
        if isinstance(max_tokens, bool) or not isinstance(max_tokens, int) or max_tokens < 1:
            raise ValueError(f"max_tokens must be an integer >= 1, got {max_tokens!r}")
        if isinstance(top_logprobs, bool) or not isinstance(top_logprobs, int) or not 1 <= top_logprobs <= 20:
            raise ValueError(f"top_logprobs must be an integer in [1, 20], got {top_logprobs!r}")
        if not (batch == "auto" or batch is False):
            raise ValueError(
                f"batch must be 'auto' (one request per step where the server allows) or false, got {batch!r}"
            )
        self.batch = batch == "auto" and self.batchable
        if prompt not in PROMPTS:
            raise ValueError(f"prompt must be one of {PROMPTS}, got {prompt!r}")
        if prompt == "local" and not self.batch:
            raise ValueError("prompt 'local' is sent as text completions: it needs batch: auto (and text-only judges)")
        self.prompt = prompt
        self._local_worked = False  # auto: once the local prompt was answered, it stays (one scale per run)
        self.client = ServedClient(endpoint)
        self.roles = tuple(roles)
        self.mode = mode
        self.names = list(names) if names is not None else [f"{self.default_prefix}{r}" for r in roles]
        if len(self.names) != len(self.roles):
            raise ValueError(f"{len(self.names)} names given for {len(self.roles)} roles")
        # First the answer position only (one token: the next-token read the local judge makes, and no
        # decoding); a reply that ranks no answer there is asked again for up to max_tokens tokens.
        self.params = {"temperature": 0.0, "max_tokens": 1, "logprobs": True, "top_logprobs": top_logprobs, "seed": 0}
        self.max_tokens = max_tokens
        self.last_tokens = 0

    def messages(self, role: str, ctx: StepContext, candidate: str) -> list[dict[str, Any]]:
        """The chat request for one role and candidate: the local judge's system prompt and body,
        closed by the one check asked about."""
        closing = f"Answer for the check {role_label(role)} only. {CLOSING[self.mode]}"
        return [
            {"role": "system", "content": LLM_JUDGE_SYSTEM},
            {"role": "user", "content": f"{judge_body(self.mode, ctx, candidate)}\n\n{closing}"},
        ]

    def local_request(self, role: str, ctx: StepContext, candidate: str) -> tuple[list[dict[str, Any]], str]:
        """The local judge's prompt for one role and candidate: its chat (system prompt and body) and
        the assistant turn's opening, the role's label, after which the answer token is read."""
        return (
            [
                {"role": "system", "content": LLM_JUDGE_SYSTEM},
                {"role": "user", "content": judge_body(self.mode, ctx, candidate)},
            ],
            f"{role_label(role)}:",
        )

    def describe(self) -> dict[str, Any]:
        """How the scores are read (recorded in the run's trace header; no key)."""
        local = "top_logprobs of the token after the role's label in the assistant's turn"
        question = (
            "top_logprobs at the reply's first token (further, up to max_tokens, where none ranks an answer), "
            "else the parsed verdict"
        )
        read = {
            "local": local,
            "question": question,
            "auto": f"the local prompt where the server renders its chat template: {local}; elsewhere asked as "
            f"chats: {question}",
        }[self.prompt]
        return {
            "roles": dict(zip(self.names, self.roles)),
            "scoring": "served",
            "mode": self.mode,
            "read": read,
            "batch": "auto" if self.batch else False,
            "prompt": self.prompt,
            **self.client.endpoint.describe(),
        }

    def score_many(self, ctx: StepContext, candidates: Sequence[str]) -> list[list[JudgeScore]]:
        """Scores per role (outer) per candidate (inner); all requests of the step in flight together,
        each candidate's roles next to each other: their prompts differ only in the closing line, so a
        server with a prompt cache computes the shared part once."""
        jobs = [(k, name, role, c) for c in candidates for k, (name, role) in enumerate(zip(self.names, self.roles))]

        async def ask_all() -> tuple[list[Reply], str, str | None]:
            """The replies, the prompt they answered, and why the local prompt was not used (auto only)."""
            fallback = None
            if self.prompt == "auto" and not self.batch:
                fallback = FALLBACK["batch" if self.batchable else "images"]
            elif self.prompt != "question":
                local = [self.local_request(role, ctx, c) for _, _, role, c in jobs]
                wide = {**self.params, "top_logprobs": LOCAL_ALTERNATIVES}
                together = await self.client.chat_many([m for m, _ in local], wide, [o for _, o in local])
                if together is not None:
                    self._local_worked = True
                    return together, "local", None
                if self.prompt == "local" or self._local_worked:  # never two scales in one run
                    why = NO_TEMPLATE.format(url=self.client.endpoint.base_url)
                    return [Reply(None, error=why)] * len(jobs), "local", None
                fallback = FALLBACK["template"]
            requests = [self.messages(role, ctx, c) for _, _, role, c in jobs]
            if self.batch:
                together = await self.client.chat_many(requests, self.params)
                if together is not None:
                    return together, "question", fallback
            return await asyncio.gather(*(self.client.chat(m, self.params) for m in requests)), "question", fallback

        async def ask_further(requests):
            longer = {**self.params, "max_tokens": self.max_tokens}
            return await asyncio.gather(*(self.client.chat(m, longer) for m in requests))

        replies, used, fallback = run(ask_all())
        replies = list(replies)
        how_asked: dict[str, Any] = {"prompt": used, **({"prompt_fallback": fallback} if fallback else {})}
        read = [read_score(reply, self.mode) for reply in replies]
        further = self.max_tokens > 1 and used == "question"
        again = [i for i, (_, how) in enumerate(read) if how is None and replies[i].error is None] if further else []
        for i in again:  # the first reply is recorded as it was: a call that did not give the score
            self.client.record(replies[i], "judge", jobs[i][1], score_mode=None, read_further=True, **how_asked)
        if again:
            for i, reply in zip(again, run(ask_further([self.messages(jobs[i][2], ctx, jobs[i][3]) for i in again]))):
                replies[i], read[i] = reply, read_score(reply, self.mode)
        out: list[list[JudgeScore]] = [[] for _ in self.roles]
        tokens = 0
        for (k, name, _, _), reply, (score, how) in zip(jobs, replies, read):
            self.client.record(reply, "judge", name, score_mode=how, **how_asked)
            out[k].append(score)
            tokens += 0 if reply.cached else reply.usage["prompt_tokens"]
        self.last_tokens = tokens
        return out


def image_data_url(item: Any) -> str:
    """An image (path, PIL image or array) as a PNG data URL, the form chat requests carry images in."""
    buf = io.BytesIO()
    load_image(item).save(buf, format="PNG")
    return "data:image/png;base64," + base64.b64encode(buf.getvalue()).decode("ascii")


class ServedVLMJudges(ServedJudges):
    """A served vision-language model (e.g. Qwen2.5-VL under vLLM) in the local VLM judges' roles:
    the task's images go with each request as data URLs, before the question."""

    roles_known = VLM_ROLES
    kind = "served VLM judge"
    batchable = False  # images travel only in chat requests
    default_prefix = "vlm_"

    def __init__(self, endpoint: Endpoint, roles: Sequence[str] = ("visual", "logical", "contextual"), **kwargs):
        super().__init__(endpoint, roles, **kwargs)
        self._images: tuple[tuple[Any, ...], list[str]] | None = None

    def image_urls(self, ctx: StepContext) -> list[str]:
        """The context's attachments as data URLs (encoded once per context)."""
        if self._images is None or self._images[0] is not ctx.attachments:
            self._images = (ctx.attachments, [image_data_url(a) for a in ctx.attachments])
        return self._images[1]

    def messages(self, role: str, ctx: StepContext, candidate: str) -> list[dict[str, Any]]:
        images = [{"type": "image_url", "image_url": {"url": url}} for url in self.image_urls(ctx)]
        text = {"type": "text", "text": judge_user_text(role, self.mode, ctx, candidate)}
        return [{"role": "system", "content": VLM_JUDGE_SYSTEM}, {"role": "user", "content": [*images, text]}]
