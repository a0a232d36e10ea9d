"""Juries whose members' errors are correlated: the difficulty model, its fit test, the label-free
default's fallback and the few-label jury, on synthetic panels with known member accuracies."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from accord.consensus_core.jury import MISSING, dawid_skene, vote_codes
from accord.consensus_core.jury._difficulty import fit_difficulty, pattern_fit, pattern_key, set_partitions
from accord.consensus_core.jury._label_free import label_free_jury, parting_share
from accord.consensus_core.jury._labels import choose_labels, fit_few_labels, log_evidence
from accord.consensus_core.jury._law import simulate_unequal_panel
from accord.consensus_core.jury._trust import SHARED_ERRORS

TRUTH = 0  # class 0 is the right answer in every synthetic panel below


def copied_panel(n: int = 1500, seed: int = 0) -> np.ndarray:
    """Member 0 right 65% of the time; members 1 and 2 are one weak model (45%) asked twice:
    member 2 repeats member 1's answer, right or wrong, 90% of the time; member 3 is right 30%.
    Without labels the pair looks like two experts who agree."""
    rng = np.random.default_rng(seed)
    strong, weak, copy, last = (rng.random(n) < p for p in (0.65, 0.45, 0.9, 0.3))
    other = rng.random(n) < 0.45
    codes = np.empty((n, 4), dtype=np.int64)
    codes[:, 0] = np.where(strong, TRUTH, 1)
    codes[:, 1] = np.where(weak, TRUTH, 2)
    codes[:, 2] = np.where(copy, codes[:, 1], np.where(other, TRUTH, 3))
    codes[:, 3] = np.where(last, TRUTH, 4)
    return codes


def accuracy(chosen: np.ndarray, rows=slice(None)) -> float:
    return float((chosen[rows] == TRUTH).mean())


def test_patterns_and_partitions():
    assert pattern_key([5, 7, 5, MISSING]) == (0, 1, 0, -1)
    assert len(list(set_partitions([0, 1, 2, 3]))) == 15  # Bell(4)
    assert log_evidence(np.array([0.5, 0.5]), np.zeros(2), 4.0) == pytest.approx(0.0)


def test_difficulty_model_keeps_the_best_member_where_dawid_skene_loses_it():
    sim = simulate_unequal_panel([0.6, 0.45, 0.3, 0.2], correlation=0.5, s=0.6, n=3000, seed=0)
    best = sim.correct.mean(axis=0).max()
    fit = fit_difficulty(sim.codes)
    assert int(np.argmax(fit.accuracy)) == 0
    assert accuracy(fit.chosen) >= best - 0.01
    assert accuracy(dawid_skene(sim.codes).chosen) < best - 0.05


def test_labelled_fit_recovers_the_member_accuracies():
    sim = simulate_unequal_panel([0.6, 0.45, 0.3, 0.2], correlation=0.4, s=0.3, n=3000, seed=1)
    fit = fit_difficulty(sim.codes, truth=np.zeros(3000, dtype=np.int64))
    assert fit.accuracy == pytest.approx(sim.correct.mean(axis=0), abs=0.005)


def test_pattern_fit_test_rejects_the_one_coin_model_on_correlated_errors():
    sim = simulate_unequal_panel([0.6, 0.45, 0.3, 0.2], correlation=0.6, s=0.3, n=3000, seed=0)
    one_coin = pattern_fit(sim.codes, fit_difficulty(sim.codes, n_classes=1))
    two = pattern_fit(sim.codes, fit_difficulty(sim.codes, n_classes=2))
    assert one_coin.rejects and one_coin.rmsea > 0.05
    assert not two.rejects and two.rmsea < one_coin.rmsea


def test_label_free_default_says_so_when_it_cannot_tell_copies_from_experts():
    codes = copied_panel()
    jury = label_free_jury(codes, n_boot=20)
    assert jury.rule == "vote" and jury.reasons and not jury.ranks_members
    assert any("unstable" in r or "disagree" in r for r in jury.reasons)
    assert (jury.chosen == fit_difficulty(codes).chosen).all()
    fallback = label_free_jury(codes, n_boot=20, fallback=True)
    assert fallback.rule == "best-member" and fallback.reasons == jury.reasons
    expected = np.where(codes[:, jury.best_member] != MISSING, codes[:, jury.best_member], MISSING)
    assert (fallback.chosen == expected).all()
    # no confident claim: it says the members cannot be ranked and how many labels would
    doc = jury.as_dict()
    assert doc["ranks_members"] is False and doc["labels_needed"] >= 1
    i, j = np.argsort(-jury.fit.accuracy)[:2]
    differ = np.mean(codes[:, i] != codes[:, j])
    gap = max(jury.fit.accuracy[i] - jury.fit.accuracy[j], 0.02)
    assert doc["labels_needed"] == int(np.ceil(1.959963984540054**2 * max(differ, gap) / gap**2))


def test_the_label_free_interval_brackets_the_other_estimators():
    sim = simulate_unequal_panel([0.75, 0.55, 0.5], correlation=0.05, s=0.1, n=1500, seed=2)
    jury = label_free_jury(sim.codes, n_boot=20)
    lo, hi = jury.advantage_ci
    assert jury.reasons == (SHARED_ERRORS,) and not jury.ranks_members  # no doubt but the one agreement cannot lift
    assert lo <= jury.advantage <= hi
    ds = dawid_skene(sim.codes)
    own = float(np.mean(np.where(ds.chosen != MISSING, ds.confidence, 0.0))) - float(ds.accuracy.max())
    assert lo <= own <= hi


def test_the_conservative_interval_holds_where_weak_members_share_a_wrong_answer():
    # three weak members that share one wrong answer outvote the best member: the model takes
    # their agreement as evidence; the interval leaves those rows open and so still covers
    sim = simulate_unequal_panel([0.7, 0.4, 0.4, 0.4], correlation=0.3, s=0.6, n=800, seed=11)
    jury = label_free_jury(sim.codes, n_boot=10)
    trusting = label_free_jury(sim.codes, n_boot=10, allowance=0.0)
    realised = float(np.mean(jury.chosen == 0) - np.mean(sim.codes == 0, axis=0).max())
    lo, hi = jury.advantage_ci
    assert lo <= realised <= hi
    assert trusting.advantage_ci[0] >= lo and trusting.advantage_ci[1] <= hi + 1e-12
    overrides = float(np.mean(jury.chosen != sim.codes[:, jury.best_member]))
    assert (
        jury.overrides == pytest.approx(overrides) and hi <= overrides + 1e-12
    )  # the vote gains only where it overrides
    assert jury.claims is None and jury.labels_needed >= 1


@settings(max_examples=100, deadline=None)
@given(st.lists(st.lists(st.integers(-1, 3), min_size=3, max_size=3), min_size=1, max_size=30), st.integers(0, 3))
def test_parting_bounds_the_difference_with_every_member_without_a_model(rows, right):
    codes = np.array(rows, dtype=np.int64)
    codes[codes < 0] = MISSING
    chosen = vote_codes(codes, 0).chosen
    hits = (codes == right) & (codes != MISSING)
    vote = (chosen == right) & (chosen != MISSING)
    bound = parting_share(codes, chosen)
    assert all(abs(vote.mean() - hits[:, j].mean()) <= bound + 1e-12 for j in range(3))


@pytest.mark.parametrize("strategy", ["random", "active"])
def test_few_labels_recover_the_best_member_the_vote_lost(strategy):
    codes = copied_panel()
    truth = np.zeros(len(codes), dtype=np.int64)
    members = (codes == TRUTH).mean(axis=0)
    label_free = fit_difficulty(codes)
    assert accuracy(label_free.chosen) < members.max() - 0.1  # agreement misleads the model
    jury = choose_labels(codes, truth, 150, strategy, seed=0, refit_every=25, label_free=label_free)
    rest = ~jury.labeled
    assert jury.labeled.sum() == 150
    best_rest = (codes[rest] == TRUTH).mean(axis=0).max()
    assert accuracy(jury.chosen, rest) >= best_rest
    assert int(np.argmax(jury.accuracy)) == 0  # the learned rules fix the member ranking the model got wrong
    assert int(np.argmax(label_free.accuracy)) != 0
    copies_agree = next(r for r in jury.rules if r.key == (0, 1, 1, 3))
    assert copies_agree.blocks[copies_agree.decision] == (0,)  # trust the strong member against the pair


def test_partial_references_are_the_labels():
    sim = simulate_unequal_panel([0.65, 0.5, 0.35, 0.25], correlation=0.3, s=0.3, n=1200, seed=2)
    labeled = np.zeros(1200, dtype=bool)
    labeled[::6] = True
    jury = fit_few_labels(sim.codes, np.zeros(1200, dtype=np.int64), labeled, seed=0)
    someone_right = (sim.codes == TRUTH).any(axis=1)
    assert (jury.chosen[labeled & someone_right] == TRUTH).all()  # a labelled row answers with its reference's class
    rest = ~labeled
    assert accuracy(jury.chosen, rest) >= sim.correct[rest].mean(axis=0).max()
    assert accuracy(jury.chosen, rest) > accuracy(vote_codes(sim.codes).chosen, rest)


def test_bad_requests():
    codes = copied_panel(n=50)
    with pytest.raises(ValueError, match="budget"):
        choose_labels(codes, np.zeros(50, dtype=np.int64), 51)
    with pytest.raises(ValueError, match="active"):
        choose_labels(codes, np.zeros(50, dtype=np.int64), 5, "greedy")
    with pytest.raises(ValueError, match="labeled"):
        fit_few_labels(codes, np.zeros(50, dtype=np.int64), np.zeros(3, dtype=bool))
