"""Evaluation: bootstrap intervals, rates, ROC AUC of Δ* and raw variance, the paired review test, a run's paired
comparisons."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import binomtest
from tracegen import simulate_run

from accord.consensus_core import ConsensusSpec, consensus_stats, get_policy
from accord.verify.analysis import (
    accuracy_table,
    bootstrap_ci,
    make_spec,
    mcnemar,
    paired_comparison,
    paired_summary,
    rates,
    read_trace,
    replay,
    review_test,
    timing_shares,
)
from accord.verify.analysis._diagnostics import (
    _weighted_auc,
    candidate_table,
    dispersion_diagnostics,
    rank_flips,
    roc_auc,
    roc_curve,
)
from accord.verify.loop import context_id
from accord.verify.tasks import TextTask


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    return simulate_run(tmp_path_factory.mktemp("run"), n_tasks=24, seed=11)


@pytest.fixture(scope="module")
def trace(run):
    return read_trace(run / "trace.jsonl")


def test_bootstrap_interval_brackets_the_mean_and_is_seeded():
    x = np.r_[np.ones(30), np.zeros(20)]
    lo, hi = bootstrap_ci(x, 1000, seed=1)
    assert lo < 0.6 < hi and 0.4 < lo and hi < 0.8
    assert bootstrap_ci(x, 1000, seed=1) == (lo, hi)
    assert bootstrap_ci(np.ones(10), 200) == (1.0, 1.0)


def _brute_auc(s, y):
    pos, neg = s[y], s[~y]
    return np.mean([(p > n) + 0.5 * (p == n) for p in pos for n in neg])


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.sampled_from([0.0, 0.1, 0.25, 0.5, 0.9]), st.booleans()), min_size=2, max_size=30))
def test_auc_equals_the_pairwise_definition(pairs):
    s = np.array([p[0] for p in pairs])
    y = np.array([p[1] for p in pairs])
    auc = roc_auc(s, y)
    if y.all() or not y.any():
        assert auc is None
        return
    assert auc == pytest.approx(_brute_auc(s, y))
    fpr, tpr = roc_curve(s, y)
    assert np.trapezoid(tpr, fpr) == pytest.approx(auc)  # ties form the diagonal segments


@settings(max_examples=30, deadline=None)
@given(st.lists(st.tuples(st.floats(0, 1), st.booleans(), st.integers(0, 3)), min_size=4, max_size=25))
def test_weighted_auc_equals_auc_of_the_resampled_data(rows):
    s = np.round(np.array([r[0] for r in rows]), 2)
    y = np.array([r[1] for r in rows])
    w = np.array([r[2] for r in rows])
    rep = np.repeat(np.arange(len(rows)), w)
    expected = roc_auc(s[rep], y[rep])
    got = _weighted_auc(s, y, w[None, :].astype(float))[0]
    if expected is None:
        assert not np.isfinite(got)
    else:
        assert got == pytest.approx(expected)


def test_mcnemar_exact_p_value():
    a = [1.0] * 8 + [0.0] * 2 + [1.0] * 5
    b = [0.0] * 8 + [0.0] * 2 + [1.0] * 5
    m = mcnemar(a, b)
    assert (m["only_first_correct"], m["only_second_correct"]) == (8, 0)
    assert m["p_value"] == pytest.approx(2 * 0.5**8)
    assert mcnemar([1, 0], [1, 0])["p_value"] == 1.0


def test_accuracy_and_rates_match_the_recorded_run(run, trace):
    summary = json.loads((run / "summary.json").read_text())
    acc = accuracy_table(trace, n_boot=500)
    for chain, value in summary["accuracy"].items():
        assert acc[chain]["accuracy"] == pytest.approx(value)
        assert acc[chain]["ci_low"] <= value <= acc[chain]["ci_high"]
    r = rates(trace)
    recs = [x for x in trace.steps if x.chain == "verdict"]
    assert r["verdict"]["acceptance_rate"] == pytest.approx(sum(map(sum, (x.accepted for x in recs))) / (3 * len(recs)))
    assert r["verdict"]["fallback_rate"] == pytest.approx(np.mean([x.fallback for x in recs]))
    assert r["mean"]["fallback_rate"] == 0.0  # Mean accepts every scored candidate
    t = timing_shares(trace)
    assert t["generate_share"] + t["judge_share"] + t["decide_share"] == pytest.approx(1.0)


def test_candidate_table_uses_the_core_statistics(trace):
    tab = candidate_table(trace, "verdict")
    recs = [r for r in trace.steps if r.chain == "verdict"]
    assert tab.mean.size == sum(r.n for r in recs)
    st0 = consensus_stats(recs[0].raw, recs[0].lambdas)
    np.testing.assert_allclose(tab.dispersion[: recs[0].n], st0.dispersion)
    np.testing.assert_allclose(tab.raw_var[: recs[0].n], st0.raw_var)
    assert tab.chosen.sum() == len(recs)


def test_dispersion_diagnostics_are_consistent(trace):
    d = dispersion_diagnostics(trace, "verdict", 0.6, 0.1, n_boot=200)
    assert sum(q["candidates"] for q in d["quadrants"].values()) == d["candidates"]
    for key in ("auc_dispersion", "auc_raw_variance"):
        assert 0.0 <= d[key] <= 1.0
    lo, hi = d["auc_gap_ci"]
    assert lo <= hi
    assert d["mean_dispersion_accepted"] < 0.1  # accepted means Δ* < ε
    assert d["wrong_chain_candidates"] == int((candidate_table(trace, "verdict").correct < 0.5).sum())


def test_dispersion_predicts_wrong_answers_when_it_should(tmp_path):
    """Wrong chains got dispersed scores, right chains unanimous ones: AUC(Δ*) must be 1."""
    lines = []
    for t in range(6):
        wrong = t % 2 == 0
        raw = [[0.9, 0.2, 0.9], [0.8, 0.3, 0.85]] if wrong else [[0.7, 0.7, 0.7], [0.6, 0.62, 0.61]]
        lines.append(
            {
                "type": "step",
                "task_id": f"t{t}",
                "chain": "verdict",
                "step": 0,
                "context_id": f"c{t}",
                "candidates": ["x", "y"],
                "judges": ["a", "b", "c"],
                "lambdas": [1.5, 1.0, 0.8],
                "raw": raw,
                "policy": {"name": "verdict"},
                "accepted": [False, False],
                "chosen": 0,
                "fallback": True,
                "final": True,
            }
        )
        lines.append(
            {
                "type": "task_end",
                "task_id": f"t{t}",
                "chain": "verdict",
                "steps": ["x"],
                "answer": "1",
                "reference": "1",
                "correct": 0.0 if wrong else 1.0,
                "stopped": "final",
            }
        )
    (tmp_path / "trace.jsonl").write_text("\n".join(json.dumps(x) for x in lines) + "\n")
    d = dispersion_diagnostics(read_trace(tmp_path / "trace.jsonl"), "verdict", n_boot=100)
    assert d["auc_dispersion"] == 1.0 and d["auc_raw_variance"] == 1.0
    assert d["wrong_rate_rejected"] == 1.0


def test_paired_comparison_of_replays(trace):
    a = replay(trace, make_spec("verdict", tau=0.6, eps=0.1))
    b = replay(trace, make_spec("variance"))
    c = paired_comparison(a, b, n_boot=500)
    ca, cb = a.correct_exact(), b.correct_exact()
    both = [t for t in ca if t in cb]
    assert c["n_pairs"] == len(both)
    assert c["difference"] == pytest.approx(np.mean([ca[t] - cb[t] for t in both]))
    assert c["ci"][0] <= c["difference"] <= c["ci"][1]
    m = c["mcnemar"]
    assert m["only_first_correct"] == sum(ca[t] > cb[t] for t in both)


def test_review_test_compares_the_three_variants(trace):
    r = review_test(trace, n_boot=300)
    assert len(r["policies"]) == 3
    assert r["verdict_vs_mean"]["n_pairs"] <= 24
    flips = r["rank_flips"]
    assert 0 <= flips["flips"] <= flips["contexts"]


def test_equal_stubbornness_never_flips_the_ranking(tmp_path):
    run = simulate_run(tmp_path, n_tasks=6, seed=2, chains={"verdict": {"name": "verdict"}})
    lines = [json.loads(x) for x in (run / "trace.jsonl").read_text().splitlines()]
    for rec in lines:
        if rec["type"] == "step":
            rec["lambdas"] = [1.0, 1.0, 1.0]
    (run / "trace.jsonl").write_text("\n".join(json.dumps(x) for x in lines) + "\n")
    assert rank_flips(read_trace(run / "trace.jsonl"))["flips"] == 0  # equal λ preserve the raw mean


def test_thresholds_come_from_the_verified_chain(tmp_path):
    from accord.verify.analysis import verdict_params

    run = simulate_run(
        tmp_path, n_tasks=2, seed=1, chains={"checked": {"name": "mean_preserving", "tau": 0.5, "eps": 0.2}}
    )
    p = verdict_params(read_trace(run / "trace.jsonl"))
    assert (p["tau"], p["eps"], p["lambdas"]) == (0.5, 0.2, (1.5, 1.0, 0.8))


def test_pooled_candidates_keep_each_chains_label(trace):
    pooled = candidate_table(trace, None)
    per = [candidate_table(trace, c) for c in trace.chains()]
    assert pooled.chain == "all chains" and pooled.mean.size == sum(t.mean.size for t in per)
    assert sorted(pooled.correct.tolist()) == sorted(np.concatenate([t.correct for t in per]).tolist())
    d = dispersion_diagnostics(trace, None, n_boot=100)
    assert d["chain"] == "all chains" and d["candidates"] == int((~np.isnan(pooled.dispersion)).sum())


def test_judging_time_uses_the_panels_wall_time_when_recorded():
    real = read_trace(Path(__file__).resolve().parents[1] / "examples" / "runs" / "smollm2-tiny" / "trace.jsonl")
    t = timing_shares(real)
    assert t["judging_from"] == "judge_wall_s"
    assert t["judging_s"] == pytest.approx(sum(r.timings["judge_wall_s"] for r in real.steps))
    assert t["judging_s"] < sum(t["judge_s"].values())  # three judges share one batched model call


def test_rank_flip_outcomes_are_compared(tmp_path):
    """s̄* prefers (0.9, 0.2, 0.9) (0.676 > 0.67), the raw mean prefers (0.67, 0.67, 0.67) (0.67 > 0.667)."""
    raw = [[0.9, 0.2, 0.9], [0.67, 0.67, 0.67]]
    base = {
        "type": "step",
        "task_id": "t",
        "step": 0,
        "context_id": "c0",
        "candidates": ["a", "b"],
        "judges": ["x", "y", "z"],
        "lambdas": [1.5, 1.0, 0.8],
        "raw": raw,
        "fallback": True,
        "final": True,
    }
    recs = [
        {**base, "chain": "no_rejection", "policy": {"name": "no_rejection"}, "accepted": [True, True], "chosen": 0},
        {**base, "chain": "mean", "policy": {"name": "mean"}, "accepted": [True, True], "chosen": 1},
        {"type": "task_end", "task_id": "t", "chain": "no_rejection", "steps": ["a"], "correct": 1.0},
        {"type": "task_end", "task_id": "t", "chain": "mean", "steps": ["b"], "correct": 0.0},
    ]
    (tmp_path / "trace.jsonl").write_text("".join(json.dumps(r) + "\n" for r in recs))
    st = consensus_stats(np.array(raw), [1.5, 1.0, 0.8])
    assert st.mean[0] > st.mean[1] and st.raw_mean[1] > st.raw_mean[0]
    f = rank_flips(read_trace(tmp_path / "trace.jsonl"))
    assert (f["contexts"], f["flips"], f["flips_with_both_outcomes"]) == (1, 1, 1)
    assert (f["consensus_pick_better"], f["raw_pick_better"], f["sign_test_p"]) == (1, 0, 1.0)


def _one_step_run(tmp_path, tables):
    """A recorded run decided in one step per task: verdict, mean and base chains on the same candidates.

    ``tables`` holds (raw n x 3, correctness per candidate) per task; each chain's choice is its policy's.
    """
    lam = [1.5, 1.0, 0.8]
    policies = {
        "verdict": {"name": "verdict", "tau": 0.6, "eps": 0.1},
        "mean": {"name": "mean"},
        "base": {"name": "base"},
    }
    recs = []
    for t, (raw, good) in enumerate(tables):
        cands = [f"task {t} candidate {i}. The answer is {i}." for i in range(len(good))]
        for chain, pol in policies.items():
            if chain == "base":
                chosen = 0
            else:
                params = {k: v for k, v in pol.items() if k not in ("name", "lambdas")}
                chosen = int(get_policy(pol["name"], **params).decide(raw, ConsensusSpec(tuple(lam))).chosen)
            recs.append(
                {
                    "type": "step",
                    "task_id": f"t{t}",
                    "chain": chain,
                    "step": 0,
                    "context_id": context_id(f"t{t}", []),
                    "candidates": cands,
                    "judges": ["a", "b", "c"],
                    "lambdas": lam,
                    "raw": [[None if np.isnan(v) else float(v) for v in row] for row in raw],
                    "policy": pol,
                    "accepted": [False] * len(good),
                    "chosen": chosen,
                    "fallback": True,
                    "final": True,
                }
            )
            recs.append(
                {
                    "type": "task_end",
                    "task_id": f"t{t}",
                    "chain": chain,
                    "steps": [cands[chosen]],
                    "correct": float(good[chosen]),
                }
            )
    (tmp_path / "trace.jsonl").write_text("".join(json.dumps(r) + "\n" for r in recs))
    return read_trace(tmp_path / "trace.jsonl")


def test_paired_summary_matches_a_direct_count(tmp_path):
    rng = np.random.default_rng(5)
    tables = []
    for _ in range(30):
        raw = rng.random((3, 3)).round(2)
        raw[rng.random(3) < 0.3, rng.integers(0, 3)] = np.nan  # at most one failed judge per candidate
        tables.append((raw, rng.random(3) < 0.5))
    trace = _one_step_run(tmp_path, tables)
    out = paired_summary(trace, n_boot=400)
    assert out["primary"] == "verdict" and out["base"] == "base"
    by = {(c["first"], c["second"]): c for c in out["comparisons"]}

    def chosen(name, raw, **kw):
        return int(get_policy(name, **kw).decide(raw, ConsensusSpec((1.5, 1.0, 0.8))).chosen)

    verdict = np.array([good[chosen("verdict", raw, tau=0.6, eps=0.1)] for raw, good in tables], dtype=float)
    mean = np.array([good[chosen("mean", raw)] for raw, good in tables], dtype=float)
    base = np.array([good[0] for _, good in tables], dtype=float)
    for (first, second), a, b in [
        (("verdict", "base"), verdict, base),
        (("mean", "base"), mean, base),
        (("verdict", "mean"), verdict, mean),
    ]:
        c = by[(first, second)]
        only_a, only_b = int(((a == 1) & (b == 0)).sum()), int(((a == 0) & (b == 1)).sum())
        assert c["source"] == "recorded" and c["n_pairs"] == 30 and c["excluded"] == 0
        assert c["difference"] == pytest.approx(a.mean() - b.mean())
        assert c["ci"][0] <= c["difference"] <= c["ci"][1]
        assert (c["mcnemar"]["only_first_correct"], c["mcnemar"]["only_second_correct"]) == (only_a, only_b)
        p = binomtest(only_a, only_a + only_b, 0.5).pvalue if only_a + only_b else 1.0
        assert c["mcnemar"]["p_value"] == pytest.approx(p)
    # each judge alone: its highest raw score (first on ties, unscored last); exact only where a chain took that
    # candidate
    singles = {}
    for j, name in enumerate("abc"):
        correct = {}
        for t, (raw, good) in enumerate(tables):
            pick = int(np.argmax(np.where(np.isnan(raw[:, j]), -1.0, raw[:, j])))
            taken = {chosen("verdict", raw, tau=0.6, eps=0.1), chosen("mean", raw), 0}
            if pick in taken:
                correct[f"t{t}"] = float(good[pick])
        singles[name] = correct
        info = out["single_judges"][name]
        assert info["exact"] == len(correct) and info["n_tasks"] == 30
        assert info["accuracy"] == pytest.approx(np.mean(list(correct.values())))
    best = max("abc", key=lambda n: (np.mean(list(singles[n].values())), len(singles[n])))
    assert out["best_single_judge"] == best
    c = by[("verdict", f"single_judge:{best}")]
    assert c["source"] == "replayed" and c["n_pairs"] == len(singles[best]) and c["excluded"] == 30 - len(singles[best])
    v = dict(zip([f"t{t}" for t in range(30)], verdict))
    assert c["difference"] == pytest.approx(np.mean([v[t] - x for t, x in singles[best].items()]))
    assert by[("verdict", "mean_preserving")]["source"] == "replayed"


def test_paired_summary_replays_mean_when_the_run_has_no_mean_chain(tmp_path):
    run = simulate_run(tmp_path, n_tasks=8, seed=4, chains={"verdict": {"name": "verdict", "tau": 0.6, "eps": 0.1}})
    out = paired_summary(read_trace(run / "trace.jsonl"), n_boot=200)
    pairs = [(c["first"], c["second"], c["source"]) for c in out["comparisons"]]
    assert pairs[:3] == [
        ("verdict", "base", "recorded"),
        ("verdict", "mean", "replayed"),
        ("verdict", "mean_preserving", "replayed"),
    ]
    assert pairs[3][1].startswith("single_judge:") and out["replayed"]["mean"]["n_tasks"] == 8
    assert set(out["single_judges"]) == {"grounding", "logic", "relevance"}


def test_replays_ending_off_recorded_ground_are_scored_by_the_task(tmp_path):
    rng = np.random.default_rng(8)
    tables = [(rng.random((4, 3)).round(2), rng.random(4) < 0.5) for _ in range(20)]
    trace = _one_step_run(tmp_path, tables)
    (tmp_path / "config.yaml").write_text("budgets: {n_candidates: 4, max_steps: 1, max_tokens: 96}\n")
    tasks = {
        f"t{t}": TextTask(f"t{t}", "q", "0", scorer=lambda answer, _ref, good=good: float(good[int(answer)]))
        for t, (_, good) in enumerate(tables)
    }
    plain = paired_summary(trace, n_boot=200)
    full = paired_summary(trace, n_boot=200, tasks=tasks, is_final=lambda text: "answer" in text)
    assert min(v["exact"] for v in plain["single_judges"].values()) < 20  # some replays left recorded ground
    for j, name in enumerate("abc"):
        expected = np.mean([good[int(np.argmax(raw[:, j]))] for raw, good in tables])
        assert full["single_judges"][name]["exact"] == 20
        assert full["single_judges"][name]["accuracy"] == pytest.approx(expected)
    assert all(c["excluded"] == 0 and c["n_pairs"] == 20 for c in full["comparisons"])
    assert full["comparisons"][0] == plain["comparisons"][0]  # recorded chains are compared as recorded
