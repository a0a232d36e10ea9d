"""Hypothesis properties of the FJ equilibrium over random m, λ, W and scores."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from accord.consensus_core import all_to_all, consensus, consensus_stats, iterate_updates

SETTINGS = settings(max_examples=60, deadline=None)


@st.composite
def panels(draw, max_m=8, general=True):
    m = draw(st.integers(2, max_m))
    lam = np.array(draw(st.lists(st.floats(0.05, 20.0), min_size=m, max_size=m)))
    batch = draw(st.integers(1, 4))
    raw = np.array(draw(st.lists(st.floats(0.0, 1.0), min_size=batch * m, max_size=batch * m))).reshape(batch, m)
    W = None
    if general and draw(st.booleans()):
        W = np.array(draw(st.lists(st.floats(0.01, 1.0), min_size=m * m, max_size=m * m))).reshape(m, m)
        np.fill_diagonal(W, 0.0)
        W = W / W.sum(axis=1, keepdims=True)
    return raw, lam, W


def _W(W, m):
    return all_to_all(m) if W is None else W


@SETTINGS
@given(panels())
def test_equilibrium_solves_its_equations(p):
    raw, lam, W = p
    s = consensus(raw, lam, W)
    m = raw.shape[-1]
    A = np.eye(m) + np.diag(lam) - _W(W, m)
    np.testing.assert_allclose(s @ A.T, raw * lam, atol=1e-10)


@SETTINGS
@given(panels(max_m=6))
def test_equilibrium_is_limit_of_fj_updates(p):
    raw, lam, W = p
    lam = np.maximum(lam, 0.2)  # keep the contraction fast enough for a few thousand steps
    np.testing.assert_allclose(iterate_updates(raw, lam, W, steps=3000), consensus(raw, lam, W), atol=1e-9)


@SETTINGS
@given(panels())
def test_consensus_within_raw_range_and_weighted_sum_preserved(p):
    raw, lam, W = p
    s = consensus(raw, lam, W)
    assert np.all(s >= raw.min(axis=-1, keepdims=True) - 1e-12)
    assert np.all(s <= raw.max(axis=-1, keepdims=True) + 1e-12)
    if W is None or np.allclose(W, W.T):
        # Σ λ_i s*_i = Σ λ_i r_i needs 1ᵀ(I − W) = 0, i.e. W column-stochastic too (all-to-all, symmetric W)
        np.testing.assert_allclose((lam * s).sum(-1), (lam * raw).sum(-1), atol=1e-10)


@SETTINGS
@given(panels(), st.randoms(use_true_random=False))
def test_permuting_judges_permutes_result(p, rnd):
    raw, lam, W = p
    m = raw.shape[-1]
    perm = list(range(m))
    rnd.shuffle(perm)
    perm = np.array(perm)
    Wp = None if W is None else W[np.ix_(perm, perm)]
    np.testing.assert_allclose(consensus(raw[:, perm], lam[perm], Wp), consensus(raw, lam, W)[:, perm], atol=1e-12)


@SETTINGS
@given(st.integers(2, 10), st.floats(0.05, 20.0), st.data())
def test_equal_lambda_dispersion_is_scaled_raw_mad(m, lam, data):
    raw = np.array(data.draw(st.lists(st.floats(0, 1), min_size=m, max_size=m)))
    stt = consensus_stats(raw, np.full(m, lam))
    c = (m - 1) * lam / ((m - 1) * lam + m)
    np.testing.assert_allclose(stt.consensus - stt.mean, c * (raw - raw.mean()), atol=1e-12)
    assert abs(stt.dispersion - c * stt.raw_mad) < 1e-12
    assert abs(stt.mean - stt.raw_mean) < 1e-12  # equal λ preserves the unweighted mean


@SETTINGS
@given(panels(), st.data())
def test_failed_judges_equal_solving_the_smaller_panel(p, data):
    raw, lam, W = p
    m = raw.shape[-1]
    keep = np.array(data.draw(st.lists(st.booleans(), min_size=m, max_size=m)))
    if keep.sum() < 2:
        keep[:2] = True
    masked = raw.copy()
    masked[:, ~keep] = np.nan
    got = consensus(masked, lam, W)
    assert np.all(np.isnan(got[:, ~keep]))
    if W is None:
        Wk = None
    else:
        Wk = W[np.ix_(keep, keep)]
        sums = Wk.sum(axis=1, keepdims=True)
        Wk = np.where(sums > 0, Wk / np.where(sums > 0, sums, 1), all_to_all(int(keep.sum())))
    np.testing.assert_allclose(got[:, keep], consensus(raw[:, keep], lam[keep], Wk), atol=1e-12)


def test_unweighted_mean_not_preserved_for_unequal_lambda():
    stt = consensus_stats([0.9, 0.2, 0.9], [1.5, 1.0, 0.8])
    assert abs(stt.mean - stt.raw_mean) > 0.005
    assert abs(stt.weighted_mean - (1.5 * 0.9 + 0.2 + 0.8 * 0.9) / 3.3) < 1e-12
