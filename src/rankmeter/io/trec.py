"""TREC text formats: qrels (``query iter item grade``) and runs (``query Q0 item rank score tag``).

Fast path: the file is read once and parsed by pyarrow's CSV reader after tabs and
runs of blanks are folded to one space and ``#`` comment lines are removed. When
the fast path cannot parse the data (a malformed line, a varying number of extra
columns), a line-by-line pass takes over: it tolerates columns after the sixth and
reports the first bad line by file, line number and content.
"""

from __future__ import annotations

import io
import re
from pathlib import Path
from typing import Callable

import numpy as np
import pyarrow as pa
import pyarrow.compute  # noqa: F401  (pa.compute)
import pyarrow.csv as pacsv

from .._errors import InputError
from ..data import Qrels, Run
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


def _fast_table(data: bytes, names: list[str], types: dict[str, pa.DataType], keep: list[str]) -> pa.Table | None:
    """Parse normalised bytes; None when the fast path does not apply."""
    if _blank(data):
        return None
    try:
        return pacsv.read_csv(
            io.BytesIO(data),
            read_options=pacsv.ReadOptions(column_names=names, block_size=1 << 21),
            parse_options=pacsv.ParseOptions(delimiter=" ", quote_char=False, escape_char=False,
                                             double_quote=False, newlines_in_values=False),
            convert_options=pacsv.ConvertOptions(column_types=types, include_columns=keep,
                                                 strings_can_be_null=False, quoted_strings_can_be_null=False,
                                                 null_values=[]),
        )
    except (pa.ArrowInvalid, pa.ArrowTypeError, pa.ArrowNotImplementedError):
        return None


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


def _with_lines(data: bytes, source: str, build: Callable[[], object]) -> object:
    try:
        return build()
    except RowError as exc:
        n, raw = _row_to_line(data, exc.row)
        raise InputError(exc.message, source=source, line=n, text=raw) from None


def parse_trec_run_bytes(data: bytes, source: str = "<run>", **run_options: object) -> Run:
    """A :class:`Run` from the bytes of a TREC run file."""
    norm = _normalise(data)
    table = _fast_table(
        norm, ["query", "q0", "item", "rank", "score", "tag"],
        {"query": pa.string(), "item": pa.string(), "score": pa.float64(), "rank": pa.string()},
        ["query", "item", "score", "rank"],
    )
    order = run_options.get("order", "score")
    if table is not None and order != "rank":
        scores = table.column("score")
        if not pa.compute.all(pa.compute.is_finite(scores)).as_py():  # NaN or inf: report the line
            table = None
    if table is None:
        cols = _slow_columns(data, source, "run")
        if order == "rank":
            cols["rank"] = [_number(f[3], "rank", source, n, raw) for n, raw, f in _lines(data)]
        return _with_lines(data, source, lambda: Run.from_columns(  # type: ignore[return-value]
            cols["query"], cols["item"], cols["score"], rank=cols.get("rank"), **run_options))
    rank = None
    if order == "rank":
        rank = pa.compute.cast(table.column("rank"), pa.float64())
    return _with_lines(data, source, lambda: Run.from_columns(  # type: ignore[return-value]
        table.column("query"), table.column("item"), table.column("score"), rank=rank, **run_options))


def parse_trec_qrels_bytes(data: bytes, source: str = "<qrels>", **options: object) -> Qrels:
    """A :class:`Qrels` from the bytes of a TREC qrels file."""
    norm = _normalise(data)
    table = _fast_table(
        norm, ["query", "iter", "item", "grade"],
        {"query": pa.string(), "item": pa.string(), "grade": pa.float64()},
        ["query", "item", "grade"],
    )
    if table is not None and not pa.compute.all(pa.compute.is_finite(table.column("grade"))).as_py():
        table = None
    if table is None:
        cols = _slow_columns(data, source, "qrels")
        return _with_lines(data, source, lambda: Qrels.from_columns(  # type: ignore[return-value]
            cols["query"], cols["item"], cols["grade"], **options))
    return _with_lines(data, source, lambda: Qrels.from_columns(  # type: ignore[return-value]
        table.column("query"), table.column("item"), table.column("grade"), **options))


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
    return parse_trec_run_bytes(_read(path), str(path), **run_options)


def read_trec_qrels(path: str | Path, **options: object) -> Qrels:
    """Read a TREC qrels file (``query iteration item grade``)."""
    return parse_trec_qrels_bytes(_read(path), str(path), **options)
