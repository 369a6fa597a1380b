"""rankmeter inside DuckDB: Apache Hivemall's SQL ranking functions, and whole-run evaluation.

:func:`register` adds the ranking functions of Apache Hivemall's documentation to a
DuckDB connection, computed by rankmeter's kernels (vectorised Arrow UDFs)::

    "precision"(rec, truth, k)   recall(rec, truth, k)     average_precision(rec, truth, k)
    auc(rec, truth, k)           mrr(rec, truth, k)        ndcg(rec, truth, k)
    hit_rate(rec, truth, k)      precision_at / recall_at / hitrate (Hivemall's later names)
    ndcg(rec STRUCT(relscore, itemid)[], truth DOUBLE[], k)  -- graded, Hivemall's second query
    rankmeter_metric(name, rec, truth[, grades])              -- any registry metric, e.g. 'ndcg(gain=exp)@10'

``rec`` is the ranked list (best first), ``truth`` the relevant items; both
``VARCHAR[]`` or both integer lists. ``precision`` is a keyword of DuckDB's grammar
(``DOUBLE PRECISION``): write ``"precision"(...)`` or ``precision_at(...)``. Hive's
``map_values(to_ordered_map(score, itemid, true))`` is, in DuckDB,
``list(itemid ORDER BY score DESC, itemid DESC)`` (the tie rule of rankmeter and
trec_eval; note that a Hive map keyed by score keeps one item per score).

:func:`evaluate` evaluates a whole run held in DuckDB (a table, a view, a query or a
relation) and returns the :class:`~rankmeter.result.Result` of
:func:`rankmeter.evaluate`: DuckDB groups the rows by query (``ORDER BY`` query, spilling to
disk when needed) and streams Arrow record batches to rankmeter's chunk engine.

NULL and errors: a NULL list or k gives NULL; k <= 0, a NULL inside a list, an item
twice in a list, lists of different id types or a metric that needs more than one
row (``err`` without ``max_grade``, corpus-level metrics) raise an error.
"""

from __future__ import annotations

import dataclasses
import re
from typing import Any, Mapping, Sequence

import numpy as np
import pyarrow as pa

from .._errors import InputError, MissingExtraError, ParameterError
from ..io import as_qrels
from ..io.tables import GRADE_NAMES, ITEM_NAMES, QUERY_NAMES, SCORE_NAMES, SUBTOPIC_NAMES, pick_columns
from ..result import Result
from .sqlfuncs import GRADED_NDCG, SQL_FUNCTIONS, graded_metric, list_metric

__all__ = ["register", "evaluate", "FUNCTIONS"]

# SQL name -> registry metric (the names in Hivemall's documentation and Hivemall's later spellings)
FUNCTIONS: dict[str, str] = dict(SQL_FUNCTIONS)

_INT_TYPES = {"BIGINT", "INTEGER", "SMALLINT", "TINYINT", "UINTEGER", "USMALLINT", "UTINYINT"}
_FLOAT_TYPES = ("FLOAT", "DOUBLE", "REAL", "DECIMAL")


_NUMBER_TYPES = ("TINYINT", "SMALLINT", "INTEGER", "BIGINT", "HUGEINT", "UTINYINT", "USMALLINT", "UINTEGER",
                 "UBIGINT", "UHUGEINT", "FLOAT", "DOUBLE", "REAL", "DECIMAL", "BOOLEAN")


def _check_number_type(kind: str, role: str, column: str, source: str) -> None:
    """Scores and grades must be numbers, as every reader requires (a text column is not cast in silence)."""
    if not kind.upper().startswith(_NUMBER_TYPES):
        raise InputError(f"the {role} column {column!r} has type {kind}; a {role} must be a number (convert the "
                         "column first)", source=source)


def _check_id_type(kind: str, role: str, column: str, source: str) -> None:
    """Float and decimal ids are refused, as every reader refuses them (DuckDB writes 1.0 where Arrow writes 1)."""
    if kind.upper().startswith(_FLOAT_TYPES):
        raise InputError(f"the {role} column {column!r} holds floating-point numbers ({kind}); ids must be text or "
                         "integers (a float id has no single text form: convert the column to integers or text "
                         "first)", source=source)


def _duckdb() -> Any:
    try:
        import duckdb
    except ImportError:
        raise MissingExtraError("The DuckDB backend", "duckdb", "duckdb") from None
    return duckdb


def _names(arr: pa.Array) -> list[tuple[str, np.ndarray]]:
    """Distinct function/metric names of a call and the rows of each."""
    if isinstance(arr, pa.ChunkedArray):
        arr = arr.combine_chunks()
    values = arr.to_pylist()
    out: dict[str, list[int]] = {}
    for i, v in enumerate(values):
        if v is None:
            raise InputError("the metric name is NULL")
        out.setdefault(v, []).append(i)
    return [(k, np.array(v, dtype=np.int64)) for k, v in out.items()]


