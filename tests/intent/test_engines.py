"""Every engine gives the intent-aware metrics the in-process evaluator's per-query values, bit for bit.

Judgments by subtopic reach every engine inside the :class:`Qrels` (``qrels.subtopics``);
the judgment join attaches them to each chunk's batch (``batch.subtopics``). Checked:
streaming from Parquet (grouped, tiny chunks, 2 workers) and from TREC text (ungrouped:
the on-disk partition), DuckDB, and Spark (local mode, a shuffle, and executors reading
the Parquet file; skipped without Java).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import rankmeter
from rankmeter.data import Qrels
from rankmeter.stream import evaluate_stream

from ..backends._data import grouped, write_parquet, write_trec

TEXTS = ["alpha-nDCG@5", "alpha_ndcg(alpha=0.3)", "alpha-DCG@10", "ERR-IA@5", "nERR-IA@20", "nerr_ia(rel=2)",
         "NRBP", "nnrbp(beta=0.8)", "P-IA@3", "p_ia", "MAP-IA", "ap_ia@4", "strec@5", "strec(rel=2)", "ndcg@5"]
ITEMS = [f"d{i}" for i in range(25)] + ["D1", "é", "doc-" + "a" * 30 + "-1", "doc-" + "a" * 30 + "-2", "10", "9"]


def random_subtopic_data(seed: int, n_queries: int = 40) -> tuple[Qrels, pa.Table]:
    rng = np.random.default_rng(seed)
    rows: list[tuple[str, str, str, float]] = []
    run: list[tuple[str, str, float]] = []
    for qn in range(n_queries):
        q = f"q{qn}" if qn % 5 else f"Q-{qn}-é"
        side = rng.choice(["both"] * 6 + ["qrels", "run"])
        if side in ("both", "qrels"):
            for s in rng.choice(["1", "2", "3", "4", "5"], size=int(rng.integers(1, 5)), replace=False):
                for it in rng.choice(ITEMS, size=int(rng.integers(1, 8)), replace=False):
                    rows.append((q, str(s), str(it), float(rng.choice([0, 0, 1, 1, 2, -1]))))
        if side in ("both", "run"):
            for it in rng.choice(ITEMS, size=int(rng.integers(1 if side == "run" else 0, 25)), replace=False):
                run.append((q, str(it), float(rng.choice([0.0, 1.0, 1.0, 2.5, -1.0, rng.normal()]))))
    order = rng.permutation(len(run))
    table = pa.table({"query": [run[i][0] for i in order], "item": [run[i][1] for i in order],
                      "score": pa.array([run[i][2] for i in order], pa.float64())})
    return Qrels.from_subtopic_columns(*zip(*rows)), table


@pytest.fixture(scope="module")
def data(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    qrels, run = random_subtopic_data(18)
    d = tmp_path_factory.mktemp("intent_engines")
    return {"qrels": qrels, "run": run, "want": rankmeter.evaluate(qrels, run, TEXTS),
            "parquet": write_parquet(grouped(run, 1), d / "run.parquet", row_group_size=13),
            "trec": write_trec(run, d / "run.txt")}


def _same(got: rankmeter.Result, want: rankmeter.Result) -> None:
    assert list(got.queries) == list(want.queries)
    for t in TEXTS:
        assert np.array_equal(got.values[t], want.values[t]), t
    assert want.values["alpha-nDCG@5"].any() and len(want.queries) > 20  # a test that can fail


def test_streaming(data: dict[str, Any]) -> None:
    for path, chunk in ((data["parquet"], 7), (data["trec"], 25)):
        _same(evaluate_stream(data["qrels"], path, TEXTS, chunk_rows=chunk, workers=2), data["want"])


def test_duckdb(data: dict[str, Any]) -> None:
    duckdb = pytest.importorskip("duckdb")
    import rankmeter.duckdb as rdb

    con = duckdb.connect()
    con.register("run_t", data["run"])
    _same(rdb.evaluate(con, "run_t", data["qrels"], TEXTS, chunk_rows=11), data["want"])
    # judgments by subtopic held in DuckDB: a table with a subtopic column (detected, or named)
    con.register("qrels_t", data["qrels"].subtopics.to_arrow(data["qrels"]))
    _same(rdb.evaluate(con, "run_t", "qrels_t", TEXTS, chunk_rows=11, subtopics=True), data["want"])
    con.execute("CREATE TABLE q2 AS SELECT query AS topic, subtopic AS aspect_no, item AS docno, grade AS rel "
                "FROM qrels_t")
    _same(rdb.evaluate(con, "run_t", "q2", TEXTS, subtopic="aspect_no"), data["want"])


def test_missing_queries_and_given_queries_in_chunks(data: dict[str, Any]) -> None:
    """Judged queries the run lacks are evaluated from the judgments alone (Engine.missing_batch)."""
    for queries in ("qrels", "run"):
        want = rankmeter.evaluate(data["qrels"], data["run"], TEXTS, queries=queries)
        _same(evaluate_stream(data["qrels"], data["parquet"], TEXTS, chunk_rows=5, queries=queries), want)


@pytest.mark.spark
@pytest.mark.slow
@pytest.mark.xdist_group("spark")
@pytest.mark.filterwarnings("ignore:PySpark does not yet fully support pandas")
def test_spark(spark: Any, data: dict[str, Any]) -> None:
    import rankmeter.spark as rsp

    run_df = spark.createDataFrame(data["run"].to_pandas()).repartition(3)
    _same(rsp.evaluate(run_df, data["qrels"], TEXTS, partitions=4, chunk_rows=9), data["want"])
    # judgments by subtopic in a DataFrame (collected) and in a Parquet scan (read by the driver with pyarrow)
    table = data["qrels"].subtopics.to_arrow(data["qrels"])
    qrels_df = spark.createDataFrame(table.to_pandas())
    _same(rsp.evaluate(run_df, qrels_df, TEXTS, partitions=4, chunk_rows=9, subtopics=True), data["want"])
    path = str(Path(data["parquet"]).parent / "qrels.parquet")
    pq.write_table(table.rename_columns(["topic", "aspect", "doc", "rel"]), path)
    _same(rsp.evaluate_parquet(spark, str(data["parquet"]), spark.read.parquet(path), TEXTS, subtopic_col="aspect"),
          data["want"])
    _same(rsp.evaluate_parquet(spark, str(data["parquet"]), data["qrels"], TEXTS, tasks=3, chunk_rows=9),
          data["want"])


def test_sql_list_function_refuses_them() -> None:
    """rankmeter_metric(name, list, items, grades) has no subtopic argument: an error saying what is needed."""
    duckdb = pytest.importorskip("duckdb")
    import rankmeter.duckdb as rdb

    con = rdb.register(duckdb.connect())
    with pytest.raises(duckdb.Error, match="intent-aware metrics need judgments by subtopic"):
        con.sql("SELECT rankmeter_metric('alpha-nDCG@20', ['a', 'b'], ['a'], [1.0])").fetchall()
