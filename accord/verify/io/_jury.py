"""Reading panel answers for ``accord jury``: one JSON object per line.

``{"id": "p1", "answers": {"model_a": "42", "model_b": "41", ...}, "reference": "42"}``

``answers`` maps member name to answer text (``null`` = no answer); every line names the same
members (a member missing from a line counts as no answer); a list is refused, since the members'
names are what the output reports and a ``--labels`` or ``--prior`` file refers to. ``reference`` (optional) is the
correct answer; it
is needed for accuracies and for the law's estimates. ``problem`` (optional) is the problem's text:
where it asks for a form (factorise, simplify, a closed form) answers are compared in that form.
Bad input is a UserError naming file:line.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path

from accord.errors import UserError
from accord.verify.io._inputs import input_file, text_lines
from accord.verify.io._json_lines import json_objects


@dataclass(frozen=True)
class PanelAnswers:
    ids: list[str]
    members: list[str]
    answers: list[list[str | None]]  # (problems, members)
    references: list[str | None]
    problems: list[str | None] = field(default_factory=list)  # the problems' texts, where given

    @property
    def labelled(self) -> bool:
        return all(r is not None for r in self.references)


def read_panel_answers(path: str | Path) -> PanelAnswers:
    p = input_file(path, "jury file")
    ids: list[str] = []
    rows: list[dict | list] = []
    refs: list[str | None] = []
    problems: list[str | None] = []
    members: list[str] | None = None
    lines: list[int] = []
    seen: dict[str, int] = {}
    for no, obj in json_objects(text_lines(p), str(p), expect="expected an object with an 'answers' field"):
        if "answers" not in obj:
            raise UserError(f"{p}:{no}: expected an object with an 'answers' field")
        ans = obj["answers"]
        if not isinstance(ans, dict) or not ans:
            got = type(ans).__name__ if ans or isinstance(ans, bool) else f"an empty {type(ans).__name__}"
            raise UserError(
                f"{p}:{no}: 'answers' must be a non-empty object mapping member name to answer, "
                f'e.g. {{"model_a": "42", "model_b": "41"}}; got {got}'
            )
        for k, v in ans.items():
            if v is not None and not isinstance(v, (str, int, float)):
                raise UserError(f"{p}:{no}: answer of {k!r} must be text, a number or null")
            if isinstance(v, float) and not math.isfinite(v):
                raise UserError(f"{p}:{no}: answer of {k!r} is {v}, not an answer (use null for none)")
        if members is None:
            members = list(ans)
        else:
            extra = [k for k in ans if k not in members]
            if extra:
                raise UserError(f"{p}:{no}: member(s) {extra} not on the first line (members: {members})")
        ref = obj.get("reference")
        if ref is not None and not isinstance(ref, (str, int, float)):
            raise UserError(f"{p}:{no}: 'reference' must be text or a number")
        if isinstance(ref, float) and not math.isfinite(ref):
            raise UserError(f"{p}:{no}: 'reference' is {ref}, not an answer")
        problem = obj.get("problem")
        if problem is not None and not isinstance(problem, str):
            raise UserError(f"{p}:{no}: 'problem' must be text")
        pid = str(obj.get("id", len(ids) + 1))
        if pid in seen:
            raise UserError(f"{p}:{no}: id {pid!r} already given on line {seen[pid]}; each problem once")
        seen[pid] = no
        ids.append(pid)
        rows.append(ans)
        refs.append(None if ref is None else str(ref))
        problems.append(problem)
        lines.append(no)
    if members is None:
        raise UserError(f"{p}: no problems in the file")
    if len(members) < 2:
        raise UserError(f"{p}: a jury needs at least 2 members, got {members}")
    table = [[None if r.get(m) is None else str(r.get(m)) for m in members] for r in rows]
    return PanelAnswers(ids, members, table, refs, problems)
