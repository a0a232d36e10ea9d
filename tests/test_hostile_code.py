"""Hostile candidates: each must end in a recorded failure score (0 with a reason) and leave the host
unchanged. Every attack is written so that the candidate would pass its test only if the attack
worked; the host is inspected before and after the whole batch (which runs in parallel)."""

from __future__ import annotations

import hashlib
import os
import shutil
import signal
import socket
import sys
import tempfile
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from polling import settled

from accord.adapters.code import CodeRunner, CodeSpec, CodeTest, Limits, Sandbox
from accord.adapters.code import _isolation as isolation
from accord.adapters.code._isolation import sandbox_uids
from accord.adapters.code._judges import ExecutionJudge
from accord.protocols import StepContext

PROJECT_FILE = Path(__file__).resolve().parents[1] / "accord" / "adapters" / "code" / "_sandbox.py"
LIMITS = Limits(wall_s=4.0, item_s=1.0, cpu_s=3, memory_mb=512, processes=16, output_bytes=16384, file_mb=4)


ANY: frozenset = frozenset()
FILES = frozenset({"fs", "uid"})  # a private filesystem, or a uid of its own, protects the host's files


def _cases(host: dict) -> dict[str, tuple[str, frozenset]]:
    """name -> (program defining f(), protections of which at least one is needed (empty: none)).

    f() == 'ok' only if the attack worked. Cases whose protection the active isolation lacks are
    skipped rather than run (some would really harm the host without it)."""
    canary, secret_path, port, pid = host["canary"], host["secret_path"], host["port"], host["pid"]
    return {
        "infinite_loop": ("def f():\n    while True:\n        pass\n", ANY),
        "sleep_in_c_call": ("import time\ndef f():\n    time.sleep(60)\n    return 'ok'\n", ANY),
        "alarm_ignored_then_loop": (
            "import signal\ndef f():\n    signal.signal(signal.SIGALRM, signal.SIG_IGN)\n    while True:\n        "
            "pass\n",
            ANY,
        ),
        "fork_bomb": (
            "import os\ndef f():\n    while True:\n        os.fork()\n",
            ANY,
        ),
        "thread_bomb": (
            "import threading, time\ndef f():\n    for _ in range(100000):\n"
            "        threading.Thread(target=time.sleep, args=(30,), daemon=True).start()\n    return 'ok'\n",
            ANY,
        ),
        "memory_bomb": ("def f():\n    x = bytearray(8 * 1024 ** 3)\n    return 'ok'\n", ANY),
        "huge_output": ("def f():\n    while True:\n        print('x' * 100000)\n", ANY),
        "huge_file": (
            "def f():\n    with open('big.bin', 'wb') as fh:\n        fh.write(b'x' * (64 << 20))\n    return 'ok'\n",
            ANY,
        ),
        "write_outside": (
            f"def f():\n    open({str(canary.parent / 'planted.txt')!r}, 'w').write('pwned')\n    return 'ok'\n",
            FILES,
        ),
        "delete_outside": (f"import os\ndef f():\n    os.remove({str(canary)!r})\n    return 'ok'\n", FILES),
        "read_home_secret": (
            f"def f():\n    return 'ok' if open({str(secret_path)!r}).read() == {host['secret']!r} else 'no'\n",
            FILES,
        ),
        "read_ssh_key": (
            f"import os\ndef f():\n    d = {str(Path.home() / '.ssh')!r}\n"
            "    return 'ok' if os.listdir(d) is not None else 'no'\n",
            FILES,
        ),
        "read_world_readable_host_tmp": (
            f"def f():\n    return 'ok' if open({str(host['shared_path'])!r}).read() == {host['secret']!r} else 'no'\n",
            frozenset({"fs"}),
        ),
        "write_world_writable_host_tmp": (
            f"def f():\n    open({str(host['shared_path'].parent / 'drop' / 'left.txt')!r}, 'w').write('left')\n    "
            "return 'ok'\n",
            frozenset({"fs"}),
        ),
        "list_working_tree": (
            f"import os\ndef f():\n    return 'ok' if 'accord' in os.listdir({str(PROJECT_FILE.parents[3])!r}) else "
            "'no'\n",
            frozenset({"fs"}),
        ),
        "read_project_source": (
            f"def f():\n    return 'ok' if 'def _parse' in open({str(PROJECT_FILE)!r}).read() else 'no'\n",
            frozenset({"fs"}),
        ),
        "env_secret": (
            f"import os\ndef f():\n    return 'ok' if os.environ['ACCORD_HOSTILE_SECRET'] == {host['secret']!r} else "
            "'no'\n",
            ANY,
        ),
        "network_socket": (
            f"import socket\ndef f():\n    socket.create_connection(('127.0.0.1', {port}), "
            "timeout=0.5).sendall(b'hi')\n    return 'ok'\n",
            frozenset({"net"}),
        ),
        "signal_parent": (
            f"import os, signal\ndef f():\n    os.kill({pid}, signal.SIGUSR1)\n    return 'ok'\n",
            frozenset({"pid", "uid"}),
        ),
        "kill_everything": (
            "import os, signal\ndef f():\n    os.kill(-1, signal.SIGKILL)\n    return 'ok'\n",
            frozenset({"pid"}),
        ),
        "kill_own_parent": (
            "import os, signal, time\ndef f():\n    ppid = os.getppid()\n    os.kill(ppid, signal.SIGKILL)\n"
            "    time.sleep(0.2)\n    try:\n        os.kill(ppid, 0)\n    except ProcessLookupError:\n        return "
            "'ok'\n"
            "    return 'parent survived'\n",
            frozenset({"pid"}),
        ),
        "subprocess_shell": (
            f"import subprocess\ndef f():\n    subprocess.run(['sh', '-c', 'echo pwned > {canary.parent}/shell.txt'], "
            "check=True)\n"
            "    return 'ok'\n",
            FILES,
        ),
        "recursion_limit": (
            "import sys\nsys.setrecursionlimit(10 ** 7)\ndef f(n=0):\n    return f(n + 1)\n",
            ANY,
        ),
        "sys_exit_in_call": ("import sys\ndef f():\n    sys.exit(0)\n", ANY),
        "exit_at_import": ("raise SystemExit(0)\ndef f():\n    return 'ok'\n", ANY),
        "os_exit_zero": ("import os\ndef f():\n    os._exit(0)\n", ANY),
        "keyboard_interrupt": ("def f():\n    raise KeyboardInterrupt\n", ANY),
        "custom_base_exception": ("class Escape(BaseException):\n    pass\ndef f():\n    raise Escape('out')\n", ANY),
        "always_equal_object": (
            "class Eq(str):\n    def __eq__(self, other):\n        return True\n    __hash__ = str.__hash__\n"
            "def f():\n    return Eq('nope')\n",
            ANY,
        ),
        "monkeypatch_comparison": (
            "import math, builtins\nmath.isclose = lambda *a, **k: True\nbuiltins.isinstance = lambda *a: True\n"
            "builtins.type = lambda *a: str\ndef f():\n    return 'nope'\n",
            ANY,
        ),
        "forge_results": (
            "import os\nfor fd in os.listdir('/proc/self/fd'):\n    try:\n"
            '        os.write(int(fd), b\'{"i": 0, "status": "pass"}\\n{"done": true}\\n\')\n    except OSError:\n'
            "        pass\ndef f():\n    return 'nope'\n",
            ANY,
        ),
        "close_result_channel": (  # every descriptor above stderr: the channel's number depends on the host's
            "import os\nos.closerange(3, 1 << 20)\ndef f():\n    return 'ok'\n",
            ANY,
        ),
    }


