"""A user's own questions: one JSON object per line.

Each line: ``{"question": str, "answer": str|number, "id": str (optional), "steps": [str]
(optional worked reference)}``; blank lines and lines starting with ``#`` are skipped. A bad line
is an error naming ``file:line`` and the problem.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from accord.errors import UserError
from accord.verify.io import json_objects, path_kind, text_lines
from accord.verify.tasks._registry import register_task
from accord.verify.tasks._text import TextTask

_KNOWN = {"id", "question", "answer", "steps", "metadata"}


def question_lines(path: Path, known: set[str], required: tuple[str, ...] = ()) -> Iterator[tuple[str, dict, dict]]:
    """Each question line of a JSONL task file, checked: ``(where, the object, TextTask fields)``.

    Shared by every JSONL task format; a format with more fields names them in ``known`` (and in
    ``required`` if they must be there) and reads them from the object.
    """
    if path_kind(path) == "missing":
        raise UserError(f"{path}: no such task file")
    ids: set[str] = set()
    shape = f"each line must be a JSON object with {', '.join(repr(k) for k in (*required, 'question', 'answer'))}"
    for no, obj in json_objects(text_lines(path, "task file"), str(path), expect=shape, comments=True):
        where = f"{path}:{no}"
        unknown = set(obj) - known
        if unknown:
            raise UserError(f"{where}: unknown field(s) {sorted(unknown)}; allowed: {sorted(known)}")
        for key in required:
            if key not in obj:
                raise UserError(f"{where}: missing {key!r}")
        q, a = obj.get("question"), obj.get("answer")
        if not isinstance(q, str) or not q.strip():
            raise UserError(f"{where}: 'question' must be a non-empty string")
        if isinstance(a, bool) or not isinstance(a, (str, int, float)) or str(a).strip() == "":
            raise UserError(f"{where}: 'answer' must be a non-empty string or a number")
        steps = obj.get("steps", [])
        if not isinstance(steps, list) or not all(isinstance(s, str) for s in steps):
            raise UserError(f"{where}: 'steps' must be a list of strings")
        tid = obj.get("id", f"{path.stem}/{len(ids)}")
        if not isinstance(tid, str) or not tid:
            raise UserError(f"{where}: 'id' must be a non-empty string")
        if tid in ids:
            raise UserError(f"{where}: duplicate id {tid!r}")
        ids.add(tid)
        meta = obj.get("metadata", {})
        if not isinstance(meta, dict):
            raise UserError(f"{where}: 'metadata' must be an object")
        yield (
            where,
            obj,
            {
                "id": tid,
                "question": q.strip(),
                "reference": str(a).strip(),
                "worked_steps": tuple(steps),
                "metadata": {"source": str(path), **meta},
            },
        )


def _read(path: Path, limit: int | None) -> list[TextTask]:
    tasks: list[TextTask] = []
    for _, _, fields in question_lines(path, _KNOWN):
        tasks.append(TextTask(**fields))
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
