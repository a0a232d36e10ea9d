"""``accord prove``: table and JSON output, selection, errata, and a non-zero exit on a failed check."""

from __future__ import annotations

import json

import pytest

from accord.cli.main import main
from accord.proofs import PROVED, REFUTED, Result, register_claim, registry


def test_json_audit_document(capsys):
    rc = main(["prove", "--group", "audit", "--json"])
    doc = json.loads(capsys.readouterr().out)
    assert rc == 0 and doc["ok"] is True
    names = {c["name"]: c for c in doc["checks"]}
    assert names["paper-s4-proposition1-numbers"]["status"] == "REFUTED"
    assert names["paper-s15-worked-examples"]["status"] == "PROVED"
    assert all(c["group"] == "audit" for c in doc["checks"])
    assert any("0.018" in e["correction"] for e in doc["errata"])
    assert any("Δ* = 0.13" in e["claim"] for e in doc["errata"])


def test_table_output_lists_checks_and_errata(capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "220")
    rc = main(["prove", "--check", "weighted-sum-invariant", "--check", "mean-preserved-any-lambda"])
    out = capsys.readouterr().out
    assert rc == 0
    assert "weighted-sum-invariant" in out and "PROVED" in out and "REFUTED" in out
    assert "errata" in out and "all 2 checks reached their expected status" in out


def test_list_and_unknown_check(capsys):
    assert main(["prove", "--list"]) == 0
    listing = capsys.readouterr().out
    assert "equilibrium-foc" in listing and "expects REFUTED" in listing
    assert main(["prove", "--check", "no-such-check"]) == 2
    err = capsys.readouterr().err
    assert "unknown check 'no-such-check'; choose one of" in err and len(err.strip().splitlines()) == 1


@pytest.fixture
def scratch_checks():
    before = dict(registry.CLAIMS._parts)
    yield
    registry.CLAIMS._parts.clear()
    registry.CLAIMS._parts.update(before)


def test_exit_code_is_non_zero_when_a_check_misses_its_status(scratch_checks, capsys):
    @register_claim("scratch-wrong", "a statement that turns out false", expect=PROVED)
    def wrong():
        return Result(REFUTED, "counterexample found", ["1 ≠ 2"], counterexample={"a": 1})

    rc = main(["prove", "--check", "scratch-wrong", "--json"])
    doc = json.loads(capsys.readouterr().out)
    assert rc == 1 and doc["ok"] is False and doc["checks"][0]["ok"] is False
    rc = main(["prove", "--check", "scratch-wrong"])
    assert rc == 1 and "did not reach their expected status" in capsys.readouterr().out


def test_per_check_time_limit(capsys):
    rc = main(
        ["prove", "--check", "weighted-sum-invariant", "--check", "equilibrium-foc", "--timeout", "0.05", "--json"]
    )
    doc = json.loads(capsys.readouterr().out)
    status = {c["name"]: (c["status"], c["detail"]) for c in doc["checks"]}
    assert rc == 1 and status["equilibrium-foc"][0] == "FAILED" and "limit" in status["equilibrium-foc"][1]
    rc = main(["prove", "--check", "mean-preserved-any-lambda", "--timeout", "60", "--json"])
    doc = json.loads(capsys.readouterr().out)
    assert rc == 0 and doc["checks"][0]["status"] == "REFUTED" and doc["errata"]
    assert main(["prove", "--timeout", "0"]) == 2
