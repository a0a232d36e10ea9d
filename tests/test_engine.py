"""The step loop: decisions, shared candidates, budgets, adaptive verification, the trace contract."""

from __future__ import annotations

import json
import random
import re

import numpy as np
import pytest

from accord.adapters.math import ArithmeticJudge
from accord.consensus_core import ConsensusSpec, get_policy
from accord.protocols import JudgeScore, StepContext
from accord.verify.analysis import read_trace
from accord.verify.loop import (
    Adaptive,
    Budgets,
    Chain,
    Panel,
    StepLoop,
    TraceWriter,
    context_id,
    generation_seed,
    load_resume_state,
    replay_margin,
)
from accord.verify.tasks import TextTask


class AdditionWalker:
    """A real (rule-based) generator for "Calculate a + b + c." problems: each candidate is the next
    partial sum, wrong by a random offset with probability ``p_wrong``; seeded like any generator."""

    def __init__(self, p_wrong: float = 0.5):
        self.p_wrong = p_wrong
        self.calls = 0

    def propose(self, ctx: StepContext, n: int, seed: int) -> list[str]:
        self.calls += 1
        rng = random.Random(seed)
        terms = [int(x) for x in re.findall(r"\d+", ctx.question)]
        done = len(ctx.steps)
        if done >= len(terms) - 1:
            last = int(ctx.steps[-1].split("=")[-1]) if ctx.steps else terms[0]
            return [f"The answer is {last}."] * n
        acc = terms[0] if done == 0 else int(ctx.steps[-1].split("=")[-1])
        nxt = terms[done + 1]
        out = []
        for _ in range(n):
            value = acc + nxt + (rng.choice([-3, -2, -1, 1, 2, 3]) if rng.random() < self.p_wrong else 0)
            out.append(f"{acc} + {nxt} = {value}")
        return out

    def is_final(self, step: str) -> bool:
        return "answer is" in step


class GroundingJudge:
    """Share of the step's numbers that appear in the question or earlier steps."""

    name = "grounded"

    def score(self, ctx, candidates):
        known = set(re.findall(r"-?\d+", " ".join((ctx.question,) + ctx.steps)))
        out = []
        for c in candidates:
            nums = re.findall(r"-?\d+", c.split("=")[0]) if "=" in c else re.findall(r"-?\d+", c)
            out.append(
                JudgeScore(sum(x in known for x in nums) / len(nums)) if nums else JudgeScore.failed("no numbers")
            )
        return out


def tasks(k: int = 4, seed: int = 0) -> list[TextTask]:
    rng = random.Random(seed)
    out = []
    for i in range(k):
        terms = [rng.randint(1, 30) for _ in range(3)]
        out.append(TextTask(f"add/{i}", f"Calculate {' + '.join(map(str, terms))}.", str(sum(terms))))
    return out


def panel() -> Panel:
    return Panel([ArithmeticJudge(), GroundingJudge()], [1.5, 1.0])


def chains() -> list[Chain]:
    return [Chain("verdict", get_policy("verdict")), Chain("mean", get_policy("mean")), Chain("base")]


def run_loop(tmp_path, gen=None, **kw):
    gen = gen or AdditionWalker()
    path = tmp_path / "trace.jsonl"
    with TraceWriter(path) as w:
        loop = StepLoop(
            gen,
            panel(),
            kw.pop("chains", chains()),
            budgets=kw.pop("budgets", Budgets(3, 5, 200)),
            seed=kw.pop("seed", 0),
            writer=w,
            **kw,
        )
        ends = loop.run(tasks())
    return loop, ends, path


def test_verification_beats_the_unverified_chain_with_a_checking_panel(tmp_path):
    loop, ends, _ = run_loop(tmp_path)
    acc = {c: np.mean([e["correct"] for e in ends if e["chain"] == c]) for c in ("verdict", "mean", "base")}
    assert acc["verdict"] == 1.0 and acc["mean"] == 1.0  # an arithmetic checker always finds the right sum
    assert acc["base"] < 1.0  # candidate 0 is wrong half of the time


