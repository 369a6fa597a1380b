"""Judgments on a stream (``-``, a pipe, a FIFO), parsed and checked as they arrive.

:func:`read_trec_qrels_stream` reads TREC judgments from a stream in blocks of whole lines
(the block cutting of :mod:`rankmeter.io.blocks`), each parsed by the one TREC parser
(:func:`rankmeter.io.trec.parse_trec`) as it comes:

- the first malformed line (binary noise included) ends the reading with its error, naming
  the line, within the block that holds it;
- with ``duplicates="error"`` (the default), the first (query, item) judged twice ends the
  reading with the duplicate's error at the line of its second judgment, whether the
  first was in the same block or long before: an endless stream of one repeated line
  stops within its first block instead of filling the memory;
- memory is the judgments themselves (they are all needed: every query's relevant items)
  as Arrow columns, 16 bytes a judgment for the duplicate check, and one block of text;
  never the text of the stream.

The judgments are then the :class:`~rankmeter.data.Qrels` the file reader gives for the
same text.

>>> import io
>>> from .source import Input
>>> s = Input("<stdin>", b"", False, False, None, None, io.BytesIO(b"q1 0 a 1\\nq1 0 b 0\\nq1 0 a 2\\n"))
>>> try:
...     read_trec_qrels_stream(s)
... except InputError as exc:
...     print(exc.line, exc.message[:43])
3 duplicate judgment for query 'q1', item 'a'
>>> s = Input("<stdin>", b"", False, False, None, None, io.BytesIO(b"# c\\nq1 0 a 1\\nq1 0 b 0\\n"))
>>> q = read_trec_qrels_stream(s); q.to_dict(), q.notes
({'q1': {'a': 1.0, 'b': 0.0}}, ("1 comment line (starting with '#') was skipped in <stdin>",))
"""

from __future__ import annotations

import re
import tempfile
from dataclasses import replace
from typing import Any

import numpy as np
import pyarrow as pa

from .._errors import InputError
from ..data import Qrels, RowError
from .source import Input
from .trec import TrecText, comment_note, parse_trec

__all__ = ["read_trec_qrels_stream", "BLOCK_BYTES", "Spool", "read_stream_checked"]

#: bytes of text parsed at a time: a fault is reported after at most this much more of the stream
BLOCK_BYTES = 4 << 20

_MIX = np.uint64(0x9E3779B97F4A7C15)


def _pair_signatures(table: pa.Table) -> np.ndarray:
    """A 64-bit signature of every (query, item) pair: equal pairs, equal signatures (a filter: matches are
    confirmed on the ids themselves)."""
    from ..data.ids import string_signature

    with np.errstate(over="ignore"):
        sq = string_signature(table.column("query"))
        si = string_signature(table.column("item"))
        out: np.ndarray = (sq * _MIX) ^ ((si << np.uint64(7)) | (si >> np.uint64(57)))
    return out


class _Seen:
    """The (query, item) pairs of the blocks before, as sorted signatures with their row numbers."""

    def __init__(self) -> None:
        self.sigs = np.zeros(0, dtype=np.uint64)
        self.rows = np.zeros(0, dtype=np.int64)
        self.tables: list[pa.Table] = []
        self.starts: list[int] = []
        self.n = 0

    def pair(self, row: int) -> tuple[str, str]:
        k = int(np.searchsorted(np.asarray(self.starts), row, side="right")) - 1
        t, r = self.tables[k], row - self.starts[k]
        return t.column("query")[r].as_py(), t.column("item")[r].as_py()

    def first_repeat(self, table: pa.Table, sig: np.ndarray) -> int | None:
        """The first row of ``table`` whose pair was judged in an earlier block, or None."""
        if not len(self.sigs):
            return None
        lo = np.searchsorted(self.sigs, sig, side="left")
        hi = np.searchsorted(self.sigs, sig, side="right")
        for r in np.flatnonzero(hi > lo).tolist():  # (rare but for a real repeat: each confirmed on the ids)
            pair = (table.column("query")[r].as_py(), table.column("item")[r].as_py())
            if any(self.pair(int(g)) == pair for g in self.rows[lo[r]:hi[r]].tolist()):
                return int(r)
        return None

    def add(self, table: pa.Table, sig: np.ndarray) -> None:
        rows = np.arange(self.n, self.n + len(sig), dtype=np.int64)
        sigs = np.concatenate((self.sigs, sig))
        order = np.argsort(sigs, kind="stable")
        self.sigs, self.rows = sigs[order], np.concatenate((self.rows, rows))[order]
        self.tables.append(table)
        self.starts.append(self.n)
        self.n += table.num_rows


def _repeat_error(parsed: TrecText, row: int, count: int) -> InputError:
    t = parsed.table
    line, text = parsed.line_of(row)
    return InputError(f"duplicate judgment for query {t.column('query')[row].as_py()!r}, item "
                      f"{t.column('item')[row].as_py()!r} ({count} duplicate rows so far; choose a policy with "
                      "duplicates='max'|'first'|'last')", source=parsed.source, line=line, text=text)


