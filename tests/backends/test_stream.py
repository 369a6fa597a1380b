"""Streaming evaluation: the same Result as rankmeter.evaluate, in chunks, from every file format."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rankmeter
from rankmeter import InputError, ParameterError
from rankmeter.data.ids import string_signature
from rankmeter.evaluation import Engine
from rankmeter.data import Qrels
from rankmeter.io import as_qrels, as_run
from rankmeter.stream import evaluate_stream

from ._data import context_for, grouped, random_data, write_csv, write_parquet, write_trec

METRICS = ["ndcg@5", "ndcg(gain=exp)", "ap", "P@3", "p(norm=retrieved)@4", "rr", "err@4", "bpref", "auc@6",
           "rbp", "r@10", "rprec", "success@2", "num_ret", "num_rel", "rank_score", "lift_index@3", "f@5"]


def assert_same(got: rankmeter.Result, want: rankmeter.Result, exact: bool = True) -> None:
    assert list(got.queries) == list(want.queries)
    assert set(got.values) == set(want.values)
    for m in want.values:
        if exact:
            np.testing.assert_array_equal(got.values[m], want.values[m], err_msg=m)
        else:
            np.testing.assert_allclose(got.values[m], want.values[m], rtol=0, atol=1e-12, err_msg=m)
    assert set(got.corpus) == set(want.corpus)
    for m in want.corpus:
        assert got.corpus[m] == pytest.approx(want.corpus[m], abs=1e-12, nan_ok=True), m
    # the same rows, whatever the form: only what the readers skipped (comment lines of a text file) may differ
    assert _same_rows(got.coverage) == _same_rows(want.coverage)
    assert _not_reader(got.notes) == _not_reader(want.notes)


def _same_rows(cov):  # type: ignore[no-untyped-def]
    import dataclasses

    return None if cov is None else dataclasses.replace(cov, comment_lines={})


def _not_reader(notes):  # type: ignore[no-untyped-def]
    return [n for n in notes if "comment line" not in n]


def test_seed_000_from_a_trec_file(tmp_path: Path) -> None:
    """Seed 000's dummy_rec / dummy_truth, streamed one query per chunk."""
    run = tmp_path / "rec.txt"
    run.write_text("".join(f"{u} Q0 {i} 0 {s} hivemall\n" for u in (1, 2, 3)
                           for i, s in ((1, 10.0), (3, 8.0), (2, 6.0), (6, 2.0))))
    truth = {str(u): ["1", "2", "4"] for u in (1, 2, 3)}
    r = evaluate_stream(truth, run, ["r@4", "r@2", "P@4", "P@2", "ap@4", "ap@2", "auc@4", "auc@2", "rr@4",
                                     "ndcg@4", "ndcg@2"], chunk_rows=1)
    want = {"r@4": 2 / 3, "r@2": 1 / 3, "P@4": 0.5, "P@2": 0.5, "ap@4": 0.5555555555555555,
            "ap@2": 0.3333333333333333, "auc@4": 0.75, "auc@2": 1.0, "rr@4": 1.0,
            "ndcg@4": 0.7039180890341349, "ndcg@2": 0.6131471927654585}
    for k, v in want.items():
        assert r.mean[k] == pytest.approx(v, abs=1e-15), k
    assert r.n_queries == 3 and r.coverage is not None and r.coverage.run_rows == 12


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("queries", ["judged", "run", "qrels"])
def test_grouped_files_agree_bit_for_bit(tmp_path: Path, seed: int, queries: str) -> None:
    qrels, run = random_data(seed)
    want = rankmeter.evaluate(qrels, run, METRICS, queries=queries)
    g = grouped(run, seed)
    files = [write_parquet(g, tmp_path / "run.parquet"), write_trec(g, tmp_path / "run.txt"),
             write_csv(g, tmp_path / "run.csv")]
    for path in files:
        for chunk in (1, 7, 50, 10_000):
            got = evaluate_stream(qrels, path, METRICS, queries=queries, chunk_rows=chunk, grouped=True)
            assert_same(got, want)


