"""Calibrating raw rewards to [0, 1]: standardise + logistic, empirical CDF, Platt; save and reapply."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from accord.adapters import Calibrator, apply_calibrators, fit_calibrators, load_calibrators, save_calibrators

RNG = np.random.default_rng(0)
RAW = RNG.normal(3.0, 2.0, 500)


def test_standardize_maps_the_mean_to_one_half():
    c = Calibrator("standardize").fit(RAW)
    assert c.apply([RAW.mean()])[0] == pytest.approx(0.5)
    assert c.apply([RAW.mean() + RAW.std()])[0] == pytest.approx(1 / (1 + np.exp(-1)))


def test_quantile_map_is_the_percentile_on_the_calibration_set():
    c = Calibrator("quantile").fit(RAW)
    out = c.apply(RAW)
    ranks = (np.argsort(np.argsort(RAW)) + 0.5) / RAW.size
    assert np.max(np.abs(out - ranks)) < 0.01
    assert c.apply([RAW.min() - 10, RAW.max() + 10]).tolist() == [0.0, 1.0]


def test_quantile_map_gives_ties_their_mid_rank():
    c = Calibrator("quantile").fit([0, 1, 1, 1, 2])
    assert c.apply([1.0])[0] == pytest.approx(0.5)


def test_platt_recovers_a_known_logistic():
    x = RNG.normal(0, 1.5, 6000)
    y = (RNG.random(x.size) < 1 / (1 + np.exp(-(2.0 * x - 1.0)))).astype(float)
    c = Calibrator("platt").fit(x, y)
    assert c.params["A"] == pytest.approx(2.0, abs=0.15)
    assert c.params["B"] == pytest.approx(-1.0, abs=0.15)


def test_platt_needs_labels_of_both_kinds():
    with pytest.raises(ValueError, match="needs labels"):
        Calibrator("platt").fit(RAW)
    with pytest.raises(ValueError, match="both good and bad"):
        Calibrator("platt").fit(RAW, np.ones_like(RAW))
    with pytest.raises(ValueError, match="0 or 1"):
        Calibrator("platt").fit(RAW, np.full_like(RAW, 0.3))


def test_save_and_reapply_give_identical_scores(tmp_path):
    raw = np.stack([RAW, -0.5 * RAW + RNG.normal(0, 1, RAW.size)], axis=1)
    for method in ("standardize", "quantile"):
        cals = fit_calibrators(raw, ["a", "b"], method)
        path = save_calibrators(tmp_path / f"{method}.json", cals)
        again = load_calibrators(path)
        assert np.array_equal(apply_calibrators(raw, ["a", "b"], cals), apply_calibrators(raw, ["a", "b"], again))


def test_failed_judges_stay_failed_and_errors_are_named(tmp_path):
    c = Calibrator("standardize").fit(RAW)
    assert np.isnan(c.apply([np.nan])[0])
    with pytest.raises(ValueError, match="not fitted"):
        Calibrator("quantile").apply([1.0])
    with pytest.raises(ValueError, match="unknown calibration"):
        Calibrator("isotonic")
    with pytest.raises(ValueError, match="at least 2"):
        Calibrator("standardize").fit([1.0])
    with pytest.raises(ValueError, match="no calibration for"):
        apply_calibrators(np.zeros((2, 2)), ["a", "b"], {"a": c})
    bad = tmp_path / "bad.json"
    bad.write_text("[1, 2")
    with pytest.raises(ValueError, match="not valid JSON"):
        load_calibrators(bad)


@settings(max_examples=50, deadline=None)
@given(
    method=st.sampled_from(["standardize", "quantile", "sigmoid"]),
    data=st.lists(st.floats(-1e3, 1e3), min_size=3, max_size=50),
    probe=st.lists(st.floats(-2e3, 2e3), min_size=2, max_size=20),
)
def test_every_map_is_monotone_into_the_unit_interval(method, data, probe):
    c = Calibrator(method).fit(data)
    x = np.sort(np.asarray(probe))
    y = c.apply(x)
    assert np.all((y >= 0) & (y <= 1))
    assert np.all(np.diff(y) >= -1e-12)
