"""Policy.decide takes the compiled kernels by default and decides exactly as the numpy reference."""

import multiprocessing

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from accord.consensus_core import ConsensusSpec, get_policy, list_policies
from accord.consensus_core import _fused as fused

assert fused.available(), "numba (the 'fast' extra) is not installed: the compiled kernels cannot be tested"

KERNEL_POLICIES = sorted(p for p in list_policies() if get_policy(p).kernel is not None)
# scores on a grid that holds the thresholds below, so exact ties and scores on a threshold occur
GRID = (0.0, 0.1, 0.25, 0.5, 0.6, 0.7, 0.9, 1.0)
SHAPES = [(3, 3), (1, 2), (4, 2), (2, 5)]  # (candidates, judges)


def assert_same(got, ref):
    assert got.chosen.dtype == ref.chosen.dtype
    np.testing.assert_array_equal(got.chosen, ref.chosen)
    np.testing.assert_array_equal(got.accepted, ref.accepted)
    np.testing.assert_array_equal(got.fallback, ref.fallback)
    np.testing.assert_allclose(got.rank_key, ref.rank_key, atol=1e-12, rtol=0)  # -inf where the reference has it
    np.testing.assert_array_equal(got.stats.mean, ref.stats.mean)
    np.testing.assert_array_equal(got.stats.consensus, ref.stats.consensus)


@st.composite
def cases(draw):
    batch = tuple(draw(st.lists(st.integers(1, 4), max_size=2)))
    n, m = draw(st.sampled_from(SHAPES))  # each (n, m) compiles a kernel (seconds): a few, varied
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    shape = batch + (n, m)
    if draw(st.booleans()):
        raw = rng.choice(GRID, shape)
    else:  # continuous scores near the thresholds: both accepted and fallback steps
        raw = np.clip(rng.normal(0.62, 0.1, shape), 0, 1)
    nan_rate = draw(st.sampled_from([0.0, 0.0, 0.05, 0.3]))
    raw[rng.random(shape) < nan_rate] = np.nan
    if draw(st.booleans()):  # duplicated candidates: exact ties on every key
        raw[..., -1, :] = raw[..., 0, :]
    if draw(st.booleans()):  # the same scores from other judges: ties up to rounding under equal λ
        raw[..., -1, :] = raw[..., 0, ::-1]
    lambdas = tuple(rng.choice([0.5, 1.0, 1.5, 2.0], m)) if draw(st.booleans()) else None
    W = None
    if draw(st.booleans()) and m <= 3:
        W = rng.random((m, m))
        np.fill_diagonal(W, 0)
        W /= W.sum(1, keepdims=True)
    return raw, lambdas, W


@pytest.mark.slow
@settings(max_examples=80, deadline=None)
@given(cases(), st.sampled_from(KERNEL_POLICIES), st.sampled_from([(0.6, 0.1), (0.5, 0.25), None]), st.randoms())
def test_fused_path_decides_as_the_reference(case, name, thresholds, rnd):
    raw, lambdas, W = case
    policy, spec = get_policy(name), ConsensusSpec(lambdas or (1.0,) * raw.shape[-1], W)
    if "tau" in policy.params():
        if thresholds is None:  # thresholds on a candidate's own mean and spread, to the last bit
            st_ = policy.stats(raw, spec)
            ok = np.flatnonzero(np.isfinite(st_.mean.ravel()) & (st_.dispersion.ravel() > 0))
            i, j = (rnd.choice(ok), rnd.choice(ok)) if ok.size else (0, 0)
            thresholds = (st_.mean.ravel()[i], st_.dispersion.ravel()[j]) if ok.size else (0.6, 0.1)
        policy = get_policy(name, tau=thresholds[0], eps=thresholds[1])
    got = policy.decide(raw, spec, path="fused")
    ref = policy.decide(raw, spec, path="reference")
    assert got.path == "fused" and ref.path == "reference"
    assert_same(got, ref)