def read_trec_qrels_stream(inp: Input, *, comments: bool = True, duplicates: str = "error",
                           block_bytes: int = BLOCK_BYTES, **options: Any) -> Qrels:
    """TREC judgments from a stream, parsed and checked block by block (see the module docstring)."""
    from .blocks import RunBlocks

    cutter = RunBlocks(inp, "trec", "score", {}, comments)
    seen = _Seen() if duplicates == "error" else None
    tables: list[pa.Table] = []
    comment_lines = 0
    for block, line in cutter._text_chunks(0, block_bytes):
        parsed = parse_trec(block, "qrels", inp.name, comments=comments, first_line=line, empty_ok=True)
        comment_lines += parsed.comment_lines
        t = parsed.table
        if not t.num_rows:
            continue
        if seen is not None:
            within: int | None = None
            count = 0
            try:
                Qrels.from_columns(t.column("query"), t.column("item"), t.column("grade"))
            except RowError as exc:
                if not exc.message.startswith("duplicate judgment"):
                    raise parsed.error(exc) from None
                within = exc.row
                found = re.findall(r"\((\d+) duplicate rows in all;", exc.message)
                count = int(found[-1]) if found else 1
            sig = _pair_signatures(t)
            before = seen.first_repeat(t, sig)
            if before is not None or within is not None:
                row = min(r for r in (before, within) if r is not None)
                raise _repeat_error(parsed, row, max(count, 1))
            seen.add(t, sig)
        tables.append(t)
    if not tables:
        raise InputError("no judgment lines (the input is empty or only comments)", source=inp.name)
    table = pa.concat_tables(tables)
    del seen, tables
    try:
        q = Qrels.from_columns(table.column("query"), table.column("item"), table.column("grade"),
                               duplicates=duplicates, **options)  # type: ignore[arg-type]  # checked by Qrels
    except RowError as exc:  # (the blocks' text is gone: the message without its line)
        raise InputError(exc.message, source=inp.name) from None
    if comment_lines:
        q = replace(q, comment_lines=comment_lines, notes=q.notes + (comment_note(comment_lines, inp.name),))
    return q


class Spool:
    """The text of a stream kept in an unlinked temporary file as it arrives, for a reader that needs all of it at
    the end (trec_eval's): memory holds a block, not the stream; the file is gone however the process ends.

    >>> s = Spool("<stdin>"); s.append(b"a\\n"); s.append(b"b\\n"); s.size, s.read()
    (4, b'a\\nb\\n')
    >>> s.close()
    """

    def __init__(self, source: str) -> None:
        self.source = source
        self.size = 0
        self.file = tempfile.TemporaryFile(prefix="rankmeter-stream-")

    def append(self, data: bytes) -> None:
        try:
            self.file.write(data)
        except OSError as exc:
            import errno

            code = errno.errorcode.get(exc.errno or 0, "")
            raise InputError(f"cannot keep the text of the stream in a temporary file in {tempfile.gettempdir()} "
                             f"({exc.strerror or exc}{f', {code}' if code else ''}); write it to a file first",
                             source=self.source) from None
        self.size += len(data)

    def read(self) -> bytes:
        """Everything appended so far."""
        self.file.flush()
        self.file.seek(0)
        data = self.file.read()
        self.file.seek(0, 2)
        return data

    def close(self) -> None:
        self.file.close()


def read_stream_checked(inp: Input, *, block_bytes: int = BLOCK_BYTES) -> bytes:
    """The whole text of a stream, for a reader that needs all of it before it can parse (the interactions of
    ``split``), checked as it arrives and kept on disk until its end (:class:`Spool`): memory holds a block
    while the stream lasts, not the stream.

    What is checked block by block: the line length (:meth:`Input.open`) and binary data, a zero byte,
    which no text format holds (an error naming its line, within the block that holds it, whatever follows).
    A table format (Parquet, Arrow IPC) has its footer at its end: it is only kept.

    >>> import io
    >>> s = Input("<stdin>", b"", False, False, None, None, io.BytesIO(b"u,i\\n1,2\\n\\x00\\x01\\n"))
    >>> try:
    ...     read_stream_checked(s)
    ... except InputError as exc:
    ...     print(exc.line, exc.message.split(":")[0])
    3 binary data (a zero byte), not text
    """
    binary = inp.head[:4] == b"PAR1" or inp.head[:6] == b"ARROW1"
    spool = Spool(inp.name)
    line = 1
    cr = False  # the block before ended with \\r (a \\n first in this one ends the same line)
    try:
        with inp.open(text=not binary) as fh:
            while True:
                data = fh.read(block_bytes)
                if not data:
                    break
                if not binary:
                    if cr and data[:1] == b"\n":
                        line -= 1
                    cr = data[-1:] == b"\r"
                    zero = data.find(b"\x00")
                    if zero >= 0:
                        before = data[:zero]
                        at = line + before.replace(b"\r\n", b"\n").replace(b"\r", b"\n").count(b"\n")
                        start = max(before.rfind(b"\n"), before.rfind(b"\r")) + 1
                        raise InputError("binary data (a zero byte), not text: the interactions are a text or "
                                         "table format", source=inp.name, line=at,
                                         text=data[start:start + 200].decode("utf-8", "replace"))
                    line += data.replace(b"\r\n", b"\n").replace(b"\r", b"\n").count(b"\n")
                spool.append(data)
        return spool.read()
    finally:
        spool.close()