def _by_name(names: pa.Array, n: int, run: Any) -> pa.Array:
    groups = _names(names)
    if len(groups) == 1:
        return run(groups[0][0], None)
    out = np.full(n, np.nan)
    mask = np.ones(n, dtype=bool)
    for name, rows in groups:
        got = run(name, pa.array(rows, type=pa.int64()))
        vals = got.to_numpy(zero_copy_only=False)
        out[rows] = vals
        mask[rows] = got.is_null().to_numpy(zero_copy_only=False)
    return pa.array(out, mask=mask, type=pa.float64())


def _take(a: Any, rows: Any) -> Any:
    return a if rows is None else a.take(rows)


def _udf_list(fn: pa.Array, rec: pa.Array, truth: pa.Array, k: pa.Array) -> pa.Array:
    def run(function: str, rows: Any) -> pa.Array:
        return list_metric(function, _take(rec, rows), _take(truth, rows), _take(k, rows))

    return _by_name(fn, len(rec), run)


def _udf_metric(name: pa.Array, rec: pa.Array, truth: pa.Array) -> pa.Array:
    def run(metric: str, rows: Any) -> pa.Array:
        return list_metric("rankmeter_metric", _take(rec, rows), _take(truth, rows), None, name=metric)

    return _by_name(name, len(rec), run)


def _udf_metric_graded(name: pa.Array, rec: pa.Array, truth: pa.Array, grades: pa.Array) -> pa.Array:
    def run(metric: str, rows: Any) -> pa.Array:
        return list_metric("rankmeter_metric", _take(rec, rows), _take(truth, rows), None,
                           grades=_take(grades, rows), name=metric)

    return _by_name(name, len(rec), run)


def _udf_graded(fn: pa.Array, rec: pa.Array, truth: pa.Array, k: pa.Array) -> pa.Array:
    def run(function: str, rows: Any) -> pa.Array:
        return graded_metric(function, _take(rec, rows), _take(truth, rows), _take(k, rows), name=GRADED_NDCG)

    return _by_name(fn, len(rec), run)


