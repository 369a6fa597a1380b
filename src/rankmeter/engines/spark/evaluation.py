"""rankmeter.spark.evaluate and evaluate_parquet."""

from __future__ import annotations

import dataclasses
import functools
from typing import Any, Callable, Mapping, Sequence

import numpy as np
import pyarrow as pa

from ..._errors import InputError, ParameterError
from ...io import as_qrels
from ...io.tables import GRADE_NAMES, ITEM_NAMES, QUERY_NAMES, SCORE_NAMES, SUBTOPIC_NAMES
from ...result import Result
from . import _tasks
from ._common import collect, id_column, pick, require_pyspark, ship, to_arrow, translate
from ._tasks import assemble, grouping_problem, map_partition, out_schema, read_tasks

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
    read_files: bool = True,
    partitions: int | None = None,
    chunk_rows: int = 500_000,
    arrow_batch_rows: int = 100_000,
    duplicates: str = "error",
    depth: int | None = None,
    judged_only: bool = False,
    subtopics: bool = False,
    subtopic_col: str | None = None,
    ties: str = "id",
) -> Result:
    """Evaluate a run held in a Spark DataFrame; the result equals :func:`rankmeter.evaluate`'s.

    ``run_df``: columns query, item, score (names detected as in the file readers, or
    given with ``query_col``/``item_col``/``score_col``; integer ids stay integers,
    other ids are cast to strings). ``qrels_df``: a DataFrame of query, item, grade
    (``grade_col``; without a grade column every row has grade 1), or anything
    :func:`rankmeter.evaluate` accepts. ``subtopics=True`` (or ``subtopic_col``): judgments
    by subtopic, for the intent-aware metrics (docs/intent.md).

    ``read_files=True`` (default): when ``run_df`` is only a scan of Parquet files (at
    most a selection of their columns), the executors read the files with pyarrow as
    :func:`evaluate_parquet` does, and no row passes through the JVM; a run that turns
    out not to be grouped by query is then evaluated as below (``result.notes`` says so).
    Judgments given as such a scan are read by the driver with pyarrow.
    Otherwise the rows reach the Python workers as Arrow batches:

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
    require_pyspark()
    import pyspark.sql.functions as F
    from pyspark.sql import DataFrame

    if not isinstance(run_df, DataFrame):
        raise InputError(f"run_df must be a Spark DataFrame, got {type(run_df).__name__}", source="run_df")
    for pname, value in (("chunk_rows", chunk_rows), ("arrow_batch_rows", arrow_batch_rows)):
        _check_count("evaluate", pname, value)
    if partitions is not None:
        _check_count("evaluate", "partitions", partitions)
    spark = run_df.sparkSession
    rc = pick(run_df.columns, {"query": QUERY_NAMES, "item": ITEM_NAMES, "score": SCORE_NAMES},
              {"query": query_col, "item": item_col, "score": score_col}, "run_df")
    qrels = _judgments(qrels_df, query_col, item_col, grade_col, duplicates, read_files, subtopics=subtopics,
                       subtopic_col=subtopic_col)
    files = _parquet_scan(run_df) if read_files else None
    listing = _row_groups(files, rc, strict=False) if files else None
    if listing is not None:
        return _evaluate_files(
            spark, listing, qrels, metrics, queries=queries, context=context, tasks=None, chunk_rows=chunk_rows,
            duplicates=duplicates, options={"depth": depth, "judged_only": judged_only, "ties": ties},
            ungrouped=lambda engine: evaluate(run_df, qrels, engine.metrics, queries=queries, context=context,
                                              query_col=rc["query"], item_col=rc["item"], score_col=rc["score"],
                                              read_files=False, partitions=partitions, chunk_rows=chunk_rows,
                                              arrow_batch_rows=arrow_batch_rows, duplicates=duplicates,
                                              depth=depth, judged_only=judged_only, ties=ties))
    engine, token, shipped, names = _prepare(spark, qrels, metrics, queries, context, duplicates, "<spark run>",
                                             depth=depth, judged_only=judged_only, ties=ties)
    from pyspark.sql.pandas.types import from_arrow_schema

    schema = from_arrow_schema(out_schema(len(names)))
    run = run_df.select(id_column(run_df, rc["query"], "query"), id_column(run_df, rc["item"], "item"),
                        F.col(rc["score"]).cast("double").alias("score"))
    notes: list[str] = []
    old_batch = spark.conf.get(_ARROW_BATCH, None)
    spark.conf.set(_ARROW_BATCH, str(arrow_batch_rows))
    try:
        got = None
        if grouped:
            got = collect(run.mapInArrow(functools.partial(map_partition, token, shipped, chunk_rows, True), schema))
            problem = grouping_problem(got)
            if problem:
                notes.append(f"run_df is not grouped by query ({problem}): evaluated again after a shuffle by query")
                got = None
        if got is None:
            shuffled = run.repartition(partitions, "query") if partitions else run.repartition("query")
            shuffled = shuffled.sortWithinPartitions("query")
            got = collect(shuffled.mapInArrow(
                functools.partial(map_partition, token, shipped, chunk_rows, False), schema))
    finally:
        if old_batch is None:
            spark.conf.unset(_ARROW_BATCH)
        else:
            spark.conf.set(_ARROW_BATCH, old_batch)
        _unpersist(shipped)
    return assemble(engine, names, got, notes)


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
    grade_col: str | None = None,
    tasks: int | None = None,
    chunk_rows: int = 500_000,
    duplicates: str = "error",
    depth: int | None = None,
    judged_only: bool = False,
    subtopics: bool = False,
    subtopic_col: str | None = None,
    ties: str = "id",
) -> Result:
    """Evaluate a run stored as Parquet, the executors reading the files with pyarrow.

    For a run written grouped by query (all rows of a query together, as recommender
    pipelines write their top-k lists): Spark only schedules the work; each task reads
    consecutive row groups with pyarrow (a path or URI every executor can open: local in
    local mode, or a file system pyarrow knows, e.g. ``hdfs://``, ``s3://``) and runs the
    chunk engine on them, with no conversion of rows through the JVM. Queries cut by a
    task boundary are finished on the driver, and a run that is not grouped is evaluated
    with :func:`evaluate` on ``spark.read.parquet(run_path)`` (with a shuffle;
    ``result.notes`` says so). ``qrels``: a Spark DataFrame or anything
    :func:`rankmeter.evaluate` accepts. ``tasks``: number of Spark tasks (default: a
    multiple of the default parallelism, up to 16M rows each; a task reads its rows in
    chunks of ``chunk_rows``, so its memory does not grow with its share).
    """
    require_pyspark()
    paths = [str(run_path)] if isinstance(run_path, (str, bytes)) or not isinstance(run_path, Sequence) \
        else [str(p) for p in run_path]
    _check_count("evaluate_parquet", "chunk_rows", chunk_rows)
    if tasks is not None:
        _check_count("evaluate_parquet", "tasks", tasks)
    listing = _row_groups(paths, {"query": query_col, "item": item_col, "score": score_col}, strict=True)
    assert listing is not None
    q = _judgments(qrels, query_col, item_col, grade_col, duplicates, subtopics=subtopics, subtopic_col=subtopic_col)
    cols = listing[1]
    return _evaluate_files(
        spark, listing, q, metrics, queries=queries, context=context, tasks=tasks, chunk_rows=chunk_rows,
        duplicates=duplicates, options={"depth": depth, "judged_only": judged_only, "ties": ties},
        ungrouped=lambda engine: evaluate(spark.read.parquet(*paths), q, engine.metrics, queries=queries,
                                          context=context, query_col=cols["query"], item_col=cols["item"],
                                          score_col=cols["score"], read_files=False, chunk_rows=chunk_rows,
                                          duplicates=duplicates, depth=depth, judged_only=judged_only,
                                          ties=ties))


# --------------------------------------------------------------------------------
# the files path
# --------------------------------------------------------------------------------
_TASK_ROWS = 16_000_000  # at most this many rows per task by default (memory is set by chunk_rows)

_Listing = tuple[list[tuple[str, int, int]], dict[str, str]]  # (path, row group, rows) and the columns


def _evaluate_files(spark: Any, listing: _Listing, qrels: Any, metrics: Any, *, queries: Any, context: Any,
                    tasks: int | None, chunk_rows: int, duplicates: str, ungrouped: Callable[[Any], Result],
                    options: Mapping[str, Any]) -> Result:
    groups, cols = listing
    source = groups[0][0] if groups else "<spark run>"
    engine, token, shipped, names = _prepare(spark, qrels, metrics, queries, context, duplicates, source, **options)
    task_list = _plan_tasks(groups, tasks, spark.sparkContext.defaultParallelism)
    try:
        blobs = spark.sparkContext.parallelize(task_list, max(1, len(task_list))).mapPartitions(
            functools.partial(read_tasks, token, shipped, chunk_rows, cols)).collect()
    except Exception as exc:  # noqa: BLE001  (a Spark failure, translated into rankmeter's errors)
        raise translate(exc) from None
    finally:
        _unpersist(shipped)
    got = pa.concat_tables([pa.ipc.open_stream(b).read_all() for b in blobs if b]) if any(blobs) else \
        out_schema(len(names)).empty_table()
    problem = grouping_problem(got)
    if problem:
        result = ungrouped(engine)
        return dataclasses.replace(result, notes=list(result.notes) + [
            f"the run is not grouped by query ({problem}): evaluated through a Spark DataFrame with a shuffle"])
    return assemble(engine, names, got, [])


def _plan_tasks(groups: list[tuple[str, int, int]], tasks: int | None,
                parallel: int) -> list[list[tuple[str, list[int]]]]:
    """Consecutive row groups, about equal rows per task; by default a multiple of ``parallel`` tasks.

    >>> _plan_tasks([("a", 0, 10), ("a", 1, 10), ("b", 0, 10), ("b", 1, 10)], None, 2)
    [[('a', [0, 1])], [('b', [0, 1])]]
    """
    total = sum(g[2] for g in groups)
    n_tasks = tasks or parallel * max(1, -(-total // (parallel * _TASK_ROWS)))
    n_tasks = max(1, min(n_tasks, len(groups)))
    ends = np.cumsum([g[2] for g in groups])  # a task ends after the group that reaches its share
    bounds = np.searchsorted(ends, np.arange(1, n_tasks) * total / n_tasks, side="right")
    task_list: list[list[tuple[str, list[int]]]] = []
    for part in np.split(np.arange(len(groups)), np.unique(bounds)):
        if not len(part):
            continue
        per_file: dict[str, list[int]] = {}
        for i in part:
            per_file.setdefault(groups[i][0], []).append(int(groups[i][1]))
        task_list.append(list(per_file.items()))
    return task_list


def _row_groups(paths: Sequence[str], given: Mapping[str, str | None], strict: bool) -> _Listing | None:
    """Every row group of the files, and the run's columns; None (or an error if ``strict``) if one cannot be read."""
    from ..stream import _run_columns

    groups: list[tuple[str, int, int]] = []
    cols: dict[str, str] | None = None
    for path in paths:
        try:
            f = _tasks.parquet_file(path)
            c = _run_columns(f.schema_arrow.names, path, "score", given)
        except (OSError, pa.ArrowInvalid, InputError) as exc:
            if not strict:
                return None
            if isinstance(exc, InputError):
                raise
            raise InputError(f"not a readable Parquet file ({exc})", source=path) from None
        if cols is not None and c != cols:
            if not strict:
                return None
            raise InputError(f"the files of the run have different columns ({cols} and {c})", source=path)
        if not strict and not _plain_types(f.schema_arrow, c):
            return None  # other types are cast by Spark on the general path, as they always were
        cols = c
        groups += [(path, g, f.metadata.row_group(g).num_rows) for g in range(f.metadata.num_row_groups)]
    return (groups, cols) if cols is not None else None


def _plain_types(schema: pa.Schema, cols: Mapping[str, str]) -> bool:
    """Ids of integers or text and a numeric score: the types both paths read alike."""
    from ...data.qrels import numeric_type

    def text_or_int(t: pa.DataType) -> bool:
        if pa.types.is_dictionary(t):
            t = t.value_type
        return bool(pa.types.is_integer(t) or pa.types.is_string(t) or pa.types.is_large_string(t))

    score = schema.field(cols["score"]).type
    return (text_or_int(schema.field(cols["query"]).type) and text_or_int(schema.field(cols["item"]).type)
            and numeric_type(score) and not pa.types.is_boolean(score))


def _parquet_scan(df: Any) -> list[str] | None:
    """The files of a DataFrame that is a plain scan of Parquet files (at most some columns selected), else None.

    Reads the analysed plan: an optional projection of plain columns over a
    ``HadoopFsRelation`` in Parquet format, unpartitioned and unbucketed. Anything else
    (a filter, a join, computed columns, Spark Connect) returns None.
    """
    try:
        plan = df._jdf.queryExecution().analyzed()
        if plan.getClass().getSimpleName() == "Project":
            exprs = plan.projectList()
            if any(exprs.apply(i).getClass().getSimpleName() != "AttributeReference" for i in range(exprs.size())):
                return None
            plan = plan.child()
        if plan.getClass().getSimpleName() != "LogicalRelation":
            return None
        rel = plan.relation()
        if (rel.getClass().getSimpleName() != "HadoopFsRelation"
                or rel.fileFormat().getClass().getSimpleName() != "ParquetFileFormat"
                or rel.partitionSchema().length() != 0 or rel.bucketSpec().isDefined()):
            return None
        return list(df.inputFiles()) or None
    except Exception:  # noqa: BLE001  (not classic Spark, or a plan of another shape)
        return None


# --------------------------------------------------------------------------------
# shared by both paths
# --------------------------------------------------------------------------------
def _check_count(fn: str, name: str, value: Any) -> None:
    if not isinstance(value, int) or isinstance(value, bool) or value < 1:
        raise ParameterError(f"The {name!r} parameter of rankmeter.spark.{fn} must be an int >= 1. "
                             f"Got {value!r} instead.")


def _judgments(qrels: Any, query_col: str | None, item_col: str | None, grade_col: str | None,
               duplicates: str, read_files: bool = True, subtopics: bool = False,
               subtopic_col: str | None = None) -> Any:
    """Qrels from a Spark DataFrame (collected once: judgments are small) or from anything as_qrels takes.

    A DataFrame that is a plain scan of Parquet files is read by the driver with pyarrow,
    as ``rankmeter.read_qrels`` reads them (much quicker than collecting rows from the JVM).
    """
    from pyspark.sql import DataFrame

    if not isinstance(qrels, DataFrame):
        return as_qrels(qrels, duplicates=duplicates, subtopics=subtopics, subtopic=subtopic_col)
    by_subtopic = bool(subtopics) or subtopic_col is not None
    roles = {"query": QUERY_NAMES, "item": ITEM_NAMES, "grade": GRADE_NAMES}
    if by_subtopic:  # judgments by subtopic (the intent-aware metrics)
        roles["subtopic"] = SUBTOPIC_NAMES
    given = {"query": query_col, "item": item_col, "grade": grade_col, "subtopic": subtopic_col}
    qc = pick(qrels.columns, roles, given, "qrels_df", optional=("grade",))
    files = _parquet_scan(qrels) if read_files else None
    if files:
        try:
            table = pa.concat_tables([_tasks.parquet_file(f).read(columns=list(qc.values())) for f in files])
        except (OSError, pa.ArrowInvalid):
            table = None  # not readable here: collect through Spark
        if table is not None:
            return as_qrels(table, query=qc["query"], item=qc["item"], grade=qc.get("grade"), duplicates=duplicates,
                            subtopics=by_subtopic, subtopic=qc.get("subtopic"))
    import pyspark.sql.functions as F

    grade = F.col(qc["grade"]).cast("double") if "grade" in qc else F.lit(1.0)
    sub = [id_column(qrels, qc["subtopic"], "subtopic")] if by_subtopic else []
    return as_qrels(to_arrow(qrels.select(id_column(qrels, qc["query"], "query"), id_column(qrels, qc["item"], "item"),
                                          grade.alias("grade"), *sub)), duplicates=duplicates, subtopics=by_subtopic)


def _prepare(spark: Any, qrels: Any, metrics: Any, queries: Any, context: Any, duplicates: str,
             source: str, depth: int | None = None, judged_only: bool = False,
             ties: str = "id") -> tuple[Any, str, Any, list[str]]:
    """The driver's engine, the broadcast the executors build theirs from, and the per-query metric names."""
    from ...evaluation import Engine

    engine = Engine(qrels, metrics, queries=queries, context=context, duplicates=duplicates, source=source,
                    depth=depth, judged_only=judged_only, ties=ties)
    token, shipped = ship(spark, engine, qrels, queries, context, duplicates)
    return engine, token, shipped, [m.text for m in engine.all_metrics if m.spec.level == "query"]


def _unpersist(shipped: Any) -> None:
    if hasattr(shipped, "unpersist"):
        try:
            shipped.unpersist()
        except Exception:  # noqa: BLE001  (cleanup of a broadcast: nothing to report)
            pass
