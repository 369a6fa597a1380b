"""rankmeter on Apache Spark: whole-run evaluation on a cluster, and seed 000's SQL functions.

:func:`evaluate` takes Spark DataFrames of a run and of judgments and returns the
:class:`~rankmeter.result.Result` of :func:`rankmeter.evaluate`, the same numbers to
the last bit:

1. the judgments (small) are collected once and broadcast to the executors;
2. the run is hash-partitioned by query and sorted by query within each partition
   (``repartition(query).sortWithinPartitions(query)``), so every query's rows reach
   one Python worker, contiguously;
3. ``mapInArrow`` streams each partition's Arrow batches to rankmeter's chunk
   engine (:mod:`rankmeter._engine`), the same kernels as the local engine; rows are
   ranked by rankmeter's tie rule (score descending, then item id descending,
   comparing bytes), never by the order Spark delivers them;
4. only per-query values (and a few counts, and the states of corpus-level metrics)
   come back to the driver.

Works with Spark's local mode out of the box (``SparkSession.builder.master("local[2]")``)
and with any cluster a SparkSession points to, provided rankmeter is installed on the
executors.

:func:`register` adds the SQL functions of seed 000 (``precision``, ``recall``,
``average_precision``, ``auc``, ``mrr``, ``ndcg`` binary or graded, ``hit_rate``) and
``rankmeter_metric(name, rec, truth)`` / ``rankmeter_metric_graded(name, rec, truth,
grades)`` to Spark SQL, as vectorised Arrow UDFs.
"""

from __future__ import annotations

import dataclasses
import functools
import uuid
from typing import Any, Iterator, Mapping, Sequence

import numpy as np
import pyarrow as pa

from ._errors import InputError, MissingExtraError, ParameterError
from .data._table import RowError
from ._listfuncs import GRADED_NDCG, SQL_FUNCTIONS, graded_metric, list_metric
from .io import as_qrels
from .io.tables import GRADE_NAMES, ITEM_NAMES, QUERY_NAMES, SCORE_NAMES, pick_columns
from .result import Result

__all__ = ["evaluate", "evaluate_parquet", "register", "FUNCTIONS"]

FUNCTIONS: dict[str, str] = dict(SQL_FUNCTIONS)

_ENGINES: dict[str, Any] = {}  # per Python worker: engines already built from a broadcast


def _pyspark() -> Any:
    try:
        import pyspark
        import pyspark.sql  # noqa: F401
    except ImportError:
        raise MissingExtraError("The Spark backend", "spark", "pyspark") from None
    return pyspark


def _pick(columns: Sequence[str], roles: Mapping[str, Sequence[str]], given: Mapping[str, str | None], source: str,
          optional: Sequence[str] = ()) -> dict[str, str]:
    empty = pa.table({c: pa.array([], pa.null()) for c in columns})
    return pick_columns(empty, roles, dict(given), source, optional=optional)


def _to_arrow(df: Any) -> pa.Table:
    if hasattr(df, "toArrow"):
        return df.toArrow()  # Spark >= 4.0
    return pa.Table.from_pandas(df.toPandas(), preserve_index=False)


# --------------------------------------------------------------------------------
# executors
# --------------------------------------------------------------------------------
def _engine_from(token: str, payload: Any) -> Any:
    engine = _ENGINES.get(token)
    if engine is None:
        from pyspark import cloudpickle

        from ._engine import Engine

        data = payload.value if hasattr(payload, "value") else payload
        args = cloudpickle.loads(data)
        engine = Engine(args["qrels"], args["metrics"], queries=args["queries"], context=args["context"],
                        duplicates=args["duplicates"], source="<spark run>")
        _ENGINES.clear()  # keep one: a worker serves one evaluation at a time
        _ENGINES[token] = engine
    return engine


# kinds of output rows of the executors
_VALUES, _STATS, _NOJUDG, _EXAMPLE, _STATES, _LEFTOVER, _SEEN, _NOT_GROUPED = range(8)


def _out_schema(n_values: int) -> pa.Schema:
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
    from .data._ids import as_string_array

    return as_string_array(col)


