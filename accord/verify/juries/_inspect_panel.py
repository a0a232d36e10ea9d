"""inspect_ai logs of several models on one task, as a jury panel (``accord jury LOGS...``).

Each log is one member, named by its model (``mockllm/alpha``); a log run with several epochs
gives one member per epoch (``model#2`` for the second); two logs of the same model are told
apart by their file names (``model@file``). A row is a sample id: its input is the problem, its
first target the reference, and each member's answer is the final answer read from its output as
``accord jury collect`` reads a reply ("The answer is ...", "ANSWER: ...", ``\\boxed{..}``, else
the last number of the last line; a one-line output with neither is the answer as written).

Samples are matched by id. A sample that a log lacks, or whose run errored there, is that
member's missing answer (null, as in a jury file), and the report names every such sample; the
same id with another input or another target in two logs is not the same task, and is refused.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from accord.errors import UserError
from accord.verify.io import InspectLog, PanelAnswers, read_inspect_logs
from accord.verify.tasks import extract_answer

WHOLE_OUTPUT = "whole_output"  # how an answer was read: the one-line output itself


def output_answer(text: str | None) -> tuple[str | None, str]:
    """The final answer of a model's output and how it was read: ``stated``, ``last_number``,
    ``whole_output`` (a one-line output that states no answer and has no number), or ``none``."""
    if not text:
        return None, "none"
    lines = [line for line in text.splitlines() if line.strip()]
    answer, how = extract_answer(lines)
    if how == "none" and len(lines) == 1:
        whole = lines[0].strip().rstrip(".").strip()
        return (whole, WHOLE_OUTPUT) if whole else (None, "none")
    return answer, how


@dataclass
class LogPanel:
    """The panel and what reading it found: which log each member came from, missing samples."""

    panel: PanelAnswers
    report: dict = field(default_factory=dict)

    def notes(self) -> list[str]:
        """One line per member with samples it did not answer, for a person to read."""
        out = []
        for member, ids in self.report.get("missing", {}).items():
            out.append(f"{member} has no sample {_ids(ids)} in its log: counted as no answer")
        for member, errors in self.report.get("errored", {}).items():
            out.append(f"{member} errored on sample {_ids(list(errors))}: counted as no answer")
        return out


def _ids(ids: Sequence[str]) -> str:
    shown = ", ".join(repr(i) for i in ids[:5])
    return shown + (f" and {len(ids) - 5} more" if len(ids) > 5 else "")


def _member_names(logs: list[InspectLog]) -> list[list[str]]:
    """Per log, the member name of each epoch (see the module docstring)."""
    count: dict[str, int] = {}
    for log in logs:
        count[log.model] = count.get(log.model, 0) + 1
    names = []
    for log in logs:
        base = log.model if count[log.model] == 1 else f"{log.model}@{log.path.stem}"
        names.append([base if log.epochs == 1 else f"{base}#{e}" for e in range(1, log.epochs + 1)])
    flat = [n for per in names for n in per]
    if len(set(flat)) != len(flat):
        twice = sorted({n for n in flat if flat.count(n) > 1})
        raise UserError(f"two logs give the same member name {twice[0]!r}: rename one of the log files")
    return names


def _same_task(logs: list[InspectLog]) -> dict[str, tuple[str, tuple[str, ...], InspectLog]]:
    """Each sample id's problem and targets, checked to be the same in every log."""
    first: dict[str, tuple[str, tuple[str, ...], InspectLog]] = {}
    for log in logs:
        for s in log.samples:
            seen = first.get(s.id)
            if seen is None:
                first[s.id] = (s.problem, s.targets, log)
                continue
            problem, targets, where = seen
            what = "input" if s.problem != problem else "target" if s.targets != targets else None
            if what:
                raise UserError(
                    f"sample {s.id!r} has another {what} in {log.path} than in {where.path}: "
                    "the logs are not of the same task"
                )
    return first


def read_inspect_panel(paths: Sequence) -> LogPanel:
    """The panel of the inspect logs ``paths`` name (files or folders of logs)."""
    logs = read_inspect_logs(paths)
    names = _member_names(logs)
    members = [n for per in names for n in per]
    if len(members) < 2:
        raise UserError(
            f"{logs[0].path}: one log of one epoch is one member; a jury needs at least 2 "
            "(give the logs of several models on the task, or a folder of them)"
        )
    rows = _same_task(logs)
    ids = list(rows)
    index = {pid: i for i, pid in enumerate(ids)}
    answers: list[list[str | None]] = [[None] * len(members) for _ in ids]
    missing: dict[str, list[str]] = {}
    errored: dict[str, dict[str, str]] = {}
    how_read: dict[str, int] = {}
    column = 0
    sources = {}
    for log, per in zip(logs, names):
        for e, member in enumerate(per, 1):
            sources[member] = str(log.path)
            got = {s.id: s for s in log.samples if s.epoch == e}
            for pid in ids:
                s = got.get(pid)
                if s is None:
                    missing.setdefault(member, []).append(pid)
                    continue
                if s.error is not None:
                    errored.setdefault(member, {})[pid] = s.error
                    continue
                answer, how = output_answer(s.output)
                how_read[how] = how_read.get(how, 0) + 1
                answers[index[pid]][column] = answer
            column += 1
    references = [rows[pid][1][0] if rows[pid][1] else None for pid in ids]
    problems: list[str | None] = [rows[pid][0] or None for pid in ids]
    report = {
        "logs": [
            {"file": str(log.path), "task": log.task, "model": log.model, "status": log.status, "epochs": log.epochs}
            for log in logs
        ],
        "members": sources,
        "answers_read": how_read,
    }
    tasks = sorted({log.task for log in logs})
    if len(tasks) > 1:
        report["tasks"] = tasks  # the same samples under several task names: said, not refused
    if missing:
        report["missing"] = missing
    if errored:
        report["errored"] = errored
    return LogPanel(PanelAnswers(ids, members, answers, references, problems), report)
