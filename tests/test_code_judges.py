"""Static, execution and agreement judges on small real problems."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from accord.adapters.code import CodeRunner, Limits, Sandbox
from accord.adapters.code._judges import ExecutionJudge, SelfConsistencyJudge
from accord.adapters.code._probes import generated_args, probe_inputs
from accord.adapters.code._spec import CodeSpec, CodeTest, examples_from_docstring, visible_tests
from accord.adapters.code._static import StaticJudge, analyse
from accord.protocols import StepContext

PROMPT = '''from typing import List


def running_max(xs: List[int]) -> List[int]:
    """Running maximum of a list.
    >>> running_max([1, 3, 2])
    [1, 3, 3]
    >>> running_max([])
    []
    """
'''
GOOD = (
    "    out, m = [], None\n    for x in xs:\n        m = x if m is None or x > m else m\n"
    "        out.append(m)\n    return out\n"
)
GOOD2 = "    import itertools\n    return list(itertools.accumulate(xs, max))\n"
WRONG = "    return sorted(xs)\n"
CRASH = "    return xs[0]\n"


@pytest.fixture(scope="module")
def runner():
    return CodeRunner(Sandbox(Limits(wall_s=5, item_s=1, cpu_s=4, memory_mb=512)), n_probes=8)


def _ctx(tests=None, prompt=PROMPT, entry="running_max") -> StepContext:
    spec = CodeSpec(prompt, entry, tuple(visible_tests(prompt, entry)) if tests is None else tests)
    return StepContext(prompt, metadata={"code": spec})


def test_visible_tests_come_from_the_docstring():
    assert visible_tests(PROMPT, "running_max") == (
        CodeTest("running_max([1, 3, 2])", "[1, 3, 3]"),
        CodeTest("running_max([])", "[]"),
    )


def test_other_example_styles():
    doc = "f(3) ==> 9\nf(2) -> 4.\nFor x = 5 the output should be 25\nf(1) => true\nf(0) is obviously 0"
    got = examples_from_docstring(doc, "f")
    assert [(t.expr, t.expected) for t in got] == [("f(3)", "9"), ("f(2)", "4"), ("f(1)", "True"), ("f(x = 5)", "25")]


def test_assert_and_io_tests():
    assert CodeTest.from_assert("assert f(2) == [1, 2]") == CodeTest("f(2)", "[1, 2]")
    assert CodeTest.from_assert("assert f(2) > 1").item() == {"kind": "stmt", "src": "assert f(2) > 1"}
    assert CodeTest.from_io("f", (1, "a"), (2, "b")) == CodeTest("f(1, 'a')", "(2, 'b')")
    with pytest.raises(ValueError, match="does not parse"):
        CodeTest.from_assert("assert f(")
    with pytest.raises(ValueError, match="not a plain literal"):
        CodeTest.from_io("f", (1,), object())


@given(st.tuples(st.integers(), st.text(max_size=5)), st.lists(st.integers(), max_size=4))
@settings(max_examples=50, deadline=None)
def test_io_tests_round_trip(args, expected):
    import ast

    t = CodeTest.from_io("g", args, expected)
    call = ast.parse(t.expr, mode="eval").body
    assert tuple(ast.literal_eval(a) for a in call.args) == args
    assert ast.literal_eval(t.expected) == expected


def test_static_judge():
    ctx = _ctx()
    s = StaticJudge().score(
        ctx,
        [
            GOOD,
            "    return (\n",
            "    import os\n    return os.listdir('.')\n",
            "    return ys\n",
            "    unused = 1\n    return eval('xs')\n",
        ],
    )
    assert s[0].value is None and "no static defect found" in s[0].reason  # nothing found is no evidence of correctness
    assert s[4].value is None and "eval" in s[4].reason and "unused" in s[4].reason
    assert s[1].value == 0.0 and "does not parse" in s[1].reason
    assert s[2].value == 0.0 and "import os" in s[2].reason
    assert s[3].value == 0.25 and "ys" in s[3].reason
    rep = analyse("def other():\n    return 1\n", "running_max")
    assert not rep.runnable and "no top-level function" in rep.score().reason


def test_static_judge_needs_a_code_context():
    with pytest.raises(ValueError, match="CodeSpec"):
        StaticJudge().score(StepContext("q"), ["x"])


def test_execution_judge_scores_fraction_passed(runner):
    s = ExecutionJudge(runner).score(_ctx(), [GOOD, GOOD2, WRONG, CRASH, "    return (\n"])
    assert [x.value for x in s] == [1.0, 1.0, 0.5, 0.0, 0.0]
    assert "1/2 tests passed" in s[2].reason and "got [1, 2, 3]" in s[2].reason
    assert "IndexError" in s[3].reason
    assert "does not parse" in s[4].reason


def test_execution_judge_without_tests_is_none(runner):
    s = ExecutionJudge(runner).score(_ctx(tests=()), [GOOD])
    assert s[0].value is None and "no visible tests" in s[0].reason


def test_whole_function_candidates_replace_the_stub(runner):
    whole = "def running_max(xs):\n    return [max(xs[: i + 1]) for i in range(len(xs))]\n"
    assert ExecutionJudge(runner).score(_ctx(), [whole])[0].value == 1.0


def test_agreement_favours_the_majority_behaviour(runner):
    ctx = _ctx()
    s = SelfConsistencyJudge(runner).score(ctx, [GOOD, GOOD2, WRONG, "    return (\n"])
    v = [x.value for x in s]
    assert v[0] == v[1] > v[2]
    assert v[3] == 0.0
    assert SelfConsistencyJudge(runner).score(ctx, [GOOD])[0].value is None
    boom = "    raise ValueError('no')\n"
    both = SelfConsistencyJudge(runner).score(ctx, [boom, boom + "    # same\n"])
    assert [x.value for x in both] == [0.0, 0.0]  # crashing alike everywhere is no evidence


def test_each_candidate_runs_once_for_both_judges():
    r = CodeRunner(Sandbox(Limits(wall_s=5, item_s=1)), n_probes=4)
    ctx = _ctx()
    ExecutionJudge(r).score(ctx, [GOOD, WRONG])
    SelfConsistencyJudge(r).score(ctx, [GOOD, WRONG])
    assert r.runs == 2


def test_probe_inputs_are_deterministic_and_typed():
    spec = CodeSpec(PROMPT, "running_max")
    a, b = generated_args(spec, 6), generated_args(spec, 6)
    assert a == b and len(a) == 6
    assert all(isinstance(x[0], list) and all(type(v) is int for v in x[0]) for x in a)
    spec2 = CodeSpec(PROMPT, "running_max", visible_tests(PROMPT, "running_max"))
    assert probe_inputs(spec2, 5)[0] == "([1, 3, 2],)"  # the docstring's own inputs come first
    assert CodeSpec(PROMPT, "running_max", probe_inputs=("([9],)",)).probe_inputs == ("([9],)",)


def test_probes_fall_back_to_example_value_types():
    prompt = 'def twice(s):\n    """>>> twice("ab")\n    \'abab\'\n    """\n'
    spec = CodeSpec(prompt, "twice", visible_tests(prompt, "twice"))
    args = generated_args(spec, 5)
    assert args and all(isinstance(x[0], str) and set(x[0]) <= {"a", "b"} for x in args)


