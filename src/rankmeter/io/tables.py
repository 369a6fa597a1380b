"""Columnar inputs: CSV/TSV, Parquet and Arrow IPC (Feather) files, pandas and polars DataFrames, pyarrow Tables.

CSV/TSV: the header is read first, the columns of each role are resolved from it
(:mod:`rankmeter.io.columns`), and those columns are read as **text**, never
type-inferred: ``007`` stays ``007``, ``1.0`` stays ``1.0``, a date stays as
written, two 21-digit ids stay two ids. Scores, grades and ranks are then parsed
with the one number grammar (:func:`~rankmeter.io.columns.number_column`), and a
bad value is reported by file and line.

Typed sources (Parquet, Arrow IPC/Feather, DataFrames, Arrow tables) keep their types until
:func:`~rankmeter.io.columns.id_column` turns ids into text (integers into their
decimal text; float and nested ids are refused).
"""

from __future__ import annotations

import csv as _pycsv
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable, Mapping, Sequence

import numpy as np
import pyarrow as pa

from .._errors import InputError
from .columns import ALIASES, check_unique_names, normalise, resolve
from .source import Input, open_input

__all__ = ["QUERY_NAMES", "ITEM_NAMES", "GRADE_NAMES", "SCORE_NAMES", "RANK_NAMES", "to_arrow", "pick_columns",
           "read_table_file", "CsvText", "parse_csv", "csv_header", "is_frame", "id_like_columns", "read_parquet"]

QUERY_NAMES = ALIASES["query"]
ITEM_NAMES = ALIASES["item"]
GRADE_NAMES = ALIASES["grade"]
SCORE_NAMES = ALIASES["score"]
RANK_NAMES = ALIASES["rank"]
SUBTOPIC_NAMES = ALIASES["subtopic"]

_BOM = b"\xef\xbb\xbf"


def is_frame(obj: Any) -> bool:
    mod = type(obj).__module__
    return isinstance(obj, (pa.Table, pa.RecordBatch)) or mod.startswith("pandas") or mod.startswith("polars")


def to_arrow(obj: Any, source: str = "<table>") -> pa.Table:
    """A pyarrow Table from a pandas/polars DataFrame, a RecordBatch or a Table.

    A repeated column name is an error naming it (pandas allows them; a column must
    be one column).
    """
    if isinstance(obj, pa.Table):
        table = obj
    elif isinstance(obj, pa.RecordBatch):
        table = pa.Table.from_batches([obj])
    else:
        mod = type(obj).__module__
        if mod.startswith("polars"):
            if type(obj).__name__ == "LazyFrame":
                obj = obj.collect()
            table = obj.to_arrow()
        elif mod.startswith("pandas"):
            check_unique_names(list(obj.columns), source)
            try:
                table = pa.Table.from_pandas(obj, preserve_index=False)
            except (pa.ArrowInvalid, pa.ArrowTypeError, pa.ArrowNotImplementedError) as exc:
                raise InputError(f"cannot convert the DataFrame: {exc}", source=source) from None
        else:
            raise InputError(f"not a table: {type(obj).__name__}", source=source)
    check_unique_names(table.column_names, source)
    return table


def pick_columns(
    table: pa.Table,
    wanted: Mapping[str, Sequence[str]],
    given: Mapping[str, str | None],
    source: str,
    optional: Sequence[str] = (),
) -> dict[str, str]:
    """Resolve role -> column name, from explicit names or by detection (:func:`~rankmeter.io.columns.resolve`)."""
    return resolve(table.column_names, {role: given.get(role) for role in wanted}, source=source,
                   optional=optional, aliases=wanted)


# --------------------------------------------------------------------------- CSV / TSV text


def csv_header(head: bytes, sep: str) -> list[str]:
    """The column names of the first non-empty line of CSV/TSV text."""
    text = head[3:] if head.startswith(_BOM) else head
    for raw in re.split(rb"\r\n|\r|\n", text):
        if raw.strip():
            line = raw.decode("utf-8", "replace")
            return next(_pycsv.reader([line], delimiter=sep))
    return []


def id_like_columns(names: Sequence[str], roles: Iterable[str] = ("query", "item", "user")) -> list[str]:
    """The columns whose name is an alias of an id role (read as text)."""
    keys = {normalise(a) for r in roles for a in ALIASES[r]}
    return [n for n in names if normalise(n) in keys]


