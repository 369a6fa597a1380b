"""depth and judged_only hold in every engine: streaming, DuckDB and Spark equal in-process."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import rankmeter
from rankmeter.stream import evaluate_stream

from ._data import grouped, random_data, write_parquet, write_trec

METRICS = ["ndcg", "map", "P@5", "recall@10", "bpref", "num_ret", "rr", "judged@5", "unj@10", "err@10"]
OPTIONS = [{"depth": 4}, {"judged_only": True}, {"depth": 7, "judged_only": True}]


@pytest.fixture(scope="module")
def data() -> tuple:
    return random_data(77, n_queries=40, max_len=30)


def _same(a: rankmeter.Result, b: rankmeter.Result) -> None:
    assert list(a.queries) == list(b.queries)
    for m in METRICS:
        np.testing.assert_array_equal(a.values[m], b.values[m], err_msg=m)
    assert a.coverage is not None and b.coverage is not None
    assert a.coverage.judged == b.coverage.judged
    assert (a.coverage.depth, a.coverage.judged_only) == (b.coverage.depth, b.coverage.judged_only)


@pytest.mark.parametrize("options", OPTIONS)
def test_streaming(data, options, tmp_path: Path) -> None:
    qrels, run = data
    ref = rankmeter.evaluate(qrels, run, METRICS, **options)
    _same(ref, evaluate_stream(qrels, write_parquet(grouped(run), tmp_path / "r.parquet"), METRICS, chunk_rows=7,
                               **options))
    _same(ref, evaluate_stream(qrels, write_trec(run, tmp_path / "r.txt"), METRICS, chunk_rows=5, **options))


@pytest.mark.parametrize("options", OPTIONS)
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
    options = {"depth": 7, "judged_only": True}
    ref = rankmeter.evaluate(qrels, run, METRICS, **options)
    _same(ref, rankmeter.spark.evaluate(spark.createDataFrame(run.to_pandas()), qrels, METRICS, read_files=False,
                                        **options))
    path = write_parquet(grouped(run), tmp_path / "r.parquet")
    _same(ref, rankmeter.spark.evaluate_parquet(spark, str(path), qrels, METRICS, **options))
