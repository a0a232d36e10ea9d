"""Bad files for every command that reads one: exit 2, one stderr line naming the file, no output.

Hand-picked cases (binary, invalid UTF-8, empty, JSON nested 10^5 deep, a 2 MB CSV field, a
directory, a missing file) must be refused; hypothesis-generated ones (random bytes, and a valid
file with bytes inserted) must either succeed or be refused that way, never crash. The closing
test checks how many inputs each command was given and prints the counts.
"""

from __future__ import annotations

import collections
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from tracegen import simulate_run

from accord.cli.main import main

EXAMPLES = 25
TRIED: collections.Counter = collections.Counter()


def recorded_trace() -> bytes:
    """A real run's trace.jsonl (one problem), the valid sample of report and sweep."""
    with tempfile.TemporaryDirectory() as tmp:
        simulate_run(tmp, n_tasks=1, seed=0, n=2)
        return (Path(tmp) / "trace.jsonl").read_bytes()


TRACE = recorded_trace()

CODE_CANDIDATES = (
    b'{"task_id": "inc", "code": "def inc(x):\\n    return x + 1\\n"}\n'
    b'{"task_id": "inc", "code": "def inc(x):\\n    return x\\n"}\n'
)
CODE_TESTS = b'{"task_id": "inc", "entry_point": "inc", "tests": "assert inc(1) == 2\\nassert inc(-1) == 0\\n"}\n'
FIXED = Path(tempfile.mkdtemp(prefix="accord-fuzz-"))  # the other file of a two-file command, always valid
(FIXED / "candidates.jsonl").write_bytes(CODE_CANDIDATES)
(FIXED / "tests.jsonl").write_bytes(CODE_TESTS)

# command -> (file name inside the case folder, a valid file, argv given the file path and an output folder)
COMMANDS = {
    "consensus": (
        "scores.csv",
        b"step,candidate,a,b\ns1,c1,0.9,0.8\ns1,c2,0.1,\n",
        lambda p, out: ["consensus", str(p), "--json"],
    ),
    "consensus --output": (
        "scores.csv",
        b"step,candidate,a,b\ns1,c1,0.9,0.8\ns1,c2,0.1,\n",
        lambda p, out: ["consensus", str(p), "--output", str(out / "o.parquet")],
    ),
    "ensemble": (
        "rewards.jsonl",
        b'{"prompt_id": "p", "response_id": "r1", "m1": 0.2, "m2": 0.4, "label": 1}\n'
        b'{"prompt_id": "p", "response_id": "r2", "m1": 0.6, "m2": 0.1, "label": 0}\n',
        lambda p, out: ["ensemble", str(p), "--json", "--n-boot", "40"],
    ),
    "jury": (
        "jury.jsonl",
        b'{"id": 1, "answers": {"a": "1", "b": "1", "c": "2"}}\n{"id": 2, "answers": {"a": "3", "b": "4", "c": "4"}}\n',
        lambda p, out: ["jury", str(p), "--json", "--n-boot", "40", "--out", str(out / "v.jsonl")],
    ),
    "labels convert": (
        "labels.jsonl",
        b'{"id": "s1", "steps": ["a", "b"], "label": 1}\n',
        lambda p, out: ["labels", "convert", str(p), str(out / "l.jsonl"), "--to", "prm800k"],
    ),
    "labels score": (
        "labels.jsonl",
        b'{"id": "s1", "steps": ["a", "b"], "label": 1}\n',
        lambda p, out: ["labels", "score", str(p), "--json"],
    ),
    "check": ("derivation.txt", b"x = 2 + 3\nx = 5\n", lambda p, out: ["check", str(p), "--json"]),
    "report": ("run/trace.jsonl", TRACE, lambda p, out: ["report", str(p.parent), "--json", "--bootstrap", "100"]),
    "sweep": ("run/trace.jsonl", TRACE, lambda p, out: ["sweep", str(p.parent), "--tau", "0.5"]),
    "code": (
        "candidates.jsonl",
        CODE_CANDIDATES,
        lambda p, out: ["code", str(p), "--tests", str(FIXED / "tests.jsonl"), "--json", "--out", str(out / "c.jsonl")],
    ),
    "code --tests": (
        "tests.jsonl",
        CODE_TESTS,
        lambda p, out: ["code", str(FIXED / "candidates.jsonl"), "--tests", str(p), "--json"],
    ),
    "run --resume": (
        "run/config.yaml",
        b"seed: 0\n",
        lambda p, out: ["run", "--resume", str(p.parent), "--print-config"],
    ),
}

