"""JSON-lines input: every reader of a user's JSONL file gets the same line-numbered errors."""

from __future__ import annotations

import json
from typing import Iterable, Iterator

from accord.errors import UserError


def json_objects(lines: Iterable[str], where: str, expect: str = "expected a JSON object", comments: bool = False) -> Iterator[tuple[int, dict]]:
    """``(line number, object)`` for each non-blank line (and, with ``comments``, not ``#``-led);
    a line that is not JSON, or not an object, is a UserError naming ``where:line``."""
    for no, line in enumerate(lines, 1):
        if not line.strip() or (comments and line.lstrip().startswith("#")):
            continue
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as exc:
            raise UserError(f"{where}:{no}: not valid JSON ({exc.msg})") from None
        if not isinstance(obj, dict):
            raise UserError(f"{where}:{no}: {expect}")
        yield no, obj
