"""Threshold and stubbornness sweeps by replay: every cell is a replay, heatmaps are written."""

from __future__ import annotations

import json

import pytest
from tracegen import LAMBDAS, simulate_run

from accord.cli.main import main
from accord.verify.analysis import (
    default_lambda_sets,
    make_spec,
    read_trace,
    recorded_lambdas,
    replay,
    stubbornness_sweep,
    threshold_sweep,
    write_sweep,
)


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    return simulate_run(tmp_path_factory.mktemp("run"), n_tasks=14, seed=4)


@pytest.fixture(scope="module")
def trace(run):
    return read_trace(run / "trace.jsonl")


def test_threshold_grid_cells_are_replays(trace):
    taus, epss = [0.4, 0.6], [0.05, 0.1, 0.3]
    g = threshold_sweep(trace, taus, epss)
    assert len(g["accuracy_exact"]) == 2 and all(len(r) == 3 for r in g["accuracy_exact"])
    for i, t in enumerate(taus):
        for j, e in enumerate(epss):
            s = replay(trace, make_spec("verdict", tau=t, eps=e)).summary()
            assert g["exact"][i][j] == s["exact"]
            assert g["accuracy_exact"][i][j] == s["accuracy_exact"]
            assert g["accuracy_low"][i][j] <= g["accuracy_high"][i][j]
    # the recorded thresholds stay on recorded ground: every chain exact, the recorded accuracy
    ends = trace.end_of("verdict")
    assert g["exact"][1][1] == 14
    assert g["accuracy_exact"][1][1] == pytest.approx(sum(e.correct for e in ends.values()) / 14)


def test_stubbornness_rows_match_threshold_rows(trace):
    epss = [0.05, 0.1]
    s = stubbornness_sweep(trace, [LAMBDAS, (1.0, 1.0, 1.0)], epss, tau=0.6)
    g = threshold_sweep(trace, [0.6], epss)
    assert s["accuracy_exact"][0] == g["accuracy_exact"][0]
    g1 = threshold_sweep(trace, [0.6], epss, lambdas=(1.0, 1.0, 1.0))
    assert s["exact"][1] == g1["exact"][0]


def test_default_lambda_sets(trace):
    assert recorded_lambdas(trace) == LAMBDAS
    sets = default_lambda_sets(trace, scales=(0.5, 1.0))
    assert sets == [(0.75, 0.5, 0.4), LAMBDAS, (1.0, 1.0, 1.0)]


def test_wrong_number_of_stubbornness_values_is_an_error(trace):
    with pytest.raises(ValueError, match=r"λ must be finite numbers > 0, one per judge.*got \[1.0, 1.0\] for 3 judges"):
        stubbornness_sweep(trace, [(1.0, 1.0)], [0.1])


def test_write_sweep_writes_json_and_heatmaps(run):
    res = write_sweep(run, [0.5, 0.6], [0.1, 0.2], [(1.0, 1.0, 1.0)])
    data = json.loads((run / "sweep.json").read_text())
    assert data["thresholds"]["exact"] == res["thresholds"]["exact"]
    assert data["stubbornness"]["lambdas"] == [[1.0, 1.0, 1.0]]
    for name in res["plots"]:
        assert (run / name).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_an_open_filter_with_equal_stubbornness_is_the_mean_rule(trace):
    """τ below every score and ε above every dispersion accept all; equal λ keep s̄* = raw mean."""
    g = threshold_sweep(trace, [-1.0], [10.0], lambdas=(1.0, 1.0, 1.0))
    mean = replay(trace, make_spec("mean")).summary()
    assert (g["exact"][0][0], g["accuracy_exact"][0][0]) == (mean["exact"], mean["accuracy_exact"])


@pytest.mark.parametrize("flag, value", [("--tau", "1.5"), ("--eps", "-0.1"), ("--tau", "nan"), ("--eps", "x")])
def test_sweep_thresholds_outside_the_unit_interval_are_refused(run, capsys, flag, value):
    assert main(["sweep", str(run), flag, "0.5", value]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("accord sweep: error:") and flag in err and len(err.splitlines()) == 1


def test_sweep_reads_stubbornness_as_every_command_does(run, capsys):
    """λ above 1 is a λ, not a threshold: `--lambdas 1.5,1,0.8 2,1,1` sweeps; a bad λ is the one λ message."""
    assert main(["sweep", str(run), "--lambdas", "1.5,1,0.8", "2,1,1", "--tau", "0.6", "--eps", "0.1", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["stubbornness"]["lambdas"] == [[1.5, 1.0, 0.8], [2.0, 1.0, 1.0]]
    assert main(["sweep", str(run), "--lambdas", "1,-1,1"]) == 2
    err = capsys.readouterr().err.strip()
    assert (
        err == "accord sweep: error: --lambdas: λ must be finite numbers > 0, one per judge, comma-separated (e.g. "
        "1.5,1,0.8); got '1,-1,1'"
    )
