"""One input, one answer: odd data through every form and every engine gives identical per-query values.

The data has what used to split answers apart: ids that look like numbers, floats and
dates (``007`` and ``7``, ``1.0``, ``1e3``, ``2024-01-01T10:00:00``), ``#``-prefixed ids,
non-ASCII spaces inside ids, a byte-order mark and a 7th column in TREC text, grades
-2..4 and score ties. Forms: TREC text, CSV, TSV, Parquet, pandas, polars and dicts;
engines: in-process, streaming (tiny chunks), DuckDB and Spark.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.csv as pacsv
import pyarrow.parquet as pq
import pytest

import rankmeter
from rankmeter.stream import evaluate_stream

ODD_IDS = ["007", "7", "1.0", "1", "1e3", "1000", "2024-01-01T10:00:00", "#x", "#", "a\u00a0b", "a", "é", "0x1F",
           "-1", "+1", "nan", "inf", "NULL", "true", "d9", "d10", "D9"]
METRICS = ["ndcg@5", "map", "P@3", "recall@10", "bpref", "rr", "err@5", "judged@5", "unj@5", "ndcg(gain=exp)"]
SEEDS = [1, 2, 3]


def odd_data(seed: int) -> tuple[pa.Table, pa.Table]:
    rng = np.random.default_rng(seed)
    qrows, rrows = [], []
    # a TREC line whose first field starts with '#' is a comment (trec_eval 10.0), so '#' only inside query ids
    queries = ["01", "1", "q#", "q\u00a01", "2024-01-01", "1e3", "Q"]
    for q in queries:
        side = rng.choice(["both", "both", "both", "qrels", "run"])
        if side in ("both", "qrels"):
            for item in rng.choice(ODD_IDS, size=int(rng.integers(1, 9)), replace=False):
                qrows.append((q, str(item), float(rng.integers(-2, 5))))
        if side in ("both", "run"):
            for item in rng.choice(ODD_IDS, size=int(rng.integers(1, 12)), replace=False):
                rrows.append((q, str(item), float(rng.choice([0.5, 1.0, 1.0, 2.0, 3.25]))))  # ties
    if not any(g > 0 for _, _, g in qrows):
        qrows.append((queries[0], "a", 1.0))

    def table(rows: list, value: str) -> pa.Table:
        q, i, v = zip(*rows) if rows else ((), (), ())
        return pa.table({"query": pa.array(q, pa.string()), "item": pa.array(i, pa.string()),
                         value: pa.array(v, pa.float64())})

    return table(qrows, "grade"), table(rrows, "score")


def write_forms(qrels: pa.Table, run: pa.Table, d: Path) -> dict[str, object]:
    """Every form of the run (and TREC text judgments), as rankmeter's loaders take them."""
    q, i, s = (run.column(c).to_pylist() for c in ("query", "item", "score"))
    trec6 = "".join(f"{a} Q0 {b} {n + 1} {c!r} tag\n" for n, (a, b, c) in enumerate(zip(q, i, s)))
    trec7 = "\ufeff# comment\n" + "".join(f"{a}\tQ0 {b} {n + 1} {c!r} tag extra\n"
                                          for n, (a, b, c) in enumerate(zip(q, i, s)))
    (d / "run6.txt").write_text(trec6, encoding="utf-8")
    (d / "run7.txt").write_text(trec7, encoding="utf-8")
    pacsv.write_csv(run, d / "run.csv")
    pacsv.write_csv(run, d / "run.tsv", pacsv.WriteOptions(delimiter="\t"))
    pq.write_table(run, d / "run.parquet", row_group_size=7)
    forms: dict[str, object] = {
        "trec6": d / "run6.txt", "trec7": d / "run7.txt", "csv": d / "run.csv", "tsv": d / "run.tsv",
        "parquet": d / "run.parquet", "pandas": run.to_pandas(), "arrow": run,
        "dict": {qq: {} for qq in q},
    }
    for a, b, c in zip(q, i, s):
        forms["dict"][a][b] = c  # type: ignore[index]
    try:
        import polars as pl

        forms["polars"] = pl.from_arrow(run)
    except ImportError:
        pass
    qq, qi, qg = (qrels.column(c).to_pylist() for c in ("query", "item", "grade"))
    (d / "qrels.txt").write_text("".join(f"{a} 0 {b} {int(g)}\n" for a, b, g in zip(qq, qi, qg)), encoding="utf-8")
    return forms


def assert_same(got: rankmeter.Result, want: rankmeter.Result, what: str) -> None:
    assert list(got.queries) == list(want.queries), what
    for m in METRICS:
        np.testing.assert_array_equal(got.values[m], want.values[m], err_msg=f"{what}: {m}")


@pytest.fixture(scope="module", params=SEEDS)
def case(request, tmp_path_factory) -> tuple:  # type: ignore[no-untyped-def]
    qrels, run = odd_data(request.param)
    d = tmp_path_factory.mktemp(f"odd{request.param}")
    forms = write_forms(qrels, run, d)
    ref = rankmeter.evaluate(d / "qrels.txt", forms["arrow"], METRICS)
    return qrels, run, d, forms, ref


