"""The in-process engine: a run in memory, evaluated as one chunk by the evaluation core."""

from __future__ import annotations

import dataclasses
import os
from typing import Any, Iterable, Mapping, Sequence, cast

import numpy as np

from .. import _compute as C
from ..data import Qrels, Run
from ..data.ids import distinct
from ..evaluation import ChunkOut, Engine, check_options
from ..evaluation.selection import QueryPolicy, check_queries
from ..evaluation.threads import resolve_threads
from ..io import as_qrels, as_run
from ..metrics.registry import Metric, parse_metrics
from ..provenance import Provenance, describe_input
from ..result import Result
from .regroup import lay_out_early, regrouped_text
from .stream import _repeated_query, grouped_file, open_file, query_starts

__all__ = ["evaluate", "evaluate_file", "evaluate_table_in_chunks", "in_order", "judgments_as_large", "open_ahead",
           "run_pieces", "swapped_hint", "whole_query_cuts", "FILE_CHUNK_ROWS", "file_chunk_rows"]

# rows per chunk of a run file (about 12 MB of TREC text, 40 MB of work each): smaller chunks keep less memory
# in flight (10M lines: 540 MB at 250k, 690 MB at 500k) at no cost in time. Never set by the thread count
FILE_CHUNK_ROWS = 250_000


def file_chunk_rows(engine: Engine) -> int:
    """Rows per chunk of a run file opened once ``engine`` is built: :data:`FILE_CHUNK_ROWS`, an eighth of it
    for millions of judged queries. A chunk's temporaries grow with its queries (one-item queries: as many as
    its rows, about 300 bytes each), and such judgments leave little of the memory bound to them: 2M one-item
    queries (61 MB) peaked at 510-520 MB in chunks of 4.6 MB of text against a bound of 482 MB, and at
    405-416 MB in chunks of 1.5 MB, in the same CPU time (measured on 2 shared cores)."""
    return FILE_CHUNK_ROWS // 8 if engine.qrels.n_queries >= C.MILLIONS else FILE_CHUNK_ROWS


def swapped_hint(qrels_rows: int, run_rows: int) -> list[str]:
    """A note when the judgments are much larger than the run, as when the two were given in the wrong order.

    >>> print(*swapped_hint(5000, 100))
    the judgments have 5000 rows, 50x the run's 100: if the two inputs were swapped, the judgments (QRELS) come first
    """
    if run_rows and qrels_rows >= 10 * run_rows:
        return [f"the judgments have {qrels_rows} rows, {qrels_rows // run_rows}x the run's {run_rows}: if the two "
                "inputs were swapped, the judgments (QRELS) come first"]
    return []


