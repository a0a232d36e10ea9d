"""The JAX jit path agrees with the numpy reference to 1e-12 in float64."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from accord.consensus_core import ConsensusSpec, consensus, consensus_stats, get_policy
from accord.consensus_core.jax_backend import consensus_jax, consensus_stats_jax, verdict_decide_jax


def _case(seed, m, n=6, batch=5, nan_rate=0.25, general=False):
    rng = np.random.default_rng(seed)
    raw = rng.random((batch, n, m))
    raw[rng.random(raw.shape) < nan_rate] = np.nan
    lam = rng.uniform(0.1, 5.0, m)
    W = None
    if general:
        W = rng.random((m, m))
        np.fill_diagonal(W, 0)
        W /= W.sum(1, keepdims=True)
    return raw, lam, W


@settings(max_examples=12, deadline=None)
@given(st.integers(0, 10_000), st.integers(2, 9), st.booleans())
def test_jax_matches_numpy(seed, m, general):
    raw, lam, W = _case(seed, m, general=general)
    ref = consensus(raw, lam, W)
    got = np.asarray(consensus_jax(raw, lam, W))
    assert got.dtype == np.float64
    np.testing.assert_array_equal(np.isnan(ref), np.isnan(got))
    np.testing.assert_allclose(got, ref, atol=1e-12, rtol=0)
    ref_st = consensus_stats(raw, lam, W)
    got_st = consensus_stats_jax(raw, lam, W)
    for name in ("mean", "dispersion", "weighted_mean", "raw_mean", "raw_mad", "raw_var"):
        np.testing.assert_allclose(np.asarray(got_st[name]), getattr(ref_st, name), atol=1e-12, rtol=0, equal_nan=True)


@pytest.mark.parametrize("nan_rate", [0.0, 0.15])
@pytest.mark.parametrize("general", [False, True])
def test_jax_verdict_decision_matches_numpy(general, nan_rate):
    raw, lam, W = _case(7, 4, n=5, batch=400, nan_rate=nan_rate, general=general)
    ref = get_policy("verdict", tau=0.5, eps=0.15).decide(raw, ConsensusSpec(tuple(lam), W))
    got = verdict_decide_jax(raw, ConsensusSpec(tuple(lam), W), tau=0.5, eps=0.15)
    np.testing.assert_array_equal(np.asarray(got["chosen"]), ref.chosen)
    np.testing.assert_array_equal(np.asarray(got["accepted"]), ref.accepted)
    np.testing.assert_array_equal(np.asarray(got["fallback"]), ref.fallback)
    np.testing.assert_allclose(np.asarray(got["mean"]), ref.stats.mean, atol=1e-12, rtol=0)
    np.testing.assert_allclose(np.asarray(got["dispersion"]), ref.stats.dispersion, atol=1e-12, rtol=0)


def test_jax_rejects_bad_input_like_numpy():
    with pytest.raises(ValueError, match="> 0"):
        consensus_jax([[0.5, 0.5]], [1.0, 0.0])
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        verdict_decide_jax([[[0.5, 1.2]]], ConsensusSpec((1.0, 1.0)))
    with pytest.raises(TypeError, match="ConsensusSpec"):  # λ enters a decision only as the panel's spec
        verdict_decide_jax([[[0.5, 0.2]]], [1.0, 1.0])
    with pytest.raises(ValueError, match="eps must be > 0"):  # the thresholds checked as the policy checks them
        verdict_decide_jax([[[0.5, 0.2]]], eps=0.0)
