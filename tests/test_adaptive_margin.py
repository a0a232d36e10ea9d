"""calibrate_margin / replay_margin: adaptive verification's margin read off fully verified steps."""

from __future__ import annotations

import numpy as np
import pytest

from accord.consensus_core import get_policy
from accord.verify.loop import calibrate_margin, replay_margin

POLICY = get_policy("verdict", tau=0.5, eps=0.2)  # λ = 1 each


def step(rows, cands):
    return np.array(rows, dtype=float), cands


SURE = step([[0.95, 0.9, 0.95], [0.2, 0.1, 0.3], [0.9, 0.9, 0.9]], ["a", "b", "a"])  # first is chosen anyway
SHAKY = step([[0.6, 0.65, 0.6], [0.95, 0.95, 0.95], [0.1, 0.1, 0.1]], ["a", "c", "d"])  # accepted, full picks "c"
REJECTED = step([[0.1, 0.2, 0.1], [0.9, 0.9, 0.9], [0.9, 0.9, 0.9]], ["x", "y", "y"])  # first not accepted


def test_replay_counts_stops_and_agreement():
    loose = replay_margin([SURE, SHAKY, REJECTED], POLICY, min_mean=0.5, max_dispersion=0.2)
    assert loose.steps == 3 and loose.stop_rate == pytest.approx(2 / 3) and loose.agreement == pytest.approx(2 / 3)
    strict = replay_margin([SURE, SHAKY, REJECTED], POLICY, min_mean=0.8, max_dispersion=0.2)
    assert strict.stop_rate == pytest.approx(1 / 3) and strict.agreement == 1.0


def test_calibration_stops_most_while_agreeing():
    steps = [SURE] * 6 + [SHAKY] * 2 + [REJECTED] * 2
    full_agreement = calibrate_margin(steps, POLICY, target_agreement=1.0)
    assert full_agreement.agreement == 1.0 and full_agreement.stop_rate == pytest.approx(0.6)
    assert full_agreement.min_mean > 0.64  # above the shaky first candidate's s̄*
    relaxed = calibrate_margin(steps, POLICY, target_agreement=0.8)
    assert relaxed.stop_rate == pytest.approx(0.8) and relaxed.agreement == pytest.approx(0.8)


def test_identical_candidates_agree_and_nothing_to_skip_is_ignored():
    same = step([[0.7, 0.7, 0.7]] * 3, ["s", "s", "s"])
    single = step([[0.9, 0.9, 0.9]], ["only"])
    m = calibrate_margin([same, single], POLICY, target_agreement=1.0)
    assert m.steps == 1 and m.stop_rate == 1.0 and m.agreement == 1.0


def test_bad_input_is_named():
    with pytest.raises(ValueError, match="target_agreement"):
        calibrate_margin([SURE], POLICY, target_agreement=0.0)
    with pytest.raises(ValueError, match="group"):
        calibrate_margin([SURE], POLICY, group=0)
    with pytest.raises(ValueError, match="no fully verified step"):
        calibrate_margin([step([[0.9, 0.9, 0.9]], ["a"])], POLICY)
