"""Shared by the Spark driver code: PySpark import, column picking, Arrow collection, shipping the engine."""

from __future__ import annotations

import uuid
from typing import Any, Mapping, Sequence

import pyarrow as pa

from ..._errors import InputError, MissingExtraError, ParameterError
from ...io.tables import pick_columns


def require_pyspark() -> Any:
    try:
        import pyspark
        import pyspark.sql  # the submodule must import (it binds pyspark, which is used)
    except ImportError:
        raise MissingExtraError("The Spark backend", "spark", "pyspark") from None
    return pyspark


def pick(columns: Sequence[str], roles: Mapping[str, Sequence[str]], given: Mapping[str, str | None], source: str,
         optional: Sequence[str] = ()) -> dict[str, str]:
    empty = pa.table({c: pa.array([], pa.null()) for c in columns})
    return pick_columns(empty, roles, dict(given), source, optional=optional)


def to_arrow(df: Any) -> pa.Table:
    if hasattr(df, "toArrow"):
        return df.toArrow()  # Spark >= 4.0
    return pa.Table.from_pandas(df.toPandas(), preserve_index=False)


def ship(spark: Any, engine: Any, qrels: Any, queries: Any, context: Any, duplicates: str) -> tuple[str, Any]:
    from pyspark import cloudpickle

    payload = cloudpickle.dumps({"qrels": qrels, "metrics": engine.metrics, "queries": queries,
                                 "context": context, "duplicates": duplicates,
                                 "depth": engine.depth, "judged_only": engine.judged_only, "ties": engine.ties})
    try:
        return uuid.uuid4().hex, spark.sparkContext.broadcast(payload)
    except Exception:  # noqa: BLE001  (Spark Connect: no SparkContext; the payload travels with the function)
        return uuid.uuid4().hex, payload


def is_int_type(t: Any) -> bool:
    from pyspark.sql.types import ByteType, IntegerType, LongType, ShortType

    return isinstance(t, (LongType, IntegerType, ShortType, ByteType))


def id_column(df: Any, name: str, role: str) -> Any:
    """Column ``name`` of ``df`` as the id column ``role``.

    Integers stay integers (their decimal text is made in Arrow); text stays text; floating-point
    and decimal ids are refused, as every reader refuses them (a float has no single text form:
    Spark writes ``1.0`` where Arrow writes ``1``); other types are cast to string by Spark.
    """
    import pyspark.sql.functions as F
    from pyspark.sql.types import DecimalType, DoubleType, FloatType

    t = df.schema[name].dataType
    if isinstance(t, (FloatType, DoubleType, DecimalType)):
        raise InputError(f"the {role} column {name!r} holds floating-point numbers ({t.simpleString()}); ids must be "
                         "text or integers (a float id has no single text form: convert the column to integers or "
                         "text first)", source=f"{role} DataFrame")
    col = F.col(name)
    return (col if is_int_type(df.schema[name].dataType) else col.cast("string")).alias(role)


def collect(df: Any) -> pa.Table:
    try:
        return to_arrow(df)
    except Exception as exc:  # noqa: BLE001  (a Spark failure, translated into rankmeter's errors)
        raise translate(exc) from None


def translate(exc: Exception) -> Exception:
    """A rankmeter error raised on an executor, as the same error class on the driver."""
    text = str(exc)
    for cls in (InputError, ParameterError):
        marker = f"{cls.__name__}: "
        at = text.rfind(marker)
        if at >= 0:
            return cls(text[at + len(marker):].strip().splitlines()[0])
    return exc

