"""The in-process route for a TREC text run file *not* grouped by query: its rows put in query order in memory.

:func:`~rankmeter.engines.stream.grouped_file` evaluates a file's byte ranges as they are parsed, which
needs each query's rows in one place. When a query is found in two places, :func:`regrouped_text` takes
the ranges on: it codes the query ids, orders the rows by one sort of numbers (query code, row), and
evaluates chunks of whole queries gathered by that order. Only numbers are gathered, never text.
"""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor
from typing import Any, NamedTuple, cast

import numpy as np
import pyarrow as pa

from .. import _compute as C
from .._errors import InputError
from ..data.ids import ints, string_buffers, string_signature, to_numpy
from ..data.order import SortedRuns, code_ids, code_words, group_blocks, group_rows
from ..data.table import RowError
from ..data.words import id_words, short_ids, words_text
from ..evaluation import Engine
from ..io.trec import comment_note
from .stream import FileBlocks

__all__ = ["lay_out_early", "regrouped_text"]


def lay_out_early(blocks: FileBlocks | None) -> FileBlocks | None:
    """Have the workers reading a TREC text file lay out each range as soon as they have parsed it, once the
    file is found not grouped by query (:class:`_Slots`; nothing is reserved before), instead of holding
    its text until :func:`regrouped_text` takes the ranges on. Call it as soon as the file is opened: the
    ranges parsed while the judgments load are then let go of at once, and their memory serves the next
    ones (10M lines: 168k -> 134k page faults, peak memory 719 -> 570 MB). Returns ``blocks``."""
    if blocks is not None and blocks.laid_out is None and blocks.parallel is not None and blocks.src.input.size:
        blocks.laid_out = _Slots(blocks.src.input.size)
        blocks.parallel.convert = blocks.laid_out.lay_out
    return blocks


def regrouped_text(engine: Engine, blocks: FileBlocks, *, threads: int, chunk_rows: int) -> Any:
    """The in-process route for a TREC text file *not* grouped by query (rows in any order), after
    :func:`grouped_file` found it so: its ranges parsed on ``threads`` threads (those parsed already are
    kept), the query ids coded (one Arrow dictionary), the rows put in query order as numbers
    (:func:`rankmeter.data.order.group_blocks`: a query's rows keep their file order; no text is
    gathered), then evaluated in chunks of whole queries of about ``chunk_rows`` rows
    (:meth:`Engine.evaluate_columns`) on the same threads. Where every id is short
    (:mod:`rankmeter.data.words`), each range is laid out as numbers by the worker that parsed it and its
    text let go of at once (:class:`_Slots`). The result equals the one of the run read whole; errors name
    the file's line. None when the file is not a plain TREC text file. Closes ``blocks``."""
    src = blocks.src
    par = blocks.parallel
    if par is None:
        blocks.close()
        return None
    try:
        pool = par.pool
        lay_out_early(blocks)  # (done when the file was opened, where it was opened for evaluate_file)
        slots: _Slots | None = blocks.laid_out
        infos: list[Any] = []  # each range's parse (for an error's line)
        ranges: list[Any] = []  # each range's table, or where its rows were laid out
        for got, info in par.parse_all(None if slots is None else slots.lay_out):
            if isinstance(got, pa.Table):
                info.table = C.empty_table(got.schema)  # (the rows stay in ``got``; a slice would keep them)
            infos.append(info)
            ranges.append(got)
            del got
        comments = sum(p.comment_lines for p in infos)
        if not sum(r.num_rows if isinstance(r, pa.Table) else r.rows for r in ranges):
            raise InputError("no run lines (the file is empty or only comments)", source=src.source)
        acc = engine.accumulator()
        firsts: list[int] | np.ndarray
        if slots is not None and not any(isinstance(r, pa.Table) for r in ranges):
            firsts = [r.base for r in ranges]  # (a row's number is its place in the slots)
        else:  # (a range that could not be laid out: the others' tables again, exact, and the text route)
            tables = [r if isinstance(r, pa.Table) else cast(_Slots, slots).table(r) for r in ranges]
            ranges.clear()
            slots = None
            firsts = np.cumsum([0] + [t.num_rows for t in tables])
        try:
            if slots is not None:
                _evaluate_laid(engine, slots, ranges, pool, par.threads, chunk_rows, acc)
            elif all(_codable(t) for t in tables):
                _evaluate_coded(engine, tables, pool, par.threads, chunk_rows, acc)
            else:  # (a rank column)
                _evaluate_taken(engine, tables, pool, chunk_rows, acc)
        except RowError as exc:  # a row of the file: the error of its range, which names the line
            k = int(np.searchsorted(firsts, exc.row, side="right")) - 1
            raise infos[k].error(RowError(exc.row - int(firsts[k]), exc.message)) from None
    finally:
        blocks.close()
    acc.comment_lines = comments
    acc.reader_notes = [comment_note(comments, src.source)] if comments else []
    return acc


