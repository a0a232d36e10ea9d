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
- items whose prefixes are new go through ONE forward pass as a token tree in one row: the tokens
  they share (new shared text, a candidate under several role labels) are one node each, every
  node sits at the position of its depth and sees the cached prefix and its own ancestors only;
  the new prefixes' caches are then gathered from that row. Each pass has a fixed cost (the
  weights are read once per pass), so one pass per step matters, most of all on CPUs;
- items over already cached prefixes: one row per prefix, its suffixes end to end under a mask
  that lets each suffix see only the prefix and itself;
- both tree layouts are checked once per model against one row per item, which is the fallback
  (prefixes of different lengths left-padded, rows right-padded);
- an optional :class:`accord.adapters._cache.JudgeCache` returns scores already paid for.

The fast path equals a plain forward pass over the concatenated ids (tests check it to 1e-5).
"""

from __future__ import annotations

import dataclasses
import threading
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from accord.adapters.local._kv_prefix import (
    Prefix,
    PrefixStore,
    cache_layers,
    forward_kwarg_names,
    make_cache,
    shared_opening,
)

SCORING_MODES = ("yes_no", "digits")
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


def check_roles_and_mode(kind: str, roles: Sequence[str], known: Mapping[str, str], mode: str) -> None:
    """The one check of a prompted judge's roles and scoring mode, local and served alike."""
    unknown = [r for r in roles if r not in known]
    if unknown or not roles:
        raise ValueError(f"unknown {kind} role(s) {unknown or list(roles)}; choose from {sorted(known)}")
    if mode not in SCORING_MODES:
        raise ValueError(f"{kind} mode must be one of {SCORING_MODES}, got {mode!r}")


def answer_token_groups(tokenizer, mode: str) -> list[list[int]]:
    """Token ids per answer: ``[yes ids, no ids]`` for yes_no, ``[ids of "0", ..., ids of "9"]`` for digits."""
    if mode == "yes_no":
        groups = [_single_token_ids(tokenizer, YES_VARIANTS), _single_token_ids(tokenizer, NO_VARIANTS)]
        names = ("yes", "no")
    elif mode == "digits":
        groups = [_single_token_ids(tokenizer, (str(d), f" {d}")) for d in range(10)]
        names = tuple(str(d) for d in range(10))
    else:
        raise ValueError(f"scoring mode must be one of {SCORING_MODES}, got {mode!r}")
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
        raise ValueError(f"scoring mode must be one of {SCORING_MODES}, got {mode!r}")
    return [float(min(1.0, max(0.0, v))) for v in s.reshape(-1).tolist()]


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
        return dataclasses.asdict(self)