@pytest.mark.parametrize("seed", [3, 4])
def test_ungrouped_files_are_partitioned_on_disk(tmp_path: Path, seed: int) -> None:
    qrels, run = random_data(seed)  # rows shuffled: not grouped by query
    want = rankmeter.evaluate(qrels, run, METRICS)
    for path in (write_parquet(run, tmp_path / "run.parquet"), write_trec(run, tmp_path / "run.txt")):
        for chunk in (4, 30, 10_000):
            got = evaluate_stream(qrels, path, METRICS, chunk_rows=chunk, tmp_dir=tmp_path)
            assert_same(got, want)
        got = evaluate_stream(qrels, path, METRICS, chunk_rows=10, grouped=False, workers=1)
        assert_same(got, want)
    assert not [p for p in tmp_path.iterdir() if p.name.startswith("rankmeter-partitions-")]


def test_grouped_true_refuses_an_ungrouped_file(tmp_path: Path) -> None:
    path = tmp_path / "run.txt"
    path.write_text("a Q0 x 1 1 t\nb Q0 y 1 1 t\na Q0 z 2 0.5 t\n")
    with pytest.raises(InputError, match="not grouped by query: query 'a' appears again"):
        evaluate_stream({"a": ["x"]}, path, ["P@1"], chunk_rows=1, grouped=True)
    # the default detects it and partitions
    assert evaluate_stream({"a": ["z"]}, path, ["rr"], chunk_rows=1).mean == {"rr": 0.5}


def test_queries_given_as_a_list(tmp_path: Path) -> None:
    qrels, run = random_data(5)
    ids = sorted(set(run.column("query").to_pylist()))[:5] + sorted(set(qrels.column("query").to_pylist()))[-3:]
    want = rankmeter.evaluate(qrels, run, METRICS, queries=ids)
    got = evaluate_stream(qrels, write_parquet(grouped(run), tmp_path / "r.parquet"), METRICS, queries=ids,
                          chunk_rows=5)
    assert_same(got, want)
    with pytest.raises(InputError, match="requested queries are in neither input"):
        evaluate_stream(qrels, tmp_path / "r.parquet", ["P@1"], queries=["no-such-query"])


def test_order_rank_and_duplicate_policies(tmp_path: Path) -> None:
    qrels, run = random_data(6)
    g = grouped(run)
    path = write_trec(g, tmp_path / "run.txt")  # rank column = file position
    want = rankmeter.evaluate(qrels, rankmeter.read_run(path, order="rank"), METRICS)
    assert_same(evaluate_stream(qrels, path, METRICS, order="rank", chunk_rows=9), want)
    # a repeated (query, item) row: error with the line, or a policy
    dup = pa.concat_tables([g, g.slice(3, 1).set_column(2, "score", pa.array([99.0]))])
    dup = grouped(dup, 1)
    p2 = write_trec(dup, tmp_path / "dup.txt")
    with pytest.raises(InputError, match=r"dup.txt:\d+: item .* appears twice"):
        evaluate_stream(qrels, p2, ["P@1"], chunk_rows=5)
    for policy in ("max", "first", "last"):
        want = rankmeter.evaluate(qrels, rankmeter.read_run(p2, duplicates=policy), METRICS)
        assert_same(evaluate_stream(qrels, p2, METRICS, duplicates=policy, chunk_rows=5), want)


def test_bad_input_reports_file_and_line(tmp_path: Path) -> None:
    p = tmp_path / "bad.txt"
    p.write_text("q1 Q0 a 1 1.0 t\n# comment\nq1 Q0 b 2 nan t\n")
    with pytest.raises(InputError, match=r"bad.txt:3: score is not a finite number"):
        evaluate_stream({"q1": ["a"]}, p, ["P@1"], chunk_rows=1)
    p.write_text("q1 Q0 a 1 1.0 t\nq1 Q0 b\n")
    with pytest.raises(InputError, match=r"bad.txt:2: expected 6"):
        evaluate_stream({"q1": ["a"]}, p, ["P@1"])
    with pytest.raises(InputError, match="no such file"):
        evaluate_stream({"q1": ["a"]}, tmp_path / "nope.parquet", ["P@1"])
    with pytest.raises(ParameterError, match="'chunk_rows' parameter of evaluate_stream must be an int >= 1"):
        evaluate_stream({"q1": ["a"]}, p, ["P@1"], chunk_rows=0)
    pq.write_table(pa.table({"query": ["q1", "q1"], "item": ["a", None], "score": [1.0, 2.0]}),
                   tmp_path / "null.parquet")
    with pytest.raises(InputError, match=r"null.parquet:2: item id is missing"):
        evaluate_stream({"q1": ["a"]}, tmp_path / "null.parquet", ["P@1"])