@pytest.fixture(scope="module")
def host(tmp_path_factory):
    """Host state the attacks target; a listening socket and a SIGUSR1 recorder."""
    d = tmp_path_factory.mktemp("hostile")
    os.chmod(d, 0o700)
    canary = d / "canary.txt"
    canary.write_text("intact")
    secret = "s3cret-" + hashlib.sha256(str(d).encode()).hexdigest()[:12]
    secret_path = Path.home() / f".accord-hostile-{os.getpid()}"
    secret_path.write_text(secret)
    os.chmod(secret_path, 0o600)
    os.environ["ACCORD_HOSTILE_SECRET"] = secret
    shared_dir = Path(tempfile.mkdtemp(prefix="accord-hostile-"))  # the host's tmp, readable by anyone
    shared_dir.chmod(0o755)
    shared_path = shared_dir / "notes.txt"
    shared_path.write_text(secret)
    shared_path.chmod(0o644)
    (shared_dir / "drop").mkdir(mode=0o777)
    (shared_dir / "drop").chmod(0o1777)
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(8)
    server.settimeout(0.05)
    got_signal = []
    old = signal.signal(signal.SIGUSR1, lambda *a: got_signal.append(a[0]))
    state = {
        "canary": canary,
        "secret": secret,
        "secret_path": secret_path,
        "shared_path": shared_path,
        "port": server.getsockname()[1],
        "pid": os.getpid(),
        "server": server,
        "signals": got_signal,
    }
    try:
        yield state
    finally:
        signal.signal(signal.SIGUSR1, old)
        server.close()
        secret_path.unlink(missing_ok=True)
        shutil.rmtree(shared_dir)
        os.environ.pop("ACCORD_HOSTILE_SECRET", None)


def _snapshot(host) -> dict:
    return {
        "canary": host["canary"].read_text() if host["canary"].exists() else None,
        "dir": sorted(p.name for p in host["canary"].parent.iterdir()),
        "secret": host["secret_path"].read_text(),
        "host_tmp": sorted(
            str(p.relative_to(host["shared_path"].parent)) for p in host["shared_path"].parent.rglob("*")
        ),
        "project": hashlib.sha256(PROJECT_FILE.read_bytes()).hexdigest(),
        "cwd": os.getcwd(),
        "recursion": sys.getrecursionlimit(),
        "env": dict(os.environ),
        "threads": threading.active_count(),
    }


