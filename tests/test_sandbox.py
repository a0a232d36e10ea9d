"""The sandbox: one process per candidate, every item reported, limits enforced, isolation named."""

from __future__ import annotations

import ast
import os
import shutil
import signal
import sys
import tempfile
from pathlib import Path

import pytest
from polling import settled

from accord.adapters.code import Limits
from accord.adapters.code import _isolation as isolation
from accord.adapters.code import _private_root as private_root
from accord.adapters.code._sandbox import Sandbox, _parse
from accord.cli.main import main

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


def test_a_fatal_signal_is_named_whatever_the_isolation_level(sandbox):
    # Under bwrap or unshare the wrapper reports its child's fatal signal as exit code 128 + signal.
    prog = "import os, signal\ndef f():\n    os.kill(os.getpid(), signal.SIGXCPU)\n"
    res = sandbox.run(prog, [{"kind": "probe", "args": "()"}], "f")
    assert res.items[0].status == "not_run"
    assert "CPU time limit" in res.reason


def test_hidden_check_item(sandbox):
    check = "def check(candidate):\n    assert candidate(2, 3) == 5\n    assert candidate('x', 'y') == 'xy'\n"
    ok = sandbox.run(ADD, [{"kind": "check", "src": check}], "f")
    bad = sandbox.run("def f(x, y):\n    return x\n", [{"kind": "check", "src": check}], "f")
    assert ok.items[0].status == "pass" and bad.items[0].status == "fail"


def test_candidate_output_is_captured(sandbox):
    res = sandbox.run(
        "print('hello from the candidate')\ndef f():\n    return 1\n", [{"kind": "probe", "args": "()"}], "f"
    )
    assert "hello from the candidate" in res.output and res.items[0].output == "1"


def test_run_many_keeps_order(sandbox):
    jobs = [(f"def f():\n    return {i}\n", [{"kind": "probe", "args": "()"}], "f") for i in range(4)]
    assert [r.items[0].output for r in sandbox.run_many(jobs)] == ["0", "1", "2", "3"]


def test_each_available_level_runs_code_with_limits():
    for iso in isolation.candidates():
        if isolation._probe(iso) is not None:
            continue
        sb = Sandbox(FAST, isolation=iso.level)
        res = sb.run(
            "def f():\n    return [0] * (1 << 30)\n",
            [{"kind": "probe", "args": "()"}, {"kind": "probe", "args": "()"}],
            "f",
        )
        assert res.items[0].status == "error" and "MemoryError" in res.items[0].error, iso.level


def test_forged_and_duplicate_records_are_detected():
    nonce = "n" * 32
    good = (
        f'{{"loaded": True, "nonce": "{nonce}"}}\n{{"i": 0, "status": "pass", "nonce": "{nonce}"}}\n'
        f'{{"done": True, "nonce": "{nonce}"}}\n'
    )
    assert _parse(good.encode(), nonce, 1, None, 0, "").completed
    forged = good + '{"i": 0, "status": "pass"}\n'
    res = _parse(forged.encode(), nonce, 1, None, 0, "")
    assert not res.completed and "forged" in res.reason and res.items[0].status == "not_run"
    dup = good + f'{{"i": 0, "status": "pass", "nonce": "{nonce}"}}\n'
    assert "duplicate" in _parse(dup.encode(), nonce, 1, None, 0, "").reason


def _private_levels() -> list[str]:
    return [iso.level for iso in isolation.candidates() if iso.private_filesystem and isolation._probe(iso) is None]


def test_auto_never_shares_the_host_filesystem():
    try:
        sb = Sandbox(FAST)
    except RuntimeError as exc:  # a machine without namespaces refuses untrusted code outright
        assert "shared host filesystem" in str(exc) and "rlimits" in str(exc)
        return
    assert sb.isolation.private_filesystem and sb.isolation.level in isolation.PRIVATE_LEVELS
    assert "private filesystem" in sb.describe()


def test_rlimits_only_is_refused_unless_asked_for(monkeypatch):
    only_rlimits = [iso for iso in isolation.candidates() if iso.level == "rlimits"]
    monkeypatch.setattr(isolation, "candidates", lambda: only_rlimits)
    with pytest.raises(RuntimeError, match="ask for it by name") as err:
        isolation.detect.__wrapped__("auto")
    assert "shared host filesystem" in str(err.value)
    explicit = isolation.detect.__wrapped__("rlimits")
    assert not explicit.private_filesystem and "host filesystem is shared" in explicit.description


@pytest.fixture(params=_private_levels())
def private_sandbox(request):
    return Sandbox(FAST, isolation=request.param)


def _probe_output(sb: Sandbox, program: str) -> str:
    res = sb.run(program, [{"kind": "probe", "args": "()"}], "f")
    assert res.completed and res.items[0].status == "ok", res
    return res.items[0].output


