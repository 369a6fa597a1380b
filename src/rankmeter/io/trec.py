"""TREC text formats: qrels (``query iter item grade``) and runs (``query Q0 item rank score tag``).

One parser reads every TREC text, whole files and streaming blocks alike
(:func:`parse_trec`). Its rules:

- **Fields** are separated by runs of ASCII blanks: space, tab, vertical tab and
  form feed. trec_eval splits with C's ``isspace``, which is exactly these plus the
  line ends, so the same bytes give the same fields. No other character separates
  fields: U+00A0 (no-break space), U+2028 and the like are part of the id they are in.
- **Lines** end at ``\\n``, ``\\r\\n`` or ``\\r``; nothing else (``\\f``, ``\\v``,
  U+2028 and U+0085 do not end a line), so line numbers in messages are the ones
  an editor shows. (trec_eval ends lines at ``\\n`` only and reads a lone ``\\r``
  as a blank.)
- A UTF-8 byte order mark at the very start is dropped, once.
- **Comments**: a line whose first non-blank character is ``#`` is a comment, as in
  trec_eval 10.0; comment lines are skipped and counted (``comment_lines`` on the
  result, and a note). ``comments=False`` reads them as data, as trec_eval 9.0.8
  does (a query id may then begin with ``#``). A ``#`` elsewhere is data.
- **Columns**: judgments have exactly 4; runs have at least 6, and columns after
  the sixth are ignored (any number of them, at the speed of 6 columns). A
  file with the other role's column count is reported as such: QRELS comes first.
- **Numbers** (scores, grades, ranks) follow Arrow's number grammar, the one of
  every rankmeter reader: ``1``, ``-2.5``, ``.5``, ``1e3``, ``inf`` parse;
  ``1_000``, ``0x10`` do not. ``nan`` and infinities are errors.

Every error names the file and line, and quotes the line.

How: the bytes are normalised in a few whole-buffer passes (line ends to ``\\n``,
blanks to one space, comment and blank lines emptied but kept, so rows map back to
line numbers), then parsed by pyarrow's CSV reader with a one-space delimiter.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Callable

import numpy as np
import pyarrow as pa
import pyarrow.csv as pacsv

from .._errors import InputError
from ..data import Qrels, RowError, Run
from .columns import number_column, rank_column
from .source import Input, MappedSpan, open_input, open_timely

__all__ = [
    "read_trec_qrels", "read_trec_run", "read_trec_table", "parse_trec", "TrecText", "parse_trec_run_bytes",
    "parse_trec_qrels_bytes",
    "comment_note", "locate", "read_trec_text", "read_run_stream_checked",
]

_BOM = b"\xef\xbb\xbf"
_BLANKS = bytes.maketrans(b"\t\v\f", b"   ")
_MULTI = re.compile(rb" {2,}")
_EDGE = re.compile(rb"(?m)^ +| +$")
_COMMENT = re.compile(rb"(?m)^#[^\n]*")
_RUN_NAMES = ["query", "q0", "item", "rank", "score", "tag"]
_QRELS_NAMES = ["query", "iter", "item", "grade"]
_RUN_FORM = "query Q0 item rank score tag"
_QRELS_FORM = "query iteration item grade"


@dataclass(eq=False)
class TrecText:
    """The parse of some TREC text: a table of the kept columns and how rows map to lines.

    ``table`` has ``query``, ``item`` (string) and ``score`` or ``grade`` (float64),
    plus ``rank`` (text, as written) when asked for. ``first_line`` is the line number of
    the text's first line in its file (blocks of a stream start further down).
    """

    table: pa.Table
    comment_lines: int
    source: str
    first_line: int | Callable[[], int] = 1  # or a function giving it, called only when a line is asked for
    _norm: bytes = field(default=b"", repr=False)
    _raw: bytes = field(default=b"", repr=False)
    _load: Callable[[], bytes] | None = field(default=None, repr=False)  # the bytes, read on first need
    _plain: bool = field(default=False, repr=False)  # the loaded bytes need no normalising (read by _quick)

    def _texts(self) -> tuple[bytes, bytes]:
        if self._load is not None:
            raw = self._load()
            self._raw = raw[3:] if raw.startswith(_BOM) else raw
            self._norm = self._raw if self._plain else _normalise_counted(self._raw, True)[0]
            self._load = None
        return self._norm, self._raw

    def lines(self) -> np.ndarray:
        """The line number of every row."""
        return data_lines(self._texts()[0]) + (self._first() - 1)

    def _first(self) -> int:
        if callable(self.first_line):
            self.first_line = int(self.first_line())
        return self.first_line

    def line_of(self, row: int) -> tuple[int, str]:
        """Line number and text of row ``row``."""
        norm, raw = self._texts()
        n = int(data_lines(norm)[row])
        return n + self._first() - 1, line_text(raw, n)

    def error(self, exc: RowError) -> InputError:
        line, text = self.line_of(exc.row)
        return InputError(exc.message, source=self.source, line=line, text=text)


def data_lines(norm: bytes) -> np.ndarray:
    """1-based numbers of the non-empty lines of normalised text (``\\n`` line ends only)."""
    buf = np.frombuffer(norm, dtype=np.uint8)
    nl = np.flatnonzero(buf == 10)
    starts = np.concatenate(([0], nl + 1))
    ends = np.concatenate((nl, [len(buf)]))
    return np.flatnonzero(ends > starts) + 1


def _unify_line_ends(data: bytes) -> bytes:
    if b"\r" in data:
        data = data.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
    return data


def line_text(raw: bytes, n: int) -> str:
    """The text of line ``n`` (1-based) of ``raw`` (line ends ``\\n``, ``\\r\\n``, ``\\r``)."""
    lines = _unify_line_ends(raw).split(b"\n")
    return lines[n - 1].decode("utf-8", "replace") if 0 < n <= len(lines) else ""


def _normalise_counted(data: bytes, comments: bool) -> tuple[bytes, int]:
    """One space between fields, none at line edges, comment lines emptied; and the number of comments."""
    data = _unify_line_ends(data)
    if b"\t" in data or b"\v" in data or b"\f" in data:
        data = data.translate(_BLANKS)
    # a blank that is doubled or at a line's edge? (one pass over the bytes, then over the spaces only)
    buf = np.frombuffer(data, dtype=np.uint8)
    sp = np.flatnonzero(buf == 32)
    n = len(buf)
    if len(sp) and (sp[0] == 0 or sp[-1] == n - 1 or bool((np.diff(sp) == 1).any())
                    or bool((buf[sp - 1] == 10).any()) or bool((buf[sp + 1] == 10).any())):
        data = _EDGE.sub(b"", _MULTI.sub(b" ", data))
    del buf, sp
    n_comments = 0
    if comments and b"#" in data and (data.startswith(b"#") or b"\n#" in data):
        data, n_comments = _COMMENT.subn(b"", data)
    return data, n_comments


def _spaces(norm: bytes) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Positions of the spaces, the line (0-based) of each, and the number of spaces on every line."""
    buf = np.frombuffer(norm, dtype=np.uint8)
    nl = np.flatnonzero(buf == 10)
    sp = np.flatnonzero(buf == 32)
    line = np.searchsorted(nl, sp)
    return sp, line, np.bincount(line, minlength=len(nl) + 1)