def test_trace_follows_the_contract_and_validates(tmp_path):
    loop, ends, path = run_loop(tmp_path)
    trace = read_trace(path)
    assert not trace.notes
    assert {e.chain for e in trace.ends} == {"verdict", "mean", "base"}
    recs = [json.loads(x) for x in path.read_text().splitlines()]
    step = next(r for r in recs if r["type"] == "step")
    for key in (
        "task_id",
        "chain",
        "step",
        "context_id",
        "candidates",
        "judges",
        "lambdas",
        "raw",
        "failures",
        "policy",
        "consensus",
        "mean",
        "dispersion",
        "accepted",
        "chosen",
        "fallback",
        "final",
        "timings",
        "tokens",
    ):
        assert key in step, key
    assert set(step["timings"]) >= {"generate_s", "judge_s", "decide_s"}
    assert set(step["tokens"]) == {"generated", "judge_prompt"}
    assert step["context_id"] == context_id(step["task_id"], [])
    assert len(step["raw"]) == 3 and len(step["raw"][0]) == 2
    # every null score has exactly one reason: a failure, or an abstention (the judge had nothing to check)
    for r in recs:
        if r["type"] == "step":
            for row, frow, arow in zip(r["raw"], r["failures"], r["abstentions"]):
                assert [v is None for v in row] == [(f is not None) != (a is not None) for f, a in zip(frow, arow)]
                assert not any(f is not None and a is not None for f, a in zip(frow, arow))
    end = next(r for r in recs if r["type"] == "task_end")
    assert set(end) >= {"task_id", "chain", "steps", "answer", "reference", "correct", "stopped"}


def test_chains_share_candidates_and_scores(tmp_path):
    gen = AdditionWalker()
    loop, ends, path = run_loop(tmp_path, gen=gen)
    recs = [json.loads(x) for x in path.read_text().splitlines() if '"step"' in x]
    contexts = {r["context_id"] for r in recs}
    assert gen.calls == len(contexts)  # each distinct context generated once, whichever chain came first
    by_ctx: dict = {}
    for r in recs:
        by_ctx.setdefault(r["context_id"], []).append(r)
    shared = [v for v in by_ctx.values() if len(v) > 1]
    assert shared  # the three chains start from the same root context
    for group in shared:
        assert all(g["candidates"] == group[0]["candidates"] and g["raw"] == group[0]["raw"] for g in group)
    assert loop.totals.panel_calls == len(contexts)


def test_base_chain_always_takes_candidate_zero(tmp_path):
    _, _, path = run_loop(tmp_path)
    for line in path.read_text().splitlines():
        r = json.loads(line)
        if r["type"] == "step" and r["chain"] == "base":
            assert r["chosen"] == 0 and r["policy"] == {"name": "base"}


def test_deterministic_under_a_seed_and_seed_matters(tmp_path):
    _, a, _ = run_loop(tmp_path / "a", seed=3)
    _, b, _ = run_loop(tmp_path / "b", seed=3)
    _, c, _ = run_loop(tmp_path / "c", seed=4)
    key = lambda ends: [(e["task_id"], e["chain"], e["steps"]) for e in ends]  # noqa: E731
    assert key(a) == key(b)
    assert key(a) != key(c)
    assert generation_seed(0, "x", 0) != generation_seed(0, "x", 1) != generation_seed(1, "x", 0)


def test_step_budget_and_token_budget_stop_chains(tmp_path):
    _, ends, _ = run_loop(tmp_path / "s", budgets=Budgets(3, 1, 200))
    assert {e["stopped"] for e in ends} == {"step_budget"} and all(len(e["steps"]) == 1 for e in ends)
    _, ends, _ = run_loop(tmp_path / "t", budgets=Budgets(3, 5, 4))  # each step is >= 5 words
    assert {e["stopped"] for e in ends} == {"token_budget"}
    _, ends, _ = run_loop(tmp_path / "f")
    assert {e["stopped"] for e in ends} == {"final"}
    assert all(e["steps"][-1].startswith("The answer is") for e in ends)


