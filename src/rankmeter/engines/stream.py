"""Streaming evaluation: runs larger than memory, in query-grouped chunks.

:func:`evaluate_stream` reads a run file (Parquet, TREC text, CSV/TSV) piece by piece
and returns the same :class:`~rankmeter.result.Result` as :func:`rankmeter.evaluate`,
to the last bit, in memory set by ``chunk_rows`` rather than by the size of the file.

How
---
The judgments are small: they are loaded whole. The run is read in blocks
(Parquet: ``ParquetFile.iter_batches``; TREC text: byte blocks cut at a line end;
CSV: pyarrow's streaming CSV reader) and cut into *chunks of whole queries* of about
``chunk_rows`` rows: the last, possibly incomplete, query of a block is carried over
to the next chunk. Each chunk is evaluated by the kernels of the in-process
evaluator (see :mod:`rankmeter.evaluation.core`); a query's value depends only on its own
rows, so the chunks' values, concatenated, are the in-process values. Judged queries
the run never mentions are scored at the end as empty rankings, and the coverage
counts add up over the chunks exactly as ``evaluate`` counts them.

A file need not be sorted, only *grouped* by query (all rows of a query
contiguous). Grouping is checked as the file is read: when a query shows up again
after another one began, the file is not grouped, the partial work is dropped and
the file is first hash-partitioned by query into temporary Arrow files on disk
(``tmp_dir``), each partition then evaluated whole; peak memory is then set by the
partition size, about ``chunk_rows / 2`` rows. ``grouped=False`` skips the first
attempt. Chunks are evaluated by ``workers`` threads (default: 2 at most) while the
next block is read.

Tie rule and order: as :mod:`rankmeter.data.run` (score descending, ties by item id
descending, comparing bytes); ``order="rank"`` uses the rank column.
"""

from __future__ import annotations

import contextlib
import math
import os
import sys
import threading
from collections import deque
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator, Mapping, Sequence, cast

import numpy as np
import pyarrow as pa

from .. import _compute as C
from .._errors import InputError, ParameterError
from ..data import Qrels
from ..data.ids import bools, distinct, ints, string_signature, to_numpy
from ..data.table import RowError, search_sorted
from ..evaluation import Accumulator, Engine, check_options, is_int_id_type
from ..io import as_qrels
from ..io.columns import id_column
from ..io.tables import ITEM_NAMES, QUERY_NAMES, RANK_NAMES, SCORE_NAMES, pick_columns
from ..io.trec import comment_note
from ..provenance import attach
from ..result import Result

__all__ = ["evaluate_stream", "evaluate_batches", "grouped_file", "open_file", "query_starts", "FileBlocks",
           "DEFAULT_CHUNK_ROWS"]

DEFAULT_CHUNK_ROWS = 1_000_000


class _NotGrouped(Exception):
    """Raised internally when a query reappears after another began."""

    def __init__(self, query: str) -> None:
        super().__init__(query)
        self.query = query


# ---------------------------------------------------------------------------------
# sources: (table with columns query, item, score[, rank], first row number) blocks
# ---------------------------------------------------------------------------------
class _Source:
    source: str = "<run>"
    total_rows: int | None = None  # for the progress bar; an estimate for text files
    restartable: bool = True

    def blocks(self, rows: int) -> Iterator[tuple[pa.Table, int]]:
        raise NotImplementedError

    def line_of(self, row: int) -> tuple[int | None, str | None]:
        return row + 1, None


def _standard(table: pa.Table, cols: Mapping[str, str], source: str = "<batches>") -> pa.Table:
    """The run columns of a batch under their role names; ids typed by the input layer's one rule
    (:func:`rankmeter.io.columns.id_column`: text as written, float and nested ids refused), except
    that integer ids stay numbers (the engine matches their decimal text)."""
    out = {}
    for role in ("query", "item", "score", "rank"):
        if role in cols:
            out[role] = table.column(cols[role])
    for role in ("query", "item"):
        col = out[role]
        if not is_int_id_type(col.type):
            out[role] = id_column(col, role, cols[role], source)
    return pa.table(out)


def _run_columns(names: Sequence[str], source: str, order: str, given: Mapping[str, str | None]) -> dict[str, str]:
    empty = pa.table({n: pa.array([], pa.null()) for n in names})
    roles = {"query": QUERY_NAMES, "item": ITEM_NAMES, "score": SCORE_NAMES, "rank": RANK_NAMES}
    cols = pick_columns(empty, roles, dict(given), source, optional=("score", "rank"))
    if "score" not in cols and "rank" not in cols:
        raise InputError(f"cannot find a score or rank column among {', '.join(names)}; name one with score=... "
                         "or rank=...", source=source)
    if order == "rank" and "rank" not in cols:
        raise InputError(f"order='rank' needs a rank column; found {', '.join(names)}", source=source)
    if order == "score" and "score" not in cols:
        raise InputError(f"cannot find a score column among {', '.join(names)} (use order='rank' to rank by the "
                         "rank column)", source=source)
    if order == "score":
        cols.pop("rank", None)
    return cols


class _BatchSource(_Source):
    """Record batches from elsewhere (DuckDB, an Arrow stream), with known column names."""

    restartable = False

    def __init__(self, batches: Iterable[pa.RecordBatch | pa.Table], cols: Mapping[str, str],
                 total_rows: int | None = None, source: str = "<batches>",
                 regroup: Callable[[], Iterable[pa.RecordBatch | pa.Table]] | None = None) -> None:
        self.batches = batches
        self.cols = dict(cols)
        self.total_rows = total_rows
        self.source = source
        self.regroup = regroup  # the same rows, grouped by query (e.g. the query again with ORDER BY)

    def regrouped(self) -> "_BatchSource | None":
        if self.regroup is None:
            return None
        return _BatchSource(self.regroup(), self.cols, self.total_rows, self.source)

    def blocks(self, rows: int) -> Iterator[tuple[pa.Table, int]]:
        first = 0
        for b in self.batches:
            t = b if isinstance(b, pa.Table) else pa.Table.from_batches([b])
            if t.num_rows == 0:
                continue
            t = _standard(t, self.cols, self.source)
            yield t, first
            first += t.num_rows


