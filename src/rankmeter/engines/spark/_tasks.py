"""What runs on the executors (and how the driver assembles what they send back)."""

from __future__ import annotations

import dataclasses
from typing import Any, Iterator, Mapping, cast

import numpy as np
import pyarrow as pa

from ..._errors import InputError
from ...data.table import RowError
from ...result import Result

_ENGINES: dict[str, Any] = {}  # per Python worker: engines already built from a broadcast


def _engine_from(token: str, payload: Any) -> Any:
    engine = _ENGINES.get(token)
    if engine is None:
        from pyspark import cloudpickle

        from ...evaluation import Engine

        data = payload.value if hasattr(payload, "value") else payload
        args = cloudpickle.loads(data)
        engine = Engine(args["qrels"], args["metrics"], queries=args["queries"], context=args["context"],
                        duplicates=args["duplicates"], source="<spark run>", depth=args["depth"],
                        judged_only=args["judged_only"], ties=args.get("ties", "id"))
        _ENGINES.clear()  # keep one: a worker serves one evaluation at a time
        _ENGINES[token] = engine
    return engine


# kinds of output rows of the executors
_VALUES, _STATS, _NOJUDG, _EXAMPLE, _STATES, _LEFTOVER, _SEEN, _NOT_GROUPED = range(8)


def out_schema(n_values: int) -> pa.Schema:
    return pa.schema([("kind", pa.int8()), ("query", pa.string()), ("item", pa.string()), ("score", pa.float64()),
                      ("n1", pa.int64()), ("n2", pa.int64()), ("blob", pa.binary())]
                     + [(f"v{i}", pa.float64()) for i in range(n_values)])


def _rows(schema: pa.Schema, kind: int, n: int, **cols: Any) -> pa.RecordBatch:
    arrays = [pa.array(np.full(n, kind, dtype=np.int8))]
    for f in list(schema)[1:]:
        v = cols.get(f.name)
        arrays.append(pa.nulls(n, f.type) if v is None else (v if isinstance(v, pa.Array) else pa.array(v, f.type)))
    return pa.RecordBatch.from_arrays(arrays, schema=schema)


def _text(col: Any) -> pa.Array:
    from ...data.ids import as_string_array

    return as_string_array(col)