def _quote(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def register(con: Any) -> Any:
    """Register the ranking functions on a DuckDB connection (idempotent); returns the connection.

    >>> import duckdb
    >>> con = register(duckdb.connect())
    >>> con.sql("SELECT ndcg([1, 3, 2, 6], [1, 2, 4], 2) AS v").fetchall()
    [(0.6131471927654584,)]
    """
    duckdb = _duckdb()
    from duckdb import sqltypes as st

    vlist = duckdb.list_type(st.VARCHAR)
    dlist = duckdb.list_type(st.DOUBLE)
    udfs = [
        ("__rankmeter_list", _udf_list, [st.VARCHAR, vlist, vlist, st.BIGINT]),
        ("__rankmeter_graded", _udf_graded, [st.VARCHAR, dlist, dlist, st.BIGINT]),
        ("__rankmeter_metric", _udf_metric, [st.VARCHAR, vlist, vlist]),
        ("__rankmeter_metric_graded", _udf_metric_graded, [st.VARCHAR, vlist, vlist, dlist]),
    ]
    for name, fn, params in udfs:
        try:
            con.remove_function(name)
        except Exception:  # noqa: BLE001  (not registered yet)
            pass
        con.create_function(name, fn, params, st.DOUBLE, type="arrow", null_handling="special",
                            side_effects=False)
    for sql_name in FUNCTIONS:
        forms = [
            f"(rec VARCHAR[], truth VARCHAR[], k BIGINT) AS __rankmeter_list('{sql_name}', rec, truth, k)",
            f"(rec BIGINT[], truth BIGINT[], k BIGINT) AS __rankmeter_list('{sql_name}', rec::VARCHAR[], "
            "truth::VARCHAR[], k)",
        ]
        if sql_name == "ndcg":
            for idtype in ("BIGINT", "VARCHAR"):
                forms.append(
                    f"(rec STRUCT(relscore DOUBLE, itemid {idtype})[], truth DOUBLE[], k BIGINT) AS "
                    "__rankmeter_graded('ndcg', [x.relscore FOR x IN rec], truth, k)")
        con.execute(f"CREATE OR REPLACE MACRO {_quote(sql_name)}" + ", ".join(forms))
    con.execute(
        "CREATE OR REPLACE MACRO rankmeter_metric"
        "(name VARCHAR, rec VARCHAR[], truth VARCHAR[]) AS __rankmeter_metric(name, rec, truth), "
        "(name VARCHAR, rec BIGINT[], truth BIGINT[]) AS __rankmeter_metric(name, rec::VARCHAR[], truth::VARCHAR[]), "
        "(name VARCHAR, rec VARCHAR[], truth VARCHAR[], grades DOUBLE[]) AS "
        "__rankmeter_metric_graded(name, rec, truth, grades), "
        "(name VARCHAR, rec BIGINT[], truth BIGINT[], grades DOUBLE[]) AS "
        "__rankmeter_metric_graded(name, rec::VARCHAR[], truth::VARCHAR[], grades)")
    return con


_SQL_START = re.compile(r"^\s*(select|with|from|values|table|\()", re.IGNORECASE)


def _relation(con: Any, obj: Any, what: str) -> Any:
    duckdb = _duckdb()
    if isinstance(obj, duckdb.DuckDBPyRelation):
        return obj
    if isinstance(obj, str):
        try:
            if _SQL_START.match(obj):
                return con.sql(obj)
            return con.table(obj)
        except duckdb.Error as exc:
            raise InputError(f"cannot read the {what} from DuckDB: {str(exc).splitlines()[0]}",
                             source=obj) from None
    raise InputError(f"the {what} must be a DuckDB table/view name, a SQL query or a relation, got "
                     f"{type(obj).__name__}", source=what)


def _pick(rel: Any, roles: Mapping[str, Sequence[str]], given: Mapping[str, str | None], source: str,
          optional: Sequence[str] = ()) -> dict[str, str]:
    empty = pa.table({c: pa.array([], pa.null()) for c in rel.columns})
    return pick_columns(empty, roles, dict(given), source, optional=optional)


def evaluate(
    con: Any,
    run: Any,
    qrels: Any,
    metrics: Any,
    *,
    queries: str | Sequence[str] = "judged",
    context: Mapping[str, Any] | None = None,
    query: str | None = None,
    item: str | None = None,
    score: str | None = None,
    grade: str | None = None,
    chunk_rows: int = 1_000_000,
    grouped: bool | None = None,
    duplicates: str = "error",
    workers: int | None = None,
    progress: bool | None = False,
    depth: int | None = None,
    judged_only: bool = False,
    subtopics: bool = False,
    subtopic: str | None = None,
    ties: str = "id",
) -> Result:
    """Evaluate a run stored in DuckDB against judgments stored in DuckDB (or given in Python).

    ``run`` and ``qrels``: a table or view name, a SQL query, or a DuckDB relation
    (``qrels`` may also be anything :func:`rankmeter.evaluate` accepts). Columns are
    detected (``query``/``user_id``..., ``item``/``doc``..., ``score``, ``grade``/
    ``rel``...) or named with ``query=``, ``item=``, ``score=``, ``grade=``. The result
    equals ``rankmeter.evaluate``'s on the same rows (same tie rule, same coverage);
    ``depth``, ``judged_only`` and ``ties`` as there. ``subtopics=True`` (or a column named by
    ``subtopic=``): judgments by subtopic, for the intent-aware metrics (docs/intent.md).

    ``grouped``: None (default) reads the run in scan order (DuckDB keeps insertion
    order) and, if a query turns up again after another one began, drops the partial
    work and reads it again with ``ORDER BY`` query; True trusts scan order (an error if
    it is not grouped); False always sorts.

    >>> import duckdb
    >>> con = duckdb.connect()
    >>> _ = con.execute("CREATE TABLE rec AS SELECT * FROM (VALUES (1, 1, 10.0), (1, 3, 8.0), (1, 2, 6.0), "
    ...                 "(1, 6, 2.0)) t(userid, itemid, score)")
    >>> _ = con.execute("CREATE TABLE truth AS SELECT * FROM (VALUES (1, 1), (1, 2), (1, 4)) t(userid, itemid)")
    >>> evaluate(con, "rec", "truth", ["ndcg@2", "P@2"]).mean
    {'ndcg@2': 0.6131471927654584, 'P@2': 0.5}
    """
    from .stream import evaluate_batches

    duckdb = _duckdb()
    run_rel = _relation(con, run, "run")
    roles_run = {"query": QUERY_NAMES, "item": ITEM_NAMES, "score": SCORE_NAMES}
    rc = _pick(run_rel, roles_run, {"query": query, "item": item, "score": score}, "run")
    by_subtopic = bool(subtopics) or subtopic is not None
    if isinstance(qrels, (str, duckdb.DuckDBPyRelation)):
        q_rel = _relation(con, qrels, "qrels")
        q_roles = {"query": QUERY_NAMES, "item": ITEM_NAMES, "grade": GRADE_NAMES}
        if by_subtopic:
            q_roles["subtopic"] = SUBTOPIC_NAMES
        qc = _pick(q_rel, q_roles, {"query": query, "item": item, "grade": grade, "subtopic": subtopic}, "qrels",
                   optional=("grade",))
        qtypes = dict(zip(q_rel.columns, [str(t) for t in q_rel.types], strict=True))
        for role in (("query", "item", "subtopic") if by_subtopic else ("query", "item")):
            _check_id_type(qtypes[qc[role]], role, qc[role], "qrels")
        if "grade" in qc:
            _check_number_type(qtypes[qc["grade"]], "grade", qc["grade"], "qrels")
        grade_sql = f"CAST({_quote(qc['grade'])} AS DOUBLE)" if "grade" in qc else "1.0::DOUBLE"
        sub_sql = f", CAST({_quote(qc['subtopic'])} AS VARCHAR) AS subtopic" if by_subtopic else ""
        table = q_rel.query("__rm_q", f"SELECT CAST({_quote(qc['query'])} AS VARCHAR) AS query, "
                                      f"CAST({_quote(qc['item'])} AS VARCHAR) AS item, {grade_sql} AS grade{sub_sql} "
                                      "FROM __rm_q")
        table = table.to_arrow_table() if hasattr(table, "to_arrow_table") else table.arrow()
        q = as_qrels(table, duplicates=duplicates, subtopics=by_subtopic)
    else:
        q = as_qrels(qrels, duplicates=duplicates, subtopics=subtopics, subtopic=subtopic)
    if not isinstance(chunk_rows, int) or chunk_rows < 1:
        raise ParameterError(f"The 'chunk_rows' parameter of rankmeter.duckdb.evaluate must be an int >= 1. "
                             f"Got {chunk_rows!r} instead.")
    types = dict(zip(run_rel.columns, [str(t) for t in run_rel.types], strict=True))
    for role in ("query", "item"):
        _check_id_type(types[rc[role]], role, rc[role], "run")
    _check_number_type(types[rc["score"]], "score", rc["score"], "run")

    def ident(role: str) -> str:  # integer ids stay integers (the engine matches their decimal text)
        name = _quote(rc[role])
        return name if types[rc[role]] in _INT_TYPES else f"CAST({name} AS VARCHAR)"

    sql = (f"SELECT {ident('query')} AS query, {ident('item')} AS item, "
           f"CAST({_quote(rc['score'])} AS DOUBLE) AS score FROM __rm_run")
    rows = min(chunk_rows, 1 << 20)

    def reader(order_by: bool) -> Any:
        try:
            rel = run_rel.query("__rm_run", sql + (" ORDER BY 1" if order_by else ""))
            return rel.to_arrow_reader(rows) if hasattr(rel, "to_arrow_reader") else rel.fetch_record_batch(rows)
        except duckdb.Error as exc:
            raise InputError(f"cannot read the run from DuckDB: {str(exc).splitlines()[0]}", source="run") from None

    try:
        total = run_rel.query("__rm_run", "SELECT count(*) FROM __rm_run").fetchall()[0][0]
    except duckdb.Error as exc:
        raise InputError(f"cannot read the run from DuckDB: {str(exc).splitlines()[0]}", source="run") from None
    opened: list[Any] = []

    def open_reader(order_by: bool) -> Any:
        for r in opened:  # one open result per connection: close the scan before sorting
            _close(r)
        opened.append(reader(order_by))
        return opened[-1]

    try:
        if grouped is None:  # scan order first (a table or file written grouped needs no sort); sort if not
            first, again = open_reader(False), (lambda: open_reader(True))
        else:
            first, again = open_reader(grouped is False), None
        res = evaluate_batches(q, first, metrics, queries=queries, context=context, chunk_rows=chunk_rows,
                               grouped=True if again is None else None, regroup=again, duplicates=duplicates,
                               total_rows=int(total), progress=progress, workers=workers, source="<duckdb run>",
                               depth=depth, judged_only=judged_only, ties=ties)
        from ..provenance import InputFile, describe_input

        def where(role: str, value: Any) -> Any:  # a table or query of the connection, by its name or text
            return (InputFile(role=role, path=value[:500], kind="duckdb") if isinstance(value, str)
                    else describe_input(role, value))

        return dataclasses.replace(res, provenance=res.provenance.with_inputs([where("qrels", qrels),
                                                                               where("run", run)]))
    finally:
        for r in opened:
            _close(r)


def _close(reader: Any) -> None:
    try:
        reader.close()
    except Exception:  # noqa: BLE001  (already exhausted or closed)
        pass
