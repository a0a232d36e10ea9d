"""Sampling n continuations of one prompt with a causal LM, paying for the prompt once.

``transformers``' ``generate(num_return_sequences=n)`` copies the prompt n times before its first
forward pass, and a step loop asks for a new prompt at every step that is the last one plus the
accepted step. Here the prompt is computed once, for one row, and its key/value cache is kept: the
next prompt of the chain computes only its new tokens, and the n rows start from copies of the
cache. Rows that are done leave the batch, so the last decoding steps cost only the rows still
writing. Sampling is temperature then nucleus (top-p); temperature 0 is greedy (one decode,
repeated n times). Each row draws from its own random stream, seeded by (seed, row index): row i
is the same whether it is sampled alone or with others, so candidates asked for in two calls
(``first_row``) are the candidates one call would give, and an adaptive run stays comparable to a
full one candidate by candidate.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass

from accord.adapters.local._kv_prefix import Prefix, PrefixStore, cache_layers, forward_kwarg_names, make_cache


@dataclass
class Samples:
    """The new token ids of each row (a row ends with its stop token, if it met one) and the prompt's cost."""

    rows: list[list[int]]
    prompt_computed: int  # prompt tokens this call ran through the model
    prompt_reused: int  # prompt tokens served from the cache


def stop_token_ids(model, tokenizer) -> set[int]:
    """End-of-sequence ids: the model's generation config and the tokenizer's."""
    ids: set[int] = set()
    for src in (getattr(getattr(model, "generation_config", None), "eos_token_id", None), tokenizer.eos_token_id):
        if isinstance(src, int):
            ids.add(src)
        elif isinstance(src, (list, tuple)):
            ids.update(int(i) for i in src)
    return ids


def row_seed(seed: int, row: int) -> int:
    """The seed of row ``row``'s random stream in a call seeded ``seed``."""
    return int(hashlib.sha1(f"{seed}\x1f{row}".encode()).hexdigest()[:15], 16)


def nucleus(probs, top_p: float):
    """``probs`` with everything outside the smallest top-p set of each row set to zero."""
    import torch

    if top_p >= 1.0:
        return probs
    head = min(probs.shape[-1], 64)
    sp, si = probs.topk(head, dim=-1)  # sorted; a full sort of the vocabulary only if the head falls short
    if head < probs.shape[-1] and bool((sp.sum(-1) < top_p).any()):
        sp, si = probs.sort(dim=-1, descending=True)
    sp = sp.masked_fill(sp.cumsum(-1) - sp >= top_p, 0.0)  # mass before the token already reaches top_p
    return torch.zeros_like(probs).scatter(-1, si, sp)


class PromptSampler:
    """Seeded sampling over one causal LM with a cache of prompt prefixes (``max_prompt_tokens`` bound)."""

    def __init__(self, model, tokenizer, max_prompt_tokens: int = 8192):
        self.model = model
        self.tokenizer = tokenizer
        self.prompts = PrefixStore(max_prompt_tokens)
        self.stop_ids = stop_token_ids(model, tokenizer)
        self._cache_arg, _ = forward_kwarg_names(model)

    def _forward(self, input_ids, kv):
        kwargs = {"input_ids": input_ids, "use_cache": True}
        if kv is not None:
            kwargs[self._cache_arg] = kv if not isinstance(kv, list) else make_cache(kv)
        out = self.model(**kwargs)
        return out, getattr(out, "cache", None) or getattr(out, "past_key_values", None)

    def prompt(self, ids: tuple[int, ...]) -> tuple[Prefix, int]:
        """The cached prefix for the whole prompt, computing only what no cached prefix covers (and how much)."""
        import torch

        entry = self.prompts.get(ids)
        if entry is not None:
            return entry, 0
        base, common = self.prompts.nearest(ids, len(ids) - 1)  # at least one token: the last logits
        past = [(k[:, :, :common], v[:, :, :common]) for k, v in base.kv] if base is not None and common else None
        tail = torch.tensor([ids[common:]], dtype=torch.long, device=self.model.device)
        out, cache = self._forward(tail, past)
        return self.prompts.put(Prefix(ids, cache_layers(cache), out.logits[0, -1].detach())), len(ids) - common

    def sample(
        self,
        prompt: str,
        n: int,
        seed: int,
        temperature: float,
        top_p: float,
        max_new_tokens: int,
        done: Callable[[str], bool],
        first_row: int = 0,
    ) -> Samples:
        """Rows ``first_row`` .. ``first_row + n - 1`` of ``prompt``'s continuations under ``seed``; a row
        stops at a stop token, when ``done(its text)``, or at the budget."""
        import torch

        if n < 1:
            raise ValueError(f"n must be >= 1, got {n}")
        ids = tuple(self.tokenizer.encode(prompt, add_special_tokens=False))
        if not ids:
            raise ValueError("empty prompt")
        with torch.no_grad():
            entry, computed = self.prompt(ids)
            greedy = temperature <= 0
            width = 1 if greedy else n
            dev = entry.last_logits.device
            rngs = [torch.Generator(device=dev).manual_seed(row_seed(seed, first_row + r)) for r in range(width)]
            cache = make_cache([(k.expand(width, -1, -1, -1), v.expand(width, -1, -1, -1)) for k, v in entry.kv])
            logits = entry.last_logits[None].expand(width, -1)
            rows: list[list[int]] = [[] for _ in range(width)]
            live = list(range(width))
            for step in range(max_new_tokens):
                if greedy:
                    nxt = logits.argmax(-1)
                else:
                    probs = nucleus(torch.softmax(logits.float() / temperature, dim=-1), top_p)
                    nxt = torch.cat([torch.multinomial(probs[j], 1, generator=rngs[r]) for j, r in enumerate(live)])
                keep = []
                for j, r in enumerate(live):
                    tok = int(nxt[j])
                    rows[r].append(tok)
                    if tok not in self.stop_ids and not done(self.tokenizer.decode(rows[r], skip_special_tokens=True)):
                        keep.append(j)
                if not keep or step == max_new_tokens - 1:
                    break
                if len(keep) < len(live):
                    index = torch.tensor(keep, device=nxt.device)
                    cache.batch_select_indices(index)
                    nxt = nxt[index]
                    live = [live[j] for j in keep]
                out, cache = self._forward(nxt[:, None], cache)
                logits = out.logits[:, -1]
        if greedy:
            rows = [list(rows[0]) for _ in range(n)]
        return Samples(rows, computed, len(ids) - computed)
