"""Spark (local mode): seed 000's queries in Spark SQL, the SQL functions' rules, rankmeter.spark.evaluate."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pytest

import rankmeter
from rankmeter import InputError

from ._data import random_data
from ._seed import BINARY, GRADED, RECREL, REC, TRUTH, ULP, doc_query
from .test_stream import METRICS, assert_same

pytestmark = [pytest.mark.spark, pytest.mark.slow, pytest.mark.xdist_group("spark"),
              pytest.mark.filterwarnings("ignore:PySpark does not yet fully support pandas")]


@pytest.fixture(scope="module")
def sql(spark):  # type: ignore[no-untyped-def]
    import rankmeter.spark as rsp

    rsp.register(spark)
    spark.createDataFrame(TRUTH, "userid int, itemid int").createOrReplaceTempView("dummy_truth")
    spark.createDataFrame(REC, "userid int, itemid int, score double").createOrReplaceTempView("dummy_rec")
    spark.createDataFrame(RECREL, "userid int, itemid int, score double, relscore double") \
        .createOrReplaceTempView("dummy_recrel")
    return lambda q: [r.asDict() for r in spark.sql(q).collect()]


def test_seed_000_queries_in_spark_sql(sql) -> None:  # type: ignore[no-untyped-def]
    got = sql(doc_query("spark binary"))
    assert len(got) == 3
    for row in got:
        assert set(row) == set(BINARY)
        for k, v in BINARY.items():
            assert row[k] == pytest.approx(v, abs=ULP), k
    got = sql(doc_query("spark graded"))
    assert len(got) == 3
    for row in got:
        for k, v in GRADED.items():
            assert row[k] == pytest.approx(v, abs=ULP), k


def test_sql_functions_nulls_and_errors(sql) -> None:  # type: ignore[no-untyped-def]
    from pyspark.errors import PySparkException

    want = rankmeter.evaluate({"u": ["1", "2", "4"]}, {"u": ["1", "3", "2", "6"]}, ["ndcg@4", "success@1"]).mean
    row = sql("SELECT ndcg(array(1,3,2,6), array(1,2,4), 4) a, hit_rate(array('1','3'), array('1'), 1) b, "
              "rankmeter_metric('ndcg@4', array(1,3,2,6), array(1,2,4)) c, "
              "rankmeter_metric_graded('ndcg(gain=exp)@2', array('b','x','a'), array('a','b'), array(3.0, 1.0)) d, "
              "ndcg(CAST(NULL AS array<int>), array(1), 2) e, ndcg(array(1), array(1), CAST(NULL AS int)) f")[0]
    assert row["a"] == want["ndcg@4"] == row["c"] and row["b"] == 1.0
    assert row["d"] == rankmeter.evaluate({"u": {"a": 3, "b": 1}}, {"u": ["b", "x", "a"]}, "ndcg(gain=exp)@2").mean[
        "ndcg(gain=exp)@2"]
    assert row["e"] is None and row["f"] is None
    for q, message in [
        ("SELECT ndcg(array(1,2), array(1), 0)", "The 'k' parameter of ndcg must be an int >= 1. Got 0"),
        ("SELECT ndcg(array(1,2), array('1'), 2)", "item ids must be of one kind"),
        ("SELECT recall(array(1,1), array(1), 2)", "appears twice in rec"),
        ("SELECT mrr(array(1, NULL), array(1), 2)", "rec holds a NULL item"),
        ("SELECT rankmeter_metric('err@3', array('a'), array('a'))", r"err\(max_grade=3\)@10"),
    ]:
        with pytest.raises(PySparkException, match=message):
            sql(q)


def test_spark_evaluate_agrees_with_in_process(spark) -> None:  # type: ignore[no-untyped-def]
    import rankmeter.spark as rsp

    qrels, run = random_data(31)
    run_df = spark.createDataFrame(run.to_pandas()).repartition(3)
    qrels_df = spark.createDataFrame(qrels.to_pandas())
    for queries in ("judged", "run", "qrels"):
        want = rankmeter.evaluate(qrels, run, METRICS, queries=queries)
        got = rsp.evaluate(run_df, qrels_df, METRICS, queries=queries, partitions=3, chunk_rows=7)
        assert_same(got, want)
    ids = sorted(set(run.column("query").to_pylist()))[:4] + ["q_not_in_run"] * 0
    assert_same(rsp.evaluate(run_df, qrels, METRICS, queries=ids),
                rankmeter.evaluate(qrels, run, METRICS, queries=ids))
    # seed 000 through DataFrames with integer ids and Hivemall's column names
    rec = spark.createDataFrame(REC, "userid int, itemid int, score double")
    truth = spark.createDataFrame(TRUTH, "userid int, itemid int")
    r = rsp.evaluate(rec, truth, ["ndcg@2", "auc@4"])
    assert r.n_queries == 3 and r.mean["auc@4"] == 0.75
    assert r.mean["ndcg@2"] == pytest.approx(BINARY["ndcg_at_2"], abs=ULP)


def test_spark_evaluate_bad_input(spark) -> None:  # type: ignore[no-untyped-def]
    import rankmeter.spark as rsp

    dup = spark.createDataFrame([("q", "a", 1.0), ("q", "a", 2.0)], "query string, item string, score double")
    with pytest.raises(InputError, match="appears twice for query 'q'"):
        rsp.evaluate(dup, {"q": ["a"]}, ["P@1"])
    nulls = spark.createDataFrame([("q", None, 1.0)], "query string, item string, score double")
    with pytest.raises(InputError, match="item id is missing"):
        rsp.evaluate(nulls, {"q": ["a"]}, ["P@1"])
    with pytest.raises(InputError, match="cannot find the score column"):
        rsp.evaluate(spark.createDataFrame([("q", "a")], "query string, item string"), {"q": ["a"]}, ["P@1"])
    assert np.isfinite(rsp.evaluate(dup, {"q": ["a"]}, ["P@1"], duplicates="max").mean["P@1"])


def test_spark_grouped_input_without_shuffle(spark, tmp_path) -> None:  # type: ignore[no-untyped-def]
    """grouped=True: no shuffle; queries cut by partition boundaries are finished on the driver."""
    import pyarrow.parquet as pq

    import rankmeter.spark as rsp

    from ._data import grouped

    qrels, run = random_data(41)
    want = rankmeter.evaluate(qrels, run, METRICS)
    path = tmp_path / "grouped.parquet"
    pq.write_table(grouped(run, 2), path, row_group_size=11)
    spark.conf.set("spark.sql.files.maxPartitionBytes", "2048")  # many partitions, cut inside queries
    spark.conf.set("spark.sql.files.openCostInBytes", "0")
    try:
        df = spark.read.parquet(str(path))
        assert df.rdd.getNumPartitions() > 3
        got = rsp.evaluate(df, qrels, METRICS, grouped=True, read_files=False, chunk_rows=5, arrow_batch_rows=7)
    finally:
        spark.conf.unset("spark.sql.files.maxPartitionBytes")
        spark.conf.unset("spark.sql.files.openCostInBytes")
    assert not got.notes or not any("not grouped" in n for n in got.notes)
    assert_same(got, want)
    # a shuffled DataFrame is detected and evaluated again with the shuffle, with a note
    shuffled = spark.createDataFrame(run.to_pandas()).repartition(3)
    got = rsp.evaluate(shuffled, qrels, METRICS, grouped=True)
    assert any("not grouped by query" in n for n in got.notes)
    assert list(got.queries) == list(want.queries)
    for m in METRICS:
        np.testing.assert_array_equal(got.values[m], want.values[m], err_msg=m)
    assert got.coverage == want.coverage


def test_spark_evaluate_parquet_reads_files_on_the_executors(spark, tmp_path) -> None:  # type: ignore[no-untyped-def]
    import pyarrow.parquet as pq

    import rankmeter.spark as rsp

    from ._data import grouped

    qrels, run = random_data(42)
    want = rankmeter.evaluate(qrels, run, METRICS)
    g = grouped(run, 5)
    half = g.num_rows // 2
    p1, p2 = tmp_path / "part-1.parquet", tmp_path / "part-2.parquet"
    pq.write_table(g.slice(0, half), p1, row_group_size=9)  # a query may continue in the next file
    pq.write_table(g.slice(half), p2, row_group_size=9)
    got = rsp.evaluate_parquet(spark, [str(p1), str(p2)], qrels, METRICS, tasks=5, chunk_rows=4)
    assert_same(got, want)
    qdf = spark.createDataFrame(qrels.to_pandas())
    assert_same(rsp.evaluate_parquet(spark, str(p1), qdf, METRICS),
                rankmeter.evaluate(qrels, g.slice(0, half), METRICS))
    # not grouped: evaluated through a DataFrame with a shuffle, and said so
    p3 = tmp_path / "shuffled.parquet"
    pq.write_table(run, p3, row_group_size=7)
    got = rsp.evaluate_parquet(spark, str(p3), qrels, METRICS, tasks=3)
    assert any("not grouped by query" in n for n in got.notes)
    assert list(got.queries) == list(want.queries) and got.coverage == want.coverage
    for m in METRICS:
        np.testing.assert_array_equal(got.values[m], want.values[m], err_msg=m)


def test_a_plain_parquet_scan_is_read_by_the_executors(spark, tmp_path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """evaluate(spark.read.parquet(...)) reads the files with pyarrow; other plans go through the JVM; same numbers."""
    import pyarrow.compute as pc
    import pyarrow.parquet as pq
    import pyspark.sql.functions as F

    import rankmeter.spark as rsp
    from rankmeter.engines.spark import evaluation

    from ._data import grouped

    qrels, run = random_data(43)
    want = rankmeter.evaluate(qrels, run, METRICS)
    path = tmp_path / "run.parquet"
    pq.write_table(grouped(run, 3), path, row_group_size=13)
    df = spark.read.parquet(str(path))
    assert evaluation._parquet_scan(df) == [path.as_uri()]
    assert evaluation._parquet_scan(df.select("item", "query", "score")) == [path.as_uri()]
    for other in (df.filter("score > 0"), df.withColumn("score", F.col("score") * 2), df.limit(10),
                  df.select(F.col("query").alias("q"), "item", "score"), spark.createDataFrame(run.to_pandas())):
        assert evaluation._parquet_scan(other) is None
    partitioned = tmp_path / "partitioned"
    df.write.partitionBy("query").parquet(str(partitioned))
    assert evaluation._parquet_scan(spark.read.parquet(str(partitioned))) is None

    calls: list[int] = []
    files_path = evaluation._evaluate_files
    monkeypatch.setattr(evaluation, "_evaluate_files", lambda *a, **k: calls.append(1) or files_path(*a, **k))
    assert_same(rsp.evaluate(df, qrels, METRICS, chunk_rows=6), want)
    assert calls == [1]
    # judgments as a plain Parquet scan are read by the driver with pyarrow: the same Qrels as through the JVM
    qpath, binary = tmp_path / "qrels.parquet", tmp_path / "binary.parquet"
    pq.write_table(qrels, qpath)
    pq.write_table(qrels.filter(pc.greater(qrels.column("grade"), 0)).drop_columns(["grade"]), binary)
    for judged in (qpath, binary):
        qdf = spark.read.parquet(str(judged))
        assert evaluation._parquet_scan(qdf) == [judged.as_uri()]
        assert evaluation._judgments(qdf, None, None, None, "error").to_dict() == \
            evaluation._judgments(qdf, None, None, None, "error", read_files=False).to_dict()
    assert_same(rsp.evaluate(df, spark.read.parquet(str(qpath)), METRICS), want)
    assert calls == [1, 1]
    assert_same(rsp.evaluate(df, qrels, METRICS, read_files=False, partitions=2), want)
    # DECIMAL scores: read as float64 by the executors as by Spark's cast
    dec = grouped(run, 3)
    dec = dec.set_column(2, "score", pa.array(np.round(dec.column("score").to_numpy(), 4)).cast(pa.decimal128(12, 4)))
    pq.write_table(dec, tmp_path / "dec.parquet", row_group_size=13)
    dec_df = spark.read.parquet(str(tmp_path / "dec.parquet"))
    assert_same(rsp.evaluate(dec_df, qrels, METRICS), rsp.evaluate(dec_df, qrels, METRICS, read_files=False))
    assert calls == [1, 1, 1]
    calls.clear()
    assert_same(rsp.evaluate(df.filter("score > -1e300"), qrels, METRICS, grouped=True), want)
    assert calls == []
    # a file that is not grouped by query: found out on the executors, evaluated again through the JVM
    p2 = tmp_path / "shuffled.parquet"
    pq.write_table(run, p2, row_group_size=7)
    got = rsp.evaluate(spark.read.parquet(str(p2)), qrels, METRICS)
    assert calls == [1]
    assert any("not grouped by query" in n for n in got.notes)
    assert list(got.queries) == list(want.queries) and got.coverage == want.coverage
    for m in METRICS:
        np.testing.assert_array_equal(got.values[m], want.values[m], err_msg=m)


def test_plan_tasks_makes_equal_consecutive_shares() -> None:
    from rankmeter.engines.spark.evaluation import _plan_tasks

    groups = [("a", g, 10) for g in range(7)] + [("b", g, 10) for g in range(5)]
    for parallel, tasks, want in ((2, None, 2), (3, None, 3), (2, 5, 5), (2, 40, 12)):
        plan = _plan_tasks(groups, tasks, parallel)
        assert len(plan) == want
        flat = [(f, g) for task in plan for f, gs in task for g in gs]
        assert flat == [(f, g) for f, g, _ in groups]  # every row group once, in order
        sizes = [sum(len(gs) for _, gs in task) for task in plan]
        assert max(sizes) - min(sizes) <= 1
    big = [("a", g, 10_000_000) for g in range(10)]  # 100M rows on 2 cores: a multiple of 2 tasks of <= 16M rows
    assert len(_plan_tasks(big, None, 2)) == 8


def test_the_files_path_takes_only_types_both_paths_read_alike(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """Integer or text ids and a numeric score; anything else keeps Spark's casts on the general path."""
    import pyarrow.parquet as pq

    from rankmeter.engines.spark.evaluation import _row_groups

    given = {"query": None, "item": None, "score": None}
    base = {"query": pa.array([1, 1], pa.int32()), "item": pa.array(["a", "b"]), "score": pa.array([1.0, 2.0])}
    for name, change, plain in [
        ("int32 and text", {}, True),
        ("dictionary text", {"item": pa.array(["a", "b"]).dictionary_encode()}, True),
        ("decimal score", {"score": pa.array([1.0, 2.0]).cast(pa.decimal128(5, 1))}, True),
        ("float ids", {"query": pa.array([1.0, 1.0])}, False),
        ("date ids", {"item": pa.array([0, 1], pa.int32()).cast(pa.date32())}, False),
        ("binary ids", {"item": pa.array([b"a", b"b"])}, False),
        ("text score", {"score": pa.array(["1", "2"])}, False),
    ]:
        path = tmp_path / f"{name}.parquet"
        pq.write_table(pa.table({**base, **change}), path)
        assert (_row_groups([str(path)], given, strict=False) is not None) == plain, name
    with pytest.raises(InputError, match="not a readable Parquet file"):
        _row_groups([str(tmp_path / "missing.parquet")], given, strict=True)
    assert _row_groups([str(tmp_path / "missing.parquet")], given, strict=False) is None
