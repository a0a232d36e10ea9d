"""Judge scores read from next-token probabilities, computed fast.

A prompted judge is asked a yes/no question (or for a digit 0-9) and its score is read from the
model's next-token distribution in one forward pass: never by generating and parsing text.

Each item to score is a pair ``(prefix, suffix)``: the prompt is ``prefix + suffix``. The prefix is
the part many prompts share (chat header, role instructions, question, accepted steps); the suffix
is the candidate and the closing question, ending where the answer token comes. Prefix and suffix
are tokenised separately and their ids concatenated, so the boundary is exact and a prefix's
key/value cache can be reused:

- the KV cache of each distinct prefix is computed once and reused for every suffix, and a new
  prefix that extends a cached one (the chain grew by a step) only computes the new tokens;
- all suffixes of a call go through one batched forward pass on top of their prefixes' caches:
  one row per prefix, its suffixes laid end to end under a mask that lets each suffix see only
  the prefix and itself (checked once per model against one row per suffix, which is the
  fallback); prefixes of different lengths are left-padded, rows right-padded;
- an optional :class:`accord.adapters.cache.JudgeCache` returns scores already paid for.

The fast path equals a plain forward pass over the concatenated ids (tests check it to 1e-5).
"""

from __future__ import annotations

import inspect
import threading
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any, Sequence

MODES = ("yes_no", "digits")
YES_VARIANTS = (" yes", "yes", " Yes", "Yes", " YES", "YES")
NO_VARIANTS = (" no", "no", " No", "No", " NO", "NO")


def _single_token_ids(tokenizer, variants: Sequence[str]) -> list[int]:
    """Ids of the variants that encode to exactly one token (others cannot be read in one step)."""
    ids: list[int] = []
    for text in variants:
        enc = tokenizer.encode(text, add_special_tokens=False)
        if len(enc) == 1 and enc[0] not in ids:
            ids.append(enc[0])
    return ids


def answer_token_groups(tokenizer, mode: str) -> list[list[int]]:
    """Token ids per answer: ``[yes ids, no ids]`` for yes_no, ``[ids of "0", ..., ids of "9"]`` for digits."""
    if mode == "yes_no":
        groups = [_single_token_ids(tokenizer, YES_VARIANTS), _single_token_ids(tokenizer, NO_VARIANTS)]
        names = ("yes", "no")
    elif mode == "digits":
        groups = [_single_token_ids(tokenizer, (str(d), f" {d}")) for d in range(10)]
        names = tuple(str(d) for d in range(10))
    else:
        raise ValueError(f"scoring mode must be one of {MODES}, got {mode!r}")
    for name, ids in zip(names, groups):
        if not ids:
            raise ValueError(f"tokenizer has no single-token encoding of {name!r}: mode {mode!r} cannot be scored")
    flat = [t for g in groups for t in g]
    if len(flat) != len(set(flat)):
        raise ValueError(f"tokenizer maps different answers of mode {mode!r} to the same token")
    return groups


def answer_distribution(logits, groups: Sequence[Sequence[int]]):
    """(..., answers) probabilities of each answer group given (..., vocab) logits; sums to 1."""
    import torch

    logp = torch.log_softmax(logits.double(), dim=-1)
    per = torch.stack([torch.logsumexp(logp[..., list(g)], dim=-1) for g in groups], dim=-1)
    return torch.softmax(per, dim=-1)


def scores_from_logits(logits, groups: Sequence[Sequence[int]], mode: str) -> list[float]:
    """One score per row of (batch, vocab) logits: P(yes), or the expected digit / 9."""
    import torch

    p = answer_distribution(logits, groups)
    if mode == "yes_no":
        s = p[..., 0]
    elif mode == "digits":
        s = (p * torch.arange(10, dtype=p.dtype, device=p.device)).sum(-1) / 9.0
    else:
        raise ValueError(f"scoring mode must be one of {MODES}, got {mode!r}")
    return [float(min(1.0, max(0.0, v))) for v in s.reshape(-1).tolist()]


