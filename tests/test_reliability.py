"""Stubbornness from agreement and label-free thresholds, on simulated judges and a recorded run."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from accord.consensus_core import ConsensusSpec, get_policy
from accord.consensus_core._reliability import (
    calibrate_thresholds,
    estimate_stubbornness,
    judge_reliability,
    reliability_to_lambda,
)

PAPER = (1.5, 1.0, 0.8)
TRACE = Path(__file__).resolve().parents[1] / "examples" / "runs" / "synthetic" / "trace.jsonl"


def simulated_steps(noise, steps=2000, n=3, seed=0):
    """Candidates good with probability 0.4; judge j sees the quality plus noise of s.d. noise[j]."""
    rng = np.random.default_rng(seed)
    good = (rng.random((steps, n)) < 0.4).astype(float)
    latent = 0.45 + 0.3 * (good - 0.5) + rng.normal(0, 0.08, (steps, n))
    raw = np.clip(latent[..., None] + rng.normal(0, 1, (steps, n, len(noise))) * np.asarray(noise), 0, 1)
    return good, raw


def selection_accuracy(raw, good, lambdas) -> float:
    d = get_policy("verdict").decide(raw, ConsensusSpec(tuple(lambdas)))
    return float(np.mean(good[np.arange(len(good)), d.chosen]))


@pytest.mark.parametrize("noise", [(0.05, 0.15, 0.3), (0.3, 0.15, 0.05), (0.25, 0.05, 0.15)])
def test_estimated_lambda_orders_judges_and_is_no_worse_than_hand_set(noise):
    good, raw = simulated_steps(noise)
    est = estimate_stubbornness(raw, n_boot=40)
    order = np.argsort(noise)  # least noisy first
    assert np.all(np.diff(est.reliability[order]) < 0)
    assert np.all(np.diff(est.lambdas[order]) < 0)
    assert np.all(est.lambdas_ci[:, 0] <= est.lambdas) and np.all(est.lambdas <= est.lambdas_ci[:, 1])
    hand = selection_accuracy(raw, good, PAPER)
    learned = selection_accuracy(raw, good, tuple(est.lambdas))
    print(f"noise {noise}: hand-set {hand:.4f}, estimated {learned:.4f}, lambdas {np.round(est.lambdas, 2)}")
    assert learned >= hand


def test_equally_reliable_judges_get_equal_lambda():
    good, raw = simulated_steps((0.1, 0.1, 0.1))
    est = estimate_stubbornness(raw, n_boot=0)
    assert np.allclose(est.lambdas, 1.0, atol=0.1)
    assert selection_accuracy(raw, good, tuple(est.lambdas)) >= selection_accuracy(raw, good, PAPER) - 0.005


def test_leave_one_out_agrees_on_the_order():
    _, raw = simulated_steps((0.05, 0.15, 0.3, 0.2), seed=3)
    assert np.argsort(-judge_reliability(raw, "loo")).tolist() == [0, 1, 3, 2]
    assert np.argsort(-judge_reliability(raw, "factor")).tolist() == [0, 1, 3, 2]


@settings(max_examples=60, deadline=None)
@given(st.lists(st.floats(0.0, 1.0), min_size=2, max_size=6))
def test_the_lambda_map_is_monotone_and_positive(rel):
    lam = reliability_to_lambda(rel)
    assert np.all(lam > 0)
    order = np.argsort(rel, kind="stable")
    assert np.all(np.diff(lam[order]) >= -1e-12)


def test_estimate_on_a_recorded_run():
    from accord.verify.analysis import read_trace

    trace = read_trace(TRACE)
    raw = np.concatenate([s.raw for s in trace.steps])
    est = estimate_stubbornness(raw, n_boot=30)
    doc = est.as_dict(trace.steps[0].judges)
    assert set(doc["judges"]) == set(trace.steps[0].judges)
    assert all(0.25 <= j["lambda"] <= 4.0 for j in doc["judges"].values())


def test_thresholds_hit_the_target_acceptance_rate():
    _, raw = simulated_steps((0.05, 0.15, 0.3))
    th = calibrate_thresholds(raw, PAPER, target_rate=0.3)
    assert th.acceptance_rate == pytest.approx(0.3, abs=0.01)
    q = calibrate_thresholds(raw, PAPER, method="quantiles", tau_quantile=0.6, eps_quantile=0.5)
    stats = get_policy("verdict").stats(raw, ConsensusSpec(PAPER))
    assert q.tau == pytest.approx(np.quantile(stats.mean, 0.6))
    assert 0 <= th.paper_acceptance_rate <= 1 and th.paper_tau == 0.6


def test_bad_input_is_named():
    with pytest.raises(ValueError, match="at least 5 rows"):
        estimate_stubbornness(np.full((3, 3), 0.5))
    with pytest.raises(ValueError, match="unknown reliability method"):
        judge_reliability(np.random.default_rng(0).random((10, 3)), "pca")
    with pytest.raises(ValueError, match="target_rate"):
        calibrate_thresholds(np.random.default_rng(0).random((10, 3)), PAPER, target_rate=0.0)
    with pytest.raises(ValueError, match="unknown threshold method"):
        calibrate_thresholds(np.random.default_rng(0).random((10, 3)), PAPER, method="median")


class _FixedJudge:
    """A judge that reads the candidate's score from a table (stands in for any scored column)."""

    def __init__(self, name: str, table: dict[str, float]):
        self.name, self.table = name, table

    def score(self, ctx, candidates):
        from accord.protocols import JudgeScore

        return [JudgeScore(self.table[c]) for c in candidates]