def test_corpus_level_metrics_merge_across_chunks(tmp_path: Path) -> None:
    qrels, run = random_data(8)
    ctx = context_for(qrels, run)
    specs = [m for m in ("gini@5", "entropy", "catalog_coverage@3", "user_coverage@5", "personalization@4",
                         "novelty@5", "arp", "ild@4", "serendipity@5")]
    from rankmeter.metrics.registry import get_spec
    from rankmeter._errors import MetricNameError

    try:
        for s in specs:
            get_spec(s.split("@")[0])
    except MetricNameError:
        pytest.skip("the beyond-accuracy metrics are not in this build")
    want = rankmeter.evaluate(qrels, run, specs + ["ndcg@5"], context=ctx)
    for chunk in (3, 50):
        got = evaluate_stream(qrels, write_parquet(run, tmp_path / "r.parquet"), specs + ["ndcg@5"], context=ctx,
                              chunk_rows=chunk)
        assert_same(got, want, exact=False)


def test_chunks_take_the_fast_path_and_match_the_exact_one() -> None:
    qrels, run = random_data(9)
    q = as_qrels(qrels)
    e = Engine(q, METRICS)
    assert e.fast
    table = grouped(run).rename_columns(["query", "item", "score"])
    fast = e.evaluate_table(table)
    exact = e.evaluate_table(table, force_exact=True)
    assert fast.path == "fast" and exact.path == "exact"
    fast_ids, exact_ids = (list(q.to_pylist() if hasattr(q, "to_pylist") else q) for q in (fast.queries, exact.queries))
    fast_order = np.argsort(np.array(fast_ids, dtype=object))
    exact_order = np.argsort(np.array(exact_ids, dtype=object))
    assert sorted(fast_ids) == sorted(exact_ids)
    for m in METRICS:
        np.testing.assert_array_equal(fast.values[m][fast_order], exact.values[m][exact_order], err_msg=m)


def test_string_signature_is_equal_for_equal_strings() -> None:
    ids = ["", "a", "ab", "a", "abcdefghijk", "abcdefghijk", "é", "", "x" * 40 + "1", "x" * 40 + "2", "x" * 40 + "1"]
    arr = pa.array(ids)
    sig = string_signature(arr)
    for i in range(len(ids)):
        for j in range(len(ids)):
            if ids[i] == ids[j]:
                assert sig[i] == sig[j]
            elif max(len(ids[i].encode()), len(ids[j].encode())) <= 16:
                assert sig[i] != sig[j]
    np.testing.assert_array_equal(string_signature(arr.slice(3)), sig[3:])


def test_long_ids_sharing_head_and_tail_are_not_taken_for_duplicates(tmp_path: Path) -> None:
    a, b = "x" * 10 + "A" + "y" * 10, "x" * 10 + "B" + "y" * 10
    assert string_signature(pa.array([a]))[0] == string_signature(pa.array([b]))[0]
    run = {"q": {a: 1.0, b: 1.0, "c": 0.5}}
    qrels = {"q": {b: 1, "c": 2}}
    want = rankmeter.evaluate(qrels, run, METRICS)
    path = write_parquet(as_run(run).to_arrow().select(["query", "item", "score"]), tmp_path / "r.parquet")
    assert_same(evaluate_stream(qrels, path, METRICS), want)


