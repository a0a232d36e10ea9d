"""Hostile and careless input through the command line users run: never lost data, never a traceback.

The first part replays each case of docs/errors.md (an output that is the input, read-only and
special folders, symlink loops, undecodable bytes, deep JSON, options that would print a wrong
number) and checks the one-line error. The second part lets hypothesis generate file contents,
paths (missing, a folder, a symlink loop, a dangling link, the output named as the input) and flag
values for every command, and asserts: exit 0 or 1 with a document on stdout, or exit 2 with one
stderr line; no traceback; every input file byte for byte as it was. The last test prints how many
inputs each command was given.
"""

from __future__ import annotations

import collections
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from tracegen import simulate_run

from accord.cli.main import main

EXAMPLES = 12
REPO = Path(__file__).resolve().parents[1]
TRIED: collections.Counter = collections.Counter()
ROOT = os.geteuid() == 0  # chmod does not stop root: as root, the read-only folders are read-only mounts

JURY = (
    b'{"id": 1, "answers": {"a": "1", "b": "1", "c": "2"}, "reference": "1"}\n'
    b'{"id": 2, "answers": {"a": "3", "b": "4", "c": "4"}, "reference": "4"}\n'
)
LABELS = b'{"id": "s1", "problem": "p", "steps": ["a", "b"], "label": 1}\n'
SOLUTIONS = b'{"id": "s1", "problem": "2+2", "steps": ["2 + 2 = 4", "so 4 + 1 = 5"], "label": -1}\n'
REWARDS = (
    b'{"prompt_id": "p", "response_id": "r1", "m1": 0.2, "m2": 0.4, "label": 1}\n'
    b'{"prompt_id": "p", "response_id": "r2", "m1": 0.6, "m2": 0.1, "label": 0}\n'
    b'{"prompt_id": "q", "response_id": "r1", "m1": 0.3, "m2": 0.5, "label": 1}\n'
    b'{"prompt_id": "q", "response_id": "r2", "m1": 0.7, "m2": 0.2, "label": 0}\n'
)
SCORES = b"step,candidate,a,b,c\ns1,c1,0.9,0.8,0.9\ns1,c2,0.1,0.2,0.3\n"
TASKS = b'{"question": "What is 2 + 2?", "answer": "4"}\n'


def _trace() -> bytes:
    with tempfile.TemporaryDirectory() as tmp:
        simulate_run(tmp, n_tasks=1, seed=0, n=2)
        return (Path(tmp) / "trace.jsonl").read_bytes()


TRACE = _trace()


def run(argv, capsys) -> tuple[int, str, str]:
    capsys.readouterr()
    try:
        rc = main([str(a) for a in argv])
    except SystemExit as exc:
        rc = exc.code
    out, err = capsys.readouterr()
    return rc, out, err


def snapshot(folder: Path) -> dict:
    """Every regular file under ``folder`` (not through links) and its bytes."""
    return {p: p.read_bytes() for p in folder.rglob("*") if p.is_file() and not p.is_symlink()}


def assert_clean(command: str, rc, out: str, err: str) -> None:
    assert "Traceback" not in err, err
    if rc == 2:
        lines = err.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith(f"accord {command}"), err
    else:
        assert rc in (0, 1), (rc, err)
        assert out.strip(), f"{command}: exit {rc} without a document"


# --- the cases of docs/errors.md ------------------------------------------------------------