def test_the_data_is_odd(case) -> None:
    """Ids survive as written: the TREC judgments read back equal the table they were written from."""
    qrels, _run, d, _forms, _ref = case
    want: dict = {}
    for q, i, g in zip(*(qrels.column(c).to_pylist() for c in ("query", "item", "grade"))):
        want.setdefault(q, {})[i] = g
    assert rankmeter.read_qrels(d / "qrels.txt").to_dict() == want


def test_every_form_in_process(case) -> None:
    qrels, _run, d, forms, ref = case
    seven = rankmeter.evaluate(d / "qrels.txt", forms["trec7"], METRICS)
    assert seven.coverage is not None and seven.coverage.comment_lines["run"] == 1  # counted, and said
    assert any("comment line" in n for n in seven.notes)
    for name, run in forms.items():
        assert_same(rankmeter.evaluate(d / "qrels.txt", run, METRICS), ref, name)
    # judgments in other forms
    assert_same(rankmeter.evaluate(qrels.to_pandas(), forms["arrow"], METRICS), ref, "pandas qrels")
    pacsv.write_csv(qrels, d / "qrels.csv")
    assert_same(rankmeter.evaluate(d / "qrels.csv", forms["arrow"], METRICS), ref, "csv qrels")


@pytest.mark.parametrize("name", ["trec6", "trec7", "csv", "tsv", "parquet"])
def test_streaming_with_tiny_chunks(case, name) -> None:
    _qrels, _run, d, forms, ref = case
    assert_same(evaluate_stream(d / "qrels.txt", forms[name], METRICS, chunk_rows=3), ref, f"stream {name}")
    assert_same(evaluate_stream(d / "qrels.txt", forms[name], METRICS, chunk_rows=3, grouped=False), ref,
                f"stream {name}, partitioned")


def test_duckdb(case) -> None:
    duckdb = pytest.importorskip("duckdb")
    import rankmeter.duckdb as rdb

    qrels, run, _d, _forms, ref = case
    con = duckdb.connect()
    con.register("run_t", run)
    con.register("qrels_t", qrels)
    assert_same(rdb.evaluate(con, "run_t", "qrels_t", METRICS, chunk_rows=4), ref, "duckdb")
    con.execute(f"CREATE TABLE run_csv AS SELECT * FROM read_csv('{_d / 'run.csv'}', all_varchar=true)")
    con.execute("CREATE TABLE run_typed AS SELECT query, item, CAST(score AS DOUBLE) AS score FROM run_csv")
    assert_same(rdb.evaluate(con, "run_typed", "qrels_t", METRICS), ref, "duckdb from csv")


@pytest.mark.spark
def test_spark(case, spark) -> None:  # type: ignore[no-untyped-def]
    import rankmeter.spark

    qrels, run, d, _forms, ref = case
    assert_same(rankmeter.spark.evaluate(spark.createDataFrame(run.to_pandas()), qrels, METRICS, read_files=False),
                ref, "spark")
    assert_same(rankmeter.spark.evaluate_parquet(spark, str(d / "run.parquet"), d / "qrels.txt", METRICS), ref,
                "spark parquet")


def test_float_ids_are_refused_in_every_engine(tmp_path: Path) -> None:
    """A float id has no single text form (DuckDB wrote '1.0' where Arrow wrote '1'): every engine refuses it."""
    run = pa.table({"query": pa.array([1.0, 1.0]), "item": pa.array(["a", "b"]), "score": pa.array([2.0, 1.0])})
    qrels = {"1": {"a": 1}}
    with pytest.raises(rankmeter.InputError, match="floating-point"):
        rankmeter.evaluate(qrels, run, ["map"])
    pq.write_table(run, tmp_path / "r.parquet")
    with pytest.raises(rankmeter.InputError, match="floating-point"):
        evaluate_stream(qrels, tmp_path / "r.parquet", ["map"])
    duckdb = pytest.importorskip("duckdb")
    import rankmeter.duckdb as rdb

    con = duckdb.connect()
    con.register("run_t", run)
    with pytest.raises(rankmeter.InputError, match="floating-point"):
        rdb.evaluate(con, "run_t", qrels, ["map"])


def test_text_scores_and_grades_are_refused_in_duckdb_as_everywhere() -> None:
    duckdb = pytest.importorskip("duckdb")
    import rankmeter.duckdb as rdb

    run = pa.table({"query": ["q", "q"], "item": ["a", "b"], "score": [" 1.0", "2"]})
    qrels = pa.table({"query": ["q"], "item": ["a"], "grade": ["1"]})
    with pytest.raises(rankmeter.InputError):
        rankmeter.evaluate(qrels, run, ["P@1"])
    con = duckdb.connect()
    con.register("run_t", run)
    con.register("qrels_t", qrels)
    with pytest.raises(rankmeter.InputError, match="must be a number"):
        rdb.evaluate(con, "run_t", {"q": {"a": 1}}, ["P@1"])
    con.register("run_ok", pa.table({"query": ["q"], "item": ["a"], "score": [1.0]}))
    with pytest.raises(rankmeter.InputError, match="must be a number"):
        rdb.evaluate(con, "run_ok", "qrels_t", ["P@1"])
