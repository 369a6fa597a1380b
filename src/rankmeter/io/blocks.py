"""Block readers: a run input read piece by piece, for streaming evaluation.

:func:`open_run_blocks` opens a run (TREC text, CSV/TSV, Parquet, Arrow IPC/Feather; a
file, ``-``, a FIFO or ``/dev/stdin``; compressed or not) and returns a :class:`RunBlocks`.
Its :meth:`~RunBlocks.blocks` yields :class:`Block` objects, each a standardized
Arrow table with the columns

- ``query``: string, ``item``: string (ids as text, exactly as the in-process
  readers give them: text files never type-inferred, integers as decimal text,
  float or nested ids refused),
- ``score``: float64 (finite; present unless the run is ranked by rank only),
- ``rank``: only with ``order="rank"``: the text as written for text inputs (checked to be a
  number), int64 or float64 for typed ones (integer ranks are compared exactly),

plus ``first_row`` (the number of rows before the block) and ``lines`` (the line
number of every row, for text inputs; None for Parquet). A ``Block`` also unpacks
as ``(table, first_row)``.

The blocks are parsed by the code of the in-process readers: the one TREC parser
(:func:`rankmeter.io.trec.parse_trec`), the same CSV typing and the same column
resolver, so the same input gives the same rows either way. Errors are
:class:`~rankmeter.InputError` with file:line (``r.txt:7: rank is not a number
('x')``). After the iteration, ``comment_lines`` holds the number of TREC comment
lines skipped and ``notes`` the matching note.

Memory is bounded by the block: text is read ``block_bytes`` at a time (about 48
bytes a row, between 64 KiB and 256 MiB) and cut at the last line end, Parquet by
row batches, Arrow IPC/Feather by its record batches (memory-mapped). (Parquet and Arrow from a
pipe or a compressed file have to be read whole first: the footer
is at its end.)

:meth:`RunBlocks.line_of` maps a row number to ``(line, text)``: rows of the last
few blocks are answered from memory; older ones by reading a restartable input
again (a stream answers ``(None, None)``). ``restartable`` says whether
:meth:`~RunBlocks.blocks` may be called again (files, not streams);
``total_rows`` is exact for Parquet and an estimate for text files once the first
block is read (None for streams and compressed text).

>>> import os, tempfile
>>> d = tempfile.mkdtemp(); p = os.path.join(d, "run.txt")
>>> _ = open(p, "w").write("# c\\nq1 Q0 007 1 2.5 t\\nq1 Q0 d2 2 1.5 t\\nq2 Q0 d1 1 1 t\\n")
>>> src = open_run_blocks(p)
>>> [(b.table.column("item").to_pylist(), b.first_row, b.lines.tolist()) for b in src.blocks(2)]
[(['007', 'd2', 'd1'], 0, [2, 3, 4])]
>>> src.comment_lines, src.line_of(2)
(1, (4, 'q2 Q0 d1 1 1 t'))
"""

from __future__ import annotations

import os
from collections import deque
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterator, Mapping, cast

import numpy as np
import pyarrow as pa

from .._errors import InputError, ParameterError
from ..data import RowError
from .columns import id_column, number_column, rank_column
from .loaders import detect_format, run_columns
from .source import Input, MappedSpan, open_input, open_timely
from .tables import CsvText, csv_header, parse_csv, read_arrow
from .trec import TrecText, comment_note, parse_trec

__all__ = ["Block", "RunBlocks", "open_run_blocks", "standardize"]

_KEEP_BLOCKS = 8  # blocks whose row -> line maps are kept for line_of


@dataclass(eq=False)
class Block:
    """A standardized table of run rows, its first row number and the line of every row."""

    table: pa.Table
    first_row: int
    text: TrecText | CsvText | None = None  # the parsed text (None for Parquet)
    paused: bool = False  # a stream paused after this block's text: what came is all there is for now

    @property
    def lines(self) -> np.ndarray | None:
        """The line number of every row (text inputs), worked out when asked for."""
        return None if self.text is None else self.text.lines()

    def __iter__(self) -> Iterator[Any]:
        yield self.table
        yield self.first_row


def _numbers(values: np.ndarray) -> pa.Array:
    """A numeric numpy array as an Arrow array over its memory (``pa.array`` would first import pandas, 0.2 s).

    >>> _numbers(np.array([1.5, 2.0])).to_pylist()
    [1.5, 2.0]
    """
    a = np.ascontiguousarray(values)
    if a.dtype.kind not in "iuf":
        return pa.array(a)
    return pa.Array.from_buffers(pa.from_numpy_dtype(a.dtype), len(a), [None, pa.py_buffer(a)])


