"""The jury law: closed forms vs Monte Carlo, exact special cases, estimators and the fit check."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import integrate
from scipy.stats import beta as beta_law

from accord.consensus_core.jury import _law as law
from accord.consensus_core.jury import check_law, estimate_law

GRID = [(a, rho, s, M) for a in (0.45, 0.75) for rho in (0.15, 0.45) for s, M in ((0.3, 5), ((0.3, 0.15), 4))]


def test_closed_forms_match_the_simulator_within_0002_over_a_grid():
    worst = {"accuracy": 0.0, "floor": 0.0, "unanimous_rate": 0.0, "unanimous_accuracy": 0.0, "coverage": 0.0}
    for i, (a, rho, s, M) in enumerate(GRID):
        pred = law.predict(a, rho, s, M)
        sim = law.simulate(a, rho, s, M, n=500_000, seed=11 + i)
        worst["accuracy"] = max(worst["accuracy"], abs(pred.accuracy - sim.accuracy))
        worst["floor"] = max(worst["floor"], abs(pred.floor - sim.floor))
        worst["unanimous_rate"] = max(worst["unanimous_rate"], abs(pred.unanimous_rate - sim.unanimous_rate))
        worst["unanimous_accuracy"] = max(
            worst["unanimous_accuracy"], abs(pred.unanimous_accuracy - sim.unanimous_accuracy)
        )
        worst["coverage"] = max(worst["coverage"], float(np.max(np.abs(pred.coverage - sim.coverage))))
    print("max |law - simulator| over the grid:", {k: round(v, 5) for k, v in worst.items()})
    assert max(worst.values()) < 0.002, worst


def test_independent_members_reduce_to_the_binomial_majority():
    # rho = 0, no attractor, M = 3: right with >= 2 votes, or with 1 vote in a three-way tie (1/3)
    a = 0.7
    expected = a**3 + 3 * a**2 * (1 - a) + 3 * a * (1 - a) ** 2 / 3
    assert law.accuracy(a, 0.0, 0.0, 3) == pytest.approx(expected, abs=1e-12)


def test_a_single_member_is_as_accurate_as_itself():
    assert law.accuracy(0.62, 0.3, 0.4, 1) == pytest.approx(0.62, abs=1e-12)


def test_fully_correlated_members_are_one_member():
    # rho = 1: everyone right or everyone wrong together
    p = law.predict(0.66, 1.0, 0.5, 5)
    assert p.accuracy == pytest.approx(0.66, abs=1e-12)


def test_floor_equals_its_integral_definition():
    a, rho, s, M = 0.6, 0.25, (0.4, 0.2), 4
    k = 1 / rho - 1
    integral, _ = integrate.quad(lambda p: (1 - p) ** M * beta_law.pdf(p, a * k, (1 - a) * k), 0, 1)
    assert law.floor(a, rho, s, M) == pytest.approx((0.4**M + 0.2**M) * integral, rel=1e-8)


def test_unanimous_accuracy_is_the_abstention_dials_last_point():
    p = law.predict(0.55, 0.3, 0.35, 5)
    assert p.dial_accuracy[-1] == pytest.approx(p.unanimous_accuracy, abs=1e-12)
    assert p.coverage[-1] == pytest.approx(p.unanimous_rate, abs=1e-12)


@settings(max_examples=40, deadline=None)
@given(
    a=st.floats(0.05, 0.95),
    rho=st.floats(0.01, 0.99),
    s=st.floats(0.0, 1.0),
    M=st.integers(1, 7),
)
def test_predictions_are_probabilities_and_the_dial_is_monotone(a, rho, s, M):
    p = law.predict(a, rho, s, M)
    assert law.correct_count_pmf(a, rho, M).sum() == pytest.approx(1.0, abs=1e-9)
    assert -1e-12 <= p.floor <= 1 - a + 1e-12
    assert 0 <= p.accuracy <= 1 + 1e-12
    assert np.all(np.diff(p.coverage) <= 1e-12)
    assert np.all((p.dial_accuracy >= -1e-12) & (p.dial_accuracy <= 1 + 1e-12))


def test_bad_parameters_are_named():
    with pytest.raises(ValueError, match="mean accuracy a"):
        law.predict(1.2, 0.3, 0.1, 3)
    with pytest.raises(ValueError, match="rho"):
        law.predict(0.5, -0.1, 0.1, 3)
    with pytest.raises(ValueError, match="sum to <= 1"):
        law.predict(0.5, 0.3, (0.7, 0.6), 3)
    with pytest.raises(ValueError, match="panel size"):
        law.predict(0.5, 0.3, 0.1, 0)


@pytest.mark.parametrize("a, rho, s, M", [(0.65, 0.3, 0.25, 5), (0.5, 0.15, (0.4, 0.2), 6)])
def test_estimators_recover_known_parameters(a, rho, s, M):
    sim = law.simulate_panel(a, rho, s, M, n=4000, seed=5)
    K = len(np.atleast_1d(s))
    est = estimate_law(sim.codes, sim.correct, K, n_boot=100, seed=1)
    truth_s = np.atleast_1d(s)
    print("estimate", est.as_dict())
    assert est.a == pytest.approx(a, abs=0.02)
    assert est.rho == pytest.approx(rho, abs=0.03)
    assert np.allclose(est.s, truth_s, atol=0.04)
    assert est.a_ci[0] <= a <= est.a_ci[1]
    assert est.rho_ci[0] - 0.01 <= rho <= est.rho_ci[1] + 0.01
    for (lo, hi), t in zip(est.s_ci, truth_s):
        assert lo - 0.01 <= t <= hi + 0.01


def test_fit_check_accepts_the_law_and_rejects_shared_blind_spots():
    sim = law.simulate_panel(0.6, 0.3, 0.25, 5, n=2000, seed=4)
    ok = check_law(sim.codes, sim.correct, 1, n_boot=60, seed=0)
    assert ok.p_value > 0.01 and ok.p_bootstrap > 0.01
    # a shared blind spot: half the problems everyone gets wrong land on one wrong answer together
    codes = sim.codes.copy()
    all_wrong = np.all(codes != 0, axis=1)
    blind = all_wrong & (np.random.default_rng(0).random(len(codes)) < 0.5)
    codes[blind] = 1
    bad = check_law(codes, codes == 0, 1, n_boot=60, seed=0)
    assert bad.p_value < 1e-6 and bad.p_bootstrap < 0.05
    assert bad.unanimous_wrong / bad.all_wrong > 5 * bad.unanimous_wrong_predicted


def test_plan_respects_the_budget_and_prefers_decorrelated_members():
    from accord.consensus_core.jury import plan_panel

    acc = [0.7, 0.68, 0.66, 0.65, 0.8]
    cost = [1, 1, 1, 1, 5]
    R = np.full((5, 5), 0.1)
    R[0, 1] = R[1, 0] = 0.9  # members 1 and 2 err together
    np.fill_diagonal(R, 1.0)
    plan = plan_panel(acc, cost, budget=3, correlation=R, s=0.1, names=list("ABCDE"))
    assert plan.best.cost <= 3
    assert "E" not in plan.best.members
    assert not {"A", "B"} <= set(plan.best.members)
    single = plan_panel(acc, cost, budget=1, correlation=R, s=0.1, names=list("ABCDE"))
    assert single.best.members == ("A",)
    with pytest.raises(ValueError, match="budget"):
        plan_panel(acc, cost, budget=0.5, correlation=R)


def test_the_laws_identities_are_registered_with_accord_prove():
    from accord.proofs.registry import run_all

    outcomes = run_all(group="jury")
    names = {o.check.name for o in outcomes}
    assert {"jury-beta-moment", "jury-correlation-parameter", "jury-closed-forms"} <= names
    assert all(o.ok for o in outcomes), [(o.check.name, o.result.status, o.result.detail) for o in outcomes]
