"""A step generator behind an OpenAI-compatible endpoint, prompted like the local one.

n candidates per step: one request with the ``n`` parameter where the server honours it, else n
requests with seeds derived from (seed, candidate index) — then candidate i depends on (seed, i)
only, as for the local generator (``seeded_by_row``). ``n_param: auto`` (the default) tries ``n``
once and falls back for good when the server returns fewer choices (llama.cpp's server does).

The chain so far is sent as the assistant's unfinished turn when the server can continue one
(``continue_final_message: true``: vLLM), which is exactly the local generator's prompt; otherwise
the steps so far go as an assistant turn followed by a request for the next step, which every
chat server accepts. A task's images go with the question as data URLs (a served VLM proposes). Each candidate is the
first line of its reply (``stop`` ends it early).
A request that still fails after the retries stops the run with a one-line error: the trace keeps
every step already decided, and ``--resume`` continues.
"""

from __future__ import annotations

import asyncio
import hashlib
from collections.abc import Sequence
from typing import Any

from accord.adapters.local import DEFAULT_EXAMPLE, DEFAULT_SYSTEM, FINAL_PATTERN, check_sampling, steps_text
from accord.adapters.served._client import Endpoint, Reply, ServedClient
from accord.adapters.served._judges import image_data_url
from accord.adapters.served._runner import run
from accord.errors import UserError
from accord.protocols import StepContext

N_PARAM = ("auto", True, False)
NEXT_STEP = "Continue: write only the next step."


def request_seed(seed: int, row: int) -> int:
    """The request seed of candidate ``row`` (a 31-bit integer every server accepts)."""
    return int(hashlib.sha1(f"{seed}\x1f{row}".encode()).hexdigest()[:8], 16) & 0x7FFFFFFF


def first_line(text: str) -> str:
    return (text or "").lstrip().split("\n", 1)[0].strip()


class ServedGenerator:
    """Proposes candidate next steps with a served chat model."""

    def __init__(
        self,
        endpoint: Endpoint,
        temperature: float = 0.8,
        top_p: float = 0.6,
        max_new_tokens: int = 48,
        stop: Sequence[str] | None = ("\n",),
        n_param: str | bool = "auto",
        continue_final_message: bool = False,
        system_prompt: str = DEFAULT_SYSTEM,
        instruction: str = "Reason step by step.",
        example: tuple[str, str] | None = DEFAULT_EXAMPLE,
    ):
        check_sampling(temperature, top_p, max_new_tokens)
        if n_param not in N_PARAM:
            raise ValueError(f"n_param must be auto, true or false, got {n_param!r}")
        if stop is not None and (isinstance(stop, str) or not all(isinstance(s, str) and s for s in stop)):
            raise ValueError(f"stop must be a list of non-empty strings, got {stop!r}")
        if not isinstance(continue_final_message, bool):
            raise ValueError(f"continue_final_message must be true or false, got {continue_final_message!r}")
        self.client = ServedClient(endpoint)
        self.temperature, self.top_p, self.max_new_tokens = float(temperature), float(top_p), int(max_new_tokens)
        self.stop = list(stop) if stop else None
        self.n_supported: bool | None = None if n_param == "auto" else bool(n_param)
        self.continue_final_message = continue_final_message
        self.system_prompt, self.instruction, self.example = system_prompt, instruction, example
        self.last_stats: dict[str, Any] = {"generated": 0, "prompt": 0}

    @property
    def seeded_by_row(self) -> bool:
        """Candidate i depends on (seed, i) only once requests are seeded one per candidate."""
        return self.n_supported is False

    def messages(self, ctx: StepContext) -> tuple[list[dict[str, Any]], dict[str, Any]]:
        """The chat request for the next step, and the request options it needs."""
        out = [{"role": "system", "content": self.system_prompt}]
        if self.example:
            out += [{"role": "user", "content": self.example[0]}, {"role": "assistant", "content": self.example[1]}]
        question = f"{ctx.question}\n{self.instruction}".strip()
        images = [{"type": "image_url", "image_url": {"url": image_data_url(a)}} for a in ctx.attachments]
        out.append({"role": "user", "content": [*images, {"type": "text", "text": question}] if images else question})
        if not ctx.steps:
            return out, {}
        out.append({"role": "assistant", "content": steps_text(ctx.steps)})
        if self.continue_final_message:
            return out, {"extra_body": {"continue_final_message": True, "add_generation_prompt": False}}
        return out + [{"role": "user", "content": NEXT_STEP}], {}

    def params(self, seed: int, n: int, extra: dict[str, Any]) -> dict[str, Any]:
        p: dict[str, Any] = {
            "temperature": self.temperature,
            "top_p": self.top_p,
            "max_tokens": self.max_new_tokens,
            "seed": seed,
        }
        if self.stop:
            p["stop"] = self.stop
        if n > 1:
            p["n"] = n
        return {**p, **extra}

    def propose(self, ctx: StepContext, n: int, seed: int, first: int = 0) -> list[str]:
        """Candidates ``first`` .. ``first + n - 1`` (``first`` only with per-candidate seeds)."""
        messages, extra = self.messages(ctx)
        if self.n_supported is not False and n > 1 and first == 0:
            reply = run(self.client.chat(messages, self.params(seed, n, extra)))
            self._check(reply)
            if len(reply.choices) >= n:
                self.n_supported = True
                texts = [(c.get("message") or {}).get("content") or "" for c in reply.choices[:n]]
                self._account([reply], split=texts)
                return [first_line(t) for t in texts]
            if self.n_supported:
                raise UserError(
                    f"generator at {self.client.endpoint.base_url}: asked for n={n} choices, got "
                    f"{len(reply.choices)}; set n_param: false to send one seeded request per candidate"
                )
            self.n_supported = False  # the server ignores n: one seeded request per candidate from now on

        async def ask_all():
            return await asyncio.gather(
                *(self.client.chat(messages, self.params(request_seed(seed, first + i), 1, extra)) for i in range(n))
            )

        replies = run(ask_all())
        for reply in replies:
            self._check(reply)
        self._account(replies)
        return [
            first_line(((r.choices[0].get("message") or {}).get("content")) or "") if r.choices else "" for r in replies
        ]

    def _check(self, reply: Reply) -> None:
        self.client.record(reply, "generate", "generator")
        if reply.error is not None:
            raise UserError(f"generator: {reply.error}")

    def _account(self, replies: list[Reply], split: list[str] | None = None) -> None:
        """``last_stats`` as the step loop reads it: tokens generated and prompt tokens processed in this
        call (cache hits cost nothing), and each candidate's length in tokens (one reply holding all n
        candidates reports only their total: it is split in proportion to their text)."""
        made = [r for r in replies if not r.cached]
        per = [max(1, r.usage["completion_tokens"]) for r in replies]
        if split is not None:
            total, chars = replies[0].usage["completion_tokens"], [max(1, len(t)) for t in split]
            per = [max(1, round(total * c / sum(chars))) for c in chars]
        self.last_stats = {
            "generated": sum(r.usage["completion_tokens"] for r in made),
            "prompt": sum(r.usage["prompt_tokens"] for r in made),
            "per_candidate": per,
        }

    def is_final(self, step: str) -> bool:
        """A step ends the answer when it states the answer, or when the model wrote nothing more."""
        return not step.strip() or bool(FINAL_PATTERN.search(step))
