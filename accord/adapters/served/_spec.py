"""The keys of a judge entry that names a served model: its endpoint and the reply's token budget.

Shared by the prompted judge types (``llm``/``vlm`` with a ``base_url``) and the served checkers
(``code_check``, ``critic``), so an endpoint is written the same way in every entry."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from accord.adapters._registry import JudgeSpec
from accord.adapters.served._entries import ENDPOINT_KEYS, endpoint_of


@dataclass(frozen=True)
class ServedSpec(JudgeSpec):
    base_url: str | None = None  # an OpenAI-compatible endpoint; the keys below are its options
    model: str | None = None
    api_key_env: str | None = None
    max_concurrency: Any = None  # an integer, or "auto": the server's slot count
    timeout_s: float | None = None
    max_retries: int | None = None
    cache: Any = None
    max_tokens: int | None = None

    @property
    def served(self) -> bool:
        return self.base_url is not None

    def endpoint(self, kind: str):
        """The entry's endpoint; a ValueError when it names none."""
        if self.base_url is None:
            raise ValueError(f"{kind} judge needs a 'base_url' (an OpenAI-compatible endpoint) and a 'model'")
        return endpoint_of({k: getattr(self, k) for k in ENDPOINT_KEYS if getattr(self, k) is not None})
