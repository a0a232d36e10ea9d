"""PromptSampler: seeded nucleus sampling from one computation of the prompt, prompt caches reused."""

from __future__ import annotations

import pytest
import torch

from accord.adapters.local._kv_prefix import Prefix, PrefixStore, shared_opening
from accord.adapters.local._sampling import PromptSampler, nucleus


def test_nucleus_keeps_the_smallest_set_reaching_top_p():
    p = torch.tensor([[0.2, 0.5, 0.3], [0.1, 0.1, 0.8]])
    assert torch.equal(nucleus(p, 0.6) > 0, torch.tensor([[False, True, True], [False, False, True]]))
    assert torch.equal(nucleus(p, 0.5) > 0, torch.tensor([[False, True, False], [False, False, True]]))
    assert torch.equal(nucleus(p, 1.0), p)


@pytest.mark.parametrize("sharpness", [0.05, 1.0, 5.0])  # flat (the head falls short: full sort) to peaked
@pytest.mark.parametrize("top_p", [0.6, 0.95])
def test_nucleus_over_a_vocabulary_equals_a_full_sort(sharpness, top_p):
    torch.manual_seed(1)
    p = torch.softmax(torch.randn(3, 5000) * sharpness, -1)
    sp, si = p.sort(-1, descending=True)
    ref = torch.zeros_like(p).scatter(-1, si, sp.masked_fill(sp.cumsum(-1) - sp >= top_p, 0.0))
    assert torch.equal(nucleus(p, top_p), ref)


def test_prefix_store_evicts_least_recently_used_by_tokens():
    store = PrefixStore(max_tokens=5)
    a, b = Prefix((1, 2), [], None), Prefix((1, 2, 3), [], None)
    store.put(a)
    store.put(b)
    assert store.tokens == 5 and len(store) == 2
    assert store.nearest((1, 2, 3, 4), 3) == (b, 3) and store.nearest((1, 2, 3, 4), 2)[1] == 2
    store.get((1, 2))  # a is now the most recent
    store.put(Prefix((7,), [], None))
    assert (1, 2, 3) not in store and (1, 2) in store and store.tokens == 3
    store.put(Prefix((7,), [], None))  # replacing an entry counts its tokens once
    assert store.tokens == 3
    with pytest.raises(ValueError):
        PrefixStore(0)


def test_shared_opening_leaves_each_sequence_a_token():
    assert shared_opening([(1, 2, 3, 4), (1, 2, 3, 5), (1, 2, 9)]) == 2
    assert shared_opening([(1, 2, 3), (1, 2, 3)]) == 2  # equal sequences keep their last token
    assert shared_opening([(1,), (2, 3)]) == 0 and shared_opening([(5, 6, 7)]) == 2


def test_first_token_frequencies_follow_the_model(tiny_lm):
    model, tok = tiny_lm
    sampler = PromptSampler(model, tok)
    prompt = "Question: what is 2 + 3?\nAnswer:"
    ids = torch.tensor([tok.encode(prompt, add_special_tokens=False)])
    with torch.no_grad():
        probs = torch.softmax(model(ids).logits[0, -1], -1)
    n = 4000
    out = sampler.sample(prompt, n, seed=11, temperature=1.0, top_p=1.0, max_new_tokens=1, done=lambda t: False)
    first = torch.tensor([r[0] for r in out.rows])
    top = torch.topk(probs, 5).indices
    for t in top:
        freq = float((first == t).float().mean())
        p = float(probs[t])
        assert abs(freq - p) <= 4 * (p * (1 - p) / n) ** 0.5 + 1e-3  # within four standard errors
    assert out.prompt_computed == ids.shape[1] and out.prompt_reused == 0


def test_rows_stop_on_their_own_and_samples_repeat_by_seed(tiny_lm):
    model, tok = tiny_lm
    sampler = PromptSampler(model, tok)
    prompt = "Write some words:"
    rows = sampler.sample(prompt, 6, seed=3, temperature=1.3, top_p=0.95, max_new_tokens=7, done=lambda t: False).rows
    assert all(len(r) == 7 for r in rows)
    done = lambda text: len(tok.encode(text, add_special_tokens=False)) >= 3  # noqa: E731
    short = sampler.sample(prompt, 6, seed=3, temperature=1.3, top_p=0.95, max_new_tokens=7, done=done)
    assert all(1 <= len(r) <= 7 for r in short.rows) and short.prompt_computed == 0  # the prompt came from the cache
    assert any(len(r) < 7 for r in short.rows)
    again = sampler.sample(prompt, 6, seed=3, temperature=1.3, top_p=0.95, max_new_tokens=7, done=done)
    assert again.rows == short.rows
    other = sampler.sample(prompt, 6, seed=4, temperature=1.3, top_p=0.95, max_new_tokens=7, done=lambda t: False)
    assert other.rows != rows


def test_a_cached_prompt_prefix_gives_the_same_logits_as_a_full_pass(tiny_lm):
    model, tok = tiny_lm
    sampler = PromptSampler(model, tok)
    short = tuple(tok.encode("Question: 4 + 4?\nSteps:\n", add_special_tokens=False))
    long = tuple(tok.encode("Question: 4 + 4?\nSteps:\n4 + 4 = 8\n", add_special_tokens=False))
    assert long[: len(short)] == short
    sampler.prompt(short)
    entry, computed = sampler.prompt(long)
    assert computed == len(long) - len(short)
    with torch.no_grad():
        ref = model(torch.tensor([long])).logits[0, -1]
    assert torch.allclose(entry.last_logits, ref, atol=1e-5)


def test_empty_prompt_and_bad_n_are_refused(tiny_lm):
    model, tok = tiny_lm
    sampler = PromptSampler(model, tok)
    with pytest.raises(ValueError, match="n must be"):
        sampler.sample("x", 0, 0, 1.0, 1.0, 3, lambda t: False)
    with pytest.raises(ValueError, match="empty prompt"):
        sampler.sample("", 1, 0, 1.0, 1.0, 3, lambda t: False)
