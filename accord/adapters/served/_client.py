"""A model behind an OpenAI-compatible endpoint (vLLM, llama.cpp's server, TGI, SGLang, a hosted API).

Requests go through the official ``openai`` async client on the process's served loop
(:mod:`accord.adapters.served._runner`), at most ``max_concurrency`` at a time per endpoint (by
default, ``"auto"``, as many as the server runs at once: see :mod:`accord.adapters.served._slots`). The
client retries 429, 5xx and connection errors with exponential backoff (honouring Retry-After);
each request has a time limit. A call that still fails is returned with its error, never raised,
so a judge turns it into a null score with its reason. Answers are cached on disk by
(endpoint, model, messages, parameters).

The API key is read from the environment variable the configuration names (``api_key_env``) and
lives only in the client object: :meth:`Endpoint.describe` and every call record leave it out.
"""

from __future__ import annotations

import asyncio
import os
import threading
import time
from dataclasses import dataclass
from typing import Any

from accord.adapters.served._cache import CallCache, request_key, shared_cache
from accord.adapters.served._calls import CallRecord, emit
from accord.adapters.served._slots import concurrency
from accord.adapters.served._templates import prompts as rendered_prompts
from accord.extras import require

UNAVAILABLE = "served endpoint unavailable"  # failure reasons that a later attempt may not meet
REFUSED = "served request refused"  # the server answered with an error that retrying will not change
NO_KEY = "EMPTY"  # sent when no api_key_env is configured (local servers ignore it)


@dataclass(frozen=True)
class Endpoint:
    """Where a served model is and how to call it (no secret: the key is named, not held)."""

    base_url: str
    model: str
    api_key_env: str | None = None
    max_concurrency: int | str = "auto"  # "auto": the server's slot count where it says, else 4
    timeout_s: float = 60.0
    max_retries: int = 3
    cache: str | bool | None = None  # a cache file; None or True: the default file; False: no cache

    def __post_init__(self) -> None:
        if not isinstance(self.base_url, str) or not self.base_url.startswith(("http://", "https://")):
            raise ValueError(f"base_url must be an http(s) URL, got {self.base_url!r}")
        if not isinstance(self.model, str) or not self.model:
            raise ValueError(f"a served model needs a 'model' name (as the server knows it), got {self.model!r}")
        if self.api_key_env is not None and (not isinstance(self.api_key_env, str) or not self.api_key_env):
            raise ValueError(f"api_key_env must name an environment variable, got {self.api_key_env!r}")
        if self.max_concurrency != "auto" and (
            isinstance(self.max_concurrency, bool)
            or not isinstance(self.max_concurrency, int)
            or self.max_concurrency < 1
        ):
            raise ValueError(f"max_concurrency must be an integer >= 1 or 'auto', got {self.max_concurrency!r}")
        if isinstance(self.timeout_s, bool) or not isinstance(self.timeout_s, (int, float)) or not self.timeout_s > 0:
            raise ValueError(f"timeout_s must be a number > 0, got {self.timeout_s!r}")
        if isinstance(self.max_retries, bool) or not isinstance(self.max_retries, int) or self.max_retries < 0:
            raise ValueError(f"max_retries must be an integer >= 0, got {self.max_retries!r}")
        if not isinstance(self.cache, (str, bool, type(None))):
            raise ValueError(f"cache must be a file path, true (the default file) or false, got {self.cache!r}")

    def api_key(self) -> str:
        """The key from the named environment variable (a placeholder when none is named)."""
        if self.api_key_env is None:
            return NO_KEY
        key = os.environ.get(self.api_key_env)
        if not key:
            raise ValueError(f"environment variable {self.api_key_env} (named by api_key_env) is not set")
        return key

    def describe(self) -> dict[str, Any]:
        """The endpoint as recorded in a run (the key's variable name, never its value)."""
        return {
            "base_url": self.base_url,
            "model": self.model,
            "api_key_env": self.api_key_env,
            "max_concurrency": self.max_concurrency,
            "timeout_s": self.timeout_s,
            "max_retries": self.max_retries,
        }


