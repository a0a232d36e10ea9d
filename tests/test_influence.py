"""The judge influence report."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from accord.consensus_core import all_to_all_shares, consensus, influence_report


@settings(max_examples=40, deadline=None)
@given(st.lists(st.floats(0.05, 10), min_size=2, max_size=8))
def test_influence_matrix_is_stochastic_and_reproduces_consensus(lams):
    lam = np.array(lams)
    rep = influence_report(lam)
    M = rep.matrix
    assert np.all(M >= -1e-15)
    np.testing.assert_allclose(M.sum(axis=1), 1.0, atol=1e-12)
    assert rep.share.sum() == pytest.approx(1.0)
    r = np.linspace(0, 1, len(lam))
    np.testing.assert_allclose(M @ r, consensus(r, lam), atol=1e-12)


def test_stubborn_judge_has_largest_share():
    rep = influence_report((1.5, 1.0, 0.8), judges=("visual", "logical", "contextual"))
    share = rep.as_dict()["share_of_mean"]
    assert share["visual"] > share["logical"] > share["contextual"]
    equal = influence_report((1.0, 1.0, 1.0))
    np.testing.assert_allclose(equal.share, 1 / 3)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.floats(0.05, 10), min_size=2, max_size=40))
def test_all_to_all_shares_match_the_matrix(lams):
    np.testing.assert_allclose(all_to_all_shares(lams), influence_report(lams).share, rtol=1e-10, atol=1e-14)


def test_all_to_all_shares_for_thousands_of_judges():
    lam = np.linspace(0.5, 2.0, 20_000)
    share = all_to_all_shares(lam)
    assert share.sum() == pytest.approx(1.0) and np.all(np.diff(share) > 0)  # stubborner, larger share