def evaluate(
    qrels: Any,
    run: Any,
    metrics: str | Metric | Iterable[str | Metric],
    *,
    queries: QueryPolicy | Sequence[str] = "judged",
    context: Mapping[str, Any] | None = None,
    duplicates: str = "error",
    order: str = "score",
    depth: int | None = None,
    judged_only: bool = False,
    threads: int | None = None,
    ties: str = "id",
    convention: str | None = None,
    unjudged: str = "ignore",
    unjudged_grade: float | None = None,
) -> Result:
    """Evaluate a run against judgments with ranking metrics.

    ``qrels`` and ``run`` are :class:`~rankmeter.Qrels`/:class:`~rankmeter.Run` objects or
    anything the loaders accept (paths, DataFrames, pyarrow Tables, dicts). ``metrics`` is
    a metric string or a list of them (``"ndcg@10"``, ``"P_10"``, ``"ap(norm=min)@5"``).
    ``queries``: which queries count (:mod:`rankmeter.evaluation.selection`). ``order``:
    how a run read here is ranked: ``"score"`` (score descending, ties by item id
    descending), ``"rank"`` (the rank column), ``"given"`` (as listed). ``depth``: cut
    every ranking to its first ``depth`` items before every metric (trec_eval ``-M``;
    not the same as a cutoff: recall's and nDCG's denominators still see every
    judgment). ``judged_only``: remove unjudged items (and items judged with a negative
    grade) from every ranking first (trec_eval ``-J``), labelled in the result's notes.
    ``ties``: how tied scores are ordered (:mod:`rankmeter.metrics.ties`): ``"id"`` (item id
    descending, trec_eval's rule, the default), ``"average"`` (the expected value over the
    orders of each tied group, McSherry and Najork 2008), ``"optimistic"`` / ``"pessimistic"``
    (best / worst grade first), ``"bounds"`` (the id rule's values, and both of those in
    ``result.tie_bounds``); a metric the registry does not declare for the rule is refused.
    ``unjudged``: ``"ignore"`` (unjudged items are not relevant, the default) or ``"bounds"``: also each
    metric's smallest and largest value over every completion of the judgments, each retrieved unjudged
    item not relevant or relevant at grade ``unjudged_grade`` (default: the query's highest judged grade)
    (``result.bounds``; :mod:`rankmeter.metrics.unjudged`).
    ``convention``: a tool (``"sklearn"``, ``"rectools"``...: :mod:`rankmeter.metrics.conventions`)
    whose conventions the names without a ``tool:`` prefix take; results stay keyed as written.
    Inputs are never modified. ``metrics`` may also be a comma list, as on the command line
    (``"ndcg@10,map"``: each part is its own key).

    With no query to evaluate (empty judgments, or none that counts under ``queries``),
    every per-query mean is nan and ``result.notes`` says why: an empty evaluation is an
    answer, not an error (the command line refuses an empty file before it gets there).

    >>> r = evaluate({"u1": ["1", "2", "4"]}, {"u1": ["1", "3", "2", "6"]}, ["ndcg@2", "P@2", "map"])
    >>> {k: round(v, 6) for k, v in r.mean.items()}
    {'ndcg@2': 0.613147, 'P@2': 0.5, 'map': 0.555556}
    >>> round(evaluate({"u1": ["1", "2", "4"]}, {"u1": ["1", "3", "2", "6"]}, "map", judged_only=True).mean["map"], 6)
    0.666667
    """
    if metrics is None:
        parse_metrics(())  # "no metric given"
    from ..io.irds import expand_official

    metrics = expand_official(metrics, qrels)  # "official": the measures of the judgments' ir_datasets dataset
    if convention is not None:
        from ..metrics.conventions import with_convention

        metrics = with_convention(metrics, convention)
    parsed = parse_metrics(metrics)
    check_queries(queries)
    check_options(order=order, duplicates=duplicates, depth=depth, judged_only=judged_only, context=context,
                  ties=ties)
    n_threads = resolve_threads(threads)
    # read ahead while the judgments load (judgments already loaded: nothing to overlap; judgments as large as
    # the run: the run opened once they are in, not both in memory at once)
    late = judgments_as_large(qrels, run)
    blocks = None if late else open_ahead(run, order=order, threads=n_threads, ahead=not isinstance(qrels, Qrels))
    try:
        q = as_qrels(qrels, duplicates=duplicates)
        if len(q) >= C.MILLIONS and not isinstance(qrels, Qrels):
            C.release_memory()  # (coding millions of ids leaves their temporaries with the allocators)
        engine = Engine(q, parsed, queries=queries, context=context, order="score" if order == "given" else order,
                        duplicates=duplicates, depth=depth, judged_only=judged_only, ties=ties,
                        unjudged=unjudged, unjudged_grade=unjudged_grade)
    except BaseException:
        if blocks is not None:
            blocks.close()
        raise
    if late:
        blocks = open_ahead(run, order=order, threads=n_threads, ahead=False, chunk_rows=file_chunk_rows(engine))
    if blocks is not None:
        res = evaluate_file(engine, run, threads=n_threads, blocks=blocks)
    else:
        r = as_run(run, duplicates=duplicates, **({"order": order} if order != "score" else {}))
        res = _evaluate_built(engine, r, n_threads)
    record = Provenance.create(
        inputs=[describe_input("qrels", qrels), describe_input("run", run)], metrics=parsed, threads=n_threads,
        options={"queries": queries if isinstance(queries, str) else list(queries), "depth": depth,
                 "judged_only": judged_only, "order": order, "duplicates": duplicates, "ties": ties,
                 "convention": convention, "unjudged": unjudged, "unjudged_grade": unjudged_grade})
    return dataclasses.replace(res, provenance=record)


def judgments_as_large(qrels: Any, run: Any) -> bool:
    """Whether a judgments file is at least half the size of a run file (and over 16 MB): the run is then not
    read ahead while the judgments load, since both in memory at once raise the peak (2M one-item queries: by
    about 40 MB, against a bound of 3x the input + 300 MB) for an overlap of a fraction of a second. A 10M-line
    run beside 1M judgments keeps its read-ahead.

    >>> judgments_as_large("-", "-"), judgments_as_large({"q": ["d"]}, "run.txt")
    (False, False)
    """
    if not isinstance(qrels, (str, os.PathLike)) or not isinstance(run, (str, os.PathLike)):
        return False
    try:
        q, r = os.path.getsize(qrels), os.path.getsize(run)
    except (OSError, ValueError):  # '-', a name that is not a file: nothing to compare
        return False
    return q >= 16 << 20 and 2 * q >= r


