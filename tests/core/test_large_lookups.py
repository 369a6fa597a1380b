"""The shortcuts taken for millions of queries (issue 32 item 5), against the plain operations they replace.

Each helper has a cheap route for large inputs (sorted searches, signatures instead of hash tables,
work in blocks); the inputs here are large enough to take it, and the answer must be the plain one.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
from hypothesis import given, settings
from hypothesis import strategies as st

from rankmeter.cli.trec_eval import _seqsum
from rankmeter.data import Qrels, Run
from rankmeter.data.ids import distinct_ids
from rankmeter.data.table import search_sorted
from rankmeter.evaluation import Engine
from rankmeter.metrics.registry import parse_metrics
from rankmeter.pytrec_eval import near_rounding


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n_table=st.sampled_from([10, 70_000, 200_000]),
       n_keys=st.sampled_from([5, 1023, 1024, 50_000]), ascending=st.booleans())
def test_search_sorted_is_numpy_s_searchsorted(seed: int, n_table: int, n_keys: int, ascending: bool) -> None:
    rng = np.random.default_rng(seed)
    table = np.sort(rng.integers(0, 2**64 - 1, n_table, dtype=np.uint64, endpoint=True))
    keys = np.concatenate((table[rng.integers(0, n_table, n_keys // 2)],  # hits, misses, repeats, the ends
                           rng.integers(0, 2**64 - 1, n_keys - n_keys // 2, dtype=np.uint64, endpoint=True)))
    keys[: min(3, n_keys)] = [0, 2**64 - 1, table[0]][: min(3, n_keys)]
    if ascending:
        keys.sort()
    got = search_sorted(table, keys)
    assert got.tolist() == np.searchsorted(table, keys).tolist()


def _column(kind: str, n: int, rng: np.random.Generator) -> list[str]:
    if kind == "one a query":  # a run of 2M one-item queries, in small
        return [str(i) for i in range(n)]
    if kind == "grouped":
        return [f"q{i}" for i in np.repeat(np.arange(n // 3 + 1), 3)[:n]]
    if kind == "comes back":  # grouped, but one query id again at the end
        return [str(i) for i in range(n - 1)] + ["17"]
    if kind == "one id":
        return ["d"] * n
    return [str(x) for x in rng.integers(0, n // 2, n)]  # any order


@settings(max_examples=8, deadline=None)
@given(kind=st.sampled_from(["one a query", "grouped", "comes back", "one id", "shuffled"]),
       n=st.sampled_from([100, 65_536, 70_001]), seed=st.integers(0, 2**32 - 1), chunks=st.booleans())
def test_distinct_ids_is_arrow_s_unique(kind: str, n: int, seed: int, chunks: bool) -> None:
    ids = pa.array(_column(kind, n, np.random.default_rng(seed)), pa.string())
    given_ids = pa.chunked_array([ids.slice(0, n // 3), ids.slice(n // 3)]) if chunks else ids
    got = distinct_ids(given_ids)
    assert got.type == pa.string()
    assert got.to_pylist() == pc.unique(ids).to_pylist()  # the same ids, in order of first appearance


@settings(max_examples=60, deadline=None)
@given(queries=st.lists(st.lists(st.tuples(st.integers(0, 9), st.integers(-1, 3)), min_size=1, max_size=5,
                                 unique_by=lambda t: t[0]), min_size=1, max_size=8),
       descending=st.booleans())
def test_the_engine_s_judgments_by_grade_match_a_full_sort(queries: list[list[tuple[int, int]]],
                                                         descending: bool) -> None:
    # the engine sorts the judgments by grade only where some query's grades rise: when every query's
    # grades already descend (one judgment a query, or judgments written best first) it keeps them as they are
    if descending:
        queries = [sorted(q, key=lambda t: -t[1]) for q in queries]
    rows = [(f"q{i}", f"d{item}", grade) for i, q in enumerate(queries) for item, grade in q]
    qrels = Qrels.from_columns([r[0] for r in rows], [r[1] for r in rows], [r[2] for r in rows])
    engine = Engine(qrels, parse_metrics(["ndcg@3", "map", "Rprec", "P@2"]), queries="qrels")
    for q in range(qrels.n_queries):
        a, b = int(qrels.offsets[q]), int(qrels.offsets[q + 1])
        assert engine._grade_desc[a:b].tolist() == sorted(qrels.grades[a:b].tolist(), reverse=True)
    # and the values of the fast path (which reads that order) are those of the exact path
    run_rows = [(f"q{i}", f"d{d}", float(10 - d)) for i in range(len(queries)) for d in range(0, 10, 2)]
    table = pa.table({"query": [r[0] for r in run_rows], "item": [r[1] for r in run_rows],
                      "score": [r[2] for r in run_rows]})
    fast = engine.evaluate_table(table)
    exact = engine.evaluate_run(Run.from_columns(table.column("query"), table.column("item"), table.column("score")))
    assert fast.path == "fast"
    order_fast = np.argsort(np.asarray(fast.queries.to_pylist() if isinstance(fast.queries, pa.Array)
                                       else fast.queries, dtype=object))
    order_exact = np.argsort(np.asarray(exact.queries.to_pylist() if isinstance(exact.queries, pa.Array)
                                        else exact.queries, dtype=object))
    for m in fast.values:
        assert fast.values[m][order_fast].tolist() == exact.values[m][order_exact].tolist(), m


@settings(max_examples=60, deadline=None)
@given(values=st.lists(st.floats(-1e6, 1e6) | st.sampled_from([0.1, 1e16, -1e16, 1e-300]), max_size=200))
def test_seqsum_adds_left_to_right(values: list[float]) -> None:
    total = 0.0
    for x in values:
        total += x
    assert _seqsum(np.array(values, dtype=np.float64)) == total


def test_seqsum_carries_the_total_across_its_blocks() -> None:
    values = np.random.default_rng(3).random(200_003) * 10.0 ** np.random.default_rng(4).integers(-8, 8, 200_003)
    total = 0.0
    for x in values.tolist():
        total += x
    assert _seqsum(values) == total
    assert _seqsum(values) != float(np.sum(values))  # (numpy's pairwise sum: another last bit, here)


def test_near_rounding_in_blocks_is_the_formula() -> None:
    rng = np.random.default_rng(5)
    x = np.concatenate((np.round(rng.random(150_000), 5), rng.random(50_000), [np.nan, np.inf, -0.00125]))
    y = np.abs(x) * 1e4
    with np.errstate(invalid="ignore"):
        want = np.abs(y - np.floor(y) - 0.5) < 1e-7 + 1e-11 * y
    got = near_rounding(x)
    assert got.dtype == bool and got.tolist() == want.tolist()
    assert 1000 < int(got.sum()) < len(x)


@settings(max_examples=60, deadline=None)
@given(chunks=st.lists(st.lists(st.integers(0, 300), max_size=40), max_size=30), probe=st.lists(st.integers(0, 300)))
def test_finished_queries_are_a_set(chunks: list[list[int]], probe: list[int]) -> None:
    # the signatures of the queries a stream emitted, kept as sorted runs merged like a binary counter
    from rankmeter.engines.stream import _Finished

    finished, emitted = _Finished(), set()
    for chunk in chunks:
        keys = np.array(chunk + probe, dtype=np.uint64)
        assert finished.seen(keys).tolist() == [k in emitted for k in chunk + probe]
        finished.add(np.array(chunk, dtype=np.uint64))
        emitted.update(chunk)
        runs = [len(r) for r in finished.runs]
        assert all(a > 2 * b for a, b in zip(runs, runs[1:], strict=False)), runs  # (few runs: log2 of the chunks)
        assert all(bool((r[1:] >= r[:-1]).all()) for r in finished.runs)
