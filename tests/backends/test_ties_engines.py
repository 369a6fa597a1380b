"""ties= holds in every engine: streaming (Parquet, TREC text), DuckDB and Spark equal in-process, bit for bit."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import rankmeter
from rankmeter.stream import evaluate_stream

from ._data import grouped, random_data, write_parquet, write_trec

METRICS = ["ndcg", "ndcg@5", "map", "ap@10", "P@5", "recall@10", "rr", "success@3", "rbp(p=0.6)", "f@4"]
RULES = [{"ties": "average"}, {"ties": "bounds", "depth": 6}, {"ties": "pessimistic", "judged_only": True},
         {"ties": "average", "depth": 4}]


@pytest.fixture(scope="module")
def data() -> tuple:
    return random_data(91, n_queries=40, max_len=30)  # scores drawn from a few values: many ties


def _same(a: rankmeter.Result, b: rankmeter.Result) -> None:
    assert list(a.queries) == list(b.queries)
    for m in METRICS:
        np.testing.assert_array_equal(a.values[m], b.values[m], err_msg=m)
    assert a.tie_values.keys() == b.tie_values.keys()
    for m, (lo, hi) in a.tie_values.items():
        np.testing.assert_array_equal(lo, b.tie_values[m][0], err_msg=m)
        np.testing.assert_array_equal(hi, b.tie_values[m][1], err_msg=m)


def test_the_data_has_ties_that_matter(data) -> None:
    qrels, run = data
    res = rankmeter.evaluate(qrels, run, METRICS, ties="bounds")
    assert any(bool((lo != hi).any()) for lo, hi in res.tie_values.values())
    avg = rankmeter.evaluate(qrels, run, METRICS, ties="average")
    assert any(not np.array_equal(avg.values[m], res.values[m]) for m in METRICS)


@pytest.mark.parametrize("options", RULES)
def test_streaming(data, options, tmp_path: Path) -> None:
    qrels, run = data
    ref = rankmeter.evaluate(qrels, run, METRICS, **options)
    _same(ref, evaluate_stream(qrels, write_parquet(grouped(run), tmp_path / "r.parquet"), METRICS, chunk_rows=7,
                               **options))
    _same(ref, evaluate_stream(qrels, write_trec(run, tmp_path / "r.txt"), METRICS, chunk_rows=5, **options))


@pytest.mark.parametrize("options", RULES)
def test_duckdb(data, options) -> None:
    duckdb = pytest.importorskip("duckdb")
    import rankmeter.duckdb

    qrels, run = data
    con = duckdb.connect()
    con.register("run_t", run)
    con.register("qrels_t", qrels)
    _same(rankmeter.evaluate(qrels, run, METRICS, **options),
          rankmeter.duckdb.evaluate(con, "run_t", "qrels_t", METRICS, chunk_rows=9, **options))


@pytest.mark.spark
def test_spark(data, spark, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    import rankmeter.spark

    qrels, run = data
    for options in ({"ties": "average"}, {"ties": "bounds"}):
        ref = rankmeter.evaluate(qrels, run, METRICS, **options)
        _same(ref, rankmeter.spark.evaluate(spark.createDataFrame(run.to_pandas()), qrels, METRICS,
                                            read_files=False, **options))
        path = write_parquet(grouped(run), tmp_path / f"r-{options['ties']}.parquet")
        _same(ref, rankmeter.spark.evaluate_parquet(spark, str(path), qrels, METRICS, **options))
