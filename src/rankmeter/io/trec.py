"""TREC text formats: qrels (``query iter item grade``) and runs (``query Q0 item rank score tag``).

Fast path: pyarrow's CSV reader parses the file itself, with one blank as the
separator. The result is accepted only when nothing needs the tolerant reading:
every line has exactly the expected columns, no id is empty, none holds a tab or
another control character, and no query starts with ``#`` (a comment line). Else
the bytes are read, tabs and runs of blanks folded to one space and comment lines
removed, and parsed again; when even that fails (a malformed line, a varying number
of extra columns), a line-by-line pass takes over: it tolerates columns after the
sixth and reports the first bad line by file, line number and content.
"""

from __future__ import annotations

import io
import re
from pathlib import Path
from typing import Callable

import numpy as np
import pyarrow as pa
import pyarrow.csv as pacsv

from .. import _compute as C
from .._errors import InputError
from ..data import Qrels, Run
from ..data._ids import string_buffers
from ..data._table import RowError

__all__ = ["read_trec_qrels", "read_trec_run", "parse_trec_run_bytes", "parse_trec_qrels_bytes"]

_TAB = bytes.maketrans(b"\t\r\v\f", b"    ")
_BLANKS = re.compile(rb" {2,}")
_EDGE = re.compile(rb"(?m)^ +| +$")
_COMMENT = re.compile(rb"(?m)^#[^\n]*(\n|$)")


def _blank(data: bytes) -> bool:
    """Empty or only whitespace (stops at the first other byte; no copy)."""
    return not data or data.isspace()


def _normalise(data: bytes) -> bytes:
    if b"\t" in data or b"\r" in data or b"\v" in data or b"\f" in data:
        data = data.translate(_TAB)
    # two-byte patterns are slow to search with bytes.__contains__; one numpy pass finds
    # doubled blanks and blanks at line ends or starts
    buf = np.frombuffer(data, dtype=np.uint8)
    sp = buf == 32
    if sp[0] or sp[-1] or bool((sp[1:] & (sp[:-1] | (buf[:-1] == 10))).any()) or bool((sp[:-1] & (buf[1:] == 10)).any()):
        data = _EDGE.sub(b"", _BLANKS.sub(b" ", data))
    if data.startswith(b"#") or (b"#" in data and b"\n#" in data):
        data = _COMMENT.sub(b"", data)
    return data


def _fast_table(data: bytes | str, names: list[str], types: dict[str, pa.DataType],
                keep: list[str]) -> pa.Table | None:
    """Parse normalised bytes, or a file by its path; None when the fast path does not apply."""
    if isinstance(data, bytes) and _blank(data):
        return None
    try:
        return pacsv.read_csv(
            io.BytesIO(data) if isinstance(data, bytes) else data,
            read_options=pacsv.ReadOptions(column_names=names, block_size=1 << 18),
            parse_options=pacsv.ParseOptions(delimiter=" ", quote_char=False, escape_char=False,
                                             double_quote=False, newlines_in_values=False),
            convert_options=pacsv.ConvertOptions(column_types=types, include_columns=keep,
                                                 strings_can_be_null=False, quoted_strings_can_be_null=False,
                                                 null_values=[]),
        )
    except (pa.ArrowInvalid, pa.ArrowTypeError, pa.ArrowNotImplementedError):
        return None


def _plain_ids(table: pa.Table, query: str = "query", item: str = "item") -> bool:
    """Ids a one-blank split read right: none empty, no control character, no ``#`` line.

    Read straight from the string buffers: every id's length from the offsets, every
    byte of the data, and the first byte of each query.
    """
    if table.num_rows == 0:
        return False
    for name in (query, item):
        for chunk in table.column(name).chunks:
            if not len(chunk):
                continue
            offsets, data = string_buffers(chunk)
            if bool((offsets[1:] == offsets[:-1]).any()) or bool((data[offsets[0]:offsets[-1]] < 32).any()):
                return False
            if name == query and bool((data[offsets[:-1]] == ord("#")).any()):
                return False
    return True


def _lines(data: bytes) -> list[tuple[int, str, list[str]]]:
    """(line number, text, fields) of every non-blank, non-comment line."""
    out = []
    for n, raw in enumerate(data.decode("utf-8", errors="strict").splitlines(), start=1):
        s = raw.strip()
        if not s or s.startswith("#"):
            continue
        out.append((n, raw, s.split()))
    return out


def _number(text: str, what: str, source: str, line: int, raw: str) -> float:
    try:
        v = float(text)
    except ValueError:
        raise InputError(f"{what} is not a number ({text!r})", source=source, line=line, text=raw) from None
    if not np.isfinite(v):
        raise InputError(f"{what} is not a finite number ({text!r})", source=source, line=line, text=raw)
    return v


def _slow_columns(data: bytes, source: str, kind: str) -> dict[str, list]:  # type: ignore[type-arg]
    try:
        lines = _lines(data)
    except UnicodeDecodeError as exc:
        raise InputError(f"not UTF-8 text ({exc.reason} at byte {exc.start})", source=source) from None
    if not lines:
        raise InputError(f"no {kind} lines (the file is empty or only comments)", source=source)
    if kind == "run":
        q, d, s = [], [], []
        for n, raw, f in lines:
            if len(f) < 6:
                raise InputError(
                    f"expected 6 whitespace-separated columns (query Q0 item rank score tag), found {len(f)}",
                    source=source, line=n, text=raw)
            q.append(f[0]); d.append(f[2]); s.append(_number(f[4], "score", source, n, raw))
        return {"query": q, "item": d, "score": s}
    q, d, g = [], [], []
    for n, raw, f in lines:
        if len(f) != 4:
            raise InputError(
                f"expected 4 whitespace-separated columns (query iteration item grade), found {len(f)}",
                source=source, line=n, text=raw)
        q.append(f[0]); d.append(f[2]); g.append(_number(f[3], "relevance grade", source, n, raw))
    return {"query": q, "item": d, "grade": g}