@pytest.mark.parametrize("name", ["verdict", "mean_preserving", "raw_average", "no_rejection", "mean"])
def test_thresholds_and_ties_at_the_last_bit(name):
    """Compiled and numpy arithmetic round differently; decisions must not."""
    rng = np.random.default_rng(5)
    raw = rng.random((300, 3, 3))
    raw[::2, 1] = raw[::2, 0, ::-1]  # the same scores from other judges: tied under equal λ, up to rounding
    policy = get_policy(name)  # λ = 1 each
    assert_same(policy.decide(raw, path="fused"), policy.decide(raw, path="reference"))
    if "tau" not in policy.params():
        return
    st_ = policy.stats(raw)
    for i in range(0, 300, 15):  # a threshold exactly on some candidate's own statistic
        for tau, eps in (
            (st_.mean[i, 0], 1.0),
            (st_.raw_mean[i, 0], 1.0),
            (0.0, st_.dispersion[i, 0]),
            (0.0, st_.raw_mad[i, 0]),
        ):
            policy = get_policy(name, tau=tau, eps=eps)
            assert_same(policy.decide(raw, path="fused"), policy.decide(raw, path="reference"))


def test_the_kernels_cover_the_mean_and_spread_rules():
    assert KERNEL_POLICIES == ["mean", "mean_preserving", "no_rejection", "raw_average", "verdict"]