def test_missing_from_run_and_empty_inputs(tmp_path: Path) -> None:
    q = {"q1": {"a": 1}, "q2": {"b": 2}, "q3": {"c": 0}}
    path = tmp_path / "r.txt"
    path.write_text("q1 Q0 a 1 1 t\nq9 Q0 z 1 1 t\n")
    for policy in ("judged", "run", "qrels"):
        assert_same(evaluate_stream(q, path, METRICS, queries=policy),
                    rankmeter.evaluate(q, rankmeter.read_run(path), METRICS, queries=policy))
    assert isinstance(as_qrels(q), Qrels)


def int_id_data(seed: int) -> tuple[pa.Table, pa.Table]:
    """Integer query and item ids in the run; judgments hold their decimal text, and decoys ('07', '+7')."""
    rng = np.random.default_rng(seed)
    rq, ri, rs, qq, qi, qg = [], [], [], [], [], []
    for q in range(30):
        items = rng.choice(np.arange(-5, 60), size=int(rng.integers(0, 25)), replace=False)
        for it in items:
            rq.append(q * 1000); ri.append(int(it)); rs.append(float(rng.choice([0.0, 1.0, 1.0, 2.5, -1.0])))
        for it in rng.choice(np.arange(-5, 60), size=int(rng.integers(1, 10)), replace=False):
            qq.append(str(q * 1000)); qi.append(str(int(it))); qg.append(float(rng.integers(-1, 4)))
        qq += [str(q * 1000)] * 2; qi += [f"0{rng.integers(0, 9)}", "+7"]; qg += [2.0, 3.0]
    run = pa.table({"query": pa.array(rq, pa.int64()), "item": pa.array(ri, pa.int32()),
                    "score": pa.array(rs, pa.float64())})
    qrels = pa.table({"query": qq, "item": qi, "grade": qg})
    return qrels, run


@pytest.mark.parametrize("seed", [0, 1])
def test_integer_ids_stay_numbers_and_match_their_decimal_text(tmp_path: Path, seed: int) -> None:
    qrels, run = int_id_data(seed)
    q = as_qrels(qrels, duplicates="first")
    want = rankmeter.evaluate(q, run, METRICS)
    e = Engine(q, METRICS)
    out = e.evaluate_table(grouped(run, seed))
    assert out.path == "fast"
    for chunk, table in ((3, grouped(run, seed)), (50, run)):
        got = evaluate_stream(q, write_parquet(table, tmp_path / "r.parquet"), METRICS, chunk_rows=chunk)
        assert_same(got, want)
    big = pa.table({"query": pa.array([1, 1], pa.int64()), "item": pa.array([10**18 + 1, 5], pa.int64()),
                    "score": [1.0, 1.0]})
    qb = {"1": {str(10**18 + 1): 1}}
    assert_same(evaluate_stream(qb, write_parquet(big, tmp_path / "b.parquet"), METRICS),
                rankmeter.evaluate(qb, big, METRICS))


