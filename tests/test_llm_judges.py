"""LLM judges in three roles: scores from next-token probabilities, all roles x candidates in one call."""

from __future__ import annotations

import pytest

from accord.adapters.local._llm import LLMJudge, LLMJudges, judge_items
from accord.adapters.local._scoring import plain_scores
from accord.protocols import StepContext

CTX = StepContext("Calculate 12 + 7 - 3.", ("12 + 7 = 19",))
CANDS = ["19 - 3 = 16", "19 - 3 = 40", "My favourite colour is blue."]


@pytest.fixture(scope="module")
def judges(smollm2):
    lm, tok = smollm2
    return LLMJudges(lm=lm, tokenizer=tok)


@pytest.mark.slow
def test_prompts_hold_the_context_the_candidate_and_the_role(smollm2):
    tok = smollm2[1]
    items = judge_items(tok, "logic", "yes_no", CTX, CANDS)
    assert len(items) == len(CANDS)
    for (prefix, suffix), cand in zip(items, CANDS):
        prompt = prefix + suffix
        assert CTX.question in prompt and "1. 12 + 7 = 19" in prompt and cand in prompt
        assert "LOGICAL VALIDITY" in prompt and "yes" in prompt
        assert suffix  # the part after the shared prefix, ending where the answer token is read
    # all items share the opening of their prompt, whose KV cache the scorer computes once
    import os

    prompts = [p + s for p, s in items]
    shared = os.path.commonprefix(prompts)
    assert CTX.question in shared and "1. 12 + 7 = 19" in shared
    grounding = [p + s for p, s in judge_items(tok, "grounding", "yes_no", CTX, CANDS)]
    assert grounding != prompts  # each role reads its own answer
    assert "digit" in "".join(judge_items(tok, "logic", "digits", CTX, CANDS)[0])
    assert "(empty" in "".join(judge_items(tok, "logic", "yes_no", CTX, [""])[0])


@pytest.mark.slow
def test_all_roles_and_candidates_in_one_scorer_call(judges):
    calls = []
    real = judges.scorer.score
    judges.scorer.score = lambda items: calls.append(len(items)) or real(items)
    try:
        out = judges.score_many(CTX, CANDS)
    finally:
        judges.scorer.score = real
    assert calls == [3 * len(CANDS)]
    assert len(out) == 3 and all(len(col) == len(CANDS) for col in out)
    assert all(0.0 <= s.value <= 1.0 for col in out for s in col)
    assert judges.names == ["llm_grounding", "llm_logic", "llm_relevance"]
    assert judges.last_tokens > 0


@pytest.mark.slow
def test_scores_are_the_models_next_token_probabilities(judges, smollm2):
    out = judges.score_many(CTX, CANDS)
    items = [it for role in judges.roles for it in judge_items(smollm2[1], role, "yes_no", CTX, CANDS)]
    ref = plain_scores(*smollm2, items, mode="yes_no")  # one plain forward pass per prompt
    got = [s.value for col in out for s in col]
    assert got == pytest.approx(ref, abs=1e-5)
    assert judges.describe()["scoring"] == "next-token" and judges.describe()["mode"] == "yes_no"


@pytest.mark.slow
def test_digit_mode_and_single_role_judge(smollm2):
    lm, tok = smollm2
    j = LLMJudge("relevance", lm=lm, tokenizer=tok, mode="digits")
    assert j.name == "llm_relevance"
    scores = j.score(CTX, CANDS)
    assert len(scores) == 3 and all(0.0 <= s.value <= 1.0 for s in scores)


@pytest.mark.slow
def test_bad_roles_and_modes(smollm2):
    lm, tok = smollm2
    with pytest.raises(ValueError, match="unknown LLM judge role"):
        LLMJudges(("vision",), lm=lm, tokenizer=tok)
    with pytest.raises(ValueError, match="mode"):
        LLMJudges(mode="likert", lm=lm, tokenizer=tok)
    with pytest.raises(ValueError, match="names"):
        LLMJudges(("logic",), names=["a", "b"], lm=lm, tokenizer=tok)


@pytest.mark.slow
def test_embedding_relevance_judge(minilm):
    from accord.adapters.local._embedding import EmbeddingRelevanceJudge

    j = EmbeddingRelevanceJudge(model=minilm)
    on, off, empty = j.score(CTX, ["19 - 3 = 16, so 12 + 7 - 3 is 16", "My favourite colour is blue.", " "])
    assert 0.0 <= off.value < on.value <= 1.0
    assert empty.value is None and "empty" in empty.reason
