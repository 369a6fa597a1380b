"""Apache Hivemall's SQL ranking functions in Spark SQL, as vectorised Arrow UDFs."""

from __future__ import annotations

from typing import Any

import pyarrow as pa

from ..sqlfuncs import GRADED_NDCG, SQL_FUNCTIONS, graded_metric, list_metric
from ._common import require_pyspark

FUNCTIONS: dict[str, str] = dict(SQL_FUNCTIONS)

def _relscores(rec: pa.Array) -> pa.Array | None:
    """For a list of structs (Hivemall's struct(relscore, itemid)): the relscore lists."""
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
    from ..duckdb import _by_name, _take

    return _by_name(name, len(rec), lambda m, rows: list_metric("rankmeter_metric", _take(rec, rows),
                                                                   _take(truth, rows), None, name=m))


def _metric_graded_udf(name: pa.Array, rec: pa.Array, truth: pa.Array, grades: pa.Array) -> pa.Array:
    from ..duckdb import _by_name, _take

    return _by_name(name, len(rec), lambda m, rows: list_metric(
        "rankmeter_metric_graded", _take(rec, rows), _take(truth, rows), None, grades=_take(grades, rows), name=m))


def register(spark: Any) -> Any:
    """Register Apache Hivemall's ranking functions (and ``rankmeter_metric``) in Spark SQL; returns the session.

    ``precision(rec, truth, k)``, ``recall``, ``average_precision``, ``auc``, ``mrr``,
    ``ndcg`` (a list of ids, or Hivemall's list of ``struct(relscore, itemid)`` with
    ``truth`` the relevance scores), ``hit_rate`` (and Hivemall's ``precision_at``,
    ``recall_at``, ``hitrate``); ``rankmeter_metric(name, rec, truth)`` and
    ``rankmeter_metric_graded(name, rec, truth, grades)`` for any registry metric,
    e.g. ``rankmeter_metric('ndcg(gain=exp)@10', rec, truth)``.
    """
    require_pyspark()

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
        return pandas_udf(p3, DoubleType())

    def p4(a: pd.Series, b: pd.Series, c: pd.Series, d: pd.Series) -> pd.Series:
        return fn(conv(a), conv(b), conv(c), conv(d)).to_pandas()
    return pandas_udf(p4, DoubleType())