def _open_source(run: Any, fmt: str, order: str, given: Mapping[str, str | None], comments: bool = True) -> Any:
    """A run file (or ``-``, a FIFO, gzip) as block reader: :func:`rankmeter.io.blocks.open_run_blocks`,
    the same parsing as the in-process readers."""
    if isinstance(run, _Source):
        return run
    if not isinstance(run, (str, Path)):
        raise InputError(f"evaluate_stream reads a run file (Parquet, TREC text, CSV/TSV), got a {type(run).__name__}; "
                         "use rankmeter.evaluate for in-memory runs", source="run")
    if fmt not in ("auto", "trec", "csv", "tsv", "parquet", "arrow"):
        raise ParameterError(f"The 'format' parameter must be 'auto', 'trec', 'csv', 'tsv', 'parquet' or 'arrow'. Got "
                             f"{fmt!r} instead.")
    from ..io.blocks import open_run_blocks

    # integer ids stay numbers: the evaluation core matches their decimal text
    return open_run_blocks(run, format=fmt, order=order, comments=comments, keep_ints=True, **given)


# ---------------------------------------------------------------------------------
# chunking
# ---------------------------------------------------------------------------------
def query_starts(q: pa.Array) -> np.ndarray:
    """Start of every run of equal query ids."""
    n = len(q)
    change = np.flatnonzero(bools(C.not_equal(q.slice(1), q.slice(0, n - 1)))) + 1
    return np.concatenate(([0], change)).astype(np.int64)


def _signatures(ids: pa.Array) -> np.ndarray:
    """64-bit signatures of query ids (integer ids: of their value)."""
    if is_int_id_type(ids.type):
        with np.errstate(over="ignore"):
            return to_numpy(ids).astype(np.int64).astype(np.uint64) * \
                np.uint64(0x9E3779B97F4A7C15)
    return string_signature(ids)


class _Finished:
    """The query ids already emitted, as 64-bit signatures (8 bytes a query, no Python objects).

    Equal ids have equal signatures, so a query that comes back is always caught; two
    different ids with one signature (about 1 in 10^12 for a million queries) only make
    a grouped run look ungrouped, which costs the on-disk partition, never a wrong value.

    Kept as a few sorted runs, each more than twice the next (a new chunk's signatures are
    merged into the last runs while those are at most twice as long): every signature is merged
    about log2(chunks) times, where one sorted array merged again for every chunk made the
    cost grow with the square of the chunks (10M queries in 250 chunks: 0.8 s of merging
    instead of 3.8 s, and 2.5 s of lookups instead of 7.2 s).

    >>> f = _Finished()
    >>> for part in ([5, 1], [9], [2, 7, 3]):
    ...     f.add(np.array(part, dtype=np.uint64))
    >>> [r.tolist() for r in f.runs], f.seen(np.array([7, 4, 1], dtype=np.uint64)).tolist()
    ([[1, 2, 3, 5, 7, 9]], [True, False, True])
    """

    def __init__(self) -> None:
        self.runs: list[np.ndarray] = []  # sorted, each more than twice as long as the next

    def seen(self, sig: np.ndarray) -> np.ndarray:
        ascending = bool((sig[1:] >= sig[:-1]).all())
        order = np.argsort(sig) if len(self.runs) > 1 and not ascending else None  # (sorted once for every run)
        keys = sig if order is None else sig[order]
        found = np.zeros(len(sig), dtype=bool)
        for run in self.runs:
            at = search_sorted(run, keys)
            np.minimum(at, len(run) - 1, out=at)
            found |= run[at] == keys
        if order is None:
            return found
        out = np.empty(len(sig), dtype=bool)
        out[order] = found
        return out

    def add(self, sig: np.ndarray) -> None:
        if not len(sig):
            return
        new = sig.copy() if bool((sig[1:] >= sig[:-1]).all()) else np.sort(sig)  # (sorted already: a copy)
        while self.runs and len(self.runs[-1]) <= 2 * len(new):
            new = np.concatenate((self.runs.pop(), new))
            new.sort(kind="stable")  # (two sorted runs: numpy's stable sort merges them, in place, in linear time)
        self.runs.append(new)


def _first_repeat(table: pa.Table, first: int) -> None:
    """Raise the RowError of the first repeated item in ``table``'s rows (one query's), as the engine would."""
    from ..data import Run

    try:
        Run.from_columns(table.column("query"), table.column("item"), order="given")
    except RowError as exc:
        raise RowError(first + exc.row, exc.message.replace(" rows in all;", " rows so far;")) from None


