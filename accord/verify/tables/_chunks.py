"""The one streamed reader of tables: Arrow batches of at most ``chunk_size`` rows with the file line
(or Parquet row) each came from, for CSV, JSONL and Parquet alike.

A layout (score tables, reward files) turns each batch into its own normalised table; what is
read, how rows are numbered, how a block is sized, which cells count as null and how a file pyarrow
refuses gets a one-line error naming its line, is decided here once.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
from pyarrow import csv as pacsv

from accord.errors import UserError
from accord.verify.io import CSV_FIELD_LIMIT, text_lines

CSV_NULLS = ["", "nan", "NaN", "NAN"]
_MIN_BLOCK, _MAX_BLOCK = 1 << 16, 1 << 26


def _block_size(path: Path, chunk_size: int) -> int:
    """A read block holding about ``chunk_size`` rows, judged from the first 64 KiB of the file."""
    with path.open("rb") as fh:
        sample = fh.read(_MIN_BLOCK)
    row_bytes = max(8, len(sample) // max(1, sample.count(b"\n")))
    return max(_MIN_BLOCK, min(_MAX_BLOCK, row_bytes * chunk_size))


def csv_convert_options(
    types: dict[str, pa.DataType], include: list[str] | None = None, nulls: list[str] = CSV_NULLS
) -> pacsv.ConvertOptions:
    """How cells become values: the given column types, ``nulls`` (default :data:`CSV_NULLS`) as
    null, text never null; only the ``include`` columns (default: the typed ones) are read."""
    return pacsv.ConvertOptions(
        column_types=types,
        include_columns=list(types) if include is None else include,
        null_values=nulls,
        strings_can_be_null=False,
    )


def csv_batches(
    path: Path, types: dict[str, pa.DataType], chunk_size: int, locate: Callable[[], None], nulls: list[str] = CSV_NULLS
) -> Iterator[tuple[pa.RecordBatch, np.ndarray]]:
    """``(batch, line numbers)`` of the ``types`` columns of a CSV file (line 1 is the header).

    A file pyarrow refuses, or a text cell longer than :data:`CSV_FIELD_LIMIT` (the in-memory
    reader's limit), is re-read row by row by ``locate``, which raises the error naming the line;
    if it finds nothing, pyarrow's message is raised with the file's name."""
    read = pacsv.ReadOptions(block_size=_block_size(path, chunk_size))
    conv = csv_convert_options(types, nulls=nulls)
    text_cols = [name for name, t in types.items() if pa.types.is_string(t)]
    seen = 0
    try:
        for batch in pacsv.open_csv(path, read_options=read, convert_options=conv):
            for name in text_cols:
                longest = pc.max(pc.utf8_length(batch.column(name))).as_py()
                if longest is not None and longest > CSV_FIELD_LIMIT:
                    raise pa.ArrowInvalid(
                        f"a {name} cell of {longest:,} characters is above the "
                        f"{CSV_FIELD_LIMIT:,}-character field limit"
                    )
            for off in range(0, batch.num_rows, chunk_size):
                b = batch.slice(off, chunk_size)
                yield b, np.arange(seen + 2, seen + 2 + b.num_rows)
                seen += b.num_rows
    except (pa.ArrowInvalid, UnicodeDecodeError) as exc:
        locate()
        raise UserError(f"{path}: {str(exc).splitlines()[0]}") from None


def parquet_batches(path: Path, columns: list[str], chunk_size: int) -> Iterator[tuple[pa.RecordBatch, np.ndarray]]:
    """``(batch, 1-based row numbers)`` of the named columns of a Parquet file, read batch by batch."""
    f = pq.ParquetFile(path, pre_buffer=False, buffer_size=1 << 20)  # pre-buffering reads the whole file
    seen = 0
    for b in f.iter_batches(batch_size=chunk_size, columns=columns):
        yield b, np.arange(seen + 1, seen + 1 + b.num_rows)
        seen += b.num_rows


def jsonl_lines(path: Path, chunk_size: int) -> Iterator[list[tuple[int, str]]]:
    """Lists of at most ``chunk_size`` non-blank ``(line number, text)`` of a JSON-lines file."""
    return in_groups(((no, text) for no, text in enumerate(text_lines(path), 1) if text.strip()), chunk_size)


def in_groups(items, size: int) -> Iterator[list]:
    """Consecutive lists of at most ``size`` items."""
    buf = []
    for item in items:
        buf.append(item)
        if len(buf) == size:
            yield buf
            buf = []
    if buf:
        yield buf
