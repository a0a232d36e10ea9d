"""The AST mutator and the model-free pool evaluation of selection policies."""

from __future__ import annotations

import ast
import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from accord.adapters.code._mutants import MUTATION_KINDS, mutate
from accord.adapters.code._pool import PoolProblem, evaluate_policies, expected_pick, pool_from_json, pool_to_json
from accord.adapters.code._static import analyse

SRC = """def clip_sum(xs, lo):
    total = 0
    for x in xs:
        if x < lo:
            total += lo
        else:
            total += x * 2
    return total


def untouched(a):
    return a + 1
"""


def test_mutants_are_distinct_single_site_programs():
    ms = mutate(SRC, "clip_sum", count=8, seed=1)
    assert len(ms) == 8
    srcs = {m.source for m in ms}
    assert len(srcs) == 8 and ast.unparse(ast.parse(SRC)) + "\n" not in srcs
    for m in ms:
        compile(m.source, "<m>", "exec")
        assert "return a + 1" in m.source  # only the named function is mutated
        assert m.kind in MUTATION_KINDS and m.description
    assert {m.kind for m in ms} == set(MUTATION_KINDS)


def test_mutants_are_deterministic_per_seed():
    a = [m.source for m in mutate(SRC, "clip_sum", 5, seed=3)]
    assert a == [m.source for m in mutate(SRC, "clip_sum", 5, seed=3)]
    assert a != [m.source for m in mutate(SRC, "clip_sum", 5, seed=4)]


def test_mutants_change_behaviour():
    ns0: dict = {}
    exec(SRC, ns0)
    inputs = [([1, 5, -2], 0), ([3, 3], 4), ([], 1), ([0, 10], 5)]
    want = [ns0["clip_sum"](*i) for i in inputs]
    changed = 0
    for m in mutate(SRC, "clip_sum", 10, seed=0):
        ns: dict = {}
        exec(m.source, ns)
        try:
            changed += [ns["clip_sum"](*i) for i in inputs] != want
        except Exception:
            changed += 1
    assert changed >= 8


def test_unparsable_source_is_an_error():
    with pytest.raises(ValueError, match="does not parse"):
        mutate("def f(:\n", "f")


@given(
    op=st.sampled_from(["+", "-", "*", "//", "<", ">=", "==", "and", "or"]),
    k=st.integers(0, 9),
    seed=st.integers(0, 1000),
)
@settings(max_examples=40, deadline=None)
def test_every_mutant_compiles_and_differs(op, k, seed):
    src = f"def g(a, b):\n    if a > {k}:\n        return a {op} b\n    return {k}\n"
    original = ast.unparse(ast.parse(src))
    for m in mutate(src, "g", 6, seed):
        compile(m.source, "<m>", "exec")
        assert m.source.strip() != original


def test_ties_count_as_uniform_choice():
    key = np.array([0.9, 0.9, 0.5, 0.9])
    share, tied, mixed = expected_pick(key, np.array([True, False, True, False]))
    assert share == pytest.approx(1 / 3) and tied and mixed
    assert expected_pick(np.array([0.2, 0.8]), np.array([False, True])) == (1.0, False, False)
    # no candidate could be ranked (no judge scored any): all of them tie
    assert expected_pick(np.array([-np.inf, -np.inf, -np.inf]), np.array([True, False, False])) == (
        pytest.approx(1 / 3),
        True,
        True,
    )


def _pool():
    nan = float("nan")
    return [
        PoolProblem(
            "a",
            ["canonical", "m1", "m2"],
            ["p0", "p1", "p2"],
            [[1, 1, 0.9], [1, 0.5, 0.4], [1, 0, 0.1]],
            [[None] * 3] * 3,
            [True, False, False],
        ),
        PoolProblem(
            "b", ["m1", "canonical"], ["p0", "p1"], [[1, 1, 0.5], [1, 1, 0.5]], [[None] * 3] * 2, [False, True]
        ),
        PoolProblem(
            "c", ["canonical", "m1"], ["p0", "p1"], [[1, nan, 0.8], [0, 0.0, 0.2]], [[None] * 3] * 2, [True, False]
        ),
    ]


def test_policy_evaluation_on_a_known_pool():
    res = {r.policy: r for r in evaluate_policies(_pool(), ["mean", "verdict", "random"])}
    # a: canonical ranks first; b: a full tie between a right and a wrong program; c: canonical wins.
    assert res["mean"].accuracy == pytest.approx((1 + 0.5 + 1) / 3)
    assert res["mean"].first_index_accuracy == pytest.approx(2 / 3)  # the tie goes to index 0 (wrong)
    assert res["mean"].tie_rate == pytest.approx(1 / 3) and res["mean"].mixed_tie_rate == pytest.approx(1 / 3)
    assert res["pool"].accuracy == pytest.approx((1 / 3 + 1 / 2 + 1 / 2) / 3)
    assert res["oracle"].accuracy == 1.0
    assert res["mean"].ci_low <= res["mean"].accuracy <= res["mean"].ci_high


def test_a_clean_static_check_does_not_vote_for_a_wrong_program():
    """HumanEval/33's pattern: the canonical solution passes every visible test but agrees with few
    mutants; a mutant the other judges rate as mediocre passed VERDICT's filter only because a clean
    static check counted as a score of 1.0 for it."""
    nan = float("nan")
    scores = [[1.0, 1.0, 0.3], [1.0, 0.5, 0.517], [1.0, 0.0, 0.417]]  # static, execution, consistency
    correct = [True, False, False]
    scored_clean = [PoolProblem("p", ["canonical", "m1", "m2"], ["", "", ""], scores, [[None] * 3] * 3, correct)]
    res = {r.policy: r.accuracy for r in evaluate_policies(scored_clean, ["verdict", "mean"])}
    assert (res["verdict"], res["mean"]) == (
        0.0,
        1.0,
    )  # the defect: the mediocre mutant is accepted, the canonical is not
    clean = analyse("def f(x):\n    return x + 1\n", "f").score()
    assert clean.value is None  # a clean program gets no static score
    abstained = [[clean.value if clean.value is not None else nan] + row[1:] for row in scores]
    fixed = [PoolProblem("p", ["canonical", "m1", "m2"], ["", "", ""], abstained, [[None] * 3] * 3, correct)]
    res = {r.policy: r.accuracy for r in evaluate_policies(fixed, ["verdict", "mean"])}
    assert (res["verdict"], res["mean"]) == (1.0, 1.0)


def test_pool_json_round_trip_and_errors():
    pool = _pool()
    data = json.loads(json.dumps(pool_to_json(pool, ["static", "execution", "consistency"])))
    back, judges = pool_from_json(data)
    assert judges == ["static", "execution", "consistency"]
    assert np.isnan(back[2].scores[0][1]) and back[0].correct == pool[0].correct
    data["problems"][0]["scores"][0] = [1.0]
    with pytest.raises(ValueError, match="does not match"):
        pool_from_json(data)
    with pytest.raises(ValueError, match="not a saved code pool"):
        pool_from_json({"problems": []})