def test_adaptive_verification_skips_candidates_once_one_is_accepted_with_margin(tmp_path):
    gen = AdditionWalker(p_wrong=0.0)  # every candidate right: the first one is accepted with margin
    loop, ends, path = run_loop(tmp_path, gen=gen, adaptive=Adaptive(True, group=1), chains=chains()[:1])
    recs = [json.loads(x) for x in path.read_text().splitlines() if '"step"' in x]
    sums = [r for r in recs if "=" in r["candidates"][0]]  # both judges score these
    assert sums and all(r["n_generated"] == 1 and r["adaptive"]["stopped_early"] for r in sums)
    # "The answer is X." has no arithmetic: one score only, never accepted, so all n are generated
    assert all(r["n_generated"] == 3 for r in recs if "=" not in r["candidates"][0])
    assert loop.totals.candidates_generated == sum(r["n_generated"] for r in recs)
    gen = AdditionWalker(p_wrong=1.0)  # every candidate wrong: nothing accepted, all n generated
    loop, ends, path = run_loop(tmp_path / "w", gen=gen, adaptive=Adaptive(True, group=1), chains=chains()[:1])
    recs = [json.loads(x) for x in path.read_text().splitlines() if '"step"' in x]
    assert recs and all(r["n_generated"] == 3 for r in recs)


class RowSeededWalker(AdditionWalker):
    """The walker with candidate i drawn from its own stream (seed, i), like the causal-LM generators."""

    seeded_by_row = True

    def propose(self, ctx: StepContext, n: int, seed: int, first: int = 0) -> list[str]:
        return [super(RowSeededWalker, self).propose(ctx, 1, seed * 1000 + first + i)[0] for i in range(n)]


def test_adaptive_runs_see_the_candidates_of_a_full_run(tmp_path):
    def steps(path):
        return {
            (r["task_id"], r["context_id"]): r
            for r in map(json.loads, path.read_text().splitlines())
            if r["type"] == "step"
        }

    _, _, full = run_loop(tmp_path / "full", gen=RowSeededWalker(0.5), chains=chains()[:1])
    _, _, ada = run_loop(
        tmp_path / "ada", gen=RowSeededWalker(0.5), adaptive=Adaptive(True, group=1), chains=chains()[:1]
    )
    full, ada = steps(full), steps(ada)
    shared = set(full) & set(ada)
    assert any(r["n_generated"] == 1 for r in ada.values()) and any(r["n_generated"] == 3 for r in ada.values())
    for key in shared:  # the same context: adaptive's candidates are the first of the full run's
        k = ada[key]["n_generated"]
        assert ada[key]["candidates"] == full[key]["candidates"][:k]
        if k == 3:
            assert ada[key]["chosen"] == full[key]["chosen"]
    # and the full run alone predicts where adaptive stops (what calibrate_margin relies on)
    policy = chains()[0].policy
    for key in shared:
        rec = full[key]
        predicted = replay_margin(
            [(np.array(rec["raw"], dtype=float), rec["candidates"])], policy, 0.9, 0.05, spec=ConsensusSpec((1.5, 1.0))
        )
        assert predicted.stop_rate == float(ada[key]["adaptive"]["stopped_early"])


