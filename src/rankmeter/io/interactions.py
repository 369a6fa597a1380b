"""Interaction data (user, item, optional rating, optional timestamp) from any usual input.

:func:`read_interactions` is the one loader of user-item interaction logs; the
splitters, the rating metrics and the recommender pipeline all start from it.
It accepts

* a path (``-`` is standard input; pipes, FIFOs and gzip data under any name are
  read whole through :func:`rankmeter.io.source.open_input`): CSV (``.csv``) or TSV (``.tsv``, ``.tab``)
  with a header line,
  Parquet (``.parquet``, ``.pq``, or any file starting with the Parquet magic),
  Arrow IPC/Feather (``.arrow``, ``.feather``), MovieLens ``u.data``-style
  headerless tab-separated ``user item rating timestamp`` files, and
  MovieLens-1M ``ratings.dat``-style ``user::item::rating::timestamp`` files;
  ``.gz``/``.bz2``/``.zst``/``.lz4`` compressed text is decompressed;
* a pandas DataFrame, a polars DataFrame, a pyarrow Table or RecordBatch, or a
  mapping of column name to values.

It returns an :class:`Interactions`: the data as a pyarrow Table with **every
original column kept**, the names of the user, item, rating and timestamp
columns, and the kind of input, so that results can be handed back in the same
kind (pandas in, pandas out; polars in, polars out; arrow, mappings and paths
give arrow) with :func:`to_input_kind`.

Conventions
-----------
* Column names are detected case-insensitively, ignoring ``_``, ``-`` and
  spaces (``userId`` matches ``user_id``), trying the aliases of
  :data:`ALIASES` in order; or they are given explicitly. ``rating=False`` or
  ``timestamp=False`` says "there is no such column" and skips detection.
* A text file has a header line unless every field of its first line is a
  number (or ``header=`` says otherwise). A headerless file names its columns
  ``user, item, rating, timestamp`` by position (2 to 4 columns).
* Ids read from text files are kept as text, exactly as written: ``007`` and
  ``7`` are different users. Ids from Parquet and DataFrames keep their type.
* Missing or empty user or item ids, a non-numeric rating, a missing or
  unparseable timestamp: :class:`~rankmeter.InputError` naming the file and
  line (text files) or the row (in-memory data). Nothing is dropped.

>>> data = read_interactions({"UserID": ["u1", "u1", "u2"], "movieId": [10, 11, 10],
...                           "Rating": [4.0, 3.5, 5.0]})
>>> (data.user, data.item, data.rating, data.timestamp, data.kind, len(data))
('UserID', 'movieId', 'Rating', None, 'arrow', 3)
"""

from __future__ import annotations

import csv as _pycsv
import io as _io
import re
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, cast

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from .._errors import InputError, MissingExtraError
from .columns import ALIASES as _COLUMN_ALIASES

__all__ = ["Interactions", "read_interactions", "to_input_kind", "ALIASES", "InputKind"]

InputKind = Literal["pandas", "polars", "arrow", "path"]

#: Column names recognised for each role, in order of preference. Matching ignores
#: case, ``_``, ``-`` and spaces.
ALIASES: dict[str, tuple[str, ...]] = {
    role: _COLUMN_ALIASES[role] for role in ("user", "item", "rating", "timestamp")
}

_HEADERLESS_NAMES = ("user", "item", "rating", "timestamp")
_PARQUET_SUFFIXES = (".parquet", ".pq", ".parq")
_ARROW_SUFFIXES = (".arrow", ".feather", ".ipc")
_COMPRESSION_SUFFIXES = (".gz", ".bz2", ".zst", ".lz4")