class NextTokenScorer:
    """Scores ``(prefix, suffix)`` prompts from the next-token distribution of a causal LM.

    ``mode="yes_no"``: P(yes) normalised over the yes/no token variants. ``mode="digits"``: the
    expected digit 0-9 (normalised over the digit tokens) divided by 9. ``cache`` is a
    :class:`~accord.adapters._cache.JudgeCache` keyed by (``judge``, ``model_id``, prompt).
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
        max_tree_tokens: int = 1024,
    ):
        if batch_size < 1:
            raise ValueError(f"batch_size must be >= 1, got {batch_size}")
        self.model = model
        self.tokenizer = tokenizer
        self.mode = mode
        self.groups = answer_token_groups(tokenizer, mode)
        self.model_id = model_id or str(
            getattr(getattr(model, "config", None), "_name_or_path", "") or type(model).__name__
        )
        self.judge = judge or f"next-token/{mode}"
        self.cache = cache
        self.batch_size = batch_size
        self.max_prefix_tokens = max_prefix_tokens
        self.shared_threshold = shared_threshold  # new shared tokens above this get their own pass
        self.max_tree_tokens = max_tree_tokens  # one token tree (row) per pass: its attention mask is n x n
        self.stats = ScorerStats()
        self._cache_arg, self._has_logits_to_keep = forward_kwarg_names(model)
        self._prefixes = PrefixStore(max_prefix_tokens)
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
            "suffix_layout": {
                None: "unchecked",
                True: "tree (new prefixes: one token tree per pass; cached ones: a row each)",
                False: "one row per suffix",
            }[self._tree_ok],
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

    def _forward(self, input_ids, attention_mask, position_ids, kv, logits_to_keep=None):
        kwargs: dict[str, Any] = dict(
            input_ids=input_ids, attention_mask=attention_mask, position_ids=position_ids, use_cache=True
        )
        if kv is not None:
            kwargs[self._cache_arg] = make_cache(kv)
        if logits_to_keep is not None and self._has_logits_to_keep:
            kwargs["logits_to_keep"] = logits_to_keep
        self.stats.forward_passes += 1
        return self.model(**kwargs)

    # ------------------------------------------------------------ prefix cache
    def _prefix(self, ids: tuple[int, ...]) -> Prefix:
        """The cached prefix for ``ids``, computing only the tokens no cached prefix already covers."""
        entry = self._prefixes.get(ids)
        if entry is not None:
            self.stats.prefix_tokens_reused += len(ids)
            return entry
        best, common = self._prefixes.nearest(ids, len(ids) - 1)  # always compute >= 1 token, for the last logits
        return self._extend(best, common, [ids])[0]

    def _prefixes_for(self, distinct: list[tuple[int, ...]]) -> dict[tuple[int, ...], Prefix]:
        """Cached prefixes for all ``distinct`` ids; the missing ones computed together in one pass.

        Missing prefixes usually share a long opening (question, earlier steps) and differ in the
        candidate: the opening is computed once (or found cached) and all the differing tails go
        through one batched pass on top of it. Each pass has a fixed cost (the weights are read
        once per pass), so fewer, larger passes are faster, most of all on CPUs.
        """
        missing = [p for p in distinct if p not in self._prefixes]
        if len(missing) > 1:
            lcp = shared_opening(missing)
            first = missing[0]
            best, common = self._prefixes.nearest(first, lcp)
            if lcp - common > self.shared_threshold:  # a long new shared part: compute it once
                best, common = self._prefix(first[:lcp]), lcp
            self._extend(best, common, missing)
        return {p: self._prefix(p) for p in distinct}

    def _extend(self, base: Prefix | None, common: int, all_ids: list[tuple[int, ...]]) -> list[Prefix]:
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
            past = [
                (
                    k[:, :, :common].expand(b, -1, -1, -1).contiguous(),
                    v[:, :, :common].expand(b, -1, -1, -1).contiguous(),
                )
                for k, v in base.kv
            ]
        last = torch.tensor([len(t) - 1 for t in tails], device=dev)
        keep = torch.unique(last)
        with torch.no_grad():
            out = self._forward(new, mask if b > 1 else None, pos, past, logits_to_keep=keep if b > 1 else 1)
        cache = getattr(out, "cache", None) or getattr(out, "past_key_values", None)
        layers = cache_layers(cache)
        logits = out.logits
        if b == 1:
            rows_logits = logits[:, -1]
        else:
            col = (
                torch.searchsorted(keep, last) if logits.shape[1] == keep.numel() and self._has_logits_to_keep else last
            )
            rows_logits = logits[torch.arange(b, device=dev), col]
        entries = []
        for r, ids in enumerate(all_ids):
            n = len(ids)
            kv = [(k[r : r + 1, :, :n].clone(), v[r : r + 1, :, :n].clone()) for k, v in layers] if b > 1 else layers
            entries.append(self._prefixes.put(Prefix(ids, kv, rows_logits[r].detach())))
            self.stats.prefix_tokens_computed += n - common
            self.stats.prefix_tokens_reused += common
        return entries

    # ------------------------------------------------------------- batch pass
    def _score_uncached(self, items: list[tuple[str, str]]) -> list[float]:
        enc = [(self._encode(p), self._encode(s)) for p, s in items]
        # Empty prefix: the first suffix token becomes the prefix (no KV to reuse, same ids).
        enc = [(s[:1], s[1:]) if not p else (p, s) for p, s in enc]
        scores: list[float | None] = [None] * len(items)
        if self._tree_ok is not False:  # items whose prefix is new: one token tree per pass
            fresh = [i for i, (p, _) in enumerate(enc) if p not in self._prefixes]
            if self._tree_ok is None:
                self._check_tree(enc[0][0] + enc[0][1])
            if self._tree_ok:
                for chunk in self._trie_chunks(fresh, enc):
                    logits = self._trie_pass([enc[i] for i in chunk])
                    for i, v in zip(chunk, scores_from_logits(logits, self.groups, self.mode)):
                        scores[i] = v
        left = [i for i in range(len(enc)) if scores[i] is None]
        if left:
            self._score_over_cached([enc[i] for i in left], left, scores)
        self.stats.suffix_tokens += sum(len(s) for _, s in enc)
        return scores  # type: ignore[return-value]

    def _check_tree(self, ids: tuple[int, ...]) -> None:
        """First use on this model: both tree layouts must give what a plain forward pass gives, on a
        few short prompts cut from ``ids`` (two prefixes sharing an opening, two suffixes each). A
        one-off check: its work is not counted, and its prefixes are not kept."""
        import torch

        ids = (ids * 8)[:12]
        p1, p2 = ids[:8], ids[:4] + ids[5:8] + ids[:1]
        s1, s2 = ids[8:11], ids[9:12] + ids[:2]
        items = [(p1, s1), (p1, s2), (p2, s1), (p2, s2)]
        saved, kept = ScorerStats(**vars(self.stats)), {p.ids for p in self._prefixes}
        with torch.no_grad():
            ref = torch.stack(
                [self.model(input_ids=torch.tensor([p + s], device=self._device())).logits[0, -1] for p, s in items]
            )
        got = [self._trie_pass(items), self._tree_pass(self._extend(None, 0, [p1, p2]), [[s1, s2], [s1, s2]])]
        for p in list(self._prefixes):
            if p.ids not in kept:
                self._prefixes.pop(p.ids)
        self.stats = saved
        self._tree_ok = all(bool(torch.allclose(g.float(), ref.float(), atol=1e-3, rtol=1e-3)) for g in got)

    def _trie_chunks(self, todo: list[int], enc) -> list[list[int]]:
        """``todo`` items grouped by prefix into chunks of at most ``max_tree_tokens`` tree tokens."""
        groups: dict[tuple[int, ...], list[int]] = {}
        for i in todo:
            groups.setdefault(enc[i][0], []).append(i)
        chunks: list[list[int]] = []
        size = 0
        for p, idx in groups.items():
            need = len(p) + sum(len(enc[i][1]) for i in idx)
            if not chunks or size + need > self.max_tree_tokens:
                chunks.append([])
                size = 0
            chunks[-1].extend(idx)
            size += need
        return chunks

    def _trie_pass(self, enc: list[tuple[tuple[int, ...], tuple[int, ...]]]):
        """Next-token logits after every item (prefix + suffix), all in one row, in one forward pass.

        The items' token sequences are merged into a tree on top of the longest cached prefix they
        all share: a token shared by several items (the question and earlier steps, a candidate
        under several role labels) is one node, computed once. Each node sits at the position of
        its depth and a mask lets it see the cached prefix and its own ancestors only, so the
        result equals a separate pass per item. Each new prefix is then cached, its key/values
        gathered from the row, for the calls that extend it (the chain's next step).
        """
        import torch

        dev = self._device()
        distinct = list(dict.fromkeys(p for p, _ in enc))
        base, common = self._prefixes.nearest(distinct[0], shared_opening(distinct))  # every prefix keeps >= 1 token
        if base is None:
            common = 0
        tokens: list[int] = []
        parent: list[int] = []
        child: dict[tuple[int, int], int] = {}

        def walk(node: int, seq) -> list[int]:
            path = []
            for t in seq:
                nxt = child.get((node, t))
                if nxt is None:
                    nxt = child[(node, t)] = len(tokens)
                    tokens.append(t)
                    parent.append(node)
                node = nxt
                path.append(node)
            return path

        paths = {p: walk(-1, p[common:]) for p in distinct}
        ends = [(walk(paths[p][-1], s) or paths[p])[-1] for p, s in enc]
        n = len(tokens)
        allowed = torch.zeros((n, common + n), dtype=torch.bool)
        allowed[:, :common] = True
        depth = [0] * n
        for j in range(n):  # parents come before their children
            if parent[j] >= 0:
                allowed[j] = allowed[parent[j]]
                depth[j] = depth[parent[j]] + 1
            allowed[j, common + j] = True
        dtype = next(self.model.parameters()).dtype
        mask = torch.zeros(allowed.shape, dtype=dtype).masked_fill(~allowed, torch.finfo(dtype).min)[None, None].to(dev)
        pos = torch.tensor([[common + d for d in depth]], dtype=torch.long, device=dev)
        past = [(k[:, :, :common], v[:, :, :common]) for k, v in base.kv] if common else None
        keep = sorted(set(ends) | {path[-1] for path in paths.values()})
        with torch.no_grad():
            out = self._forward(
                torch.tensor([tokens], dtype=torch.long, device=dev),
                mask,
                pos,
                past,
                logits_to_keep=torch.tensor(keep, device=dev),
            )
        logits = out.logits[0]
        col = {node: (k if logits.shape[0] == len(keep) else node) for k, node in enumerate(keep)}
        layers = cache_layers(getattr(out, "cache", None) or getattr(out, "past_key_values", None))
        for p, path in paths.items():
            idx = torch.tensor(list(range(common)) + [common + j for j in path], device=dev)
            kv = [(k.index_select(2, idx), v.index_select(2, idx)) for k, v in layers]
            self._prefixes.put(Prefix(p, kv, logits[col[path[-1]]].detach()))
            self.stats.prefix_tokens_reused += common
        self.stats.prefix_tokens_computed += len({j for path in paths.values() for j in path})
        return logits[torch.tensor([col[e] for e in ends], device=dev)]

    def _score_over_cached(self, enc, where: list[int], scores: list[float | None]) -> None:
        """Items ``where`` (encoded ``enc``) over their prefixes' caches (computing the missing ones):
        one row per prefix holding its suffixes under a tree mask, or one row per item."""
        prefixes = self._prefixes_for(list(dict.fromkeys(p for p, _ in enc)))
        rows = []
        for k, (p, s) in enumerate(enc):
            if s:
                rows.append(k)
            else:
                scores[where[k]] = self.score_from_logits(prefixes[p].last_logits)
        rows.sort(key=lambda k: (enc[k][0], len(enc[k][1])))  # same-prefix rows together, less padding
        if self._tree_ok:
            groups: dict[tuple[int, ...], list[int]] = {}
            for k in rows:
                groups.setdefault(enc[k][0], []).append(k)
            keys = list(groups)
            for start in range(0, len(keys), self.batch_size):
                chunk = keys[start : start + self.batch_size]
                logits = self._tree_pass([prefixes[p] for p in chunk], [[enc[k][1] for k in groups[p]] for p in chunk])
                order = [k for p in chunk for k in groups[p]]
                for k, v in zip(order, scores_from_logits(logits, self.groups, self.mode)):
                    scores[where[k]] = v
            return
        for start in range(0, len(rows), self.batch_size):
            chunk = rows[start : start + self.batch_size]
            logits = self._suffix_pass([prefixes[enc[k][0]] for k in chunk], [enc[k][1] for k in chunk])
            for k, v in zip(chunk, scores_from_logits(logits, self.groups, self.mode)):
                scores[where[k]] = v

    def _tree_pass(self, prefixes: list[Prefix], suffix_groups: list[list[tuple[int, ...]]]):
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
                allowed[r, start : start + n, pmax + start : pmax + start + n] = torch.ones(
                    (n, n), dtype=torch.bool, device=dev
                ).tril()
                row_of.append(r)
                col_of.append(start + n - 1)
                start += n
        dtype = next(self.model.parameters()).dtype
        mask = torch.zeros(allowed.shape, dtype=dtype, device=dev).masked_fill(~allowed, torch.finfo(dtype).min)[
            :, None
        ]
        kv = self._padded_kv(prefixes, pmax)
        with torch.no_grad():
            out = self._forward(input_ids, mask, pos, kv)
        return out.logits[torch.tensor(row_of, device=dev), torch.tensor(col_of, device=dev)]

    def _padded_kv(self, prefixes: list[Prefix], pmax: int) -> list[tuple[Any, Any]]:
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

    def _suffix_pass(self, prefixes: list[Prefix], suffixes: list[tuple[int, ...]]):
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
            kv = [
                (k.expand(b, -1, -1, -1).contiguous(), v.expand(b, -1, -1, -1).contiguous()) for k, v in prefixes[0].kv
            ]
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
