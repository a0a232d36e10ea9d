"""NextTokenScorer: the fast path (batched, prefix KV reuse, judge cache) equals plain forward passes."""

from __future__ import annotations

import math

import pytest
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from accord.adapters import JudgeCache
from accord.adapters.local._scoring import NextTokenScorer, answer_token_groups, plain_scores

PREFIXES = [
    "<|im_start|>system\nYou check one step of a solution. Reply yes or no.<|im_end|>\n<|im_start|>user\nQuestion: "
    "What is 12 + 30?\n",
    "<|im_start|>system\nYou check whether a step stays on the question.<|im_end|>\n<|im_start|>user\nQuestion: What "
    "is 12 + 30?\n",
    "Question: A farmer has 3 pens with 4 sheep each. How many sheep?\nSteps so far:\n3 pens times 4 sheep.\n",
]
SUFFIXES = [
    "Step: 12 + 30 = 42.\nIs this step correct?<|im_end|>\n<|im_start|>assistant\n",
    "Step: 12 + 30 = 52.\nIs this step correct?<|im_end|>\n<|im_start|>assistant\n",
    "Step: so the answer is 12.\nAnswer:",
    "Step: The sheep eat grass and the weather is nice today, which matters a lot for farmers.\nAnswer:",
]


def _close(a, b, tol=1e-5):
    return len(a) == len(b) and all(abs(x - y) <= tol for x, y in zip(a, b))


def test_answer_tokens_are_single_distinct_tokens(smollm2):
    _, tok = smollm2
    yes, no = answer_token_groups(tok, "yes_no")
    assert tok.encode(" yes", add_special_tokens=False)[0] in yes
    assert tok.encode("No", add_special_tokens=False)[0] in no
    assert not set(yes) & set(no)
    digits = answer_token_groups(tok, "digits")
    assert len(digits) == 10 and all(digits)


@pytest.mark.slow
def test_fast_path_equals_plain_forward_on_smollm2(smollm2):
    model, tok = smollm2
    mode = "yes_no"
    items = [(p, s) for p in PREFIXES[:2] for s in SUFFIXES[:2]]
    scorer = NextTokenScorer(model, tok, mode=mode, model_id="smollm2", batch_size=8)
    fast = scorer.score(items)
    ref = plain_scores(model, tok, items, mode=mode)
    assert _close(fast, ref), max(abs(x - y) for x, y in zip(fast, ref))
    assert all(0.0 <= x <= 1.0 for x in fast)
    assert len({round(x, 6) for x in fast}) > 1  # candidates are told apart
    assert scorer.describe()["suffix_layout"].startswith("tree")  # the tree layout was used
    # the prefixes' tokens computed once (their shared opening once for both), all in one pass
    a, b = (tok.encode(p) for p in PREFIXES[:2])
    shared = next(k for k in range(len(a)) if a[k] != b[k])
    assert scorer.stats.prefix_tokens_computed == len(a) + len(b) - shared
    assert scorer.stats.forward_passes == 1
    more = [(p, s) for p in PREFIXES[:2] for s in SUFFIXES[2:]]  # cached prefixes: one row per prefix
    assert _close(scorer.score(more), plain_scores(model, tok, more, mode=mode))
    assert scorer.stats.forward_passes == 2 and scorer.stats.prefix_tokens_computed == len(a) + len(b) - shared


@pytest.mark.slow
@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    picks=st.lists(
        st.tuples(st.integers(0, len(PREFIXES) - 1), st.integers(0, len(SUFFIXES) - 1)), min_size=1, max_size=9
    ),
    extra=st.lists(st.sampled_from([" yes", " no", "7", " wait", "\n", "é", "42"]), max_size=4),
    batch_size=st.integers(1, 5),
    tree_tokens=st.sampled_from([8, 60, 1024]),  # small: one tree per prefix group, or less
    mode=st.sampled_from(["yes_no", "digits"]),
    layout=st.sampled_from([None, False]),  # checked tree layouts, or the one-row-per-item fallback
)
def test_mixed_prefixes_any_batching_equal_plain(tiny_lm, picks, extra, batch_size, tree_tokens, mode, layout):
    model, tok = tiny_lm
    tail = "".join(extra)
    items = [(PREFIXES[p], SUFFIXES[s] + tail) for p, s in picks]
    scorer = NextTokenScorer(model, tok, mode=mode, batch_size=batch_size, max_tree_tokens=tree_tokens)
    scorer._tree_ok = layout
    ref = plain_scores(model, tok, items, mode=mode)
    assert _close(scorer.score(items), ref)
    assert _close(scorer.score(items[::-1]), ref[::-1])  # now over cached prefixes


@pytest.mark.slow
def test_prefix_cache_extends_as_the_chain_grows(tiny_lm):
    model, tok = tiny_lm
    scorer = NextTokenScorer(model, tok, mode="digits")
    base = PREFIXES[2]
    chain = [base, base + "That is 12 sheep.\n", base + "That is 12 sheep.\nSo 12 sheep in all.\n"]
    for k, prefix in enumerate(chain):
        before = scorer.stats.prefix_tokens_computed
        items = [(prefix, s) for s in SUFFIXES[2:]]
        assert _close(scorer.score(items), plain_scores(model, tok, items, mode="digits"))
        computed = scorer.stats.prefix_tokens_computed - before
        if k:  # only the new step's tokens (and at most one boundary token) are computed
            grown = len(tok.encode(prefix)) - len(tok.encode(chain[k - 1]))
            assert computed <= grown + 1
    assert scorer.stats.prefix_tokens_reused > 0


