"""Every registered claim runs and reaches its expected status; the registry and errata behave."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from accord.consensus_core import consensus
from accord.proofs import (
    CHECKED_NUMERICALLY,
    FAILED,
    PROVED,
    REFUTED,
    Result,
    checks,
    register_claim,
    registry,
    report,
    run_all,
    run_check,
)
from accord.proofs import symbolic as sym

# the groups this file owns; a module that adds a group (e.g. jury_checks) tests its own checks
GROUPS = ("core", "audit")
NAMES = [c.name for c in checks() if c.group in GROUPS]


@pytest.fixture(scope="module")
def outcomes():
    return {o.check.name: o for o in run_all(NAMES)}


def test_the_check_modules_are_found():
    modules = {c.fn.__module__ for c in checks()}
    assert {"accord.proofs.core_checks", "accord.proofs.paper_checks", "accord.proofs.jury_checks"} <= modules


def test_the_documented_claims_are_all_registered():
    expected = {
        "equilibrium-foc",
        "matrix-diagonally-dominant",
        "determinant-all-to-all",
        "closed-form-solves-system",
        "consensus-in-convex-hull",
        "weighted-sum-invariant",
        "mean-preserved-any-lambda",
        "mean-preserved-equal-lambda",
        "mean-shift-bound",
        "equal-lambda-dispersion",
        "dispersion-not-separable",
        "raw-dispersion-separable",
        "paper-s4-illustration",
        "paper-s4-proposition1-numbers",
        "paper-s11-10-quoted-example",
        "paper-s13-2-numbers",
        "paper-s15-worked-examples",
        "paper-s16-table15",
    }
    assert expected <= set(NAMES)


@pytest.mark.parametrize("name", NAMES)
def test_every_claim_reaches_its_expected_status(outcomes, name):
    o = outcomes[name]
    assert o.result.status != FAILED, o.result.detail
    assert o.result.status == o.check.expect, (o.result.detail, o.result.evidence)
    assert o.ok
    assert o.result.evidence, "a check must show its derivation or numbers"
    if o.result.status == REFUTED:
        assert o.result.counterexample is not None


def test_errata_name_the_papers_wrong_numbers_with_corrections(outcomes):
    doc = report(list(outcomes.values()))
    text = {e["claim"]: e["correction"] for e in doc["errata"]}
    joined = " ".join(f"{k} => {v}" for k, v in text.items())
    assert doc["ok"] is True
    assert any("0.04" in k and "0.018" in v for k, v in text.items())  # main text Δ*(0.7, 0.6, 0.7)
    assert any("0.13" in k and "0.109" in v for k, v in text.items())  # §11.10's quote of (0.9, 0.3, 0.9)
    assert "weighted sum is preserved" in joined  # mean preservation
    assert "(max λ − min λ)/(max λ + min λ)" in joined  # the tight bound
    assert "not separable" in joined  # variance / MAD
    for e in doc["errata"]:
        assert e["claim"] and e["correction"] and e["check"] in NAMES


def test_audit_recomputes_the_papers_correct_numbers(outcomes):
    worked = outcomes["paper-s15-worked-examples"].result.data["numbers"]
    assert len(worked) > 40 and all(n["ok"] for n in worked)
    by = {n["quantity"]: n["computed"] for n in worked}
    assert by["Δ*"] == pytest.approx(0.018, abs=5e-4)  # the last example written is r' = (0.7, 0.6, 0.7)
    table13 = {n["quantity"]: n["computed"] for n in outcomes["paper-s13-2-numbers"].result.data["numbers"]}
    assert table13["minimum determinant (exact)"] == pytest.approx(0.972)
    assert table13["maximum condition number"] == pytest.approx(6.0)
    assert outcomes["paper-s13-2-numbers"].result.status == CHECKED_NUMERICALLY
    assert outcomes["mean-shift-bound"].result.data["tight_factor"] == pytest.approx(0.7 / 2.3)


def test_json_document_shape(outcomes):
    doc = report(list(outcomes.values()))
    assert set(doc) >= {"checks", "errata"}
    for c in doc["checks"]:
        assert set(c) >= {"name", "statement", "status"}
        assert c["status"] in ("PROVED", "REFUTED", "CHECKED-NUMERICALLY", "FAILED")
    import json

    json.dumps(doc)  # plain JSON types only


@pytest.fixture
def scratch_checks():
    before = dict(registry.CLAIMS._parts)
    yield
    registry.CLAIMS._parts.clear()
    registry.CLAIMS._parts.update(before)


def test_a_check_that_raises_is_failed_and_not_ok(scratch_checks):
    @register_claim("scratch-raises", "a check whose code is broken")
    def broken():
        raise ZeroDivisionError("boom")

    o = run_check(checks(["scratch-raises"])[0])
    assert o.result.status == FAILED and "boom" in o.result.detail and not o.ok


def test_a_check_below_its_expectation_is_not_ok(scratch_checks):
    @register_claim("scratch-refuted", "expected to be proved", expect=PROVED)
    def refuted():
        return Result(REFUTED, "counterexample", ["x"], counterexample={"x": 1})

    (o,) = run_all(["scratch-refuted"])
    assert not o.ok and report([o])["ok"] is False


def test_registry_rejects_bad_registrations(scratch_checks):
    with pytest.raises(ValueError):
        register_claim("x", "y", expect=FAILED)
    with pytest.raises(ValueError):
        Result("MAYBE")

    @register_claim("scratch-dup", "first")
    def first():
        return Result(PROVED)

    with pytest.raises(ValueError, match="already registered"):

        @register_claim("scratch-dup", "second")
        def second():
            return Result(PROVED)

    with pytest.raises(ValueError, match="unknown check 'no-such-check'; choose one of .*scratch-dup"):
        checks(["no-such-check"])


@settings(max_examples=40, deadline=None)
@given(
    r=st.lists(st.fractions(0, 1, max_denominator=20), min_size=2, max_size=6),
    seed=st.integers(0, 1000),
)
def test_exact_closed_form_agrees_with_the_library(r, seed):
    rng = np.random.default_rng(seed)
    lam = [Fraction(int(rng.integers(1, 40)), int(rng.integers(1, 10))) for _ in r]
    exact = [float(x) for x in sym.closed_form(r, lam)]
    lib = consensus(np.array([float(x) for x in r]), np.array([float(x) for x in lam]))
    assert np.allclose(exact, lib, atol=1e-12)


def test_a_stated_number_is_judged_at_its_printed_precision():
    from accord.proofs.audit import audit_result, stated

    assert stated("§x", "q", "0.2000", 0.20004).ok
    assert not stated("§x", "q", "0.2000", 0.2001).ok  # four printed decimals: 0.2001 is not 0.2000
    assert stated("§x", "q", 0.2, 0.24).ok  # one decimal
    assert not stated("§x", "q", "0.55", 0.5446).ok
    good = audit_result([stated("§x", "q", "0.018", 0.01812)], [("a fact", True)], lambda w: [])
    bad = audit_result([stated("§x", "q", "0.04", 0.01812)], [], lambda w: [])
    assert good.status == PROVED and bad.status == REFUTED and bad.counterexample[0]["computed"] == 0.01812
