"""Key/value caches of token prefixes, kept so that a prompt that extends one already seen only
computes its new tokens. Used by the judges' scorer and by the generators (a chain's prompt grows
by one step at a time, so each step's prompt is the last one plus the accepted step).
"""

from __future__ import annotations

import inspect
from collections import OrderedDict
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any


@dataclass
class Prefix:
    """A cached prefix: its token ids, per-layer (key, value) tensors (1, heads, len, dim), last logits."""

    ids: tuple[int, ...]
    kv: list[tuple[Any, Any]]
    last_logits: Any  # (vocab,) logits after the prefix's last token


class PrefixStore:
    """Least-recently-used prefixes, bounded by the tokens they hold (their KV memory)."""

    def __init__(self, max_tokens: int):
        if max_tokens < 1:
            raise ValueError(f"max_tokens must be >= 1, got {max_tokens}")
        self.max_tokens = max_tokens
        self.tokens = 0
        self._entries: OrderedDict[tuple[int, ...], Prefix] = OrderedDict()

    def __contains__(self, ids: tuple[int, ...]) -> bool:
        return ids in self._entries

    def __len__(self) -> int:
        return len(self._entries)

    def __iter__(self) -> Iterator[Prefix]:
        return iter(list(self._entries.values()))

    def get(self, ids: tuple[int, ...]) -> Prefix | None:
        """The entry for exactly ``ids`` (now the most recently used), or None."""
        entry = self._entries.get(ids)
        if entry is not None:
            self._entries.move_to_end(ids)
        return entry

    def nearest(self, ids: tuple[int, ...], limit: int) -> tuple[Prefix | None, int]:
        """The entry sharing the most leading tokens with ``ids`` (counting at most ``limit``), and how many."""
        best, common = None, 0
        for cand in self._entries.values():
            n = min(len(cand.ids), limit)
            c = 0
            while c < n and cand.ids[c] == ids[c]:
                c += 1
            if c > common:
                best, common = cand, c
        return best, common

    def put(self, entry: Prefix) -> Prefix:
        """Keeps ``entry``, evicting the least recently used ones beyond ``max_tokens`` (never the newest)."""
        old = self._entries.pop(entry.ids, None)
        if old is not None:
            self.tokens -= len(old.ids)
        self._entries[entry.ids] = entry
        self.tokens += len(entry.ids)
        while self.tokens > self.max_tokens and len(self._entries) > 1:
            _, gone = self._entries.popitem(last=False)
            self.tokens -= len(gone.ids)
        return entry

    def pop(self, ids: tuple[int, ...]) -> None:
        """Forgets the entry for ``ids``, if any."""
        old = self._entries.pop(ids, None)
        if old is not None:
            self.tokens -= len(old.ids)

    def clear(self) -> None:
        self._entries.clear()
        self.tokens = 0


def shared_opening(seqs: list[tuple[int, ...]]) -> int:
    """How many leading tokens all ``seqs`` share, leaving every one at least one token of its own."""
    first = seqs[0]
    n = min(len(q) for q in seqs) - 1
    for q in seqs[1:]:
        c = 0
        while c < n and q[c] == first[c]:
            c += 1
        n = c
    return max(n, 0)


def forward_kwarg_names(model) -> tuple[str, bool]:
    """(name of the cache argument, whether 2-D ``logits_to_keep`` is accepted) for this model."""
    params = inspect.signature(model.forward).parameters
    cache_arg = "cache" if "cache" in params else "past_key_values"
    return cache_arg, "logits_to_keep" in params


def make_cache(kv: list[tuple[Any, Any]]):
    """A transformers cache holding these per-layer (key, value) tensors; updates never write into them."""
    from transformers import DynamicCache

    return DynamicCache(kv)


def cache_layers(cache) -> list[tuple[Any, Any]]:
    """Per-layer (key, value) tensors of a transformers cache."""
    if hasattr(cache, "layers"):
        return [(layer.keys, layer.values) for layer in cache.layers]
    return [(k, v) for k, v in cache.to_legacy_cache()]  # older transformers
