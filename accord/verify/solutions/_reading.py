"""Read solutions to verify, in the formats people have them.

==============  ==================================================================================
processbench    JSONL or JSON list ``{"id", "problem", "steps": [..], "label"?, "reference"?}``
prm800k         PRM800K's JSONL (the chosen completion of each step; the question's
                ``ground_truth_answer`` is the reference)
mmreason        JSONL ``{"id", "question", "steps", "labels", "reference"?}``
jsonl           JSONL ``{"id", "problem", "solution": "text", "reference"?, "label"?}``: the text is
                split into steps (:mod:`accord.verify.solutions`)
text            a .txt/.md file (one solution) or a folder of them (one solution per file, id = the
                file name); a first paragraph starting ``Problem:`` or ``Question:`` is the problem
inspect         an inspect_ai log (``.eval``, or a ``.json`` log): each sample's output split into
                steps, its input as the problem, its first target as the reference; id ``id#epoch``
                in a log of several epochs
==============  ==================================================================================

The three labelled formats are read by :mod:`accord.verify.labels`; their labels become the
annotated first wrong step (ProcessBench's ``label``) the metrics compare with.
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass
from pathlib import Path

from accord.errors import UserError
from accord.verify.io import (
    input_path,
    is_inspect_log,
    json_objects,
    parse_json,
    read_inspect_log,
    read_text,
    text_lines,
)
from accord.verify.labels import INCORRECT, read_step_labels
from accord.verify.solutions._splitter import split_steps

FORMATS = ("processbench", "prm800k", "mmreason", "jsonl", "text", "inspect")
# Limits checked when the file is read, before any judging (docs/verify.md, "Limits"). The math judges
# carry a solution's context from step to step, so a step costs the same early or late: 100,000 steps
# took 11 minutes of CPU and 1 GiB, most of it every step's record kept for the summary; a longer
# solution is refused at once. A longer step is refused because the judges' parsers grow faster than
# a step's length.
MAX_STEPS_PER_SOLUTION = 100_000
MAX_STEP_CHARS = 20_000
TEXT_SUFFIXES = (".txt", ".md", ".markdown")
_log = logging.getLogger("accord.verify")
_PROBLEM = re.compile(r"^\s*(?:\*\*)?(?:problem|question)(?:\*\*)?\s*[:.]\s*", re.IGNORECASE)


@dataclass(frozen=True)
class Solution:
    """One solution to verify: its steps, and what is known about it."""

    id: str
    problem: str
    steps: tuple[str, ...]
    reference: str | None = None  # the problem's final answer, when given
    first_wrong: int | None = None  # annotated index of the first wrong step (-1: none); None: not annotated


def detect_solution_format(path: Path) -> str:
    """The format of ``path``, from its suffix or its first record."""
    if is_inspect_log(path):
        return "inspect"
    if path.is_dir() or path.suffix.lower() in TEXT_SUFFIXES:
        return "text"
    text = read_text(path, "solutions file")
    first = None
    if text.lstrip().startswith("["):
        data = parse_json(text, str(path))
        first = data[0] if data and isinstance(data[0], dict) else None
    else:
        for _, obj in json_objects(text.splitlines(), str(path), expect="each line must be a JSON object"):
            first = obj
            break
    if first is None:
        raise UserError(f"{path}: no solutions found")
    if isinstance(first.get("solution"), str):
        return "jsonl"
    if isinstance(first.get("label"), dict):
        return "prm800k"
    if "labels" in first and "steps" in first:
        return "mmreason"
    if "steps" in first:
        return "processbench"
    raise UserError(
        f"{path}:1: cannot tell the format (a record needs 'steps' or 'solution'); pass --format ({', '.join(FORMATS)})"
    )


def _first_wrong(labels) -> int | None:
    if all(x is None for x in labels):
        return None
    return next((i for i, x in enumerate(labels) if x == INCORRECT), -1)


def _labelled(path: Path, fmt: str) -> list[Solution]:
    out = []
    for s in read_step_labels(path, fmt):
        ref = s.meta.get("reference")
        out.append(Solution(s.id, s.question, s.steps, str(ref) if ref is not None else None, _first_wrong(s.labels)))
    return out


def _text_solution(ident: str, text: str) -> Solution:
    paragraphs = re.split(r"\n\s*\n", text.strip(), maxsplit=1)
    problem = ""
    if paragraphs and _PROBLEM.match(paragraphs[0]):
        problem = _PROBLEM.sub("", paragraphs[0], count=1).strip()
        text = paragraphs[1] if len(paragraphs) > 1 else ""
    return Solution(ident, problem, tuple(split_steps(text)))


def _read_text_file(p: Path) -> str:
    return read_text(p, "solution text")


def _refuse_json_as_text(path: Path) -> None:
    """--format text on a JSON file would judge its lines of JSON as prose: refused, with the format to use."""
    if path.is_dir() or path.suffix.lower() in TEXT_SUFFIXES:
        return
    head = next((line for line in text_lines(path, "solutions file") if line.strip()), "")
    if head.lstrip().startswith(("{", "[")):
        raise UserError(
            f"{path}: --format text reads prose, but this file holds JSON; "
            f"drop --format (detected: {detect_solution_format(path)}) or name the JSON format"
        )


def _text(path: Path) -> list[Solution]:
    files = sorted(f for f in path.iterdir() if f.suffix.lower() in TEXT_SUFFIXES) if path.is_dir() else [path]
    if not files:
        raise UserError(f"{path}: no .txt or .md files in the folder")
    return [_text_solution(f.stem, _read_text_file(f)) for f in files]


def _jsonl(path: Path) -> list[Solution]:
    out = []
    lines = _read_text_file(path).splitlines()
    for no, obj in json_objects(lines, str(path), expect="each line must be a JSON object"):
        where = f"{path}:{no}"
        if not isinstance(obj.get("solution"), str):
            raise UserError(f"{where}: field 'solution' must be a string")
        ident = obj.get("id", f"{path.stem}:{no}")
        if not isinstance(ident, (str, int)) or isinstance(ident, bool):
            raise UserError(f"{where}: field 'id' must be a string or an integer")
        ref = obj.get("reference")
        if ref is not None and not isinstance(ref, (str, int, float)):
            raise UserError(f"{where}: field 'reference' must be a string or a number")
        steps = tuple(split_steps(obj["solution"]))
        label = obj.get("label")
        if label is not None and (
            not isinstance(label, int) or isinstance(label, bool) or not -1 <= label < len(steps)
        ):
            raise UserError(f"{where}: 'label' must be -1 or a step index in [0, {len(steps)}) of the split solution")
        out.append(
            Solution(
                str(ident),
                str(obj.get("problem", obj.get("question", ""))),
                steps,
                None if ref is None else str(ref),
                label,
            )
        )
    return out


def _inspect_log(path: Path) -> list[Solution]:
    """One log's samples as solutions. A sample that errored or has no output is no solution: it is
    left out and named (a warning on the ``accord.verify`` logger, one line on stderr), never judged
    as one without a wrong step."""
    run = read_inspect_log(path)
    out, skipped = [], []
    for s in run.samples:
        ident = s.id if run.epochs == 1 else f"{s.id}#{s.epoch}"
        steps = tuple(split_steps(s.output)) if s.output is not None else ()
        if not steps:
            skipped.append(f"{ident!r} ({s.error or 'no output'})")
            continue
        out.append(Solution(ident, s.problem, steps, s.targets[0] if s.targets else None))
    if not out:
        raise UserError(f"{run.path}: no sample of the log has an output to verify")
    if skipped:
        shown = ", ".join(skipped[:5]) + (f" and {len(skipped) - 5} more" if len(skipped) > 5 else "")
        _log.warning("%s: %d sample(s) without output left out: %s", run.path, len(skipped), shown)
    return out


def _within_limits(path: Path, s: Solution) -> None:
    if len(s.steps) > MAX_STEPS_PER_SOLUTION:
        raise UserError(
            f"{path}: solution {s.id!r} has {len(s.steps):,} steps; accord verify judges at most "
            f"{MAX_STEPS_PER_SOLUTION:,} per solution (split it into several solutions)"
        )
    long = next((k for k, step in enumerate(s.steps) if len(step) > MAX_STEP_CHARS), None)
    if long is not None:
        raise UserError(
            f"{path}: solution {s.id!r}, step {long}: {len(s.steps[long]):,} characters; accord verify "
            f"judges steps of at most {MAX_STEP_CHARS:,} characters (split the step)"
        )


def read_solutions(path: str | Path, fmt: str | None = None) -> list[Solution]:
    """Every solution in ``path`` (format detected when ``fmt`` is None); ids must be unique."""
    path = input_path(path, "solutions file", folder=True)
    fmt = (fmt or detect_solution_format(path)).lower()
    if fmt not in FORMATS:
        raise UserError(f"unknown solutions format {fmt!r}; choose one of {', '.join(FORMATS)}")
    if path.is_dir() and fmt != "text":
        raise UserError(f"{path}: is a folder; only --format text reads a folder")
    if fmt == "text":
        _refuse_json_as_text(path)
        sols = _text(path)
    elif fmt == "jsonl":
        sols = _jsonl(path)
    elif fmt == "inspect":
        sols = _inspect_log(path)
    else:
        sols = _labelled(path, fmt)
    seen: set[str] = set()
    for s in sols:
        if s.id in seen:
            raise UserError(f"{path}: solution id {s.id!r} appears more than once")
        seen.add(s.id)
        if not s.steps:  # judged, it would count as a solution without a wrong step
            raise UserError(f"{path}: solution {s.id!r} has no steps; nothing to judge (remove it or give its steps)")
        _within_limits(path, s)
    if not sols:
        raise UserError(f"{path}: no solutions found")
    return sols