def test_large_batches_take_the_fast_path_by_default():
    raw = np.random.default_rng(4).random((fused.MIN_CANDIDATES // 3 + 1, 3, 3))
    policy = get_policy("verdict")
    got = policy.decide(raw)
    assert got.path == "fused"
    assert_same(got, policy.decide(raw, path="reference"))
    assert policy.decide(raw[:100]).path == "reference"  # small: loading the kernels would cost more


def test_a_few_failed_judges_keep_the_rest_on_the_fast_path(monkeypatch):
    rng = np.random.default_rng(1)
    raw = rng.random((fused.MIN_CANDIDATES // 3 + 1, 3, 3))
    raw[3, 1, 2] = np.nan
    raw[7] = np.nan  # no candidate scored: nothing chosen
    policy = get_policy("verdict")
    redone = []
    reference = type(policy).decide_reference
    monkeypatch.setattr(
        type(policy), "decide_reference", lambda self, r, spec=None: redone.append(len(r)) or reference(self, r, spec)
    )
    got = policy.decide(raw)
    assert got.path == "fused" and redone and redone[0] < 10  # only the steps that need it
    assert got.chosen[7] == -1
    assert_same(got, policy.decide(raw, path="reference"))


def test_known_decisions_on_the_fast_path():
    raw = np.array(
        [
            [[0.9, 0.9, 0.9], [0.8, 0.8, 0.8], [0.1, 0.9, 0.5]],  # accepted: best mean wins
            [[0.2, 0.9, 0.1], [0.5, 0.5, 0.5], [0.5, 0.5, 0.5]],  # none accepted, tie: first wins
            [[0.7, 0.7, 0.7], [0.7, 0.7, 0.7], [0.0, 0.0, 0.0]],  # accepted tie: first wins
        ]
    )
    got = get_policy("verdict").decide(raw, path="fused")
    assert got.path == "fused"
    assert got.chosen.tolist() == [0, 1, 0]
    assert got.fallback.tolist() == [False, True, False]


@pytest.mark.parametrize("bad", [1.5, -0.1, np.inf, -np.inf])
def test_bad_scores_raise_the_reference_error(bad):
    raw = np.full((4, 3, 3), 0.5)
    raw[1, 2, 0] = bad
    with pytest.raises(ValueError) as fast:
        get_policy("verdict").decide(raw, path="fused")
    with pytest.raises(ValueError) as ref:
        get_policy("verdict").decide(raw, path="reference")
    assert str(fast.value) == str(ref.value)


@pytest.mark.parametrize("step", [0, 127, 128, 299])  # first block, its last step, the next block, the last
@pytest.mark.parametrize("bad", [1.5, -0.25, np.inf])
def test_a_bad_score_beside_a_failed_judge_raises_the_reference_error(step, bad):
    raw = np.full((300, 3, 3), 0.5)
    raw[step, 0, 0] = np.nan  # the failed judge comes before the bad score in the step
    raw[step, 1, 2] = bad
    with pytest.raises(ValueError) as fast:
        get_policy("verdict").decide(raw, path="fused")
    with pytest.raises(ValueError) as ref:
        get_policy("verdict").decide(raw, path="reference")
    assert str(fast.value) == str(ref.value)


def test_inputs_the_kernels_cannot_take_go_to_the_reference():
    raw = np.full((2, 3, 3), 0.5)
    assert get_policy("verdict").decide(raw.astype(np.float32), path="fused").path == "fused"
    for bad, why in [
        (raw.astype(int), "not floating-point"),
        (np.empty((0, 3, 3)), "non-empty"),
        (np.full((2, 30, 20), 0.5), "beyond the kernels"),
    ]:
        with pytest.raises(ValueError, match=why):
            get_policy("verdict").decide(bad, path="fused")
        assert get_policy("verdict").decide(bad).path == "reference"
    with pytest.raises(ValueError, match="no compiled kernel"):
        get_policy("majority").decide(raw, path="fused")
    with pytest.raises(ValueError, match="path must be one of"):
        get_policy("verdict").decide(raw, path="jit")


def test_statistics_are_computed_on_first_access(monkeypatch):
    raw = np.random.default_rng(2).random((fused.MIN_CANDIDATES // 4 + 1, 4, 3))
    policy = get_policy("verdict")
    ref = policy.decide(raw, path="reference")
    calls = []
    stats = type(policy).stats
    monkeypatch.setattr(type(policy), "stats", lambda self, r, spec=None: calls.append(1) or stats(self, r, spec))
    d = policy.decide(raw)
    np.testing.assert_allclose(d.rank_key, ref.rank_key, atol=1e-12, rtol=0)
    assert calls == []  # neither the decision nor its rank key built the per-candidate statistics
    np.testing.assert_array_equal(d.mean, ref.mean)
    np.testing.assert_array_equal(d.dispersion, ref.dispersion)
    assert calls == [1]


def test_a_forked_process_still_splits_large_batches():
    raw = np.random.default_rng(6).random((fused.SPLIT_CANDIDATES // 3 + 10, 3, 3))
    policy = get_policy("verdict")
    expected = policy.decide(raw, path="reference").chosen
    np.testing.assert_array_equal(policy.decide(raw).chosen, expected)  # the parent's thread pool exists now
    ctx = multiprocessing.get_context("fork")
    with ctx.Pool(1) as pool:
        chosen = pool.apply_async(_decide_in_child, (raw,)).get(timeout=120)
    np.testing.assert_array_equal(chosen, expected)


def _decide_in_child(raw):
    return get_policy("verdict").decide(raw).chosen


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 4 * fused.SPLIT_CANDIDATES), st.integers(0, 64))
def test_the_kernel_threads_follow_the_batch_size_and_the_free_cores(candidates, busy):
    cores = len(fused.os.sched_getaffinity(0))
    real = fused._busy_cores
    fused._busy_cores = lambda: busy  # what the machine's other work holds, as /proc/loadavg would say
    try:
        threads = fused.threads_for(candidates)
    finally:
        fused._busy_cores = real
    assert 1 <= threads <= max(1, min(cores - busy, candidates // fused.SPLIT_CANDIDATES))
    if candidates < fused.SPLIT_CANDIDATES or busy >= cores:
        assert threads == 1  # small batches and a full machine: one thread, no hand-off
    else:
        assert threads == min(cores - busy, candidates // fused.SPLIT_CANDIDATES)


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 40 * fused.SPLIT_CANDIDATES // 3), st.integers(1, 8))
def test_the_pieces_cover_the_steps_once_in_order(steps, n):
    pieces = fused._pieces(steps, n)
    assert pieces[0].start == 0 and pieces[-1].stop == steps
    assert all(a.stop == b.start for a, b in zip(pieces, pieces[1:]))
    assert len(pieces) == max(1, steps * n // fused.SPLIT_CANDIDATES)
    assert max(p.stop - p.start for p in pieces) * n <= 2 * fused.SPLIT_CANDIDATES + n


@pytest.mark.parametrize("threads", [1, 2, 3])
def test_decisions_are_the_same_whatever_the_thread_count(threads, monkeypatch):
    raw = np.random.default_rng(7).random((fused.SPLIT_CANDIDATES // 3 * 2 + 11, 3, 3))
    policy = get_policy("verdict")
    expected = policy.decide(raw, path="reference")
    monkeypatch.setattr(fused, "threads_for", lambda c: threads)
    assert_same(policy.decide(raw), expected)


@pytest.mark.parametrize("threads", [1, 2, 3])
def test_a_bad_score_in_any_piece_raises_the_reference_error(threads, monkeypatch):
    raw = np.random.default_rng(8).random((fused.SPLIT_CANDIDATES // 3 * 3 + 5, 3, 3))
    raw[-1, 2, 1] = 1.5  # in the last piece, which the caller's thread may never take
    monkeypatch.setattr(fused, "threads_for", lambda c: threads)
    with pytest.raises(ValueError) as fast:
        get_policy("verdict").decide(raw, path="fused")
    with pytest.raises(ValueError) as ref:
        get_policy("verdict").decide(raw, path="reference")
    assert str(fast.value) == str(ref.value)