def test_a_panel_accepts_estimated_stubbornness_and_records_it():
    from accord.verify.loop import Panel

    judges = [_FixedJudge(n, {"a": 0.5}) for n in ("grounding", "logic", "relevance")]
    panel = Panel(judges, "estimated")
    assert panel.lambdas == (1.0, 1.0, 1.0)
    _, raw = simulated_steps((0.3, 0.05, 0.15), steps=800)
    est = panel.estimate_stubbornness(raw, n_boot=20)
    assert panel.lambdas == tuple(est.lambdas) and np.argmax(panel.lambdas) == 1
    info = panel.describe()["logic"]["lambda_estimate"]
    assert info["lambda"] == pytest.approx(est.lambdas[1]) and len(info["lambda_ci"]) == 2
    with pytest.raises(ValueError, match="estimated"):
        Panel(judges, "learned")


def test_a_panel_estimates_stubbornness_after_its_warm_up_batch():
    from accord.protocols import StepContext
    from accord.verify.loop import Panel

    rng = np.random.default_rng(0)
    quality = {f"c{i}": float(q) for i, q in enumerate(rng.random(60))}
    noisy = {c: float(np.clip(q + rng.normal(0, 0.4), 0, 1)) for c, q in quality.items()}
    tight = {c: float(np.clip(q + rng.normal(0, 0.03), 0, 1)) for c, q in quality.items()}
    mid = {c: float(np.clip(q + rng.normal(0, 0.15), 0, 1)) for c, q in quality.items()}
    panel = Panel(
        [_FixedJudge("noisy", noisy), _FixedJudge("tight", tight), _FixedJudge("mid", mid)], "estimated", warmup=30
    )
    names = list(quality)
    for k in range(0, 30, 3):
        assert panel.lambdas == (1.0, 1.0, 1.0)
        panel.score(StepContext(question="q"), names[k : k + 3])
    assert panel.stubbornness_estimate is not None
    assert panel.lambdas[1] > panel.lambdas[0] and panel.lambdas[2] > panel.lambdas[0]  # the noisy judge holds least
    assert "lambda_estimate" in panel.describe()["noisy"]


def test_roles_of_one_model_do_not_vouch_for_each_other():
    """Three roles read from one weak model share its errors and agree with each other; grouped,
    that agreement no longer makes them look reliable next to an independent accurate checker."""
    rng = np.random.default_rng(5)
    q = rng.random(3000)
    shared = rng.normal(0, 0.3, 3000)  # the weak model's own error, common to its roles
    roles = [q + shared + rng.normal(0, 0.05, 3000) for _ in range(3)]
    checker = q + rng.normal(0, 0.1, 3000)
    other = q + rng.normal(0, 0.25, 3000)
    raw = np.clip(np.stack(roles + [checker, other], axis=1), 0, 1)
    naive = estimate_stubbornness(raw, n_boot=0).lambdas
    grouped = estimate_stubbornness(raw, n_boot=0, groups=["lm", "lm", "lm", "checker", "other"]).lambdas
    assert naive[:3].min() > naive[3]  # fooled by the roles' mutual agreement
    assert grouped[3] > grouped[:3].max() and grouped[3] > grouped[4]