HAND_PICKED = {
    "binary": b"\x00\x01\x02\xff\xfe\x00" * 50,
    "invalid utf-8": b"step,candidate,a,b\ns1,c1,\xff\xfe,0.5\n",
    "empty": b"",
    "deep json": b"[" * 100_000 + b"\n",
    "huge csv field": b"step,candidate,a,b\ns1," + b"x" * 2_000_000 + b",0.5,0.5\n",
    "directory": None,
    "missing": "missing",
}


# a text file of free-form claims may hold brackets or long lines; the streaming CSV reader has no field limit
NOT_BAD = {("check", "deep json"), ("check", "huge csv field"), ("consensus --output", "huge csv field")}


def attempt(command: str, content, capsys) -> tuple[int, str]:
    """Run ``command`` on ``content`` in a fresh folder; check no output was touched; (rc, stderr)."""
    name, _, argv = COMMANDS[command]
    TRIED[command] += 1
    with tempfile.TemporaryDirectory() as tmp:
        case, out = Path(tmp) / "case", Path(tmp) / "out"
        out.mkdir()
        path = case / name
        path.parent.mkdir(parents=True)
        if content is None:
            path.mkdir()
        elif content != "missing":
            path.write_bytes(content)
        capsys.readouterr()
        try:
            rc = main(argv(path, out))
        except SystemExit as exc:  # argparse
            rc = exc.code
        err = capsys.readouterr().err
        if rc == 2:
            assert list(out.iterdir()) == [], f"{command}: output touched on a refused input"
            lines = err.strip().splitlines()
            assert len(lines) == 1, f"{command}: {err!r}"
            assert lines[0].startswith(f"accord {command.split()[0]}"), lines[0]
            assert str(path.parent) in lines[0], f"{command}: the error does not name the file: {lines[0]}"
            assert "Traceback" not in err
        return rc, err


@pytest.mark.parametrize("command", COMMANDS)
def test_the_valid_sample_is_accepted(command, capsys):
    rc, err = attempt(command, COMMANDS[command][1], capsys)
    assert rc in (0, 1), err  # check exits 1 when a line does not hold


@pytest.mark.parametrize("case", HAND_PICKED)
@pytest.mark.parametrize("command", COMMANDS)
def test_hand_picked_bad_files_are_refused(command, case, capsys):
    rc, err = attempt(command, HAND_PICKED[case], capsys)
    if (command, case) in NOT_BAD:
        assert rc in (0, 1, 2), err
        return
    assert rc == 2, f"{command} / {case}: rc {rc}, {err!r}"


def mutated(valid: bytes):
    """The valid file with a few bytes inserted at one place."""
    return st.tuples(st.integers(0, len(valid)), st.binary(min_size=1, max_size=8)).map(
        lambda t: valid[: t[0]] + t[1] + valid[t[0] :]
    )


@pytest.mark.parametrize("command", COMMANDS)
def test_generated_files_succeed_or_are_refused_cleanly(command, capsys):
    valid = COMMANDS[command][1]

    @settings(
        max_examples=EXAMPLES, deadline=None, database=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
    )
    @given(st.one_of(st.binary(max_size=300), mutated(valid)))
    def one(content):
        rc, err = attempt(command, content, capsys)
        assert rc in (0, 1, 2), f"rc {rc}: {err!r}"

    one()


def test_every_command_was_tried():
    """Runs last: every command got its valid sample, each hand-picked case and its generated inputs."""
    print("\ninputs tried per command: " + ", ".join(f"{c} {TRIED[c]}" for c in COMMANDS))
    for command in COMMANDS:
        assert TRIED[command] >= 1 + len(HAND_PICKED) + EXAMPLES, (command, TRIED[command])