def _row_to_line(data: bytes, row: int) -> tuple[int, str]:
    lines = _lines(data)
    n, raw, _ = lines[row]
    return n, raw


def _with_lines(load: Callable[[], bytes], source: str, build: Callable[[], object]) -> object:
    try:
        return build()
    except RowError as exc:
        n, raw = _row_to_line(load(), exc.row)
        raise InputError(exc.message, source=source, line=n, text=raw) from None


_RUN_NAMES = ["query", "q0", "item", "rank", "score", "tag"]
_RUN_TYPES = {"query": pa.string(), "item": pa.string(), "score": pa.float64(), "rank": pa.string()}
_QRELS_NAMES = ["query", "iter", "item", "grade"]
_QRELS_TYPES = {"query": pa.string(), "item": pa.string(), "grade": pa.float64()}


def parse_trec_run_bytes(data: bytes, source: str = "<run>", **run_options: object) -> Run:
    """A :class:`Run` from the bytes of a TREC run file."""
    return _run(lambda: data, source, None, run_options)


def parse_trec_qrels_bytes(data: bytes, source: str = "<qrels>", **options: object) -> Qrels:
    """A :class:`Qrels` from the bytes of a TREC qrels file."""
    return _qrels(lambda: data, source, None, options)


def _run(load: Callable[[], bytes], source: str, table: pa.Table | None, run_options: dict[str, object]) -> Run:
    """A run from its fast parse ``table`` or, when there is none or it is not usable, from the bytes."""
    if table is None:
        table = _fast_table(_normalise(load()), _RUN_NAMES, _RUN_TYPES, ["query", "item", "score", "rank"])
    order = run_options.get("order", "score")
    if table is not None and order != "rank":
        if not C.all_true(C.is_finite(table.column("score"))):  # NaN or inf: report the line
            table = None
    if table is None:
        data = load()
        cols = _slow_columns(data, source, "run")
        if order == "rank":
            cols["rank"] = [_number(f[3], "rank", source, n, raw) for n, raw, f in _lines(data)]
        return _with_lines(load, source, lambda: Run.from_columns(  # type: ignore[return-value]
            cols["query"], cols["item"], cols["score"], rank=cols.get("rank"), **run_options))
    rank = None
    if order == "rank":
        rank = C.cast(table.column("rank"), pa.float64())
    return _with_lines(load, source, lambda: Run.from_columns(  # type: ignore[return-value]
        table.column("query"), table.column("item"), table.column("score"), rank=rank, **run_options))


def _qrels(load: Callable[[], bytes], source: str, table: pa.Table | None, options: dict[str, object]) -> Qrels:
    """Judgments from their fast parse ``table`` or, when there is none or it is not usable, from the bytes."""
    if table is None:
        table = _fast_table(_normalise(load()), _QRELS_NAMES, _QRELS_TYPES, ["query", "item", "grade"])
    if table is not None and not C.all_true(C.is_finite(table.column("grade"))):
        table = None
    if table is None:
        cols = _slow_columns(load(), source, "qrels")
        return _with_lines(load, source, lambda: Qrels.from_columns(  # type: ignore[return-value]
            cols["query"], cols["item"], cols["grade"], **options))
    return _with_lines(load, source, lambda: Qrels.from_columns(  # type: ignore[return-value]
        table.column("query"), table.column("item"), table.column("grade"), **options))


def _parse_file(path: str | Path, names: list[str], types: dict[str, pa.DataType],
                keep: list[str]) -> pa.Table | None:
    """The fast parse straight from the file (no copy of its bytes), when it reads the file right."""
    _check_file(path)
    table = _fast_table(str(path), names, types, keep)
    return table if table is not None and _plain_ids(table) else None


def _check_file(path: str | Path) -> None:
    p = Path(path)
    try:
        size = p.stat().st_size
    except FileNotFoundError:
        raise InputError("no such file", source=str(path)) from None
    except PermissionError:
        raise InputError("permission denied", source=str(path)) from None
    if p.is_dir():
        raise InputError("is a directory, not a file", source=str(path))
    if size == 0:
        raise InputError("the file is empty", source=str(path))


def _read(path: str | Path) -> bytes:
    p = Path(path)
    try:
        data = p.read_bytes()
    except FileNotFoundError:
        raise InputError("no such file", source=str(path)) from None
    except IsADirectoryError:
        raise InputError("is a directory, not a file", source=str(path)) from None
    except PermissionError:
        raise InputError("permission denied", source=str(path)) from None
    if _blank(data):
        raise InputError("the file is empty", source=str(path))
    return data


def read_trec_run(path: str | Path, **run_options: object) -> Run:
    """Read a TREC run file (``query Q0 item rank score tag [ignored ...]``)."""
    keep = ["query", "item", "score"] + (["rank"] if run_options.get("order") == "rank" else [])
    table = _parse_file(path, _RUN_NAMES, _RUN_TYPES, keep)
    return _run(_loader(path), str(path), table, run_options)


def read_trec_qrels(path: str | Path, **options: object) -> Qrels:
    """Read a TREC qrels file (``query iteration item grade``)."""
    table = _parse_file(path, _QRELS_NAMES, _QRELS_TYPES, ["query", "item", "grade"])
    return _qrels(_loader(path), str(path), table, options)


def _loader(path: str | Path) -> Callable[[], bytes]:
    """Read the file's bytes on first need, once."""
    cache: list[bytes] = []

    def load() -> bytes:
        if not cache:
            cache.append(_read(path))
        return cache[0]

    return load
