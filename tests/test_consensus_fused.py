"""The fused compiled VERDICT kernels decide exactly as the numpy reference."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_consensus_jax import _case

from accord.consensus_core import fused, get_policy

pytestmark = pytest.mark.skipif(not fused.available(), reason="numba not installed (the 'fast' extra)")


def _check(raw, lam, W, tau=0.6, eps=0.1):
    ref = get_policy("verdict", lambdas=tuple(lam), influence=W, tau=tau, eps=eps).decide(raw)
    got = fused.verdict_decide_fused(raw, lam, W, tau=tau, eps=eps)
    np.testing.assert_array_equal(got["chosen"], ref.chosen)
    np.testing.assert_array_equal(got["accepted"], ref.accepted)
    np.testing.assert_array_equal(got["fallback"], ref.fallback)
    np.testing.assert_allclose(got["mean"], ref.stats.mean, atol=1e-12, rtol=0)
    np.testing.assert_allclose(got["dispersion"], ref.stats.dispersion, atol=1e-12, rtol=0)
    np.testing.assert_allclose(got["consensus"], ref.stats.consensus, atol=1e-12, rtol=0)
    return got


@settings(max_examples=15, deadline=None)
@given(st.integers(0, 10_000), st.integers(2, 6), st.integers(1, 5), st.booleans())
def test_fused_matches_reference(seed, m, n, general):
    rng = np.random.default_rng(seed)
    _, lam, W = _case(seed, m, general=general)
    # scores near the thresholds so that both accept and fallback steps occur
    raw = np.clip(rng.normal(0.62, 0.08, (40, n, m)), 0, 1)
    got = _check(raw, lam, W, tau=0.6, eps=0.05)
    assert got["path"] == "fused"


def test_both_branches_and_ties():
    raw = np.array([
        [[0.9, 0.9, 0.9], [0.8, 0.8, 0.8], [0.1, 0.9, 0.5]],  # accepted: best mean wins
        [[0.2, 0.9, 0.1], [0.5, 0.5, 0.5], [0.5, 0.5, 0.5]],  # none accepted, tie: first wins
        [[0.7, 0.7, 0.7], [0.7, 0.7, 0.7], [0.0, 0.0, 0.0]],  # accepted tie: first wins
    ])
    got = _check(raw, np.array([1.5, 1.0, 0.8]), None)
    assert got["chosen"].tolist() == [0, 1, 0]
    assert got["fallback"].tolist() == [False, True, False]


def test_batch_shape_and_without_consensus():
    rng = np.random.default_rng(3)
    raw = rng.random((4, 5, 3, 4))
    got = fused.verdict_decide_fused(raw, consensus=False)
    assert got["chosen"].shape == (4, 5) and got["mean"].shape == (4, 5, 3)
    assert "consensus" not in got
    ref = get_policy("verdict", lambdas=(1.0,) * 4).decide(raw)
    np.testing.assert_array_equal(got["chosen"], ref.chosen)


def test_failed_judges_go_to_the_reference():
    rng = np.random.default_rng(1)
    raw = rng.random((20, 3, 3))
    raw[3, 1, 2] = np.nan
    raw[7, :, :2] = np.nan
    got = _check(raw, np.array([1.5, 1.0, 0.8]), None)
    assert got["path"] == "reference"


@pytest.mark.parametrize("bad", [1.5, -0.1, np.inf])
def test_bad_scores_raise_like_the_reference(bad):
    raw = np.full((2, 3, 3), 0.5)
    raw[1, 2, 0] = bad
    with pytest.raises(ValueError, match="scores"):
        fused.verdict_decide_fused(raw)


@pytest.mark.parametrize("kwargs", [{"lambdas": [1.0, 0.0, 1.0]}, {"eps": 0.0}, {"tau": np.nan}])
def test_bad_parameters_raise(kwargs):
    with pytest.raises(ValueError):
        fused.verdict_decide_fused(np.full((2, 3, 3), 0.5), **kwargs)


def test_large_panel_beyond_the_unrolled_sizes():
    raw, lam, W = _case(2, 10, n=3, batch=30, nan_rate=0.0, general=True)
    got = _check(raw, lam, W)
    assert got["path"] == "reference"
