"""The certified threshold of ``accord.consensus_core.jury._risk``: its guarantee holds over
repeated random calibration samples, and it answers nothing when the labels cannot certify."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from accord.consensus_core.jury._risk import RISK_BOUNDS, certify_threshold, clopper_pearson_upper, min_rows
from accord.consensus_core.jury._risk_bounds import binomial_pvalue, hb_pvalue, upper_bound


def _risk_above(t: float, slope: float) -> float:
    """Error rate among rows with confidence >= t when u ~ U(0, 1) and P(wrong | u) = slope * (1 - u)."""
    return slope * (1 - t) / 2


# Every row labelled, the claim about the distribution the rows came from: the hypergeometric test
# certifies the rows of a finite file instead (the next test).
@pytest.mark.parametrize("bound", [b for b in RISK_BOUNDS if b != "hypergeometric"])
@pytest.mark.parametrize("slope", [0.3, 0.6])
def test_the_error_rate_above_the_threshold_exceeds_alpha_in_at_most_delta_of_draws(slope, bound):
    alpha, delta, n, reps = 0.1, 0.1, 300, 400
    rng = np.random.default_rng(1)
    over = certified = 0
    for _ in range(reps):
        u = rng.random(n)
        wrong = rng.random(n) < slope * (1 - u)
        r = certify_threshold(u, wrong, np.ones(n, bool), alpha, delta, bound)
        if r.certified:
            certified += 1
            assert r.bound <= alpha + 1e-12 and r.calibration_answered >= min_rows(alpha, delta)
            over += _risk_above(r.threshold, slope) > alpha
    assert certified > reps / 4  # the test is not vacuous: it often certifies something
    assert over / reps <= delta + 3 * math.sqrt(delta * (1 - delta) / reps)


def test_the_guarantee_holds_on_random_subsamples_with_a_ratio_risk():
    """Rows of a fixed population, a random labelled subset, the realised error among the answered
    unlabelled rows: above alpha in at most delta of the draws (plus the finite-sample slack)."""
    rng = np.random.default_rng(7)
    n, labels, alpha, delta, reps = 2000, 200, 0.2, 0.1, 200
    u = np.round(rng.random(n), 2)  # ties, as a posterior over few agreement patterns has
    wrong = rng.random(n) < np.clip(0.5 * (1 - u) + 0.08, 0, 1)
    for bound in RISK_BOUNDS:
        over = certified = 0
        for seed in range(reps):
            cal = np.zeros(n, bool)
            cal[np.random.default_rng(seed).choice(n, labels, replace=False)] = True
            r = certify_threshold(u, wrong, cal, alpha, delta, bound)
            if r.certified:
                certified += 1
                over += wrong[u >= r.threshold].mean() > alpha  # the population's error above the threshold
        assert certified > reps / 4, bound
        assert over / reps <= delta + 3 * math.sqrt(delta * (1 - delta) / reps), bound


def _mean_coverage(bound: str, slope: float, n: int, reps: int = 200) -> tuple[float, int]:
    rng = np.random.default_rng(1)
    cov, certified = 0.0, 0
    for _ in range(reps):
        u = rng.random(n)
        wrong = rng.random(n) < slope * (1 - u)
        r = certify_threshold(u, wrong, np.ones(n, bool), 0.1, 0.1, bound)
        if r.certified:
            certified += 1
            cov += (u >= r.threshold).mean() / reps
    return cov, certified


@pytest.mark.parametrize("slope,n", [(0.3, 300), (0.3, 200), (0.6, 300)])
def test_the_deeper_start_answers_more_rows_than_the_first_rule(slope, n):
    new, _ = _mean_coverage("binomial", slope, n)
    old, _ = _mean_coverage("clopper-pearson", slope, n)
    assert new > old


def test_hoeffding_bentkus_p_value_matches_its_formula_at_known_points():
    # no error in n rows: both terms equal (1 - alpha)^n
    assert hb_pvalue(0, 11, 0.2) == pytest.approx(0.8**11)
    # 10 errors in 100 at alpha 0.2: Hoeffding exp(-100 KL(0.1 || 0.2)) = 0.0255; Bentkus e * P(Bin <= 10) = 0.0155
    kl = 0.1 * math.log(0.1 / 0.2) + 0.9 * math.log(0.9 / 0.8)
    assert math.exp(-100 * kl) == pytest.approx(0.025502, abs=1e-6)
    assert hb_pvalue(10, 100, 0.2) == pytest.approx(math.e * binomial_pvalue(10, 100, 0.2))
    assert hb_pvalue(10, 100, 0.2) == pytest.approx(0.015484, abs=1e-5)
    # at or above alpha the Hoeffding term is 1 and the Bentkus term e * tail can exceed it: capped at 1
    assert hb_pvalue(30, 100, 0.2) == 1.0
    assert hb_pvalue(5, 0, 0.2) == 1.0


@settings(max_examples=100, deadline=None)
@given(k=st.integers(0, 40), extra=st.integers(1, 200), alpha=st.sampled_from([0.05, 0.1, 0.2, 0.4]))
def test_hoeffding_bentkus_is_never_below_the_exact_tail(k, extra, alpha):
    assert hb_pvalue(k, k + extra, alpha) >= binomial_pvalue(k, k + extra, alpha) - 1e-12


@settings(max_examples=60, deadline=None)
@given(k=st.integers(0, 30), extra=st.integers(1, 150), delta=st.sampled_from([0.05, 0.1, 0.2]))
def test_upper_bounds_are_where_the_test_stops_rejecting(k, extra, delta):
    n = k + extra
    assert upper_bound(k, n, delta) == pytest.approx(clopper_pearson_upper(k, n, delta), abs=1e-6)
    hb = upper_bound(k, n, delta, "hb")
    assert hb >= clopper_pearson_upper(k, n, delta) - 1e-6
    assert hb_pvalue(k, n, min(hb + 1e-5, 1 - 1e-9)) <= delta < hb_pvalue(k, n, max(hb - 1e-5, k / n))


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
    assert r.as_dict()["bound"] is None


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
    with pytest.raises(ValueError, match="bound must be one of"):
        certify_threshold([0.5], [False], [True], bound="bonferroni")


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