def standardize(table: pa.Table, cols: Mapping[str, str], order: str, source: str, text: bool = True,
                keep_ints: bool = False) -> pa.Table:
    """``query``/``item`` as text, ``score``/``rank`` as float64, from a table and its resolved columns.

    ``keep_ints`` leaves integer ids as numbers (:func:`~rankmeter.io.columns.id_column`).
    Raises RowError (row of ``table``) for a missing/empty id or a bad number, and
    InputError for a column of the wrong type.
    """
    out: dict[str, Any] = {
        "query": id_column(table.column(cols["query"]), "query", cols["query"], source, keep_ints),
        "item": id_column(table.column(cols["item"]), "item", cols["item"], source, keep_ints),
    }
    if "score" in cols:
        out["score"] = _numbers(number_column(table.column(cols["score"]), "score", cols["score"], source,
                                                 text=text))
    if order == "rank":
        # integer ranks stay exact (int64: 1e20 and 1e20 + 1 never tie): text stays text once checked, so
        # that every block has one type whatever its values (the evaluation core reads it as the readers do)
        ranks = rank_column(table.column(cols["rank"]), cols["rank"], source, text=text)
        col = table.column(cols["rank"])
        out["rank"] = col if (text and pa.types.is_string(col.type)) else _numbers(ranks)
    return pa.table(out)


