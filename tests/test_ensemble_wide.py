"""Wide reward tables (more models than WIDE_MODELS): per-model agreement against the rest of the
panel, influence shares without the m x m matrix, the same in memory and streamed."""

from __future__ import annotations

import csv
import json
import warnings

import numpy as np
import pytest
from scipy.stats import pearsonr, spearmanr

from accord.adapters import fit_calibrators
from accord.cli.main import main
from accord.consensus_core import bootstrap_ci, bootstrap_cis, influence_report
from accord.verify.ensemble import (
    WIDE_MODELS,
    RestMoments,
    column_correlations,
    evaluate_ensemble,
    pairwise_correlations,
    read_rewards,
    rest_means,
    spearman_vs_rest,
)


def _scores(rows: int, m: int, seed: int = 0, missing: float = 0.1) -> np.ndarray:
    rng = np.random.default_rng(seed)
    quality = rng.random((rows, 1))
    x = quality * rng.uniform(0.5, 2.0, m) + rng.normal(0, 0.3, (rows, m))
    x[rng.random((rows, m)) < missing] = np.nan
    return x


def _reference_rest(raw: np.ndarray, cal: np.ndarray, method: str) -> list[float]:
    """One model at a time, with scipy, over the rows where it and at least one other model scored."""
    out = []
    for j in range(cal.shape[1]):
        others = np.delete(cal, j, axis=1)
        with warnings.catch_warnings():  # "mean of empty slice" where no other model scored
            warnings.simplefilter("ignore", RuntimeWarning)
            rest = np.nanmean(others, axis=1)
        own = raw[:, j] if method == "spearman" else cal[:, j]
        both = ~np.isnan(own) & ~np.isnan(rest)
        a, b = own[both], rest[both]
        if both.sum() < 3 or a.std() == 0 or b.std() == 0:
            out.append(float("nan"))
        else:
            out.append(float((spearmanr if method == "spearman" else pearsonr)(a, b)[0]))
    return out


def test_rest_means_leave_the_model_out():
    cal = np.array([[0.2, 0.4, np.nan], [1.0, np.nan, np.nan]])
    np.testing.assert_allclose(rest_means(cal), [[0.4, 0.2, 0.3], [np.nan, 1.0, 1.0]])


def test_per_model_correlations_match_scipy_one_model_at_a_time():
    raw = _scores(60, 12, seed=1, missing=0.2)
    cal = (raw - np.nanmean(raw, axis=0)) / np.nanstd(raw, axis=0)
    np.testing.assert_allclose(
        spearman_vs_rest(raw, cal), _reference_rest(raw, cal, "spearman"), rtol=1e-12, atol=1e-12
    )
    rest = RestMoments(12)
    rest.add(cal)
    np.testing.assert_allclose(rest.pearson(), _reference_rest(raw, cal, "pearson"), rtol=1e-10, atol=1e-12)
    both = column_correlations(cal, rest_means(cal))
    np.testing.assert_allclose(both, rest.pearson(), rtol=1e-10, atol=1e-12)


def test_moments_merged_block_by_block_equal_one_pass_and_constants_give_nan():
    cal = _scores(500, 9, seed=2)
    cal[:, 3] = 0.1  # constant model: no correlation, as for a constant pair
    cal[:40, 5] = np.nan
    whole, parts = RestMoments(9), RestMoments(9)
    whole.add(cal)
    for a in range(0, 500, 37):
        parts.add(cal[a : a + 37])
    np.testing.assert_allclose(parts.pearson(), whole.pearson(), rtol=1e-10, atol=1e-12)
    assert np.isnan(whole.pearson()[3]) and np.isnan(parts.pearson()[3])
    assert np.all(np.isfinite(np.delete(whole.pearson(), 3)))
    few = RestMoments(9)
    few.add(cal[:2])
    assert np.all(np.isnan(few.pearson()))  # fewer than 3 rows, as pairwise_correlations says


def test_bootstrap_cis_equal_bootstrap_ci_one_sample_at_a_time():
    rng = np.random.default_rng(3)
    samples = [rng.random(n) for n in (1, 2, 7, 7, 300, 2001)] + [
        rng.integers(0, 2, 50).astype(float) for _ in range(4)
    ]
    for n_boot, seed in ((1, 0), (200, 4), (2000, 0)):
        assert bootstrap_cis(samples, n_boot, seed=seed) == [bootstrap_ci(x, n_boot, seed=seed) for x in samples]
    assert all(np.isnan(v) for v in bootstrap_cis([np.zeros(0)])[0])