def _grouped_chunks(blocks: Iterator[tuple[pa.Table, int]], chunk_rows: int,
                    keep_last: list[pa.Table] | None = None,
                    check_long: Callable[[pa.Table, int], None] | None = None) -> Iterator[tuple[pa.Table, int]]:
    """Chunks of whole queries from blocks of a query-grouped run; raises _NotGrouped.

    With ``keep_last`` (a list), the rows of the last query are not yielded but appended
    to it (the last query of a Spark partition may continue in the next partition).
    ``check_long(table, first_row)`` is called on a query still growing past ``chunk_rows``
    rows (then past twice as many, ...): an endless query of repeated rows ends with the
    duplicate's error instead of filling the memory (:func:`_first_repeat`); and on the rows
    pending when a stream pauses (a block marked ``paused``), so that a repeat followed by
    a silent producer is reported at once.
    Memory: the pending block, and 8 bytes per query already emitted (:class:`_Finished`).
    """
    finished = _Finished()
    pending: list[pa.Table] = []
    pending_rows = 0
    pending_first = 0
    next_check = chunk_rows

    def emit(table: pa.Table, final: bool) -> tuple[pa.Table | None, pa.Table | None]:
        q = table.column("query").combine_chunks()
        starts = query_starts(q)
        if not final:
            if len(starts) < 2:
                return None, table  # one query so far: keep reading
            cut = int(starts[-1])
            starts = starts[:-1]
        else:
            cut = table.num_rows
        heads = C.take(q, ints(starts))
        sig = _signatures(heads)
        order = np.argsort(sig)  # (equal signatures side by side, in any order)
        ordered = sig[order]  # (sorted once: the searches and the merge below take it as it is)
        dup = np.flatnonzero(ordered[1:] == ordered[:-1])
        if len(dup):  # the same signature twice in one chunk: compare the ids themselves
            a, b = order[dup], order[dup + 1]
            same = bools(C.equal(C.take(heads, ints(a)), C.take(heads, ints(b))))
            if same.any():
                raise _NotGrouped(str(heads[int(a[np.flatnonzero(same)[0]])].as_py()))
        back = finished.seen(ordered)
        if back.any():  # (the first such query in the chunk's order)
            raise _NotGrouped(str(heads[int(order[back].min())].as_py()))
        finished.add(ordered)
        return table.slice(0, cut), table.slice(cut)

    for item in blocks:
        t, first = item
        if not pending:
            pending_first = first
        pending.append(t)
        pending_rows += t.num_rows
        if check_long is not None and getattr(item, "paused", False):
            # the stream paused (io.blocks.Block.paused): its rows so far are checked for a repeated item now,
            # not when more text arrives, which may be never
            check_long(pa.concat_tables(pending) if len(pending) > 1 else pending[0], pending_first)
        if pending_rows >= chunk_rows:
            table = pa.concat_tables(pending) if len(pending) > 1 else pending[0]
            chunk, rest = emit(table, final=False)
            if chunk is None and check_long is not None and pending_rows >= next_check:
                check_long(table, pending_first)  # one query so far, longer than a chunk
                next_check = 2 * pending_rows
            if chunk is not None:
                next_check = chunk_rows
                yield chunk.combine_chunks(), pending_first
                pending_first += chunk.num_rows
            pending = [rest] if rest is not None and rest.num_rows else []
            pending_rows = sum(p.num_rows for p in pending)
    if pending_rows:
        table = pa.concat_tables(pending) if len(pending) > 1 else pending[0]
        chunk, rest = emit(table, final=keep_last is None)
        if keep_last is not None:
            if rest is not None and rest.num_rows:
                keep_last.append(rest)
            if chunk is None or not chunk.num_rows:
                return
        assert chunk is not None
        yield chunk.combine_chunks(), pending_first


