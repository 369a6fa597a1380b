"""DuckDB: seed 000's queries, the SQL functions' NULL and error rules, and rankmeter.duckdb.evaluate."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pyarrow as pa
import pytest

import rankmeter
from rankmeter import InputError

duckdb = pytest.importorskip("duckdb")
import rankmeter.duckdb as rdb  # noqa: E402

from ._data import grouped, random_data  # noqa: E402
from ._seed import BINARY, GRADED, RECREL, REC, TRUTH, ULP, doc_query  # noqa: E402
from .test_stream import METRICS, assert_same  # noqa: E402


@pytest.fixture(scope="module")
def con():  # type: ignore[no-untyped-def]
    c = duckdb.connect()
    rdb.register(c)
    c.execute("CREATE TABLE dummy_truth AS SELECT * FROM (VALUES " + ", ".join(f"({u}, {i})" for u, i in TRUTH)
              + ") t(userid, itemid)")
    c.execute("CREATE TABLE dummy_rec AS SELECT * FROM (VALUES " + ", ".join(f"({u}, {i}, {s})" for u, i, s in REC)
              + ") t(userid, itemid, score)")
    c.execute("CREATE TABLE dummy_recrel AS SELECT * FROM (VALUES " + ", ".join(
        f"({u}, {i}, {s}, {r})" for u, i, s, r in RECREL) + ") t(userid, itemid, score, relscore)")
    yield c
    c.close()


def rows(con, sql: str) -> list[dict]:  # type: ignore[no-untyped-def,type-arg]
    return con.sql(sql).to_arrow_table().to_pylist()


def test_seed_000_binary_query(con) -> None:  # type: ignore[no-untyped-def]
    got = rows(con, doc_query("duckdb binary"))
    assert len(got) == 3
    for row in got:
        assert set(row) == set(BINARY)
        for k, v in BINARY.items():
            assert row[k] == pytest.approx(v, abs=ULP), k


def test_seed_000_graded_query(con) -> None:  # type: ignore[no-untyped-def]
    got = rows(con, doc_query("duckdb graded"))
    assert len(got) == 3
    for row in got:
        for k, v in GRADED.items():
            assert row[k] == pytest.approx(v, abs=ULP), k


def test_functions_equal_the_registry_bit_for_bit(con) -> None:  # type: ignore[no-untyped-def]
    r = rankmeter.evaluate({"u": ["1", "2", "4"]}, {"u": ["1", "3", "2", "6"]},
                           ["r@4", "p@2", "ap@4", "auc@2", "rr@4", "ndcg@4", "success@1"]).mean
    got = rows(con, "SELECT recall([1,3,2,6], [1,2,4], 4) a, precision_at([1,3,2,6], [1,2,4], 2) b, "
                    "average_precision(['1','3','2','6'], ['1','2','4'], 4) c, auc([1,3,2,6], [1,2,4], 2) d, "
                    "mrr([1,3,2,6], [1,2,4], 4) e, ndcg([1,3,2,6], [1,2,4], 4) f, hit_rate([1,3,2,6], [1,2,4], 1) g, "
                    "rankmeter_metric('ndcg@4', [1,3,2,6], [1,2,4]) h, hitrate([1,3,2,6], [1,2,4], 1) i")[0]
    assert [got[c] for c in "abcdefg"] == list(r.values())
    assert got["h"] == r["ndcg@4"] and got["i"] == 1.0
    graded = rankmeter.evaluate({"u": {"a": 3, "b": 1, "c": 0}}, {"u": ["b", "x", "a"]},
                                ["ndcg(gain=exp)@2", "err(max_grade=3)@3"]).mean
    got = rows(con, "SELECT rankmeter_metric('ndcg(gain=exp)@2', ['b','x','a'], ['a','b','c'], [3,1,0]) a, "
                    "rankmeter_metric('err(max_grade=3)@3', ['b','x','a'], ['a','b','c'], [3,1,0]) b")[0]
    assert [got["a"], got["b"]] == list(graded.values())


def test_nulls_give_null(con) -> None:  # type: ignore[no-untyped-def]
    got = rows(con, "SELECT ndcg(NULL, [1], 2) a, ndcg([1], NULL, 2) b, ndcg([1], [1], NULL) c, "
                    "rankmeter_metric('ap', ['a'], ['a'], NULL) d, ndcg([1], [1], 1) e")[0]
    assert got == {"a": None, "b": None, "c": None, "d": None, "e": 1.0}
    # in a table: NULL rows stay NULL, the others are computed
    got = rows(con, "SELECT ndcg(r, t, k) v FROM (VALUES ([1,2], [2], 2), (NULL, [1], 2), ([1], [1], NULL)) x(r, t, k)")
    assert [g["v"] for g in got] == [pytest.approx(1 / np.log2(3)), None, None]


def test_empty_lists(con) -> None:  # type: ignore[no-untyped-def]
    got = rows(con, "SELECT ndcg([]::BIGINT[], [1], 2) a, auc([]::BIGINT[], [1], 2) b, recall([1], []::BIGINT[], 3) c")[0]
    assert got == {"a": 0.0, "b": 0.5, "c": 0.0}


@pytest.mark.parametrize("sql, message", [
    ("SELECT ndcg([1,2], [1], 0)", r"The 'k' parameter of ndcg must be an int >= 1. Got 0 instead"),
    ("SELECT recall([1,2], [1], -3)", r"The 'k' parameter of recall must be an int >= 1. Got -3"),
    ("SELECT ndcg([1,NULL], [1], 2)", "rec holds a NULL item at row 1"),
    ("SELECT ndcg([1,2], [1,NULL], 2)", "truth holds a NULL item"),
    ("SELECT ndcg([1,2,1], [1], 2)", "item '1' appears twice in rec"),
    ("SELECT ndcg([1,2], [1,1], 2)", "appears twice in truth"),
    ("SELECT ndcg([1,2], ['1'], 2)", "does not support the supplied arguments"),
    ("SELECT ndcg([1.5,2], [1.5], 2)", "does not support the supplied arguments"),
    ("SELECT rankmeter_metric('err@2', ['a'], ['a'], [2.0])", r"err\(max_grade=3\)@10"),
    ("SELECT rankmeter_metric('gini@2', ['a'], ['a'])", "corpus-level metric"),
    ("SELECT rankmeter_metric('ndcg(gain=foo)', ['a'], ['a'])", "must be one of linear, exp"),
    ("SELECT rankmeter_metric('nope@3', ['a'], ['a'])", "unknown metric"),
    ("SELECT rankmeter_metric('ap', ['a'], ['a','b'], [1.0])", "one value per truth item"),
])
def test_bad_input_is_an_error_never_a_number(con, sql: str, message: str) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(duckdb.Error, match=message):
        con.sql(sql).fetchall()


def test_evaluate_a_run_held_in_duckdb(con, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    qrels, run = random_data(11)
    want = rankmeter.evaluate(qrels, run, METRICS)
    con.register("run_arrow", run)
    con.register("qrels_arrow", qrels)
    for chunk in (3, 1000):
        assert_same(rdb.evaluate(con, "run_arrow", "qrels_arrow", METRICS, chunk_rows=chunk), want)
    assert_same(rdb.evaluate(con, "SELECT * FROM run_arrow", qrels, METRICS), want)
    assert_same(rdb.evaluate(con, con.table("run_arrow"), "qrels_arrow", METRICS, queries="run"),
                rankmeter.evaluate(qrels, run, METRICS, queries="run"))
    # seed 000 tables, integer ids and the userid/itemid column names
    r = rdb.evaluate(con, "dummy_rec", "dummy_truth", ["ndcg@2", "P@4"])
    assert r.n_queries == 3 and r.mean["P@4"] == 0.5
    with pytest.raises(InputError, match="cannot find the score column"):
        rdb.evaluate(con, "dummy_truth", "dummy_truth", ["P@1"])
    with pytest.raises(InputError, match="cannot read the run from DuckDB"):
        rdb.evaluate(con, "no_such_table", "dummy_truth", ["P@1"])


def test_whole_table_through_the_sql_function_equals_evaluate(con) -> None:  # type: ignore[no-untyped-def]
    """rankmeter_metric over list(... ORDER BY score DESC, item DESC) per query = rankmeter.evaluate."""
    qrels, run = random_data(12)
    con.register("r12", grouped(run))
    con.register("q12", qrels)
    metrics = ["ndcg@5", "ap", "P@3", "rr", "rbp(p=0.5)", "auc@4", "err(max_grade=4)@5", "bpref"]
    want = rankmeter.evaluate(qrels, run, metrics, queries="run")
    cols = ", ".join(f"rankmeter_metric('{m}', r.rec, q.items, q.grades) AS m{i}" for i, m in enumerate(metrics))
    got = rows(con, f"""
        WITH r AS (SELECT query, list(item ORDER BY score DESC, item DESC) AS rec FROM r12 GROUP BY query),
             q AS (SELECT query, list(item ORDER BY item) AS items, list(grade ORDER BY item) AS grades
                   FROM q12 GROUP BY query)
        SELECT r.query, {cols} FROM r JOIN q USING (query) ORDER BY r.query""")
    byq = {g["query"]: g for g in got}
    assert sorted(byq) == sorted(want.queries)
    for i, m in enumerate(metrics):
        vals = np.array([byq[q][f"m{i}"] for q in want.queries])
        np.testing.assert_allclose(vals, want.values[m], rtol=0, atol=1e-12, err_msg=m)


def test_register_is_idempotent_and_needs_duckdb(con) -> None:  # type: ignore[no-untyped-def]
    rdb.register(con)
    assert con.sql("SELECT mrr([3, 1], [1], 2)").fetchall() == [(0.5,)]
    assert isinstance(pa.array([1]), pa.Array)


def test_evaluate_reads_scan_order_first_and_sorts_only_when_needed(con) -> None:  # type: ignore[no-untyped-def]
    qrels, run = random_data(14)
    want = rankmeter.evaluate(qrels, run, METRICS)
    con.register("grouped_run", grouped(run, 3))
    con.register("shuffled_run", run)  # not grouped: read again with ORDER BY
    for table in ("grouped_run", "shuffled_run"):
        for g in (None, False):
            assert_same(rdb.evaluate(con, table, qrels, METRICS, grouped=g, chunk_rows=6), want)
    assert_same(rdb.evaluate(con, "grouped_run", qrels, METRICS, grouped=True, chunk_rows=6), want)
    with pytest.raises(InputError, match="not grouped by query"):
        rdb.evaluate(con, "shuffled_run", qrels, METRICS, grouped=True, chunk_rows=6)