def _codable(table: pa.Table) -> bool:
    """Whether a parsed range is (query, item, score) as text, text and float64, with no null: what
    :func:`_evaluate_coded` and :class:`_Slots` read."""
    return table.column_names == ["query", "item", "score"] and \
        [f.type for f in table.schema] == [pa.string(), pa.string(), pa.float64()] and \
        not any(col.null_count for col in table.columns)


def _chunk_cuts(counts: np.ndarray, chunk_rows: int) -> list[int]:
    """Query indices cutting queries of ``counts`` rows into chunks of whole queries of about ``chunk_rows``
    rows (first and last included): a chunk ends at the first query end at or after each multiple."""
    ends = np.cumsum(counts)
    n = int(ends[-1]) if len(ends) else 0
    cuts = [0]
    for at in (np.searchsorted(ends, np.arange(chunk_rows, n, chunk_rows)) + 1).tolist():
        if at > cuts[-1]:
            cuts.append(at)
    if cuts[-1] != len(counts):
        cuts.append(len(counts))
    return cuts


_ROW = np.dtype([("key", "<u8"), ("score", "<f8")])  # a row's item key and score, side by side
_JOINED_IDS_BYTES = 2**31 - 1  # item ids of a regrouped file joined into one text array below this size
_LINE_BYTES = 11  # a run line holds at least 11 bytes before its line end: six non-empty fields, five blanks


class _Laid(NamedTuple):
    """A range's rows laid out in :class:`_Slots`: ``rows`` of them, from ``base`` (their item words and
    scores) and from ``at`` (their query words)."""

    base: int
    rows: int
    at: int


