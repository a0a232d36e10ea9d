"""Replay: re-deciding recorded steps, walking the recorded context tree, honest divergence counts."""

from __future__ import annotations

import hashlib
import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from accord.consensus_core import get_policy
from accord.verify.errors import UserError
from accord.verify.records import context_id, read_trace
from accord.verify.replay import (
    DIVERGED,
    EXACT,
    ContextTree,
    fidelity,
    make_spec,
    parse_policy_spec,
    recorded_spec,
    replay,
)
from tracegen import LAMBDAS, simulate_run


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    return simulate_run(tmp_path_factory.mktemp("run"), n_tasks=16, seed=3)


@pytest.fixture(scope="module")
def trace(run):
    return read_trace(run / "trace.jsonl")


_TRACES: dict = {}


def _verdict_only_trace():
    """A run that recorded only the VERDICT chain (and base): other policies must diverge somewhere."""
    if "v" not in _TRACES:
        import tempfile
        from pathlib import Path

        d = Path(tempfile.mkdtemp(prefix="accord-replay-"))
        simulate_run(d, n_tasks=16, seed=5, chains={"verdict": {"name": "verdict", "tau": 0.6, "eps": 0.1}})
        _TRACES["v"] = read_trace(d / "trace.jsonl")
    return _TRACES["v"]


def test_context_id_follows_the_contract():
    expected = hashlib.sha1("t1\x1fa\x1fb".encode()).hexdigest()
    assert context_id("t1", ["a", "b"]) == expected
    assert context_id("t1", []) == hashlib.sha1("t1\x1f".encode()).hexdigest()


def test_recorded_decisions_are_reproduced_exactly(trace):
    fid = fidelity(trace)
    assert set(fid) == {"verdict", "mean", "variance", "raw_average"}  # base is not a core policy
    for chain, f in fid.items():
        assert f["reproduced"] == f["steps"] > 0, chain
        assert f["mismatched_lines"] == []


def test_replaying_a_recorded_policy_reproduces_its_chain(trace):
    for chain in ("verdict", "mean", "variance", "raw_average"):
        spec = recorded_spec(trace.chain_policy(chain))
        res = replay(trace, spec)
        ends = trace.end_of(chain)
        assert res.n_exact == len(ends) == 16
        for task, out in res.outcomes.items():
            assert out.status == EXACT
            assert out.steps == ends[task].steps
            assert out.correct == ends[task].correct
            assert chain in out.same_as
        same, total = res.step_agreement[chain]
        assert same == total


def test_tampered_record_is_caught_by_fidelity(run, tmp_path):
    lines = (run / "trace.jsonl").read_text().splitlines()
    for i, line in enumerate(lines):
        rec = json.loads(line)
        if rec["type"] == "step" and rec["chain"] == "verdict":
            rec["chosen"] = (rec["chosen"] + 1) % len(rec["candidates"])
            lines[i] = json.dumps(rec)
            bad_line = i + 1
            break
    (tmp_path / "trace.jsonl").write_text("\n".join(lines) + "\n")
    fid = fidelity(read_trace(tmp_path / "trace.jsonl"))
    assert fid["verdict"]["reproduced"] == fid["verdict"]["steps"] - 1
    assert fid["verdict"]["mismatched_lines"] == [bad_line]


def test_divergence_is_counted_never_guessed():
    trace = _verdict_only_trace()
    tree = ContextTree.from_trace(trace)
    res = replay(trace, make_spec("max"), tree)
    assert res.n_diverged > 0 and res.n_exact + res.n_diverged == 16
    s = res.summary()
    assert s["accuracy_low"] <= (s["accuracy_exact"] or 0) <= s["accuracy_high"] or s["exact"] == 0
    for out in res.outcomes.values():
        if out.status == DIVERGED:
            assert out.correct is None
            assert (out.task_id, out.steps) not in tree.ends
            assert (out.task_id, context_id(out.task_id, out.steps)) not in tree.nodes


def test_equal_stubbornness_makes_mean_preserving_identical_to_verdict(trace):
    a = replay(trace, parse_policy_spec("verdict:lambdas=1/1/1"))
    b = replay(trace, parse_policy_spec("mean_preserving:lambdas=1/1/1"))
    assert {t: o.steps for t, o in a.outcomes.items()} == {t: o.steps for t, o in b.outcomes.items()}


@settings(max_examples=25, deadline=None)
@given(tau=st.floats(0.0, 1.0), eps=st.floats(0.005, 0.5))
def test_every_replayed_step_is_the_core_decision_on_recorded_scores(tau, eps):
    trace = _verdict_only_trace()
    tree = ContextTree.from_trace(trace)
    spec = make_spec("verdict", tau=tau, eps=eps)
    res = replay(trace, spec, tree)
    assert res.n_exact + res.n_diverged == res.n_tasks
    policy = get_policy("verdict", tau=tau, eps=eps, lambdas=LAMBDAS)
    for out in res.outcomes.values():
        for k, choice in enumerate(out.choices):
            node = tree.nodes[(out.task_id, context_id(out.task_id, out.steps[:k]))]
            assert int(policy.decide(node.raw).chosen) == choice
            assert node.candidates[choice] == out.steps[k]
        if out.status == EXACT:
            assert tree.ends[(out.task_id, out.steps)].correct == out.correct