@dataclass(frozen=True, eq=False)
class Interactions:
    """Interaction rows as a pyarrow Table plus the roles of its columns.

    Attributes:
        table: every column of the input, in input order and row order.
        user, item: names of the user and item columns (never null or empty).
        rating: name of the rating column (numeric, no nulls), or None.
        timestamp: name of the timestamp column (integer, float, date, timestamp,
            or ISO-8601 text; no nulls), or None.
        kind: the kind of input, used by :func:`to_input_kind` to hand results back.
        source: the file read (None for in-memory data).
    """

    table: pa.Table
    user: str
    item: str
    rating: str | None = None
    timestamp: str | None = None
    kind: InputKind = "arrow"
    source: str | None = None
    #: pandas index of a DataFrame input (its labels are carried to the results)
    pandas_index: Any = field(default=None, repr=False)
    #: 1-based line of the first data row of a text file (None otherwise)
    first_line: int | None = field(default=None, repr=False)
    #: the text of an input that cannot be read again (stdin, a pipe, gzip), for line lookups
    raw: bytes | None = field(default=None, repr=False)

    def __len__(self) -> int:
        return int(self.table.num_rows)

    @property
    def num_rows(self) -> int:
        return int(self.table.num_rows)

    def column(self, name: str) -> pa.ChunkedArray:
        """A column of the table by name."""
        return self.table.column(name)

    @property
    def time_unit(self) -> str | None:
        """Unit of :meth:`time_values`: ``'s'``, ``'ms'``, ``'us'``, ``'ns'`` since the
        Unix epoch, ``'D'`` (days) for dates, or None for plain numbers."""
        if self.timestamp is None:
            return None
        t = self.table.schema.field(self.timestamp).type
        if pa.types.is_timestamp(t):
            return str(t.unit)
        if pa.types.is_date32(t):
            return "D"
        if pa.types.is_date64(t):
            return "ms"
        if _is_text(t):
            return "ns"
        return None

    def time_values(self) -> np.ndarray:
        """The timestamps as numbers that sort like the times: int64 (integer and
        temporal columns, in :attr:`time_unit`) or float64 (float columns).

        Raises InputError if there is no timestamp column.
        """
        if self.timestamp is None:
            raise InputError(
                "no timestamp column: this needs one (name it timestamp, time, ts, datetime, "
                "date or unix_time, or pass timestamp=<column>); found columns "
                + _names(self.table.column_names),
                source=self.source,
            )
        return _time_numbers(self, self.table.column(self.timestamp))

    def input_error(self, message: str, row: int | None = None) -> InputError:
        """An InputError naming where row ``row`` (0-based, of :attr:`table`) came from:
        file and line for text files, the row (and pandas index label) otherwise."""
        if row is None:
            return InputError(message, source=self.source)
        text = None
        if self.first_line is not None and self.source is not None:
            line, text = _line_of_row(self.raw if self.raw is not None else self.source, self.first_line, row)
            return InputError(message, source=self.source, line=line, text=text)
        where = f"row {row}"
        if self.pandas_index is not None:
            try:
                where += f" (index {self.pandas_index[row]!r})"
            except Exception:  # noqa: BLE001  # pragma: no cover - exotic index (the message goes without it)
                pass
        if self.source is not None:
            return InputError(f"{where}: {message}", source=self.source)
        return InputError(f"{where} of the {_KIND_NAMES[self.kind]}: {message}")


_KIND_NAMES = {
    "pandas": "pandas DataFrame",
    "polars": "polars DataFrame",
    "arrow": "input table",
    "path": "file",
}