# ----------------------------------------------------------------------------- model-based parts
def test_cut_body_and_fenced_code():
    from accord.adapters.code._generator import cut_body, cut_fenced

    assert cut_body("    x = 1\n    return x\nprint(f(2))\n") == "    x = 1\n    return x\n"
    assert cut_body("\n```\n") == ""
    assert cut_fenced("def f():\n    return 1\n```\nThis returns one.") == "def f():\n    return 1\n"
    assert cut_fenced("```") == ""


@pytest.mark.slow
def test_generator_is_seeded_and_batched(tiny_lm):
    from accord.adapters.code import CodeGenerator

    lm, tok = tiny_lm
    ctx = _ctx()
    for chat in (True, False):
        g = CodeGenerator.from_loaded(lm, tok, max_new_tokens=12, chat=chat)
        a = g.propose(ctx, 3, seed=5)
        assert len(a) == 3 and all(isinstance(x, str) for x in a)
        assert a == g.propose(ctx, 3, seed=5)
        assert len(g.last_stats["per_candidate"]) == 3 and g.is_final(a[0])
        assert ("```python" in g.prompt(ctx)) == chat


@pytest.mark.slow
def test_llm_code_judge_scores_roles_in_one_call(smollm2):
    from accord.adapters.code._llm_judge import LLMCodeJudge, LLMCodeJudges

    lm, tok = smollm2
    judges = LLMCodeJudges(lm=lm, tokenizer=tok)
    out = judges.score_many(_ctx(), [GOOD, "    return 'banana'\n"])
    assert judges.names == ["llm_code_spec", "llm_code_correctness", "llm_code_focus"]
    assert len(out) == 3 and all(len(col) == 2 for col in out)
    assert all(0.0 <= s.value <= 1.0 for col in out for s in col)
    assert judges.last_tokens > 0
    one = LLMCodeJudge("correctness", lm=lm, tokenizer=tok)
    assert one.score(_ctx(), [GOOD])[0].value == pytest.approx(out[1][0].value, abs=1e-4)
    with pytest.raises(ValueError, match="unknown code judge role"):
        LLMCodeJudges(("style",), lm=lm, tokenizer=tok)
    with pytest.raises(ValueError, match="CodeSpec"):
        judges.score_many(StepContext("q"), ["x"])


def test_code_judges_from_a_run_config():
    from accord.verify.loop import build_panel

    panel = build_panel(
        [{"type": "code_static"}, {"type": "code_execution", "lambda": 1.5}, {"type": "code_consistency", "probes": 4}]
    )
    assert panel.names == ["static", "execution", "consistency"] and panel.lambdas == (1.0, 1.5, 1.0)
    scores = panel.score(_ctx(), [GOOD, WRONG])
    assert scores.raw[0, 1] == 1.0 and scores.raw[1, 1] == 0.5
    with pytest.raises(ValueError, match=r"judges\[0\]: code_static judge takes no option"):
        build_panel([{"type": "code_static", "colour": "red"}, {"type": "code_execution"}])
