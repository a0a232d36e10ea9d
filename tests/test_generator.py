"""The transformers generator: one step per call, n candidates in one batched call, seeded."""

from __future__ import annotations

import pytest

from accord.adapters.llm import DEFAULT_EXAMPLE, TransformersGenerator, chat_prompt, steps_text
from accord.verify.protocols import StepContext

CTX = StepContext("Calculate 12 + 7 - 3.")


@pytest.fixture(scope="module")
def gen(smollm2):
    return TransformersGenerator.from_loaded(*smollm2, max_new_tokens=10)


class CountingLM:
    """Wraps the real model and counts generate calls (the model still does all the work)."""

    def __init__(self, lm):
        self.lm, self.calls, self.device = lm, 0, lm.device

    def generate(self, **kw):
        self.calls += 1
        return self.lm.generate(**kw)


@pytest.mark.slow
def test_n_candidates_come_from_one_batched_call_and_are_single_lines(smollm2):
    lm, tok = smollm2
    counting = CountingLM(lm)
    g = TransformersGenerator.from_loaded(counting, tok, max_new_tokens=10)
    cands = g.propose(CTX, 3, seed=1)
    assert counting.calls == 1 and len(cands) == 3
    assert all(isinstance(c, str) and "\n" not in c for c in cands)
    per = g.last_stats["per_candidate"]
    assert len(per) == 3 and all(1 <= t <= 10 for t in per) and g.last_stats["generated"] == sum(per)


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