def read_interactions(
    source: Any,
    *,
    user: str | None = None,
    item: str | None = None,
    rating: str | Literal[False] | None = None,
    timestamp: str | Literal[False] | None = None,
    sep: str | None = None,
    header: bool | None = None,
) -> Interactions:
    """Load interactions from a path, a DataFrame (pandas, polars), an Arrow table or a mapping.

    Args:
        source: path (str or os.PathLike), pandas/polars DataFrame, pyarrow Table or
            RecordBatch, a mapping ``{column: values}``, or an :class:`Interactions`
            (returned as is, or re-resolved when column names are given).
        user, item, rating, timestamp: column names; None detects them (see
            :data:`ALIASES`); ``False`` (rating, timestamp) means "none".
        sep: field separator of a text file (``","``, ``"\\t"``, ``"::"``, ...);
            None guesses it from the suffix and the first line.
        header: whether a text file's first line is a header; None guesses (a first
            line made only of numbers is data).

    Returns:
        An :class:`Interactions` keeping every input column.

    Raises:
        InputError: unreadable file, missing columns, missing ids, bad ratings or
            timestamps, with file and line where possible.

    >>> import pandas as pd
    >>> df = pd.DataFrame({"user": [1, 1, 2], "item": ["a", "b", "a"], "ts": [3, 1, 2]})
    >>> data = read_interactions(df)
    >>> data.kind, data.timestamp, data.table.column_names
    ('pandas', 'ts', ['user', 'item', 'ts'])
    """
    explicit = {"user": user, "item": item, "rating": rating, "timestamp": timestamp}
    if isinstance(source, Interactions):
        if user is None and item is None and rating is None and timestamp is None:
            return source
        return _resolve(
            source.table, explicit, kind=source.kind, source=source.source,
            pandas_index=source.pandas_index, first_line=source.first_line, raw=source.raw,
        )
    if isinstance(source, (str, Path)) or hasattr(source, "__fspath__"):
        if str(source) == "-" or not _plain_file(Path(source)):  # stdin, a pipe, gzip under any name
            table, first_line, raw, name = _read_stream(str(source), sep=sep, header=header, explicit=explicit)
            return _resolve(table, explicit, kind="path", source=name, first_line=first_line, raw=raw)
        path = Path(source)
        table, first_line = _read_path(path, sep=sep, header=header, explicit=explicit)
        return _resolve(table, explicit, kind="path", source=str(path), first_line=first_line)
    if isinstance(source, pa.Table):
        return _resolve(source, explicit, kind="arrow")
    if isinstance(source, pa.RecordBatch):
        return _resolve(pa.Table.from_batches([source]), explicit, kind="arrow")
    if _is_pandas_frame(source):
        try:
            table = pa.Table.from_pandas(source, preserve_index=False)
        except (pa.ArrowException, TypeError, ValueError) as exc:
            raise InputError(f"cannot convert the pandas DataFrame to Arrow: {exc}") from None
        return _resolve(table, explicit, kind="pandas", pandas_index=source.index)
    if _is_polars_frame(source):
        if type(source).__name__ == "LazyFrame":
            source = source.collect()
        return _resolve(source.to_arrow(), explicit, kind="polars")
    if isinstance(source, Mapping):
        try:
            table = pa.table({str(k): v for k, v in source.items()})
        except (pa.ArrowException, TypeError, ValueError) as exc:
            raise InputError(f"cannot build a table from the mapping: {exc}") from None
        return _resolve(table, explicit, kind="arrow")
    raise InputError(
        "interactions must be a path, a pandas or polars DataFrame, a pyarrow Table or a "
        f"mapping of columns; got {type(source).__module__}.{type(source).__qualname__}"
    )


def to_input_kind(table: pa.Table, like: Interactions | str, *, rows: np.ndarray | None = None) -> Any:
    """Convert an Arrow table back to the kind of input ``like`` came as.

    ``like`` is an :class:`Interactions` or a kind name (``"pandas"``, ``"polars"``,
    ``"arrow"``, ``"path"``; a path gives an Arrow table). For a pandas input,
    ``rows`` (positions of ``table``'s rows in the original input) carries the
    original index labels over; without it the result gets a fresh RangeIndex.

    >>> t = pa.table({"user": [1, 2], "item": [3, 4]})
    >>> type(to_input_kind(t, "pandas")).__name__
    'DataFrame'
    """
    kind = like.kind if isinstance(like, Interactions) else like
    if kind in ("arrow", "path"):
        return table
    if kind == "pandas":
        df = table.to_pandas()
        index = like.pandas_index if isinstance(like, Interactions) else None
        if rows is not None and index is not None:
            df.index = index.take(np.asarray(rows))
        return df
    if kind == "polars":
        try:
            import polars as pl
        except ImportError:  # pragma: no cover - polars came in, so it is installed
            raise MissingExtraError("polars output", "polars", "polars") from None
        return pl.from_arrow(table)
    raise ValueError(f"unknown input kind {kind!r}; expected 'pandas', 'polars', 'arrow' or 'path'")


# --------------------------------------------------------------------------- kinds


def _is_pandas_frame(obj: Any) -> bool:
    pd = sys.modules.get("pandas")  # no pandas import unless pandas is already in use
    return pd is not None and isinstance(obj, pd.DataFrame)


