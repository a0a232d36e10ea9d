"""Run one untrusted program and all of its test items in one isolated, resource-limited process.

One process per candidate: the sandbox start-up is paid once, however many tests the candidate
has. The caller enforces the wall-clock limit and the output limit and kills the whole process
group on either; everything the harness reported before a crash or kill is kept.

>>> sb = Sandbox()
>>> res = sb.run("def f(x):\\n    return x + 1\\n", [{"kind": "expr", "expr": "f(1)", "expected": "2"}], "f")
>>> res.items[0].status
'pass'
"""

from __future__ import annotations

import os
import secrets
import selectors
import signal
import subprocess
import tempfile
import threading
import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from accord.adapters.code import _pyast as pyast
from accord.adapters.code._harness import SOURCE as HARNESS
from accord.adapters.code._isolation import Isolation, acquire_uid, detect, release_uid
from accord.adapters.code._limits import Limits

RESULT_LIMIT = 8 << 20  # bytes of result records accepted from one run
_SIGNALS = {
    signal.SIGKILL: "killed (SIGKILL)",
    signal.SIGXCPU: "CPU time limit exceeded (SIGXCPU)",
    signal.SIGSEGV: "crashed (SIGSEGV, e.g. stack overflow)",
    signal.SIGABRT: "aborted (SIGABRT)",
    signal.SIGXFSZ: "file size limit exceeded (SIGXFSZ)",
}


@dataclass(frozen=True)
class ItemResult:
    """The outcome of one test or probe: status is pass, fail, error, timeout, ok or not_run."""

    status: str
    output: str | None = None
    error: str | None = None


@dataclass
class RunResult:
    """Everything one sandboxed run produced; ``reason`` says why the run ended early, if it did."""

    items: list[ItemResult]
    loaded: bool
    completed: bool
    reason: str | None
    returncode: int | None
    output: str = ""
    wall_s: float = 0.0
    isolation: str = ""
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def passed(self) -> int:
        return sum(it.status == "pass" for it in self.items)


class Sandbox:
    """Runs candidates under the strongest isolation available (or the one asked for) with ``limits``."""

    def __init__(self, limits: Limits | None = None, isolation: str = "auto", workers: int | None = None):
        self.limits = limits or Limits()
        self.isolation: Isolation = detect(isolation)
        self.workers = max(1, workers or (os.cpu_count() or 1))

    def describe(self) -> str:
        return f"{self.isolation.level} ({self.isolation.description})"

    def run(
        self, program: str, items: Sequence[dict], entry_point: str | None = None, limits: Limits | None = None
    ) -> RunResult:
        """Load ``program`` in a fresh sandbox and run ``items`` in it (see the harness for their kinds)."""
        lim = limits or self.limits
        iso = self.isolation
        nonce = secrets.token_hex(16)
        start = time.monotonic()
        uid = acquire_uid() if iso.drops_privileges else None
        try:
            result = self._run_as(uid, program, items, entry_point, lim, nonce, start)
        finally:
            if uid is not None:
                if iso.level == "rlimits":  # no pid namespace took the leftovers down with it
                    _kill_uid(iso.python, uid)
                release_uid(uid)
        result.wall_s = time.monotonic() - start
        result.isolation = iso.level
        return result

    def _run_as(self, uid, program, items, entry_point, lim: Limits, nonce: str, start: float) -> RunResult:
        iso = self.isolation
        with tempfile.TemporaryDirectory(prefix="accord-sandbox-") as tmp:
            workdir = Path(tmp)
            if uid is not None and not iso.private_filesystem:  # else only a mount point, never entered
                os.chown(workdir, uid, uid)
            os.chmod(workdir, 0o700)
            argv, cwd = iso.command(workdir, lim.file_mb << 20, uid)
            r_fd, w_fd = os.pipe()
            job = repr(
                {
                    "program": program,
                    "items": list(items),
                    "entry_point": entry_point,
                    "nonce": nonce,
                    "item_timeout": float(lim.item_s),
                    "fd": w_fd,
                }
            ).encode()
            try:
                proc = subprocess.Popen(
                    argv + ["-I", "-S", "-c", HARNESS],
                    cwd=tmp,
                    env=iso.environment(cwd),
                    stdin=subprocess.PIPE,
                    stdout=subprocess.PIPE,
                    stderr=subprocess.STDOUT,
                    pass_fds=(w_fd,),
                    preexec_fn=lim.preexec(uid if uid is not None else os.getuid()),
                    start_new_session=True,
                    close_fds=True,
                )
            finally:
                os.close(w_fd)
            try:
                return self._collect(proc, r_fd, job, nonce, len(items), lim, start)
            finally:
                _kill_group(proc)
                os.close(r_fd)

    def run_many(self, jobs: Sequence[tuple[str, Sequence[dict], str | None]]) -> list[RunResult]:
        """Run several (program, items, entry_point) jobs in parallel, one process each; order kept."""
        if len(jobs) <= 1 or self.workers == 1:
            return [self.run(*j) for j in jobs]
        with ThreadPoolExecutor(max_workers=self.workers) as pool:
            return list(pool.map(lambda j: self.run(*j), jobs))

    def _collect(self, proc, r_fd, job: bytes, nonce: str, n: int, lim: Limits, start: float) -> RunResult:
        writer = threading.Thread(target=_feed, args=(proc.stdin, job), daemon=True)
        writer.start()
        sel = selectors.DefaultSelector()
        sel.register(proc.stdout, selectors.EVENT_READ, "out")
        sel.register(r_fd, selectors.EVENT_READ, "res")
        out, res = bytearray(), bytearray()
        reason = None
        open_streams = 2
        deadline = start + lim.wall_s
        while open_streams:
            left = deadline - time.monotonic()
            if left <= 0:
                reason = f"wall-clock limit of {lim.wall_s:g} s exceeded"
                break
            for key, _ in sel.select(timeout=min(left, 0.5)):
                chunk = os.read(key.fileobj if isinstance(key.fileobj, int) else key.fileobj.fileno(), 65536)
                if not chunk:
                    sel.unregister(key.fileobj)
                    open_streams -= 1
                    continue
                (out if key.data == "out" else res).extend(chunk)
            if len(out) > lim.output_bytes:
                reason = f"output limit of {lim.output_bytes} bytes exceeded"
                break
            if len(res) > RESULT_LIMIT:
                reason = "result records exceed the size limit"
                break
        sel.close()
        if reason is not None:
            _kill_group(proc)
        try:
            rc = proc.wait(timeout=max(1.0, deadline - time.monotonic() + 1.0))
        except subprocess.TimeoutExpired:
            _kill_group(proc)
            rc = proc.wait()
            reason = reason or f"wall-clock limit of {lim.wall_s:g} s exceeded"
        writer.join(timeout=1.0)
        return _parse(res, nonce, n, reason, rc, bytes(out[: lim.output_bytes]).decode("utf-8", "replace"))


