"""Reward models as judges: tiny random sequence-classification models, and real rewards."""

from __future__ import annotations

import numpy as np
import pytest

from accord.adapters import Calibrator
from accord.adapters.local._reward import (
    CorrectnessReward,
    JudgeReward,
    LikelihoodReward,
    RewardJudge,
    RewardModel,
    SimilarityReward,
    reward_rows,
)
from accord.protocols import StepContext

WORDS = "what is the answer two plus three four five equals yes no sum of".split()
PROMPTS = ["what is two plus three", "what is the sum of two and two", "what is four plus five"]
RESPONSES = ["the answer is five", "two plus two equals four yes", "five plus four equals the sum no"]


def tiny_tokenizer():
    from tokenizers import Tokenizer, models, pre_tokenizers
    from transformers import PreTrainedTokenizerFast

    vocab = {"[PAD]": 0, "[UNK]": 1, **{w: i + 2 for i, w in enumerate(WORDS)}}
    tok = Tokenizer(models.WordLevel(vocab, unk_token="[UNK]"))
    tok.pre_tokenizer = pre_tokenizers.Whitespace()
    return PreTrainedTokenizerFast(tokenizer_object=tok, pad_token="[PAD]", unk_token="[UNK]")


def tiny_reward_model(num_labels: int = 1, seed: int = 0):
    import torch
    from transformers import LlamaConfig, LlamaForSequenceClassification

    torch.manual_seed(seed)
    cfg = LlamaConfig(
        vocab_size=len(WORDS) + 2,
        hidden_size=16,
        intermediate_size=32,
        num_hidden_layers=2,
        num_attention_heads=2,
        num_key_value_heads=2,
        max_position_embeddings=64,
        num_labels=num_labels,
        pad_token_id=0,
    )
    return LlamaForSequenceClassification(cfg).eval(), tiny_tokenizer()


def test_rewards_do_not_depend_on_batching_or_padding():
    model, tok = tiny_reward_model()
    one = RewardModel(model=model, tokenizer=tok, batch_size=1).rewards(PROMPTS, RESPONSES)
    three = RewardModel(model=model, tokenizer=tok, batch_size=3).rewards(PROMPTS, RESPONSES)
    assert one.shape == (3,) and np.all(np.isfinite(one))
    assert np.allclose(one, three, atol=1e-5)
    assert len(set(np.round(one, 6))) == 3  # a random head still tells inputs apart


def test_loading_by_local_path_matches_the_loaded_model(tmp_path):
    model, tok = tiny_reward_model(seed=1)
    model.save_pretrained(tmp_path)
    tok.save_pretrained(tmp_path)
    by_path = RewardModel(str(tmp_path), batch_size=2)
    assert by_path.name == tmp_path.name
    assert np.allclose(
        by_path.rewards(PROMPTS, RESPONSES),
        RewardModel(model=model, tokenizer=tok).rewards(PROMPTS, RESPONSES),
        atol=1e-5,
    )


def test_two_labels_give_log_odds_and_many_labels_need_a_choice():
    import torch

    model, tok = tiny_reward_model(num_labels=2, seed=2)
    r = RewardModel(model=model, tokenizer=tok).rewards(PROMPTS[:1], RESPONSES[:1])
    enc = tok([f"{PROMPTS[0]}\n{RESPONSES[0]}"], return_tensors="pt")
    with torch.no_grad():
        logits = model(**enc).logits[0]
    assert r[0] == pytest.approx(float(logits[1] - logits[0]), abs=1e-5)
    model3, tok3 = tiny_reward_model(num_labels=3)
    with pytest.raises(ValueError, match="say which one"):
        RewardModel(model=model3, tokenizer=tok3)
    lp = RewardModel(model=model3, tokenizer=tok3, label=2).rewards(PROMPTS, RESPONSES)
    assert np.all(lp <= 0)  # a log-probability


def test_half_precision_stays_close_to_float32():
    model, tok = tiny_reward_model(seed=3)
    full = RewardModel(model=model, tokenizer=tok).rewards(PROMPTS, RESPONSES)
    model_b, _ = tiny_reward_model(seed=3)
    half = RewardModel(model=model_b, tokenizer=tok, dtype="bfloat16").rewards(PROMPTS, RESPONSES)
    assert np.allclose(full, half, atol=0.05)
    with pytest.raises(ValueError, match="dtype"):
        RewardModel(model=model, tokenizer=tok, dtype="int8")


def _devices() -> list[str]:
    """A device named explicitly, as a GPU is: ``cpu:0`` on every machine, ``cuda`` where there is one."""
    import torch

    return ["cpu:0"] + (["cuda"] if torch.cuda.is_available() else [])