def _is_polars_frame(obj: Any) -> bool:
    pl = sys.modules.get("polars")
    return pl is not None and isinstance(obj, (pl.DataFrame, pl.LazyFrame))


# --------------------------------------------------------------------------- column roles


def _norm(name: str) -> str:
    return re.sub(r"[\s_\-]", "", str(name).lower())


def _names(columns: list[str]) -> str:
    return ", ".join(repr(c) for c in columns) if columns else "(none)"


def _resolve_names(columns: list[str], explicit: dict[str, Any], source: str | None) -> dict[str, str | None]:
    """Roles to columns through the one resolver (:func:`rankmeter.io.columns.resolve`)."""
    from .columns import resolve

    wanted = {role: explicit.get(role) for role in ("user", "item", "timestamp", "rating")
              if explicit.get(role) is not False}
    hint = {role: f"{role}=<column>" for role in wanted}
    found = resolve(columns, {r: (v if v else None) for r, v in wanted.items()}, source=source,
                    optional=("timestamp", "rating"), aliases=ALIASES, hint=hint)
    return {role: found.get(role) for role in ("user", "item", "rating", "timestamp")}


def _resolve(
    table: pa.Table,
    explicit: dict[str, Any],
    *,
    kind: InputKind,
    source: str | None = None,
    pandas_index: Any = None,
    first_line: int | None = None,
    raw: bytes | None = None,
) -> Interactions:
    columns = [str(c) for c in table.column_names]
    if len(set(columns)) != len(columns):
        dup = sorted({c for c in columns if columns.count(c) > 1})
        raise InputError(f"duplicate column names {_names(dup)}", source=source)
    roles = _resolve_names(columns, explicit, source)
    data = Interactions(
        table=table,
        user=roles["user"],  # type: ignore[arg-type]  # resolved above: never None here
        item=roles["item"],  # type: ignore[arg-type]  # resolved above: never None here
        rating=roles["rating"],
        timestamp=roles["timestamp"],
        kind=kind,
        source=source,
        pandas_index=pandas_index,
        first_line=first_line,
        raw=raw,
    )
    for role in ("user", "item"):
        _check_ids(data, getattr(data, role), role)
    if data.rating is not None:
        _check_rating(data, data.rating)
    if data.timestamp is not None:
        _check_timestamp(data, data.timestamp)
    return data


# --------------------------------------------------------------------------- validation


def _is_text(t: pa.DataType) -> bool:
    return bool(pa.types.is_string(t) or pa.types.is_large_string(t) or pa.types.is_string_view(t))


def _first_true(mask: pa.ChunkedArray | pa.Array) -> int | None:
    """Position of the first true value of a boolean (chunked) array, or None."""
    if isinstance(mask, pa.Array):
        mask = pa.chunked_array([mask])
    offset = 0
    for chunk in mask.chunks:
        values = chunk.fill_null(False).to_numpy(zero_copy_only=False)
        hits = np.flatnonzero(values)
        if len(hits):
            return offset + int(hits[0])
        offset += len(chunk)
    return None


def _first_null(col: pa.ChunkedArray) -> int | None:
    if col.null_count == 0:
        return None
    return _first_true(pc.is_null(col))


def _check_ids(data: Interactions, name: str, role: str) -> None:
    col = data.table.column(name)
    t = col.type
    if pa.types.is_dictionary(t):
        t = t.value_type
    if pa.types.is_nested(t) or (pa.types.is_null(t) and len(col) > 0):
        raise data.input_error(f"the {role} column {name!r} has type {col.type}; ids must be text or numbers")
    row = _first_null(col)
    if row is not None:
        raise data.input_error(f"{role} id is missing (column {name!r})", row)
    if _is_text(t) and len(col):
        row = _first_true(pc.equal(col, ""))
        if row is not None:
            raise data.input_error(f"{role} id is empty (column {name!r})", row)
    if pa.types.is_floating(t) and len(col):
        row = _first_true(pc.is_nan(col))
        if row is not None:
            raise data.input_error(f"{role} id is NaN (column {name!r})", row)