@dataclass
class Reply:
    """One call's outcome: the response (as JSON) or the error, and what it cost."""

    response: dict[str, Any] | None
    cached: bool = False
    latency_s: float = 0.0
    attempts: int = 0
    error: str | None = None
    batched: int = 0  # answered within one completions request for this many prompts (0: its own request)

    @property
    def choices(self) -> list[dict[str, Any]]:
        return list((self.response or {}).get("choices") or [])

    @property
    def usage(self) -> dict[str, int]:
        """Tokens: prompt, completion, and the prompt tokens the server took from its prompt cache
        (``usage.prompt_tokens_details.cached_tokens``, or llama-server's ``timings.cache_n``)."""
        r = self.response or {}
        u = r.get("usage") or {}
        details = u.get("prompt_tokens_details") or {}
        reused = details.get("cached_tokens") if isinstance(details, dict) else None
        if reused is None:
            reused = (r.get("timings") or {}).get("cache_n")
        return {
            "prompt_tokens": int(u.get("prompt_tokens") or 0),
            "completion_tokens": int(u.get("completion_tokens") or 0),
            "prompt_cached_tokens": int(reused or 0),
        }


# One semaphore per (loop, endpoint URL, bound): every client of one endpoint with the same bound shares it.
_SEMAPHORES: dict[tuple[int, str, int], asyncio.Semaphore] = {}
_SEMAPHORES_LOCK = threading.Lock()


def _semaphore(base_url: str, bound: int) -> asyncio.Semaphore:
    """The bound on requests in flight to one endpoint (created on the served loop at first use)."""
    key = (id(asyncio.get_running_loop()), base_url, bound)
    with _SEMAPHORES_LOCK:
        if key not in _SEMAPHORES:
            _SEMAPHORES[key] = asyncio.Semaphore(bound)
        return _SEMAPHORES[key]


def _error_text(exc: BaseException) -> str:
    text = str(getattr(exc, "message", None) or exc).splitlines()[0] if str(exc) else type(exc).__name__
    return f"{type(exc).__name__}: {text[:300]}"


