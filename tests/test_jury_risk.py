"""The certified threshold of ``accord.consensus_core.jury._risk``: its guarantee holds over
repeated random calibration samples, and it answers nothing when the labels cannot certify."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from accord.consensus_core.jury._risk import certify_threshold, clopper_pearson_upper, min_rows


def _risk_above(t: float, slope: float) -> float:
    """Error rate among rows with confidence >= t when u ~ U(0, 1) and P(wrong | u) = slope * (1 - u)."""
    return slope * (1 - t) / 2


@pytest.mark.parametrize("slope", [0.3, 0.6])
def test_the_error_rate_above_the_threshold_exceeds_alpha_in_at_most_delta_of_draws(slope):
    alpha, delta, n, reps = 0.1, 0.1, 300, 400
    rng = np.random.default_rng(1)
    over = certified = 0
    for _ in range(reps):
        u = rng.random(n)
        wrong = rng.random(n) < slope * (1 - u)
        r = certify_threshold(u, wrong, np.ones(n, bool), alpha, delta)
        if r.certified:
            certified += 1
            assert r.bound <= alpha + 1e-12 and r.calibration_answered >= min_rows(alpha, delta)
            over += _risk_above(r.threshold, slope) > alpha
    assert certified > reps / 2  # the test is not vacuous: it usually certifies something
    assert over / reps <= delta + 3 * math.sqrt(delta * (1 - delta) / reps)


def test_the_threshold_is_as_low_as_the_labels_allow():
    u = np.linspace(0, 1, 1000)
    r = certify_threshold(u, np.zeros(1000, bool), np.ones(1000, bool), 0.1, 0.1)
    assert r.threshold == 0.0 and r.calibration_errors == 0 and r.calibration_answered == 1000
    wrong = u < 0.5  # every row below 0.5 is wrong
    r = certify_threshold(u, wrong, np.ones(1000, bool), 0.1, 0.1)
    assert 0.4 < r.threshold < 0.5 and r.bound <= 0.1


def test_too_few_labels_certify_nothing_and_say_how_many_would():
    u = np.linspace(0, 1, 100)
    cal = np.zeros(100, bool)
    cal[:10] = True
    r = certify_threshold(u, np.zeros(100, bool), cal, 0.1, 0.1)
    assert not r.certified and "at least 22" in r.reason and r.as_dict()["threshold"] is None


def test_only_calibration_rows_are_read():
    rng = np.random.default_rng(0)
    u = rng.random(500)
    cal = rng.random(500) < 0.5
    wrong = rng.random(500) < 0.2 * (1 - u)
    a = certify_threshold(u, wrong, cal)
    b = certify_threshold(u, np.where(cal, wrong, ~wrong), cal)
    assert a == b


@settings(max_examples=100, deadline=None)
@given(k=st.integers(0, 50), extra=st.integers(1, 200), delta=st.sampled_from([0.01, 0.05, 0.1, 0.3]))
def test_the_clopper_pearson_bound_is_the_binomial_test_boundary(k, extra, delta):
    from scipy.stats import binom

    n = k + extra
    ub = clopper_pearson_upper(k, n, delta)
    assert k / n <= ub <= 1
    assert binom.cdf(k, n, ub) == pytest.approx(delta, abs=1e-6)


def test_bad_arguments_are_value_errors():
    with pytest.raises(ValueError):
        certify_threshold([0.5], [False], [True], alpha=0.0)
    with pytest.raises(ValueError):
        certify_threshold([0.5, 0.2], [False], [True, True])


def test_an_uncertified_threshold_says_how_many_labels_might_do():
    rng = np.random.default_rng(3)
    _u = rng.random(3000)  # drawn to keep the seeded stream the test was written with
    wrong = rng.random(3000) < 0.05
    cal = np.zeros(3000, bool)
    cal[:40] = True
    wrong[:40] = np.arange(40) < 2  # 2 errors in 40: 0.05, not certifiable at alpha 0.1 with 40 rows
    r = certify_threshold(np.ones(3000), wrong, cal, 0.1, 0.1)
    assert not r.certified and "random labels would" in r.reason
    more = int(r.reason.split("about ")[1].split()[0])
    assert more > 40
    cal[:more] = True
    wrong[:more] = (np.arange(more) % 20) == 0  # the same 0.05 rate on that many labels
    assert certify_threshold(np.ones(3000), wrong, cal, 0.1, 0.1).certified
