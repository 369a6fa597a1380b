"""Fusion in SQL (DuckDB, Spark SQL): reciprocal rank fusion and the weighted sum, equal to in-process.

:func:`fusion_sql` writes one query over run tables ``(query, item, score)``: each run's
positions by the tie rule (``ROW_NUMBER() OVER (PARTITION BY query ORDER BY score DESC,
item DESC)``: both engines compare strings by their bytes), min-max normalisation by window
functions, each run's contribution, and their sum by (query, item). The fused run comes out
in the tie rule's order. :func:`fuse_duckdb` and :func:`fuse_spark` run it and return the
fused run (a :class:`~rankmeter.Run` / a Spark DataFrame).

The numbers are in-process's (:func:`rankmeter.fusion.fuse`), bit for bit when two runs are
fused (a sum of two numbers does not depend on its order); with more runs the SQL engine may
add the contributions in another order, so they agree to the last bits or so (1e-15).

>>> print(fusion_sql(["a", "b"], "rrf").splitlines()[1][:98])
  r0 AS (SELECT "query", "item", "score", ROW_NUMBER() OVER (PARTITION BY "query" ORDER BY "score"
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

import numpy as np

from .._errors import ParameterError
from .._params import check_choice, check_int, check_number
from ..data import Run
from .core import load_runs

__all__ = ["fusion_sql", "fuse_duckdb", "fuse_spark", "SQL_METHODS"]

SQL_METHODS = ("rrf", "wsum")


def _double(x: float) -> str:
    return f"CAST('{float(x)!r}' AS DOUBLE)"


def fusion_sql(tables: Sequence[str], method: str = "rrf", *, norm: str | None = "min-max",
               weights: Sequence[float] | None = None, k: float = 60, depth: int | None = None,
               dialect: str = "duckdb") -> str:
    """One SQL query fusing the run tables ``tables`` (columns ``query``, ``item``, ``score``).

    ``method``: ``rrf`` (``k``) or ``wsum`` (``weights``, default 1 each; ``norm`` ``min-max`` or
    None). ``depth``: keep each query's first ``depth`` documents. ``dialect``: ``duckdb`` or
    ``spark`` (how identifiers are quoted). The result has the columns query, item, score, rank.
    """
    method = check_choice("method", method, SQL_METHODS, func="fusion_sql")
    dialect = check_choice("dialect", dialect, ("duckdb", "spark"), func="fusion_sql")
    if norm not in ("min-max", None, "none"):
        raise ParameterError(f"The 'norm' parameter of fusion_sql must be one of min-max, None. Got {norm!r} instead.")
    k = check_number("k", k, func="fusion_sql", low=0)
    depth = check_int("depth", depth, func="fusion_sql", low=1, allow_none=True)
    if not tables:
        raise ParameterError("The 'tables' parameter of fusion_sql must name at least one run table. Got none instead.")
    w = [1.0] * len(tables) if weights is None else [float(x) for x in weights]
    if len(w) != len(tables) or not all(np.isfinite(w)):
        raise ParameterError(f"The 'weights' parameter of fusion_sql must be one finite number per table "
                             f"({len(tables)}). Got {weights!r} instead.")
    def qt(name: str) -> str:
        return f'"{name}"' if dialect == "duckdb" else f"`{name}`"

    q, i, s = qt("query"), qt("item"), qt("score")
    parts = []
    for j, t in enumerate(tables):
        name = qt(t) if dialect == "duckdb" else t
        parts.append(f"  r{j} AS (SELECT {q}, {i}, {s}, ROW_NUMBER() OVER (PARTITION BY {q} ORDER BY {s} DESC, "
                     f"{i} DESC) AS pos, MIN({s}) OVER (PARTITION BY {q}) AS mn, MAX({s}) OVER (PARTITION BY {q}) "
                     f"AS mx FROM {name})")
    contributions = []
    for j in range(len(tables)):
        if method == "rrf":
            c = f"CAST(1 AS DOUBLE) / ({_double(k)} + pos)"
        elif norm == "min-max":
            c = f"{_double(w[j])} * (({s} - mn) / GREATEST(mx - mn, {_double(1e-9)}))"
        else:
            c = f"{_double(w[j])} * {s}"
        contributions.append(f"SELECT {q}, {i}, {c} AS c FROM r{j}")
    parts.append("  contributions AS (" + " UNION ALL ".join(contributions) + ")")
    parts.append(f"  fused AS (SELECT {q}, {i}, SUM(c) AS {s} FROM contributions GROUP BY {q}, {i})")
    parts.append(f"  ranked AS (SELECT {q}, {i}, {s}, ROW_NUMBER() OVER (PARTITION BY {q} ORDER BY {s} DESC, {i} DESC) "
                 f"AS {qt('rank')} FROM fused)")
    where = f" WHERE {qt('rank')} <= {depth}" if depth is not None else ""
    return ("WITH\n" + ",\n".join(parts) + f"\nSELECT {q}, {i}, {s}, {qt('rank')} FROM ranked{where} "
            f"ORDER BY {q}, {qt('rank')}")


def fuse_duckdb(runs: Sequence[Any] | Mapping[str, Any], method: str = "rrf", *, norm: str | None = "min-max",
                weights: Sequence[float] | None = None, k: float = 60, depth: int | None = None,
                con: Any = None) -> Run:
    """Fuse runs (anything :func:`rankmeter.fuse` takes) in DuckDB with :func:`fusion_sql`; the fused Run.

    >>> fuse_duckdb([{"q": {"a": 2.0, "b": 1.0}}, {"q": {"b": 3.0, "c": 1.0}}], "rrf").to_lists()
    {'q': ['b', 'a', 'c']}
    """
    from .._errors import MissingExtraError

    try:
        import duckdb
    except ImportError:
        raise MissingExtraError("fusion in DuckDB", "duckdb", "duckdb") from None
    loaded, names = load_runs(runs, func="fuse_duckdb")
    con = con if con is not None else duckdb.connect()
    tables = []
    for j, r in enumerate(loaded):
        name = f"rankmeter_fuse_run{j}"
        con.register(name, r.to_arrow().select(["query", "item", "score"]))
        tables.append(name)
    try:
        rel = con.sql(fusion_sql(tables, method, norm=norm, weights=weights, k=k, depth=depth))
        out = rel.to_arrow_table() if hasattr(rel, "to_arrow_table") else rel.arrow()
        if hasattr(out, "read_all"):
            out = out.read_all()
    finally:
        for name in tables:
            con.unregister(name)
    return Run.from_columns(out.column("query"), out.column("item"), out.column("score"))


def fuse_spark(spark: Any, runs: Sequence[Any] | Mapping[str, Any], method: str = "rrf", *,
               norm: str | None = "min-max", weights: Sequence[float] | None = None, k: float = 60,
               depth: int | None = None) -> Any:
    """Fuse Spark DataFrames (columns query, item, score) with Spark SQL; a DataFrame query, item, score, rank."""
    frames = list(runs.values()) if isinstance(runs, Mapping) else list(runs)
    views = []
    for j, df in enumerate(frames):
        name = f"rankmeter_fuse_run{j}"
        df.createOrReplaceTempView(name)
        views.append(name)
    return spark.sql(fusion_sql(views, method, norm=norm, weights=weights, k=k, depth=depth, dialect="spark"))