@pytest.mark.slow
def test_edge_items_and_eviction(tiny_lm):
    model, tok = tiny_lm
    items = [
        ("", "Is this fine? Answer:"),
        ("Only a prefix. Answer:", ""),
        (PREFIXES[0], SUFFIXES[0]),
        (PREFIXES[1], SUFFIXES[1]),
    ]
    scorer = NextTokenScorer(model, tok, max_prefix_tokens=8)  # forces eviction between prefixes
    assert _close(scorer.score(items), plain_scores(model, tok, items))
    assert _close(scorer.score(items[::-1]), plain_scores(model, tok, items[::-1]))
    assert scorer._prefixes.tokens <= max(8, max(len(p.ids) for p in scorer._prefixes))


@pytest.mark.slow
def test_judge_cache_answers_repeat_calls(tiny_lm, tmp_path):
    model, tok = tiny_lm
    items = [(PREFIXES[0], s) for s in SUFFIXES]
    cache = JudgeCache(tmp_path / "judge_cache.jsonl")
    first = NextTokenScorer(model, tok, model_id="tiny", cache=cache)
    a = first.score(items)
    passes = first.stats.forward_passes
    assert first.score(items) == a and first.stats.forward_passes == passes
    assert first.stats.cache_hits == len(items)
    cache.close()
    # a fresh process-like start: scores come from the file, no forward pass at all
    again = NextTokenScorer(model, tok, model_id="tiny", cache=JudgeCache(tmp_path / "judge_cache.jsonl"))
    assert again.score(items) == a and again.stats.forward_passes == 0
    # another model id or mode is another key
    other = NextTokenScorer(
        model, tok, model_id="tiny", mode="digits", cache=JudgeCache(tmp_path / "judge_cache.jsonl")
    )
    other.score(items[:1])
    assert other.stats.forward_passes > 0


def test_describe_records_the_mode(smollm2):
    model, tok = smollm2
    d = NextTokenScorer(model, tok, mode="digits", model_id="smollm2").describe()
    assert d["mode"] == "digits" and d["model"] == "smollm2" and len(d["answer_tokens"]) == 10


def test_digit_score_is_expected_digit_over_nine(smollm2):
    model, tok = smollm2
    scorer = NextTokenScorer(model, tok, mode="digits")
    logits = torch.full((len(tok),), -1e4)
    seven = tok.encode("7", add_special_tokens=False)[0]
    three = tok.encode("3", add_special_tokens=False)[0]
    logits[seven] = 5.0
    logits[three] = 5.0
    assert math.isclose(scorer.score_from_logits(logits), 5.0 / 9.0, abs_tol=1e-9)
    yn = NextTokenScorer(model, tok)
    yes = tok.encode(" yes", add_special_tokens=False)[0]
    no = tok.encode(" no", add_special_tokens=False)[0]
    logits = torch.full((len(tok),), -1e4)
    logits[yes], logits[no] = math.log(3.0), 0.0
    assert math.isclose(yn.score_from_logits(logits), 0.75, abs_tol=1e-6)


def test_bad_input_is_named(smollm2):
    model, tok = smollm2
    with pytest.raises(ValueError, match="scoring mode"):
        NextTokenScorer(model, tok, mode="stars")
    with pytest.raises(ValueError, match="batch_size"):
        NextTokenScorer(model, tok, batch_size=0)
    scorer = NextTokenScorer(model, tok)
    with pytest.raises(TypeError, match="item 1"):
        scorer.score([("a", "b"), "just a string"])
    with pytest.raises(ValueError, match="item 0: empty prompt"):
        scorer.score([("", "")])
    assert scorer.score([]) == []


@pytest.mark.slow
def test_llm_judge_layout_shares_work_across_roles_and_steps(tiny_lm):
    from accord.adapters.local._llm import LLM_ROLES, judge_items
    from accord.protocols import StepContext

    model, tok = tiny_lm
    scorer = NextTokenScorer(model, tok)
    ctx = StepContext("What is 12 + 30 + 8?")
    cands = ["12 + 30 = 42.", "12 + 30 = 52.", "The answer is 50."]
    for _ in range(2):
        items = [it for role in LLM_ROLES for it in judge_items(tok, role, "yes_no", ctx, cands)]
        before = scorer.stats.as_dict()
        assert _close(scorer.score(items), plain_scores(model, tok, items))
        # the new shared text, the candidates and the 9 short role suffixes: one tree, one pass
        assert scorer.stats.forward_passes - before["forward_passes"] == 1
        assert scorer.stats.suffix_tokens - before["suffix_tokens"] <= 9 * 6
        ctx = ctx.extend(cands[0])
    # the second step computed its candidates' prefixes on top of the first step's shared opening
    assert scorer.stats.prefix_tokens_reused > 0
