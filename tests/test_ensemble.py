"""Reward ensembles: reading reward files, the rules, fair tie counting, agreement statistics."""

from __future__ import annotations

import itertools
import json

import numpy as np
import pytest

from accord.adapters import fit_calibrators
from accord.consensus_core import ConsensusSpec, get_policy
from accord.errors import UserError
from accord.verify.ensemble import (
    evaluate_ensemble,
    krippendorff_alpha,
    read_rewards,
    rule_keys,
    selection_hits,
)


def _alpha_by_pairs(x: np.ndarray) -> float:
    """Krippendorff's interval alpha from its definition, pair by pair (slow, for checking)."""
    units = [row[~np.isnan(row)] for row in x]
    units = [u for u in units if u.size >= 2]
    n = sum(u.size for u in units)
    d_o = sum(sum((a - b) ** 2 for a, b in itertools.permutations(u, 2)) / (u.size - 1) for u in units) / n
    pooled = np.concatenate(units)
    d_e = sum((a - b) ** 2 for a, b in itertools.permutations(pooled, 2)) / (n * (n - 1))
    return 1 - d_o / d_e


def test_krippendorff_alpha_matches_its_definition_with_missing_values():
    rng = np.random.default_rng(0)
    truth = rng.random(30)
    x = truth[:, None] + rng.normal(0, 0.2, (30, 4))
    x[rng.random(x.shape) < 0.2] = np.nan
    assert krippendorff_alpha(x) == pytest.approx(_alpha_by_pairs(x), abs=1e-10)
    assert krippendorff_alpha(np.tile(truth[:, None], (1, 3))) == pytest.approx(1.0)
    noise = rng.random((4000, 3))
    assert abs(krippendorff_alpha(noise)) < 0.03


def test_ties_score_the_mean_label_of_the_tied_responses():
    key = np.array([[0.5, 0.5, 0.1], [0.9, 0.2, np.nan]])
    labels = np.array([[1.0, 0.0, 1.0], [0.0, 1.0, np.nan]])
    valid = np.array([[True, True, True], [True, True, False]])
    assert selection_hits(np.nan_to_num(key, nan=-np.inf), labels, valid).tolist() == [0.5, 0.0]


def test_rules_on_a_small_example():
    cal = np.array([[[0.9, 0.1, 0.8], [0.6, 0.6, 0.6]]])  # one prompt, two responses, three models
    assert np.allclose(rule_keys(cal, "mean"), [[0.6, 0.6]])
    assert np.allclose(rule_keys(cal, "min"), [[0.1, 0.6]])
    assert np.allclose(rule_keys(cal, "uwo", k=1.0), [[0.6 - np.std([0.9, 0.1, 0.8]), 0.6]])
    fj = rule_keys(cal, "fj:verdict", lambdas=(1.5, 1.0, 0.8))
    assert np.array_equal(fj, get_policy("verdict").decide(cal, ConsensusSpec((1.5, 1.0, 0.8))).rank_key)


def _write(tmp_path, rows, name="r.jsonl"):
    p = tmp_path / name
    p.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    return p


def _simulated_rows(n_prompts=120, seed=1):
    """Three reward models of falling quality on 4 responses per prompt (one correct)."""
    rng = np.random.default_rng(seed)
    rows = []
    for i in range(n_prompts):
        good = int(rng.integers(0, 4))
        for k in range(4):
            y = int(k == good)
            rows.append(
                {
                    "prompt_id": f"p{i}",
                    "response_id": f"r{k}",
                    "label": y,
                    "strong": 3.0 * y + rng.normal(0, 1.0),
                    "medium": 1.0 * y + rng.normal(0, 1.0) + 10.0,
                    "noise": rng.normal(0, 5.0),
                }
            )
    return rows


def test_best_of_n_accuracy_orders_models_and_rules(tmp_path):
    table = read_rewards(_write(tmp_path, _simulated_rows()))
    assert (
        table.kind == "best_of_n" and table.models == ["strong", "medium", "noise"] and table.raw.shape == (120, 4, 3)
    )
    cals = fit_calibrators(table.flat_raw, table.models, "quantile")
    doc = evaluate_ensemble(table, cals, lambdas=(1.5, 1.0, 0.8), n_boot=200)
    acc = {k: v["accuracy"] for k, v in doc["accuracy"].items()}
    assert acc["strong"] > acc["medium"] > acc["noise"]
    assert doc["baselines"]["random"] == pytest.approx(0.25) and doc["baselines"]["oracle"] == 1.0
    for e in doc["accuracy"].values():
        assert e["ci"][0] <= e["accuracy"] <= e["ci"][1]
    corr = doc["agreement"]["spearman_raw"]
    assert corr["strong~medium"] > abs(corr["strong~noise"])
    assert doc["influence"]["share_of_mean"]["strong"] > doc["influence"]["share_of_mean"]["noise"]  # lambdas 1.5 > 0.8


def test_pairs_count_preference_accuracy(tmp_path):
    rows = [
        {"prompt_id": "a", "chosen": {"x": 2.0, "y": 1.0}, "rejected": {"x": 1.0, "y": 1.0}},
        {"prompt_id": "b", "chosen": {"x": 0.0, "y": 3.0}, "rejected": {"x": 1.0, "y": 0.0}},
    ]
    table = read_rewards(_write(tmp_path, rows))
    assert table.kind == "pairs"
    cals = fit_calibrators(table.flat_raw, table.models, "standardize")
    doc = evaluate_ensemble(table, cals, rules=["mean", "min"], n_boot=50)
    assert doc["accuracy"]["x"]["accuracy"] == 0.5
    assert doc["accuracy"]["y"]["accuracy"] == 0.75  # one win, one tie


@pytest.mark.parametrize(
    "rows, message",
    [
        (["not json"], "r.jsonl:1: not valid JSON"),
        (
            [{"prompt_id": "p", "a": 0, "b": 1}, {"prompt_id": "q", "a": "high", "b": 1}],
            "r.jsonl:2: a: reward must be a number",
        ),
        ([{"prompt_id": "p", "a": 1, "b": 1, "label": 3}], "label must be 0 or 1"),
        ([{"prompt_id": "p", "a": 1}], "at least 2 reward models"),
        ([{"a": 1, "b": 2}], "missing 'prompt_id'"),
        ([{"chosen": {"a": 1, "b": 2}, "rejected": 5}], "'rejected' as an object"),
    ],
)
def test_bad_files_are_named(tmp_path, rows, message):
    p = tmp_path / "r.jsonl"
    p.write_text("\n".join(r if isinstance(r, str) else json.dumps(r) for r in rows) + "\n")
    with pytest.raises(UserError, match=message):
        read_rewards(p)


def test_unknown_rule_is_named(tmp_path):
    table = read_rewards(_write(tmp_path, _simulated_rows(10)))
    cals = fit_calibrators(table.flat_raw, table.models)
    with pytest.raises(UserError, match="unknown rule 'median'"):
        evaluate_ensemble(table, cals, rules=["median"], n_boot=10)
