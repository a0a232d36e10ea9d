"""JSON-lines input: every reader of a user's JSONL file gets the same line-numbered errors."""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from accord.errors import UserError
from accord.verify.io._inputs import parse_json


def json_objects(
    lines: Iterable[str], where: str, expect: str = "expected a JSON object", comments: bool = False
) -> Iterator[tuple[int, dict]]:
    """``(line number, object)`` for each non-blank line (and, with ``comments``, not ``#``-led);
    a line that is not JSON, or not an object, is a UserError naming ``where:line``."""
    for no, line in enumerate(lines, 1):
        if not line.strip() or (comments and line.lstrip().startswith("#")):
            continue
        obj = parse_json(line, f"{where}:{no}")
        if not isinstance(obj, dict):
            raise UserError(f"{where}:{no}: {expect}")
        yield no, obj