class RunBlocks:
    """A run input read block by block (see the module docstring)."""

    def __init__(self, inp: Input, fmt: str, order: str, given: Mapping[str, str | None], comments: bool,
                 keep_ints: bool = False) -> None:
        self.input = inp
        self.keep_ints = keep_ints  # integer ids of Parquet blocks left as numbers (for the evaluation core)
        self.source = inp.name
        self.format = fmt
        self.order = order
        self.comments = comments
        self.restartable = inp.restartable
        self.total_rows: int | None = None
        self.comment_lines = 0
        self._recent: deque[tuple[int, int, Any]] = deque(maxlen=_KEEP_BLOCKS)
        self._used = False
        self._map: Any = None  # the file's memory map (map_span), unmapped when collected
        self.paused = False  # the stream paused after the last text read
        given = dict(given)
        if fmt == "trec":
            self.cols = {"query": "query", "item": "item", "score": "score"}
            if order == "rank":
                self.cols["rank"] = "rank"
        elif fmt in ("csv", "tsv"):
            self.sep = "\t" if fmt == "tsv" else ","
            self.header = csv_header(inp.head, self.sep)
            self.cols, self.order = run_columns(self.header, self.source, order, given)
        elif fmt == "parquet":
            import pyarrow.parquet as pq

            try:
                target = str(inp.path) if inp.plain_file else pa.BufferReader(inp.read_all(text=False))
                self.file = pq.ParquetFile(target, pre_buffer=False)
            except (pa.ArrowInvalid, OSError) as exc:
                raise InputError(f"not a readable Parquet file ({exc})", source=self.source) from None
            self.cols, self.order = run_columns(self.file.schema_arrow.names, self.source, order, given)
            self.total_rows = self.file.metadata.num_rows
        elif fmt == "arrow":  # Arrow IPC/Feather: memory-mapped when a plain file, its batches cut to size
            self.arrow = read_arrow(inp)
            self.cols, self.order = run_columns(self.arrow.column_names, self.source, order, given)
            self.total_rows = self.arrow.num_rows
        else:
            raise ParameterError(
                f"The 'format' parameter must be 'auto', 'trec', 'csv', 'tsv', 'parquet' or 'arrow'. Got {fmt!r} "
                "instead.")

    @property
    def notes(self) -> tuple[str, ...]:
        return (comment_note(self.comment_lines, self.source),) if self.comment_lines else ()

    # ------------------------------------------------------------------ reading

    def blocks(self, rows: int, block_bytes: int | None = None) -> Iterator[Block]:
        """Blocks of about ``rows`` rows (text: about ``rows * 48`` bytes, or ``block_bytes``), in file order."""
        if self._used and not self.restartable:
            raise InputError("a stream can be read only once (the run is not grouped by query: write it to a file, "
                             "or group its rows by query)", source=self.source)
        self._used = True
        self._recent.clear()
        if self.format in ("parquet", "arrow"):
            yield from self._parquet_blocks(rows)
        else:
            yield from self._text_blocks(rows, block_bytes)

    def _parquet_blocks(self, rows: int) -> Iterator[Block]:
        first = 0
        names = list(dict.fromkeys(self.cols.values()))
        batches = self.arrow.select(names).to_batches(max_chunksize=rows) if self.format == "arrow" else \
            self.file.iter_batches(batch_size=rows, columns=names, use_threads=True)
        for batch in batches:
            if not batch.num_rows:
                continue
            table = pa.Table.from_batches([batch])
            try:
                std = standardize(table, self.cols, self.order, self.source, text=False, keep_ints=self.keep_ints)
            except RowError as exc:
                raise InputError(exc.message, source=self.source, line=first + exc.row + 1) from None
            yield Block(std, first, None)
            first += std.num_rows

    def _text_chunks(self, rows: int, block_bytes: int | None) -> Iterator[tuple[Any, Any]]:
        """Byte blocks cut at a line end, with the line number of their first line (for a regular file: a
        function giving it, since counting lines costs more than parsing them and is only needed for a message)."""
        size = block_bytes or max(1 << 16, min(rows * 48, 1 << 28))
        if self.input.plain_file:
            self.input.check_lines()
            yield from self._file_chunks(size)
            return
        line = 1
        rest = b""
        # a stream: read as its text arrives (a pause hands over what came, so a fault in it is reported at once)
        with self.input.open() if self.input.restartable else open_timely(self.input) as fh:
            while True:
                data = fh.read(size)
                self.paused = bool(getattr(fh, "paused", False))  # (read by _text_blocks with the block)
                eof = not data
                data = rest + data
                if not data:
                    return
                if eof:
                    cut = len(data) - 1
                else:
                    cut = max(data.rfind(b"\n"), data.rfind(b"\r"))
                    if cut == len(data) - 1 and data.endswith(b"\r"):  # perhaps the first half of \r\n
                        cut = max(data.rfind(b"\n", 0, cut), data.rfind(b"\r", 0, cut))
                    if cut < 0:
                        rest = data
                        continue
                block, rest = data[: cut + 1], data[cut + 1:]
                yield block, line
                unified = block.replace(b"\r\n", b"\n").replace(b"\r", b"\n") if b"\r" in block else block
                line += unified.count(b"\n")
                if eof:
                    return

    def _file_chunks(self, size: int) -> Iterator[tuple[bytes, Any]]:
        """Blocks of a regular file, each ending at a line end: the end is found first (in the last bytes
        before the block's nominal end), then the block is read in one piece (no copy, no carried-over tail)."""
        for start, end in self._spans(size, by_query=False):
            yield self.read_span(start, end)

    def query_spans(self, size: int) -> Iterator[tuple[int, int]]:
        """Byte ranges of a regular TREC text file, each ending where a query ends: ranges that can be read,
        parsed and evaluated independently (:meth:`map_span`, :meth:`parse_block`).

        Only the last bytes before a range's nominal end are read here, to find the start of its last
        query's first line; a query longer than the range makes the range longer. (A file not grouped by
        query still gives every row once.)
        """
        assert self.format == "trec" and self.input.plain_file
        self.input.check_lines()
        return self._spans(size, by_query=True)

    def _spans(self, size: int, by_query: bool) -> Iterator[tuple[int, int]]:
        """Consecutive byte ranges of a regular file of about ``size`` bytes, each ending at a line end (or,
        ``by_query``, where a query ends); a line or query longer than ``size`` makes its range longer."""
        path = self.input.path
        assert path is not None
        start = 0
        with open(path, "rb") as fh:
            total = os.fstat(fh.fileno()).st_size
            while start < total:
                end = min(start + size, total)
                if end < total:
                    cut = _last_line_end(fh, start, end, total)
                    at = cut + 1 if (cut >= 0 and not by_query) else \
                        (-1 if cut < 0 else _query_start_before(fh, start, cut + 1))
                    if at <= start:  # one line (query) fills the range: a longer range
                        size *= 2
                        continue
                    end = at
                yield start, end
                start = end

    def read_span(self, start: int, end: int) -> tuple[bytes, Any]:
        """The bytes of a range of the file and the line number of its first line (as a function)."""
        path = self.input.path
        assert path is not None
        with open(path, "rb") as fh:
            fh.seek(start)
            return fh.read(end - start), _LineAt(path, start)

    def map_span(self, start: int, end: int) -> tuple[MappedSpan, Any]:
        """:meth:`read_span` without reading: the range of a memory map of the file (mapped once)."""
        if self._map is None:
            import mmap

            path = self.input.path
            assert path is not None
            with open(path, "rb") as fh:  # (the map stays valid after the file is closed)
                self._map = mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ)
        assert self.input.path is not None
        return MappedSpan(self._map, start, end), _LineAt(self.input.path, start)

    def parse_block(self, data: bytes | MappedSpan, line: Any) -> tuple[pa.Table, TrecText]:
        """One block of :meth:`query_blocks` as a standardized table (safe to call from several threads)."""
        if isinstance(line, _LineAt) and line.offset == 0 and data.startswith(b"\xef\xbb\xbf"):
            data = data[3:]
        # (the callers' threads share the work: Arrow's own pool would only compete with them)
        parsed = parse_trec(cast(bytes, data), "run", self.source, comments=self.comments,
                            rank=self.order == "rank", first_line=line, empty_ok=True, threads=False)
        table = parsed.table
        if self.order == "rank" and table.num_rows:
            try:
                table = standardize(table, self.cols, self.order, self.source)
            except RowError as exc:
                raise parsed.error(exc) from None
        return table, parsed

    def _text_blocks(self, rows: int, block_bytes: int | None) -> Iterator[Block]:
        first = 0
        self.comment_lines = 0
        header_seen = self.format == "trec"
        for data, line in self._text_chunks(rows, block_bytes):
            at = line if isinstance(line, _LineAt) else None  # a block of a regular file: re-readable
            length = len(data)
            at_start = at.offset == 0 if at is not None else line == 1
            if at_start and data.startswith(b"\xef\xbb\xbf"):
                data = data[3:]
            if self.format != "trec" and callable(line):
                line = line()
            if not header_seen:  # drop the header line of CSV/TSV
                stripped = data.lstrip(b"\r\n")
                if not stripped:
                    continue
                line += data[: len(data) - len(stripped)].replace(b"\r\n", b"\n").replace(b"\r", b"\n").count(b"\n")
                end = min([i for i in (stripped.find(b"\n"), stripped.find(b"\r")) if i >= 0], default=len(stripped))
                if stripped[end:end + 2] == b"\r\n":
                    end += 1
                data = stripped[end + 1:]
                line += 1
                header_seen = True
                if not data.strip():
                    continue
            parsed = self._parse(data, line)
            n = parsed.table.num_rows
            if self.total_rows is None and n and self.input.plain_file and self.input.size:
                self.total_rows = max(n, int(n * self.input.size / max(len(data), 1)))
            if n:
                # rows -> lines of recent blocks, for messages; a file's block is read again when asked
                kept = parsed if (at is None or not isinstance(parsed, TrecText)) else \
                    TrecText(parsed.table.slice(0, 0), parsed.comment_lines, parsed.source, parsed.first_line,
                             _load=at.reader(length))
                self._recent.append((first, n, kept))
                table = parsed.table
                try:
                    # the TREC parser's table is standard already, but for a rank column (text as written)
                    std = table if (self.format == "trec" and self.order != "rank") else \
                        standardize(table, self.cols, self.order, self.source)
                except RowError as exc:
                    raise parsed.error(exc) if isinstance(parsed, TrecText) else _csv_error(parsed, exc) from None
                yield Block(std, first, parsed, paused=self.paused)
                first += n
        if first == 0:
            if self.format == "trec":
                raise InputError("no run lines (the file is empty or only comments)", source=self.source)
            raise InputError("no rows after the header", source=self.source)

    def _parse(self, data: Any, line: Any) -> TrecText | CsvText:
        if self.format == "trec":
            parsed = parse_trec(data, "run", self.source, comments=self.comments, rank=self.order == "rank",
                                first_line=line, empty_ok=True)
            self.comment_lines += parsed.comment_lines
            return parsed
        keep = list(dict.fromkeys(self.cols.values()))
        ids = [self.cols["query"], self.cols["item"]] + ([self.cols["rank"]] if "rank" in self.cols else [])
        values = [c for c in keep if c not in ids]
        return parse_csv(data, self.sep, self.source, text=ids, numbers=values, keep=keep, names=self.header,
                         first_line=line)

    # ------------------------------------------------------------------ rows to lines

    def line_of(self, row: int) -> tuple[int | None, str | None]:
        """Line number and text of row ``row`` (None, None when a stream's block is gone)."""
        if self.format in ("parquet", "arrow"):
            return row + 1, None
        for first, n, parsed in self._recent:
            if first <= row < first + n:
                return cast("tuple[int | None, str | None]", parsed.line_of(row - first))
        if not self.restartable:
            return None, None
        again = RunBlocks(self.input, self.format, self.order, self.cols if self.format != "trec" else {},
                          self.comments, self.keep_ints)
        for block in again.blocks(1 << 16):
            n = block.table.num_rows
            if block.first_row <= row < block.first_row + n:
                return again.line_of(row)
        return None, None


