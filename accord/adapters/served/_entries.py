"""Served judges and generators from configuration entries: any entry with a ``base_url`` is served.

``{type: llm, role: logic, lambda: 1.0, base_url: "http://127.0.0.1:8000/v1", model: smollm2}``
``generator: {base_url: "http://127.0.0.1:8000/v1", model: smollm2, temperature: 0.8}``

Endpoint keys: ``base_url``, ``model``, ``api_key_env`` (the environment variable holding the key),
``max_concurrency``, ``timeout_s``, ``max_retries``, ``cache`` (a file, or false). Judge keys:
``mode``, ``max_tokens``, ``top_logprobs``, ``batch``, ``prompt``. Generator keys: ``temperature``, ``top_p``,
``max_new_tokens``, ``stop``, ``n_param``, ``continue_final_message``. Unknown keys are errors.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from accord.adapters.served._client import Endpoint
from accord.adapters.served._generator import ServedGenerator
from accord.adapters.served._judges import ServedJudges, ServedVLMJudges

ENDPOINT_KEYS = ("base_url", "model", "api_key_env", "max_concurrency", "timeout_s", "max_retries", "cache")
JUDGE_KEYS = ("mode", "max_tokens", "top_logprobs", "batch", "prompt")
GENERATOR_KEYS = ("temperature", "top_p", "max_new_tokens", "stop", "n_param", "continue_final_message")
LOCAL_ONLY = ("device", "dtype")  # local generator settings a run config always carries; unused when served


def is_served(entry: Any) -> bool:
    """Whether a judge or generator entry names a served model (it has a ``base_url``)."""
    return isinstance(entry, dict) and "base_url" in entry


def endpoint_of(entry: dict[str, Any]) -> Endpoint:
    """The endpoint part of an entry (a ValueError names what is wrong)."""
    options = {k: entry[k] for k in ENDPOINT_KEYS if k in entry}
    return Endpoint(**{"base_url": None, "model": None, **options})  # a missing one is named by Endpoint's checks


def judge_group_key(spec: dict[str, Any], where: str | None = None) -> str:
    """Takes the served keys out of a judge spec (leaving role, name, ...) and returns the key that
    groups the roles one endpoint scores: the same endpoint, model and options. ``where`` prefixes errors."""
    options = {k: spec.pop(k) for k in (*ENDPOINT_KEYS, *JUDGE_KEYS) if k in spec}
    try:
        endpoint_of(options)  # checked now, with the entry's other errors
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{where + ': ' if where else ''}served judge: {exc}") from None
    return json.dumps(options, sort_keys=True)


def build_served_judges(kind: str, group_key: str, roles: Sequence[str], names: Sequence[str]) -> ServedJudges:
    """The served judge group (``kind`` llm or vlm) for the roles sharing one :func:`judge_group_key`."""
    options = json.loads(group_key)
    endpoint = endpoint_of(options)
    judge = {k: options[k] for k in JUDGE_KEYS if k in options}
    cls = ServedVLMJudges if kind == "vlm" else ServedJudges
    return cls(endpoint, roles, names=names, **judge)


def check_generator(entry: dict[str, Any]) -> None:
    """A ValueError naming the first problem of a served generator entry (nothing is contacted)."""
    unknown = set(entry) - set(ENDPOINT_KEYS) - set(GENERATOR_KEYS) - set(LOCAL_ONLY)
    if unknown:
        raise ValueError(
            f"unknown served generator key(s) {sorted(unknown)}; known: {sorted(ENDPOINT_KEYS + GENERATOR_KEYS)}"
        )
    endpoint_of(entry)


def build_served_generator(entry: dict[str, Any]) -> ServedGenerator:
    """The served generator of a generator entry."""
    check_generator(entry)
    return ServedGenerator(endpoint_of(entry), **{k: entry[k] for k in GENERATOR_KEYS if k in entry})
