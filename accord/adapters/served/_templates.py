"""Chat requests as the prompt text the server itself would build, for one-request-per-step scoring.

The OpenAI completions API takes a list of prompts in one request (llama.cpp's ``llama-server``
and vLLM answer each with its own choice), but it takes text, not messages. A server that
renders its chat template on request (llama-server's ``POST /apply-template``) gives that text
exactly as its chat endpoint would build it, so a completion of it is read the same way.

A step's requests share their system message and differ only in the user message. The template is
rendered once per (server, system message) with a marker as the user's text; a request's prompt is
then the text before the marker, the user's text, and the text after it. That shape is used only if
it reproduces the server's own rendering of a real request (checked once); otherwise each request is
rendered by the server. A server without the endpoint renders nothing (``None``), and the caller
sends chat requests instead. Each server is asked once per process.
"""

from __future__ import annotations

import asyncio
import threading
from typing import Any

from accord.adapters.served._slots import server_json, server_root

MARKER = "\u2063ACCORD-USER-TEXT\u2063"  # invisible separators around a word no request contains
_NONE = object()  # the server renders no template
_SHAPES: dict[tuple[str, str], Any] = {}  # (root, system) -> (head, tail), _NONE, or None (render each)
_LOCK = threading.Lock()


async def _render(root: str, messages: list[dict[str, Any]], api_key: str, timeout_s: float) -> str | None:
    """The server's prompt text for ``messages`` (None when it has no template endpoint)."""
    answer = await asyncio.to_thread(server_json, root + "/apply-template", api_key, timeout_s, {"messages": messages})
    prompt = answer.get("prompt") if isinstance(answer, dict) else None
    return prompt if isinstance(prompt, str) and prompt else None


def _split(messages: list[dict[str, Any]]) -> tuple[str, str] | None:
    """(system text, user text) of a request of exactly that form with text contents, else None."""
    if len(messages) != 2 or [m.get("role") for m in messages] != ["system", "user"]:
        return None
    system, user = (m.get("content") for m in messages)
    if not isinstance(system, str) or not isinstance(user, str) or MARKER in user:
        return None
    return system, user


async def prompts(
    base_url: str, messages_list: list[list[dict[str, Any]]], api_key: str, timeout_s: float
) -> list[str] | None:
    """Each request's prompt text as the server renders it; None when the server renders no template
    (or is not answering now: the caller falls back to chat requests for this step)."""
    root = server_root(base_url)
    limit = min(5.0, float(timeout_s))
    out: list[str | None] = []
    try:
        for messages in messages_list:
            parts = _split(messages)
            shape = _SHAPES.get((root, parts[0])) if parts else None
            if parts and (root, parts[0]) not in _SHAPES:
                shape = await _learn(root, parts, api_key, limit)
            if shape is _NONE:
                return None
            if isinstance(shape, tuple):
                out.append(shape[0] + parts[1] + shape[1])
            else:
                out.append(await _render(root, messages, api_key, limit))
    except OSError:
        return None
    return None if any(p is None for p in out) else out  # type: ignore[return-value]


async def _learn(root: str, parts: tuple[str, str], api_key: str, timeout_s: float) -> Any:
    """The (head, tail) around the user's text for one system message, checked against a real rendering."""
    system, user = parts
    marked = await _render(
        root, [{"role": "system", "content": system}, {"role": "user", "content": MARKER}], api_key, timeout_s
    )
    if marked is None:
        shape: Any = _NONE
    else:
        real = await _render(
            root, [{"role": "system", "content": system}, {"role": "user", "content": user}], api_key, timeout_s
        )
        head, found, tail = marked.partition(MARKER)
        shape = (head, tail) if found and real == head + user + tail else None
    with _LOCK:
        return _SHAPES.setdefault((root, system), shape)


def forget_templates(base_url: str | None = None) -> None:
    """Drops what was learnt about one server's template (all servers with None)."""
    with _LOCK:
        if base_url is None:
            _SHAPES.clear()
        else:
            root = server_root(base_url)
            for key in [k for k in _SHAPES if k[0] == root]:
                del _SHAPES[key]