def _last_line_end(fh: Any, start: int, end: int, total: int) -> int:
    """The offset of the last line end (\\n, or \\r not followed by \\n) in ``[start, end)``, -1 if none;
    a \\r\\n pair cut by ``end`` ends at its \\n."""
    hi = end
    while hi > start:
        lo = max(start, hi - (1 << 16))
        fh.seek(lo)
        window = fh.read(hi - lo)
        k = max(window.rfind(b"\n"), window.rfind(b"\r"))
        if k >= 0:
            cut = lo + k
            if window[k] == 13 and cut + 1 < total:  # \r: perhaps the first half of \r\n
                fh.seek(cut + 1)
                if fh.read(1) == b"\n":
                    cut += 1
            return cast("int", cut)
        hi = lo
    return -1


def _first_token(line: bytes) -> bytes:
    """A line's first field (fields split at ASCII blanks, as trec_eval's isspace); b"" for a blank line."""
    parts = line.split(None, 1)
    return parts[0] if parts else b""


def _last_query_start(block: bytes, partial_head: bool = False) -> int:
    """The offset of the first line of the block's last query (0: the whole block is one query; -1 when
    ``partial_head`` (the block's first line may be cut) and the walk reached that line).

    The block ends with a line end; lines are walked back from its last one while their first
    field is the same query id.
    """
    def line_start(end: int) -> int:  # the start of the line ending just before ``end``
        nl = block.rfind(b"\n", 0, end)
        return max(nl, block.rfind(b"\r", nl + 1, end)) + 1  # (a \r only after the \n: no rescan)

    end = len(block) - 1  # the last line end
    if end > 0 and block[end] == 10 and block[end - 1] == 13:
        end -= 1
    i = line_start(end)
    query = _first_token(block[i:end])
    while i > 0:
        j_end = i - 1  # the line end before line i
        if j_end > 0 and block[j_end] == 10 and block[j_end - 1] == 13:
            j_end -= 1
        j = line_start(j_end)
        if j == 0 and partial_head:
            return -1
        if _first_token(block[j:j_end]) != query:
            return i
        i = j
    return -1 if partial_head else 0