def map_partition(token: str, payload: Any, chunk_rows: int, grouped_input: bool,
                   batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
    """mapInArrow body: per-query values of the partition's queries, then its counts and states.

    With ``grouped_input`` (no shuffle: a scan of a run grouped by query), the first and
    the last query of the partition may continue in a neighbouring partition: their rows
    are sent back as they are and evaluated on the driver; every other query id is
    reported, so that the driver can check that no query was split elsewhere.
    """
    import pyarrow.compute as pc
    from pyspark import cloudpickle

    from ...data.table import RowError
    from ..stream import _grouped_chunks, _NotGrouped

    engine = _engine_from(token, payload)
    names = [m.text for m in engine.all_metrics if m.spec.level == "query"]
    schema = out_schema(len(names))
    run_rows = used = nojudg = dropped = 0
    examples: list[str] = []
    states: dict[str, Any] = {}
    corpus = engine.corpus_metrics
    leftovers: list[pa.Table] = []

    def blocks() -> Iterator[tuple[pa.Table, int]]:
        first = 0
        head: Any = None
        in_head = grouped_input
        for b in batches:
            if not b.num_rows:
                continue
            t = pa.Table.from_batches([b])
            if in_head:
                q = t.column("query")
                if head is None:
                    head = q[0]
                at = pc.index(pc.not_equal(q, head), True).as_py()
                if at < 0:
                    leftovers.append(t)
                    first += t.num_rows
                    continue
                leftovers.append(t.slice(0, at))
                t = t.slice(at)
                first += at
                in_head = False
            yield t, first
            first += t.num_rows

    try:
        for table, first in _grouped_chunks(blocks(), chunk_rows, keep_last=leftovers if grouped_input else None):
            out = engine.evaluate_table(table, first_row=first)
            run_rows += out.run_rows
            used += out.run_rows_used
            nojudg += out.without_judgments
            dropped += out.dropped
            examples = sorted(examples + out.without_judgments_examples, key=lambda s: s.encode())[:3]
            for m in corpus:
                if m.text in out.states:
                    states[m.text] = m.spec.merge(states[m.text], out.states[m.text]) if m.text in states \
                        else out.states[m.text]
            if out.queries:
                yield _rows(schema, _VALUES, len(out.queries), query=out.queries,
                            **{f"v{i}": pa.array(out.values[k], pa.float64()) for i, k in enumerate(names)})
            if grouped_input and out.other_queries:
                yield _rows(schema, _SEEN, len(out.other_queries), query=out.other_queries)
    except RowError as exc:
        raise InputError(f"{exc.message} (in the run DataFrame)") from None
    except _NotGrouped as exc:
        if not grouped_input:  # cannot happen after sortWithinPartitions
            raise RuntimeError(f"partition not grouped by query at {exc.query!r}") from None
        yield _rows(schema, _NOT_GROUPED, 1, query=[str(exc.query)])
        return
    if leftovers:
        t = pa.concat_tables([x.select(["query", "item", "score"]) for x in leftovers if x.num_rows])
        if t.num_rows:
            yield _rows(schema, _LEFTOVER, t.num_rows, query=_text(t.column("query")),
                        item=_text(t.column("item")),
                        score=pc.cast(t.column("score"), pa.float64()).combine_chunks())
    yield _rows(schema, _STATS, 1, n1=[run_rows], n2=[used])
    yield _rows(schema, _NOJUDG, 1, n1=[nojudg], n2=[dropped])
    if examples:
        yield _rows(schema, _EXAMPLE, len(examples), query=examples)
    if states:
        yield _rows(schema, _STATES, 1, blob=[cloudpickle.dumps(states)])


def parquet_file(path: str, **options: Any) -> Any:
    """``pyarrow.parquet.ParquetFile`` of a path or a URI (``file:``, ``hdfs://``, ``s3://``: those pyarrow knows)."""
    import pyarrow.parquet as pq

    if path.startswith("file:") or "://" in path:
        from pyarrow import fs

        filesystem, inner = fs.FileSystem.from_uri(path)
        return pq.ParquetFile(filesystem.open_input_file(inner), **options)
    return pq.ParquetFile(path, **options)


def read_tasks(token: str, payload: Any, chunk_rows: int, cols: Mapping[str, str],
                tasks: Iterator[list[tuple[str, list[int]]]]) -> Iterator[bytes]:
    """RDD body: read row groups with pyarrow, evaluate them as a grouped partition, send Arrow IPC bytes."""
    from ..stream import _standard

    def batches() -> Iterator[pa.RecordBatch]:
        for task in tasks:
            for path, groups in task:
                f = parquet_file(path, pre_buffer=False)
                for b in f.iter_batches(batch_size=1 << 17, row_groups=groups,
                                        columns=list(dict.fromkeys(cols.values())), use_threads=False):
                    yield from _standard(pa.Table.from_batches([b]), cols).to_batches()

    out = list(map_partition(token, payload, chunk_rows, True, batches()))
    sink = pa.BufferOutputStream()
    if out:
        with pa.ipc.new_stream(sink, out[0].schema) as w:
            for b in out:
                w.write_batch(b)
    yield sink.getvalue().to_pybytes()


def assemble(engine: Any, names: list[str], got: pa.Table, notes: list[str]) -> Result:
    """The Result from the executors' output rows (values, counts, boundary rows, states)."""
    from pyspark import cloudpickle

    from ...evaluation import ChunkOut

    kind = got.column("kind").to_numpy(zero_copy_only=False)

    def pick(k: int) -> pa.Table:
        return got.filter(pa.array(kind == k))

    acc = engine.accumulator()
    per = pick(_VALUES)
    qids = per.column("query").to_pylist()
    codes = engine.codes(qids)
    stats = pick(_STATS)
    acc.add(ChunkOut(
        queries=qids,
        values={k: per.column(f"v{i}").to_numpy().astype(np.float64) for i, k in enumerate(names)},
        states={},
        run_rows=int(pa.compute.sum(stats.column("n1")).as_py() or 0),
        run_rows_used=int(pa.compute.sum(stats.column("n2")).as_py() or 0),
        seen_codes=codes[codes >= 0],
        without_judgments=int(pa.compute.sum(pick(_NOJUDG).column("n1")).as_py() or 0),
        without_judgments_examples=sorted(pick(_EXAMPLE).column("query").to_pylist(), key=lambda s: s.encode())[:3],
        extra_seen=[q for q, c in zip(qids, codes, strict=True) if c < 0],
        dropped=int(pa.compute.sum(pick(_NOJUDG).column("n2")).as_py() or 0),
    ))
    left = pick(_LEFTOVER)
    if left.num_rows:
        try:
            acc.add(engine.evaluate_table(left.select(["query", "item", "score"])))
        except RowError as exc:
            raise InputError(f"{exc.message} (in the run)") from None
    for b in pick(_STATES).column("blob").to_pylist():
        acc._merge(cloudpickle.loads(b))
    result = acc.result()
    if notes:
        result = dataclasses.replace(result, notes=list(result.notes) + notes)
    return cast("Result", result)


def grouping_problem(got: pa.Table) -> str | None:
    """Why a no-shuffle pass is not valid: a query met in two partitions, or twice in one."""
    kind = got.column("kind").to_numpy(zero_copy_only=False)
    bad = got.column("query").filter(pa.array(kind == _NOT_GROUPED)).to_pylist()
    if bad:
        return f"query {bad[0]!r} appears again after other queries"
    import pyarrow.compute as pc

    whole = got.column("query").filter(pa.array((kind == _VALUES) | (kind == _SEEN)))
    if len(pc.unique(whole)) != len(whole):  # rare: find the query (in Python)
        seen: set[str] = set()
        for q in whole.to_pylist():
            if q in seen:
                return f"query {q!r} is in two partitions"
            seen.add(q)
    left = pc.unique(got.column("query").filter(pa.array(kind == _LEFTOVER)))
    both = left.filter(pc.is_in(left, value_set=whole.combine_chunks() if isinstance(whole, pa.ChunkedArray)
                                else whole)).to_pylist()
    if both:
        return f"query {sorted(both)[0]!r} is in two partitions"
    return None