def test_adaptive_margin_is_learned_without_labels_after_a_fully_verified_warm_up(tmp_path):
    ada = Adaptive(True, group=1, calibrate=1.0, warmup_steps=4)
    loop, _, path = run_loop(tmp_path, gen=RowSeededWalker(0.5), adaptive=ada, chains=chains()[:1])
    recs = [r for r in map(json.loads, path.read_text().splitlines()) if r["type"] == "step"]
    sources = [r["adaptive"]["margin"]["source"] for r in recs]
    assert sources[:4] == ["calibrating"] * 4 and set(sources[4:]) == {"calibrated"}
    assert all(r["n_generated"] == 3 for r in recs[:4])  # the warm-up is fully verified
    m = loop.margin
    assert (
        m is not None
        and m.steps == 4
        and m.agreement == 1.0
        and recs[-1]["adaptive"]["margin"]["min_mean"] == m.min_mean
    )
    assert any(r["n_generated"] == 1 for r in recs[4:])  # and it does stop early afterwards
    warm = [(np.array(r["raw"], dtype=float), r["candidates"]) for r in recs[:4]]
    assert (
        replay_margin(warm, chains()[0].policy, m.min_mean, m.max_dispersion, spec=loop.panel.consensus).stop_rate
        == m.stop_rate
    )
    # a run cut after the warm-up and resumed learns the same margin from the trace
    lines = path.read_text().splitlines(keepends=True)
    cut = tmp_path / "cut" / "trace.jsonl"
    cut.parent.mkdir()
    fifth = [i for i, line in enumerate(lines) if '"type": "step"' in line][5]
    cut.write_text("".join(lines[:fifth]))
    with TraceWriter(cut) as w:
        again = StepLoop(
            RowSeededWalker(0.5),
            panel(),
            chains()[:1],
            budgets=Budgets(3, 5, 200),
            seed=0,
            writer=w,
            adaptive=ada,
            resume=load_resume_state(cut),
        )
        again.run(tasks())
    assert again.margin == m
    with pytest.raises(ValueError, match="target agreement"):
        Adaptive(True, calibrate=0.0)
    with pytest.raises(ValueError, match="more candidates per step"):
        StepLoop(RowSeededWalker(0.5), panel(), chains()[:1], budgets=Budgets(1, 5, 200), adaptive=ada)


class Exploding:
    name = "exploding"

    def score(self, ctx, candidates):
        raise RuntimeError("model server down")


def test_a_failing_judge_is_recorded_not_fatal(tmp_path):
    p = Panel([ArithmeticJudge(), GroundingJudge(), Exploding()], [1.5, 1.0, 0.8])
    path = tmp_path / "trace.jsonl"
    with TraceWriter(path) as w:
        StepLoop(AdditionWalker(), p, [Chain("verdict", get_policy("verdict"))], writer=w).run(tasks(2))
    recs = [json.loads(x) for x in path.read_text().splitlines() if '"step"' in x]
    assert all(row[2] is None for r in recs for row in r["raw"])
    assert all("model server down" in f[2] for r in recs for f in r["failures"])


def test_bad_construction_is_rejected():
    with pytest.raises(ValueError, match="unique labels"):
        StepLoop(AdditionWalker(), panel(), [Chain("a"), Chain("a")])
    with pytest.raises(ValueError, match="budgets"):
        Budgets(0, 1, 1)
    with pytest.raises(ValueError, match="group"):
        Adaptive(True, group=0)


@pytest.mark.slow
def test_real_smollm2_end_to_end_on_two_tiny_problems(smollm2, minilm, tmp_path):
    from accord.adapters.local import LLMJudges, TransformersGenerator
    from accord.adapters.local._embedding import EmbeddingRelevanceJudge
    from accord.verify.tasks import load_tasks

    lm, tok = smollm2
    gen = TransformersGenerator.from_loaded(lm, tok, max_new_tokens=12)
    judges = LLMJudges(("grounding", "logic", "relevance"), lm=lm, tokenizer=tok)
    p = Panel([judges, ArithmeticJudge(), EmbeddingRelevanceJudge(model=minilm)], [1.5, 1.0, 0.8, 1.5, 0.8])
    probs = load_tasks("basic_arithmetic", size=2, seed=0, max_terms=2, max_digits=1)
    path = tmp_path / "trace.jsonl"
    with TraceWriter(path) as w:
        loop = StepLoop(
            gen, p, [Chain("verdict", get_policy("verdict")), Chain("base")], budgets=Budgets(2, 2, 40), writer=w
        )
        ends = loop.run(probs)
    trace = read_trace(path)
    assert len(trace.ends) == 4 and {e.chain for e in trace.ends} == {"verdict", "base"}
    for r in trace.steps:
        assert r.judges == ("llm_grounding", "llm_logic", "llm_relevance", "arithmetic", "minilm_relevance")
        assert np.all(np.isnan(r.raw[:, :3]) == False)  # noqa: E712  the LLM judges score every candidate
        assert all("\n" not in c for c in r.candidates)
    assert loop.totals.generated_tokens > 0 and loop.totals.judge_tokens > 0
    assert all(e["correct"] in (0.0, 1.0) for e in ends)