def _map_partition(token: str, payload: Any, chunk_rows: int, grouped_input: bool,
                   batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
    """mapInArrow body: per-query values of the partition's queries, then its counts and states.

    With ``grouped_input`` (no shuffle: a scan of a run grouped by query), the first and
    the last query of the partition may continue in a neighbouring partition: their rows
    are sent back as they are and evaluated on the driver; every other query id is
    reported, so that the driver can check that no query was split elsewhere.
    """
    import pyarrow.compute as pc
    from pyspark import cloudpickle

    from .data._table import RowError
    from .stream import _grouped_chunks, _NotGrouped

    engine = _engine_from(token, payload)
    names = [m.text for m in engine.metrics if m.spec.level == "query"]
    schema = _out_schema(len(names))
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


# --------------------------------------------------------------------------------
# driver
# --------------------------------------------------------------------------------
_ARROW_BATCH = "spark.sql.execution.arrow.maxRecordsPerBatch"


def evaluate(
    run_df: Any,
    qrels_df: Any,
    metrics: Any,
    *,
    queries: str | Sequence[str] = "judged",
    context: Mapping[str, Any] | None = None,
    query_col: str | None = None,
    item_col: str | None = None,
    score_col: str | None = None,
    grade_col: str | None = None,
    grouped: bool = False,
    partitions: int | None = None,
    chunk_rows: int = 500_000,
    arrow_batch_rows: int = 100_000,
    duplicates: str = "error",
) -> Result:
    """Evaluate a run held in a Spark DataFrame; the result equals :func:`rankmeter.evaluate`'s.

    ``run_df``: columns query, item, score (names detected as in the file readers, or
    given with ``query_col``/``item_col``/``score_col``; integer ids stay integers,
    other ids are cast to strings). ``qrels_df``: a DataFrame of query, item, grade
    (``grade_col``; without a grade column every row has grade 1), or anything
    :func:`rankmeter.evaluate` accepts.

    ``grouped=False`` (default): the run is hash-partitioned by query (a shuffle) into
    ``partitions`` partitions (default: Spark's choice) and sorted by query within
    them. ``grouped=True``: the DataFrame already holds each query's rows together in
    scan order (e.g. a Parquet file written grouped or sorted by query): no shuffle;
    a query cut by a partition boundary is evaluated on the driver from its rows, and
    if any query turns out to be split elsewhere the run is evaluated again with the
    shuffle (and ``result.notes`` says so). ``chunk_rows``: rows an executor evaluates
    at once. ``arrow_batch_rows``: Arrow batch size handed to the Python workers
    (``spark.sql.execution.arrow.maxRecordsPerBatch`` during the call). Other
    parameters as :func:`rankmeter.evaluate`.
    """
    _pyspark()
    import pyspark.sql.functions as F
    from pyspark.sql import DataFrame
    from ._engine import Engine

    if not isinstance(run_df, DataFrame):
        raise InputError(f"run_df must be a Spark DataFrame, got {type(run_df).__name__}", source="run_df")
    for pname, value in (("chunk_rows", chunk_rows), ("arrow_batch_rows", arrow_batch_rows)):
        if not isinstance(value, int) or isinstance(value, bool) or value < 1:
            raise ParameterError(f"The {pname!r} parameter of rankmeter.spark.evaluate must be an int >= 1. "
                                 f"Got {value!r} instead.")
    if partitions is not None and (not isinstance(partitions, int) or partitions < 1):
        raise ParameterError(f"The 'partitions' parameter of rankmeter.spark.evaluate must be an int >= 1. "
                             f"Got {partitions!r} instead.")
    spark = run_df.sparkSession
    rc = _pick(run_df.columns, {"query": QUERY_NAMES, "item": ITEM_NAMES, "score": SCORE_NAMES},
               {"query": query_col, "item": item_col, "score": score_col}, "run_df")
    if isinstance(qrels_df, DataFrame):
        qc = _pick(qrels_df.columns, {"query": QUERY_NAMES, "item": ITEM_NAMES, "grade": GRADE_NAMES},
                   {"query": query_col, "item": item_col, "grade": grade_col}, "qrels_df", optional=("grade",))
        grade = F.col(qc["grade"]).cast("double") if "grade" in qc else F.lit(1.0)
        qfields = {f.name: f.dataType for f in qrels_df.schema.fields}

        def qident(role: str) -> Any:  # integer ids travel as integers, the text is made in Arrow
            col = F.col(qc[role])
            return (col if _is_int_type(qfields[qc[role]]) else col.cast("string")).alias(role)

        table = _to_arrow(qrels_df.select(qident("query"), qident("item"), grade.alias("grade")))
        qrels = as_qrels(table, duplicates=duplicates)
    else:
        qrels = as_qrels(qrels_df, duplicates=duplicates)
    engine = Engine(qrels, metrics, queries=queries, context=context, duplicates=duplicates, source="<spark run>")
    token, shipped = _ship(spark, engine, qrels, queries, context, duplicates)
    names = [m.text for m in engine.metrics if m.spec.level == "query"]
    from pyspark.sql.pandas.types import from_arrow_schema

    schema = from_arrow_schema(_out_schema(len(names)))
    fields = {f.name: f.dataType for f in run_df.schema.fields}

    def ident(role: str) -> Any:
        col = F.col(rc[role])
        return (col if _is_int_type(fields[rc[role]]) else col.cast("string")).alias(role)

    run = run_df.select(ident("query"), ident("item"), F.col(rc["score"]).cast("double").alias("score"))
    notes: list[str] = []
    old_batch = spark.conf.get(_ARROW_BATCH, None)
    spark.conf.set(_ARROW_BATCH, str(arrow_batch_rows))
    try:
        got = None
        if grouped:
            got = _collect(run.mapInArrow(functools.partial(_map_partition, token, shipped, chunk_rows, True), schema))
            problem = _grouping_problem(got)
            if problem:
                notes.append(f"run_df is not grouped by query ({problem}): evaluated again after a shuffle by query")
                got = None
        if got is None:
            shuffled = run.repartition(partitions, "query") if partitions else run.repartition("query")
            shuffled = shuffled.sortWithinPartitions("query")
            got = _collect(shuffled.mapInArrow(
                functools.partial(_map_partition, token, shipped, chunk_rows, False), schema))
    finally:
        if old_batch is None:
            spark.conf.unset(_ARROW_BATCH)
        else:
            spark.conf.set(_ARROW_BATCH, old_batch)
        if hasattr(shipped, "unpersist"):
            try:
                shipped.unpersist()
            except Exception:  # noqa: BLE001
                pass

    return _assemble(engine, names, got, notes)


def _assemble(engine: Any, names: list[str], got: pa.Table, notes: list[str]) -> Result:
    """The Result from the executors' output rows (values, counts, boundary rows, states)."""
    from pyspark import cloudpickle

    from ._engine import ChunkOut

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
        extra_seen=[q for q, c in zip(qids, codes) if c < 0],
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
    return result


def _ship(spark: Any, engine: Any, qrels: Any, queries: Any, context: Any, duplicates: str) -> tuple[str, Any]:
    from pyspark import cloudpickle

    payload = cloudpickle.dumps({"qrels": qrels, "metrics": engine.metrics, "queries": queries,
                                 "context": context, "duplicates": duplicates})
    try:
        return uuid.uuid4().hex, spark.sparkContext.broadcast(payload)
    except Exception:  # noqa: BLE001  (Spark Connect: no SparkContext; the payload travels with the function)
        return uuid.uuid4().hex, payload


# --------------------------------------------------------------------------------
# Parquet files read by the executors themselves
# --------------------------------------------------------------------------------
def _read_tasks(token: str, payload: Any, chunk_rows: int, cols: Mapping[str, str],
                tasks: Iterator[list[tuple[str, list[int]]]]) -> Iterator[bytes]:
    """RDD body: read row groups with pyarrow, evaluate them as a grouped partition, send Arrow IPC bytes."""
    import pyarrow.parquet as pq

    from .stream import _standard

    def batches() -> Iterator[pa.RecordBatch]:
        for task in tasks:
            for path, groups in task:
                f = pq.ParquetFile(path, pre_buffer=False)
                for b in f.iter_batches(batch_size=1 << 17, row_groups=groups,
                                        columns=list(dict.fromkeys(cols.values())), use_threads=False):
                    for rb in _standard(pa.Table.from_batches([b]), cols).to_batches():
                        yield rb

    out = list(_map_partition(token, payload, chunk_rows, True, batches()))
    sink = pa.BufferOutputStream()
    if out:
        with pa.ipc.new_stream(sink, out[0].schema) as w:
            for b in out:
                w.write_batch(b)
    yield sink.getvalue().to_pybytes()


def evaluate_parquet(
    spark: Any,
    run_path: str | Sequence[str],
    qrels: Any,
    metrics: Any,
    *,
    queries: str | Sequence[str] = "judged",
    context: Mapping[str, Any] | None = None,
    query_col: str | None = None,
    item_col: str | None = None,
    score_col: str | None = None,
    tasks: int | None = None,
    chunk_rows: int = 500_000,
    duplicates: str = "error",
) -> Result:
    """Evaluate a run stored as Parquet, the executors reading the files with pyarrow.

    For a run written grouped by query (all rows of a query together, as recommender
    pipelines write their top-k lists): Spark only schedules the work; each task reads
    consecutive row groups with pyarrow (a path every executor can open: local in local
    mode, or a shared file system pyarrow knows) and runs the chunk engine on them, with
    no conversion of rows through the JVM. Queries cut by a task boundary are finished on
    the driver, and a run that is not grouped is evaluated with :func:`evaluate` on
    ``spark.read.parquet(run_path)`` (with a shuffle; ``result.notes`` says so).
    ``qrels``: a Spark DataFrame or anything :func:`rankmeter.evaluate` accepts.
    ``tasks``: number of Spark tasks (default: about one per 4M rows, at least the
    default parallelism).
    """
    _pyspark()
    import pyarrow.parquet as pq
    from pyspark.sql import DataFrame

    from ._engine import Engine
    from .stream import _run_columns

    paths = [str(run_path)] if isinstance(run_path, (str, bytes)) or not isinstance(run_path, Sequence) \
        else [str(p) for p in run_path]
    if not isinstance(chunk_rows, int) or isinstance(chunk_rows, bool) or chunk_rows < 1:
        raise ParameterError(f"The 'chunk_rows' parameter of rankmeter.spark.evaluate_parquet must be an int >= 1. "
                             f"Got {chunk_rows!r} instead.")
    groups: list[tuple[str, int, int]] = []  # (path, row group, rows)
    cols: dict[str, str] | None = None
    for path in paths:
        try:
            f = pq.ParquetFile(path)
        except (OSError, pa.ArrowInvalid) as exc:
            raise InputError(f"not a readable Parquet file ({exc})", source=path) from None
        c = _run_columns(f.schema_arrow.names, path, "score",
                         {"query": query_col, "item": item_col, "score": score_col})
        if cols is not None and c != cols:
            raise InputError(f"the files of the run have different columns ({cols} and {c})", source=path)
        cols = c
        groups += [(path, g, f.metadata.row_group(g).num_rows) for g in range(f.metadata.num_row_groups)]
    assert cols is not None
    total = sum(g[2] for g in groups)
    parallel = spark.sparkContext.defaultParallelism
    n_tasks = tasks or max(parallel, min(len(groups), -(-total // 4_000_000)))
    n_tasks = max(1, min(n_tasks, len(groups)))
    # consecutive row groups of about equal rows per task
    bounds = np.searchsorted(np.cumsum([g[2] for g in groups]), np.arange(1, n_tasks) * total / n_tasks)
    task_list: list[list[tuple[str, list[int]]]] = []
    for part in np.split(np.arange(len(groups)), np.unique(bounds)):
        if not len(part):
            continue
        per_file: dict[str, list[int]] = {}
        for i in part:
            per_file.setdefault(groups[i][0], []).append(groups[i][1])
        task_list.append(list(per_file.items()))

    if isinstance(qrels, DataFrame):
        from .io import as_qrels as _as_qrels
        table = _to_arrow(qrels)
        qc = _pick(table.column_names, {"query": QUERY_NAMES, "item": ITEM_NAMES, "grade": GRADE_NAMES},
                   {"query": query_col, "item": item_col}, "qrels", optional=("grade",))
        q = _as_qrels(table, query=qc["query"], item=qc["item"], grade=qc.get("grade"), duplicates=duplicates)
    else:
        q = as_qrels(qrels, duplicates=duplicates)
    engine = Engine(q, metrics, queries=queries, context=context, duplicates=duplicates, source=paths[0])
    names = [m.text for m in engine.metrics if m.spec.level == "query"]
    token, shipped = _ship(spark, engine, q, queries, context, duplicates)
    try:
        rdd = spark.sparkContext.parallelize(task_list, len(task_list))
        blobs = rdd.mapPartitions(functools.partial(_read_tasks, token, shipped, chunk_rows, cols)).collect()
    except Exception as exc:  # noqa: BLE001
        raise _translate(exc) from None
    finally:
        if hasattr(shipped, "unpersist"):
            try:
                shipped.unpersist()
            except Exception:  # noqa: BLE001
                pass
    got = pa.concat_tables([pa.ipc.open_stream(b).read_all() for b in blobs if b]) if any(blobs) else \
        _out_schema(len(names)).empty_table()
    problem = _grouping_problem(got)
    if problem:
        result = evaluate(spark.read.parquet(*paths), q, engine.metrics, queries=queries, context=context,
                          query_col=cols["query"], item_col=cols["item"], score_col=cols["score"],
                          chunk_rows=chunk_rows, duplicates=duplicates)
        return dataclasses.replace(result, notes=list(result.notes) + [
            f"the run is not grouped by query ({problem}): evaluated through a Spark DataFrame with a shuffle"])
    return _assemble(engine, names, got, [])


def _is_int_type(t: Any) -> bool:
    from pyspark.sql.types import ByteType, IntegerType, LongType, ShortType

    return isinstance(t, (LongType, IntegerType, ShortType, ByteType))


def _collect(df: Any) -> pa.Table:
    try:
        return _to_arrow(df)
    except Exception as exc:  # noqa: BLE001
        raise _translate(exc) from None


def _grouping_problem(got: pa.Table) -> str | None:
    """Why a no-shuffle pass is not valid: a query met in two partitions, or twice in one."""
    kind = got.column("kind").to_numpy(zero_copy_only=False)
    bad = got.column("query").filter(pa.array(kind == _NOT_GROUPED)).to_pylist()
    if bad:
        return f"query {bad[0]!r} appears again after other queries"
    whole = got.column("query").filter(pa.array((kind == _VALUES) | (kind == _SEEN))).to_pylist()
    seen: set[str] = set()
    for q in whole:
        if q in seen:
            return f"query {q!r} is in two partitions"
        seen.add(q)
    left = set(got.column("query").filter(pa.array(kind == _LEFTOVER)).to_pylist())
    both = left & seen
    if both:
        return f"query {sorted(both)[0]!r} is in two partitions"
    return None


def _translate(exc: Exception) -> Exception:
    """A rankmeter error raised on an executor, as the same error class on the driver."""
    text = str(exc)
    for cls in (InputError, ParameterError):
        marker = f"{cls.__name__}: "
        at = text.rfind(marker)
        if at >= 0:
            return cls(text[at + len(marker):].strip().splitlines()[0])
    return exc


# --------------------------------------------------------------------------------
# SQL functions
# --------------------------------------------------------------------------------
def _relscores(rec: pa.Array) -> pa.Array | None:
    """For a list of structs (seed 000's struct(relscore, itemid)): the relscore lists."""
    import pyarrow.compute as pc

    if isinstance(rec, pa.ChunkedArray):
        rec = rec.combine_chunks()
    if not (pa.types.is_list(rec.type) or pa.types.is_large_list(rec.type)):
        return None
    vt = rec.type.value_type
    if not pa.types.is_struct(vt):
        return None
    names = [vt.field(i).name for i in range(vt.num_fields)]
    field = "relscore" if "relscore" in names else names[0]
    flat = rec.flatten()
    vals = pc.struct_field(flat, [names.index(field)])
    return pa.ListArray.from_arrays(rec.offsets, vals, mask=rec.is_null())


def _scalar_udf(sql_name: str) -> Any:
    def fn(rec: pa.Array, truth: pa.Array, k: pa.Array) -> pa.Array:
        if sql_name == "ndcg":
            rel = _relscores(rec)
            if rel is not None:
                return graded_metric("ndcg", rel, truth, k, name=GRADED_NDCG)
        return list_metric(sql_name, rec, truth, k)

    return fn


def _metric_udf(name: pa.Array, rec: pa.Array, truth: pa.Array) -> pa.Array:
    from .duckdb import _by_name, _take

    return _by_name(name, len(rec), lambda m, rows: list_metric("rankmeter_metric", _take(rec, rows),
                                                                   _take(truth, rows), None, name=m))


def _metric_graded_udf(name: pa.Array, rec: pa.Array, truth: pa.Array, grades: pa.Array) -> pa.Array:
    from .duckdb import _by_name, _take

    return _by_name(name, len(rec), lambda m, rows: list_metric(
        "rankmeter_metric_graded", _take(rec, rows), _take(truth, rows), None, grades=_take(grades, rows), name=m))


def register(spark: Any) -> Any:
    """Register seed 000's ranking functions (and ``rankmeter_metric``) in Spark SQL; returns the session.

    ``precision(rec, truth, k)``, ``recall``, ``average_precision``, ``auc``, ``mrr``,
    ``ndcg`` (a list of ids, or seed 000's list of ``struct(relscore, itemid)`` with
    ``truth`` the relevance scores), ``hit_rate`` (and Hivemall's ``precision_at``,
    ``recall_at``, ``hitrate``); ``rankmeter_metric(name, rec, truth)`` and
    ``rankmeter_metric_graded(name, rec, truth, grades)`` for any registry metric,
    e.g. ``rankmeter_metric('ndcg(gain=exp)@10', rec, truth)``.
    """
    _pyspark()

    try:
        from pyspark.sql.functions import arrow_udf
    except ImportError:  # Spark < 4.1: pandas UDFs, converted to Arrow inside
        arrow_udf = None
    for sql_name in FUNCTIONS:
        spark.udf.register(sql_name, _wrap(_scalar_udf(sql_name), 3, arrow_udf))
    spark.udf.register("rankmeter_metric", _wrap(_metric_udf, 3, arrow_udf))
    spark.udf.register("rankmeter_metric_graded", _wrap(_metric_graded_udf, 4, arrow_udf))
    return spark


def _wrap(fn: Any, arity: int, arrow_udf: Any) -> Any:
    from pyspark.sql.types import DoubleType

    if arrow_udf is not None:
        if arity == 3:
            def f3(a: pa.Array, b: pa.Array, c: pa.Array) -> pa.Array:
                return fn(a, b, c)
            return arrow_udf(f3, DoubleType())

        def f4(a: pa.Array, b: pa.Array, c: pa.Array, d: pa.Array) -> pa.Array:
            return fn(a, b, c, d)
        return arrow_udf(f4, DoubleType())
    import pandas as pd
    from pyspark.sql.functions import pandas_udf

    def conv(s: pd.Series) -> pa.Array:
        return pa.array(s.tolist())

    if arity == 3:
        def p3(a: pd.Series, b: pd.Series, c: pd.Series) -> pd.Series:
            return fn(conv(a), conv(b), conv(c)).to_pandas()
        return pandas_udf(p3, DoubleType())  # type: ignore[call-overload]

    def p4(a: pd.Series, b: pd.Series, c: pd.Series, d: pd.Series) -> pd.Series:
        return fn(conv(a), conv(b), conv(c), conv(d)).to_pandas()
    return pandas_udf(p4, DoubleType())  # type: ignore[call-overload]