def _query_start_before(fh: Any, start: int, end: int) -> int:
    """The offset of the first line of the last query in ``[start, end)`` (``end`` just after a line end);
    ``start`` when that query begins at ``start`` or earlier."""
    window = 1 << 16
    while True:
        lo = max(start, end - window)
        fh.seek(lo)
        tail = fh.read(end - lo)
        at = _last_query_start(tail, partial_head=lo > start)
        if at > 0:
            return lo + at
        if at == 0 and lo == start:
            return start
        window *= 4


class _LineAt:
    """The line number at a byte offset of a file, counted when asked for (line ends: \\n, \\r\\n, \\r)."""

    def __init__(self, path: Path, offset: int) -> None:
        self.path, self.offset = path, offset

    def reader(self, length: int) -> Callable[[], bytes]:
        """A function reading the ``length`` bytes from here again."""
        def read() -> bytes:
            with open(self.path, "rb") as fh:
                fh.seek(self.offset)
                return fh.read(length)
        return read

    def __call__(self) -> int:
        if self.offset == 0:
            return 1
        with open(self.path, "rb") as fh:
            head = fh.read(self.offset)
        if b"\r" in head:
            head = head.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
        return head.count(b"\n") + 1


def _csv_error(parsed: CsvText, exc: RowError) -> InputError:
    line, text = parsed.line_of(exc.row)
    return InputError(exc.message, source=parsed.source, line=line, text=text)


def open_run_blocks(run: str | os.PathLike[str] | Input, *, format: str = "auto", order: str = "score",
                    query: str | None = None, item: str | None = None, score: str | None = None,
                    rank: str | None = None, comments: bool = True, keep_ints: bool = False) -> RunBlocks:
    """Open a run input for block reading (see the module docstring). ``keep_ints``: Parquet's integer
    ids stay numbers (:func:`~rankmeter.io.columns.id_column`), for the evaluation core."""
    inp = run if isinstance(run, Input) else open_input(Path(run) if not isinstance(run, str) else run)
    fmt = detect_format(inp) if format == "auto" else format
    return RunBlocks(inp, fmt, order, {"query": query, "item": item, "score": score, "rank": rank}, comments,
                     keep_ints)
