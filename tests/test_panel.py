"""The panel: concurrent judges, time limits, failures recorded as None with a reason, λ and W checks."""

from __future__ import annotations

import threading

import numpy as np
import pytest

from accord.adapters.math import ArithmeticJudge
from accord.protocols import JudgeScore, StepContext
from accord.verify.loop import Panel, build_panel

CTX = StepContext("Calculate 2 + 3.")
CANDS = ["2 + 3 = 5", "2 + 3 = 6"]


class Rendezvous:
    """Scores only if the other judge is running at the same time (a barrier of two)."""

    def __init__(self, name, barrier):
        self.name, self.barrier = name, barrier

    def score(self, ctx, candidates):
        self.barrier.wait(timeout=30)  # raises BrokenBarrierError if judges ran one after another
        return [JudgeScore(0.5)] * len(candidates)


class Sleeper:
    name = "sleeper"

    def __init__(self, event):
        self.event = event

    def score(self, ctx, candidates):
        self.event.wait(60)
        return [JudgeScore(1.0)] * len(candidates)


class Returns:
    def __init__(self, name, out):
        self.name, self.out = name, out

    def score(self, ctx, candidates):
        return self.out


def test_judges_run_concurrently():
    barrier = threading.Barrier(2)
    ps = Panel([Rendezvous("a", barrier), Rendezvous("b", barrier)], [1.0, 1.0]).score(CTX, CANDS)
    assert np.all(ps.raw == 0.5) and all(f is None for row in ps.failures for f in row)


def test_a_judge_past_its_time_limit_becomes_none_with_the_reason():
    release = threading.Event()
    try:
        ps = Panel([ArithmeticJudge(), Sleeper(release)], [1.5, 1.0], timeout_s=0.5).score(CTX, CANDS)
    finally:
        release.set()
    assert ps.raw[:, 0].tolist() == [1.0, 0.0]
    assert np.all(np.isnan(ps.raw[:, 1]))
    assert all(row[1] == "timed out after 0.5 s" for row in ps.failures)


class Raises:
    name = "raises"

    def score(self, ctx, candidates):
        raise ZeroDivisionError("boom")


@pytest.mark.parametrize(
    "judge, reason",
    [
        (Raises(), "judge raised ZeroDivisionError: boom"),
        (Returns("short", [JudgeScore(1.0)]), "returned 1 scores for 2 candidates"),
        (Returns("range", [1.5, 0.2]), "outside [0, 1]"),
        (Returns("nan", [float("nan"), 0.2]), "outside [0, 1]"),
        (Returns("text", ["high", 0.2]), "not a score"),
        (Returns("none", [None, 0.2]), "returned None"),
    ],
)
def test_malformed_judge_output_is_a_recorded_failure(judge, reason):
    ps = Panel([ArithmeticJudge(), judge], [1.0, 1.0]).score(CTX, CANDS)
    assert ps.raw[:, 0].tolist() == [1.0, 0.0]
    assert np.isnan(ps.raw[0, 1]) and reason in ps.failures[0][1]


def test_a_judge_with_nothing_to_check_abstains_and_keeps_its_reason():
    ps = Panel([ArithmeticJudge(), ArithmeticJudge("again")], [1.0, 1.0]).score(CTX, ["no arithmetic here"])
    assert ps.abstentions[0] == ["no arithmetic to check", "no arithmetic to check"]
    assert ps.failures[0] == [None, None]  # an abstention is not a failure
    assert ps.reasons[0] == ["no arithmetic to check", "no arithmetic to check"]


def test_timings_cover_every_column():
    ps = Panel([ArithmeticJudge(), ArithmeticJudge("b")], [1.0, 1.0]).score(CTX, CANDS)
    assert set(ps.judge_s) == {"arithmetic", "b"} and ps.wall_s >= 0


@pytest.mark.parametrize(
    "kwargs, message",
    [
        (dict(judges=[ArithmeticJudge()], lambdas=[1.0]), "at least two"),
        (dict(judges=[ArithmeticJudge(), ArithmeticJudge()], lambdas=[1.0, 1.0]), "unique"),
        (dict(judges=[ArithmeticJudge(), ArithmeticJudge("b")], lambdas=[1.0]), "2 judges"),
        (dict(judges=[ArithmeticJudge(), ArithmeticJudge("b")], lambdas=[1.0, 0.0]), "> 0"),
        (dict(judges=[ArithmeticJudge(), ArithmeticJudge("b")], lambdas=[1.0, 1.0], timeout_s=0), "timeout"),
        (
            dict(judges=[ArithmeticJudge(), ArithmeticJudge("b")], lambdas=[1.0, 1.0], influence=[[0, 2], [1, 0]]),
            "row-stochastic",
        ),
    ],
)
def test_bad_panels_are_rejected(kwargs, message):
    with pytest.raises(ValueError, match=message):
        Panel(**kwargs)
    with pytest.raises(TypeError, match="not a judge"):
        Panel([object(), ArithmeticJudge()], [1.0, 1.0])


def test_influence_matrix_is_kept():
    W = [[0.0, 1.0], [1.0, 0.0]]
    p = Panel([ArithmeticJudge(), ArithmeticJudge("b")], [1.0, 2.0], influence=W)
    assert p.influence.tolist() == W and p.lambdas == (1.0, 2.0)


def test_build_panel_checks_specs():
    with pytest.raises(ValueError, match=r"judges\[0\]: unknown judge type 'oracle'; choose one of arithmetic, "):
        build_panel([{"type": "oracle"}, {"type": "arithmetic"}])
    with pytest.raises(ValueError, match=r"judges\[1\]: llm judge needs a 'role'"):
        build_panel([{"type": "arithmetic"}, {"type": "llm", "role": "vision"}])
    with pytest.raises(ValueError, match=r"judges\[1\]: arithmetic judge"):
        build_panel([{"type": "arithmetic"}, {"type": "arithmetic", "colour": 1}])
    p = build_panel([{"type": "arithmetic", "lambda": 2.0}, {"type": "arithmetic", "name": "second"}])
    assert p.names == ["arithmetic", "second"] and p.lambdas == (2.0, 1.0)


@pytest.mark.slow
def test_mixed_panel_merges_llm_roles_into_one_group(smollm2, minilm):
    specs = [
        {"type": "llm", "role": "grounding"},
        {"type": "arithmetic", "lambda": 1.2},
        {"type": "llm", "role": "logic"},
        {"type": "embedding", "lambda": 0.8},
        {"type": "llm", "role": "relevance"},
    ]
    p = build_panel(specs, models={"smollm2": smollm2})
    # the three roles share one model: one group, scored in one call; λ follow each judge
    assert p.names == ["llm_grounding", "llm_logic", "llm_relevance", "arithmetic", "minilm_relevance"]
    assert p.lambdas == (1.5, 1.0, 0.8, 1.2, 0.8)
    assert len(p.groups) == 3
    ps = p.score(CTX, CANDS)
    assert ps.raw.shape == (2, 5) and not np.isnan(ps.raw[:, :3]).any()
    assert ps.raw[:, 3].tolist() == [1.0, 0.0] and ps.tokens > 0
    assert p.describe()["llm_logic"]["mode"] == "yes_no"
