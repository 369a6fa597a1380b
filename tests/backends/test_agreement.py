"""One answer everywhere: in-process, streaming, DuckDB and Spark agree on every registered metric.

For every ranking metric of the registry (each parameter variant, with and without a
cutoff) on random data with score ties (and 0.0 / -0.0), graded and negative judgments
and queries missing from either side:

- streaming from Parquet (a grouped file, tiny chunks: many chunks and carried-over
  queries) and from TREC text (an ungrouped file: the on-disk partition) give
  bit-identical per-query values and the same coverage;
- rankmeter.duckdb.evaluate gives bit-identical values;
- the SQL function rankmeter_metric over DuckDB lists agrees to 1e-12;
- rankmeter.spark.evaluate (Spark local mode, with a shuffle) and rankmeter.spark.evaluate_parquet
  (executors reading the Parquet file) give bit-identical values.

Corpus-level metrics (one value for all lists) agree to 1e-12 (their states are merged
across chunks in another order). Metrics that evaluate other inputs than rankings
(``spec.input != "ranking"``, e.g. rating-prediction errors) have no ranking to stream
and are listed by ``test_non_ranking_metrics_are_out_of_scope``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

import rankmeter
from rankmeter._errors import RankmeterError
from rankmeter.metrics.registry import MetricSpec, parse_metric
from rankmeter.stream import evaluate_stream

from .test_stream import _same_rows
from ._data import context_for, grouped, metric_texts, other_specs, random_data, ranking_specs, write_parquet, \
    write_trec

SPECS = ranking_specs()
SEED = 2024



def _check(problems: list[str]) -> None:
    assert not problems, "\n".join(problems)


@pytest.fixture(scope="module")
def data() -> dict[str, Any]:
    qrels, run = random_data(SEED, n_queries=60, max_len=40)
    ctx = context_for(qrels, run)
    ok: dict[str, list[str]] = {}
    refs: dict[str, rankmeter.Result] = {}
    unsupported: dict[str, str] = {}
    for spec in SPECS:
        ok[spec.name] = []
        for text in metric_texts(spec):
            try:
                refs[text] = rankmeter.evaluate(qrels, run, [text], context=ctx)
                ok[spec.name].append(text)
            except RankmeterError as exc:
                unsupported[text] = str(exc)
    texts = [t for s in SPECS for t in ok[s.name]]
    return {"qrels": qrels, "run": run, "ctx": ctx, "ok": ok, "texts": texts, "unsupported": unsupported,
            "ref": rankmeter.evaluate(qrels, run, texts, context=ctx)}


@pytest.fixture(scope="module")
def files(data: dict[str, Any], tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    d = tmp_path_factory.mktemp("agreement")
    return {"parquet": write_parquet(grouped(data["run"], 1), d / "run.parquet", row_group_size=13),
            "trec": write_trec(data["run"], d / "run.txt")}  # rows shuffled: not grouped


def _compare(got: rankmeter.Result, want: rankmeter.Result, texts: list[str], exact: bool) -> list[str]:
    problems = []
    if list(got.queries) != list(want.queries):
        return ["query lists differ"]
    for t in texts:
        if t in want.values:
            a, b = np.asarray(got.values[t]), np.asarray(want.values[t])
            if exact and not np.array_equal(a, b, equal_nan=True):  # nan: a user left out (no profile)
                problems.append(f"{t}: max difference {np.max(np.abs(a - b)):.3g} (expected bit-identical)")
            elif not np.allclose(a, b, rtol=0, atol=1e-12, equal_nan=True):
                problems.append(f"{t}: max difference {np.max(np.abs(a - b)):.3g}")
        else:
            a, b = got.corpus[t], want.corpus[t]
            if not (np.isnan(a) and np.isnan(b)) and abs(a - b) > 1e-12:
                problems.append(f"{t}: corpus value {a!r} != {b!r}")
    if _same_rows(got.coverage) != _same_rows(want.coverage):
        problems.append(f"coverage {got.coverage} != {want.coverage}")
    return problems


def test_every_ranking_metric_is_covered(data: dict[str, Any]) -> None:
    """Each registered ranking metric is checked with at least its default parameters."""
    missing = [s.name for s in SPECS if not data["ok"][s.name]]
    assert not missing, f"no evaluable variant for {missing}: {data['unsupported']}"
    assert len(data["texts"]) >= len(SPECS)


def test_non_ranking_metrics_are_out_of_scope() -> None:
    for spec in other_specs():
        # evaluate() refuses them and names their entry point; no run to stream or partition
        with pytest.raises(RankmeterError, match=f"rankmeter.evaluate_{spec.input}"):
            rankmeter.evaluate({"q": ["a"]}, {"q": ["a"]}, [spec.name])


@pytest.mark.parametrize("spec", SPECS, ids=lambda s: s.name)
def test_streaming_agrees(spec: MetricSpec, data: dict[str, Any], files: dict[str, Path]) -> None:
    texts = data["ok"][spec.name]
    want = rankmeter.evaluate(data["qrels"], data["run"], texts, context=data["ctx"])
    problems = []
    for name, path, chunk in (("parquet, grouped, 7-row chunks", files["parquet"], 7),
                              ("trec, ungrouped (partitioned)", files["trec"], 25)):
        got = evaluate_stream(data["qrels"], path, texts, context=data["ctx"], chunk_rows=chunk, workers=2)
        problems += [f"{name}: {p}" for p in _compare(got, want, texts, exact=True)]
    _check(problems)


@pytest.mark.parametrize("spec", SPECS, ids=lambda s: s.name)
def test_duckdb_agrees(spec: MetricSpec, data: dict[str, Any]) -> None:
    duckdb = pytest.importorskip("duckdb")
    import rankmeter.duckdb as rdb

    texts = data["ok"][spec.name]
    want = rankmeter.evaluate(data["qrels"], data["run"], texts, context=data["ctx"])
    con = duckdb.connect()
    con.register("run_t", data["run"])
    con.register("qrels_t", data["qrels"])
    got = rdb.evaluate(con, "run_t", "qrels_t", texts, context=data["ctx"], chunk_rows=11)
    _check(_compare(got, want, texts, exact=True))


@pytest.mark.parametrize("spec", [s for s in SPECS if s.level == "query"], ids=lambda s: s.name)
def test_duckdb_sql_function_agrees(spec: MetricSpec, data: dict[str, Any]) -> None:
    """rankmeter_metric(name, list(item ORDER BY score DESC, item DESC), items, grades) per query."""
    duckdb = pytest.importorskip("duckdb")
    import rankmeter.duckdb as rdb

    con = rdb.register(duckdb.connect())
    con.register("run_t", data["run"])
    con.register("qrels_t", data["qrels"])
    max_grade = max(data["qrels"].column("grade").to_pylist())
    checked = 0
    for text in data["ok"][spec.name]:
        m = parse_metric(text)
        sql_text = text
        if "max_grade" in m.params and m.params["max_grade"] is None:
            # a row cannot see the top grade of all judgments: pass it, as the docs say
            base, _, cut = text.partition("@")
            sql_text = f"{base}(max_grade={max_grade:g})" + (f"@{cut}" if cut else "")
        want = rankmeter.evaluate(data["qrels"], data["run"], [text], queries="run", context=data["ctx"])
        try:
            got = con.sql(f"""
                WITH r AS (SELECT query, list(item ORDER BY score DESC, item DESC) AS rec FROM run_t GROUP BY query),
                     q AS (SELECT query, list(item) AS items, list(grade) AS grades FROM qrels_t GROUP BY query)
                SELECT r.query, rankmeter_metric('{sql_text}', r.rec, q.items, q.grades) AS v
                FROM r JOIN q USING (query)""").to_arrow_table().to_pylist()
        except duckdb.Error as exc:
            # needs context a row cannot see: a clear error saying what is needed
            assert "cannot know" in str(exc) or "needs" in str(exc), exc
            continue
        byq = {g["query"]: g["v"] for g in got}
        vals = np.array([byq[q] for q in want.queries])
        np.testing.assert_allclose(vals, want.values[text], rtol=0, atol=1e-12, err_msg=text)
        checked += 1
    if spec.family == "ranking":
        assert checked, f"no variant of {spec.name} checked through SQL"


@pytest.mark.spark
@pytest.mark.slow
@pytest.mark.xdist_group("spark")
@pytest.mark.filterwarnings("ignore:PySpark does not yet fully support pandas")
def test_spark_agrees_on_the_whole_registry(spark: Any, data: dict[str, Any], files: dict[str, Path]) -> None:
    import rankmeter.spark as rsp

    texts = data["texts"]
    run_df = spark.createDataFrame(data["run"].to_pandas()).repartition(3)
    qrels_df = spark.createDataFrame(data["qrels"].to_pandas())
    got = rsp.evaluate(run_df, qrels_df, texts, context=data["ctx"], partitions=4, chunk_rows=9)
    _check(_compare(got, data["ref"], texts, exact=True))
    # the executors reading the grouped Parquet file themselves, cut into 3 tasks
    got = rsp.evaluate_parquet(spark, str(files["parquet"]), data["qrels"], texts, context=data["ctx"], tasks=3,
                               chunk_rows=9)
    _check(_compare(got, data["ref"], texts, exact=True))

