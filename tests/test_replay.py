"""Replay: re-deciding recorded steps, walking the recorded context tree, honest divergence counts."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tracegen import LAMBDAS, simulate_run

from accord.consensus_core import ConsensusSpec, get_policy
from accord.errors import UserError
from accord.verify.analysis import (
    DIVERGED,
    EXACT,
    ContextTree,
    fidelity,
    make_spec,
    parse_policy_spec,
    read_trace,
    recorded_spec,
    replay,
)
from accord.verify.loop import context_id


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
    expected = hashlib.sha1(b"t1\x1fa\x1fb").hexdigest()
    assert context_id("t1", ["a", "b"]) == expected
    assert context_id("t1", []) == hashlib.sha1(b"t1\x1f").hexdigest()


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
    a = replay(trace, parse_policy_spec("verdict:lambdas=1,1,1"))
    b = replay(trace, parse_policy_spec("mean_preserving:lambdas=1,1,1"))
    assert {t: o.steps for t, o in a.outcomes.items()} == {t: o.steps for t, o in b.outcomes.items()}


@settings(max_examples=25, deadline=None)
@given(tau=st.floats(0.0, 1.0), eps=st.floats(0.005, 0.5))
def test_every_replayed_step_is_the_core_decision_on_recorded_scores(tau, eps):
    trace = _verdict_only_trace()
    tree = ContextTree.from_trace(trace)
    spec = make_spec("verdict", tau=tau, eps=eps)
    res = replay(trace, spec, tree)
    assert res.n_exact + res.n_diverged == res.n_tasks
    policy, panel = get_policy("verdict", tau=tau, eps=eps), ConsensusSpec(LAMBDAS)
    for out in res.outcomes.values():
        for k, choice in enumerate(out.choices):
            assert out.contexts[k] == context_id(out.task_id, out.steps[:k])  # no empty steps here
            node = tree.nodes[(out.task_id, out.contexts[k])]
            assert int(policy.decide(node.raw, panel).chosen) == choice
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
    lines = [x for x in (run / "trace.jsonl").read_text().splitlines() if not ('"task_end"' in x and '"task-015"' in x)]
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
    return {
        "type": "step",
        "task_id": "t",
        "chain": "verdict",
        "step": 0,
        "context_id": context_id("t", []),
        "candidates": ["a", "b"],
        "judges": ["j1", "j2"],
        "lambdas": [1.0, 1.0],
        "raw": [[0.9, 0.8], [0.2, None]],
        "policy": {"name": "verdict"},
        "accepted": [True, False],
        "chosen": 0,
        "fallback": False,
        "final": True,
    }


@pytest.mark.parametrize(
    "mutate,message",
    [
        (lambda r: r.pop("raw"), "missing field 'raw'"),
        (lambda r: r.__setitem__("raw", [[0.9, 0.8]]), "'raw' must have 2 rows"),
        (lambda r: r.__setitem__("raw", [[0.9, 1.5], [0.1, 0.2]]), r"'raw'\[0\]\[1\] must be a number in \[0, 1\]"),
        (lambda r: r.__setitem__("lambdas", [1.0]), "'lambdas': λ must be finite numbers > 0.*for 2 judges"),
        (lambda r: r.__setitem__("chosen", 2), "'chosen' must be a candidate index"),
        (lambda r: r.__setitem__("fallback", "no"), "field 'fallback' must be bool"),
        (lambda r: r.__setitem__("step", True), "field 'step' must be int"),
    ],
)
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
    end = {
        "type": "task_end",
        "task_id": "t",
        "chain": "verdict",
        "steps": ["a"],
        "answer": "1",
        "reference": "1",
        "correct": 2.0,
        "stopped": "final",
    }
    p = _write(tmp_path, [json.dumps(end)])
    with pytest.raises(UserError, match=r"trace.jsonl:1: task_end record: 'correct' must be a number in \[0, 1\]"):
        read_trace(p)


def test_failed_scores_are_nan_and_unknown_record_types_are_ignored(tmp_path):
    p = _write(tmp_path, [json.dumps({"type": "run_start", "seed": 1}), json.dumps(_good_step())])
    tr = read_trace(p)
    assert np.isnan(tr.steps[0].raw[1, 1]) and tr.steps[0].line == 2


# ------------------------------------------------------------------ the step loop's corner cases

J3 = ["a", "b", "c"]


def _rec(task, chain, step, steps, cands, raw, policy, lambdas=(1.0, 1.0, 1.0), influence=None, final=False):
    """A step record decided by the core, as the step loop writes it."""
    r = np.array([[np.nan if v is None else v for v in row] for row in raw], dtype=float)
    d = get_policy(policy["name"], **{k: v for k, v in policy.items() if k not in ("name", "lambdas")}).decide(
        r, ConsensusSpec(tuple(lambdas), influence)
    )
    chosen, fallback = int(d.chosen), bool(d.fallback)
    if chosen < 0:
        chosen, fallback = 0, True
    return {
        "type": "step",
        "task_id": task,
        "chain": chain,
        "step": step,
        "context_id": context_id(task, steps),
        "candidates": cands,
        "judges": J3,
        "lambdas": list(lambdas),
        "raw": raw,
        "policy": policy,
        "accepted": [bool(a) for a in d.accepted],
        "chosen": chosen,
        "fallback": fallback,
        "final": final if isinstance(final, bool) else final(cands[chosen]),
    }


def _end(task, chain, steps, correct, stopped="final"):
    return {
        "type": "task_end",
        "task_id": task,
        "chain": chain,
        "steps": steps,
        "answer": None,
        "reference": "",
        "correct": correct,
        "stopped": stopped,
    }


def _save(tmp_path, records, config=None):
    (tmp_path / "trace.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
    if config is not None:
        (tmp_path / "config.yaml").write_text(config)
    return read_trace(tmp_path / "trace.jsonl")


def _is_final(text):
    return text.endswith("final")


def test_empty_steps_and_the_step_budget(tmp_path):
    """An empty chosen step does not extend the context; the chain then stops at the step budget."""
    cands = ["", "x final"]
    raw = [[0.7, 0.7, 0.7], [0.95, 0.3, 0.95]]  # verdict accepts "", mean prefers "x final"
    v, m = {"name": "verdict", "tau": 0.6, "eps": 0.1}, {"name": "mean"}
    recs = [_rec("t", "verdict", i, [], cands, raw, v, final=_is_final) for i in range(3)]
    recs += [_end("t", "verdict", [], 0.0, "step_budget")]
    recs += [_rec("t", "mean", 0, [], cands, raw, m, final=_is_final), _end("t", "mean", ["x final"], 1.0)]
    trace = _save(tmp_path, recs, "budgets: {max_steps: 3, max_tokens: 50}\n")
    assert ContextTree.from_trace(trace).settings.max_steps == 3
    rv = replay(trace, make_spec("verdict", tau=0.6, eps=0.1)).outcomes["t"]
    assert (rv.status, rv.steps, rv.choices, rv.correct) == (EXACT, (), (0, 0, 0), 0.0)
    rm = replay(trace, make_spec("max")).outcomes["t"]
    assert (rm.status, rm.steps, rm.correct) == (EXACT, ("x final",), 1.0)
    assert all(f["reproduced"] == f["steps"] for f in fidelity(trace).values())
    (tmp_path / "config.yaml").unlink()  # without the config the deepest recorded step bounds the walk
    rv2 = replay(read_trace(tmp_path / "trace.jsonl"), make_spec("verdict", tau=0.6, eps=0.1)).outcomes["t"]
    assert (rv2.status, rv2.choices) == (EXACT, (0, 0, 0))


def test_token_budget_from_the_config(tmp_path):
    v = {"name": "verdict", "tau": 0.6, "eps": 0.1}
    r0 = _rec("t", "verdict", 0, [], ["one two three", "four"], [[0.7, 0.7, 0.7], [0.5, 0.5, 0.5]], v)
    recs = [
        r0,
        _end("t", "verdict", ["one two three"], 1.0, "token_budget"),
        _rec("t", "mean", 0, [], r0["candidates"], r0["raw"], {"name": "min"}),
        _end("t", "mean", ["one two three"], 1.0, "token_budget"),
    ]
    trace = _save(tmp_path, recs, "budgets:\n  max_steps: 5\n  max_tokens: 3\n")
    out = replay(trace, make_spec("mean")).outcomes["t"]
    assert (out.status, out.correct) == (EXACT, 1.0)
    other = replay(trace, make_spec("random", seed=3)).outcomes["t"]
    assert other.status == EXACT if other.choices == (0,) else other.status == DIVERGED


def test_early_stopped_steps_record_a_prefix(tmp_path):
    v = {"name": "verdict", "tau": 0.6, "eps": 0.1}
    full = _rec(
        "t",
        "mean",
        0,
        [],
        ["s1 final", "s2 final", "s3 final"],
        [[0.9, 0.9, 0.9], [0.8, 0.8, 0.8], [0.1, 0.1, 0.1]],
        {"name": "mean"},
        final=True,
    )
    short = _rec("t", "verdict", 0, [], ["s1 final"], [[0.9, 0.9, 0.9]], v, final=True)
    trace = _save(
        tmp_path, [short, _end("t", "verdict", ["s1 final"], 1.0), full, _end("t", "mean", ["s1 final"], 1.0)]
    )
    tree = ContextTree.from_trace(trace)
    assert tree.inconsistent == []
    assert len(tree.nodes[("t", context_id("t", []))].candidates) == 3


def test_nobody_scored_falls_back_to_candidate_zero(tmp_path):
    v = {"name": "verdict", "tau": 0.6, "eps": 0.1}
    r0 = _rec("t", "verdict", 0, [], ["a final", "b final"], [[None, None, None], [None, None, None]], v, final=True)
    assert (r0["chosen"], r0["fallback"]) == (0, True)
    trace = _save(tmp_path, [r0, _end("t", "verdict", ["a final"], 0.0)])
    assert fidelity(trace)["verdict"]["reproduced"] == 1
    assert replay(trace, make_spec("mean")).outcomes["t"].status == EXACT


def test_the_panels_influence_matrix_is_used(tmp_path):
    W = [[0.0, 1.0, 0.0], [0.5, 0.0, 0.5], [1.0, 0.0, 0.0]]
    v = {"name": "verdict", "tau": 0.6, "eps": 0.1}
    raw = [[0.9, 0.5, 0.7], [0.6, 0.8, 0.75]]
    r0 = _rec(
        "t",
        "verdict",
        0,
        [],
        ["p final", "q final"],
        raw,
        v,
        lambdas=(1.5, 1.0, 0.8),
        influence=np.array(W),
        final=True,
    )
    trace = _save(
        tmp_path,
        [r0, _end("t", "verdict", [r0["candidates"][r0["chosen"]]], 1.0)],
        "influence: " + json.dumps(W) + "\n",
    )
    tree = ContextTree.from_trace(trace)
    np.testing.assert_array_equal(tree.settings.influence, W)
    got = tree.decide(make_spec("verdict", tau=0.6, eps=0.1))[("t", r0["context_id"])]
    want = get_policy("verdict", tau=0.6, eps=0.1).decide(np.array(raw), ConsensusSpec((1.5, 1.0, 0.8), np.array(W)))
    assert got[0] == int(want.chosen) and list(got[1]) == list(want.accepted)
    assert fidelity(trace)["verdict"]["reproduced"] == 1


def test_bad_config_is_named(tmp_path):
    v = {"name": "verdict"}
    trace = _save(
        tmp_path, [_rec("t", "verdict", 0, [], ["a", "b"], [[0.5] * 3, [0.4] * 3], v)], "budgets: {max_steps: 0}\n"
    )
    with pytest.raises(UserError, match=r"config.yaml: budgets.max_steps must be an integer >= 1"):
        ContextTree.from_trace(trace)


REAL_RUN = Path(__file__).resolve().parents[1] / "examples" / "runs" / "smollm2-tiny"


def test_a_real_smollm2_run_replays_exactly():
    """A run recorded by `accord run` (SmolLM2 generator, five judges): every chain is reproduced."""
    trace = read_trace(REAL_RUN / "trace.jsonl")
    assert all(f["reproduced"] == f["steps"] > 0 for f in fidelity(trace).values())
    tree = ContextTree.from_trace(trace)
    assert tree.settings.max_steps == 3 and tree.inconsistent == [] and tree.unfinished == []
    for chain in ("verdict", "mean", "variance", "raw_average"):
        res = replay(trace, recorded_spec(trace.chain_policy(chain)), tree)
        ends = trace.end_of(chain)
        assert res.n_exact == len(ends) == 4
        assert all(o.steps == ends[t].steps and o.correct == ends[t].correct for t, o in res.outcomes.items())


json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-3, 3) | st.floats(allow_nan=False) | st.text(max_size=3),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner, max_size=2),
    max_leaves=6,
)


@settings(max_examples=60, deadline=None)
@given(key=st.sampled_from(sorted(_good_step())), value=json_values)
def test_any_corrupted_field_is_a_user_error_or_accepted(tmp_path_factory, key, value):
    rec = _good_step()
    rec[key] = value
    p = tmp_path_factory.mktemp("fuzz") / "trace.jsonl"
    p.write_text(json.dumps(rec) + "\n")
    try:
        tr = read_trace(p)
    except UserError as exc:
        assert str(exc).startswith(f"{p}:1: ")
    else:
        replay(tr, make_spec("mean"))  # whatever was accepted can be replayed
