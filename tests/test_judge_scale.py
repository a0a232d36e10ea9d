"""Judges on one scale: maps fitted per judge, saved with the run, reapplied on replay; off = raw decisions."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_engine import AdditionWalker, GroundingJudge, tasks

from accord.adapters.math import ArithmeticJudge
from accord.consensus_core import ConsensusSpec, get_policy
from accord.verify.analysis import (
    ContextTree,
    accept_rule,
    fidelity,
    judge_counts,
    make_spec,
    read_trace,
    recorded_scale,
    replay,
)
from accord.verify.loop import (
    Budgets,
    Chain,
    JudgeScale,
    Panel,
    ScaleWarmup,
    StepLoop,
    TraceWriter,
    load_resume_state,
    load_scale,
    save_scale,
)

OLD_RUN = Path(__file__).resolve().parents[1] / "examples" / "runs" / "smollm2-tiny"


def _old_trace():
    return read_trace(OLD_RUN / "trace.jsonl")


def _all_rows(tree: ContextTree) -> np.ndarray:
    return np.concatenate([n.raw for n in tree.nodes.values()])


def test_an_old_run_folder_replays_to_its_recorded_decisions_with_calibration_off():
    trace = _old_trace()
    assert trace.calibration is None  # recorded before judge scales existed
    for chain, f in fidelity(trace).items():
        assert f["reproduced"] == f["steps"] > 0, chain
    tree = ContextTree.from_trace(trace)
    for chain in ("verdict", "mean", "variance", "raw_average"):
        spec = make_spec(chain, **({"tau": 0.6, "eps": 0.1} if chain in ("verdict", "raw_average") else {}))
        r = replay(trace, spec, tree, scale=None)
        same, steps = r.step_agreement[chain]
        assert same == steps, chain
        for task, outcome in r.correct_exact().items():
            assert outcome == trace.end_of(chain)[task].correct


def test_an_old_run_folder_replays_on_a_judge_scale_deterministically():
    trace = _old_trace()
    tree = ContextTree.from_trace(trace)
    scale = JudgeScale("quantile", trace.steps[0].judges).fit(_all_rows(tree))
    spec = make_spec("verdict", tau=0.6, eps=0.1)
    first = replay(trace, spec, tree, scale=scale)
    again = replay(trace, spec, tree, scale=JudgeScale.from_dict(json.loads(json.dumps(scale.as_dict()))))
    assert first.step_agreement == again.step_agreement
    assert first.step_agreement["verdict"][0] < first.step_agreement["verdict"][1]  # the mapped scores decide


def test_old_abstentions_are_read_as_abstentions_not_failures():
    counts = judge_counts(_old_trace())
    assert counts["arithmetic"]["abstained"] > 0 and counts["arithmetic"]["failed"] == 0
    assert counts["llm_logic"] == {"scored": 60, "abstained": 0, "failed": 0}


def test_quantile_scale_gives_percentiles_and_keeps_nan():
    rows = np.array([[0.2, 1.0], [0.3, 0.0], [0.4, 1.0], [0.5, np.nan], [0.25, 1.0], [0.45, 0.0]])
    scale = JudgeScale("quantile", ("llm", "check")).fit(rows)
    out = scale.apply(rows)
    assert np.isnan(out[3, 1])
    assert np.all(np.diff(out[np.argsort(rows[:, 0]), 0]) > 0)  # monotone per judge
    assert out[:, 0].min() == 0.0 and out[:, 0].max() == 1.0
    ones, zeros = out[rows[:, 1] == 1, 1], out[rows[:, 1] == 0, 1]
    assert np.allclose(ones, ones[0]) and np.allclose(zeros, zeros[0]) and ones[0] > 0.5 > zeros[0]


def test_agreement_scale_squashes_a_judge_that_agrees_with_nobody():
    rng = np.random.default_rng(0)
    truth = rng.random(400) < 0.5
    good = np.column_stack([np.clip(truth * 0.6 + 0.2 + rng.normal(0, 0.1, 400), 0, 1) for _ in range(3)])
    noise = rng.random((400, 1))
    scale = JudgeScale("agreement", ("a", "b", "c", "noise")).fit(np.hstack([good, noise]))
    out = scale.apply(np.hstack([good, noise]))
    assert np.ptp(out[:, 3]) < 0.5 * np.ptp(out[:, 0])


def test_a_saved_scale_reloads_and_names_missing_judges(tmp_path):
    rows = np.random.default_rng(1).random((20, 2))
    scale = JudgeScale("standardize", ("a", "b")).fit(rows)
    back = load_scale(save_scale(tmp_path / "calibration.json", scale))
    assert np.array_equal(back.apply(rows), scale.apply(rows))
    with pytest.raises(ValueError, match="no map for judge"):
        back.for_judges(["a", "c"])
    with pytest.raises(ValueError, match="no such judge scale"):
        load_scale(tmp_path / "nope.json")


def test_thresholds_from_a_target_acceptance_rate_accept_that_share():
    rows = np.random.default_rng(2).random((200, 3))
    spec = ConsensusSpec((1.5, 1.0, 0.8))
    scale = JudgeScale("quantile", ("a", "b", "c")).fit(rows)
    th = scale.set_thresholds(rows, spec, target_rate=0.3)
    st_ = spec.stats(scale.apply(rows))
    assert abs(np.mean((st_.mean > th["tau"]) & (st_.dispersion < th["eps"])) - 0.3) < 0.02


def test_thresholds_from_a_target_error_keep_the_error_among_accepted_low():
    """The promise is about the error on the population, at level δ = 0.1: over many labelled draws the
    population error among accepted candidates exceeds the target in about a tenth of them or fewer."""

    def draw(rng, n):
        right = rng.random(n) < 0.5
        rows = np.column_stack([np.clip(right * 0.4 + 0.3 + rng.normal(0, 0.15, n), 0, 1) for _ in range(3)])
        return rows, right

    spec = ConsensusSpec((1.0, 1.0, 1.0))
    rng = np.random.default_rng(3)
    population, right = draw(rng, 200_000)  # large enough that its error is the population's
    scale = JudgeScale("quantile", ("a", "b", "c")).fit(population[:2000])
    st_ = spec.stats(scale.apply(population))
    over, draws = 0, 40
    for _ in range(draws):
        rows, labels = draw(rng, 1000)
        th = scale.set_thresholds(rows, spec, target_error=0.1, labels=labels.astype(float))
        accepted = (st_.mean > th["tau"]) & (st_.dispersion < th["eps"])
        assert accepted.mean() > 0.05  # the rule still accepts something
        over += np.mean(~right[accepted]) > 0.1
    assert over <= 9  # P(Binomial(40, 0.1) >= 10) < 0.01


def _scaled_loop(path: Path, resume=None):
    panel = Panel([ArithmeticJudge(), GroundingJudge()], [1.5, 1.0])
    chains = [Chain("verdict", get_policy("verdict")), Chain("mean", get_policy("mean")), Chain("base")]
    scale = ScaleWarmup(JudgeScale("quantile", tuple(panel.names)), warmup=6, target_rate=0.4)
    with TraceWriter(path) as w:
        loop = StepLoop(
            AdditionWalker(), panel, chains, budgets=Budgets(3, 5, 200), seed=0, writer=w, scale=scale, resume=resume
        )
        ends = loop.run(tasks(6))
    return loop, ends


def test_the_step_loop_fits_the_scale_after_its_warm_up_and_replay_reapplies_it(tmp_path):
    path = tmp_path / "trace.jsonl"
    loop, _ = _scaled_loop(path)
    trace = read_trace(path)
    assert trace.calibration is not None and trace.calibration["method"] == "quantile"
    scaled = [r for r in trace.steps if r.scale == "quantile"]
    assert 0 < len(scaled) < len(trace.steps)  # the warm-up steps were decided on raw scores
    tau = loop.scale.scale.thresholds["tau"]
    assert all(r.policy["tau"] == tau for r in scaled if r.chain == "verdict")
    assert recorded_scale(trace).as_dict()["maps"] == loop.scale.scale.as_dict()["maps"]
    for chain, f in fidelity(trace).items():
        assert f["reproduced"] == f["steps"], chain
    fired = accept_rule(trace)["verdict"]
    assert fired["scaled_steps"] == sum(r.chain == "verdict" for r in scaled) and 0 < fired["fired"]


def test_a_resumed_scaled_run_fits_the_same_scale_at_the_same_step(tmp_path):
    full = tmp_path / "full.jsonl"
    _scaled_loop(full)
    lines = full.read_text().splitlines(keepends=True)
    cut = tmp_path / "cut.jsonl"
    steps = [i for i, ln in enumerate(lines) if '"type": "step"' in ln]
    cut.write_text("".join(lines[: steps[len(steps) // 2]]))
    _scaled_loop(cut, resume=load_resume_state(cut))
    a, b = read_trace(full), read_trace(cut)
    assert [(r.task_id, r.chain, r.chosen, r.scale) for r in a.steps] == [
        (r.task_id, r.chain, r.chosen, r.scale) for r in b.steps
    ]


def _cli(*args):
    return subprocess.run([sys.executable, "-m", "accord.cli.main", *args], capture_output=True, text=True)


KNOWN_MODES = ("off", "quantile", "agreement", "standardize", "file")


@settings(max_examples=6, deadline=None)
@given(
    st.one_of(
        st.tuples(
            st.just("mode"), st.text(alphabet="abcxyz", min_size=1, max_size=6).filter(lambda v: v not in KNOWN_MODES)
        ),
        st.tuples(st.just("warmup"), st.integers(-5, 4).map(str)),
        st.tuples(st.just("target_rate"), st.sampled_from(["0", "-0.5", "1.5", "abc"])),
        st.tuples(st.just("file"), st.text(alphabet="abc", min_size=1, max_size=5).map(lambda v: v + ".json")),
    )
)
def test_bad_calibration_config_is_one_line_and_exit_2(key_value):
    key, value = key_value
    r = _cli("run", "--print-config", "--set", f"calibration.{key}={value}")
    assert r.returncode == 2 and r.stderr.count("\n") == 1 and "Traceback" not in r.stderr, (key, value, r.stderr)
    assert "calibration" in r.stderr


def test_report_replays_an_old_run_folder_on_a_saved_scale(tmp_path):
    run = tmp_path / "run"
    shutil.copytree(OLD_RUN, run)
    trace = _old_trace()
    scale = JudgeScale("quantile", trace.steps[0].judges).fit(_all_rows(ContextTree.from_trace(trace)))
    save_scale(tmp_path / "scale.json", scale)
    r = _cli("report", str(run), "--calibration", str(tmp_path / "scale.json"), "--json")
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    assert doc["calibration"]["scale"]["method"] == "quantile" and doc["calibration"]["rows"]["verdict_scaled"]["steps"]
    bad = _cli("report", str(run), "--calibration", str(tmp_path / "nope.json"))
    assert bad.returncode == 2 and "Traceback" not in bad.stderr


def test_report_fits_platt_on_the_runs_own_labelled_candidates(tmp_path):
    """The candidates that end a chain are labelled right or wrong by the run's tasks (drawn again from
    its config.yaml); Platt is fitted on them and the run replayed on that scale."""
    run = tmp_path / "run"
    shutil.copytree(OLD_RUN, run)
    saved = tmp_path / "fitted" / "platt.json"
    r = _cli(
        "report", str(run), "--calibration", "platt", "--json", "--bootstrap", "200", "--save-calibration", str(saved)
    )
    assert r.returncode == 0, r.stderr
    cal = json.loads(r.stdout)["calibration"]
    again = _cli("report", str(run), "--calibration", str(saved), "--json", "--bootstrap", "200")
    assert json.loads(again.stdout)["calibration"]["rows"] == cal["rows"]  # the saved fit replays the same
    scale = cal["scale"]
    n = int(scale["source"].split("labelled: ")[1].split()[0])
    assert scale["method"] == "platt" and 4 <= n < scale["fitted_on"] and str(run) in scale["source"]
    assert sum(m["method"] == "platt" for m in scale["maps"].values() if m) >= 3  # judges with both classes
    assert cal["rows"]["verdict_scaled"]["steps"] and cal["rows"]["verdict_scaled"]["scale"] == "platt"
    (run / "config.yaml").unlink()  # the tasks cannot be drawn again: one line, exit 2
    bad = _cli("report", str(run), "--calibration", "platt")
    assert bad.returncode == 2 and "no config.yaml" in bad.stderr and len(bad.stderr.strip().splitlines()) == 1


def test_consensus_decides_on_a_judge_scale_and_saves_it(tmp_path):
    table = tmp_path / "scores.csv"
    rng = np.random.default_rng(4)
    lines = ["step,candidate,check,llm"] + [
        f"{s},{c},{rng.integers(0, 2)},{rng.uniform(0.2, 0.5):.3f}" for s in range(12) for c in "abc"
    ]
    table.write_text("\n".join(lines) + "\n")
    saved = tmp_path / "calibration.json"
    r = _cli(
        "consensus",
        str(table),
        "--calibration",
        "quantile",
        "--target-accept",
        "0.3",
        "--save-calibration",
        str(saved),
        "--json",
    )
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    assert doc["calibration"]["method"] == "quantile" and saved.is_file()
    again = json.loads(_cli("consensus", str(table), "--calibration", str(saved), "--json").stdout)
    assert [s["chosen"] for s in again["steps"]] == [s["chosen"] for s in doc["steps"]]
    raw = json.loads(_cli("consensus", str(table), "--json").stdout)
    assert "calibration" not in raw
    bad = _cli("consensus", str(table), "--target-accept", "0.3")
    assert bad.returncode == 2 and bad.stderr.count("\n") == 1


def test_a_platt_scale_from_labelled_steps_trusts_the_judge_that_knows(tmp_path):
    from accord.verify.analysis import candidate_labels, fit_scale_on_trace
    from accord.verify.tasks import TextTask

    rng = np.random.default_rng(5)
    two = [
        TextTask(f"two/{i}", f"Calculate {a} + {b}.", str(a + b))
        for i, (a, b) in enumerate(rng.integers(1, 40, size=(16, 2)).tolist())
    ]
    path = tmp_path / "trace.jsonl"
    gen = AdditionWalker()
    panel = Panel([ArithmeticJudge(), GroundingJudge()], [1.5, 1.0])
    with TraceWriter(path) as w:
        StepLoop(
            gen,
            panel,
            [Chain("verdict", get_policy("verdict")), Chain("base")],
            budgets=Budgets(4, 1, 200),
            seed=0,
            writer=w,
        ).run(two)
    (tmp_path / "config.yaml").write_text("budgets: {n_candidates: 4, max_steps: 1, max_tokens: 200}\n")
    trace = read_trace(path)
    tree = ContextTree.from_trace(trace)
    by_id = {t.id: t for t in two}
    labels = candidate_labels(tree, by_id, gen.is_final)
    assert np.isfinite(labels).all() and 0 < labels.mean() < 1  # every candidate ends its one-step chain
    scale = fit_scale_on_trace(trace, "platt", tree, by_id, gen.is_final)
    assert scale.calibrators["arithmetic"].params["A"] > 0  # a right equation means a right answer
    p = scale.apply(np.array([[1.0, 1.0], [0.0, 1.0]]))
    assert p[0, 0] > 0.8 and p[1, 0] < 0.2
    with pytest.raises(ValueError, match="labelled steps"):
        fit_scale_on_trace(trace, "platt", tree)


def test_a_yaml_config_saying_off_turns_the_scale_off(tmp_path):
    from accord.verify.run import read_config_file, resolve

    cfg = tmp_path / "run.yaml"
    cfg.write_text("calibration: {mode: off, warmup: 12}\n")  # YAML reads a bare off as false
    assert resolve(read_config_file(cfg)).calibration.mode == "off"
    cfg.write_text("calibration: {mode: quantile, target_rate: 0.3}\n")
    assert resolve(read_config_file(cfg)).calibration.target_rate == 0.3