def _field_counts(norm: bytes, counts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(line numbers, number of fields) of every non-empty line of normalised text."""
    keep = data_lines(norm) - 1
    return keep + 1, counts[keep] + 1


def _swapped(kind: str, n: int) -> str:
    if kind == "qrels" and n >= 6:
        return (f"; this looks like a TREC run ({_RUN_FORM}), not judgments: QRELS comes first, then RUN")
    if kind == "run" and n == 4:
        return (f"; this looks like TREC judgments ({_QRELS_FORM}), not a run: QRELS comes first, then RUN")
    return ""


def _column_error(kind: str, norm: bytes, raw: bytes, source: str, first_line: int,
                  counts: np.ndarray) -> InputError | None:
    """The first line with the wrong number of columns, as an error (None: every line is fine)."""
    lines, fields = _field_counts(norm, counts)
    bad = np.flatnonzero(fields < 6) if kind == "run" else np.flatnonzero(fields != 4)
    if not len(bad):
        return None
    i = int(bad[0])
    n, count = int(lines[i]), int(fields[i])
    form = _RUN_FORM if kind == "run" else _QRELS_FORM
    want = "6" if kind == "run" else "4"
    # a whole file of the other role's shape says so
    hint = _swapped(kind, count) if (i == 0 and bool((fields == count).all())) else ""
    return InputError(f"expected {want} whitespace-separated columns ({form}), found {count}{hint}",
                      source=source, line=n + first_line - 1, text=line_text(raw, n))


def _absorb_extra(norm: bytes, sp: np.ndarray, line: np.ndarray, counts: np.ndarray) -> bytes:
    """Join the columns after the sixth of each line into the sixth (the tag, never read)."""
    if not len(sp):
        return norm
    first = np.concatenate(([0], np.cumsum(counts)[:-1]))  # index (in ``sp``) of each line's first space
    extra = sp[(np.arange(len(sp)) - first[line]) >= 5]
    if not len(extra):
        return norm
    out = bytearray(norm)
    np.frombuffer(out, dtype=np.uint8)[extra] = 0x1F
    return bytes(out)


def _read(norm: bytes, names: list[str], types: dict[str, pa.DataType], keep: list[str]) -> pa.Table:
    return pacsv.read_csv(
        pa.BufferReader(norm),
        read_options=pacsv.ReadOptions(column_names=names, block_size=1 << 20, use_threads=True),
        parse_options=pacsv.ParseOptions(delimiter=" ", quote_char=False, escape_char=False, double_quote=False,
                                         newlines_in_values=False, ignore_empty_lines=True),
        convert_options=pacsv.ConvertOptions(column_types=types, include_columns=keep, strings_can_be_null=False,
                                             quoted_strings_can_be_null=False, null_values=[], check_utf8=True),
    )


def _utf8_error(norm: bytes, raw: bytes, source: str, first_line: int) -> InputError | None:
    try:
        raw.decode("utf-8")
        return None
    except UnicodeDecodeError as exc:
        n = _unify_line_ends(raw[: exc.start]).count(b"\n") + 1
        return InputError(f"not UTF-8 text ({exc.reason} at byte {exc.start})", source=source,
                          line=n + first_line - 1, text=line_text(raw, n))


def parse_trec(data: bytes, kind: str, source: str, *, comments: bool = True, rank: bool = False,
               first_line: int | Callable[[], int] = 1, empty_ok: bool = False, threads: bool = True) -> TrecText:
    """Parse TREC run (``kind="run"``) or qrels (``kind="qrels"``) text; see the module docstring.

    ``rank=True`` keeps a run's rank column (text, as written). ``first_line`` numbers
    the first line of ``data`` (a block of a longer stream); a byte order mark is
    dropped only when it is 1. ``empty_ok`` gives an empty table for text without
    data lines instead of an error.

    >>> t = parse_trec(b"\\xef\\xbb\\xbf# run\\nq1\\tQ0 d\\xc2\\xa0 1  2.5 t x y\\n", "run", "r.txt")
    >>> t.table.to_pydict(), t.comment_lines, t.lines().tolist()
    ({'query': ['q1'], 'item': ['d\\xa0'], 'score': [2.5]}, 1, [2])
    """
    raw = data[3:] if first_line == 1 and data.startswith(_BOM) else data
    quick = _quick(raw, kind, comments, rank, threads=threads)
    if quick is not None:
        if isinstance(raw, MappedSpan):  # the bytes are read again only if a message needs a line
            return TrecText(quick, 0, source, first_line, _load=raw.__bytes__, _plain=True)
        return TrecText(quick, 0, source, first_line, raw, raw)
    if isinstance(raw, MappedSpan):
        raw = bytes(raw)
    if callable(first_line):
        first_line = int(first_line())
    norm, n_comments = _normalise_counted(raw, comments)
    if kind == "run":
        value, names = "score", _RUN_NAMES
        types = {"query": pa.string(), "item": pa.string(), "score": pa.float64(), "rank": pa.string()}
        keep = ["query", "item", "score"] + (["rank"] if rank else [])
    else:
        value, names = "grade", _QRELS_NAMES
        types = {"query": pa.string(), "item": pa.string(), "grade": pa.float64()}
        keep = ["query", "item", "grade"]
    first = norm.lstrip(b"\n")
    if not first:
        if empty_ok:
            return TrecText(pa.table({k: pa.array([], types[k]) for k in keep}), n_comments, source, first_line,
                            norm, raw)
        what = "run" if kind == "run" else "judgment"
        raise InputError(f"no {what} lines (the file is empty or only comments)", source=source)
    end = first.find(b"\n")
    width = (first if end < 0 else first[:end]).count(b" ") + 1
    if kind == "run" and width > 6:
        names = names + [f"extra{i}" for i in range(width - 6)]
    table = None
    try:
        table = _read(norm, names, types, keep)
    except (pa.ArrowInvalid, pa.ArrowTypeError):
        pass
    if table is None:
        sp, line_of_space, counts = _spaces(norm)
        err = (_column_error(kind, norm, raw, source, first_line, counts)
               or _utf8_error(norm, raw, source, first_line))
        if err is not None:
            raise err
        if kind == "run":  # a varying number of columns after the sixth
            norm = _absorb_extra(norm, sp, line_of_space, counts)
            del sp, line_of_space, counts
            names = _RUN_NAMES
            try:
                table = _read(norm, names, types, keep)
            except (pa.ArrowInvalid, pa.ArrowTypeError):
                pass
        if table is None:  # a value that is not a number: find its row
            text_types = dict(types, **{value: pa.string()})
            table = _read(norm, names, text_types, keep)
            parsed = TrecText(table, n_comments, source, first_line, norm, raw)
            try:
                number_column(table.column(value), "score" if kind == "run" else "relevance grade", value, source,
                              finite=False)
            except RowError as exc:
                raise parsed.error(exc) from None
            raise InputError("cannot parse the file as TREC text", source=source)  # pragma: no cover
    return TrecText(table, n_comments, source, first_line, norm, raw)


def comment_note(n: int, source: str) -> str:
    """The note about skipped comment lines.

    >>> comment_note(3, "run.txt")
    "3 comment lines (starting with '#') were skipped in run.txt"
    """
    if n == 1:
        return f"1 comment line (starting with '#') was skipped in {source}"
    return f"{n} comment lines (starting with '#') were skipped in {source}"


def locate(parsed: TrecText, build: Callable[[], Any]) -> Any:
    """``build()``, with a RowError turned into file:line."""
    try:
        return build()
    except RowError as exc:
        raise parsed.error(exc) from None


def _run_from(parsed: TrecText, run_options: dict[str, Any]) -> Run:
    t = parsed.table
    rank = None
    if run_options.get("order") == "rank":
        rank = locate(parsed, lambda: rank_column(t.column("rank"), "rank", parsed.source))
    run = locate(parsed, lambda: Run.from_columns(t.column("query"), t.column("item"), t.column("score"), rank=rank,
                                                  **run_options))
    if parsed.comment_lines:
        run = replace(run, comment_lines=parsed.comment_lines,
                      notes=run.notes + (comment_note(parsed.comment_lines, parsed.source),))
    return run  # type: ignore[no-any-return]  # built from untyped pyarrow values


def _qrels_from(parsed: TrecText, options: dict[str, Any]) -> Qrels:
    t = parsed.table
    q = locate(parsed, lambda: Qrels.from_columns(t.column("query"), t.column("item"), t.column("grade"), **options))
    if parsed.comment_lines:
        q = q.annotated(comment_lines=parsed.comment_lines,
                        notes=q.notes + (comment_note(parsed.comment_lines, parsed.source),))
    return q  # type: ignore[no-any-return]  # built from untyped pyarrow values


def parse_trec_run_bytes(data: bytes, source: str = "<run>", *, comments: bool = True, **run_options: Any) -> Run:
    """A :class:`Run` from the bytes of a TREC run file."""
    parsed = parse_trec(data, "run", source, comments=comments, rank=run_options.get("order") == "rank")
    return _run_from(parsed, run_options)


def parse_trec_qrels_bytes(data: bytes, source: str = "<qrels>", *, comments: bool = True, **options: Any) -> Qrels:
    """A :class:`Qrels` from the bytes of a TREC qrels file."""
    return _qrels_from(parse_trec(data, "qrels", source, comments=comments), options)


def _no_empty(col: pa.ChunkedArray, not_first: int | None = None) -> bool:
    """No empty string in ``col``, and (``not_first``) none starting with that byte."""
    from ..data.ids import string_buffers

    for chunk in col.chunks:
        if not len(chunk):
            continue
        offsets, data = string_buffers(chunk)
        if bool((offsets[1:] == offsets[:-1]).any()):
            return False
        if not_first is not None and bool((data[offsets[:-1]] == not_first).any()):
            return False
    return True


_ODD_BYTES = (b"\r", b"\t", b"\v", b"\f")


def _bytes_of(data: Any) -> np.ndarray:
    """The bytes of ``data`` (bytes, a memory map or a :class:`MappedSpan`) as a numpy view, no copy."""
    return np.frombuffer(data.arrow() if isinstance(data, MappedSpan) else data, dtype=np.uint8)


def _may_have_empty_field(buf: np.ndarray, block: int = 1 << 18) -> bool:
    """Whether a field may be empty: a space next to a space or a line end, or at either end of the text.

    (An empty line, two line ends side by side, counts too: such text takes the slower way.)
    Checked ``block`` bytes at a time, so the temporaries stay in the cache: ~4 ms for 34 MB.

    >>> _may_have_empty_field(np.frombuffer(b"q Q0 d 1 2 t\\nq Q0 e 2 1 t\\n", dtype=np.uint8))
    False
    >>> _may_have_empty_field(np.frombuffer(b"q Q0  d 1 2 t\\n", dtype=np.uint8))
    True
    """
    n = len(buf)
    if not n:
        return False
    if buf[0] == 32 or buf[-1] == 32:
        return True
    sep = np.empty(min(n, block + 1), dtype=bool)
    nl = np.empty(len(sep), dtype=bool)
    for lo in range(0, n - 1, block):
        part = buf[lo:lo + block + 1]  # (one byte of overlap: pairs across the boundary)
        m = len(part)
        np.equal(part, 32, out=sep[:m])
        np.equal(part, 10, out=nl[:m])
        sep[:m] |= nl[:m]
        np.logical_and(sep[1:m], sep[:m - 1], out=nl[:m - 1])
        if nl[:m - 1].any():
            return True
    return False


def _quick(data: Any, kind: str, comments: bool, rank: bool, path: Path | None = None,
           threads: bool = True) -> pa.Table | None:
    """The rows of text that needs no normalising, read as they are; None when it might need it.

    Text needs none when it has no ``\\r``, tab, ``\\v`` or ``\\f`` (one ``memchr`` each),
    no empty field (a doubled blank, or one at a line's start or end: seen as an empty
    string in the parsed columns, or as a row with a different number of fields, which
    the reader refuses), and, with ``comments``, no query starting with ``#``. Then one
    space separates every field and every row is a line, as the full parse would read
    it, at the speed of pyarrow's multithreaded CSV reader. ``data`` is bytes, a
    :class:`MappedSpan`, or a memory map of the file at ``path`` (read by pyarrow from its path).

    Empty fields are looked for in the bytes first (:func:`_may_have_empty_field`);
    without any, only the kept columns are converted (the other ones are only counted).
    Text that is all ASCII is valid UTF-8: its ids are then read as bytes and labelled
    text without a second check.
    """
    if any(data.find(c) >= 0 for c in _ODD_BYTES):
        return None
    buf = _bytes_of(data)
    plain = not _may_have_empty_field(buf)
    ascii_only = plain and bool(len(buf)) and int(buf.max()) < 128
    del buf  # (a view of the caller's map: released before it is closed)
    end = data.find(b"\n")
    first = bytes(data[: end if end >= 0 else min(len(data), 1 << 16)])
    if not first or first.startswith(b" "):
        return None
    width = first.count(b" ") + 1
    if kind == "run":
        if width < 6:
            return None
        names = _RUN_NAMES + [f"extra{i}" for i in range(width - 6)]
        read = _RUN_NAMES
        # columns read only to see that no field is empty are bytes (no UTF-8 check: never read as text)
        types = {"query": pa.string(), "q0": pa.binary(), "item": pa.string(),
                 "rank": pa.string() if rank else pa.binary(), "score": pa.float64(), "tag": pa.binary()}
        keep = ["query", "item", "score"] + (["rank"] if rank else [])
    else:
        if width != 4:
            return None
        names = read = _QRELS_NAMES
        types = {"query": pa.string(), "iter": pa.binary(), "item": pa.string(), "grade": pa.float64()}
        keep = ["query", "item", "grade"]
    if plain:  # no field is empty: the columns read only to see that are left out
        read = keep
    ids = pa.binary() if ascii_only else pa.string()
    types = dict(types, query=ids, item=ids)
    try:
        table = pacsv.read_csv(
            str(path) if path is not None else pa.BufferReader(data.arrow() if isinstance(data, MappedSpan) else data),
            # with threads, blocks of a few MB: enough of them for both cores, few enough that the columns' chunks
            # stay large; without (a worker's range), one block: columns of one chunk, nothing to combine
            read_options=pacsv.ReadOptions(column_names=names, use_threads=threads,
                                           block_size=min(max(len(data) // 8, 1 << 20), 16 << 20) if threads
                                           else min(len(data) + 1, 1 << 30)),
            parse_options=pacsv.ParseOptions(delimiter=" ", quote_char=False, escape_char=False, double_quote=False,
                                             newlines_in_values=False, ignore_empty_lines=True),
            convert_options=pacsv.ConvertOptions(column_types=types, include_columns=read, strings_can_be_null=False,
                                                 quoted_strings_can_be_null=False, null_values=[], check_utf8=True),
        )
    except (pa.ArrowInvalid, pa.ArrowTypeError, OSError):
        return None
    if not table.num_rows:
        return None
    # with no '#' in the text (one memchr), no query starts with one: the query column needs no look
    hashes_possible = comments and data.find(b"#") >= 0
    for col in read:
        hashes = col == "query" and hashes_possible
        if types[col] == pa.float64() or (plain and not hashes):
            continue
        if not _no_empty(table.column(col), ord("#") if hashes else None):
            return None
    if ascii_only:
        table = table.set_column(0, "query", _as_text(table.column("query")))
        table = table.set_column(table.column_names.index("item"), "item", _as_text(table.column("item")))
    return table.select(keep)


def _as_text(col: pa.ChunkedArray) -> pa.ChunkedArray:
    """Bytes known to be ASCII, labelled text (no copy, no check)."""
    return pa.chunked_array([chunk.view(pa.string()) for chunk in col.chunks], pa.string())


def _direct(inp: Input, kind: str, comments: bool, rank: bool) -> TrecText | None:
    """The parse of a plain file that needs no normalising (:func:`_quick`), read by pyarrow from its path."""
    if not inp.plain_file or not inp.size:
        return None
    import mmap

    path = inp.path
    assert path is not None
    inp.check_lines()
    with open(path, "rb") as fh, mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ) as mm:
        if mm[:3] == _BOM:
            return None
        table = _quick(MappedSpan(mm, 0, len(mm)), kind, comments, rank, path)  # (its scans let go of the GIL)
    if table is None:
        return None
    return TrecText(table, 0, inp.name, 1, _load=path.read_bytes, _plain=True)


def _bytes(path: str | Path | Input) -> tuple[bytes, str]:
    inp = path if isinstance(path, Input) else open_input(path)
    data = inp.read_all()
    if not data.strip():
        raise InputError("the file is empty", source=inp.name)
    return data, inp.name


def read_trec_table(path: str | Path | Input, kind: str = "run", *, comments: bool = True,
                    rank: bool = False) -> pa.Table:
    """The rows of a TREC file as a table, in file order, duplicates kept (``query, item, score|grade[, rank]``).

    For readers that need the rows themselves (top-k lists of a recommender), parsed
    by the one TREC parser.
    """
    data, name = _bytes(path)
    return parse_trec(data, kind, name, comments=comments, rank=rank).table


def read_trec_text(path: str | Path | Input, kind: str = "run", *, comments: bool = True) -> TrecText:
    """The parse of a TREC file (its table, comment count and line map), read straight from a plain
    file's path when the file allows it (:func:`read_trec_run`'s way), else from its bytes.
    """
    inp = path if isinstance(path, Input) else open_input(path)
    parsed = _direct(inp, kind, comments, False)
    if parsed is not None:
        return parsed
    data, name = _bytes(inp)
    return parse_trec(data, kind, name, comments=comments)


def read_trec_run(path: str | Path | Input, *, comments: bool = True, **run_options: Any) -> Run:
    """Read a TREC run file (``query Q0 item rank score tag [ignored ...]``); ``-`` is standard input.

    ``comments=False`` reads lines starting with ``#`` as data (trec_eval 9.0.8).
    """
    inp = path if isinstance(path, Input) else open_input(path)
    parsed = _direct(inp, "run", comments, run_options.get("order") == "rank")
    if parsed is not None:
        return _run_from(parsed, run_options)
    if not inp.restartable:  # a stream: parsed and checked as it arrives (io/streamed.py)
        from .streamed import read_trec_run_stream

        return read_trec_run_stream(inp, comments=comments, **run_options)
    data, name = _bytes(inp)
    return parse_trec_run_bytes(data, name, comments=comments, **run_options)


def read_trec_qrels(path: str | Path | Input, *, comments: bool = True, **options: Any) -> Qrels:
    """Read a TREC qrels file (``query iteration item grade``); ``-`` is standard input.

    ``comments=False`` reads lines starting with ``#`` as data (trec_eval 9.0.8).
    """
    inp = path if isinstance(path, Input) else open_input(path)
    parsed = _direct(inp, "qrels", comments, False)
    if parsed is not None:
        return _qrels_from(parsed, options)
    if not inp.restartable:  # a stream: parsed and checked as it arrives (io/streamed.py)
        from .streamed import read_trec_qrels_stream

        return read_trec_qrels_stream(inp, comments=comments, **options)
    data, name = _bytes(inp)
    return parse_trec_qrels_bytes(data, name, comments=comments, **options)



def read_run_stream_checked(inp: Input, *, comments: bool = True, block_bytes: int = 4 << 20,
                            check: Callable[[bytes, int], None] | None = None,
                            refused: Callable[[bytes, int], None] | None = None) -> bytes:
    """The whole text of a run on a stream (for trec_eval, which needs all of it), checked as it arrives.

    Each block of whole lines is parsed as it comes: the first item listed twice for one query
    (which trec_eval refuses) ends the reading at once, so an endless stream of one repeated line
    (``yes 'q1 Q0 a 1 1 t' | rankmeter trec_eval qrels -``) stops within its first block instead of
    filling the memory. Text the parser refuses is left to the caller, whose reader says it in
    trec_eval's terms. ``check(block, first_line)``, if given, is called on each block of whole
    lines first (it raises to end the reading). ``refused(block, first_line)``, if given, reads the
    block the parser refused and every later one (the caller's reader: it raises at the first line it
    cannot read, so that an endless stream of malformed lines ends at once too).

    >>> import io
    >>> s = Input("<stdin>", b"", False, False, None, None, io.BytesIO(b"q Q0 a 1 1 t\\nq Q0 a 2 1 t\\n"))
    >>> try:
    ...     read_run_stream_checked(s)
    ... except InputError as exc:
    ...     print(exc.line, exc.message)
    2 query q: item 'a' is listed twice for one query (trec_eval refuses duplicate docs)
    """
    from .. import _compute as C
    from ..data import Run
    from ..data.ids import bools
    from .streamed import Spool

    parts = Spool(inp.name)  # (the text on disk as it arrives: memory holds a block, not the stream)
    rest = b""
    line = 1
    checking = True
    walk = False  # a block was refused by the parser: ``refused`` reads the rest
    carry: pa.Table | None = None  # the rows of the last query of the blocks before (it may go on)
    carry_lines = np.zeros(0, dtype=np.int64)
    with open_timely(inp) as fh:  # (a pause hands over what came: a fault in it is reported at once)
        while True:
            data = fh.read(block_bytes)
            parts.append(data)
            if not checking:
                if not data:
                    break
                continue
            text = rest + data
            cut = max(text.rfind(b"\n"), text.rfind(b"\r")) if data else len(text) - 1
            if cut < 0:
                if not data:
                    break
                rest = text
                continue
            block, rest = text[: cut + 1], text[cut + 1:]
            if check is not None:
                check(block, line)
            if walk and refused is not None and block.strip():
                refused(block, line)
            elif block.strip():
                try:
                    parsed = parse_trec(block, "run", inp.name, comments=comments, first_line=line, empty_ok=True)
                except InputError:
                    if refused is None:
                        checking = False  # (the caller's reader reports it in trec_eval's terms)
                        continue
                    walk = True  # (from here on, the caller's reader: duplicates are then its to find)
                    refused(block, line)
                    line += _unify_line_ends(block).count(b"\n")
                    if not data:
                        break
                    continue
                t = parsed.table.select(["query", "item"])
                lines = parsed.lines()
                if carry is not None and t.num_rows:
                    t = pa.concat_tables([carry, t])
                    lines = np.concatenate([carry_lines, lines])
                if t.num_rows:
                    try:
                        Run.from_columns(t.column("query"), t.column("item"), order="given")
                    except RowError as exc:
                        n = int(lines[exc.row])
                        query = t.column("query")[exc.row].as_py()
                        item = t.column("item")[exc.row].as_py()
                        raise InputError(f"query {query}: item {item!r} is listed twice for one query (trec_eval "
                                         "refuses duplicate docs)", source=inp.name, line=n,
                                         text=line_text(parts.read(), n)) from None
                    q = t.column("query").combine_chunks()
                    change = np.flatnonzero(bools(C.not_equal(q.slice(1), q.slice(0, len(q) - 1))))
                    start = int(change[-1]) + 1 if len(change) else 0
                    # (a query longer than a million rows is checked within each block only)
                    carry = t.slice(start) if t.num_rows - start <= 1_000_000 else None
                    carry_lines = lines[start:]
            line += _unify_line_ends(block).count(b"\n")
            if not data:
                break
    data = parts.read()
    parts.close()
    return data
