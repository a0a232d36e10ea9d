"""Step-label formats (PRM800K, ProcessBench, MMReason, accord traces), conversions and metrics."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tracegen import LAMBDAS, simulate_run

from accord.cli.main import main
from accord.consensus_core import ConsensusSpec, get_policy
from accord.errors import UserError
from accord.verify.analysis import read_trace
from accord.verify.labels import (
    CORRECT,
    INCORRECT,
    UNVERIFIABLE,
    LabeledSolution,
    detect_label_format,
    first_wrong_f1,
    match,
    mmreason_step_score,
    read_step_labels,
    score_labels,
    write_labels,
)

EX = Path(__file__).resolve().parents[1] / "examples" / "step_labels"


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    return simulate_run(tmp_path_factory.mktemp("run"), n_tasks=20, seed=6)


def test_examples_agree_across_formats():
    mmr = read_step_labels(EX / "mmreason.jsonl")
    prm = read_step_labels(EX / "prm800k.jsonl")
    pb = read_step_labels(EX / "processbench.jsonl")
    assert [s.labels for s in mmr] == [s.labels for s in prm]
    assert [s.steps for s in mmr] == [s.steps for s in pb]
    assert [s.first_wrong() for s in pb] == [-1, 1, -1, 1]
    assert mmr[2].labels == (CORRECT, UNVERIFIABLE, CORRECT)
    assert pb[1].labels == (CORRECT, INCORRECT, None)  # ProcessBench says nothing after the first error


def test_metrics_on_the_examples_by_hand():
    ref = read_step_labels(EX / "mmreason.jsonl")
    # step scores: 1, 1/3, 2.5/3, 1/3
    assert mmreason_step_score(ref) == pytest.approx((1 + 1 / 3 + 2.5 / 3 + 1 / 3) / 4)
    res = score_labels(read_step_labels(EX / "processbench_predicted.json"), ref)
    # predicted first wrong (-1, 1, 1, 2) vs reference (-1, 1, -1, 1): 1 of 2 right on each side
    assert res["first_wrong"] == {
        "error_accuracy": 0.5,
        "correct_accuracy": 0.5,
        "f1": 0.5,
        "n_error": 2,
        "n_correct": 2,
    }
    assert res["steps"]["steps"] == 10 and res["steps"]["agreement"] == pytest.approx(0.8)


def test_real_prm800k_layout_is_read(tmp_path):
    line = {
        "labeler": "x",
        "question": {"problem": "2+2?", "ground_truth_answer": "4"},
        "label": {
            "steps": [
                {
                    "completions": [{"text": "2+2=4", "rating": 1, "flagged": None}],
                    "human_completion": None,
                    "chosen_completion": 0,
                },
                {
                    "completions": [{"text": "So 5.", "rating": -1}, {"text": "So 4.", "rating": 0}],
                    "human_completion": None,
                    "chosen_completion": None,
                },
            ],
            "finish_reason": "found_error",
        },
    }
    p = tmp_path / "prm.jsonl"
    p.write_text(json.dumps(line) + "\n")
    (s,) = read_step_labels(p, "prm800k")
    assert s.steps == ("2+2=4", "So 5.") and s.labels == (CORRECT, INCORRECT) and s.question == "2+2?"
    assert s.id == "prm:1" and s.first_wrong() == 1


labels_st = st.lists(st.sampled_from([CORRECT, UNVERIFIABLE, INCORRECT]), min_size=1, max_size=8)


@settings(max_examples=40, deadline=None)
@given(labels=labels_st)
def test_round_trips_preserve_what_each_format_can_say(tmp_path_factory, labels):
    d = tmp_path_factory.mktemp("rt")
    sol = LabeledSolution("s1", tuple(f"step {i}" for i in range(len(labels))), tuple(labels), "q")
    for fmt in ("prm800k", "mmreason"):
        (back,) = read_step_labels(write_labels([sol], d / f"{fmt}.jsonl", fmt), fmt)
        assert back.labels == sol.labels and back.steps == sol.steps
    (pb,) = read_step_labels(write_labels([sol], d / "pb.jsonl", "processbench"), "processbench")
    assert pb.first_wrong() == sol.first_wrong()
    k = sol.first_wrong()
    if k >= 0:
        assert pb.labels[:k] == (CORRECT,) * k and all(x is None for x in pb.labels[k + 1 :])


def test_first_wrong_f1_edge_cases():
    a = LabeledSolution("a", ("x", "y"), (CORRECT, INCORRECT))
    b = LabeledSolution("a", ("x", "y"), (CORRECT, CORRECT))
    assert first_wrong_f1([(a, a)])["f1"] is None  # only erroneous solutions: F1 undefined
    assert first_wrong_f1([(b, a), (a, b)])["f1"] == 0.0
    pairs, counts = match([a, LabeledSolution("z", ("x",), (CORRECT,))], [LabeledSolution("a", ("x",), (CORRECT,))])
    assert pairs == [] and counts["step_count_mismatch"] == 1 and counts["not_in_reference"] == 1


def test_accord_trace_labels_follow_the_dual_rule(run):
    sols = read_step_labels(run, "accord")
    trace = read_trace(run / "trace.jsonl")
    ends = trace.end_of("verdict")
    assert len(sols) == 20
    policy, panel = get_policy("verdict", tau=0.6, eps=0.1), ConsensusSpec(LAMBDAS)
    by_task = {}
    for r in trace.steps:
        if r.chain == "verdict":
            by_task.setdefault(r.task_id, []).append(r)
    for s in sols:
        assert s.steps == ends[s.id].steps
        for r, label in zip(by_task[s.id], s.labels):
            d = policy.decide(r.raw, panel)
            m = d.stats.mean[r.chosen]
            expected = CORRECT if d.accepted[r.chosen] else (UNVERIFIABLE if m > 0.6 else INCORRECT)
            assert label == expected


def test_verifier_labels_scored_against_the_hidden_truth(run):
    pred, truth = read_step_labels(run), read_step_labels(run / "labels_truth.jsonl")
    res = score_labels(pred, truth)
    assert res["matched"] == 20
    truth_by_id = {s.id: s for s in truth}
    pairs = [(a, b) for p in pred for a, b in zip(p.labels, truth_by_id[p.id].labels) if a is not None]
    assert res["steps"]["steps"] == len(pairs)
    assert res["steps"]["agreement"] == pytest.approx(sum(a == b for a, b in pairs) / len(pairs))
    errs = [(p.first_wrong(), truth_by_id[p.id].first_wrong()) for p in pred if truth_by_id[p.id].first_wrong() >= 0]
    assert res["first_wrong"]["n_error"] == len(errs)
    assert res["first_wrong"]["error_accuracy"] == pytest.approx(sum(a == b for a, b in errs) / len(errs))


@pytest.mark.parametrize(
    "content,fmt,message",
    [
        ('{"steps": ["a"], "label": 3}\n', "processbench", r"x.jsonl:1: 'label' must be -1 or a step index"),
        ('{"steps": ["a"], "labels": ["maybe"]}\n', "mmreason", r"x.jsonl:1: step 0: label must be correct"),
        ('{"steps": ["a", "b"], "labels": ["correct"]}\n', "mmreason", r"x.jsonl:1: 'labels' must be a list with one"),
        (
            '{"label": {"steps": [{"completions": [{"text": "a", "rating": 2}], "chosen_completion": 0}]}}\n',
            "prm800k",
            r"x.jsonl:1: step 0: rating must be -1, 0, 1",
        ),
        ('\n{"steps": "a", "label": -1}\n', "processbench", r"x.jsonl:2: field 'steps' must be a list of strings"),
        (
            '{"id": 1, "steps": ["a"], "label": -1}\n{"id": 1, "steps": ["a"], "label": -1}\n',
            "processbench",
            "solution id '1' appears more than once",
        ),
        ("{oops\n", "mmreason", r"x.jsonl:1: not valid JSON"),
    ],
)
def test_malformed_label_files_name_the_line(tmp_path, content, fmt, message):
    p = tmp_path / "x.jsonl"
    p.write_text(content)
    with pytest.raises(UserError, match=message):
        read_step_labels(p, fmt)


def test_format_detection(run):
    assert detect_label_format(EX / "prm800k.jsonl") == "prm800k"
    assert detect_label_format(EX / "processbench_predicted.json") == "processbench"
    assert detect_label_format(EX / "mmreason.jsonl") == "mmreason"
    assert detect_label_format(run) == "accord"


def test_cli_convert_and_score(run, tmp_path, capsys):
    out = tmp_path / "pb.jsonl"
    assert main(["labels", "convert", str(run), str(out), "--to", "processbench"]) == 0
    assert detect_label_format(out) == "processbench"
    capsys.readouterr()
    assert main(["labels", "score", str(run), str(out), "--json"]) == 0
    res = json.loads(capsys.readouterr().out)
    assert res["first_wrong"]["f1"] in (1.0, None) and res["matched"] == 20
    assert main(["labels", "score", str(EX / "mmreason.jsonl")]) == 0
    assert "mmreason_step_score" in capsys.readouterr().out
    assert main(["labels", "convert", str(run), str(out), "--to", "processbench", "--chain", "nope"]) == 2
    assert "no chain 'nope'" in capsys.readouterr().err


def test_empty_chosen_steps_are_not_steps_of_the_solution(tmp_path):
    pol = {"name": "verdict", "tau": 0.6, "eps": 0.1}
    rec = {
        "type": "step",
        "task_id": "t",
        "chain": "verdict",
        "context_id": "c",
        "judges": ["a", "b", "c"],
        "lambdas": [1.0, 1.0, 1.0],
        "policy": pol,
        "fallback": False,
    }
    recs = [
        {
            **rec,
            "step": 0,
            "candidates": ["", "x"],
            "raw": [[0.9, 0.9, 0.9], [0.1, 0.1, 0.1]],
            "accepted": [True, False],
            "chosen": 0,
            "final": False,
        },
        {
            **rec,
            "step": 1,
            "candidates": ["y", "z"],
            "raw": [[0.1, 0.2, 0.1], [0.9, 0.2, 0.9]],
            "accepted": [False, False],
            "chosen": 1,
            "final": True,
        },
        {"type": "task_end", "task_id": "t", "chain": "verdict", "steps": ["z"], "correct": 0.0},
    ]
    (tmp_path / "trace.jsonl").write_text("".join(json.dumps(r) + "\n" for r in recs))
    (s,) = read_step_labels(tmp_path, "accord")
    assert s.steps == ("z",) and s.labels == (UNVERIFIABLE,)  # s̄* > τ but Δ* >= ε