@pytest.fixture()
def work(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    for name, data in (
        ("jury.jsonl", JURY),
        ("labels.jsonl", LABELS),
        ("sol.jsonl", SOLUTIONS),
        ("rewards.jsonl", REWARDS),
        ("scores.csv", SCORES),
    ):
        Path(name).write_bytes(data)
    run_dir = tmp_path / "run"
    run_dir.mkdir()
    (run_dir / "trace.jsonl").write_bytes(TRACE)
    os.symlink("loop", "loop")
    (tmp_path / "adir").mkdir()
    return tmp_path


CASES = [  # argv, files to write first, words the one error line must hold
    (["jury", "jury.jsonl", "--out", "jury.jsonl"], {}, "is the input file"),
    (["labels", "convert", "labels.jsonl", "labels.jsonl", "--to", "prm800k"], {}, "is the input file"),
    (["verify", "sol.jsonl", "--out", "sol.jsonl"], {}, "is the input file"),
    (["ensemble", "rewards.jsonl", "--save-calibration", "rewards.jsonl"], {}, "is the input file"),
    (["jury", "jury.jsonl", "--out", "/proc/v.jsonl"], {}, "cannot write in /proc"),
    (["verify", "sol.jsonl", "--out", "/proc/p.jsonl"], {}, "cannot write in /proc"),
    (["run", "--out", "existing", "--problems", "1"], {"existing": b"x"}, "exists and is not a folder"),
    (["view", "loop"], {}, "symlink loop"),
    (["verify", "loop"], {}, "symlink loop"),
    (["labels", "score", "loop"], {}, "symlink loop"),
    (["jury", "jury.jsonl", "--out", "adir"], {}, "is a folder"),
    (["consensus", "scores.csv", "--output", "adir"], {}, "is a folder"),
    (
        ["jury", "collect", "bad.jsonl", "--member", "a=http://127.0.0.1:9,m", "--out", "c.jsonl"],
        {"bad.jsonl": b'{"question": "\xff"}\n'},
        "bad.jsonl:1: not UTF-8",
    ),
    (["curate", "bad.jsonl"], {"bad.jsonl": b'{"question": "\xff", "answer": "1"}\n'}, "bad.jsonl:1: not UTF-8"),
    (
        ["verify", "sol.jsonl", "--out", "out.jsonl", "--resume"],
        {"out.jsonl": b'{"id": "\xff"}\n'},
        "out.jsonl:1: not UTF-8",
    ),
    (
        ["ensemble", "rewards.jsonl", "--load-calibration", "cal.json"],
        {"cal.json": b"\xff\xfe{\n"},
        "cal.json:1: not UTF-8",
    ),
    (
        ["run", "--tasks-file", "t.jsonl", "--print-config"],
        {"t.jsonl": b'{"question": "\xff"}\n'},
        "t.jsonl:1: not UTF-8",
    ),
    (
        ["verify", "deep.json"],
        {"deep.json": b'[{"id": "a", "steps": ' + b"[" * 500 + b"]" * 500 + b"}]"},
        "nested too deeply",
    ),
    (["jury", "jury.jsonl", "--n-boot", "0"], {}, "at least 40"),
    (["consensus", "scores.csv", "--lambdas", "1e308,1,1"], {}, "1e+308"),
    (["sweep", "run", "--tau", ""], {}, "empty value"),
    (["report", "run", "--replay", "mean_preserving:lambdas=1,,2"], {}, "empty value"),
    (["ensemble", "nan.jsonl"], {"nan.jsonl": REWARDS.replace(b"0.2,", b"NaN,", 1)}, "reward is NaN"),
    (["ensemble", "part.jsonl"], {"part.jsonl": REWARDS.replace(b', "label": 0}', b"}", 1)}, "no 'label'"),
    (["ensemble", "rewards.jsonl", "--models", "m1,zz"], {}, "--models zz"),
    (["verify", "empty.jsonl"], {"empty.jsonl": b""}, "no solutions"),
    (["verify", "none.jsonl"], {"none.jsonl": b'{"id": "a", "problem": "p", "steps": []}\n'}, "has no steps"),
    (["verify", "sol.jsonl", "--format", "text"], {}, "holds JSON"),
    (["consensus", "scores.csv", "--lambdas", "-1,1,1"], {}, "--lambdas: λ must be finite numbers > 0"),
    (["consensus", "scores.csv", "--lambdas", "-x"], {}, "--lambdas=VALUE"),
    (
        ["verify", "long.jsonl"],
        {"long.jsonl": b'{"id": "a", "problem": "p", "steps": ["' + b"1 + 1 = 2. " * 2000 + b'"]}\n'},
        "at most 20,000 characters",
    ),
    (
        ["verify", "many.jsonl"],
        {"many.jsonl": b'{"id": "a", "problem": "p", "steps": [' + b", ".join([b'"1 = 1"'] * 100_001) + b"]}\n"},
        "at most 100,000 per solution",
    ),
    (
        ["jury", "wide.jsonl", "--plan", "3"],
        {
            "wide.jsonl": b'{"id": 1, "answers": {'
            + b", ".join(b'"m%d": "1"' % i for i in range(15))
            + b'}, "reference": "1"}\n'
        },
        "at most 14",
    ),
]


@pytest.mark.parametrize("argv, files, words", CASES, ids=[" ".join(c[0])[:60] for c in CASES])
def test_each_case_is_one_line_and_keeps_the_inputs(work, capsys, argv, files, words):
    for name, data in files.items():
        Path(name).write_bytes(data)
    before = snapshot(work)
    rc, out, err = run(argv, capsys)
    assert rc == 2, (rc, err)
    assert_clean(argv[0], rc, out, err)
    assert words in err, err
    assert snapshot(work) == before  # nothing written, nothing replaced


def test_a_bom_csv_reads_as_its_header_shows(work, capsys):
    Path("bom.csv").write_bytes(b"\xef\xbb\xbf" + SCORES)
    rc, out, err = run(["consensus", "bom.csv", "--json"], capsys)
    assert rc == 0, err


def _can_mount_privately() -> list[str] | None:
    """The ``unshare`` command that gives a child its own mount namespace where it may remount a
    folder read-only (as root, or as root of a new user namespace), or None where neither works."""
    if shutil.which("unshare") is None:
        return None
    for cmd in (["unshare", "-m"], ["unshare", "-rm"]):
        probe = subprocess.run(
            [*cmd, "sh", "-c", "mount --bind / /mnt && mount -o remount,ro,bind /mnt"], capture_output=True
        )
        if probe.returncode == 0:
            return cmd
    return None


UNSHARE = _can_mount_privately() if ROOT else None


def run_with_read_only(argv, folders) -> tuple[int, str, str]:
    """The command in a child whose own view of ``folders`` is a read-only mount: root writes
    through any mode bits, not through a read-only file system. The folders stay writable outside."""
    mounts = " && ".join(f'mount --bind "{f}" "{f}" && mount -o remount,ro,bind "{f}"' for f in folders)
    env = dict(os.environ, PYTHONPATH=str(REPO) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    cmd = [*UNSHARE, "sh", "-c", f'{mounts} && exec "$@"', "sh", sys.executable, "-m", "accord.cli.main", *argv]
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=300)
    return proc.returncode, proc.stdout, proc.stderr


@pytest.mark.skipif(
    ROOT and UNSHARE is None,
    reason="as root, only a read-only mount stops a write, and this machine lets no process make one (unshare -m)",
)
@pytest.mark.parametrize(
    "argv, words",
    [
        (["jury", "jury.jsonl", "--out", "ro/v.jsonl"], "permission denied"),
        (["verify", "sol.jsonl", "--out", "ro/p.jsonl"], "permission denied"),
        (["report", "ro_run"], "--out-dir"),
        (["sweep", "ro_run"], "--out-dir"),
        (["run", "--out", "ro/r", "--problems", "1"], "permission denied"),
    ],
)
def test_read_only_folders_are_refused_before_any_work(work, capsys, argv, words):
    (work / "ro").mkdir()
    shutil.copytree(work / "run", work / "ro_run")
    folders = (work / "ro", work / "ro_run")
    before = snapshot(work)
    if ROOT:  # a read-only mount says so, where mode bits say "permission denied"
        rc, out, err = run_with_read_only(argv, folders)
        words = words.replace("permission denied", "read-only file system")
    else:
        for p in folders:
            p.chmod(0o555)
        try:
            rc, out, err = run(argv, capsys)
        finally:
            for p in folders:
                p.chmod(0o755)
    assert rc == 2 and words in err, err
    assert_clean(argv[0], rc, out, err)
    assert snapshot(work) == before


# --- generated inputs ---------------------------------------------------------------------------


def mutated(valid: bytes):
    """The valid file with a few bytes inserted at one place."""
    return st.tuples(st.integers(0, len(valid)), st.binary(min_size=1, max_size=8)).map(
        lambda t: valid[: t[0]] + t[1] + valid[t[0] :]
    )


PATH_KINDS = ("file", "file", "file", "missing", "folder", "loop", "dangling")
OUT_KINDS = ("new", "new", "input", "folder", "missing-parent", "proc", "under-a-file")
FLAG_TEXT = st.one_of(
    st.integers(-3, 300).map(str),
    st.sampled_from(["", "nan", "inf", "1e308", "-1", "0", "0.5", "1,,2", "x"]),
    st.text(max_size=6),
)

# command -> (input name, valid bytes, argv given (input path, output path, a generated flag value))
COMMANDS = {
    "jury": ("jury.jsonl", JURY, lambda p, o, v: ["jury", p, "--json", "--n-boot", v, "--out", o]),
    "labels convert": (
        "labels.jsonl",
        LABELS,
        lambda p, o, v: ["labels", "convert", p, o, "--to", "prm800k", "--tau", v],
    ),
    "labels score": ("labels.jsonl", LABELS, lambda p, o, v: ["labels", "score", p, "--json", "--eps", v]),
    "verify": (
        "sol.jsonl",
        SOLUTIONS,
        lambda p, o, v: ["verify", p, "--json", "--bootstrap", "0", "--out", o, "--tau", v],
    ),
    "view": ("v.jsonl", JURY, lambda p, o, v: ["view", p, "--out", o]),
    "ensemble": (
        "rewards.jsonl",
        REWARDS,
        lambda p, o, v: ["ensemble", p, "--json", "--n-boot", "40", "--lambdas", v, "--save-calibration", o],
    ),
    "consensus": ("scores.csv", SCORES, lambda p, o, v: ["consensus", p, "--json", "--lambdas", v]),
    "report": (
        "run/trace.jsonl",
        TRACE,
        lambda p, o, v: ["report", Path(p).parent, "--json", "--bootstrap", v, "--out-dir", Path(o).parent / "rep"],
    ),
    "sweep": (
        "run/trace.jsonl",
        TRACE,
        lambda p, o, v: ["sweep", Path(p).parent, "--json", "--tau", v, "--out-dir", Path(o).parent / "sw"],
    ),
    "run --tasks-file": (
        "tasks.jsonl",
        TASKS,
        lambda p, o, v: ["run", "--tasks-file", p, "--print-config", "--problems", v],
    ),
    "check": ("d.txt", b"x = 2 + 3\nx = 5\n", lambda p, o, v: ["check", p, "--json"]),
}


def place(tmp: Path, name: str, content: bytes, kind: str) -> Path:
    path = tmp / "in" / name
    path.parent.mkdir(parents=True, exist_ok=True)
    if kind == "file":
        path.write_bytes(content)
    elif kind == "folder":
        path.mkdir()
    elif kind == "loop":
        os.symlink(path.name, path)
    elif kind == "dangling":
        os.symlink("nowhere", path)
    return path


def output(tmp: Path, path: Path, kind: str) -> Path:
    return {
        "new": tmp / "out" / "o.jsonl",
        "input": path,
        "folder": tmp / "out",
        "missing-parent": tmp / "no" / "o.jsonl",
        "proc": Path("/proc/accord-o.jsonl"),
        "under-a-file": tmp / "out" / "f" / "o.jsonl",
    }[kind]


@pytest.mark.parametrize("command", COMMANDS)
def test_generated_files_paths_and_flags_never_crash_or_touch_the_input(command, capsys):
    name, valid, argv = COMMANDS[command]

    @settings(
        max_examples=EXAMPLES,
        deadline=None,
        database=None,
        suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
    )
    @given(
        content=st.one_of(st.just(valid), mutated(valid), st.binary(max_size=200)),
        kind=st.sampled_from(PATH_KINDS),
        out_kind=st.sampled_from(OUT_KINDS),
        value=FLAG_TEXT,
    )
    def one(content, kind, out_kind, value):
        TRIED[command] += 1
        with tempfile.TemporaryDirectory() as tmp:
            tmp = Path(tmp)
            (tmp / "out").mkdir()
            (tmp / "out" / "f").write_bytes(b"a file")
            path = place(tmp, name, content, kind)
            before = snapshot(tmp / "in")
            rc, out, err = run(argv(str(path), str(output(tmp, path, out_kind)), value), capsys)
            assert_clean(command.split()[0], rc, out, err)
            after = snapshot(tmp / "in")  # new files may appear there (report --out-dir in/run/rep); none changes
            assert {f: after.get(f) for f in before} == before, f"{command}: an input file changed"

    one()


def test_every_command_was_tried():
    """Runs last: the generated inputs each command was given."""
    print("\ngenerated inputs per command: " + ", ".join(f"{c} {TRIED[c]}" for c in COMMANDS))
    for command in COMMANDS:
        assert TRIED[command] >= EXAMPLES, (command, TRIED[command])


def test_a_file_system_failure_no_command_checked_is_worded_as_one_line(tmp_path):
    """The command line's last resort (accord.verify.io.failure): the path and the cause, in words."""
    import errno

    from accord.verify.io import failure

    loop = failure(OSError(errno.ELOOP, "Too many levels of symbolic links", str(tmp_path / "x")))
    assert str(loop) == f"{tmp_path / 'x'}: symlink loop (a link that points back to itself)"
    assert "read-only file system" in str(failure(OSError(errno.EROFS, "Read-only file system", "/mnt/r/out")))
    assert "not UTF-8" in str(failure(UnicodeDecodeError("utf-8", b"\xff", 0, 1, "bad")))
    assert "nested too deeply" in str(failure(RecursionError()))
    assert failure(ValueError("a bug")) is None  # anything else stays a traceback: a bug to fix, not bad input
