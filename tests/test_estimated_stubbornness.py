"""Runs with ``stubbornness: estimated``: λ learned from the panel's agreement during the run."""

from __future__ import annotations

import json
import random

import numpy as np
import pytest
from test_engine import AdditionWalker, GroundingJudge, tasks

from accord.adapters.math import ArithmeticJudge
from accord.consensus_core import ConsensusSpec, all_to_all, get_policy
from accord.errors import UserError
from accord.protocols import JudgeScore
from accord.verify.loop import Budgets, Chain, Panel, StepLoop, TraceWriter, build_panel, load_resume_state
from accord.verify.run import resolve


class NoisyArithmetic:
    """The arithmetic check blurred by seeded noise: a real but less reliable judge."""

    def __init__(self, name: str, sd: float):
        self.name = name
        self.inner = ArithmeticJudge()
        self.sd = sd

    def score(self, ctx, candidates):
        out = []
        for c, s in zip(candidates, self.inner.score(ctx, candidates)):
            rng = random.Random(f"{ctx.question}|{ctx.steps}|{c}")
            v = 0.5 if s.value is None else s.value
            out.append(JudgeScore(min(1.0, max(0.0, v + rng.gauss(0, self.sd)))))
        return out


def judges():
    """A checker, a constant (uninformative here) judge and two blurred checkers."""
    return [ArithmeticJudge(), GroundingJudge(), NoisyArithmetic("noisy_a", 0.2), NoisyArithmetic("noisy_b", 0.5)]


def estimating_panel(warmup: int = 24) -> Panel:
    return Panel(judges(), "estimated", warmup=warmup)


def run(path, panel, resume=None):
    with TraceWriter(path) as w:
        loop = StepLoop(
            AdditionWalker(),
            panel,
            [Chain("verdict", get_policy("verdict")), Chain("mean", get_policy("mean"))],
            budgets=Budgets(3, 5, 200),
            seed=2,
            writer=w,
            resume=resume,
        )
        return loop.run(tasks(6)), loop


def steps(path):
    return [r for r in map(json.loads, path.read_text().splitlines()) if r["type"] == "step"]


def test_lambda_is_equal_until_the_warmup_then_the_estimate(tmp_path):
    panel = estimating_panel()
    _, loop = run(tmp_path / "t.jsonl", panel)
    recs = steps(tmp_path / "t.jsonl")
    assert recs[0]["lambdas"] == [1.0] * 4
    assert panel.stubbornness_estimate is not None
    est = [float(x) for x in panel.lambdas]
    assert recs[-1]["lambdas"] == pytest.approx(est)
    assert est != [1.0] * 4
    # the policy that decided each step carries the λ it used
    for r in recs:
        if r["chain"] == "verdict":
            assert r["policy"]["lambdas"] == pytest.approx(r["lambdas"])
    # the checker and the slightly blurred one hold firmer than the very blurred one; the constant
    # judge (no information) least
    assert min(est[0], est[2]) > est[3] > est[1]
    info = panel.stubbornness_estimate["judges"]
    assert set(info) == set(panel.names)


