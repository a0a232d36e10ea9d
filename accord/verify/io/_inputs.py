"""A file a user names is checked and read here, so every bad file gets the same one-line error.

A missing path, a directory where a file is expected, bytes that are not UTF-8 text (a binary
file), a document above :data:`MAX_DOCUMENT_BYTES`, JSON nested deeper than the parser can follow,
and a CSV field above :data:`CSV_FIELD_LIMIT` each raise :class:`UserError` naming the file, and
the line where there is one. Line readers decode line by line, so large tables still stream. A
UTF-8 byte-order mark (what spreadsheet programs put first) is dropped, so a header reads as shown.
"""

from __future__ import annotations

import csv
import json
from collections.abc import Iterable, Iterator
from pathlib import Path

import yaml

from accord.errors import UserError
from accord.verify.io._paths import check_depth, input_path, reason

BOM = b"\xef\xbb\xbf"
MAX_DOCUMENT_BYTES = 256 * 1024 * 1024  # a whole-document read (JSON, YAML) above this is refused
CSV_FIELD_LIMIT = 1024 * 1024  # one CSV cell; a longer one is a malformed file, not a score


def input_file(path, what: str = "file") -> Path:
    """``path`` as a readable regular file, or a UserError saying why not."""
    p = input_path(path, what)
    try:
        with p.open("rb"):
            pass
    except OSError as exc:
        raise UserError(f"{p}: cannot read ({reason(exc)})") from None
    return p


def decode_text(raw: bytes, where: str) -> str:
    """``raw`` as UTF-8 text, or a UserError naming ``where`` (a NUL byte or an invalid sequence)."""
    if b"\0" in raw:
        raise UserError(f"{where}: binary data (NUL byte), expected UTF-8 text")
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        raise UserError(f"{where}: not UTF-8 text (a binary file?)") from None


def text_lines(path, what: str = "file") -> Iterator[str]:
    """The lines of a UTF-8 text file (line endings kept), decoded one at a time."""
    p = input_file(path, what)
    with p.open("rb") as fh:
        for no, raw in enumerate(fh, 1):
            yield decode_text(raw[len(BOM) :] if no == 1 and raw.startswith(BOM) else raw, f"{p}:{no}")


def read_text(path, what: str = "file", limit: int | None = None) -> str:
    """A whole UTF-8 text file, at most ``limit`` bytes (default :data:`MAX_DOCUMENT_BYTES`)."""
    p = input_file(path, what)
    limit = MAX_DOCUMENT_BYTES if limit is None else limit
    size = p.stat().st_size
    if size > limit:
        raise UserError(f"{p}: {size:,} bytes is above the {limit:,}-byte limit for this {what}")
    raw = p.read_bytes()
    raw = raw[len(BOM) :] if raw.startswith(BOM) else raw
    for no, line in enumerate(raw.split(b"\n"), 1):
        decode_text(line, f"{p}:{no}")
    return raw.decode("utf-8")


def parse_json(text: str, where: str):
    """``json.loads`` whose failures (syntax, nesting deeper than the parser or
    :data:`~accord.verify.io._paths.MAX_JSON_DEPTH`) are one UserError naming ``where``."""
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        raise UserError(f"{where}: not valid JSON ({exc.msg})") from None
    except RecursionError:
        raise UserError(f"{where}: JSON nested too deeply") from None
    check_depth(value, where)
    return value


def parse_yaml(text: str, where: str):
    """``yaml.safe_load`` whose failures (syntax, nesting too deep) are one UserError naming ``where``."""
    try:
        return yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise UserError(f"{where}: not valid YAML ({str(exc).splitlines()[0]})") from None
    except RecursionError:
        raise UserError(f"{where}: YAML nested too deeply") from None


def csv_rows(lines: Iterable[str], where: str, dict_rows: bool = False) -> Iterator:
    """``(line number, row)`` of CSV text; a malformed row or an oversized field names its line."""
    csv.field_size_limit(CSV_FIELD_LIMIT)
    reader = csv.DictReader(lines) if dict_rows else csv.reader(lines)
    while True:
        try:
            row = next(reader)
        except StopIteration:
            return
        except csv.Error as exc:
            raise UserError(f"{where}:{reader.line_num}: malformed CSV ({exc})") from None
        yield reader.line_num, row
