"""The judge registry: a new judge type is one decorated factory, usable from a run config at once."""

import re
from dataclasses import dataclass

import numpy as np
import pytest

from accord.adapters import JudgeSpec, build_judges, column_lambdas, judge_types, parse_judge, register_judge
from accord.errors import UserError
from accord.protocols import JudgeScore, StepContext
from accord.verify.loop import build_panel
from accord.verify.run import build_panel_from, resolve


# ---- a toy judge type, added in this file only: the judge, its typed spec, its factory
class LengthJudge:
    """Shorter steps score higher: 1 / (1 + words / scale)."""

    def __init__(self, name: str, scale: float):
        self.name, self.scale = name, scale

    def score(self, ctx, candidates):
        return [JudgeScore(1.0 / (1.0 + len(c.split()) / self.scale)) for c in candidates]


@dataclass(frozen=True)
class LengthSpec(JudgeSpec):
    scale: float = 4.0


@register_judge("toy_length", LengthSpec, columns={"toy_length": 0.5})
def _toy_length(spec: LengthSpec, models: dict) -> LengthJudge:
    if not spec.scale > 0:
        raise ValueError(f"scale must be > 0, got {spec.scale}")
    return LengthJudge(spec.name or "toy_length", spec.scale)  # its λ: the one columns= gives


# ---- end of the toy judge type


def test_a_toy_judge_runs_through_a_config_and_the_panel():
    assert "toy_length" in judge_types()
    cfg = resolve({"judges": [{"type": "arithmetic"}, {"type": "toy_length", "scale": 2.0}]})
    panel = build_panel_from(cfg)
    assert panel.names == ["arithmetic", "toy_length"] and panel.lambdas == (1.0, 0.5)  # its registered default
    scores = panel.score(StepContext("What is 2 + 3?"), ["2 + 3 = 5", "so the sum of two and three is 5 here"])
    np.testing.assert_allclose(scores.raw[:, 1], [1 / (1 + 5 / 2), 1 / (1 + 10 / 2)])  # 5 and 10 words
    st = panel.stats(scores.raw)
    assert st.consensus.shape == (2, 2) and np.all(np.isfinite(st.mean))


def test_a_toy_judges_options_and_lambda_are_checked_where_written():
    with pytest.raises(UserError, match=r"judges\[1\]: toy_length judge takes no option\(s\) \['colour'\]"):
        resolve({"judges": [{"type": "arithmetic"}, {"type": "toy_length", "colour": "red"}]})
    with pytest.raises(UserError, match=r"judges\[1\].lambda: λ must be finite numbers > 0"):
        resolve({"judges": [{"type": "arithmetic"}, {"type": "toy_length", "lambda": -2}]})
    with pytest.raises(ValueError, match=r"judges\[1\]: toy_length judge: scale must be > 0"):
        build_panel([{"type": "arithmetic"}, {"type": "toy_length", "scale": 0}])
    p = build_panel([{"type": "arithmetic"}, {"type": "toy_length", "lambda": 2, "name": "short"}])
    assert p.names == ["arithmetic", "short"] and p.lambdas == (1.0, 2.0)


def test_typed_specs_and_entries_build_the_same_panel():
    spec = parse_judge({"type": "toy_length", "scale": 3, "lambda": "0.7"})
    assert spec == LengthSpec(lam=(0.7,), scale=3)
    built = build_judges([{"type": "arithmetic"}, spec])
    assert [b.lambdas for b in built] == [(1.0,), (0.7,)]


def test_grouped_types_take_one_lambda_per_column_and_multi_column_types_a_list():
    with pytest.raises(ValueError, match=r"judges\[1\].lambda: 2 values for 1 column"):
        build_judges([{"type": "arithmetic"}, {"type": "toy_length", "lambda": [1, 2]}])


def test_score_table_columns_take_lambda_by_name_never_by_position():
    lam, unknown = column_lambdas(["visual", "toy_length", "mystery", "arithmetic"])
    assert lam == (1.5, 0.5, 1.0, 1.0) and unknown == ["mystery"]
    back, _ = column_lambdas(["arithmetic", "mystery", "toy_length", "visual"])
    assert back == (1.0, 1.0, 0.5, 1.5)  # reordered with the columns
    assert column_lambdas(["a", "b"], (2.0, 3.0)) == ((2.0, 3.0), [])


# ---- the built-in `pattern` type: one file in accord/adapters/builtin_judges, found by the registry
def test_the_pattern_type_is_found_and_scores_the_format():
    assert "pattern" in judge_types() and "pattern" not in judge_types(family="code")
    built = build_judges([{"type": "arithmetic"}, {"type": "pattern", "pattern": r"answer is -?\d+", "name": "fmt"}])
    judge = built[1].judge
    scores = judge.score(StepContext("q"), ["The answer is -4.", "THE ANSWER IS 7", "I think four"])
    assert [s.value for s in scores] == [1.0, 1.0, 0.0] and built[1].lambdas == (1.0,)
    neg = build_judges([{"type": "pattern", "pattern": "maybe", "negate": True}])[0].judge
    assert [s.value for s in neg.score(StepContext("q"), ["maybe 3", "3"])] == [0.0, 1.0]
    strict = build_judges([{"type": "pattern", "pattern": "Answer", "case_sensitive": True}])[0].judge
    assert [s.value for s in strict.score(StepContext("q"), ["answer", "Answer"])] == [0.0, 1.0]


@pytest.mark.parametrize(
    "entry, message",
    [
        ({"type": "pattern"}, "needs a 'pattern'"),
        ({"type": "pattern", "pattern": "("}, "not a regular expression"),
        ({"type": "pattern", "pattern": "x", "negate": "yes"}, "'negate' must be true or false"),
        ({"type": "pattern", "pattern": "x" * 1001}, "at most 1000"),
    ],
)
def test_a_bad_pattern_entry_is_named_where_written(entry, message):
    with pytest.raises(UserError, match=r"judges\[1\]: pattern judge: .*" + re.escape(message)):
        resolve({"judges": [{"type": "arithmetic"}, entry]})


def test_a_typed_spec_gives_back_its_entry_as_written():
    entry = {"type": "pattern", "lambda": [2], "pattern": "x", "name": "p"}
    spec = parse_judge(entry)
    assert spec.as_dict() == entry and list(spec.as_dict()) == list(entry) and spec.type == "pattern"
    assert spec.lam == (2.0,)
    made = type(spec)(pattern="x", lam=(2.0,))  # made in code: the entry is built from its fields
    assert made.as_dict() == {
        "type": "pattern",
        "lambda": [2.0],
        "pattern": "x",
        "negate": False,
        "case_sensitive": False,
    }
    assert parse_judge(made.as_dict()) == made
