"""Inputs on a stream (``-``, a pipe, a FIFO), parsed and checked as they arrive.

Every reader here cuts a stream into blocks of whole lines (the block cutting of
:mod:`rankmeter.io.blocks`, which hands over what came when the stream pauses) and
parses each with the one TREC parser (:func:`rankmeter.io.trec.parse_trec`) as it comes,
so the first malformed line (binary noise included) ends the reading with its error,
naming the line, whatever follows:

- :func:`read_trec_qrels_stream`: judgments. With ``duplicates="error"`` (the default),
  the first (query, item) judged twice ends the reading at the line of its second
  judgment, whether the first was in the same block or long before: an endless stream
  of one repeated line stops within its first block. Memory: the judgments themselves
  (all are needed) as Arrow columns, 8 bytes a judgment for the check, one block of text.
- :func:`read_trec_run_stream`: a run, for the commands that need all of it (``fuse``,
  ``overlap``, ``pool``...): an item twice within a query's rows so far ends it. Memory:
  the rows as Arrow columns and their line numbers, never the text.
- :func:`read_stream_checked`: the text itself, for a reader that parses only at the end
  (``split``'s interactions, ``trec_eval``'s judgments), kept in an unlinked temporary
  file (:class:`Spool`) as it arrives: memory holds a block. Zero bytes, and what the
  caller's checks refuse (:class:`RepeatedPairs`: judgments given twice), end it at once.

What they give equals what the whole-text readers give for the same text, wherever the
blocks are cut (``tests/io/test_streamed.py``).

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

import tempfile
from dataclasses import replace
from typing import Any, Callable

import numpy as np
import pyarrow as pa

from .._errors import InputError
from ..data import Qrels, RowError, Run
from .source import Input
from .trec import TrecText, comment_note, parse_trec

__all__ = ["read_trec_qrels_stream", "read_trec_run_stream", "BLOCK_BYTES", "Spool", "read_stream_checked",
           "RepeatedPairs"]

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
    """The (query, item) pairs of the blocks before: their signatures in a few sorted runs (merged as they grow,
    so adding a block costs about its size times the log of the count) and the blocks' tables (a signature
    that matches is confirmed on the ids themselves)."""

    def __init__(self, earlier: Callable[[], list[pa.Table]] | None = None) -> None:
        self.runs: list[np.ndarray] = []
        self.tables: list[pa.Table] = []
        # without the tables kept: what gives the earlier blocks' rows again when a signature matches
        self.earlier = earlier

    def _find(self, pair: tuple[str, str]) -> bool:
        import pyarrow.compute as pc

        # (only for a signature that matched: a real repeat, or once in 10^12 pairs)
        for t in (self.tables if self.earlier is None else self.earlier()):
            same = pc.and_(pc.equal(t.column("query"), pair[0]), pc.equal(t.column("item"), pair[1]))
            if pc.any(same).as_py():
                return True
        return False

    def first_repeat(self, table: pa.Table, order: np.ndarray, ordered: np.ndarray) -> tuple[int | None, int]:
        """The first row of ``table`` whose pair was judged in an earlier block (or None), and how many rows
        are such repeats; ``ordered`` is the block's signatures sorted, ``order`` the rows in that order (sorted
        needles: the searches walk each run once, not at random)."""
        hit = np.zeros(len(ordered), dtype=bool)
        for run in self.runs:
            at = np.minimum(np.searchsorted(run, ordered), len(run) - 1)
            hit |= run[at] == ordered
        rows = np.sort(order[hit])
        for r in rows.tolist():
            if self._find((table.column("query")[r].as_py(), table.column("item")[r].as_py())):
                return int(r), len(rows)
        return None, 0

    def add(self, table: pa.Table, ordered: np.ndarray) -> None:
        new = ordered
        while self.runs and len(self.runs[-1]) <= len(new):
            # two sorted runs: joined (the parts are let go at once), then merged in place by numpy's stable sort
            # in linear time; a sorted copy beside the parts made the peak three times the runs' size
            new = np.concatenate((self.runs.pop(), new))
            new.sort(kind="stable")
        self.runs.append(new)
        if self.earlier is None:
            self.tables.append(table)


def _first_within(table: pa.Table, order: np.ndarray, ordered: np.ndarray) -> tuple[int | None, int]:
    """The first row of ``table`` that repeats a pair of an earlier row of it, and how many rows do
    (``ordered``: the signatures sorted stably, ``order``: the rows in that order)."""
    same = np.flatnonzero(ordered[1:] == ordered[:-1])
    if not len(same):
        return None, 0
    q, i = table.column("query"), table.column("item")
    first = None
    for a, b in sorted(zip(order[same].tolist(), order[same + 1].tolist(), strict=True), key=lambda x: x[1]):
        if q[a].as_py() == q[b].as_py() and i[a].as_py() == i[b].as_py():
            first = b
            break
    return first, len(same)


class RepeatedPairs:
    """A check of TREC judgments arriving block by block (:func:`read_stream_checked`'s ``repeats``): the
    first (query, item) judged twice raises ``message(query, item)`` at its line, whether the first judgment
    was in the same block or long before; memory is 8 bytes a judgment (the text is on disk: a signature
    that matches is confirmed on the judgments read from it again).

    A block the parser refuses is given to ``refused(block, first_line)`` (the caller's reader, which says
    why in its terms, or reads it); the check is then off.
    """

    def __init__(self, source: str, message: Callable[[str, str], str], *, comments: bool = True,
                 refused: Callable[[bytes, int], None] | None = None) -> None:
        self.source = source
        self.message = message
        self.comments = comments
        self.refused = refused
        self.on = True
        self.text: Callable[[], bytes] | None = None
        self.seen = _Seen(earlier=self._earlier)

    def _earlier(self) -> list[pa.Table]:
        assert self.text is not None
        return [parse_trec(self.text(), "qrels", self.source, comments=self.comments).table]

    def __call__(self, block: bytes, line: int, text: Callable[[], bytes]) -> None:
        if not self.on:
            return
        self.text = text
        try:
            parsed = parse_trec(block, "qrels", self.source, comments=self.comments, first_line=line, empty_ok=True)
        except InputError:
            self.on = False
            if self.refused is not None:
                self.refused(block, line)
            return
        t = parsed.table
        if not t.num_rows:
            return
        sig = _pair_signatures(t)
        order = np.argsort(sig, kind="stable")
        ordered = sig[order]
        within, _ = _first_within(t, order, ordered)
        before, _ = self.seen.first_repeat(t, order, ordered)
        if before is not None or within is not None:
            row = min(r for r in (before, within) if r is not None)
            at, quoted = parsed.line_of(row)
            raise InputError(self.message(t.column("query")[row].as_py(), t.column("item")[row].as_py()),
                             source=self.source, line=at, text=quoted)
        self.seen.add(t, ordered)


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
            sig = _pair_signatures(t)
            order = np.argsort(sig, kind="stable")
            ordered = sig[order]
            within, count = _first_within(t, order, ordered)
            before, earlier = seen.first_repeat(t, order, ordered)
            if before is not None or within is not None:
                row = min(r for r in (before, within) if r is not None)
                raise _repeat_error(parsed, row, max(count + earlier, 1))
            seen.add(t, ordered)
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
        fields: dict[str, Any] = {"comment_lines": comment_lines,
                                  "notes": q.notes + (comment_note(comment_lines, inp.name),)}
        q = q.annotated(**fields)  # (keeps what coding the ids found, which dataclasses.replace drops)
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


def read_stream_checked(inp: Input, *, block_bytes: int = BLOCK_BYTES,
                        check: Callable[[bytes, int], None] | None = None,
                        repeats: RepeatedPairs | None = None) -> bytes:
    """The whole text of a stream, for a reader that needs all of it before it can parse (the interactions of
    ``split``, ``trec_eval``'s judgments), checked as it arrives and kept on disk until its end
    (:class:`Spool`): memory holds a block while the stream lasts, not the stream.

    What is checked in each block of whole lines: the line length (:meth:`Input.open`), binary data (a zero
    byte, which no text format holds: an error naming its line, within the block that holds it, whatever
    follows), ``check(block, first_line)`` when given (it raises to end the reading), and ``repeats``
    (:class:`RepeatedPairs`: judgments given twice), given the text so far to confirm a match. A table format
    (Parquet, Arrow IPC) has its footer at its end: it is only kept.

    >>> import io
    >>> s = Input("<stdin>", b"", False, False, None, None, io.BytesIO(b"u,i\\n1,2\\n\\x00\\x01\\n"))
    >>> try:
    ...     read_stream_checked(s)
    ... except InputError as exc:
    ...     print(exc.line, exc.message)
    3 binary data (a zero byte), not text
    """
    from .blocks import RunBlocks

    spool = Spool(inp.name)
    try:
        if inp.head[:4] == b"PAR1" or inp.head[:6] == b"ARROW1":
            with inp.open(text=False) as fh:
                while data := fh.read(block_bytes):
                    spool.append(data)
            return spool.read()
        for block, line in RunBlocks(inp, "trec", "score", {}, True)._text_chunks(0, block_bytes):
            zero = block.find(b"\x00")
            if zero >= 0:
                before = block[:zero]
                at = line + before.replace(b"\r\n", b"\n").replace(b"\r", b"\n").count(b"\n")
                start = max(before.rfind(b"\n"), before.rfind(b"\r")) + 1
                raise InputError("binary data (a zero byte), not text", source=inp.name, line=at,
                                 text=block[start:start + 200].decode("utf-8", "replace"))
            if check is not None:
                check(block, line)
            if repeats is not None:
                repeats(block, line, spool.read)
            spool.append(block)
        return spool.read()
    finally:
        spool.close()


def read_trec_run_stream(inp: Input, *, comments: bool = True, block_bytes: int = BLOCK_BYTES,
                         **run_options: Any) -> Run:
    """A TREC run from a stream, for the commands that need all of it (``fuse``, ``overlap``, ``pool``...),
    parsed and checked block by block as it arrives.

    The first malformed line (binary noise included) ends the reading within its block; with
    ``duplicates="error"`` (the default), so does an item listed twice for a query within the query's
    rows so far (the last query of a block is carried into the next: an endless stream of one
    repeated line stops within its first block). A query that comes back after others is checked
    when the stream ends. Memory: the run's rows as Arrow columns and their line numbers, never the
    stream's text.

    >>> import io
    >>> s = Input("<stdin>", b"", False, False, None, None, io.BytesIO(b"q Q0 a 1 2 t\\nq Q0 b 2 1 t\\n"))
    >>> read_trec_run_stream(s).to_dict()
    {'q': {'a': 2.0, 'b': 1.0}}
    >>> s = Input("<stdin>", b"", False, False, None, None, io.BytesIO(b"q Q0 a 1 2 t\\nq Q0 a 2 1 t\\n"))
    >>> try:
    ...     read_trec_run_stream(s)
    ... except InputError as exc:
    ...     print(exc.line, exc.message[:32])
    2 item 'a' appears twice for query
    """
    from .. import _compute as C
    from ..data.ids import bools
    from .blocks import RunBlocks
    from .columns import rank_column
    from .trec import locate

    rank = run_options.get("order") == "rank"
    check = run_options.get("duplicates", "error") == "error"
    cutter = RunBlocks(inp, "trec", "score", {}, comments)
    tables: list[pa.Table] = []
    lines: list[np.ndarray] = []
    comment_lines = 0
    carry: pa.Table | None = None  # the rows of the last query so far (it may go on in the next block)
    carry_lines = np.zeros(0, dtype=np.int64)
    for block, line in cutter._text_chunks(0, block_bytes):
        parsed = parse_trec(block, "run", inp.name, comments=comments, rank=rank, first_line=line, empty_ok=True)
        comment_lines += parsed.comment_lines
        t = parsed.table
        if not t.num_rows:
            continue
        if rank:  # the rank column's numbers, checked as they arrive
            locate(parsed, lambda: rank_column(t.column("rank"), "rank", inp.name))  # noqa: B023  (called at once)
        at = np.asarray(parsed.lines(), dtype=np.int64)
        if check:
            u = t.select(["query", "item"])
            u_lines = at
            if carry is not None:
                u = pa.concat_tables([carry, u])
                u_lines = np.concatenate([carry_lines, at])
            try:
                Run.from_columns(u.column("query"), u.column("item"), order="given")
            except RowError as exc:
                inside = exc.row - (len(u_lines) - len(at))
                text = parsed.line_of(inside)[1] if inside >= 0 else None
                raise InputError(exc.message.replace(" rows in all;", " rows so far;"), source=inp.name,
                                 line=int(u_lines[exc.row]), text=text) from None
            q = u.column("query").combine_chunks()
            change = np.flatnonzero(bools(C.not_equal(q.slice(1), q.slice(0, len(q) - 1))))
            start = int(change[-1]) + 1 if len(change) else 0
            # (a query longer than a million rows is checked within each block only, and whole at the end)
            carry = u.slice(start) if u.num_rows - start <= 1_000_000 else None
            carry_lines = u_lines[start:]
        tables.append(t)
        lines.append(at)
    if not tables:
        raise InputError("no run lines (the input is empty or only comments)", source=inp.name)
    table = pa.concat_tables(tables)
    del tables, carry
    row_lines = np.concatenate(lines)
    del lines
    try:
        rank_col = rank_column(table.column("rank"), "rank", inp.name) if rank else None
        run = Run.from_columns(table.column("query"), table.column("item"), table.column("score"), rank=rank_col,
                               **run_options)
    except RowError as exc:  # (the blocks' text is gone: the line without its text)
        raise InputError(exc.message, source=inp.name, line=int(row_lines[exc.row])) from None
    if comment_lines:
        run = replace(run, comment_lines=comment_lines, notes=run.notes + (comment_note(comment_lines, inp.name),))
    return run
