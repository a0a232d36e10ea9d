"""The judge influence report."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from accord.consensus_core import consensus, influence_report


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