class ServedClient:
    """Chat completions against one endpoint and model, bounded, retried, timed, cached and recorded."""

    def __init__(self, endpoint: Endpoint):
        self.endpoint = endpoint
        self._key = endpoint.api_key()  # checked now: a missing variable is a configuration error
        self._client: tuple[Any, Any] | None = None  # (loop, openai client): a client serves one loop

    @property
    def cache(self) -> CallCache | None:
        """The call cache this client reads and fills (None when caching is off)."""
        c = self.endpoint.cache
        return None if c is False else shared_cache(c if isinstance(c, str) else None)

    def _openai(self):
        openai = require("openai", "served models")

        here = asyncio.get_running_loop()
        if self._client is None or self._client[0] is not here:
            self._client = (
                here,
                openai.AsyncOpenAI(
                    base_url=self.endpoint.base_url,
                    api_key=self._key,
                    timeout=float(self.endpoint.timeout_s),
                    max_retries=self.endpoint.max_retries,
                ),
            )
        return self._client[1]

    async def bound(self) -> int:
        """Requests in flight to this endpoint at most: the configured number, or the server's slots."""
        if self.endpoint.max_concurrency != "auto":
            return self.endpoint.max_concurrency
        return await concurrency(self.endpoint.base_url, self._key, self.endpoint.timeout_s)

    async def chat(self, messages: list[dict[str, Any]], params: dict[str, Any]) -> Reply:
        """One chat completion (``params``: temperature, max_tokens, logprobs, n, seed, stop, ...;
        ``extra_body`` for server-specific ones). Failures come back in ``Reply.error``."""
        openai = require("openai", "served models")

        key = request_key(self.endpoint.base_url, self.endpoint.model, messages, params)
        cache = self.cache
        if cache is not None:
            hit = cache.get(key)
            if hit is not None:
                return Reply(hit, cached=True)
        client = self._openai()
        async with _semaphore(self.endpoint.base_url, await self.bound()):
            t0 = time.perf_counter()
            try:
                raw = await client.chat.completions.with_raw_response.create(
                    model=self.endpoint.model, messages=messages, **params
                )
                response = raw.parse().model_dump(mode="json", exclude_none=True)
                attempts = int(getattr(raw, "retries_taken", 0) or 0) + 1
            except (openai.APIConnectionError, openai.RateLimitError, openai.InternalServerError) as exc:
                return Reply(
                    None,
                    latency_s=time.perf_counter() - t0,
                    attempts=self.endpoint.max_retries + 1,
                    error=f"{UNAVAILABLE} ({self.endpoint.base_url}): {_error_text(exc)}",
                )
            except openai.APIStatusError as exc:
                retried = exc.status_code in (408, 409)
                why = UNAVAILABLE if retried else REFUSED
                return Reply(
                    None,
                    latency_s=time.perf_counter() - t0,
                    attempts=self.endpoint.max_retries + 1 if retried else 1,
                    error=f"{why} ({self.endpoint.base_url}): HTTP {exc.status_code}: {_error_text(exc)}",
                )
            latency = time.perf_counter() - t0
        if cache is not None:
            cache.put(key, response)
        return Reply(response, latency_s=latency, attempts=attempts)

    async def chat_many(
        self, messages_list: list[list[dict[str, Any]]], params: dict[str, Any], openings: list[str] | None = None
    ) -> list[Reply] | None:
        """Several chat requests answered by one completions request (the prompts the server's own
        chat template makes of them, one choice each), each reply shaped and cached as the chat
        request's own; None when the server renders no template, so the caller sends them as chats.
        ``openings``: text each prompt's assistant turn starts with (the reply continues it).

        The replies of the prompts sent together share the request: the first carries its latency,
        attempts and token counts, the others none (``batched`` says which request they rode in)."""
        openai = require("openai", "served models")

        cache = self.cache
        openings = openings or [""] * len(messages_list)
        keys = [
            request_key(
                self.endpoint.base_url,
                self.endpoint.model,
                [*m, {"role": "assistant", "opening": o}] if o else m,
                params,
            )
            for m, o in zip(messages_list, openings)
        ]
        replies: list[Reply | None] = [None] * len(messages_list)
        if cache is not None:
            for i, key in enumerate(keys):
                hit = cache.get(key)
                if hit is not None:
                    replies[i] = Reply(hit, cached=True)
        todo = [i for i, r in enumerate(replies) if r is None]
        if not todo:
            return replies  # type: ignore[return-value]
        texts = await rendered_prompts(
            self.endpoint.base_url, [messages_list[i] for i in todo], self._key, self.endpoint.timeout_s
        )
        if texts is None:
            return None
        texts = [t + openings[i] for t, i in zip(texts, todo)]
        client = self._openai()
        body = _completion_params(params)
        async with _semaphore(self.endpoint.base_url, await self.bound()):
            t0 = time.perf_counter()
            try:
                raw = await client.completions.with_raw_response.create(model=self.endpoint.model, prompt=texts, **body)
                response = raw.parse().model_dump(mode="json", exclude_none=True)
                attempts = int(getattr(raw, "retries_taken", 0) or 0) + 1
                error = None
            except (openai.APIConnectionError, openai.RateLimitError, openai.InternalServerError) as exc:
                response, attempts = None, self.endpoint.max_retries + 1
                error = f"{UNAVAILABLE} ({self.endpoint.base_url}): {_error_text(exc)}"
            except openai.APIStatusError as exc:
                if exc.status_code in (400, 404, 405, 422, 501):  # no completions, or no prompt lists: ask as chats
                    return None
                retried = exc.status_code in (408, 409)
                response, attempts = None, self.endpoint.max_retries + 1 if retried else 1
                error = (
                    f"{UNAVAILABLE if retried else REFUSED} ({self.endpoint.base_url}): HTTP {exc.status_code}: "
                    f"{_error_text(exc)}"
                )
            latency = time.perf_counter() - t0
        shaped = _per_prompt(response, len(todo)) if response is not None else None
        if response is not None and shaped is None:
            return None  # the server answered the list as one prompt: ask as chats
        for n, i in enumerate(todo):
            lead = n == 0
            if shaped is None:
                replies[i] = Reply(
                    None, latency_s=latency if lead else 0.0, attempts=attempts if lead else 0, error=error
                )
                continue
            one = (
                shaped[n]
                if not lead
                else {**shaped[n], "usage": response.get("usage"), "timings": response.get("timings")}
            )
            if cache is not None:
                cache.put(keys[i], {"choices": shaped[n]["choices"]})
            replies[i] = Reply(
                one, latency_s=latency if lead else 0.0, attempts=attempts if lead else 0, batched=len(todo)
            )
        return replies  # type: ignore[return-value]

    def record(self, reply: Reply, purpose: str, label: str, **extra: Any) -> None:
        """Reports one call's cost to whoever is recording (see :mod:`accord.adapters.served._calls`)."""
        if reply.batched:
            extra = {**extra, "batched": reply.batched}
        emit(
            CallRecord(
                self.endpoint.base_url,
                self.endpoint.model,
                purpose,
                label,
                reply.cached,
                latency_s=reply.latency_s,
                attempts=reply.attempts,
                error=reply.error,
                extra=extra,
                **reply.usage,
            )
        )