@dataclass(eq=False)
class CsvText:
    """A CSV/TSV parse: the table and how its rows map to lines."""

    table: pa.Table
    source: str
    first_line: int = 1  # line number of the text's first line in its file
    header: bool = True  # the text's first non-empty line is the header
    _raw: bytes = field(default=b"", repr=False)

    def lines(self) -> np.ndarray:
        from .trec import data_lines

        n = data_lines(_unified(self._raw))
        return (n[1:] if self.header else n) + (self.first_line - 1)

    def line_of(self, row: int) -> tuple[int, str]:
        from .trec import data_lines, line_text

        n = data_lines(_unified(self._raw))
        k = int(n[row + 1] if self.header else n[row])
        return k + self.first_line - 1, line_text(self._raw, k)


def _unified(raw: bytes) -> bytes:
    return raw.replace(b"\r\n", b"\n").replace(b"\r", b"\n") if b"\r" in raw else raw


def parse_csv(data: bytes, sep: str, source: str, *, text: Sequence[str] = (), keep: Sequence[str] | None = None,
              names: Sequence[str] | None = None, first_line: int = 1, numbers: Sequence[str] = ()) -> CsvText:
    """Parse CSV/TSV text; the ``text`` columns are read as strings, exactly as written.

    ``numbers``: columns parsed as float64 straight away when every value reads as a
    number (else they come back as text, for :func:`~rankmeter.io.columns.number_column`
    to name the first bad value). ``names`` given: the text has no header line (a
    block of a longer file) and these are its columns. ``keep``: the columns to return
    (default: all).

    >>> parse_csv(b"qid,doc,score\\n007,1e3,1.0\\n", ",", "r.csv", text=["qid", "doc", "score"]).table.to_pydict()
    {'qid': ['007'], 'doc': ['1e3'], 'score': ['1.0']}
    """
    import pyarrow.csv as pacsv

    raw = data[3:] if first_line == 1 and data.startswith(_BOM) else data
    header = names is None
    if names is None:
        names = csv_header(raw[: 1 << 16] if len(raw) > 1 << 16 else raw, sep)
        check_unique_names(names, source)

    def read(types: dict[str, pa.DataType]) -> pa.Table:
        return pacsv.read_csv(
            pa.BufferReader(raw),
            read_options=pacsv.ReadOptions(column_names=None if header else list(names), block_size=1 << 20),
            parse_options=pacsv.ParseOptions(delimiter=sep, newlines_in_values=False),
            convert_options=pacsv.ConvertOptions(
                column_types=types, include_columns=list(keep) if keep else None, strings_can_be_null=False,
                quoted_strings_can_be_null=False, null_values=[] if numbers else None),
        )

    types = {c: pa.string() for c in text}
    try:
        try:
            table = read({**types, **{c: pa.float64() for c in numbers}})
        except (pa.ArrowInvalid, pa.ArrowTypeError):
            if not numbers:
                raise
            table = read({**types, **{c: pa.string() for c in numbers}})
    except (pa.ArrowInvalid, pa.ArrowTypeError) as exc:
        raise _locate_csv_error(raw, sep, len(names), source, str(exc), header, first_line) from None
    return CsvText(table, source, first_line, header, raw)


def _locate_csv_error(raw: bytes, sep: str, n_fields: int, source: str, message: str, header: bool,
                      first_line: int) -> InputError:
    """A pyarrow CSV error as file:line: the first line with the wrong number of fields or bad bytes."""
    message = message.replace("CSV parse error: ", "").strip().splitlines()[0]
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        n = _unified(raw[: exc.start]).count(b"\n") + 1
        from .trec import line_text

        return InputError(f"not UTF-8 text ({exc.reason} at byte {exc.start})", source=source,
                          line=n + first_line - 1, text=line_text(raw, n))
    seen_header = not header
    for number, line in enumerate(_unified(raw).split(b"\n"), start=first_line):
        if not line:
            continue
        if not seen_header:
            seen_header = True
            continue
        text = line.decode("utf-8", "replace")
        fields = next(_pycsv.reader([text], delimiter=sep))
        if len(fields) != n_fields:
            return InputError(f"expected {n_fields} fields (as the header), found {len(fields)}", source=source,
                              line=number, text=text)
    what = "TSV" if sep == "\t" else "CSV"
    return InputError(f"cannot parse as {what}: {message}", source=source)


