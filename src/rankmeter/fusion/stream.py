"""Fusion of run files larger than memory: read in chunks of whole queries, fused query by query.

:func:`fuse_files` reads every run file in blocks (:func:`rankmeter.io.blocks.open_run_blocks`,
the in-process readers' parsers), cuts them into chunks of whole queries, and fuses a
query as soon as every run has given its rows for it (or has moved past it, or ended). The
fused queries are fused in batches of about ``chunk_rows`` rows, by the in-process code
(:mod:`rankmeter.fusion.frame`, :mod:`rankmeter.fusion.methods`) on ``threads`` threads while
the next rows are read, and written as TREC lines in order. A query's fusion reads only
its own rows (the normalisations are per query), so each query's fused ranking and scores
are those of :func:`rankmeter.fusion.fuse` on the whole files, bit for bit.

Each file must be grouped by query (all rows of a query together, as nearly every run file
is), and the files must list the queries they share in the same order; memory is then set
by ``chunk_rows`` and by how far apart the files' positions drift, not by their size. Queries
are written in the order they complete: the in-process order when every file has the same
queries in the same order. A file not grouped, or files in different orders, give an error
that says so (fuse them in memory with :func:`rankmeter.fuse`, or sort them by query).

>>> import os, tempfile
>>> d = tempfile.mkdtemp()
>>> for name, text in (("a", "q1 Q0 x 1 3 a\\nq1 Q0 y 2 2 a\\nq2 Q0 x 1 1 a\\n"), ("b", "q1 Q0 y 1 9 b\\n")):
...     _ = open(os.path.join(d, name), "w").write(text)
>>> out = os.path.join(d, "fused.run")
>>> fuse_files([os.path.join(d, "a"), os.path.join(d, "b")], "rrf", output=out, chunk_rows=1).rows
3
>>> print(open(out).read(), end="")
q1 Q0 y 1 0.03252247488101534 rrf
q1 Q0 x 2 0.01639344262295082 rrf
q2 Q0 x 1 0.01639344262295082 rrf
"""

from __future__ import annotations

import os
from collections import deque
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, Iterator, Mapping, Sequence, TextIO

import numpy as np
import pyarrow as pa

from .. import _compute as C
from .._errors import InputError
from .._params import check_int
from ..data import Run
from ..data.ids import ints
from ..engines.stream import query_starts
from ..io.blocks import open_run_blocks
from .core import _names, fused_run, resolve
from .frame import join, normalize
from .write import write_trec

__all__ = ["FuseSummary", "fuse_files"]

DEFAULT_CHUNK_ROWS = 500_000


@dataclass(frozen=True)
class FuseSummary:
    """What :func:`fuse_files` wrote: queries, rows, and the notes (as a fused run's)."""

    queries: int
    rows: int
    notes: tuple[str, ...]


def _chunks(path: str, name: str, rows: int, order: str) -> Iterator[tuple[list[str], dict[str, pa.Table]]]:
    """A file's queries, in chunks of whole queries: (query ids in file order, {query: its rows})."""
    src = open_run_blocks(path, order=order)
    seen: set[str] = set()
    carry: pa.Table | None = None
    for block in src.blocks(rows):
        table = block.table if carry is None else pa.concat_tables([carry, block.table]).combine_chunks()
        q = table.column("query").combine_chunks()
        if not len(q):
            continue
        starts = query_starts(q)
        cut = int(starts[-1])  # the last query may go on in the next block
        carry = table.slice(cut)
        if cut:
            yield _split(table.slice(0, cut), starts[:-1], seen, name)
    if carry is not None and carry.num_rows:
        yield _split(carry, np.zeros(1, dtype=np.int64), seen, name)


def _split(table: pa.Table, starts: np.ndarray, seen: set[str], name: str) -> tuple[list[str], dict[str, pa.Table]]:
    heads = C.take(table.column("query").combine_chunks(), ints(starts)).to_pylist()
    bounds = list(starts) + [table.num_rows]
    out: dict[str, pa.Table] = {}
    for i, qid in enumerate(heads):
        if qid in seen:
            raise InputError(f"query {qid!r} comes back after other queries: fusing files chunk by chunk needs each "
                             "file grouped by query (sort it by query, or fuse in memory with rankmeter.fuse)",
                             source=name)
        seen.add(qid)
        out[qid] = table.slice(int(bounds[i]), int(bounds[i + 1]) - int(bounds[i]))
    return heads, out


class _Reader:
    """One run file's progress: rows waiting, each query's place in the file, the last query read."""

    def __init__(self, name: str, chunks: Iterator[tuple[list[str], dict[str, pa.Table]]]) -> None:
        self.name = name
        self.chunks = chunks
        self.rows: dict[str, pa.Table] = {}
        self.place: dict[str, int] = {}
        self.done = False
        self.last: str | None = None

    def read(self, seen: dict[str, int], order: list[str], emitted: set[str]) -> None:
        """Read the next chunk; new queries join ``order`` (first seen first)."""
        try:
            heads, rows = next(self.chunks)
        except StopIteration:
            self.done = True
            return
        for qid in heads:
            if qid in emitted:  # fused already: the other files had gone past it
                raise InputError(f"query {qid!r} comes in another order than in the other runs: fusing files chunk by "
                                 "chunk needs the files to list their queries in the same order (sort them by query, "
                                 "or fuse in memory with rankmeter.fuse)", source=self.name)
            if qid not in seen:
                seen[qid] = len(order)
                order.append(qid)
            self.place[qid] = len(self.place)
            self.last = qid
        self.rows.update(rows)