def _completion_params(chat_params: dict[str, Any]) -> dict[str, Any]:
    """A chat request's parameters for the completions API (``logprobs`` there is the number of
    alternatives per token, the chat API's ``top_logprobs``)."""
    out = {k: v for k, v in chat_params.items() if k not in ("logprobs", "top_logprobs")}
    if chat_params.get("logprobs"):
        out["logprobs"] = int(chat_params.get("top_logprobs") or 1)
    return out


def _per_prompt(response: dict[str, Any], n: int) -> list[dict[str, Any]] | None:
    """One chat-shaped response per prompt from a completions response (by each choice's ``index``);
    None unless every prompt has exactly one choice."""
    by_index: dict[int, dict[str, Any]] = {}
    for choice in response.get("choices") or []:
        i = choice.get("index")
        if not isinstance(i, int) or i in by_index or not 0 <= i < n:
            return None
        logprobs = choice.get("logprobs") or {}
        content = logprobs.get("content") if isinstance(logprobs, dict) else None
        if content is None and isinstance(logprobs, dict) and logprobs.get("tokens"):
            content = _legacy_logprobs(logprobs)
        by_index[i] = {
            "choices": [
                {
                    "index": 0,
                    "finish_reason": choice.get("finish_reason"),
                    "message": {"role": "assistant", "content": choice.get("text") or ""},
                    **({"logprobs": {"content": content}} if content else {}),
                }
            ]
        }
    return [by_index[i] for i in range(n)] if len(by_index) == n else None


def _legacy_logprobs(logprobs: dict[str, Any]) -> list[dict[str, Any]]:
    """The OpenAI completions form (``tokens``, ``token_logprobs``, ``top_logprobs`` as {token: logprob})
    in the chat form (one entry per token with its ``top_logprobs`` list)."""
    tokens = logprobs.get("tokens") or []
    chosen = logprobs.get("token_logprobs") or [None] * len(tokens)
    tops = logprobs.get("top_logprobs") or [None] * len(tokens)
    return [
        {"token": t, "logprob": lp, "top_logprobs": [{"token": k, "logprob": v} for k, v in (top or {}).items()]}
        for t, lp, top in zip(tokens, chosen, tops)
    ]
