"""A user's own questions: one JSON object per line.

Each line: ``{"question": str, "answer": str|number, "id": str (optional), "steps": [str]
(optional worked reference)}``; blank lines and lines starting with ``#`` are skipped. A bad line
is an error naming ``file:line`` and the problem.
"""

from __future__ import annotations

import json
from pathlib import Path

from accord.verify.errors import UserError
from accord.verify.tasks import register_task
from accord.verify.tasks.text import TextTask

_KNOWN = {"id", "question", "answer", "steps", "metadata"}


def _read(path: Path, limit: int | None) -> list[TextTask]:
    if not path.is_file():
        raise UserError(f"{path}: no such task file")
    tasks: list[TextTask] = []
    for no, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        where = f"{path}:{no}"
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as exc:
            raise UserError(f"{where}: not valid JSON ({exc.msg})") from None
        if not isinstance(obj, dict):
            raise UserError(f"{where}: each line must be a JSON object with 'question' and 'answer'")
        unknown = set(obj) - _KNOWN
        if unknown:
            raise UserError(f"{where}: unknown field(s) {sorted(unknown)}; allowed: {sorted(_KNOWN)}")
        q, a = obj.get("question"), obj.get("answer")
        if not isinstance(q, str) or not q.strip():
            raise UserError(f"{where}: 'question' must be a non-empty string")
        if isinstance(a, bool) or not isinstance(a, (str, int, float)) or str(a).strip() == "":
            raise UserError(f"{where}: 'answer' must be a non-empty string or a number")
        steps = obj.get("steps", [])
        if not isinstance(steps, list) or not all(isinstance(s, str) for s in steps):
            raise UserError(f"{where}: 'steps' must be a list of strings")
        tid = obj.get("id", f"{path.stem}/{len(tasks)}")
        if not isinstance(tid, str) or not tid:
            raise UserError(f"{where}: 'id' must be a non-empty string")
        if any(t.id == tid for t in tasks):
            raise UserError(f"{where}: duplicate id {tid!r}")
        meta = obj.get("metadata", {})
        if not isinstance(meta, dict):
            raise UserError(f"{where}: 'metadata' must be an object")
        tasks.append(TextTask(tid, q.strip(), str(a).strip(), tuple(steps), {"source": str(path), **meta}))
        if limit is not None and len(tasks) >= limit:
            break
    if not tasks:
        raise UserError(f"{path}: no questions in the file")
    return tasks


@register_task("jsonl")
def jsonl_tasks(path: str, limit: int | None = None, size: int | None = None) -> list[TextTask]:
    """The questions of a JSONL file (the first ``limit`` (or ``size``) of them, if given)."""
    limit = limit if limit is not None else size
    if limit is not None and limit < 1:
        raise ValueError(f"limit must be >= 1, got {limit}")
    return _read(Path(path), limit)
