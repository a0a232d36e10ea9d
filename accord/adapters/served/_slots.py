"""How many requests a server runs at once, asked of the server itself.

llama.cpp's C++ ``llama-server`` decodes ``-np N`` requests together (one slot each) and says so
at ``GET /props`` (``total_slots``) and ``GET /slots`` (one entry per slot). A client that sends
more than N requests only queues them there; one that sends fewer leaves slots idle. Servers
that say nothing (llama-cpp-python's server, vLLM, hosted APIs) get :data:`DEFAULT_CONCURRENCY`.
Each endpoint is asked once per process.
"""

from __future__ import annotations

import asyncio
import json
import threading
import urllib.error
import urllib.request

DEFAULT_CONCURRENCY = 4  # requests in flight where the server does not say how many it runs at once
MAX_AUTO = 64  # a bound on what a server's answer can set
_KNOWN: dict[str, int] = {}
_ASKING: dict[tuple[int, str], asyncio.Lock] = {}
_LOCK = threading.Lock()


def server_root(base_url: str) -> str:
    """The server's root (``http://host:port``) from an OpenAI-compatible base URL (``.../v1``)."""
    root = base_url.rstrip("/")
    return root[:-3] if root.endswith("/v1") else root


def slots_from(props: object, slots: object) -> int | None:
    """The slot count in a ``/props`` answer (``total_slots``) or a ``/slots`` answer (a list)."""
    n = props.get("total_slots") if isinstance(props, dict) else None
    if isinstance(n, int) and not isinstance(n, bool) and n >= 1:
        return min(n, MAX_AUTO)
    if isinstance(slots, list) and slots:
        return min(len(slots), MAX_AUTO)
    return None


async def concurrency(base_url: str, api_key: str, timeout_s: float) -> int:
    """Requests to keep in flight to this server: its slot count, else ``DEFAULT_CONCURRENCY``."""
    with _LOCK:
        if base_url in _KNOWN:
            return _KNOWN[base_url]
        key = (id(asyncio.get_running_loop()), base_url)
        asking = _ASKING.setdefault(key, asyncio.Lock())  # one question per server, however many requests wait
    async with asking:
        with _LOCK:
            if base_url in _KNOWN:
                return _KNOWN[base_url]
        found = None
        try:
            for path in ("/props", "/slots"):
                body = await asyncio.to_thread(
                    server_json, server_root(base_url) + path, api_key, min(5.0, float(timeout_s))
                )
                found = slots_from(body, None) if path == "/props" else slots_from(None, body)
                if found:
                    break
        except OSError:  # not answering now: ask again at the next request
            return DEFAULT_CONCURRENCY
        with _LOCK:
            return _KNOWN.setdefault(base_url, found or DEFAULT_CONCURRENCY)


def server_json(url: str, api_key: str, timeout_s: float, body: object = None) -> object:
    """The JSON a server's own endpoint answers with: a GET, or a POST of ``body`` (None for an HTTP
    error or an answer that is not JSON; a server not answering raises OSError)."""
    data = None if body is None else json.dumps(body).encode("utf-8")
    request = urllib.request.Request(
        url, data=data, headers={"Authorization": f"Bearer {api_key}", "Content-Type": "application/json"}
    )
    try:
        with urllib.request.urlopen(request, timeout=timeout_s) as r:  # noqa: S310 - the configured endpoint
            return json.loads(r.read())
    except urllib.error.HTTPError:
        return None
    except ValueError:
        return None


def forget_slots(base_url: str | None = None) -> None:
    """Drops what was learnt about one server (all with None): the next request asks again."""
    with _LOCK:
        if base_url is None:
            _KNOWN.clear()
        else:
            _KNOWN.pop(base_url, None)
