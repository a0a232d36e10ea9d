"""The results under a folder, each summed up for the index page: kind, date, task, figures, settings.

A result is a run folder (one holding ``trace.jsonl``), an ``accord verify --out`` file or an
``accord jury --out`` file, found up to three folders deep (a run folder's own files are its own).
Each carries, per measure, whether it was right on each task id, and each task's question (or
input) as a short fingerprint, so that two results are compared only on the tasks that are the same
in both: the same id asking the same question.
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from accord.errors import UserError
from accord.verify.analysis import CORRECT_AT, primary_chain, read_summary, read_trace
from accord.verify.io import CONFIG_FILE, TRACE_FILE

MAX_DEPTH = 3


@dataclass
class Result:
    """One result as the index shows it."""

    path: Path
    kind: str  # run, verify or jury
    date: str
    task: str
    problems: int
    headline: float | None  # the figure the index sorts by: primary chain's accuracy, F1 or jury accuracy
    headline_name: str
    figures: dict[str, float | None] = field(default_factory=dict)
    settings: dict[str, str] = field(default_factory=dict)
    outcomes: dict[str, dict[str, int]] = field(default_factory=dict)  # measure -> task id -> 1 right / 0 wrong
    questions: dict[str, str] = field(default_factory=dict)  # task id -> fingerprint of its question (or input)
    snippets: dict[str, str] = field(default_factory=dict)  # task id -> the question's first words, to name it
    accuracy: float | None = None  # the share right (runs, juries); None for a verify output
    f1: float | None = None  # F1 on the first wrong step (an annotated verify output)


SNIPPET = 80


def fingerprint(text) -> str:
    """A task's question as a short key: white space collapsed, so a re-wrapped question is the same."""
    return hashlib.sha1(" ".join(str(text).split()).encode("utf-8")).hexdigest()[:16]


def _questions(pairs) -> tuple[dict[str, str], dict[str, str]]:
    """(id -> fingerprint, id -> first words) of the ``(id, question)`` pairs that have a question."""
    keys, snippets = {}, {}
    for tid, text in pairs:
        if text is None or not str(text).strip():
            continue
        keys[str(tid)] = fingerprint(text)
        words = " ".join(str(text).split())
        snippets[str(tid)] = words if len(words) <= SNIPPET else words[: SNIPPET - 1] + "…"
    return keys, snippets


def _mtime(path: Path) -> str:
    return datetime.fromtimestamp(path.stat().st_mtime, UTC).strftime("%Y-%m-%d %H:%M")


def flatten(value, prefix: str = "") -> dict[str, str]:
    """Nested settings as ``a.b.c: value`` pairs (lists of settings as ``a[0].b``)."""
    if isinstance(value, dict):
        out: dict[str, str] = {}
        for k, v in value.items():
            out.update(flatten(v, f"{prefix}.{k}" if prefix else str(k)))
        return out
    if isinstance(value, list) and any(isinstance(v, (dict, list)) for v in value):
        out = {}
        for i, v in enumerate(value):
            out.update(flatten(v, f"{prefix}[{i}]"))
        return out
    return {prefix or "value": json.dumps(value) if isinstance(value, (list, bool)) or value is None else str(value)}


def _run_record(trace: Path) -> dict:
    with trace.open(encoding="utf-8", errors="replace") as f:
        try:
            first = json.loads(f.readline())
        except ValueError:
            return {}
    return first if isinstance(first, dict) and first.get("type") == "run" else {}


def _run(folder: Path) -> Result:
    import yaml

    trace = read_trace(folder / TRACE_FILE)
    record = _run_record(folder / TRACE_FILE)
    summary = read_summary(folder) or {}
    settings: dict[str, str] = {}
    config = folder / CONFIG_FILE
    task = "–"
    if config.is_file():
        try:
            cfg = yaml.safe_load(config.read_text(encoding="utf-8")) or {}
        except yaml.YAMLError:
            cfg = {}
        if isinstance(cfg, dict):
            settings.update(flatten(cfg))
            t = cfg.get("task")
            task = str(t.get("name")) if isinstance(t, dict) and t.get("name") else str(t or "–")
    for key in ("seed", "judges", "lambdas", "chains"):
        if key in record:
            settings[f"run.{key}"] = json.dumps(record[key])
    if trace.steps:  # what every trace records, with or without config.yaml
        settings["trace.judges"] = json.dumps(list(trace.steps[0].judges))
        settings["trace.lambdas"] = json.dumps(list(trace.steps[0].lambdas))
        settings["trace.candidates per step"] = str(max(r.n for r in trace.steps))
        for c in trace.chains():
            settings[f"trace.chain {c}"] = json.dumps(trace.chain_policy(c), sort_keys=True)
    outcomes = {c: {tid: int(e.correct >= CORRECT_AT) for tid, e in trace.end_of(c).items()} for c in trace.chains()}
    figures = {c: (sum(o.values()) / len(o) if o else None) for c, o in outcomes.items()}
    figures.update({c: v for c, v in (summary.get("accuracy") or {}).items() if isinstance(v, (int, float))})
    primary = primary_chain(trace)
    date = str(record.get("started", ""))[:16].replace("T", " ") or _mtime(folder / TRACE_FILE)
    keys, snippets = _questions((tid, info.question) for tid, info in trace.problems.items())
    acc = figures.get(primary) if primary else None
    return Result(
        folder,
        "run",
        date,
        task,
        len(trace.tasks()),
        acc,
        f"accuracy ({primary})" if primary else "accuracy",
        figures,
        settings,
        outcomes,
        keys,
        snippets,
        accuracy=acc,
    )