def _check_rating(data: Interactions, name: str) -> None:
    col = data.table.column(name)
    t = col.type
    if not (pa.types.is_integer(t) or pa.types.is_floating(t) or pa.types.is_boolean(t)
            or pa.types.is_decimal(t) or (pa.types.is_null(t) and len(col) == 0)):
        row = _first_unparseable(col, pa.float64()) if _is_text(t) else None
        hint = " (pass rating=<column>, or rating=False if there is no rating column)"
        if row is not None:
            raise data.input_error(
                f"rating is not a number in column {name!r}: {col[row].as_py()!r}{hint}", row
            )
        raise data.input_error(f"the rating column {name!r} has type {t}; expected numbers{hint}")
    row = _first_null(col)
    if row is not None:
        raise data.input_error(f"rating is missing (column {name!r})", row)
    if pa.types.is_floating(t) and len(col):
        row = _first_true(pc.is_nan(col))
        if row is not None:
            raise data.input_error(f"rating is NaN (column {name!r})", row)


def _check_timestamp(data: Interactions, name: str) -> None:
    col = data.table.column(name)
    t = col.type
    ok = (pa.types.is_integer(t) or pa.types.is_floating(t) or pa.types.is_timestamp(t)
          or pa.types.is_date(t) or _is_text(t))
    if not ok:
        raise data.input_error(
            f"the timestamp column {name!r} has type {t}; expected numbers, dates, timestamps "
            "or ISO-8601 text (pass timestamp=False if there is no timestamp column)"
        )
    row = _first_null(col)
    if row is not None:
        raise data.input_error(f"timestamp is missing (column {name!r})", row)
    if pa.types.is_floating(t) and len(col):
        row = _first_true(pc.is_nan(col))
        if row is not None:
            raise data.input_error(f"timestamp is NaN (column {name!r})", row)
        _check_no_retyped_integer(data, name, col)
    if _is_text(t):
        _parse_text_times(data, col)


_BIG_INTEGER_TEXT = re.compile(r"(?<![\w.+-])[+-]?[0-9]{19,}(?![\w.])")


def _check_no_retyped_integer(data: Interactions, name: str, col: pa.ChunkedArray) -> None:
    """Refuse a text file's integer timestamp beyond 64 bits, which the CSV reader turned into a float.

    The reader types a column of integers as float when one of them does not fit in
    64 bits, so ``1`` would be written back as ``1.0`` and ``99999999999999999999`` as
    ``1e+20``: a silent change. Floats written as such (``1.5``, ``1e20``) are kept.
    """
    if data.first_line is None or data.source is None:  # a DataFrame's or table's own float column
        return
    values = col.to_numpy()
    suspects = np.flatnonzero(np.abs(values) >= 2.0**63)
    for row in suspects[:100].tolist():
        err = data.input_error("", int(row))
        match = _BIG_INTEGER_TEXT.search(err.text or "")
        digits = match.group(0).lstrip("+-").lstrip("0") if match is not None else ""
        if match is not None and (len(digits) > 19 or not -(2**63) <= int(match.group(0)) < 2**63):
            raise data.input_error(
                f"timestamp {match.group(0)} does not fit in a signed 64-bit integer (column {name!r}); "
                "reading it would turn the column into floats and round it: write it in range, or as a "
                "float (e.g. 1e20) if a rounded value is meant", int(row))