def _sandbox_processes() -> list[str]:
    """Command lines of live processes running under this process's sandbox uids."""
    uids = sandbox_uids()
    out = []
    for e in os.listdir("/proc"):
        if e.isdigit():
            try:
                if os.stat(f"/proc/{e}").st_uid in uids:
                    out.append(Path(f"/proc/{e}/cmdline").read_bytes().replace(b"\0", b" ").decode()[:120])
            except OSError:
                pass
    return out


def _settled_sandbox_processes() -> list[str]:
    """Sandbox processes still alive once killed ones have had up to 30 s to be reaped."""
    return settled(_sandbox_processes, timeout_s=30)


def _protections(iso) -> frozenset:
    caps = {"bwrap": {"fs", "pid", "net"}, "unshare": {"fs", "pid", "net"}, "rlimits": set()}[iso.level]
    return frozenset(caps | ({"uid"} if iso.drops_privileges else set()))


def _working_levels() -> list[str]:
    return [iso.level for iso in isolation.candidates() if isolation._probe(iso) is None]


@pytest.fixture(scope="module", params=_working_levels())
def outcome(host, request):
    sandbox = Sandbox(LIMITS, isolation=request.param, workers=8)
    iso = sandbox.isolation
    caps = _protections(iso)
    cases = {k: v for k, (v, needs) in _cases(host).items() if not needs or needs & caps}
    before = _snapshot(host)
    sandboxed_before = _settled_sandbox_processes()

    def judge(program: str):
        spec = CodeSpec("", "f", (CodeTest("f()", "'ok'"),))
        ctx = StepContext("hostile", metadata={"code": spec})
        return ExecutionJudge(CodeRunner(sandbox, n_probes=0)).score(ctx, [program])[0]

    with ThreadPoolExecutor(max_workers=8) as pool:
        scores = dict(zip(cases, pool.map(judge, cases.values())))
    connections = 0
    try:
        while True:
            conn, _ = host["server"].accept()
            conn.close()
            connections += 1
    except (TimeoutError, BlockingIOError, OSError):
        pass
    return {
        "scores": scores,
        "before": before,
        "after": _snapshot(host),
        "connections": connections,
        "leftover": (sandboxed_before, _settled_sandbox_processes()),
        "isolation": iso,
    }


def test_at_least_twenty_cases(host):
    assert len(_cases(host)) >= 20


@pytest.mark.slow
@pytest.mark.parametrize(
    "case",
    sorted(
        _cases(
            {
                "canary": Path("/x/c"),
                "secret_path": Path("/x/s"),
                "shared_path": Path("/x/t"),
                "secret": "",
                "port": 1,
                "pid": 1,
            }
        )
    ),
)
def test_hostile_case_fails_with_reason(outcome, case):
    iso = outcome["isolation"]
    if case not in outcome["scores"]:
        pytest.skip(f"{case}: isolation {iso.level} lacks the protection this attack needs; not run")
    score = outcome["scores"][case]
    assert score.value == 0.0, f"{case} under {iso.level}: {score}"
    assert score.reason and "0/1 tests passed" in score.reason


@pytest.mark.slow
def test_host_is_unchanged(outcome):
    before, after = outcome["before"], outcome["after"]
    assert after == before
    assert after["canary"] == "intact"
    assert outcome["connections"] == 0


@pytest.mark.slow
def test_no_signal_reached_the_host(outcome, host):
    assert host["signals"] == []


@pytest.mark.slow
def test_no_sandboxed_process_outlives_its_run(outcome):
    if not outcome["isolation"].drops_privileges:
        pytest.skip("sandbox runs as the calling user; its processes cannot be told apart")
    before, after = outcome["leftover"]
    assert before == [] and after == [], (before, after)


@pytest.mark.slow
def test_reasons_name_the_limit(outcome):
    s = outcome["scores"]
    assert "timeout" in s["infinite_loop"].reason or "wall-clock" in s["infinite_loop"].reason
    assert "timeout" in s["sleep_in_c_call"].reason
    assert "wall-clock" in s["alarm_ignored_then_loop"].reason or "CPU" in s["alarm_ignored_then_loop"].reason
    assert "output limit" in s["huge_output"].reason
    assert "MemoryError" in s["memory_bomb"].reason
    assert "SystemExit" in s["sys_exit_in_call"].reason
    assert "failed to load" in s["exit_at_import"].reason
    assert "not a plain value" in s["always_equal_object"].reason
    assert "tampering" in s["forge_results"].reason
    assert "KeyboardInterrupt" in s["keyboard_interrupt"].reason
    assert "Escape" in s["custom_base_exception"].reason