@pytest.mark.parametrize("device", _devices())
def test_a_named_device_matches_the_default_cpu(device):
    """The model and each batch go to the device asked for and the rewards come back: the path a GPU
    takes (model moved, inputs moved, padded batches, results copied back), on a CPU here."""
    import torch

    model, tok = tiny_reward_model(seed=4)
    cpu = RewardModel(model=model, tokenizer=tok).rewards(PROMPTS, RESPONSES)
    other, _ = tiny_reward_model(seed=4)
    rm = RewardModel(model=other, tokenizer=tok, device=device, batch_size=2)
    assert next(rm.model.parameters()).device.type == torch.device(device).type
    assert np.allclose(cpu, rm.rewards(PROMPTS, RESPONSES), atol=1e-4)


def test_bad_input_is_named():
    model, tok = tiny_reward_model()
    rm = RewardModel(model=model, tokenizer=tok)
    with pytest.raises(ValueError, match="one prompt per response"):
        rm.rewards(PROMPTS, RESPONSES[:2])
    with pytest.raises(ValueError, match="name or local path"):
        RewardModel()
    with pytest.raises(ValueError, match="batch_size"):
        RewardModel(model=model, tokenizer=tok, batch_size=0)


def test_reward_judge_calibrates_onto_the_panel_scale():
    model, tok = tiny_reward_model(seed=5)
    rm = RewardModel(model=model, tokenizer=tok)
    cal = Calibrator("quantile").fit(rm.rewards(PROMPTS * 3, RESPONSES * 3))
    judge = RewardJudge(rm, cal, name="rm")
    scores = judge.score(StepContext(question="what is two plus three"), ["the answer is five", "no"])
    assert judge.name == "rm" and all(0 <= s.value <= 1 for s in scores)
    with pytest.raises(ValueError, match="must be fitted"):
        RewardJudge(rm, Calibrator("standardize"))


ARITH = [
    ("What is 12 + 7?", "12 + 7 = 19. The answer is 19.", "12 + 7 = 25. The answer is 25.", "19"),
    ("What is 9 * 6?", "9 * 6 = 54. The answer is 54.", "9 * 6 = 45. The answer is 45.", "54"),
    ("What is 30 - 12?", "30 - 12 = 18. The answer is 18.", "30 - 12 = 22. The answer is 22.", "18"),
]


def test_correctness_reward_uses_math_verify():
    r = CorrectnessReward().rewards(
        [a[0] for a in ARITH] * 2, [a[1] for a in ARITH] + [a[2] for a in ARITH], [a[3] for a in ARITH] * 2
    )
    assert r.tolist() == [1.0, 1.0, 1.0, 0.0, 0.0, 0.0]
    with pytest.raises(ValueError, match="reference"):
        CorrectnessReward().rewards(["q"], ["a"])


@pytest.mark.slow
def test_real_similarity_reward_prefers_the_reference(minilm):
    sim = SimilarityReward(minilm)
    same = sim.rewards(["q"], ["12 + 7 = 19"], ["12 + 7 = 19"])
    other = sim.rewards(["q"], ["The capital of France is Paris."], ["12 + 7 = 19"])
    assert same[0] == pytest.approx(1.0, abs=1e-4) and other[0] < 0.5


@pytest.mark.slow
def test_real_likelihood_and_generative_judge_rewards(smollm2):
    from accord.adapters.local import LLMJudge

    lm, tok = smollm2
    items = [
        {
            "prompt_id": f"p{i}",
            "response_id": kind,
            "prompt": q,
            "response": resp,
            "reference": ref,
            "label": int(kind == "good"),
        }
        for i, (q, good, bad, ref) in enumerate(ARITH)
        for kind, resp in (("good", good), ("bad", bad))
    ]
    sources = [
        LikelihoodReward(lm, tok, batch_size=4),
        JudgeReward(LLMJudge("logic", lm=lm, tokenizer=tok), name="judge"),
        CorrectnessReward(),
    ]
    rows = reward_rows(sources, items)
    assert {"loglik", "judge", "correct", "label"} <= set(rows[0])
    ll = np.array([r["loglik"] for r in rows])
    assert np.all(ll < 0) and np.all(np.isfinite(ll))
    assert all(0 <= r["judge"] <= 1 for r in rows)
    assert [r["correct"] for r in rows] == [r["label"] for r in rows]
    # batching is invisible: one at a time gives the same log-likelihoods
    single = LikelihoodReward(lm, tok, batch_size=1).rewards(
        [i["prompt"] for i in items], [i["response"] for i in items]
    )
    assert np.allclose(single, ll, atol=1e-4)