def _first_unparseable(col: pa.ChunkedArray, target: pa.DataType) -> int | None:
    """First row of a text column that does not cast to ``target`` (None if all do)."""
    offset = 0
    for chunk in col.chunks:
        try:
            pc.cast(chunk, target)
        except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
            step = max(1, len(chunk) // 64)
            for start in range(0, len(chunk), step):
                part = chunk.slice(start, step)
                try:
                    pc.cast(part, target)
                except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
                    for j in range(len(part)):
                        try:
                            pc.cast(part.slice(j, 1), target)
                        except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
                            return offset + start + j
            return offset  # pragma: no cover - the chunk failed but no single value did
        offset += len(chunk)
    return None


def _parse_text_times(data: Interactions, col: pa.ChunkedArray) -> pa.ChunkedArray:
    """ISO-8601 text as timestamp[ns, UTC]: naive values are taken as UTC."""
    try:
        return pc.cast(col, pa.timestamp("ns"))
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
        pass
    try:
        return pc.cast(col, pa.timestamp("ns", tz="UTC"))
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
        pass
    row = _first_unparseable(col, pa.timestamp("ns"))
    if row is not None and _first_unparseable(col.slice(row, 1), pa.timestamp("ns", tz="UTC")) is None:
        row = _first_unparseable(col, pa.timestamp("ns", tz="UTC"))
    value = col[row].as_py() if row is not None else None
    raise data.input_error(
        f"timestamp is not an ISO-8601 date or time in column {data.timestamp!r}: {value!r} "
        "(mixing values with and without a zone offset also fails)",
        row,
    )


def _time_numbers(data: Interactions, col: pa.ChunkedArray) -> np.ndarray:
    t = col.type
    if _is_text(t):
        col = _parse_text_times(data, col)
        t = col.type
    if pa.types.is_timestamp(t) or pa.types.is_date64(t):
        col = col.cast(pa.int64())
    elif pa.types.is_date32(t):
        col = col.cast(pa.int32()).cast(pa.int64())
    elif pa.types.is_integer(t):
        if pa.types.is_uint64(t):
            big = pc.max(col).as_py()
            if big is not None and big > np.iinfo(np.int64).max:
                raise data.input_error(f"timestamp {big} does not fit in a signed 64-bit integer")
        if t != pa.int64():
            col = col.cast(pa.int64())
    elif pa.types.is_floating(t):
        if t != pa.float64():
            col = col.cast(pa.float64())
    else:  # pragma: no cover - rejected at load
        raise data.input_error(f"timestamp column has type {t}")
    return _to_numpy(col)


def _to_numpy(col: pa.ChunkedArray) -> np.ndarray:
    if col.num_chunks == 1:
        return cast(np.ndarray, col.chunk(0).to_numpy(zero_copy_only=False))
    return cast(np.ndarray, col.to_numpy())


# --------------------------------------------------------------------------- files


def _plain_file(path: Path) -> bool:
    """A regular file that is neither compressed under another name nor refused by its first bytes (read by its
    path)."""
    import stat

    try:
        st = path.stat()
    except OSError:
        return True  # the path reader reports it
    if not stat.S_ISREG(st.st_mode):
        return stat.S_ISDIR(st.st_mode)  # a Parquet dataset folder is read by its path
    if path.name.lower().endswith(_COMPRESSION_SUFFIXES):
        return True
    from .source import _codec_of, refusal

    try:
        with open(path, "rb") as fh:
            magic = fh.read(1 << 12)
    except OSError:
        return True
    # compressed under any name (gzip, bz2, xz, zstd), or content refused by name (an archive, UTF-16...):
    # read through open_input, which decompresses or names what it refuses
    return _codec_of(magic) is None and refusal(magic) is None


def _read_stream(name: str, *, sep: str | None, header: bool | None,
                 explicit: dict[str, Any]) -> tuple[pa.Table, int | None, bytes | None, str]:
    """Standard input, a pipe or FIFO, or gzip data: read whole through :func:`rankmeter.io.source.open_input`."""
    from .source import base_name, open_input

    inp = open_input(name)
    if inp.restartable:
        raw = inp.read_all()
    else:  # a stream: checked as it arrives, its text on disk until its end (memory: a block while it lasts)
        from .streamed import read_stream_checked

        raw = read_stream_checked(inp)
    base = base_name(inp.name)
    if raw[:4] == b"PAR1":
        import pyarrow.parquet as pq

        try:
            return pq.read_table(pa.BufferReader(raw)), None, None, inp.name
        except (pa.ArrowException, OSError) as exc:
            raise InputError(f"not a readable Parquet file ({exc})", source=inp.name) from None
    if raw[:6] == b"ARROW1":
        import pyarrow.feather as feather

        try:
            return feather.read_table(pa.BufferReader(raw)), None, None, inp.name
        except (pa.ArrowException, OSError) as exc:
            raise InputError(f"not a readable Arrow IPC/Feather file ({exc})", source=inp.name) from None
    table, first_line = _read_text(Path(base or "stdin"), sep=sep, header=header, explicit=explicit, raw=raw,
                                   source=inp.name)
    return table, first_line, raw, inp.name


def _read_path(path: Path, *, sep: str | None, header: bool | None,
               explicit: dict[str, Any]) -> tuple[pa.Table, int | None]:
    source = str(path)
    if not path.exists():
        raise InputError("no such file", source=source)
    name = path.name.lower()
    if path.is_dir():
        return _read_parquet(path), None
    try:
        with open(path, "rb") as fh:
            magic = fh.read(4)
    except OSError as exc:
        raise InputError(f"cannot read the file: {exc.strerror or exc}", source=source) from None
    if name.endswith(_PARQUET_SUFFIXES) or magic == b"PAR1":
        return _read_parquet(path), None
    if name.endswith(_ARROW_SUFFIXES) or magic == b"ARRO":
        try:
            import pyarrow.feather as feather

            return feather.read_table(source), None
        except (pa.ArrowException, OSError) as exc:
            raise InputError(f"not a readable Arrow IPC/Feather file ({exc})", source=source) from None
    return _read_text(path, sep=sep, header=header, explicit=explicit)


def _read_parquet(path: Path) -> pa.Table:
    import pyarrow.parquet as pq

    try:
        # pre_buffer=False: local files read as fast and with about half the transient memory
        table = pq.read_table(str(path), pre_buffer=False)
    except (pa.ArrowException, OSError) as exc:
        raise InputError(f"not a readable Parquet file ({exc})", source=str(path)) from None
    pa.default_memory_pool().release_unused()  # hand the decoding buffers back to the OS
    return table


def _open_text(path: str | bytes) -> _io.TextIOWrapper:
    stream = _io.BytesIO(path) if isinstance(path, bytes) else pa.input_stream(path, compression="detect")
    return _io.TextIOWrapper(stream, encoding="utf-8", errors="replace", newline="")


def _first_lines(path: str | bytes, n: int) -> list[tuple[int, str]]:
    """The first ``n`` non-empty lines with their 1-based line numbers."""
    out: list[tuple[int, str]] = []
    try:
        with _open_text(path) as fh:
            for number, line in enumerate(fh, start=1):
                line = line.rstrip("\r\n")
                if number == 1:
                    line = line.lstrip("\ufeff")
                if line.strip():
                    out.append((number, line))
                    if len(out) >= n:
                        break
    except (OSError, pa.ArrowException) as exc:
        raise InputError(f"cannot read the file: {exc}", source=path if isinstance(path, str) else None) from None
    return out


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return text.strip().lower() not in ("nan", "inf", "-inf", "+inf", "infinity", "-infinity")


def _guess_sep(name: str, first: str) -> str:
    base = name
    for suffix in _COMPRESSION_SUFFIXES:
        if base.endswith(suffix):
            base = base[: -len(suffix)]
    if "::" in first:
        return "::"
    if base.endswith(".csv"):
        return ","
    if base.endswith((".tsv", ".tab")):
        return "\t"
    for candidate in ("\t", ",", ";", "|"):
        if candidate in first:
            return candidate
    if len(first.split()) > 1:
        return " "
    return ","


def _split_fields(line: str, sep: str) -> list[str]:
    if sep == "::":
        return line.split("::")
    return next(_pycsv.reader([line], delimiter=sep))


def _read_text(path: Path, *, sep: str | None, header: bool | None, explicit: dict[str, Any],
               raw: bytes | None = None, source: str | None = None) -> tuple[pa.Table, int | None]:
    import pyarrow.csv as pacsv

    source = source or str(path)
    where: str | bytes = raw if raw is not None else source  # what to read (again)
    head = _first_lines(where, 1)
    if not head:
        raise InputError("the file is empty", source=source)
    first_number, first = head[0]
    sep = sep if sep is not None else _guess_sep(path.name.lower(), first)
    if sep == "":
        raise InputError("the separator sep='' is empty", source=source)
    fields = _split_fields(first, sep)
    has_header = header if header is not None else not all(_is_number(f) for f in fields)
    if has_header:
        names = [f.strip() for f in fields]
        bad = [i + 1 for i, n in enumerate(names) if not n]
        if bad:
            raise InputError(f"header field {bad[0]} is empty", source=source, line=first_number, text=first)
        first_data = first_number + 1
    else:
        if len(fields) < 2 or len(fields) > len(_HEADERLESS_NAMES):
            raise InputError(
                f"a file without a header line must have 2 to 4 fields per line "
                f"(user, item, rating, timestamp); found {len(fields)}: add a header line",
                source=source, line=first_number, text=first,
            )
        names = list(_HEADERLESS_NAMES[: len(fields)])
        first_data = first_number
    # ids stay text, exactly as written
    try:
        roles = _resolve_names(names, explicit, source)
    except InputError:
        roles = {}
    column_types = {roles[r]: pa.string() for r in ("user", "item") if roles.get(r)}
    skip = first_number if has_header else first_number - 1
    double_colon = sep == "::"
    if double_colon:
        raw_names = []
        for j, n in enumerate(names):
            if j:
                raw_names.append(f"\x00gap{j}")
            raw_names.append(n)
        column_types.update({n: pa.string() for n in raw_names if n.startswith("\x00gap")})
        read_names, delimiter = raw_names, ":"
    else:
        read_names, delimiter = names, sep
    try:
        table = pacsv.read_csv(
            pa.BufferReader(raw) if raw is not None else source,
            read_options=pacsv.ReadOptions(column_names=read_names, skip_rows=skip),
            parse_options=pacsv.ParseOptions(
                delimiter=delimiter, quote_char=False if double_colon else '"'
            ),
            convert_options=pacsv.ConvertOptions(column_types=column_types),
        )
    except pa.ArrowInvalid as exc:
        raise _locate_csv_error(source, sep, len(names), first_data, str(exc), where) from None
    except (OSError, pa.ArrowException) as exc:
        raise InputError(f"cannot read the file: {exc}", source=source) from None
    if double_colon:
        for n in read_names:
            if n.startswith("\x00gap"):
                row = _first_true(pc.not_equal(table.column(n), ""))
                if row is not None:
                    line, text = _line_of_row(where, first_data, row)
                    raise InputError(
                        "a field contains ':' in a '::'-separated file", source=source, line=line, text=text
                    )
        table = table.select(names)
    return table, first_data


def _locate_csv_error(source: str, sep: str, n_fields: int, first_data: int, message: str,
                      where: str | bytes | None = None) -> InputError:
    """Turn a pyarrow CSV error into file:line: the first line with the wrong field count,
    or the first line holding the value pyarrow could not convert."""
    message = message.replace("CSV parse error: ", "").strip()
    bad_value = None
    m = re.search(r"invalid value '(.*)'", message)
    if m:
        bad_value = m.group(1)
    try:
        with _open_text(where if where is not None else source) as fh:
            for number, line in enumerate(fh, start=1):
                if number < first_data:
                    continue
                line = line.rstrip("\r\n")
                if not line.strip():
                    continue
                fields = _split_fields(line, sep)
                if len(fields) != n_fields:
                    return InputError(
                        f"expected {n_fields} fields, found {len(fields)}",
                        source=source, line=number, text=line,
                    )
                if sep == "::" and line.count(":") != 2 * (n_fields - 1):
                    return InputError(
                        "a field contains ':' in a '::'-separated file", source=source, line=number, text=line
                    )
                if bad_value is not None and bad_value in fields:
                    return InputError(
                        f"cannot read {bad_value!r} as a number", source=source, line=number, text=line
                    )
    except (OSError, pa.ArrowException):  # pragma: no cover
        pass
    return InputError(message, source=source)


def _line_of_row(source: str | bytes, first_data: int, row: int) -> tuple[int | None, str | None]:
    """Line number and text of data row ``row`` (0-based) of a text file (blank lines skipped)."""
    seen = -1
    try:
        with _open_text(source) as fh:
            for number, line in enumerate(fh, start=1):
                if number < first_data:
                    continue
                line = line.rstrip("\r\n")
                if not line.strip():
                    continue
                seen += 1
                if seen == row:
                    return number, line
    except (OSError, pa.ArrowException):  # pragma: no cover
        pass
    return None, None