def test_resume_reaches_the_same_estimate_and_decisions(tmp_path):
    full = tmp_path / "full.jsonl"
    ends_full, loop_full = run(full, estimating_panel())
    lines = full.read_text().splitlines()
    cut = tmp_path / "cut.jsonl"
    cut.write_text("\n".join(lines[: len(lines) // 2]) + "\n")
    ends, loop = run(cut, estimating_panel(), resume=load_resume_state(cut))
    assert loop.panel.lambdas == pytest.approx(loop_full.panel.lambdas)
    key = lambda e: (e["task_id"], e["chain"])  # noqa: E731
    assert sorted((key(e), e["steps"]) for e in ends) == sorted((key(e), e["steps"]) for e in ends_full)


def test_panel_from_specs_and_config_key():
    p = build_panel(
        [{"type": "arithmetic", "lambda": 2.0}, {"type": "arithmetic", "name": "second"}],
        stubbornness="estimated",
        warmup=8,
    )
    assert p.estimating and p.lambdas == (1.0, 1.0) and p.warmup == 8
    with pytest.raises(ValueError, match="stubbornness"):
        build_panel([{"type": "arithmetic"}, {"type": "arithmetic", "name": "b"}], stubbornness="learned")
    cfg = resolve({"stubbornness": {"mode": "estimated"}})
    assert (cfg.stubbornness.mode, cfg.stubbornness.warmup) == ("estimated", 30)
    with pytest.raises(UserError, match="stubbornness.mode"):
        resolve({"stubbornness": {"mode": "guessed"}})
    with pytest.raises(UserError, match="stubbornness.warmup"):
        resolve({"stubbornness": {"mode": "estimated", "warmup": 1}})


def test_a_panel_influence_matrix_reaches_the_policies(tmp_path):
    W = np.array([[0.0, 0.9, 0.1], [0.5, 0.0, 0.5], [0.5, 0.5, 0.0]])
    panel = Panel([ArithmeticJudge(), GroundingJudge(), NoisyArithmetic("noisy", 0.3)], [1.5, 1.0, 0.8], influence=W)
    assert not np.allclose(W, all_to_all(3))
    with TraceWriter(tmp_path / "t.jsonl") as w:
        StepLoop(
            AdditionWalker(),
            panel,
            [Chain("verdict", get_policy("verdict"))],
            budgets=Budgets(3, 2, 100),
            seed=0,
            writer=w,
        ).run(tasks(1))
    rec = steps(tmp_path / "t.jsonl")[0]
    raw = np.array(rec["raw"], dtype=float)
    want = get_policy("verdict").decide(raw[None], ConsensusSpec((1.5, 1.0, 0.8), W)).stats.mean[0]
    assert rec["mean"] == pytest.approx(want.tolist())


def test_ray_backend_refuses_an_estimated_stubbornness(tmp_path):
    from accord.verify.run import execute_on_ray

    with pytest.raises(UserError, match="hand-set stubbornness"):
        execute_on_ray(resolve({"stubbornness": {"mode": "estimated"}}), tmp_path)


def test_calibrated_thresholds_are_set_after_the_warmup_and_used_by_verdict(tmp_path):
    panel = Panel(judges(), [1.5, 1.0, 1.0, 0.8], warmup=24, calibrate_thresholds=0.4)
    run(tmp_path / "t.jsonl", panel)
    th = panel.thresholds
    assert th is not None and th["method"] == "target_rate"
    recs = [r for r in steps(tmp_path / "t.jsonl") if r["chain"] == "verdict"]
    assert recs[0]["policy"]["tau"] == 0.6 and recs[0]["policy"]["eps"] == 0.1  # the paper's until calibrated
    last = recs[-1]["policy"]
    assert (last["tau"], last["eps"]) == pytest.approx((th["tau"], th["eps"]))
    for r in recs:  # every decision follows the thresholds its record names
        mean, disp = np.array(r["mean"], dtype=float), np.array(r["dispersion"], dtype=float)
        want = (mean > r["policy"]["tau"]) & (disp < r["policy"]["eps"])
        assert r["accepted"] == want.tolist()
    # resuming from a cut trace reaches the same thresholds
    lines = (tmp_path / "t.jsonl").read_text().splitlines()
    cut = tmp_path / "cut.jsonl"
    cut.write_text("\n".join(lines[: 2 * len(lines) // 3]) + "\n")
    again = Panel(judges(), [1.5, 1.0, 1.0, 0.8], warmup=24, calibrate_thresholds=0.4)
    run(cut, again, resume=load_resume_state(cut))
    assert again.thresholds == pytest.approx(th)
    with pytest.raises(ValueError, match="target acceptance rate"):
        Panel(judges(), [1.0] * 4, calibrate_thresholds=1.5)
    cfg = resolve({"thresholds": {"mode": "calibrated", "target_rate": 0.3}})
    assert (cfg.thresholds.mode, cfg.thresholds.target_rate, cfg.thresholds.calibrate) == ("calibrated", 0.3, 0.3)
    with pytest.raises(UserError, match="thresholds.mode"):
        resolve({"thresholds": {"mode": "guessed"}})
