"""One writer per run folder or output file; outputs killed mid-way are absent or whole, never half.

Processes are real: a holder of the lock is another Python process, kills are SIGKILL, and the
fault points come from the ``ACCORD_FAULT`` hook (accord.verify.io), so each is exact.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pyarrow.parquet as pq
import pytest

from accord.cli.main import main
from accord.errors import UserError
from accord.verify.analysis import read_trace
from accord.verify.io import is_live, lock_path, writer_lock
from accord.verify.loop import TraceWriter, load_resume_state, read_records

ROOT = Path(__file__).resolve().parents[1]


def _env(fault: str | None = None) -> dict:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "OMP_NUM_THREADS": "1"}
    env.pop("ACCORD_FAULT", None)
    if fault:
        env["ACCORD_FAULT"] = fault
    return env


def _python(code: str, fault: str | None = None, **kw) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-c", textwrap.dedent(code)], env=_env(fault), **kw)


def _accord(argv: list[str], fault: str | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "accord.cli.main", *argv],
        check=False,
        env=_env(fault),
        capture_output=True,
        text=True,
        timeout=300,
    )


# ------------------------------------------------------------------ the lock itself
def test_a_second_writer_is_refused_and_a_killed_holder_leaves_no_stale_lock(tmp_path):
    run = tmp_path / "run"
    holder = _python(
        f"""
        import sys
        from accord.verify.io import writer_lock
        with writer_lock({str(run)!r}):
            print("held", flush=True)
            sys.stdin.read()
        """,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout.readline().strip() == "held"
        assert is_live(run) == holder.pid
        with pytest.raises(UserError) as err, writer_lock(run):
            pass
        msg = str(err.value)
        assert str(run) in msg and f"PID {holder.pid}" in msg and "\n" not in msg
    finally:
        holder.send_signal(signal.SIGKILL)
        holder.wait()
    assert lock_path(run).exists()  # a kill -9 leaves the file, but no lock on it
    assert is_live(run) is None
    with writer_lock(run) as path:
        assert is_live(run) == os.getpid() and path == lock_path(run)
    assert not lock_path(run).exists() and is_live(run) is None


def test_a_forked_child_does_not_keep_a_killed_parents_lock(tmp_path):
    target = tmp_path / "out.parquet"
    parent = _python(
        f"""
        import os, signal, sys
        from accord.verify.io import writer_lock
        with writer_lock({str(target)!r}):
            if os.fork() == 0:
                sys.stdin.read()  # the child lives on until the test closes its stdin
                os._exit(0)
            os.kill(os.getpid(), signal.SIGKILL)
        """,
        stdin=subprocess.PIPE,
    )
    try:
        assert parent.wait(timeout=120) == -signal.SIGKILL
        assert is_live(target) is None
        with writer_lock(target):
            pass
    finally:
        parent.stdin.close()


# ------------------------------------------------------------------ records written by two writers
def test_a_trace_written_by_two_writers_at_once_is_refused_by_every_reader(tmp_path):
    run = tmp_path / "run"
    run.mkdir()
    path = run / "trace.jsonl"
    first = TraceWriter(path)
    first.write({"type": "run", "seed": 0})
    second = TraceWriter(path)  # what a second `accord run --resume` did before the lock
    for w in (first, second, first):
        w.write({"type": "note"})
    first.close()
    second.close()
    with pytest.raises(UserError, match=r"trace.jsonl:3: record numbered 1 sits at position 2: two processes"):
        read_records(path)
    with pytest.raises(UserError, match=r"trace.jsonl:3: .*two processes wrote this trace at once"):
        read_trace(path)
    with pytest.raises(UserError, match="two processes"):
        load_resume_state(path)
    assert main(["report", str(run)]) == 2


def test_old_traces_without_ids_still_load_and_resume_continues_their_count(tmp_path):
    path = tmp_path / "trace.jsonl"
    path.write_text('{"type": "run", "seed": 0}\n{"type": "note"}\n')  # written before records had ids
    with TraceWriter(path) as w:
        w.write({"type": "resume"})
    records, _ = read_records(path)
    assert [r.get("seq") for r in records] == [None, None, 2]
    assert records[2]["run_id"] == w.run_id
    with TraceWriter(path) as again:  # a later resume keeps the run id and takes a new writer id
        again.write({"type": "resume"})
    records, _ = read_records(path)
    assert records[3]["run_id"] == w.run_id and records[3]["writer"] != w.writer_id and records[3]["seq"] == 3


def test_a_torn_record_is_cut_and_the_resumed_writer_continues_the_sequence(tmp_path):
    path = tmp_path / "trace.jsonl"
    proc = _python(
        f"""
        from accord.verify.loop import TraceWriter
        w = TraceWriter({str(path)!r})
        for i in range(5):
            w.write({{"type": "note", "i": i, "text": "x" * 40}})
        """,
        fault="trace:3:torn",
    )
    assert proc.wait(timeout=120) == -signal.SIGKILL
    data = path.read_text()
    assert data.count("\n") == 2 and not data.endswith("\n")  # two records and half of the third
    with TraceWriter(path) as w:
        assert "half-written" in w.note
        w.write({"type": "note", "i": 2, "text": "x" * 40})
    records, notes = read_records(path)
    assert notes == [] and [r["i"] for r in records] == [0, 1, 2] and [r["seq"] for r in records] == [0, 1, 2]
    assert len({r["run_id"] for r in records}) == 1 and len({r["writer"] for r in records}) == 2


# ------------------------------------------------------------------ Parquet outputs
def _score_csv(path: Path, steps: int = 40, n: int = 3) -> Path:
    rng = np.random.default_rng(3)
    lines = ["step,candidate,grounding,logic,relevance"]
    for s in range(steps):
        for c in range(n):
            lines.append(f"s{s},c{c}," + ",".join(f"{v:.3f}" for v in rng.random(3)))
    path.write_text("\n".join(lines) + "\n")
    return path


def _reward_csv(path: Path, prompts: int = 40) -> Path:
    rng = np.random.default_rng(4)
    lines = ["prompt_id,response_id,label,rm_a,rm_b,rm_c"]
    for p in range(prompts):
        for r in range(3):
            label = int(rng.random() < 0.4)
            lines.append(f"p{p},r{r},{label}," + ",".join(f"{v:.2f}" for v in label + rng.normal(size=3)))
    path.write_text("\n".join(lines) + "\n")
    return path


COMMANDS = {
    "consensus": (_score_csv, ["--chunk-size", "30"], ["--policy", "mean"]),
    "ensemble": (_reward_csv, ["--chunk-size", "30", "--n-boot", "40", "--json"], ["--rules", "mean"]),
}


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_an_output_killed_mid_way_is_absent_or_the_old_one_then_rerun_equals_an_uninterrupted_one(
    tmp_path, command, capsys
):
    make, flags, other = COMMANDS[command]
    table = make(tmp_path / "in.csv")
    ref, out = tmp_path / "ref.parquet", tmp_path / "out.parquet"
    assert main([command, str(table), "--output", str(ref), *flags]) == 0
    parts = pq.ParquetFile(ref).metadata.num_row_groups
    assert parts >= 3
    capsys.readouterr()
    for kill_at in (1, parts // 2 + 1, parts):  # the first part, mid-way, after the last part
        out.unlink(missing_ok=True)
        res = _accord([command, str(table), "--output", str(out), *flags], fault=f"parquet:{kill_at}")
        assert res.returncode == -signal.SIGKILL, res.stderr[-2000:]
        assert not out.exists()  # never half-written
        assert is_live(out) is None  # and the kill left no lock behind
    # over an existing output of another setting: the old file stays whole until the new one replaces it
    assert main([command, str(table), "--output", str(out), *flags, *other]) == 0
    old = pq.read_table(out)
    res = _accord([command, str(table), "--output", str(out), *flags], fault=f"parquet:{parts // 2 + 1}")
    assert res.returncode == -signal.SIGKILL
    assert pq.read_table(out).equals(old)
    assert main([command, str(table), "--output", str(out), *flags]) == 0
    assert pq.read_table(out).equals(pq.read_table(ref))
    assert (
        not list(out.parent.glob("*.partial"))
        and not list(out.parent.glob(".*.partial"))
        and not lock_path(out).exists()
    )


def test_a_second_output_writer_is_refused_while_the_first_finishes(tmp_path, capsys):
    table = _score_csv(tmp_path / "in.csv")
    ref, out = tmp_path / "ref.parquet", tmp_path / "out.parquet"
    assert main(["consensus", str(table), "--output", str(ref), "--chunk-size", "30"]) == 0
    first = subprocess.Popen(
        [sys.executable, "-m", "accord.cli.main", "consensus", str(table), "--output", str(out), "--chunk-size", "30"],
        env=_env("parquet:1:stop"),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        _, status = os.waitpid(first.pid, os.WUNTRACED)  # stopped by the hook right after its first part
        assert os.WIFSTOPPED(status)
        capsys.readouterr()
        assert main(["consensus", str(table), "--output", str(out), "--chunk-size", "30", "--policy", "mean"]) == 2
        err = capsys.readouterr().err.strip()
        assert err.startswith("accord consensus: error:") and f"PID {first.pid}" in err and len(err.splitlines()) == 1
        assert is_live(out) == first.pid
    finally:
        first.send_signal(signal.SIGCONT)
    stdout, stderr = first.communicate(timeout=300)
    assert first.returncode == 0, stderr[-2000:]
    assert pq.read_table(out).equals(pq.read_table(ref))
    assert is_live(out) is None and not lock_path(out).exists()
    assert f"-> {out}" in stdout  # the first writer printed its summary
