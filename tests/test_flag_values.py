"""An error names the flag the user gave: a value that starts with a minus sign and a digit is the flag's
value (``--lambdas -1,1,1``), judged by its validator; any other value starting with "-" is refused
with the ``--flag=VALUE`` form named; a bad ``accord code --isolation`` is an ``--isolation`` error."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from accord.cli.main import main

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
TABLE = str(EXAMPLES / "scores.csv")  # three judge columns
REWARDS = str(EXAMPLES / "ensemble" / "rewards.jsonl")  # three reward models
DERIVATION = str(EXAMPLES / "derivations" / "correct.txt")  # three judges
RUN = str(EXAMPLES / "runs" / "synthetic")
LAMBDA_ERROR = "λ must be finite numbers > 0"
SETTINGS = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


def _refusal(argv: list[str], capsys) -> str:
    """The one line a refused command prints (exit 2, nothing else, no traceback)."""
    assert main(argv) == 2
    out, err = capsys.readouterr()
    assert out == "" and len(err.strip().splitlines()) == 1 and "Traceback" not in err, err
    return err.strip()


@pytest.fixture(scope="module")
def code_files(tmp_path_factory) -> tuple[str, str]:
    folder = tmp_path_factory.mktemp("code")
    (folder / "c.jsonl").write_text(json.dumps({"task_id": "t", "code": "def f():\n    return 1\n"}) + "\n")
    (folder / "t.jsonl").write_text(json.dumps({"task_id": "t", "entry_point": "f", "tests": "assert f() == 1"}) + "\n")
    return str(folder / "c.jsonl"), str(folder / "t.jsonl")


def _negative_first() -> st.SearchStrategy[str]:
    """Comma-separated numbers as people write them, the first one negative ("-1,1,1", "-0.5,2")."""
    number = st.one_of(
        st.integers(-99, 99).map(str),
        st.floats(-9, 9, allow_nan=False).map(lambda x: f"{x:g}"),
        st.floats(-9, 9, allow_nan=False).map(lambda x: f"{x:.2f}"),
    )
    first = st.one_of(st.integers(0, 99).map(lambda n: f"-{n}"), st.floats(0, 9).map(lambda x: f"-{x:g}"))
    return st.tuples(first, st.lists(number, min_size=1, max_size=4)).map(lambda p: ",".join([p[0], *p[1]]))


@pytest.mark.parametrize(
    "command",
    [
        ["consensus", TABLE],
        ["ensemble", REWARDS],
        ["check", DERIVATION],
        ["sweep", RUN],
    ],
    ids=["consensus", "ensemble", "check", "sweep"],
)
@SETTINGS
@given(lambdas=_negative_first())
def test_a_negative_lambda_list_is_read_as_the_value_of_lambdas(command, lambdas, capsys):
    err = _refusal([*command, "--lambdas", lambdas], capsys)
    assert f"error: --lambdas: {LAMBDA_ERROR}" in err, err
    assert repr(lambdas) in err
    assert "expected one argument" not in err and "expected at least one argument" not in err


@SETTINGS
@given(lambdas=_negative_first())
def test_a_negative_lambda_list_for_code_names_lambdas(lambdas, code_files, capsys):
    candidates, tests = code_files
    err = _refusal(["code", candidates, "--tests", tests, "--judges", "code_static,code_execution",
                    "--isolation", "rlimits", "--lambdas", lambdas], capsys)  # fmt: skip
    assert f"accord code: error: --lambdas: {LAMBDA_ERROR}" in err, err


@SETTINGS
@given(value=st.floats(-1e6, -1e-6).map(lambda x: f"{x:g}"), flag=st.sampled_from(["--tau", "--eps"]))
def test_a_negative_threshold_is_a_value_refused_by_its_range(value, flag, capsys):
    err = _refusal(["consensus", TABLE, flag, value], capsys)
    assert f"argument {flag}: must be in [0, 1], got {value}" in err, err
    err = _refusal(["sweep", RUN, flag, "0.5", value], capsys)  # a list flag: the value among others
    assert f"{flag}: must be in [0, 1], got {value}" in err, err


@SETTINGS
@given(
    value=st.text(st.characters(categories=["L", "P"], exclude_characters="="), min_size=1, max_size=8).map(
        lambda t: "-" + t
    ),
    at=st.sampled_from(
        [(["consensus", TABLE], "--lambdas"), (["consensus", TABLE], "--policy"), (["sweep", RUN], "--tau")]
    ),
)
def test_any_other_value_starting_with_a_dash_is_refused_with_the_flag_equals_form(value, at, capsys):
    command, flag = at
    err = _refusal([*command, flag, value], capsys)
    assert f"argument {flag}: expected" in err and f"is written {flag}=VALUE" in err, err


ISOLATION = st.text(st.characters(categories=["L", "N", "P"]), min_size=1, max_size=12).filter(
    lambda v: v not in ("auto", "bwrap", "unshare", "rlimits") and not v.startswith("-")  # a level; a flag
)


@SETTINGS
@given(value=ISOLATION)
def test_a_bad_isolation_is_reported_under_isolation(value, code_files, capsys):
    candidates, tests = code_files
    err = _refusal(["code", candidates, "--tests", tests, "--isolation", value], capsys)
    assert err.startswith("accord code: error: --isolation: unknown isolation"), err
    assert "judges" not in err


def test_the_two_messages_before_and_after(code_files, capsys):
    """The examples of the messages as a person sees them."""
    candidates, tests = code_files
    err = _refusal(["code", candidates, "--tests", tests, "--isolation", "nope"], capsys)
    assert err == (
        "accord code: error: --isolation: unknown isolation 'nope'; choose auto or one of bwrap, unshare, rlimits"
    )
    err = _refusal(["consensus", TABLE, "--lambdas", "-1,1,1"], capsys)
    assert err == (
        "accord consensus: error: --lambdas: λ must be finite numbers > 0, one per judge, comma-separated "
        "(e.g. 1.5,1,0.8); got '-1,1,1' for 3 judges"
    )
