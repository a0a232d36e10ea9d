"""What a person tells a jury: member accuracies they know, a member they trust, member costs, and labels.

The label round trip: ``ask_rows`` picks the N rows without a reference whose labels are worth
most (half drawn at random, half the few-label jury's active choice by default,
:mod:`accord.consensus_core.jury._ask`) and ``write_ask_file`` writes them, one JSON line each
with the problem, the members' answers and ``"reference": null``. A person fills in the
references they can (and leaves the others null); ``apply_labels`` puts them on the panel's rows
by id, and the jury learns from every row with a reference. A file whose rows all have one has
nothing to ask; a label that repeats a reference the file already has is counted, not added twice.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from accord.errors import UserError
from accord.verify.io import PanelAnswers, input_file, json_objects, text_lines, write_text_atomic

LABEL_FIELDS = {"id", "reference", "problem", "answers", "why"}


def member_index(name: str, members: list[str], flag: str) -> int:
    if name not in members:
        raise UserError(f"{flag}: unknown member {name!r} (members: {', '.join(members)})")
    return members.index(name)


def parse_prior(text: str, members: list[str]) -> np.ndarray:
    """``a=0.6,b=0.45`` -> accuracies in member order; every member must be named, each in (0, 1)."""
    acc: dict[str, float] = {}
    for part in (p for p in text.split(",") if p.strip()):
        name, sep, value = part.partition("=")
        if not sep:
            raise UserError(f"--prior: expected member=accuracy pairs, got {part!r}")
        j = member_index(name.strip(), members, "--prior")
        try:
            x = float(value)
        except ValueError:
            raise UserError(f"--prior: accuracy of {name.strip()!r} is not a number: {value!r}") from None
        if not (math.isfinite(x) and 0 < x < 1):
            raise UserError(
                f"--prior: accuracy of {name.strip()!r} must lie strictly between 0 and 1, got {value.strip()}"
            )
        acc[members[j]] = x
    missing = [m for m in members if m not in acc]
    if missing:
        raise UserError(f"--prior: give every member an accuracy; missing {', '.join(missing)}")
    return np.array([acc[m] for m in members])


def parse_costs(text: str | None, members: list[str]) -> np.ndarray:
    """``a=3,b=1`` -> member costs in member order (1 for a member not named)."""
    costs = np.ones(len(members))
    if not text:
        return costs
    for part in text.split(","):
        if not part.strip():
            continue
        if "=" not in part:
            raise UserError(f"--costs: expected member=cost pairs, got {part!r}")
        name, value = part.split("=", 1)
        j = member_index(name.strip(), members, "--costs")
        try:
            costs[j] = float(value)
        except ValueError:
            raise UserError(f"--costs: cost of {name.strip()!r} is not a number: {value!r}") from None
    return costs


def read_labels(path: str | Path) -> dict[str, str]:
    """id -> reference from a filled label file (rows left null or blank are skipped)."""
    p = input_file(path, "--labels file")
    out: dict[str, str] = {}
    for no, obj in json_objects(text_lines(p), str(p), expect='expected an object with "id" and "reference"'):
        unknown = set(obj) - LABEL_FIELDS
        if unknown:
            raise UserError(f'{p}:{no}: unknown field(s) {sorted(unknown)}; a label line is {{"id", "reference"}}')
        if "id" not in obj:
            raise UserError(f"{p}:{no}: a label line needs the row's 'id'")
        ref = obj.get("reference")
        if ref is not None and (isinstance(ref, bool) or not isinstance(ref, (str, int, float))):
            raise UserError(f"{p}:{no}: 'reference' must be text, a number or null")
        if isinstance(ref, float) and not math.isfinite(ref):
            raise UserError(f"{p}:{no}: 'reference' is {ref}, not an answer")
        if ref is None or not str(ref).strip():
            continue
        pid = str(obj["id"])
        if pid in out and out[pid] != str(ref).strip():
            raise UserError(f"{p}:{no}: id {pid!r} labelled twice with different references")
        out[pid] = str(ref).strip()
    return out


@dataclass(frozen=True)
class LabelsRead:
    """What a label file added: its labels, those new to the panel, and those it already had."""

    file: str
    labels: int
    new: int
    already: int

    def as_dict(self) -> dict:
        return {"file": self.file, "labels": self.labels, "new": self.new, "already_in_file": self.already}


def apply_labels(panel: PanelAnswers, path: str | Path) -> tuple[PanelAnswers, LabelsRead]:
    """The panel with the label file's references on its rows, and what they added."""
    labels = read_labels(path)
    index = {pid: i for i, pid in enumerate(panel.ids)}
    unknown = [pid for pid in labels if pid not in index]
    if unknown:
        raise UserError(f"{path}: id(s) not in the jury file: {', '.join(unknown[:5])}")
    refs = list(panel.references)
    already = 0
    for pid, ref in labels.items():
        old = refs[index[pid]]
        if old is not None and old.strip() != ref:
            raise UserError(f"{path}: id {pid!r} has reference {ref!r} but the jury file gives {old!r}")
        already += old is not None
        refs[index[pid]] = ref
    read = LabelsRead(str(path), len(labels), len(labels) - already, already)
    return PanelAnswers(panel.ids, panel.members, panel.answers, refs, panel.problems), read


def ask_rows(codes: np.ndarray, count: int, classes, seed: int, choice: str = "mixed", labelled=None) -> np.ndarray:
    """Indices of up to ``count`` rows without a label to label (see the module docstring);
    ``labelled``: the rows that count as labelled (default: those with a reference)."""
    from accord.consensus_core.jury import rows_to_label

    lab = classes.has_reference if labelled is None else labelled
    return rows_to_label(codes, count, classes.truth, lab, seed, choice=choice)


def write_ask_file(path: str | Path, panel: PanelAnswers, rows: np.ndarray) -> None:
    lines = []
    for i in rows:
        line = {"id": panel.ids[i]}
        if panel.problems and panel.problems[i] is not None:
            line["problem"] = panel.problems[i]
        line["answers"] = dict(zip(panel.members, panel.answers[i]))
        line["reference"] = None
        lines.append(json.dumps(line, ensure_ascii=False) + "\n")
    write_text_atomic(path, "".join(lines), "--ask-out")
