"""Propensities per (user, item): every engine gives the in-process values of the IPS and SNIPS metrics.

The registry-wide agreement suite (test_agreement.py) runs every IPS and SNIPS metric with
propensities per item; here the context gives them per (query, item) pair, a table the
engines ship to every chunk (and to Spark's executors), which the kernels join with the
chunk's own query ids and item codes. Values must be bit-identical, the corpus-normalised
SNIPS values too (their chunk states are merged, then added up exactly).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pyarrow as pa
import pytest

import rankmeter
from rankmeter.stream import evaluate_stream

from ._data import grouped, random_data, write_parquet, write_trec

NAMES = ["ips_recall", "ips_precision", "ips_ndcg", "ips_rbp", "snips_recall", "snips_precision", "snips_ndcg",
         "snips_rbp"]
NAMES += [f"snips_{m}_corpus" for m in ("recall", "precision", "ndcg", "rbp")]
TEXTS = [f"{n}(propensity=given)@5" for n in NAMES] + [f"{n}(propensity=given,clip=0.3,rel=2)" for n in NAMES]


@pytest.fixture(scope="module")
def data(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    qrels, run = random_data(99, n_queries=50, max_len=35)
    rng = np.random.default_rng(5)
    # a propensity for every judged (query, item) pair: different for the same item in different queries
    q, i = qrels.column("query").to_pylist(), qrels.column("item").to_pylist()
    table = pa.table({"query": q, "item": i, "propensity": rng.uniform(0.05, 1.0, size=len(q))})
    ctx = {"propensity": table}
    d = tmp_path_factory.mktemp("unbiased")
    return {"qrels": qrels, "run": run, "ctx": ctx,
            "want": rankmeter.evaluate(qrels, run, TEXTS, context=ctx),
            "parquet": write_parquet(grouped(run, 2), d / "run.parquet", row_group_size=11),
            "trec": write_trec(run, d / "run.txt")}


def _same(got: rankmeter.Result, want: rankmeter.Result) -> None:
    assert list(got.queries) == list(want.queries)
    for t in TEXTS:
        if t in want.values:
            assert np.array_equal(got.values[t], want.values[t]), t
        else:  # corpus normaliser: per-user sums merged across chunks, added exactly (math.fsum)
            assert got.corpus[t] == want.corpus[t], (t, got.corpus[t], want.corpus[t])


def test_per_pair_propensities_are_read_per_query(data: dict[str, Any]) -> None:
    """The same item weighs differently in two queries: the per-item reading would not give these values."""
    want = data["want"]
    per_item = {}
    for q, i, p in zip(*(data["ctx"]["propensity"].column(c).to_pylist() for c in ("query", "item", "propensity"))):
        per_item.setdefault(i, p)  # the first query's propensity for every query
    other = rankmeter.evaluate(data["qrels"], data["run"], TEXTS, context={"propensity": per_item})
    assert any(not np.array_equal(other.values[t], want.values[t]) for t in TEXTS if t in want.values)
    assert all(np.isfinite(want.values[t]).all() for t in TEXTS if t in want.values)
    assert all(np.isfinite(want.corpus[t]) for t in TEXTS if t not in want.values)


def test_streaming_agrees(data: dict[str, Any]) -> None:
    for path, chunk in ((data["parquet"], 7), (data["trec"], 25)):
        got = evaluate_stream(data["qrels"], path, TEXTS, context=data["ctx"], chunk_rows=chunk, workers=2)
        _same(got, data["want"])


def test_duckdb_agrees(data: dict[str, Any]) -> None:
    duckdb = pytest.importorskip("duckdb")
    import rankmeter.duckdb as rdb

    con = duckdb.connect()
    con.register("run_t", data["run"])
    con.register("qrels_t", data["qrels"])
    _same(rdb.evaluate(con, "run_t", "qrels_t", TEXTS, context=data["ctx"], chunk_rows=11), data["want"])


@pytest.mark.spark
@pytest.mark.slow
@pytest.mark.xdist_group("spark")
@pytest.mark.filterwarnings("ignore:PySpark does not yet fully support pandas")
def test_spark_agrees(spark: Any, data: dict[str, Any]) -> None:
    import rankmeter.spark as rsp

    run_df = spark.createDataFrame(data["run"].to_pandas()).repartition(3)
    qrels_df = spark.createDataFrame(data["qrels"].to_pandas())
    _same(rsp.evaluate(run_df, qrels_df, TEXTS, context=data["ctx"], partitions=4, chunk_rows=9), data["want"])
    _same(rsp.evaluate_parquet(spark, str(data["parquet"]), data["qrels"], TEXTS, context=data["ctx"], tasks=3,
                               chunk_rows=9), data["want"])
