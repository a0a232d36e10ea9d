"""Weighted juries on simulated panels of unequal members: label-free methods vs the best member."""

from __future__ import annotations

import numpy as np
import pytest

from accord.consensus_core.jury import vote_codes
from accord.consensus_core.jury._law import simulate_unequal_panel
from accord.consensus_core.jury._weighted import (
    agreement_accuracy,
    dawid_skene,
    supervised_vote,
    weighted_plurality,
    weighted_vote,
)

UNEQUAL = [0.6, 0.45, 0.3, 0.2]


@pytest.fixture(scope="module")
def unequal_panel():
    """Correlated errors (latent correlation 0.3) and a shared wrong attractor (mass 0.3)."""
    return simulate_unequal_panel(UNEQUAL, correlation=0.3, s=0.3, n=2500, seed=1)


def _acc(vote, codes) -> float:
    return float(np.mean(vote.chosen == 0))


def test_weighted_methods_recover_the_best_member_where_modal_voting_fails(unequal_panel):
    c = unequal_panel.codes
    best = float((c == 0).mean(axis=0).max())
    modal = float(np.mean(vote_codes(c, seed=0).chosen == 0))
    ds = _acc(dawid_skene(c), c)
    wp = _acc(weighted_plurality(c), c)
    sup = _acc(supervised_vote(c, c == 0), c)
    print(f"best member {best:.3f}  modal {modal:.3f}  dawid-skene {ds:.3f}  weighted {wp:.3f}  supervised {sup:.3f}")
    assert modal < best - 0.02  # the failure the weighted juries fix
    assert ds >= best and wp >= best
    assert sup >= best


def test_estimated_accuracies_order_the_members(unequal_panel):
    c = unequal_panel.codes
    fit = dawid_skene(c, n_boot=10, seed=2)
    assert np.all(np.diff(fit.accuracy) < 0)
    assert np.all(fit.accuracy_ci[:, 0] <= fit.accuracy) and np.all(fit.accuracy <= fit.accuracy_ci[:, 1])
    acc, s = agreement_accuracy(c)
    assert np.all(np.diff(acc) < 0)
    assert np.allclose(fit.accuracy, UNEQUAL, atol=0.1)


def test_equal_members_reduce_to_the_modal_answer():
    sim = simulate_unequal_panel([0.6] * 4, correlation=0.3, s=0.3, n=2000, seed=2)
    c = sim.codes
    modal = vote_codes(c, seed=0)
    exact = weighted_vote(c, [0.6] * 4, 0.0, seed=0)
    assert np.array_equal(exact.chosen, modal.chosen)  # same votes, same tie keys
    for fit in (dawid_skene(c), weighted_plurality(c)):
        untied = ~modal.tied
        assert np.mean(fit.chosen[untied] == modal.chosen[untied]) > 0.99
        assert abs(np.mean(fit.chosen == 0) - np.mean(modal.chosen == 0)) < 0.02


def test_confusion_matrix_dawid_skene_on_a_fixed_label_set():
    # multiple choice (labels 0..3, truth uniform): members with unequal accuracy, errors uniform
    rng = np.random.default_rng(5)
    n, acc = 3000, np.array([0.75, 0.5, 0.35, 0.3, 0.3])
    truth = rng.integers(0, 4, n)
    right = rng.random((n, acc.size)) < acc
    other = (truth[:, None] + rng.integers(1, 4, (n, acc.size))) % 4
    codes = np.where(right, truth[:, None], other)
    fit = dawid_skene(codes, global_labels=True)
    assert np.allclose(fit.accuracy, acc, atol=0.05)
    modal = np.mean(vote_codes(codes).chosen == truth)
    assert np.mean(fit.chosen == truth) > modal + 0.08


def test_bad_input_is_named():
    with pytest.raises(ValueError, match="accuracies for"):
        weighted_vote(np.zeros((3, 4), dtype=int), [0.5, 0.5])
    with pytest.raises(ValueError, match="at least 3 members"):
        agreement_accuracy(np.zeros((5, 2), dtype=int))
    with pytest.raises(ValueError, match="integer array"):
        dawid_skene(np.zeros((5, 3)))
