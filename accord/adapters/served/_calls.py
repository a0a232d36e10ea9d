"""What each served call cost: one record per call, delivered to whoever is recording.

A run records every call its judges and generator make (``{"type": "call", ...}`` lines in its
trace) and sums them in its summary; a :class:`Recorder` is how it listens. Records hold the endpoint
and model, never an API key.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import Any

Sink = Callable[[dict[str, Any]], None]


@dataclass(frozen=True)
class CallRecord:
    """One served call: answered from the cache, answered by the server, or failed (``error``)."""

    endpoint: str
    model: str
    purpose: str  # "judge", "generate" or "answer"
    label: str  # the judge column, "generator" or the jury member
    cached: bool
    prompt_tokens: int = 0
    completion_tokens: int = 0
    prompt_cached_tokens: int = 0  # prompt tokens the server reused from its prompt cache (where it says)
    latency_s: float = 0.0  # wall time of the request, retries included (0 from the cache)
    attempts: int = 0  # requests sent (0 from the cache)
    error: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)  # e.g. how a judge read its score

    def as_record(self) -> dict[str, Any]:
        out = {"type": "call", **{k: v for k, v in asdict(self).items() if k != "extra"}, **self.extra}
        out["latency_s"] = round(self.latency_s, 4)
        return out


@dataclass
class Tally:
    """Sums over the calls seen: requests the servers answered or refused (several calls of one step
    may share one request), cache hits, tokens, latency."""

    requests: int = 0
    cached: int = 0
    failed: int = 0
    attempts: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    prompt_cached_tokens: int = 0
    latency_s: float = 0.0
    score_modes: dict[str, int] = field(default_factory=dict)
    prompts: dict[str, int] = field(default_factory=dict)  # judge calls by the prompt sent: local, question
    prompt_fallbacks: dict[str, int] = field(default_factory=dict)  # why ``prompt: auto`` asked as chats

    def add(self, rec: dict[str, Any]) -> None:
        if rec.get("cached"):
            self.cached += 1
        elif rec.get("attempts"):  # a call that rode in another's request (``batched``) made none
            self.requests += 1
            self.attempts += int(rec.get("attempts") or 0)
            self.latency_s += float(rec.get("latency_s") or 0.0)
            self.prompt_tokens += int(rec.get("prompt_tokens") or 0)
            self.completion_tokens += int(rec.get("completion_tokens") or 0)
            self.prompt_cached_tokens += int(rec.get("prompt_cached_tokens") or 0)
        if rec.get("error"):
            self.failed += 1
        for counts, key in (
            (self.score_modes, "score_mode"),
            (self.prompts, "prompt"),
            (self.prompt_fallbacks, "prompt_fallback"),
        ):
            value = rec.get(key)
            if value:
                counts[value] = counts.get(value, 0) + 1

    def as_dict(self) -> dict[str, Any]:
        out = asdict(self)
        out["latency_s"] = round(self.latency_s, 3)
        return out


_SINKS: list[Sink] = []
_SINKS_LOCK = threading.Lock()


def emit(record: CallRecord) -> None:
    """Delivers one call record to every active recorder."""
    rec = record.as_record()
    with _SINKS_LOCK:
        sinks = list(_SINKS)
    for sink in sinks:
        sink(rec)


class Recorder:
    """Collects every served call made in this process until closed; ``sink`` (e.g. a trace
    writer's ``write``) also receives each record. ``tally`` holds the running sums."""

    def __init__(self, sink: Sink | None = None):
        self.tally = Tally()
        self._sink = sink
        self._lock = threading.Lock()
        with _SINKS_LOCK:
            _SINKS.append(self._listen)

    def _listen(self, rec: dict[str, Any]) -> None:
        with self._lock:
            self.tally.add(rec)
            if self._sink is not None:
                self._sink(rec)

    def close(self) -> None:
        with _SINKS_LOCK:
            if self._listen in _SINKS:
                _SINKS.remove(self._listen)

    def __enter__(self) -> Recorder:
        return self

    def __exit__(self, *exc) -> None:
        self.close()