def _open_files_budget() -> int:
    """How many partition files may be open at once: a quarter of the soft limit on open files
    (macOS: 256, Linux: often 1024), between 16 and 256."""
    try:
        import resource

        soft = resource.getrlimit(resource.RLIMIT_NOFILE)[0]
        if soft == resource.RLIM_INFINITY or soft <= 0:
            soft = 1024
    except (ImportError, OSError, ValueError):  # no resource module (Windows)
        soft = 256
    return int(max(16, min(256, soft // 4)))


class _Partitions:
    """Hash-partition a run by query into temporary Arrow IPC files, then read them back one by one.

    The number of partitions aims at ``chunk_rows / 2`` rows each, but never exceeds the
    open-files budget (:func:`_open_files_budget`): a run of more than budget x chunk_rows / 2
    rows makes larger partitions rather than failing under a low ``ulimit -n``.
    """

    def __init__(self, blocks: Iterator[tuple[pa.Table, int]], total_rows: int | None, chunk_rows: int,
                 tmp_dir: str | os.PathLike[str] | None, on_rows: Callable[[int], None] | None = None) -> None:
        self.blocks = blocks
        target = max(1, chunk_rows // 2)
        self.n_parts = int(min(_open_files_budget(), max(1, math.ceil((total_rows or chunk_rows) / target))))
        import tempfile  # (only a run that is not grouped by query needs it: not at start-up)

        self.dir = tempfile.mkdtemp(prefix="rankmeter-partitions-", dir=tmp_dir)
        self.on_rows = on_rows
        self.rows_written = 0

    def cleanup(self) -> None:
        import shutil

        shutil.rmtree(self.dir, ignore_errors=True)

    def write(self) -> None:
        writers: list[Any] = [None] * self.n_parts
        files: list[Any] = [None] * self.n_parts
        opts = pa.ipc.IpcWriteOptions(compression="lz4" if pa.Codec.is_available("lz4") else None)
        try:
            for t, first in self.blocks:
                n = t.num_rows
                t = t.append_column("__row", pa.array(np.arange(first, first + n, dtype=np.int64)))
                if self.n_parts == 1:
                    parts = np.zeros(n, dtype=np.int64)
                else:
                    qcol = t.column("query").combine_chunks()
                    if is_int_id_type(qcol.type):
                        with np.errstate(over="ignore"):
                            h = qcol.to_numpy().astype(np.int64).astype(np.uint64) * np.uint64(0x9E3779B97F4A7C15)
                        h = h >> np.uint64(17)
                    else:
                        h = string_signature(qcol)
                    parts = (h % np.uint64(self.n_parts)).astype(np.int64)
                order = np.argsort(parts, kind="stable")
                counts = np.bincount(parts, minlength=self.n_parts)
                t = C.take(t, ints(order))
                at = 0
                for p in np.flatnonzero(counts):
                    c = int(counts[p])
                    piece = t.slice(at, c)
                    at += c
                    if writers[p] is None:
                        files[p] = pa.OSFile(os.path.join(self.dir, f"part-{p:05d}.arrow"), "wb")
                        writers[p] = pa.ipc.new_file(files[p], piece.schema, options=opts)
                    writers[p].write_table(piece)
                self.rows_written += n
                if self.on_rows:
                    self.on_rows(n)
        finally:
            for w, f in zip(writers, files, strict=True):
                if w is not None:
                    w.close()
                    f.close()

    def tables(self) -> Iterator[tuple[pa.Table, np.ndarray]]:
        for p in range(self.n_parts):
            path = os.path.join(self.dir, f"part-{p:05d}.arrow")
            if not os.path.exists(path):
                continue
            with pa.memory_map(path, "r") as src:
                t = pa.ipc.open_file(src).read_all()
            # copy out of the memory map so the file can go now
            rows = t.column("__row").to_numpy().copy()
            t = pa.table({n: t.column(n) for n in t.column_names if n != "__row"})
            t = t.combine_chunks()
            os.remove(path)
            yield t, rows


# ---------------------------------------------------------------------------------
# the driver
# ---------------------------------------------------------------------------------
class _Progress:
    def __init__(self, enabled: bool, total: int | None, description: str) -> None:
        self.bar: Any = None
        if enabled:
            from rich.console import Console
            from rich.progress import (
                BarColumn,
                MofNCompleteColumn,
                Progress,
                TextColumn,
                TimeElapsedColumn,
                TimeRemainingColumn,
            )

            self.bar = Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                                TextColumn("rows"), TimeElapsedColumn(), TimeRemainingColumn(),
                                console=Console(stderr=True), transient=False)
            self.bar.start()
            self.task = self.bar.add_task(description, total=total)

    def phase(self, description: str, total: int | None) -> None:
        if self.bar is not None:
            self.task = self.bar.add_task(description, total=total)

    def advance(self, n: int) -> None:
        if self.bar is not None:
            self.bar.advance(self.task, n)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.stop()


@contextlib.contextmanager
def _cleanup_on_sigterm() -> Iterator[None]:
    """While partitions are on disk, SIGTERM unwinds like SIGINT does (so ``finally`` removes the
    files) and then ends the process with the usual status; restored afterwards. Only the main
    thread can set signal handlers: elsewhere this does nothing."""
    import signal

    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.getsignal(signal.SIGTERM)

    def handler(signum: int, frame: Any) -> None:
        raise SystemExit(128 + signum)

    signal.signal(signal.SIGTERM, handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def _locate(src: _Source, exc: RowError) -> InputError:
    line, text = src.line_of(exc.row)
    return InputError(exc.message, source=src.source, line=line, text=text)


def _run_chunks(engine: Engine, chunks: Iterator[tuple[pa.Table, Any]], workers: int,
                progress: _Progress, src: _Source, before_locate: Callable[[], None] | None = None) -> Accumulator:
    acc = engine.accumulator()
    inflight: deque[tuple[Future[Any], int]] = deque()

    def task(table: pa.Table, where: Any) -> Any:
        if isinstance(where, np.ndarray):
            return engine.evaluate_table(table, row_index=where)
        return engine.evaluate_table(table, first_row=int(where))

    def drain(limit: int) -> None:
        while len(inflight) > limit:
            fut, rows = inflight.popleft()
            acc.add(fut.result())
            progress.advance(rows)

    pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="rankmeter-stream") if workers > 1 else None
    try:
        for table, where in chunks:
            if pool is None:
                acc.add(task(table, where))
                progress.advance(table.num_rows)
                continue
            inflight.append((pool.submit(task, table, where), table.num_rows))
            drain(workers)
        drain(0)
    except RowError as exc:
        if before_locate is not None:
            before_locate()  # (the reader thread stops before its blocks are looked at)
        raise _locate(src, exc) from None
    finally:
        if pool is not None:
            for fut, _ in inflight:
                fut.cancel()
            pool.shutdown(wait=True)
    acc.comment_lines = int(getattr(src, "comment_lines", 0))  # known once the reader is through
    acc.reader_notes = list(getattr(src, "notes", ()))
    return acc


def evaluate_batches(
    qrels: Any,
    batches: Iterable[pa.RecordBatch | pa.Table],
    metrics: Any,
    *,
    columns: Mapping[str, str] | None = None,
    queries: str | Sequence[str] = "judged",
    context: Mapping[str, Any] | None = None,
    chunk_rows: int = DEFAULT_CHUNK_ROWS,
    grouped: bool | None = True,
    order: str = "score",
    duplicates: str = "error",
    total_rows: int | None = None,
    regroup: Callable[[], Iterable[pa.RecordBatch | pa.Table]] | None = None,
    progress: bool | None = False,
    workers: int | None = None,
    tmp_dir: str | os.PathLike[str] | None = None,
    source: str = "<batches>",
    depth: int | None = None,
    judged_only: bool = False,
    ties: str = "id",
) -> Result:
    """Evaluate a run given as a stream of Arrow record batches (e.g. from DuckDB).

    ``columns`` maps ``query``, ``item``, ``score`` (and ``rank``) to the batches'
    column names (default: the same names). With ``grouped=True`` the batches must
    hold each query's rows contiguously (an error says which query broke it);
    ``grouped=False`` partitions them on disk first. ``grouped=None`` with ``regroup`` (a
    function returning the same rows grouped by query): when the batches turn out not
    to be grouped, the partial work is dropped and ``regroup()`` is evaluated instead.
    """
    cols = dict(columns or {"query": "query", "item": "item", "score": "score"})
    src = _BatchSource(batches, cols, total_rows=total_rows, source=source, regroup=regroup)
    res = _evaluate(qrels, src, metrics, queries=queries, context=context, chunk_rows=chunk_rows, grouped=grouped,
                    order=order, duplicates=duplicates, progress=progress, workers=workers, tmp_dir=tmp_dir,
                    depth=depth, judged_only=judged_only, ties=ties)
    return attach(res, qrels=qrels, run=batches, metrics=res.metrics, threads=workers, options={
        "queries": queries if isinstance(queries, str) else list(queries), "depth": depth, "judged_only": judged_only,
        "order": order, "duplicates": duplicates, "ties": ties})


def evaluate_stream(
    qrels: Any,
    run: str | os.PathLike[str],
    metrics: Any,
    *,
    queries: str | Sequence[str] = "judged",
    context: Mapping[str, Any] | None = None,
    chunk_rows: int = DEFAULT_CHUNK_ROWS,
    format: str = "auto",
    order: str = "score",
    duplicates: str = "error",
    query: str | None = None,
    item: str | None = None,
    score: str | None = None,
    rank: str | None = None,
    grouped: bool | None = None,
    progress: bool | None = None,
    workers: int | None = None,
    tmp_dir: str | os.PathLike[str] | None = None,
    depth: int | None = None,
    judged_only: bool = False,
    ties: str = "id",
) -> Result:
    """Evaluate a run file in bounded memory; the result equals :func:`rankmeter.evaluate`'s.

    ``qrels``: judgments (a path or anything :func:`rankmeter.evaluate` accepts;
    loaded whole). ``run``: a Parquet, TREC or CSV/TSV file. ``chunk_rows``: rows per
    chunk (a chunk holds whole queries, so a query longer than this makes a longer
    chunk). ``grouped``: None checks while reading and falls back to an on-disk
    partition when the file is not grouped by query; False partitions at once.
    ``progress``: a progress bar on stderr (default: when stderr is a terminal).
    ``workers``: threads evaluating chunks (default: min(2, CPUs)). ``tmp_dir``: where
    partitions go (default: the system temp dir). Other parameters as
    :func:`rankmeter.evaluate` and :func:`rankmeter.read_run`.

    >>> import os, tempfile, rankmeter
    >>> import tempfile; d = tempfile.mkdtemp(); path = os.path.join(d, "run.txt")
    >>> _ = open(path, "w").write("u1 Q0 1 1 10 t\\nu1 Q0 3 2 8 t\\nu1 Q0 2 3 6 t\\nu1 Q0 6 4 2 t\\n")
    >>> r = evaluate_stream({"u1": ["1", "2", "4"]}, path, ["ndcg@2", "P@2", "map"], chunk_rows=2)
    >>> {k: round(v, 6) for k, v in r.mean.items()}
    {'ndcg@2': 0.613147, 'P@2': 0.5, 'map': 0.555556}
    """
    if not isinstance(chunk_rows, (int, np.integer)) or isinstance(chunk_rows, bool) or chunk_rows < 1:
        raise ParameterError(f"The 'chunk_rows' parameter of evaluate_stream must be an int >= 1. Got {chunk_rows!r} "
                             "instead.")
    src = _open_source(run, format, order, {"query": query, "item": item, "score": score, "rank": rank})
    res = _evaluate(qrels, src, metrics, queries=queries, context=context, chunk_rows=int(chunk_rows),
                    grouped=grouped, order=order, duplicates=duplicates, progress=progress, workers=workers,
                    tmp_dir=tmp_dir, depth=depth, judged_only=judged_only, ties=ties)
    return attach(res, qrels=qrels, run=run, metrics=res.metrics, threads=workers, options={
        "queries": queries if isinstance(queries, str) else list(queries), "depth": depth, "judged_only": judged_only,
        "order": order, "duplicates": duplicates, "ties": ties})


class _Prefetch:
    """The items of an iterator, produced up to ``depth`` ahead by a thread of their own.

    So a run file's next blocks are read and parsed (by Arrow, mostly outside the GIL)
    while the chunks before them are evaluated, and even while the judgments load.
    The producer's exceptions are raised where the items are consumed.
    """

    def __init__(self, items: Iterable[Any], depth: int = 2) -> None:
        import queue

        self._items = items
        self._queue: Any = queue.Queue(maxsize=depth)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._produce, name="rankmeter-read", daemon=True)
        self._thread.start()

    def _produce(self) -> None:
        import queue

        try:
            for item in self._items:
                while True:
                    if self._stop.is_set():
                        return
                    try:
                        self._queue.put((0, item), timeout=0.05)
                        break
                    except queue.Full:
                        continue
            self._queue.put((1, None))
        except BaseException as exc:  # noqa: BLE001  (raised again by the consumer)
            self._queue.put((2, exc))

    def __iter__(self) -> Iterator[Any]:
        while True:
            kind, item = self._queue.get()
            if kind == 1:
                return
            if kind == 2:
                raise item
            yield item

    def close(self) -> None:
        """Stop the producer (it finishes the item at hand) and wait for it."""
        import queue

        self._stop.set()
        while self._thread.is_alive():
            try:
                self._queue.get(timeout=0.05)
            except queue.Empty:
                pass
        self._thread.join()


class _Closed(Exception):
    """The evaluation was given up before the engine was ready (the judgments failed to load)."""


_RANGE_BYTES = 1 << 16  # the smallest byte range of a TREC text file read by the in-process engine's workers

# the first blocks of a TREC file are checked for a query in two places before they are evaluated: a run not
# grouped by query (rows in any order) then goes to the caller's fallback at once, not after every block read
# ahead was evaluated for nothing (a check costs ~0.7 ms a block; later blocks are checked across blocks only)
_CHECKED_BLOCKS = 2


def _repeated_query(q: pa.Array | pa.ChunkedArray, first: int = 4096, starts: np.ndarray | None = None) -> str | None:
    """A query id found in two separate runs of rows of ``q``, or None when ``q`` is grouped by query.

    The ``first`` rows are looked at first: rows in any order repeat a query there already (and the
    whole block's heads, a copy of every row's id, are then not made). ``starts``: ``query_starts(q)``,
    when the caller has it."""
    q = q.combine_chunks() if isinstance(q, pa.ChunkedArray) else q
    if len(q) > 2 * first:
        got = _repeated_query(q.slice(0, first), first)
        if got is not None:
            return got
    heads = C.take(q, ints(query_starts(q) if starts is None else starts))
    sig = _signatures(heads)
    order = np.argsort(sig)  # (equal signatures side by side, in any order: numpy's stable sort took 5x as long)
    dup = np.flatnonzero(sig[order][1:] == sig[order][:-1])
    if len(dup):  # the same signature twice: compare the ids themselves
        a, b = order[dup], order[dup + 1]
        same = bools(C.equal(C.take(heads, ints(a)), C.take(heads, ints(b))))
        if same.any():
            return str(heads[int(a[np.flatnonzero(same)[0]])].as_py())
    return None


class _ParallelText:
    """A TREC text run file cut at query ends into byte blocks that worker threads parse *and* evaluate.

    Nothing ties one block to another, so reading and parsing run on every worker instead
    of one reader; the main thread only finds the cuts (a few KB read at each) and adds the
    outputs up in file order. The
    blocks start parsing as soon as the file is opened (the engine, built from the
    judgments meanwhile, is handed over by :meth:`run`). A query found in two blocks
    means the file is not grouped by query: :meth:`run` returns None, and the blocks are
    then only parsed (:meth:`parse_all`), those parsed already kept.

    While the judgments load, the main thread codes them on one core: the workers then parse
    one fewer range at a time than there are workers (at least one), so that three threads do
    not share two cores. Measured on 2 cores, 10M lines: 1.46 -> 1.38 CPU-s, 0.87 -> 0.84 s,
    peak memory 505 -> 442 MB (the ranges parsed while the judgments load hold fresh memory).
    """

    def __init__(self, src: Any, threads: int, block_bytes: int) -> None:
        self.src = src
        self.engine: Future[Any] = Future()
        self.pool = ThreadPoolExecutor(max_workers=threads, thread_name_prefix="rankmeter-eval")
        self.threads = threads
        self.blocks: Iterator[tuple[int, int]] | None = src.query_spans(block_bytes)
        self.pending: deque[Future[Any]] = deque()
        self.submitted = 0
        self.spans: list[tuple[int, int]] = []  # the ranges submitted, in file order
        self.taken = 0  # how many of them :meth:`run` took out of ``pending``
        self.not_grouped = False  # a query found in two places: blocks are parsed, no longer evaluated
        # once the file is found not grouped, each range parsed is handed to this at once (its value takes the
        # table's place, as with :meth:`parse_all`'s ``convert``): set by the caller, as soon as it opens the file
        self.convert: Callable[[int, int, pa.Table, Any], Any] | None = None
        # parsed ahead while the judgments load: about 192 MB of text (and at least 5 blocks), so that the
        # workers are still busy when the engine is ready (a 1M-line judgment file takes ~0.2 s to load)
        self.limit = threads + max(5, (192 << 20) // max(block_bytes, 1))
        self._turn = threading.Condition()  # parses while the judgments load: at most threads - 1 at once
        self._parsing = 0
        # ranges parsed while the judgments loaded, to evaluate (:meth:`_evaluate_early`): each with the future
        # that :meth:`run` waits on in its place
        self._early: deque[tuple[Future[Any], pa.Table, Any]] = deque()
        self._early_lock = threading.Lock()
        self.engine.add_done_callback(self._wake)
        self._fill()

    def _wake(self, _: Future[Any]) -> None:
        with self._turn:
            self._turn.notify_all()

    def _fill(self) -> None:
        while self.blocks is not None and len(self.pending) < self.limit:
            try:
                start, end = next(self.blocks)
            except StopIteration:
                self.blocks = None
                return
            self.pending.append(self.pool.submit(self._task, start, end, self.submitted < _CHECKED_BLOCKS))
            self.spans.append((start, end))
            self.submitted += 1

    def _parse(self, start: int, end: int) -> tuple[pa.Table, Any]:
        data, line = self.src.map_span(start, end)
        try:
            return self.src.parse_block(data, line)  # type: ignore[no-any-return]  # the source's parser is untyped
        finally:
            data.release()  # (the parse copied what it keeps)

    def _parse_in_turn(self, start: int, end: int) -> tuple[pa.Table, Any]:
        """:meth:`_parse`, waiting for a turn while the judgments load (every worker may parse once they are in)."""
        if self.engine.done():
            return self._parse(start, end)
        with self._turn:
            while self._parsing >= max(1, self.threads - 1) and not self.engine.done():
                self._turn.wait()
            self._parsing += 1
        try:
            return self._parse(start, end)
        finally:
            with self._turn:
                self._parsing -= 1
                self._turn.notify()

    def _task(self, start: int, end: int, check: bool = False) -> Any:
        if self._early:
            self._evaluate_early()
        table, parsed = self._parse_in_turn(start, end)
        if check and table.num_rows and _repeated_query(table.column("query")) is not None:
            self.not_grouped = True  # a query in two places of one block: the file is not grouped, stop at once
        if self.not_grouped and self.convert is not None:  # (its text let go of at once, not held until the end)
            return self.convert(start, end, table, parsed), parsed
        if self.not_grouped or not self.engine.done():  # the judgments are still loading (or the rows are to be
            return table, parsed  # regrouped): hand the parse back, free the thread
        return self._evaluate(table, parsed)

    def _later(self, table: pa.Table, parsed: Any) -> Future[Any]:
        """A range parsed before the judgments were in, queued for :meth:`_evaluate_early`: the future of its
        evaluation. The next task to start evaluates it before parsing its own range (a pool task is queued
        too, for when no range is left to parse), so that its table is let go of and its memory reused by
        the ranges parsed after it, rather than held behind the ranges queued meanwhile (before: evaluated
        after those, about 0.2 s later). Measured on 2 cores, 12 alternated runs, 10M lines in score order:
        93k -> 87k page faults, peak 420 -> 384 MB, 1.1% less time (paired); in any order 30 MB less peak."""
        fut: Future[Any] = Future()
        with self._early_lock:
            self._early.append((fut, table, parsed))
        self.pool.submit(self._evaluate_early)
        return fut

    def _evaluate_early(self) -> None:
        """Evaluate the ranges queued by :meth:`_later`, oldest first, until none is left."""
        while True:
            with self._early_lock:
                if not self._early:
                    return
                fut, table, parsed = self._early.popleft()
            if not fut.set_running_or_notify_cancel():
                continue
            try:
                fut.set_result(self._evaluate(table, parsed))
            except BaseException as exc:  # noqa: BLE001  (handed to :meth:`run`, which raises it)
                fut.set_exception(exc)
            del table, parsed

    def _evaluate(self, table: pa.Table, parsed: Any) -> Any:
        if self.not_grouped:
            return table, parsed  # (kept for the regrouping)
        engine = self.engine.result()
        if not table.num_rows:
            return None, np.zeros(0, dtype=np.uint64), parsed.comment_lines
        try:
            out = engine.evaluate_table(table, first_row=0)
        except RowError as exc:
            raise parsed.error(exc) from None
        return out, distinct(_signatures(out.heads)), parsed.comment_lines  # (the chunk's query ids, from the engine)

    def run(self, engine: Engine) -> Any:
        """The accumulator of every block's output, in file order; None when the file is not grouped by query."""
        self.engine.set_result(engine)
        acc = engine.accumulator()
        finished = _Finished()
        comments = 0
        # the blocks parsed while the judgments loaded are evaluated first, on every worker at once (:meth:`_later`)
        for i, fut in enumerate(self.pending):
            if fut.done() and not fut.exception() and len(fut.result()) == 2 and not self.not_grouped:
                self.pending[i] = self._later(*fut.result())
        try:
            while self.pending:
                got = self.pending[0].result()
                if self.not_grouped:
                    return None  # (the pool stays open: :meth:`parse_all` takes the parses on)
                if len(got) == 2:  # parsed before the engine was ready
                    self.pending[0] = self._later(*got)
                    continue
                self.pending.popleft()
                self.taken += 1
                out, sig, n_comments = got
                comments += n_comments
                if out is None:
                    continue
                if finished.seen(sig).any():
                    self.not_grouped = True
                    return None
                finished.add(sig)
                acc.add(out)
                self._fill()
        finally:
            if not self.not_grouped:
                self.close()
        if acc.run_rows == 0:
            raise InputError("no run lines (the file is empty or only comments)", source=self.src.source)
        acc.comment_lines = comments
        acc.reader_notes = [comment_note(comments, self.src.source)] if comments else []
        return acc

    def parse_all(self, convert: Callable[[int, int, pa.Table, Any], Any] | None = None) -> Iterator[tuple[Any, Any]]:
        """After :meth:`run` found the file not grouped: every range parsed, in file order, as (table, the
        parse), on the workers; the ranges parsed already are not parsed again. With ``convert``, the worker
        then gives the range's bytes (start, end), table and parse to it, and its value takes the table's
        place (a range that :attr:`convert` took already is not given again). Close when done."""
        assert self.not_grouped

        def parsed(span: tuple[int, int], earlier: Future[Any] | None) -> tuple[Any, Any]:
            # (``earlier``: the range's task from before, submitted before this one: running or done by now)
            got = None if earlier is None else earlier.result()
            if got is None or len(got) != 2:  # (a range evaluated before the repeat was seen: parsed again)
                got = self._parse(*span)
            table, info = got
            if convert is None or not isinstance(table, pa.Table):  # (converted already, by ``self.convert``)
                return table, info
            return convert(*span, table, info), info

        ahead = deque(self.pool.submit(parsed, span, None) for span in self.spans[:self.taken])
        ahead.extend(self.pool.submit(parsed, span, fut)  # parsed, or being parsed
                     for span, fut in zip(self.spans[self.taken:], self.pending, strict=True))
        self.pending = deque()
        while ahead:
            got = ahead.popleft().result()
            while self.blocks is not None and len(ahead) < 2 * self.threads + 2:  # the next ranges, parsed ahead
                try:
                    nxt = next(self.blocks)
                except StopIteration:
                    self.blocks = None
                    break
                ahead.append(self.pool.submit(parsed, nxt, None))
            yield got

    def close(self) -> None:
        if not self.engine.done():
            self.engine.set_exception(_Closed())
        for fut in self.pending:
            fut.cancel()
        self.pending.clear()
        with self._early_lock:
            self._early.clear()
        self.blocks = None
        self.pool.shutdown(wait=True)


class FileBlocks:
    """A run file opened for the in-process engine, its blocks read ahead from the moment it is opened.

    Open it before loading the judgments and the two overlap. ``None`` from :func:`open_file`
    when the input is not a regular file (a stream cannot be read twice, and the fallback
    for an ungrouped run reads it again).
    """

    def __init__(self, src: Any, chunk_rows: int, threads: int, ahead: bool = True) -> None:
        self.src = src
        self.parallel: _ParallelText | None = None
        self.laid_out: Any = None  # where a file found not grouped is laid out as it is parsed (engines.regroup)
        self.chunks: Iterable[tuple[pa.Table, Any]] | None = None  # (a _Prefetch while the judgments load)
        if src.format == "trec" and src.input.plain_file:  # byte ranges cut at query ends, read, parsed and
            # evaluated by the workers (a compressed file has no byte ranges: it takes the chunks below)
            # (their size set by the file's, never by the threads: 8 ranges at least, 48 bytes a row at most)
            size = min(max(_RANGE_BYTES, chunk_rows * 48), max(1 << 20, (src.input.size or 0) // 8))
            self.parallel = _ParallelText(src, threads, size)
        else:
            # chunks of whole queries, read and cut by the streaming engine's code. With ``ahead`` (the
            # judgments still to load) on a reader thread of their own, a chunk ahead, so the two overlap;
            # without, as they are needed: the streaming engine's route, chunk for chunk. Columnar and CSV
            # rows are smaller in memory than text: chunks as long as the streaming engine's
            chunks = _grouped_chunks(src.blocks(DEFAULT_CHUNK_ROWS), DEFAULT_CHUNK_ROWS)
            self.chunks = _Prefetch(chunks, depth=1) if ahead else chunks

    def close(self) -> None:
        if self.parallel is not None:
            self.parallel.close()
        if isinstance(self.chunks, _Prefetch):
            self.chunks.close()


def open_file(run: str | os.PathLike[str], *, order: str = "score", columns: Mapping[str, str | None] | None = None,
              chunk_rows: int = DEFAULT_CHUNK_ROWS, threads: int = 2, ahead: bool = True) -> FileBlocks | None:
    """Start reading a run file for :func:`grouped_file` (see :class:`FileBlocks`)."""
    if not os.path.isfile(run):  # a pipe or FIFO is read once, by the caller's fallback
        return None
    given = {k: v for k, v in (columns or {}).items() if v is not None}
    src = _open_source(run, "auto", order, given)
    if not src.restartable:
        return None
    return FileBlocks(src, chunk_rows, threads, ahead)


def grouped_file(engine: Engine, blocks: FileBlocks, *, threads: int) -> Any:
    """The in-process engine's route for a run file: chunks of whole queries evaluated by ``threads`` threads
    while the next blocks are parsed, into an accumulator; None when the file is not grouped by query (the
    caller then reads it whole: a TREC text file's blocks are then left open for :func:`regrouped_text`,
    which closes them). Its result equals the one of the whole run read at once."""
    keep = False
    try:
        if blocks.parallel is not None:
            got = blocks.parallel.run(engine)
            keep = got is None
            return got
        assert blocks.chunks is not None
        return _run_chunks(engine, iter(blocks.chunks), threads, _Progress(False, None, ""), blocks.src,
                           before_locate=blocks.close)
    except _NotGrouped:
        return cast("Result", None)
    finally:
        if not keep:
            blocks.close()


def _evaluate(qrels: Any, src: _Source, metrics: Any, *, queries: Any, context: Any, chunk_rows: int,
              grouped: bool | None, order: str, duplicates: str, progress: bool | None, workers: int | None,
              tmp_dir: Any, depth: int | None = None, judged_only: bool = False, ties: str = "id") -> Result:
    check_options(order=order, duplicates=duplicates, depth=depth, judged_only=judged_only, context=context,
                  func="evaluate_stream", ties=ties)
    if tmp_dir is not None and not os.path.isdir(tmp_dir):  # checked before any work, not after it
        raise ParameterError(f"The 'tmp_dir' parameter of evaluate_stream must be an existing folder. Got "
                             f"{str(tmp_dir)!r} instead.")
    q = qrels if isinstance(qrels, Qrels) else as_qrels(qrels, duplicates=duplicates)
    engine = Engine(q, metrics, queries=queries, context=context, order=order, duplicates=duplicates,
                    source=src.source, depth=depth, judged_only=judged_only, ties=ties)
    if workers is None:
        workers = max(1, min(2, os.cpu_count() or 1))
    if progress is None:
        progress = sys.stderr.isatty()
    block_rows = max(1, min(chunk_rows, 1 << 20))
    bar = _Progress(bool(progress), src.total_rows, "evaluating")
    try:
        if grouped is not False:
            try:
                check = _first_repeat if duplicates == "error" else None
                acc = _run_chunks(engine, _grouped_chunks(src.blocks(block_rows), chunk_rows, check_long=check),
                                  workers, bar, src)
                return acc.result()
            except _NotGrouped as exc:
                again = src.regrouped() if (grouped is None and isinstance(src, _BatchSource)) else None
                if again is not None:
                    bar.phase("evaluating (regrouped by query)", again.total_rows)
                    acc = _run_chunks(engine, _grouped_chunks(again.blocks(block_rows), chunk_rows), workers, bar,
                                      again)
                    return acc.result()
                if grouped is not True and not src.restartable:
                    raise InputError(
                        f"the run is not grouped by query: query {exc.query!r} appears again after other queries; "
                        "a stream is read only once: write it to a file first (a file need not be grouped), or "
                        "group its rows by query", source=src.source) from None
                if grouped is True:
                    raise InputError(
                        f"the run is not grouped by query: query {exc.query!r} appears again after other queries "
                        "(sort or group the rows by query, or pass grouped=False to partition them on disk)",
                        source=src.source) from None
                bar.phase("partitioning (the run is not grouped by query)", src.total_rows)
        with _cleanup_on_sigterm():  # installed before the partition folder exists
            parts = _Partitions(src.blocks(block_rows), src.total_rows, chunk_rows, tmp_dir, on_rows=bar.advance)
            try:
                try:
                    parts.write()
                except RowError as exc:
                    raise _locate(src, exc) from None
                bar.phase("evaluating partitions", parts.rows_written)
                acc = _run_chunks(engine, parts.tables(), workers, bar, src)
                return acc.result()
            finally:
                parts.cleanup()
    finally:
        bar.close()