def test_candidate_cannot_read_a_world_readable_file_in_the_host_tmp(private_sandbox, tmp_path_factory):
    shared = Path(tempfile.mkdtemp(prefix="accord-leak-"))
    try:
        shared.chmod(0o755)
        leak = shared / "notes.txt"
        leak.write_text("world-readable host secret")
        leak.chmod(0o644)
        program = (
            "import os\ndef f():\n    found = []\n"
            f"    for d in ({str(shared)!r}, {tempfile.gettempdir()!r}, '/var/tmp', '/dev/shm'):\n"
            "        try:\n            found += [os.path.join(d, n) for n in os.listdir(d)]\n"
            "        except OSError:\n            pass\n"
            f"    try:\n        found.append(open({str(leak)!r}).read())\n    except OSError:\n        pass\n"
            "    return found\n"
        )
        seen = _probe_output(private_sandbox, program)
        assert "host secret" not in seen and "accord-leak-" not in seen and seen == "[]"
    finally:
        shutil.rmtree(shared)


def test_candidate_cannot_see_the_working_tree_or_other_trees(private_sandbox):
    project = Path(__file__).resolve().parents[1]
    venv = Path(sys.prefix)
    places = [
        project,
        project / "accord",
        project.parent,
        venv,
        Path(sys.executable).parent,
        Path.home(),
        "/home",
        "/work",
    ]
    program = (
        "import os\ndef f():\n    seen = {}\n"
        f"    for d in {[str(p) for p in places]!r}:\n"
        "        try:\n            seen[d] = os.listdir(d)\n        except OSError:\n            pass\n"
        "    try:\n        seen['source'] = "
        f"open({str(project / 'accord' / 'adapters' / 'code' / '_sandbox.py')!r}).read()[:40]\n"
        "    except OSError:\n        pass\n"
        "    return sorted((k, sorted(v) if isinstance(v, list) else v) for k, v in seen.items())\n"
    )
    seen = _probe_output(private_sandbox, program)
    # all it may see there: the folders leading to the base interpreter's prefix, and its own home
    prefix = Path(isolation.interpreter()[1])
    allowed = {prefix, *prefix.parents, Path(private_root.SANDBOX_HOME)}
    for name, entries in ast.literal_eval(seen):
        assert name != "source", "project source readable"
        assert all(Path(name) / e in allowed for e in entries), (name, entries)


def test_candidate_leaves_no_file_behind(private_sandbox):
    drop_box = Path(tempfile.mkdtemp(prefix="accord-dropbox-"))
    marker = f"accord-left-{os.getpid()}-{private_sandbox.isolation.level}"
    targets = [
        Path(tempfile.gettempdir()) / marker,
        Path("/var/tmp") / marker,
        Path("/dev/shm") / marker,
        Path.home() / marker,
        drop_box / marker,
    ]
    try:
        drop_box.chmod(0o1777)  # world-writable: only a private filesystem keeps the candidate out
        program = (
            "import os\ndef f():\n    made = []\n"
            f"    for p in {[str(t) for t in targets] + [marker]!r} + [os.path.join(os.environ['HOME'], {marker!r})]:\n"
            "        try:\n            os.makedirs(os.path.dirname(p) or '.', exist_ok=True)\n"
            "            open(p, 'w').write('left behind')\n            made.append(p)\n"
            "        except OSError:\n            pass\n"
            "    return len(made)\n"
        )
        assert int(_probe_output(private_sandbox, program)) >= 1  # it did write: into its own tmpfs
        assert [t for t in targets if t.exists()] == []
        assert list(drop_box.iterdir()) == []
    finally:
        for t in targets:
            t.unlink(missing_ok=True)
        shutil.rmtree(drop_box)


def _processes_with(marker: str) -> list[int]:
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit() and entry != str(os.getpid()):
            try:
                if marker.encode() in Path(f"/proc/{entry}/cmdline").read_bytes():
                    found.append(int(entry))
            except OSError:
                pass
    return found


def test_candidate_leaves_no_process_behind(private_sandbox):
    marker = f"accord-daemon-{os.getpid()}-{private_sandbox.isolation.level}"
    program = (
        "import os, subprocess, sys\ndef f():\n"
        f"    p = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)', {marker!r}],\n"
        "                         start_new_session=True, stdin=subprocess.DEVNULL,\n"
        "                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)\n"
        "    return p.pid > 0\n"
    )
    try:
        assert _probe_output(private_sandbox, program) == "True"  # the daemon was started
        left = settled(lambda: _processes_with(marker), timeout_s=30)  # killed processes take a moment to be reaped
        assert left == []
    finally:
        for pid in _processes_with(marker):
            os.kill(pid, signal.SIGKILL)


def test_codepool_refuses_a_shared_filesystem_unless_asked(monkeypatch, capsys):
    only_rlimits = [iso for iso in isolation.candidates() if iso.level == "rlimits"]
    monkeypatch.setattr(isolation, "candidates", lambda: only_rlimits)
    isolation.detect.cache_clear()
    try:
        assert main(["codepool", "--ids", "HumanEval/0", "--mutants", "1", "--probes", "1"]) == 2
        err = capsys.readouterr().err
        assert "shared host filesystem" in err and "ask for it by name" in err and "Traceback" not in err
    finally:
        isolation.detect.cache_clear()