def _resolved(qid: str, j: int, readers: list[_Reader]) -> bool:
    """Whether run j has said all it has for ``qid``: its rows are read, it ended, or it read a query that
    another file lists after ``qid`` (in one common order, it would have had ``qid`` before)."""
    r = readers[j]
    if r.done or qid in r.rows:
        return True
    last = r.last
    if last is None:
        return False
    return any(qid in o.place and last in o.place and o.place[qid] < o.place[last] for o in readers)


def fuse_files(runs: Sequence[str | os.PathLike[str]] | Mapping[str, str | os.PathLike[str]], method: str = "rrf",
               *, output: str | os.PathLike[str] | TextIO, norm: str | None = "min-max", weights: Any = None,
               k: float | None = None, depth: int | None = None, params: Mapping[str, Any] | None = None,
               tag: str | None = None, chunk_rows: int = DEFAULT_CHUNK_ROWS, threads: int | None = None,
               order: str = "score") -> FuseSummary:
    """Fuse run files chunk by chunk into a TREC run written to ``output`` (a path or a text stream).

    The arguments are :func:`rankmeter.fusion.fuse`'s, with ``chunk_rows`` (rows read and fused at a
    time) and ``threads`` (fusing threads; default 2). Returns the counts and the notes.
    """
    if isinstance(runs, Mapping):
        names, paths = [str(n) for n in runs], [os.fspath(p) for p in runs.values()]
    else:
        paths = [os.fspath(p) for p in runs]
        names = list(_names(list(paths)))
    chunk_rows = check_int("chunk_rows", chunk_rows, func="fuse_files", low=1)
    n_threads = check_int("threads", 2 if threads is None else threads, func="fuse_files", low=1)
    depth = check_int("depth", depth, func="fuse_files", low=1, allow_none=True)
    spec, w, p, notes = resolve(method, len(paths), names, weights=weights, k=k, params=params, func="fuse_files")
    readers = [_Reader(n, _chunks(path, n, chunk_rows, order)) for n, path in zip(names, paths, strict=True)]
    seen: dict[str, int] = {}
    common: list[str] = []
    emitted: set[str] = set()
    next_q = 0
    lacking = [0] * len(readers)
    queries = rows = 0
    own = not hasattr(output, "write")
    fh: TextIO = open(output, "w", encoding="utf-8") if own else output  # type: ignore[arg-type,assignment]
    pending: deque[Future[tuple[Run, list[int]]]] = deque()

    def fuse_batch(batch: list[str], parts_by_run: list[list[pa.Table]]) -> tuple[Run, list[int]]:
        loaded = []
        for parts in parts_by_run:
            table = pa.concat_tables(parts) if parts else None
            if table is None:
                loaded.append(Run.from_columns(pa.array([], pa.string()), pa.array([], pa.string()),
                                               np.zeros(0)))
            else:
                loaded.append(Run.from_columns(table.column("query"), table.column("item"),
                                               table.column("score") if "score" in table.column_names else None,
                                               rank=table.column("rank") if "rank" in table.column_names else None,
                                               order="rank" if order == "rank" else "score"))
        frame = normalize(join(loaded, names), norm)
        return fused_run(frame, spec.kernel(frame, w, p), depth), [len(batch) - len(x) for x in parts_by_run]

    def submit(batch: list[str]) -> None:
        # the rows leave the readers here, in the reading thread; the fusing threads only read them
        parts = [[r.rows.pop(qid) for qid in batch if qid in r.rows] for r in readers]
        pending.append(pool.submit(fuse_batch, batch, parts))

    def flush(block: bool) -> None:
        nonlocal queries, rows
        while pending and (block or pending[0].done()):
            run, missing = pending.popleft().result()
            for j, n in enumerate(missing):
                lacking[j] += n
            queries += run.n_queries
            rows += write_trec(run, fh, tag=tag or spec.name)

    try:
        with ThreadPoolExecutor(max_workers=n_threads) as pool:
            while True:
                # read from the run furthest behind (its last query seen first), the others wait for it
                active = [r for r in readers if not r.done]
                if active:
                    min(active, key=lambda r: -1 if r.last is None else seen[r.last]).read(seen, common, emitted)
                batch: list[str] = []
                batch_rows = 0
                while next_q < len(common):
                    qid = common[next_q]
                    if not all(_resolved(qid, j, readers) for j in range(len(readers))):
                        break
                    batch.append(qid)
                    emitted.add(qid)
                    batch_rows += sum(r.rows[qid].num_rows for r in readers if qid in r.rows)
                    next_q += 1
                    if batch_rows >= chunk_rows:
                        submit(batch)
                        batch, batch_rows = [], 0
                if batch:
                    submit(batch)
                while len(pending) > n_threads:
                    flush(block=True)
                flush(block=False)
                if not active:
                    break
            flush(block=True)
    finally:
        if own:
            fh.close()
    for j, n in enumerate(lacking):
        if n:
            notes.append(f"run {names[j]!r} has no document for {n} of the {queries} queries: fused from the other "
                         "runs there")
    return FuseSummary(queries, rows, tuple(notes))
