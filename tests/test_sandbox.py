"""The sandbox: one process per candidate, every item reported, limits enforced, isolation named."""

from __future__ import annotations

import pytest

from accord.adapters.code import isolation
from accord.adapters.code.limits import Limits
from accord.adapters.code.sandbox import Sandbox, _parse

FAST = Limits(wall_s=4.0, item_s=1.0, cpu_s=3, memory_mb=512, output_bytes=4096)
ADD = "def f(x, y):\n    return x + y\n"


@pytest.fixture(scope="module")
def sandbox():
    return Sandbox(FAST)


def test_detects_and_names_its_isolation(sandbox):
    iso = sandbox.isolation
    assert iso.level in isolation.LEVELS
    assert iso.level in sandbox.describe() and iso.description in sandbox.describe()


def test_unknown_isolation_is_an_error():
    with pytest.raises(ValueError, match="unknown isolation"):
        Sandbox(FAST, isolation="chroot")


@pytest.mark.parametrize("bad", [{"wall_s": 0}, {"memory_mb": -1}, {"processes": 0}])
def test_limits_must_be_positive(bad):
    with pytest.raises(ValueError, match="must be > 0"):
        Limits(**bad)


def test_all_items_run_in_one_process_and_are_reported_in_order(sandbox):
    items = [
        {"kind": "expr", "expr": "f(1, 2)", "expected": "3"},
        {"kind": "expr", "expr": "f(1, 2)", "expected": "4"},
        {"kind": "probe", "args": "([1], [2])"},
        {"kind": "stmt", "src": "assert f('a', 'b') == 'ab'"},
        {"kind": "stmt", "src": "assert f(0, 0) == 1"},
        {"kind": "expr", "expr": "f(0.1, 0.2)", "expected": "0.3"},
    ]
    res = sandbox.run(ADD, items, "f")
    assert res.completed and res.loaded and res.reason is None
    assert [it.status for it in res.items] == ["pass", "fail", "ok", "pass", "fail", "pass"]
    assert res.items[1].output == "3"
    assert res.items[2].output == "[1, 2]"
    assert res.isolation == sandbox.isolation.level


def test_type_strict_comparison(sandbox):
    items = [
        {"kind": "expr", "expr": "f(True, False)", "expected": "True"},  # int 1 is not the bool True
        {"kind": "expr", "expr": "f([1], [2])", "expected": "(1, 2)"},  # a list is not a tuple
        {"kind": "expr", "expr": "f(1, 1)", "expected": "2.0"},  # int vs float: numerically equal
    ]
    assert [it.status for it in sandbox.run(ADD, items, "f").items] == ["fail", "fail", "pass"]


def test_load_error_marks_every_item_with_the_reason(sandbox):
    res = sandbox.run("import no_such_module\n", [{"kind": "probe", "args": "(1,)"}] * 2, "f")
    assert not res.completed
    assert "failed to load" in res.reason and "no_such_module" in res.reason
    assert all(it.status == "not_run" and "no_such_module" in it.error for it in res.items)


def test_results_before_a_crash_are_kept(sandbox):
    prog = "import os\ndef f(x):\n    if x == 2:\n        os._exit(3)\n    return x\n"
    res = sandbox.run(prog, [{"kind": "probe", "args": f"({i},)"} for i in range(4)], "f")
    assert [it.status for it in res.items] == ["ok", "ok", "not_run", "not_run"]
    assert "exited with code 3" in res.reason


def test_hidden_check_item(sandbox):
    check = "def check(candidate):\n    assert candidate(2, 3) == 5\n    assert candidate('x', 'y') == 'xy'\n"
    ok = sandbox.run(ADD, [{"kind": "check", "src": check}], "f")
    bad = sandbox.run("def f(x, y):\n    return x\n", [{"kind": "check", "src": check}], "f")
    assert ok.items[0].status == "pass" and bad.items[0].status == "fail"


def test_candidate_output_is_captured(sandbox):
    res = sandbox.run("print('hello from the candidate')\ndef f():\n    return 1\n", [{"kind": "probe", "args": "()"}], "f")
    assert "hello from the candidate" in res.output and res.items[0].output == "1"


def test_run_many_keeps_order(sandbox):
    jobs = [(f"def f():\n    return {i}\n", [{"kind": "probe", "args": "()"}], "f") for i in range(4)]
    assert [r.items[0].output for r in sandbox.run_many(jobs)] == ["0", "1", "2", "3"]


def test_each_available_level_runs_code_with_limits():
    for iso in isolation.candidates():
        if isolation._probe(iso) is not None:
            continue
        sb = Sandbox(FAST, isolation=iso.level)
        res = sb.run("def f():\n    return [0] * (1 << 30)\n", [{"kind": "probe", "args": "()"}, {"kind": "probe", "args": "()"}], "f")
        assert res.items[0].status == "error" and "MemoryError" in res.items[0].error, iso.level


def test_forged_and_duplicate_records_are_detected():
    nonce = "n" * 32
    good = f'{{"loaded": True, "nonce": "{nonce}"}}\n{{"i": 0, "status": "pass", "nonce": "{nonce}"}}\n{{"done": True, "nonce": "{nonce}"}}\n'
    assert _parse(good.encode(), nonce, 1, None, 0, "").completed
    forged = good + '{"i": 0, "status": "pass"}\n'
    res = _parse(forged.encode(), nonce, 1, None, 0, "")
    assert not res.completed and "forged" in res.reason and res.items[0].status == "not_run"
    dup = good + f'{{"i": 0, "status": "pass", "nonce": "{nonce}"}}\n'
    assert "duplicate" in _parse(dup.encode(), nonce, 1, None, 0, "").reason