def _verify(path: Path, records: list[dict]) -> Result:
    first = records[0]
    settings = {
        k: json.dumps(first[k]) if isinstance(first.get(k), list) else str(first.get(k))
        for k in ("policy", "tau", "eps", "judges", "lambdas")
        if k in first
    }
    labelled = [r for r in records if isinstance(r.get("label"), int)]
    figures: dict[str, float | None] = {"flagged": sum(r.get("prediction", -1) >= 0 for r in records) / len(records)}
    outcomes = {}
    headline, name = figures["flagged"], "share flagged"
    if labelled:
        wrong = [r.get("prediction") == r["label"] for r in labelled if r["label"] >= 0]
        right = [r.get("prediction") == -1 for r in labelled if r["label"] == -1]
        acc_err = sum(wrong) / len(wrong) if wrong else None
        acc_cor = sum(right) / len(right) if right else None
        f1 = (
            2 * acc_err * acc_cor / (acc_err + acc_cor)
            if acc_err is not None and acc_cor is not None and acc_err + acc_cor > 0
            else None
        )
        figures.update({"accuracy on erroneous": acc_err, "accuracy on correct": acc_cor, "F1": f1})
        outcomes["first wrong step"] = {str(r.get("id")): int(r.get("prediction") == r["label"]) for r in labelled}
        headline, name = f1, "F1 (first wrong step)"
    keys, snippets = _questions((r.get("id"), r.get("problem")) for r in records)
    return Result(
        path,
        "verify",
        _mtime(path),
        path.stem,
        len(records),
        headline,
        name,
        figures,
        settings,
        outcomes,
        keys,
        snippets,
        f1=headline if labelled else None,
    )


def _jury(path: Path, records: list[dict]) -> Result:
    members = list(dict.fromkeys(m for r in records for m in (r.get("answers") or {})))
    settings = {"members": json.dumps(members)} if members else {}
    # scored only where the jury did not read the reference (a labelled row taught it)
    labelled = [r for r in records if "correct" in r and not r.get("labeled")]
    figures: dict[str, float | None] = {"abstained": sum(bool(r.get("abstained")) for r in records) / len(records)}
    outcomes = {}
    headline, name = None, "accuracy"
    if labelled:
        figures["accuracy"] = headline = sum(bool(r["correct"]) for r in labelled) / len(labelled)
        outcomes["jury"] = {str(r.get("id")): int(bool(r["correct"])) for r in labelled}
        for m in members:
            hits = {
                str(r.get("id")): int(bool(r["member_correct"][m]))
                for r in labelled
                if m in (r.get("member_correct") or {})
            }
            if hits:
                figures[m] = sum(hits.values()) / len(hits)
                outcomes[m] = hits
    held = [r for r in records if isinstance(r.get("held_out"), dict) and "member_correct" in r]
    if not labelled and held:  # every reference taught the jury: each row as it answered without its label
        name = "accuracy (out-of-fold)"
        outcomes["jury"] = {str(r.get("id")): int(bool(r["held_out"].get("correct"))) for r in held}
        figures["accuracy (out-of-fold)"] = headline = sum(outcomes["jury"].values()) / len(held)
        for m in members:
            hits = {str(r.get("id")): int(bool(r["member_correct"][m])) for r in held if m in r["member_correct"]}
            if hits:
                figures[m] = sum(hits.values()) / len(hits)
                outcomes[m] = hits
    if any(r.get("labeled") for r in records):
        figures["labelled"] = sum(bool(r.get("labeled")) for r in records) / len(records)
    keys, snippets = _questions((r.get("id"), r.get("problem")) for r in records)
    return Result(
        path,
        "jury",
        _mtime(path),
        path.stem,
        len(records),
        headline,
        name,
        figures,
        settings,
        outcomes,
        keys,
        snippets,
        accuracy=headline,
    )


def collect(folder: Path, read_records) -> tuple[list[Result], list[str]]:
    """Every result under ``folder`` and a note per file that looked like one but could not be read.

    ``read_records(path) -> (kind, records)`` reads a JSON-lines file (a UserError if it is none of the kinds).
    """
    results, notes = [], []
    for root, dirs, files in os.walk(folder):
        here = Path(root)
        depth = len(here.relative_to(folder).parts)
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and depth < MAX_DEPTH)
        if TRACE_FILE in files:
            dirs[:] = []
            try:
                results.append(_run(here))
            except UserError as exc:
                notes.append(str(exc))
            continue
        for name in sorted(files):
            if not name.endswith(".jsonl"):
                continue
            try:
                kind, records = read_records(here / name)
            except UserError:
                continue  # another kind of JSON-lines file (labels, tasks): not a result
            if kind == "verify":
                results.append(_verify(here / name, records))
            elif kind == "jury":
                results.append(_jury(here / name, records))
    return results, notes


__all__ = ["collect", "fingerprint", "flatten", "Result"]