def test_progress_bar_goes_to_stderr(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    qrels, run = random_data(13)
    path = write_parquet(grouped(run), tmp_path / "r.parquet")
    want = rankmeter.evaluate(qrels, run, ["ndcg@5"])
    got = evaluate_stream(qrels, path, ["ndcg@5"], chunk_rows=20, progress=True)
    assert_same(got, want)
    captured = capsys.readouterr()
    assert captured.out == ""
    assert "evaluating" in captured.err and "rows" in captured.err


def test_decimal_scores_and_grades_are_read_as_float64(tmp_path: Path) -> None:
    """SQL pipelines write DECIMAL columns: every engine reads them as float64 (as DuckDB and Spark cast them)."""
    import duckdb

    import rankmeter.duckdb as rdb

    qrels, run = random_data(44)
    as_decimal = pa.decimal128(12, 4)
    scores = pa.array(np.round(run.column("score").to_numpy(), 4))
    run = run.set_column(2, "score", scores)  # values a decimal(12, 4) holds exactly
    dec_run = run.set_column(2, "score", scores.cast(as_decimal))
    dec_qrels = qrels.set_column(2, "grade", qrels.column("grade").cast(as_decimal))
    want = rankmeter.evaluate(qrels, run, METRICS)
    assert_same(rankmeter.evaluate(dec_qrels, dec_run, METRICS), want)
    path = write_parquet(grouped(dec_run, 1), tmp_path / "dec.parquet")
    assert_same(evaluate_stream(dec_qrels, path, METRICS, progress=False, chunk_rows=9), want)
    con = duckdb.connect()
    con.register("dec_qrels", dec_qrels)
    assert_same(rdb.evaluate(con, f"SELECT * FROM read_parquet('{path}')", "SELECT * FROM dec_qrels", METRICS),
                want)
    with pytest.raises(InputError, match="score column must be numeric, found string"):
        rankmeter.evaluate(qrels, run.set_column(2, "score", pa.array(["x"] * run.num_rows)), METRICS)


@settings(max_examples=200, deadline=None)
@given(ids=st.lists(st.text(alphabet="ab\u00e9\u6587", max_size=20), min_size=1, max_size=40),
       cut=st.integers(0, 40), block=st.integers(1, 9))
def test_a_signature_depends_on_the_string_alone(ids, cut, block) -> None:
    # read in place or from the padded tail copy, sliced or not, in blocks or not: the same signature
    alone = np.array([string_signature(pa.array([s]))[0] for s in ids], dtype=np.uint64)
    arr = pa.array(ids)
    np.testing.assert_array_equal(string_signature(arr), alone)
    np.testing.assert_array_equal(string_signature(arr.slice(min(cut, len(ids))), block=block), alone[cut:])


def test_integer_ids_of_a_parquet_file_are_matched_as_their_decimal_text(tmp_path: Path) -> None:
    # Parquet blocks keep integer ids as numbers for the evaluation core; the values equal those of the
    # same rows with the ids written as text, in the in-process file route and the streaming engine
    rng = np.random.default_rng(4)
    users = np.repeat(np.arange(-3, 57, dtype=np.int64), 30)
    items = np.concatenate([rng.choice(500, 30, replace=False) for _ in range(60)]).astype(np.int64)
    scores = np.round(rng.random(len(users)), 2)  # ties, broken by the ids' text
    pq.write_table(pa.table({"query": users, "item": items, "score": scores}), tmp_path / "ints.parquet",
                   row_group_size=700)
    pq.write_table(pa.table({"query": users.astype(str), "item": items.astype(str), "score": scores}),
                   tmp_path / "text.parquet", row_group_size=700)
    qrels = {str(u): {str(i): int(g) for i, g in zip(rng.choice(500, 12, replace=False), rng.integers(0, 3, 12))}
             for u in range(-3, 60)}
    qrels["5"]["007"] = 2  # not the decimal text of 7: never matches item 7
    metrics = ["ndcg@10", "ap", "P@5", "rr"]
    want = rankmeter.evaluate(qrels, rankmeter.read_run(tmp_path / "text.parquet"), metrics)
    for got in (rankmeter.evaluate(qrels, tmp_path / "ints.parquet", metrics, threads=2),
                rankmeter.evaluate_stream(qrels, tmp_path / "ints.parquet", metrics, chunk_rows=500, progress=False)):
        assert got.queries == want.queries
        for m in metrics:
            np.testing.assert_array_equal(got.values[m], want.values[m], err_msg=m)


def test_a_missing_integer_id_in_parquet_names_its_row(tmp_path: Path) -> None:
    pq.write_table(pa.table({"query": pa.array([1, 1, None], pa.int64()), "item": pa.array([1, 2, 3], pa.int64()),
                             "score": [3.0, 2.0, 1.0]}), tmp_path / "r.parquet")
    for call in (lambda: rankmeter.evaluate({"1": {"1": 1}}, tmp_path / "r.parquet", ["ndcg"]),
                 lambda: rankmeter.evaluate_stream({"1": {"1": 1}}, tmp_path / "r.parquet", ["ndcg"], progress=False)):
        with pytest.raises(InputError, match="query id is missing") as err:
            call()
        assert err.value.line == 3
