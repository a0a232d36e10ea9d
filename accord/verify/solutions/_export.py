"""``accord verify --csv FILE`` and ``--format csv``: the records flattened to one row per step, for spreadsheets and
pandas.

Each row carries the solution (id, problem, first invalid step, annotated first wrong step), the
step (its number, text, role in the proof, label, rule score, dispersion, reason, why it is uncertain) and every
judge's raw score and reason, so no join with the input is needed. Steps are numbered from 1, as
in the tables and on the page of ``accord view`` (``none``: no invalid step / annotated correct).
"""

from __future__ import annotations

import csv
from collections.abc import Sequence
from pathlib import Path
from typing import TextIO

from accord.errors import UserError

SOLUTION_COLUMNS = ("id", "problem", "first_invalid_step_number", "annotated_first_wrong_step_number")
STEP_COLUMNS = ("step_number", "text", "role", "label", "mean", "dispersion", "reason", "uncertain_reason")


def export_columns(records: Sequence[dict]) -> tuple[list[str], list[dict]]:
    """The header and the rows (one per step) of ``records``."""
    judges = list(dict.fromkeys(j for r in records for j in r.get("judges", [])))
    header = [*SOLUTION_COLUMNS, *STEP_COLUMNS, *(f"score_{j}" for j in judges), *(f"reason_{j}" for j in judges)]
    rows = []
    for r in records:
        for k, st in enumerate(r["steps"]):
            row = {
                "id": r["id"],
                "problem": r.get("problem", ""),
                "first_invalid_step_number": number(r["prediction"]),
                "annotated_first_wrong_step_number": number(r["label"]) if "label" in r else "",
                "step_number": k + 1,
                "text": st.get("text", ""),
                "role": st.get("role", ""),
                "label": st["label"],
                "mean": _cell(st.get("mean")),
                "dispersion": _cell(st.get("dispersion")),
                "reason": st.get("reason") or "",
                "uncertain_reason": st.get("uncertain_reason") or "",
            }
            for j in judges:
                row[f"score_{j}"] = _cell(st["scores"].get(j))
                row[f"reason_{j}"] = st["reasons"].get(j) or ""
            rows.append(row)
    return header, rows


def number(index: int) -> object:
    """A 0-based step index (ProcessBench's, -1: none) as the step number people read (from 1)."""
    return "none" if index < 0 else index + 1


def _cell(x) -> object:
    return "" if x is None else x


def write_csv(path: Path, records: Sequence[dict], option: str = "--csv") -> None:
    """Write the flat export (a missing cell is empty: a judge that could not score)."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with open(path, "w", encoding="utf-8", newline="") as fh:
            write_csv_to(fh, records)
    except OSError as exc:
        raise UserError(f"{option} {path}: cannot write ({exc.strerror or exc})") from None


def write_csv_to(fh: TextIO, records: Sequence[dict]) -> None:
    """The flat export on an open text stream (``--format csv`` without ``--out``: stdout)."""
    header, rows = export_columns(records)
    w = csv.DictWriter(fh, fieldnames=header)
    w.writeheader()
    w.writerows(rows)
