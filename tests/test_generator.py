"""The transformers generator: one step per call, n candidates in one batched call, seeded."""

from __future__ import annotations

import pytest

from accord.adapters.local._llm import DEFAULT_EXAMPLE, TransformersGenerator, chat_prompt, steps_text
from accord.protocols import StepContext

CTX = StepContext("Calculate 12 + 7 - 3.")


@pytest.fixture(scope="module")
def gen(smollm2):
    return TransformersGenerator.from_loaded(*smollm2, max_new_tokens=10)


@pytest.mark.slow
def test_n_candidates_are_single_lines_from_one_computation_of_the_prompt(smollm2):
    lm, tok = smollm2
    g = TransformersGenerator.from_loaded(lm, tok, max_new_tokens=10)
    cands = g.propose(CTX, 3, seed=1)
    plen = len(tok.encode(g.prompt(CTX), add_special_tokens=False))
    assert len(cands) == 3 and all(isinstance(c, str) and "\n" not in c for c in cands)
    per = g.last_stats["per_candidate"]
    assert len(per) == 3 and all(1 <= t <= 10 for t in per) and g.last_stats["generated"] == sum(per)
    assert g.last_stats["prompt"] == plen  # once, not once per candidate


@pytest.mark.slow
def test_the_chains_next_prompt_computes_only_its_new_tokens(smollm2):
    lm, tok = smollm2
    g = TransformersGenerator.from_loaded(lm, tok, max_new_tokens=6)
    g.propose(CTX, 2, seed=3)
    g.propose(CTX, 1, seed=4)
    assert g.last_stats["prompt"] == 0  # the same context again: all reused
    longer = CTX.extend("12 + 7 = 19")
    g.propose(longer, 2, seed=5)
    full = len(tok.encode(g.prompt(longer), add_special_tokens=False))
    assert 0 < g.last_stats["prompt"] <= 12 and g.last_stats["prompt"] + g.last_stats["prompt_reused"] == full
    fresh = TransformersGenerator.from_loaded(lm, tok, max_new_tokens=6)
    assert fresh.propose(longer, 2, seed=5) == g.propose(longer, 2, seed=5)  # reuse changes no sample
    g.clear_prompt_cache()
    g.propose(longer, 1, seed=5)
    assert g.last_stats["prompt"] == full  # cold again: the whole prompt computed


@pytest.mark.slow
def test_greedy_decoding_equals_transformers_generate(smollm2):
    import torch

    lm, tok = smollm2
    g = TransformersGenerator.from_loaded(lm, tok, max_new_tokens=12, temperature=0.0)
    ctx = CTX.extend("12 + 7 = 19")
    g.propose(CTX, 1, seed=0)  # the longer prompt now extends a cached one
    ours = g.sample(g.prompt(ctx), 1, 0, lambda text: False)[0]
    enc = tok(g.prompt(ctx), return_tensors="pt", add_special_tokens=False)
    with torch.no_grad():
        ref = lm.generate(**enc, max_new_tokens=12, do_sample=False, pad_token_id=tok.pad_token_id)
    ref_ids = ref[0, enc["input_ids"].shape[1] :].tolist()
    assert ours == ref_ids[: len(ours)] and (len(ours) == 12 or ours[-1] in g.sampler.stop_ids)


@pytest.mark.slow
def test_seeded_sampling_repeats_and_varies(smollm2):
    g = TransformersGenerator.from_loaded(*smollm2, max_new_tokens=6)
    a = g.propose(CTX, 2, seed=5)
    assert g.propose(CTX, 2, seed=5) == a  # same seed, same candidates
    hot = TransformersGenerator.from_loaded(*smollm2, max_new_tokens=6, temperature=1.5, top_p=1.0)
    assert hot.propose(CTX, 2, seed=1) != hot.propose(CTX, 2, seed=2)  # the seed drives the sampling


@pytest.mark.slow
def test_greedy_when_temperature_is_zero(smollm2):
    g = TransformersGenerator.from_loaded(*smollm2, max_new_tokens=8, temperature=0.0)
    a = g.propose(CTX, 2, seed=1)
    assert a[0] == a[1] == g.propose(CTX, 1, seed=99)[0]


@pytest.mark.slow
def test_prompt_holds_the_example_question_and_accepted_steps(gen):
    p = gen.prompt(CTX.extend("12 + 7 = 19"))
    assert DEFAULT_EXAMPLE[1] in p and CTX.question in p
    assert p.endswith("assistant\n12 + 7 = 19\n")  # the model continues its own answer on a new line
    assert steps_text(["a", "b"]) == "a\nb\n"
    assert chat_prompt(gen.tokenizer, "sys", "q").rstrip().endswith("assistant")


def test_is_final():
    g = TransformersGenerator.__new__(TransformersGenerator)
    assert g.is_final("The answer is 16.") and g.is_final("Answer: 3") and g.is_final("so \\boxed{4}")
    assert g.is_final("")  # the model wrote nothing more: the chain is done
    assert not g.is_final("12 + 7 = 19")


def test_bad_settings_are_rejected():
    with pytest.raises(ValueError, match="top_p"):
        TransformersGenerator(top_p=0.0)
    with pytest.raises(ValueError, match="max_new_tokens"):
        TransformersGenerator(max_new_tokens=0)


@pytest.mark.slow
def test_n_must_be_positive(gen):
    with pytest.raises(ValueError, match="n must be"):
        gen.propose(CTX, 0, seed=0)


@pytest.mark.slow
def test_candidates_split_over_calls_are_the_candidates_of_one_call(smollm2):
    g = TransformersGenerator.from_loaded(*smollm2, max_new_tokens=8, temperature=1.2, top_p=0.95)
    ctx = CTX.extend("12 + 7 = 19")
    for seed in (1, 2, 3):
        whole = g.propose(ctx, 3, seed)
        assert g.propose(ctx, 1, seed) + g.propose(ctx, 2, seed, first=1) == whole
        assert g.propose(ctx, 1, seed, first=2) == whole[2:]
