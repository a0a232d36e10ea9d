"""What a person tells ``accord jury``: member accuracies they know, a member they trust, and labels.

The label round trip: ``--ask-labels N --ask-out FILE`` writes the N rows whose labels are worth
most (the few-label jury's active choice, :mod:`accord.consensus_core.jury._ask`), one JSON line
each with the problem, the members' answers and ``"reference": null``. A person fills in the
references they can (and leaves the others null); ``--labels FILE`` reads them back by id, and
with references on some rows the jury learns from them.
"""

from __future__ import annotations

import json
import math
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


def apply_labels(panel: PanelAnswers, path: str | Path) -> tuple[PanelAnswers, int]:
    """The panel with the label file's references on its rows; and how many rows got one."""
    labels = read_labels(path)
    index = {pid: i for i, pid in enumerate(panel.ids)}
    unknown = [pid for pid in labels if pid not in index]
    if unknown:
        raise UserError(f"{path}: id(s) not in the jury file: {', '.join(unknown[:5])}")
    refs = list(panel.references)
    for pid, ref in labels.items():
        old = refs[index[pid]]
        if old is not None and old != ref:
            raise UserError(f"{path}: id {pid!r} has reference {ref!r} but the jury file gives {old!r}")
        refs[index[pid]] = ref
    return PanelAnswers(panel.ids, panel.members, panel.answers, refs, panel.problems), len(labels)


def ask_labels(codes: np.ndarray, count: int, classes, seed: int) -> np.ndarray:
    """Row indices worth labelling most, given the references some rows already have (a file with
    a reference on every row is treated as unlabelled: there its references only measure)."""
    from accord.consensus_core.jury import rows_to_label

    given = classes.has_reference
    if given.all():
        return rows_to_label(codes, count, seed=seed)
    return rows_to_label(codes, count, classes.truth, given, seed)


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