def open_ahead(run: Any, *, order: str = "score", columns: Mapping[str, str | None] | None = None,
               threads: int | None = None, ahead: bool = True, chunk_rows: int | None = None) -> Any:
    """A run file opened for :func:`evaluate_file` and already being read, or None (not a regular file,
    ``order="given"``, or an input the reader refuses: its error then comes when the run is read, after
    the judgments', as without reading ahead). ``ahead=False``: a Parquet or CSV run is read only as its
    chunks are evaluated (nothing to overlap: the judgments are loaded). ``chunk_rows``: as
    :func:`file_chunk_rows` sets it (default :data:`FILE_CHUNK_ROWS`)."""
    if not isinstance(run, (str, os.PathLike)) or order == "given" or os.fspath(run) == "-":
        return None
    try:
        blocks = open_file(run, order=order, columns=columns, chunk_rows=chunk_rows or FILE_CHUNK_ROWS,
                           threads=resolve_threads(threads), ahead=ahead)
    except Exception:  # noqa: BLE001 (see the docstring)
        return None
    return lay_out_early(blocks)


def _evaluate_built(engine: Engine, run: Run, threads: int) -> Result:
    """A built run, in pieces of whole queries on ``threads`` threads."""
    acc = engine.accumulator()
    acc.comment_lines = run.comment_lines
    acc.reader_notes = list(run.notes)
    pieces = run_pieces(run, FILE_CHUNK_ROWS)
    for out in in_order(engine.evaluate_run, pieces, threads):
        acc.add(out)
    acc.reader_notes += swapped_hint(len(engine.qrels), acc.run_rows)
    return acc.result()


def in_order(fn: Any, items: Sequence[Any], threads: int) -> list[Any]:
    """``[fn(x) for x in items]`` on ``threads`` threads, results in the items' order."""
    if len(items) < 2 or threads == 1:
        return [fn(x) for x in items]
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(max_workers=threads, thread_name_prefix="rankmeter") as pool:
        return list(pool.map(fn, items))


def whole_query_cuts(offsets: np.ndarray, rows: int) -> list[int]:
    """Query indices cutting CSR ``offsets`` into pieces of whole queries of about ``rows`` rows (first and
    last included): a piece ends at the first query boundary at or after each multiple of ``rows``.

    >>> whole_query_cuts(np.array([0, 2, 3, 4]), 2)
    [0, 1, 3]
    """
    n = int(offsets[-1]) if len(offsets) else 0
    inner = np.searchsorted(offsets, np.arange(rows, n, rows)) if n > rows else np.zeros(0, dtype=np.int64)
    return cast("list[int]", distinct(np.concatenate(([0], inner, [len(offsets) - 1]))).tolist())


def run_pieces(run: Run, rows: int) -> list[Run]:
    """A built run cut into runs of whole queries of about ``rows`` rows, in its order (rank order kept).

    >>> r = Run.from_columns(["a", "a", "b", "c"], ["1", "2", "1", "3"], [2.0, 1.0, 1.0, 1.0])
    >>> [p.to_lists() for p in run_pieces(r, 2)]
    [{'a': ['1', '2']}, {'b': ['1'], 'c': ['3']}]
    """
    if len(run) <= rows:
        return [run]
    qcuts = whole_query_cuts(run.offsets, rows)
    pieces = []
    for a, b in zip(qcuts[:-1], qcuts[1:], strict=True):
        lo, hi = int(run.offsets[a]), int(run.offsets[b])
        items = run.item_input.slice(lo, hi - lo) if run.row_order is None else \
            run.items_at(np.arange(lo, hi, dtype=np.int64))
        pieces.append(Run(query_ids=run.query_ids.slice(a, b - a), offsets=run.offsets[a:b + 1] - lo,
                          item_input=items, row_order=None, scores=run.scores[lo:hi], order=run.order,
                          dropped=run.dropped if a == 0 else 0))
    return pieces


