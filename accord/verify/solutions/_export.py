"""``accord verify --csv FILE`` and ``--format csv``: the records flattened to one row per step, for spreadsheets and pandas.

Each row carries the solution (id, problem, prediction, annotation), the step (index, text, label,
rule score, dispersion, reason) and every judge's raw score and reason, so no join with the input
is needed.
"""

from __future__ import annotations

import csv
from pathlib import Path
from typing import Sequence, TextIO

from accord.errors import UserError

SOLUTION_COLUMNS = ("id", "problem", "prediction", "annotated_first_wrong")
STEP_COLUMNS = ("step", "text", "label", "mean", "dispersion", "reason")


def csv_rows(records: Sequence[dict]) -> tuple[list[str], list[dict]]:
    """The header and the rows (one per step) of ``records``."""
    judges = list(dict.fromkeys(j for r in records for j in r.get("judges", [])))
    header = [*SOLUTION_COLUMNS, *STEP_COLUMNS, *(f"score_{j}" for j in judges), *(f"reason_{j}" for j in judges)]
    rows = []
    for r in records:
        for k, st in enumerate(r["steps"]):
            row = {"id": r["id"], "problem": r.get("problem", ""), "prediction": r["prediction"],
                   "annotated_first_wrong": r.get("label", ""), "step": k, "text": st.get("text", ""),
                   "label": st["label"], "mean": _cell(st.get("mean")), "dispersion": _cell(st.get("dispersion")),
                   "reason": st.get("reason") or ""}
            for j in judges:
                row[f"score_{j}"] = _cell(st["scores"].get(j))
                row[f"reason_{j}"] = st["reasons"].get(j) or ""
            rows.append(row)
    return header, rows


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
    header, rows = csv_rows(records)
    w = csv.DictWriter(fh, fieldnames=header)
    w.writeheader()
    w.writerows(rows)