def read_parquet(inp: Input, columns: Sequence[str] | None = None) -> pa.Table:
    """A Parquet input (a file, or a stream read whole) as a table."""
    import pyarrow.parquet as pq

    try:
        data = None if inp.plain_file else inp.read_all(text=False)

        def source() -> Any:
            return str(inp.path) if data is None else pa.BufferReader(data)

        # one file: ParquetFile, not read_table, whose pyarrow.dataset imports pandas (0.2 s at start-up);
        # ParquetFile skips a column it lacks, so such a request goes to read_table and its error
        pf = pq.ParquetFile(source(), pre_buffer=False)
        if columns and not set(columns) <= set(pf.schema_arrow.names):
            table = pq.read_table(source(), columns=list(columns), pre_buffer=False)
        else:
            table = pf.read(columns=list(columns) if columns else None)
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError, OSError) as exc:
        raise InputError(f"not a readable Parquet file ({exc})", source=inp.name) from None
    check_unique_names(table.column_names, inp.name)
    return table


def is_arrow(head: bytes) -> bool:
    """Arrow IPC data by its first bytes: the file format (Feather v2), Feather v1, the stream format.
    (The magic is checked with the zero bytes around it, so that a text id such as ``ARROW1`` is text.)

    >>> is_arrow(b"ARROW1\\x00\\x00\\xff\\xff"), is_arrow(b"ARROW1 Q0 d 1 1 t")
    (True, False)
    """
    return head.startswith((b"ARROW1\x00\x00", b"\xff\xff\xff\xff")) or \
        (head.startswith(b"FEA1") and b"\x00" in head[4:64])


TABLE_SUFFIXES = {".parquet": "parquet", ".pq": "parquet", ".feather": "arrow", ".arrow": "arrow", ".ipc": "arrow",
                  ".arrows": "arrow"}


def table_format(inp: Input) -> str | None:
    """``parquet`` or ``arrow`` (Arrow IPC file or stream, Feather v1/v2) by the first bytes or the name, else None."""
    from .source import base_name

    if inp.head.startswith(b"PAR1"):
        return "parquet"
    if is_arrow(inp.head):
        return "arrow"
    name = base_name(inp.name)
    for suffix, fmt in TABLE_SUFFIXES.items():
        if name.endswith(suffix):
            return fmt
    return None


def read_arrow(inp: Input, columns: Sequence[str] | None = None) -> pa.Table:
    """An Arrow IPC input (the file format, i.e. Feather v2; the stream format; Feather v1) as a table.

    A plain file is memory-mapped (uncompressed data is not copied); a stream or a compressed
    file is read whole first (the file format's footer is at its end).
    """
    import pyarrow.ipc as ipc

    try:
        if inp.head.startswith(b"FEA1"):
            import pyarrow.feather as feather

            target: Any = str(inp.path) if inp.plain_file else pa.BufferReader(inp.read_all(text=False))
            table = feather.read_table(target, columns=list(columns) if columns else None)
        else:
            source: Any = pa.memory_map(str(inp.path), "r") if inp.plain_file else \
                pa.BufferReader(inp.read_all(text=False))
            if inp.head.startswith(b"ARROW1"):
                table = ipc.open_file(source).read_all()
            else:
                table = ipc.open_stream(source).read_all()
            if columns:
                table = table.select(list(columns))
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError, pa.ArrowKeyError, OSError, KeyError) as exc:
        raise InputError(f"not a readable Arrow IPC/Feather file ({exc})", source=inp.name) from None
    check_unique_names(table.column_names, inp.name)
    return table


def read_table_file(path: str | Path | Input, sep: str | None = None,
                    text_columns: Callable[[list[str]], Iterable[str]] | None = None) -> pa.Table:
    """Read a CSV/TSV (with a header row), Parquet or Arrow IPC/Feather file, compressed or not, or ``-``.

    Columns named like ids (query, user, item... aliases) or listed by
    ``text_columns(header)`` are read as text, never type-inferred.
    """
    inp = path if isinstance(path, Input) else open_input(path)
    fmt = table_format(inp)
    if fmt == "parquet":
        return read_parquet(inp)
    if fmt == "arrow":
        return read_arrow(inp)
    from .source import base_name

    if sep is None:
        sep = "\t" if base_name(inp.name).endswith((".tsv", ".tab")) else ","
    header = csv_header(inp.head, sep)
    check_unique_names(header, inp.name)
    text = set(id_like_columns(header)) | set(text_columns(header) if text_columns else ())
    return parse_csv(inp.read_all(), sep, inp.name, text=sorted(text)).table