def _write_wide(path, prompts: int, per_prompt: int, m: int, seed: int = 0):
    raw = _scores(prompts * per_prompt, m, seed)
    labels = (np.random.default_rng(seed + 1).random(prompts * per_prompt) < 0.4).astype(int)
    names = [f"rm{j}" for j in range(m)]
    with open(path, "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["prompt_id", "response_id", "label", *names])
        for i, row in enumerate(raw):
            w.writerow(
                [
                    f"p{i // per_prompt}",
                    f"r{i % per_prompt}",
                    labels[i],
                    *("" if np.isnan(v) else repr(float(v)) for v in row),
                ]
            )
    return names


def test_wide_report_in_memory(tmp_path):
    m = WIDE_MODELS + 16
    path = tmp_path / "wide.csv"
    names = _write_wide(path, 30, 4, m)
    table = read_rewards(path)
    cals = fit_calibrators(table.flat_raw, table.models)
    doc = evaluate_ensemble(table, cals, n_boot=50)
    ag = doc["agreement"]
    assert set(ag) == {"krippendorff_alpha", "spearman_raw_vs_rest", "pearson_calibrated_vs_rest", "pairwise"}
    assert list(ag["spearman_raw_vs_rest"]) == names and f"{m * (m - 1) // 2:,} pairs" in ag["pairwise"]
    cal = np.column_stack([cals[n].apply(table.flat_raw[:, j]) for j, n in enumerate(names)])
    np.testing.assert_allclose(
        list(ag["spearman_raw_vs_rest"].values()), _reference_rest(table.flat_raw, cal, "spearman"), atol=1e-12
    )
    np.testing.assert_allclose(
        list(ag["pearson_calibrated_vs_rest"].values()), _reference_rest(table.flat_raw, cal, "pearson"), atol=1e-10
    )
    assert min(ag["pearson_calibrated_vs_rest"].values()) > 0.3  # every model follows the shared quality
    inf = doc["influence"]
    assert inf["matrix"] is None
    np.testing.assert_allclose(list(inf["share_of_mean"].values()), influence_report(inf["lambdas"]).share, rtol=1e-10)
    assert set(doc["accuracy"]) == set(names) | {"mean", "min", "uwo", "fj:verdict", "fj:no_rejection"}


def test_a_narrow_table_keeps_every_pair(tmp_path):
    path = tmp_path / "narrow.csv"
    _write_wide(path, 10, 3, 4)
    table = read_rewards(path)
    doc = evaluate_ensemble(table, fit_calibrators(table.flat_raw, table.models), n_boot=20)
    assert doc["agreement"]["spearman_raw"] == pairwise_correlations(table.flat_raw, table.models, "spearman")
    assert len(doc["influence"]["matrix"]) == 4


def test_wide_table_streamed_gives_the_in_memory_report(tmp_path, capsys):
    path = tmp_path / "wide.csv"
    _write_wide(path, 25, 3, WIDE_MODELS + 6, seed=5)
    assert main(["ensemble", str(path), "--json", "--n-boot", "50"]) == 0
    mem = json.loads(capsys.readouterr().out)
    assert main(["ensemble", str(path), "--json", "--n-boot", "50", "--stream", "--chunk-size", "8"]) == 0
    streamed = json.loads(capsys.readouterr().out)
    a, b = mem["agreement"], streamed["agreement"]
    assert a["spearman_raw_vs_rest"] == b["spearman_raw_vs_rest"]  # every row is in the sample: exact
    np.testing.assert_allclose(
        list(b["pearson_calibrated_vs_rest"].values()), list(a["pearson_calibrated_vs_rest"].values()), rtol=1e-10
    )
    assert b["krippendorff_alpha"] == pytest.approx(a["krippendorff_alpha"], rel=1e-12)
    assert streamed["influence"] == mem["influence"] and streamed["accuracy"] == mem["accuracy"]


def test_cli_on_two_rows_and_a_thousand_models(tmp_path, capsys):
    path = tmp_path / "two_rows.jsonl"
    rng = np.random.default_rng(0)
    with path.open("w") as fh:
        for r in range(2):
            fh.write(
                json.dumps(
                    {
                        "prompt_id": "p",
                        "response_id": f"r{r}",
                        "label": r,
                        **{f"m{j}": float(rng.random()) for j in range(1000)},
                    }
                )
                + "\n"
            )
    assert main(["ensemble", str(path)]) == 0
    out = " ".join(capsys.readouterr().out.split())  # a table title may wrap at the terminal's width
    assert "correlation with the mean of the other models" in out and "m999" in out and "m0~m1" not in out