def _kill_uid(python: str, uid: int) -> None:
    """Kill every process left running under a run's own uid (kill(-1) as that uid reaches no other)."""
    import shutil

    cmd = [
        shutil.which("setpriv") or "setpriv",
        f"--reuid={uid}",
        f"--regid={uid}",
        "--clear-groups",
        "--",
        python,
        "-I",
        "-S",
        "-c",
        "import os, signal\ntry:\n os.kill(-1, signal.SIGKILL)\nexcept OSError:\n pass",
    ]
    try:
        subprocess.run(cmd, timeout=10, capture_output=True)
    except (OSError, subprocess.TimeoutExpired):
        pass


def _feed(stdin, data: bytes) -> None:
    try:
        stdin.write(data)
        stdin.close()
    except OSError:
        pass


def _kill_group(proc: subprocess.Popen) -> None:
    if proc.poll() is None:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        try:
            proc.wait(timeout=5)
        except subprocess.TimeoutExpired:  # pragma: no cover - unkillable child
            pass
    for stream in (proc.stdin, proc.stdout):
        try:
            if stream:
                stream.close()
        except OSError:
            pass


def _exit_reason(rc: int | None) -> str:
    """Name why the sandboxed process ended; a wrapper (bwrap, unshare) reports its child's fatal
    signal as exit code 128 + signal, so such codes are named as that signal too."""
    if rc is None:
        return "did not exit"
    if rc < 0:
        try:
            sig = signal.Signals(-rc)
        except ValueError:
            return f"killed by signal {-rc}"
        return _SIGNALS.get(sig, f"killed by {sig.name}")
    if 128 < rc < 128 + 65:
        try:
            sig = signal.Signals(rc - 128)
        except ValueError:
            return f"exited with code {rc}"
        return f"{_SIGNALS.get(sig, f'killed by {sig.name}')}, exit code {rc}"
    return f"exited with code {rc}"


def _parse(raw: bytes, nonce: str, n: int, reason: str | None, rc: int | None, output: str) -> RunResult:
    items: list[ItemResult | None] = [None] * n
    loaded = completed = False
    tampered = None
    for line in bytes(raw).decode("utf-8", "replace").splitlines():
        try:
            rec = pyast.literal_eval(line) if len(line) < RESULT_LIMIT else None
        except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
            tampered = tampered or "unreadable record on the result channel"
            continue
        if not isinstance(rec, dict) or rec.get("nonce") != nonce:
            tampered = tampered or "forged record on the result channel"
            continue
        if "load_error" in rec:
            reason = reason or f"program failed to load: {rec['load_error']}"
        elif rec.get("loaded"):
            loaded = True
        elif rec.get("done"):
            completed = True
        elif isinstance(rec.get("i"), int) and 0 <= rec["i"] < n:
            if items[rec["i"]] is not None:
                tampered = tampered or "duplicate record on the result channel"
            items[rec["i"]] = ItemResult(rec.get("status", "error"), rec.get("output"), rec.get("error"))
    if tampered:
        reason = f"harness tampering detected: {tampered}"
        items = [None] * n
        completed = False
    if not completed and reason is None:
        reason = f"sandboxed process {_exit_reason(rc)} before finishing"
    elif not completed and rc is not None and rc != 0 and "wall-clock" not in reason and "output limit" not in reason:
        reason = f"{reason}; process {_exit_reason(rc)}"
    filled = [it if it is not None else ItemResult("not_run", None, reason) for it in items]
    return RunResult(filled, loaded, completed and not tampered, reason if not completed else None, rc, output)