class _Slots:
    """Room for the rows of a run file's ranges, laid out by each range's worker as soon as it has parsed
    it (its text then let go of: the next range's parse takes its memory again).

    Two arrays: each row's item id's word (:mod:`rankmeter.data.words`) and score side by side (what the
    evaluation gathers, one memory access a row), in file order: the range of bytes [start, end) holds
    rows from ``start // 11`` on (a run line has at least 12 bytes, so no range reaches the next one's
    rows); and each row's query word, the ranges one after another in the order they were laid out (so
    that the sort keys packed over them later touch no fresh memory: with the gaps of the first array,
    about 50 MB more at 10M lines). The arrays are sized by the file (0.7 and 1.5 times its size) and
    touched only where rows are.
    """

    def __init__(self, size: int) -> None:
        self.size = size // _LINE_BYTES + 2
        self.words = np.zeros(0, dtype=np.uint64)  # (both reserved by the first range laid out)
        self.cols = np.zeros(0, dtype=_ROW)
        self._next = 0  # the query words' first free place
        self._lock = threading.Lock()

    def lay_out(self, start: int, end: int, table: pa.Table, info: Any) -> _Laid | pa.Table:
        """A parsed range's rows laid out (on the worker that parsed it), or its table where they cannot be:
        an id longer than 8 bytes, another column, more rows than its room."""
        base = start // _LINE_BYTES
        n = table.num_rows
        if not (_codable(table) and base + n <= min(end // _LINE_BYTES, self.size)):
            return table
        queries, items = table.column("query").chunks, table.column("item").chunks
        if not all(short_ids(c) for c in queries + items):
            return table
        with self._lock:  # (no more rows in all than rooms: the query words fit)
            if not len(self.cols):
                self.words = C.pool_empty(self.size, np.uint64)
                self.cols = C.pool_empty(self.size, _ROW)
            at, self._next = self._next, self._next + n
        for chunks, out in ((queries, self.words[at:at + n]), (items, self.cols["key"][base:base + n])):
            row = 0
            for c in chunks:
                id_words(c, out[row:row + len(c)])
                row += len(c)
        self.cols["score"][base:base + n] = to_numpy(table.column("score"))
        info.table = C.empty_table(table.schema)
        return _Laid(base, n, at)

    def table(self, laid: _Laid) -> pa.Table:
        """A range laid out as its table again (exact: a short id's word is the id)."""
        a, b = laid.base, laid.base + laid.rows
        return pa.table({"query": words_text(self.words[laid.at:laid.at + laid.rows]),
                         "item": words_text(self.cols["key"][a:b]), "score": pa.array(self.cols["score"][a:b])})


def _evaluate_laid(engine: Engine, slots: _Slots, ranges: list[_Laid], pool: ThreadPoolExecutor, threads: int,
                   chunk_rows: int, acc: Any) -> None:
    """The rows laid out in ``slots`` evaluated: the query ids' words coded, in as many consecutive parts as
    threads (a dictionary each, on the workers; only the parts' dictionaries are joined again), the sort keys
    (query code, row) packed over the words and sorted part by part, then chunks of whole queries merged and
    gathered."""
    laid = [r for r in ranges if r.rows]
    ends = np.cumsum([r.rows for r in laid])
    cuts = np.searchsorted(ends, np.linspace(0, ends[-1], threads + 1)[1:-1], side="right").tolist()
    parts = [laid[a:b] for a, b in zip([0] + cuts, cuts + [len(laid)], strict=True) if b > a]

    def code(part: list[_Laid]) -> pa.ChunkedArray:
        return code_words([pa.Array.from_buffers(pa.uint64(), r.rows, [None, pa.py_buffer(slots.words[r.at:])])
                           for r in part])

    coded = list(pool.map(code, parts))
    # (every range's words are coded: the keys, packed from the array's start, take their place, which the
    # query words filled: no fresh memory)
    queries, counts, rows = group_blocks(coded, pool.map, key=slots.words.view(np.int64)[:int(ends[-1])],
                                         rows_at=[r.base for r in laid], merge=False)
    del coded
    _evaluate_gathered(engine, queries, counts, rows, slots.cols, None, pool, chunk_rows, acc)


def _evaluate_gathered(engine: Engine, queries: pa.Array, counts: np.ndarray, rows: SortedRuns, cols: np.ndarray,
                       items: pa.Array | pa.ChunkedArray | None, pool: ThreadPoolExecutor, chunk_rows: int,
                       acc: Any) -> None:
    """Chunks of whole queries (``queries``, each with ``counts`` rows, at ``rows`` of ``cols``: each chunk's
    rows merged by its worker) gathered and evaluated on the workers, into ``acc``: ``cols`` holds each row's
    item word, or its signature where ``items`` holds the ids (text)."""
    cuts = _chunk_cuts(counts, chunk_rows)

    def task(qa: int, qb: int) -> Any:
        r = rows.rows(qa, qb)
        got = cols[r]
        key, score = got["key"], got["score"]  # (read in place, side by side: no copy of either)
        heads = queries.slice(qa, qb - qa)
        if items is None:
            return engine.evaluate_columns(heads, counts[qa:qb], score, key, r)
        return engine.evaluate_columns(heads, counts[qa:qb], score, items, r, key)

    for out in pool.map(task, cuts[:-1], cuts[1:]):
        acc.add(out)


def _evaluate_coded(engine: Engine, tables: list[pa.Table], pool: ThreadPoolExecutor, threads: int,
                    chunk_rows: int, acc: Any) -> None:
    """The regrouped rows evaluated as columns (``tables``: the parsed ranges, emptied here): the query ids
    coded and the rows ordered by one sort of numbers, each chunk's item signatures and scores gathered by
    it, the item ids joined into one text array for the engine to read the matches' and ties' ids from."""
    # the ranges in as many consecutive parts as threads, each part's query ids coded by a dictionary of its
    # own on a worker (a hash of each row's id); only the parts' dictionaries are then joined and hashed again
    firsts = np.cumsum([0] + [t.num_rows for t in tables])
    cuts = np.searchsorted(firsts, np.linspace(0, firsts[-1], threads + 1)[1:-1]).tolist()
    parts = [[c for t in tables[a:b] for c in t.column("query").chunks]
             for a, b in zip([0] + cuts, cuts + [len(tables)], strict=True) if b > a]
    tables[:] = [t.select(["item", "score"]) for t in tables]  # (the query ids now only in ``parts``)
    coded = [c for part in pool.map(code_ids, parts) for c in part]  # (the ids let go of as they are read)
    parts.clear()
    C.release_memory()  # (the query ids, let go of)
    queries, counts, rows = group_blocks(coded, pool.map, merge=False)  # (the chunks packed on the workers)
    coded.clear()
    C.release_memory()  # (the codes, let go of)
    firsts = np.cumsum([0] + [t.num_rows for t in tables]).tolist()
    items = _joined_items(tables, firsts, pool)
    cols = C.pool_empty(firsts[-1], _ROW)  # (the large arrays: C.pool_empty's pages)

    def fill(k: int) -> None:  # a range's item signatures and scores into ``cols``, on the workers
        a, b = firsts[k], firsts[k + 1]
        cols["key"][a:b] = string_signature(items.slice(a, b - a))
        cols["score"][a:b] = to_numpy(tables[k].column("score"))
        tables[k] = None  # (its memory let go of)

    list(pool.map(fill, range(len(tables))))
    tables.clear()
    C.release_memory()  # (the ranges' scores, let go of)
    _evaluate_gathered(engine, queries, counts, rows, cols, items, pool, chunk_rows, acc)


def _joined_items(tables: list[pa.Table], firsts: list[int], pool: ThreadPoolExecutor) -> pa.Array | pa.ChunkedArray:
    """The ranges' item ids joined into one text array, range by range on the workers (each range's let go
    of once copied: only one copy of the ids at a time): the engine takes a chunk's ids from it by row (from
    the ranges' arrays, a take costs several); ids of 2 GB and more stay in the ranges' arrays."""
    spans = [[string_buffers(c) for c in t.column("item").chunks] for t in tables]
    sizes = np.cumsum([0] + [sum(int(o[-1] - o[0]) for o, _ in sp) for sp in spans]).tolist()
    n = firsts[-1]
    if sizes[-1] >= _JOINED_IDS_BYTES:
        return pa.chunked_array([c for t in tables for c in t.column("item").chunks], pa.string())
    offsets = C.pool_empty(n + 1, np.int32)
    data = C.pool_empty(sizes[-1], np.uint8)

    def join(k: int) -> None:  # a range's ids into the joined array, on the workers
        row, at = firsts[k], sizes[k]
        for o, raw in spans[k]:
            m, size = len(o) - 1, int(o[-1] - o[0])
            np.subtract(o[:-1], o[0] - at, out=offsets[row:row + m], casting="unsafe")
            data[at:at + size] = raw[o[0]:o[-1]]
            row, at = row + m, at + size
        spans[k] = []
        tables[k] = tables[k].select(["score"])

    list(pool.map(join, range(len(tables))))
    offsets[-1] = sizes[-1]
    C.release_memory()  # (the ranges' ids, let go of)
    return pa.Array.from_buffers(pa.string(), n, [None, pa.py_buffer(offsets), pa.py_buffer(data)])


def _evaluate_taken(engine: Engine, tables: list[pa.Table], pool: ThreadPoolExecutor, chunk_rows: int,
                    acc: Any) -> None:
    """The regrouped rows evaluated as tables: each chunk of whole queries taken from one copy of the rows
    (ranges read with other columns, as with a rank column)."""
    # one copy of the rows (Arrow's take from many chunks would join them again for every chunk taken);
    # each chunk of whole queries is then taken from it, in query order, by its worker
    table = pa.concat_tables([t for t in tables if t.num_rows]).combine_chunks()
    del tables[:]
    q = table.column("query")
    codes = to_numpy(C.dictionary_encode(q.combine_chunks() if isinstance(q, pa.ChunkedArray) else q).indices)
    codes = codes.astype(np.int64)  # (codes of first appearance)
    rows = group_rows(codes)  # file rows in query order
    counts = np.bincount(codes)
    del codes
    offsets = np.concatenate(([0], np.cumsum(counts)))
    cuts = _chunk_cuts(counts, chunk_rows)

    def task(qa: int, qb: int) -> Any:
        r = rows[int(offsets[qa]):int(offsets[qb])]
        return engine.evaluate_table(C.take(table, ints(r)).combine_chunks(), row_index=r)

    for out in pool.map(task, cuts[:-1], cuts[1:]):
        acc.add(out)