def _forward_kwarg_names(model) -> tuple[str, bool]:
    """(name of the cache argument, whether 2-D ``logits_to_keep`` is accepted) for this model."""
    params = inspect.signature(model.forward).parameters
    cache_arg = "cache" if "cache" in params else "past_key_values"
    return cache_arg, "logits_to_keep" in params


@dataclass
class _Prefix:
    """A cached prefix: its token ids, per-layer (key, value) tensors (1, heads, len, dim), last logits."""

    ids: tuple[int, ...]
    kv: list[tuple[Any, Any]]
    last_logits: Any  # (vocab,) logits after the prefix's last token


@dataclass
class ScorerStats:
    """Work counters, so that reports can say what the fast path saved."""

    items: int = 0
    cache_hits: int = 0
    prefix_tokens_computed: int = 0
    prefix_tokens_reused: int = 0
    suffix_tokens: int = 0
    forward_passes: int = 0

    def as_dict(self) -> dict[str, int]:
        return {
            "items": self.items,
            "cache_hits": self.cache_hits,
            "prefix_tokens_computed": self.prefix_tokens_computed,
            "prefix_tokens_reused": self.prefix_tokens_reused,
            "suffix_tokens": self.suffix_tokens,
            "forward_passes": self.forward_passes,
        }


class NextTokenScorer:
    """Scores ``(prefix, suffix)`` prompts from the next-token distribution of a causal LM.

    ``mode="yes_no"``: P(yes) normalised over the yes/no token variants. ``mode="digits"``: the
    expected digit 0-9 (normalised over the digit tokens) divided by 9. ``cache`` is a
    :class:`~accord.adapters.cache.JudgeCache` keyed by (``judge``, ``model_id``, prompt).
    ``max_prefix_tokens`` bounds the KV memory kept for prefixes (least recently used evicted).
    """

    def __init__(
        self,
        model,
        tokenizer,
        mode: str = "yes_no",
        model_id: str = "",
        cache=None,
        batch_size: int = 16,
        max_prefix_tokens: int = 16384,
        judge: str = "",
        shared_threshold: int = 32,
    ):
        if batch_size < 1:
            raise ValueError(f"batch_size must be >= 1, got {batch_size}")
        self.model = model
        self.tokenizer = tokenizer
        self.mode = mode
        self.groups = answer_token_groups(tokenizer, mode)
        self.model_id = model_id or str(getattr(getattr(model, "config", None), "_name_or_path", "") or type(model).__name__)
        self.judge = judge or f"next-token/{mode}"
        self.cache = cache
        self.batch_size = batch_size
        self.max_prefix_tokens = max_prefix_tokens
        self.shared_threshold = shared_threshold  # new shared tokens above this get their own pass
        self.stats = ScorerStats()
        self._cache_arg, self._has_logits_to_keep = _forward_kwarg_names(model)
        self._prefixes: OrderedDict[tuple[int, ...], _Prefix] = OrderedDict()
        self._prefix_tokens = 0
        self._ids: OrderedDict[str, tuple[int, ...]] = OrderedDict()
        self._lock = threading.Lock()
        self._tree_ok: bool | None = None  # suffixes of one prefix in one masked row; checked on first use

    # ------------------------------------------------------------------ public
    def describe(self) -> dict[str, Any]:
        """What a trace records about how scores were read."""
        return {
            "scoring": "next-token",
            "mode": self.mode,
            "model": self.model_id,
            "answer_tokens": [[self.tokenizer.decode([t]) for t in g] for g in self.groups],
            "prefix_kv_reuse": True,
            "suffix_layout": {None: "unchecked", True: "tree (one row per prefix)", False: "one row per suffix"}[self._tree_ok],
            "batch_size": self.batch_size,
        }

    def score(self, items: Sequence[tuple[str, str]]) -> list[float]:
        """One score in [0, 1] per ``(prefix, suffix)`` item, in order."""
        items = [self._check_item(i, it) for i, it in enumerate(items)]
        out: list[float | None] = [None] * len(items)
        todo: list[int] = []
        for i, (prefix, suffix) in enumerate(items):
            hit = self.cache.get(self.judge, self.model_id, self._cache_prompt(prefix, suffix)) if self.cache else None
            if hit is not None and hit.value is not None:
                out[i] = hit.value
                self.stats.cache_hits += 1
            else:
                todo.append(i)
        self.stats.items += len(items)
        if todo:
            with self._lock:
                scores = self._score_uncached([items[i] for i in todo])
            for i, s in zip(todo, scores):
                out[i] = s
                if self.cache is not None:
                    self.cache.put(self.judge, self.model_id, self._cache_prompt(*items[i]), s)
        return [float(s) for s in out]  # type: ignore[arg-type]

    def answer_distribution(self, logits) -> list[float]:
        """Probabilities of the answers (yes/no, or digits 0-9) given next-token logits, summing to 1."""
        return answer_distribution(logits, self.groups).tolist()

    def score_from_logits(self, logits) -> float:
        """The score for one next-token logits vector (vocab,)."""
        return scores_from_logits(logits[None], self.groups, self.mode)[0]

    def clear_prefixes(self) -> None:
        """Drops every cached prefix KV (e.g. between unrelated tasks to free memory)."""
        with self._lock:
            self._prefixes.clear()
            self._prefix_tokens = 0

    # ----------------------------------------------------------------- helpers
    @staticmethod
    def _check_item(i: int, item) -> tuple[str, str]:
        if not (isinstance(item, (tuple, list)) and len(item) == 2 and all(isinstance(x, str) for x in item)):
            raise TypeError(f"item {i}: expected a (prefix, suffix) pair of strings, got {type(item).__name__}")
        if not item[0] and not item[1]:
            raise ValueError(f"item {i}: empty prompt (prefix and suffix are both empty)")
        return item[0], item[1]

    @staticmethod
    def _cache_prompt(prefix: str, suffix: str) -> str:
        # The split matters (prefix and suffix are tokenised separately), so it is part of the key.
        return prefix + "\x1f" + suffix

    def _encode(self, text: str) -> tuple[int, ...]:
        ids = self._ids.get(text)
        if ids is None:
            ids = tuple(self.tokenizer.encode(text, add_special_tokens=False)) if text else ()
            self._ids[text] = ids
            if len(self._ids) > 4096:
                self._ids.popitem(last=False)
        else:
            self._ids.move_to_end(text)
        return ids

    def _device(self):
        return next(self.model.parameters()).device

    def _make_cache(self, kv: list[tuple[Any, Any]]):
        from transformers import DynamicCache

        return DynamicCache(kv)

    @staticmethod
    def _cache_layers(cache) -> list[tuple[Any, Any]]:
        if hasattr(cache, "layers"):
            return [(layer.keys, layer.values) for layer in cache.layers]
        return [(k, v) for k, v in cache.to_legacy_cache()]  # older transformers

    def _forward(self, input_ids, attention_mask, position_ids, kv, logits_to_keep=None):
        kwargs: dict[str, Any] = dict(
            input_ids=input_ids, attention_mask=attention_mask, position_ids=position_ids, use_cache=True
        )
        if kv is not None:
            kwargs[self._cache_arg] = self._make_cache(kv)
        if logits_to_keep is not None and self._has_logits_to_keep:
            kwargs["logits_to_keep"] = logits_to_keep
        self.stats.forward_passes += 1
        return self.model(**kwargs)

    # ------------------------------------------------------------ prefix cache
    def _ancestor(self, ids: tuple[int, ...], limit: int) -> tuple[_Prefix | None, int]:
        """The cached prefix sharing the most leading tokens with ``ids`` (at most ``limit``), and how many."""
        best, common = None, 0
        for cand in self._prefixes.values():
            n = min(len(cand.ids), limit)
            c = 0
            while c < n and cand.ids[c] == ids[c]:
                c += 1
            if c > common:
                best, common = cand, c
        return best, common

    def _store(self, entry: _Prefix) -> _Prefix:
        self._prefixes[entry.ids] = entry
        self._prefix_tokens += len(entry.ids)
        while self._prefix_tokens > self.max_prefix_tokens and len(self._prefixes) > 1:
            _, old = self._prefixes.popitem(last=False)
            self._prefix_tokens -= len(old.ids)
        return entry

    def _prefix(self, ids: tuple[int, ...]) -> _Prefix:
        """The cached prefix for ``ids``, computing only the tokens no cached prefix already covers."""
        entry = self._prefixes.get(ids)
        if entry is not None:
            self._prefixes.move_to_end(ids)
            self.stats.prefix_tokens_reused += len(ids)
            return entry
        best, common = self._ancestor(ids, len(ids) - 1)  # always compute >= 1 token, for the last logits
        return self._extend(best, common, [ids])[0]

    def _prefixes_for(self, distinct: list[tuple[int, ...]]) -> dict[tuple[int, ...], _Prefix]:
        """Cached prefixes for all ``distinct`` ids; the missing ones computed together in one pass.

        Missing prefixes usually share a long opening (question, earlier steps) and differ in the
        candidate: the opening is computed once (or found cached) and all the differing tails go
        through one batched pass on top of it. Each pass has a fixed cost (the weights are read
        once per pass), so fewer, larger passes are faster, most of all on CPUs.
        """
        missing = [p for p in distinct if p not in self._prefixes]
        if len(missing) > 1:
            lcp = min(len(p) for p in missing) - 1
            first = missing[0]
            for p in missing[1:]:
                c = 0
                while c < lcp and p[c] == first[c]:
                    c += 1
                lcp = c
            best, common = self._ancestor(first, lcp)
            if lcp - common > self.shared_threshold:  # a long new shared part: compute it once
                best, common = self._prefix(first[:lcp]), lcp
            self._extend(best, common, missing)
        return {p: self._prefix(p) for p in distinct}

    def _extend(self, base: _Prefix | None, common: int, all_ids: list[tuple[int, ...]]) -> list[_Prefix]:
        """New cached prefixes: ``base``'s first ``common`` tokens' KV plus each ids' tail, in one pass."""
        import torch

        dev = self._device()
        b = len(all_ids)
        tails = [ids[common:] for ids in all_ids]
        lmax = max(len(t) for t in tails)
        pad = self.tokenizer.pad_token_id if self.tokenizer.pad_token_id is not None else 0
        new = torch.full((b, lmax), pad, dtype=torch.long, device=dev)
        mask = torch.zeros((b, common + lmax), dtype=torch.long, device=dev)
        for r, t in enumerate(tails):
            new[r, : len(t)] = torch.tensor(t, device=dev)
            mask[r, : common + len(t)] = 1  # right padding: no real token attends to a pad
        pos = torch.arange(common, common + lmax, device=dev)[None].expand(b, -1)
        past = None
        if base is not None and common:
            past = [(k[:, :, :common].expand(b, -1, -1, -1).contiguous(), v[:, :, :common].expand(b, -1, -1, -1).contiguous())
                    for k, v in base.kv]
        last = torch.tensor([len(t) - 1 for t in tails], device=dev)
        keep = torch.unique(last)
        with torch.no_grad():
            out = self._forward(new, mask if b > 1 else None, pos, past, logits_to_keep=keep if b > 1 else 1)
        cache = getattr(out, "cache", None) or getattr(out, "past_key_values", None)
        layers = self._cache_layers(cache)
        logits = out.logits
        if b == 1:
            rows_logits = logits[:, -1]
        else:
            col = torch.searchsorted(keep, last) if logits.shape[1] == keep.numel() and self._has_logits_to_keep else last
            rows_logits = logits[torch.arange(b, device=dev), col]
        entries = []
        for r, ids in enumerate(all_ids):
            n = len(ids)
            kv = [(k[r : r + 1, :, :n].clone(), v[r : r + 1, :, :n].clone()) for k, v in layers] if b > 1 else layers
            entries.append(self._store(_Prefix(ids, kv, rows_logits[r].detach())))
            self.stats.prefix_tokens_computed += n - common
            self.stats.prefix_tokens_reused += common
        return entries

    # ------------------------------------------------------------- batch pass
    def _score_uncached(self, items: list[tuple[str, str]]) -> list[float]:
        import torch

        enc = [(self._encode(p), self._encode(s)) for p, s in items]
        # Empty prefix: the first suffix token becomes the prefix (no KV to reuse, same ids).
        enc = [(s[:1], s[1:]) if not p else (p, s) for p, s in enc]
        prefixes = self._prefixes_for(list(dict.fromkeys(p for p, _ in enc)))
        scores: list[float | None] = [None] * len(items)
        rows = []
        for i, (p, s) in enumerate(enc):
            if s:
                rows.append(i)
            else:
                scores[i] = self.score_from_logits(prefixes[p].last_logits)
        rows.sort(key=lambda i: (enc[i][0], len(enc[i][1])))  # same-prefix rows together, less padding
        if rows and self._tree_ok is not False:
            groups: dict[tuple[int, ...], list[int]] = {}
            for i in rows:
                groups.setdefault(enc[i][0], []).append(i)
            keys = list(groups)
            if self._tree_ok is None:  # first use on this model: check one prefix against the batched pass
                idx = groups[keys[0]]
                passes = self.stats.forward_passes  # a one-off check, not work done for the caller
                got = self._tree_pass([prefixes[keys[0]]], [[enc[i][1] for i in idx]])
                ref = self._suffix_pass([prefixes[keys[0]]] * len(idx), [enc[i][1] for i in idx])
                self.stats.forward_passes = passes
                self._tree_ok = bool(torch.allclose(got.float(), ref.float(), atol=1e-3, rtol=1e-3))
            if self._tree_ok:
                for start in range(0, len(keys), self.batch_size):
                    chunk = keys[start : start + self.batch_size]
                    logits = self._tree_pass([prefixes[p] for p in chunk], [[enc[i][1] for i in groups[p]] for p in chunk])
                    order = [i for p in chunk for i in groups[p]]
                    for i, v in zip(order, scores_from_logits(logits, self.groups, self.mode)):
                        scores[i] = v
                rows = []
        for start in range(0, len(rows), self.batch_size):
            chunk = rows[start : start + self.batch_size]
            logits = self._suffix_pass([prefixes[enc[i][0]] for i in chunk], [enc[i][1] for i in chunk])
            for i, v in zip(chunk, scores_from_logits(logits, self.groups, self.mode)):
                scores[i] = v
        self.stats.suffix_tokens += sum(len(s) for _, s in enc)
        return scores  # type: ignore[return-value]

    def _tree_pass(self, prefixes: list[_Prefix], suffix_groups: list[list[tuple[int, ...]]]):
        """Next-token logits after every suffix, one row per prefix, in one forward pass.

        A row holds its prefix's suffixes end to end, each at the positions right after the prefix,
        and a mask lets each token see its prefix and its own suffix only; so r suffixes of a
        prefix cost r suffixes' tokens in one row instead of r rows each holding a copy of the
        prefix's cache. Prefixes are left-padded, rows right-padded. Returns (total suffixes, vocab)
        logits in the order of ``suffix_groups``, flattened.
        """
        import torch

        dev = self._device()
        b = len(prefixes)
        plen = [len(p.ids) for p in prefixes]
        rows = [[t for s in group for t in s] for group in suffix_groups]
        pmax, tmax = max(plen), max(len(r) for r in rows)
        pad = self.tokenizer.pad_token_id if self.tokenizer.pad_token_id is not None else 0
        input_ids = torch.full((b, tmax), pad, dtype=torch.long, device=dev)
        pos = torch.zeros((b, tmax), dtype=torch.long, device=dev)
        allowed = torch.zeros((b, tmax, pmax + tmax), dtype=torch.bool, device=dev)
        row_of, col_of = [], []
        for r, (pl, group) in enumerate(zip(plen, suffix_groups)):
            input_ids[r, : len(rows[r])] = torch.tensor(rows[r], dtype=torch.long, device=dev)
            allowed[r, :, pmax - pl : pmax] = True  # every token (pads too: no empty row) sees the prefix
            start = 0
            for suf in group:
                n = len(suf)
                pos[r, start : start + n] = torch.arange(pl, pl + n, device=dev)
                allowed[r, start : start + n, pmax + start : pmax + start + n] = torch.ones((n, n), dtype=torch.bool, device=dev).tril()
                row_of.append(r)
                col_of.append(start + n - 1)
                start += n
        dtype = next(self.model.parameters()).dtype
        mask = torch.zeros(allowed.shape, dtype=dtype, device=dev).masked_fill(~allowed, torch.finfo(dtype).min)[:, None]
        kv = self._padded_kv(prefixes, pmax)
        with torch.no_grad():
            out = self._forward(input_ids, mask, pos, kv)
        return out.logits[torch.tensor(row_of, device=dev), torch.tensor(col_of, device=dev)]

    def _padded_kv(self, prefixes: list[_Prefix], pmax: int) -> list[tuple[Any, Any]]:
        """The prefixes' caches stacked into one batch, left-padded to ``pmax`` tokens."""
        if len(prefixes) == 1:
            return prefixes[0].kv
        kv = []
        for layer in range(len(prefixes[0].kv)):
            k0, v0 = prefixes[0].kv[layer]
            k = k0.new_zeros((len(prefixes), k0.shape[1], pmax, k0.shape[3]))
            v = v0.new_zeros((len(prefixes), v0.shape[1], pmax, v0.shape[3]))
            for r, p in enumerate(prefixes):
                pk, pv = p.kv[layer]
                k[r, :, pmax - pk.shape[2] :] = pk[0]
                v[r, :, pmax - pv.shape[2] :] = pv[0]
            kv.append((k, v))
        return kv

    def _suffix_pass(self, prefixes: list[_Prefix], suffixes: list[tuple[int, ...]]):
        """Next-token logits after each suffix, all rows in one forward pass over the prefix caches."""
        import torch

        dev = self._device()
        b = len(suffixes)
        plen = [len(p.ids) for p in prefixes]
        slen = [len(s) for s in suffixes]
        pmax, smax = max(plen), max(slen)
        pad = self.tokenizer.pad_token_id if self.tokenizer.pad_token_id is not None else 0
        input_ids = torch.full((b, smax), pad, dtype=torch.long, device=dev)
        mask = torch.zeros((b, pmax + smax), dtype=torch.long, device=dev)
        pos = torch.zeros((b, smax), dtype=torch.long, device=dev)
        for r, (pl, s) in enumerate(zip(plen, suffixes)):
            input_ids[r, : len(s)] = torch.tensor(s, device=dev)
            mask[r, pmax - pl : pmax + len(s)] = 1  # prefix left-padded, suffix right-padded
            pos[r] = torch.arange(pl, pl + smax, device=dev)
        same = all(p is prefixes[0] for p in prefixes)
        if same:
            kv = [(k.expand(b, -1, -1, -1).contiguous(), v.expand(b, -1, -1, -1).contiguous()) for k, v in prefixes[0].kv]
        else:
            kv = self._padded_kv(prefixes, pmax)
        last = torch.tensor([n - 1 for n in slen], device=dev)
        keep = torch.unique(last)
        with torch.no_grad():
            out = self._forward(input_ids, mask, pos, kv, logits_to_keep=keep)
        logits = out.logits
        if logits.shape[1] == keep.numel() and self._has_logits_to_keep:
            col = torch.searchsorted(keep, last)
        else:
            col = last
        return logits[torch.arange(b, device=dev), col]


def plain_scores(model, tokenizer, items: Sequence[tuple[str, str]], mode: str = "yes_no") -> list[float]:
    """Reference scores: one full forward pass per prompt, no batching, no cache (for checks and benchmarks)."""
    import torch

    ref = NextTokenScorer(model, tokenizer, mode=mode)
    out = []
    for prefix, suffix in items:
        ids = ref._encode(prefix) + ref._encode(suffix)
        with torch.no_grad():
            logits = model(input_ids=torch.tensor([ids], device=ref._device())).logits[0, -1]
        out.append(ref.score_from_logits(logits))
    return out

