"""The worked numbers of DESIGN.md and the decisions of the paper's Table 15, computed by the library."""

import itertools

import numpy as np
import pytest

from accord.consensus_core import ConsensusSpec, all_to_all, consensus_stats, get_policy

LAM = (1.5, 1.0, 0.8)


@pytest.mark.parametrize(
    "raw, s_star, mean, disp",
    [
        ((0.9, 0.2, 0.9), (0.788, 0.485, 0.754), 0.676, 0.127),
        ((0.7, 0.6, 0.7), (0.684, 0.641, 0.679), 0.668, 0.018),
        ((0.9, 0.3, 0.9), (0.804, 0.545, 0.775), 0.708, 0.109),
    ],
)
def test_worked_vectors(raw, s_star, mean, disp):
    st = consensus_stats(raw, LAM)
    np.testing.assert_allclose(st.consensus, s_star, atol=5e-4)
    assert st.mean == pytest.approx(mean, abs=5e-4)
    assert st.dispersion == pytest.approx(disp, abs=5e-4)


def test_worked_decisions():
    d = get_policy("verdict").decide(np.array([[0.9, 0.2, 0.9], [0.7, 0.6, 0.7], [0.9, 0.3, 0.9]]))
    assert d.accepted.tolist() == [False, True, False]  # (0.9,0.3,0.9): s̄* passes, Δ* ≈ 0.109 fails
    assert int(d.chosen) == 1 and not bool(d.fallback)


def test_matrix_facts_over_125_triples():
    grid = (0.3, 0.8, 1.0, 1.5, 2.0)
    dets, eigs, conds = [], [], []
    for lam in itertools.product(grid, repeat=3):
        A = np.eye(3) + np.diag(lam) - all_to_all(3)
        dets.append(np.linalg.det(A))
        eigs.append(np.linalg.eigvalsh((A + A.T) / 2).min())
        conds.append(np.linalg.cond(A))
    assert len(dets) == 125
    assert min(dets) == pytest.approx(0.972, abs=5e-4)
    assert min(eigs) == pytest.approx(0.300, abs=5e-4)
    assert max(conds) == pytest.approx(6.00, abs=5e-3)


# Table 15 of the paper (section 16): raw vector, stated raw mean, stated Δ*, WA decision, VERDICT decision.
TABLE_15 = [
    ((0.90, 0.90, 0.90), 0.90, 0.00, True, True),
    ((0.90, 0.20, 0.90), 0.67, 0.13, True, False),
    ((0.70, 0.60, 0.70), 0.67, 0.02, True, True),
    ((0.95, 0.05, 0.95), 0.65, 0.16, True, False),
    ((0.40, 0.35, 0.45), 0.40, 0.01, False, False),
]


@pytest.mark.parametrize("raw, raw_mean, disp, wa_accept, verdict_accept", TABLE_15)
def test_table_15_rows(raw, raw_mean, disp, wa_accept, verdict_accept):
    st = consensus_stats(raw, LAM)
    assert round(float(st.raw_mean), 2) == raw_mean
    assert round(float(st.dispersion), 2) == disp
    assert bool(st.raw_mean > 0.6) == wa_accept
    d = get_policy("verdict").decide(np.array([raw]), ConsensusSpec(LAM))
    assert bool(d.accepted[0]) == verdict_accept