def test_policy_specs_are_validated_by_the_core():
    assert parse_policy_spec("verdict:tau=0.5,eps=0.2").kwargs == {"tau": 0.5, "eps": 0.2}
    assert parse_policy_spec("Mean-Preserving").name == "mean_preserving"
    with pytest.raises(ValueError, match="unknown policy"):
        parse_policy_spec("oracle")
    with pytest.raises(ValueError, match="takes no parameter"):
        parse_policy_spec("mean:tau=0.5")
    with pytest.raises(ValueError, match="eps must be > 0"):
        parse_policy_spec("verdict:eps=0")
    with pytest.raises(ValueError, match="name=value"):
        parse_policy_spec("verdict:tau")
    assert recorded_spec({"name": "base"}) is None


def test_inconsistent_recordings_of_one_context_are_reported(run, tmp_path):
    lines = (run / "trace.jsonl").read_text().splitlines()
    recs = [json.loads(x) for x in lines]
    first = next(r for r in recs if r["type"] == "step" and r["chain"] == "mean")
    first["raw"][0][1] = 0.0 if first["raw"][0][1] != 0.0 else 1.0
    (tmp_path / "trace.jsonl").write_text("\n".join(json.dumps(r) for r in recs) + "\n")
    tree = ContextTree.from_trace(read_trace(tmp_path / "trace.jsonl"))
    assert len(tree.inconsistent) == 1 and "different candidates or scores" in tree.inconsistent[0]


def test_unfinished_tasks_are_left_out_and_counted(run, tmp_path):
    lines = [x for x in (run / "trace.jsonl").read_text().splitlines()
             if not ('"task_end"' in x and '"task-015"' in x)]
    (tmp_path / "trace.jsonl").write_text("\n".join(lines) + "\n")
    res = replay(read_trace(tmp_path / "trace.jsonl"), make_spec("mean"))
    s = res.summary()
    assert s["unfinished_tasks"] == 1 and s["n_tasks"] == 15 and "task-015" not in res.outcomes


# ------------------------------------------------------------------ reading traces


def _write(tmp_path, lines, end="\n"):
    p = tmp_path / "trace.jsonl"
    p.write_text("\n".join(lines) + end)
    return p


def _good_step():
    return {"type": "step", "task_id": "t", "chain": "verdict", "step": 0, "context_id": context_id("t", []),
            "candidates": ["a", "b"], "judges": ["j1", "j2"], "lambdas": [1.0, 1.0],
            "raw": [[0.9, 0.8], [0.2, None]], "policy": {"name": "verdict"}, "accepted": [True, False],
            "chosen": 0, "fallback": False, "final": True}


@pytest.mark.parametrize("mutate,message", [
    (lambda r: r.pop("raw"), "missing field 'raw'"),
    (lambda r: r.__setitem__("raw", [[0.9, 0.8]]), "'raw' must have 2 rows"),
    (lambda r: r.__setitem__("raw", [[0.9, 1.5], [0.1, 0.2]]), r"'raw'\[0\]\[1\] must be a number in \[0, 1\]"),
    (lambda r: r.__setitem__("lambdas", [1.0]), "'lambdas' must hold 2"),
    (lambda r: r.__setitem__("chosen", 2), "'chosen' must be a candidate index"),
    (lambda r: r.__setitem__("fallback", "no"), "field 'fallback' must be bool"),
    (lambda r: r.__setitem__("step", True), "field 'step' must be int"),
])
def test_malformed_step_records_name_file_and_line(tmp_path, mutate, message):
    bad = _good_step()
    mutate(bad)
    p = _write(tmp_path, [json.dumps(_good_step()), json.dumps(bad)])
    with pytest.raises(UserError, match=rf"trace.jsonl:2: step record: {message}"):
        read_trace(p)


def test_invalid_json_in_the_middle_is_an_error(tmp_path):
    p = _write(tmp_path, [json.dumps(_good_step()), "{not json", json.dumps(_good_step())])
    with pytest.raises(UserError, match=r"trace.jsonl:2: not valid JSON"):
        read_trace(p)


def test_half_written_last_line_is_skipped_and_noted(tmp_path):
    p = _write(tmp_path, [json.dumps(_good_step()), '{"type": "task_end", "task_'], end="")
    tr = read_trace(p)
    assert len(tr.steps) == 1 and tr.ends == []
    assert "half-written last line" in tr.notes[0] and ":2:" in tr.notes[0]


def test_task_end_needs_a_valid_correctness(tmp_path):
    end = {"type": "task_end", "task_id": "t", "chain": "verdict", "steps": ["a"], "answer": "1",
           "reference": "1", "correct": 2.0, "stopped": "final"}
    p = _write(tmp_path, [json.dumps(end)])
    with pytest.raises(UserError, match=r"trace.jsonl:1: task_end record: 'correct' must be a number in \[0, 1\]"):
        read_trace(p)


def test_failed_scores_are_nan_and_unknown_record_types_are_ignored(tmp_path):
    p = _write(tmp_path, [json.dumps({"type": "run_start", "seed": 1}), json.dumps(_good_step())])
    tr = read_trace(p)
    assert np.isnan(tr.steps[0].raw[1, 1]) and tr.steps[0].line == 2