def evaluate_file(engine: Engine, path: str | os.PathLike[str], *, threads: int | None = None,
                  columns: Mapping[str, str | None] | None = None, blocks: Any = None) -> Result:
    """Evaluate a run file with a prepared engine: in chunks of whole queries on ``threads`` threads when
    the file is grouped by query (as nearly every run file is), else read whole. Same result either way.

    ``blocks``: the file already opened with :func:`rankmeter.engines.stream.open_file` (and being read).
    """
    n_threads = resolve_threads(threads)
    if blocks is None:
        blocks = lay_out_early(open_file(path, order=engine.order, columns=columns, chunk_rows=file_chunk_rows(engine),
                                         threads=n_threads, ahead=False))  # (the engine, hence the judgments, is ready)
    acc = grouped_file(engine, blocks, threads=n_threads) if blocks is not None else None
    if acc is None and blocks is not None:  # not grouped by query: a TREC text file is put in query order in memory
        acc = regrouped_text(engine, blocks, threads=n_threads, chunk_rows=FILE_CHUNK_ROWS)
    if acc is None:
        options: dict[str, Any] = {k: v for k, v in (columns or {}).items() if v is not None}
        if engine.order != "score":
            options["order"] = engine.order
        return _evaluate_built(engine, as_run(path, duplicates=engine.duplicates, **options), n_threads)
    acc.reader_notes += swapped_hint(len(engine.qrels), acc.run_rows)
    return cast("Result", acc.result())


def evaluate_table_in_chunks(engine: Engine, table: Any, *, threads: int | None = None,
                             chunk_rows: int | None = None) -> ChunkOut:
    """:meth:`Engine.evaluate_table` of a whole run table, in chunks of whole queries on ``threads`` threads.

    The per-query values are the same bits as one call's, in the same (table) order: a query's values
    depend on its own rows only, and the chunks (set by rows, never by threads) are joined in order.
    A table whose queries are not grouped, or metrics with corpus-level states, take one call.
    """
    import pyarrow as pa

    n = table.num_rows
    rows = FILE_CHUNK_ROWS if chunk_rows is None else chunk_rows
    if chunk_rows is None and engine.qrels.n_queries >= C.MILLIONS:
        rows //= 4  # millions of judged queries: a piece's temporaries grow with its queries (as many as rows)
    if n <= rows or engine.corpus_metrics:
        return engine.evaluate_table(table)
    q = table.column("query")
    q = q.combine_chunks() if isinstance(q, pa.ChunkedArray) else q
    # a query in two places: one call (checked by sorted 64-bit signatures, not a hash table of every id,
    # which took about 230 MB for 2M one-item queries)
    if _repeated_query(q.slice(0, 4096)) is not None:  # (rows in any order: seen in the first rows already)
        return engine.evaluate_table(table)
    starts = query_starts(q)
    if _repeated_query(q, first=n, starts=starts) is not None:
        return engine.evaluate_table(table)
    bounds = np.append(starts, n)
    del starts
    del q  # (2M one-item queries: every temporary held through the evaluation counts)
    cuts = bounds[whole_query_cuts(bounds, rows)].tolist()
    del bounds
    pieces = [(a, table.slice(a, b - a)) for a, b in zip(cuts[:-1], cuts[1:], strict=True)]

    def piece(p: tuple[int, Any]) -> ChunkOut:
        out = engine.evaluate_table(p[1], first_row=p[0])
        out.heads, out.other_queries = None, []  # (not part of the joined output: let go of at once)
        if engine.qrels.n_queries >= C.MILLIONS:  # millions of judged queries: the piece's freed temporaries given
            C.release_memory()  # back, so the outputs do not pile up between their holes (a few ms a piece)
        return out

    outs = in_order(piece, pieces, resolve_threads(threads))
    ids = [o.queries if isinstance(o.queries, pa.Array) else pa.array(list(o.queries), pa.string()) for o in outs]
    queries = pa.concat_arrays([C.cast(i, pa.string()) for i in ids])
    del ids
    # each column joined, then its pieces let go of (not every piece held until every column is joined)
    values = {k: np.concatenate([o.values.pop(k) for o in outs]) for k in list(outs[0].values)}
    seen_codes = np.concatenate([o.seen_codes for o in outs])
    return ChunkOut(
        queries=queries, values=values,
        states={}, run_rows=sum(o.run_rows for o in outs), run_rows_used=sum(o.run_rows_used for o in outs),
        seen_codes=seen_codes,
        without_judgments=sum(o.without_judgments for o in outs), path="+".join(sorted({o.path for o in outs})),
        dropped=sum(o.dropped for o in outs))
