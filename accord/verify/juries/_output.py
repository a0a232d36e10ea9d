"""How a jury's decision is written: strict JSON and a flat CSV of the per-row verdicts.

JSON readers other than Python's reject ``NaN`` and ``Infinity``, so every non-finite number
becomes ``null`` before a document or a row is written. The CSV has one row per problem and one
column per scalar field; a member's answer and class get a column each (``answer:<member>``,
``class:<member>``), and a labelled row's out-of-fold result (``held_out``: what the jury answered
without that row's label) two, so a spreadsheet can filter and sort it without parsing nested JSON.
"""

from __future__ import annotations

import csv
import io
import json
import math
from typing import Any

FIXED_COLUMNS = (
    "id",
    "answer",
    "abstained",
    "reason",
    "agreement",
    "confidence",
    "tie",
    "members",
    "labeled",
    "reference",
    "correct",
    "held_out_correct",
    "held_out_confidence",
)


def finite(obj: Any) -> Any:
    """``obj`` with every NaN or infinite float replaced by None (recursively)."""
    if isinstance(obj, float):
        return obj if math.isfinite(obj) else None
    if isinstance(obj, dict):
        return {k: finite(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [finite(v) for v in obj]
    return obj


def strict_json(obj: Any, indent: int | None = None) -> str:
    """JSON that every reader accepts: no NaN or Infinity (they become null)."""
    return json.dumps(finite(obj), indent=indent, allow_nan=False)


def _cell(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return repr(value)
    if isinstance(value, (list, tuple)):
        return ";".join(_cell(v) for v in value)
    return str(value)


def verdicts_csv(verdicts: list[dict], members: list[str]) -> str:
    """The per-row verdicts as CSV text: the fixed columns, then each member's answer, class and
    (with a reference) whether it was right."""
    cols = list(FIXED_COLUMNS)
    cols += [f"answer:{m}" for m in members] + [f"class:{m}" for m in members]
    graded = any("member_correct" in v for v in verdicts)
    if graded:
        cols += [f"correct:{m}" for m in members]
    buf = io.StringIO()
    out = csv.writer(buf, lineterminator="\n")
    out.writerow(cols)
    for v in finite(verdicts):
        held = v.get("held_out") or {}
        flat = {**v, "held_out_correct": held.get("correct"), "held_out_confidence": held.get("confidence")}
        row = [_cell(flat.get(c)) for c in FIXED_COLUMNS]
        row += [_cell(v["answers"].get(m)) for m in members] + [_cell(v["classes"].get(m)) for m in members]
        if graded:
            row += [_cell(v.get("member_correct", {}).get(m)) for m in members]
        out.writerow(row)
    return buf.getvalue()
