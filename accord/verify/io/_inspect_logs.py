"""Reading inspect_ai evaluation logs: what each model was asked, what it answered, the target.

An inspect log (``.eval``, or ``.json`` written with ``--log-format json``) records one task run
by one model: per sample its input, target(s) and the model's output. Logs are read with
inspect_ai's own reader (the ``inspect`` extra), so every log version inspect writes is read the
way inspect reads it. A folder stands for the logs in it (and below it). Whether a path is a log
is told without inspect (its suffix, or the first bytes of a ``.json`` file), so a command can
route its input before importing it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from accord.errors import UserError
from accord.extras import require
from accord.verify.io._paths import input_path

LOG_SUFFIXES = (".eval", ".json")
_JSON_LOG_HEAD = re.compile(rb'^\s*\{\s*"version"\s*:\s*\d+\s*,\s*"status"\s*:')


@dataclass(frozen=True)
class LoggedSample:
    """One sample of a log: ``problem`` is the input's text (the last user message of a chat input)."""

    id: str
    epoch: int
    problem: str
    targets: tuple[str, ...]
    output: str | None  # the model's completion; None when the sample errored or the model said nothing
    error: str | None = None  # the sample's error, first line


@dataclass(frozen=True)
class InspectLog:
    """One log: the task, the model that ran it, its samples in log order."""

    path: Path
    task: str
    model: str
    status: str
    epochs: int
    samples: tuple[LoggedSample, ...]


def is_inspect_log(path) -> bool:
    """Whether ``path`` is an inspect log file (``.eval``, or ``.json`` that starts like one)."""
    p = Path(path)
    if not p.is_file():
        return False
    suffix = p.suffix.lower()
    if suffix == ".eval":
        return True
    if suffix != ".json":
        return False
    try:
        with p.open("rb") as fh:
            head = fh.read(256)
    except OSError:
        return False
    return bool(_JSON_LOG_HEAD.match(head))


def log_paths(paths) -> list[Path]:
    """The log files ``paths`` name: each file as given, each folder's logs (recursively, sorted).

    A folder without logs, or a file that is not a log, is a UserError naming it."""
    out: list[Path] = []
    for given in paths:
        p = input_path(given, "inspect log", folder=True)
        if p.is_dir():
            found = sorted(f for f in p.rglob("*") if f.suffix.lower() in LOG_SUFFIXES and is_inspect_log(f))
            if not found:
                raise UserError(f"{p}: no inspect logs (.eval, or .json logs) in the folder")
            out.extend(found)
        elif is_inspect_log(p):
            out.append(p)
        else:
            raise UserError(f"{p}: not an inspect log (expected a .eval file, a .json log or a folder of them)")
    seen: set[Path] = set()
    unique = []
    for p in out:
        key = p.resolve()
        if key not in seen:
            seen.add(key)
            unique.append(p)
    return unique


def _text(content) -> str:
    """A message's text: a string, or the text parts of a list of content parts."""
    if isinstance(content, str):
        return content
    return "\n".join(getattr(part, "text", "") for part in content if getattr(part, "text", None))


def _problem(sample_input) -> str:
    """The input as text: the string, or the last user message of a chat."""
    if isinstance(sample_input, str):
        return sample_input
    users = [m for m in sample_input if getattr(m, "role", None) == "user"]
    return _text(users[-1].content) if users else ""


def _targets(target) -> tuple[str, ...]:
    if target is None:
        return ()
    if isinstance(target, str):
        return (target,) if target.strip() else ()
    return tuple(str(t) for t in target if str(t).strip())


def _sample(s) -> LoggedSample:
    output = s.output.completion if s.output is not None else ""
    error = None
    if s.error is not None:
        message = str(getattr(s.error, "message", s.error)).strip()
        error = message.splitlines()[0] if message else "error"
    return LoggedSample(
        id=str(s.id),
        epoch=int(s.epoch),
        problem=_problem(s.input),
        targets=_targets(s.target),
        output=output if output and output.strip() and error is None else None,
        error=error,
    )


def read_inspect_log(path) -> InspectLog:
    """One log with its samples (a UserError when it cannot be read or has none)."""
    log_module = require("inspect_ai.log", "reading inspect logs")
    p = input_path(path, "inspect log")
    try:
        log = log_module.read_eval_log(str(p))
    except Exception as exc:  # noqa: BLE001 — a zip, JSON or schema failure of the file: one line
        first = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
        raise UserError(f"{p}: not a readable inspect log ({first[:200]})") from None
    if not log.samples:
        raise UserError(f"{p}: the log has no samples (status {log.status})")
    samples = tuple(_sample(s) for s in log.samples)
    seen: set[tuple[str, int]] = set()
    for s in samples:
        if (s.id, s.epoch) in seen:
            raise UserError(f"{p}: sample {s.id!r} (epoch {s.epoch}) appears more than once")
        seen.add((s.id, s.epoch))
    epochs = max(s.epoch for s in samples)
    return InspectLog(p, str(log.eval.task), str(log.eval.model), str(log.status), epochs, samples)


def read_inspect_logs(paths) -> list[InspectLog]:
    """Every log ``paths`` name (see :func:`log_paths`): files in the order given, a folder's logs
    ordered by model (their file names start with the time they ran), each log once."""
    out: list[InspectLog] = []
    seen: set[Path] = set()
    for given in paths:
        found = [p for p in log_paths([given]) if p.resolve() not in seen]
        seen.update(p.resolve() for p in found)
        logs = [read_inspect_log(p) for p in found]
        out.extend(sorted(logs, key=lambda log: (log.model, str(log.path))) if Path(given).is_dir() else logs)
    return out
