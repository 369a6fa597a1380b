"""A run in rank order but for some tied scores: only the tied rows move, and the values are those of the
exact path (the run built and sorted whole), with the caller's arrays left as they were."""

from __future__ import annotations

from typing import Any

import numpy as np
import pyarrow as pa
from hypothesis import given, settings
from hypothesis import strategies as st

from rankmeter.data import Qrels
from rankmeter.evaluation import Engine

METRICS = ["ndcg@3", "ap", "rr", "P@2", "recall@4", "ndcg"]
IDS = ["a", "b", "ab", "c", "10", "9", "d\u00e9"]


@st.composite
def tied_runs(draw: st.DrawFn) -> dict[str, list[Any]]:
    """Queries whose rows are in descending score order, with ties (+0.0 beside -0.0 among them)."""
    run: dict[str, list[Any]] = {"query": [], "item": [], "score": []}
    judged: dict[str, list[Any]] = {"query": [], "item": [], "grade": []}
    for q in range(draw(st.integers(1, 4))):
        n = draw(st.integers(1, len(IDS)))
        ids = draw(st.lists(st.sampled_from(IDS), min_size=n, max_size=n, unique=True))
        values = sorted(draw(st.lists(st.sampled_from([2.0, 1.0, 0.0, -0.0, -1.0]), min_size=n, max_size=n)),
                        reverse=True)
        run["query"] += [f"q{q}"] * n
        run["item"] += ids
        run["score"] += values
        for i in draw(st.lists(st.sampled_from(ids), unique=True, max_size=n)):
            judged["query"].append(f"q{q}")
            judged["item"].append(i)
            judged["grade"].append(float(draw(st.integers(0, 2))))
    if not judged["query"]:
        judged = {"query": ["q0"], "item": [run["item"][0]], "grade": [1.0]}
    return {"run": run, "judged": judged}


@settings(max_examples=200, deadline=None)
@given(case=tied_runs(), integer_items=st.booleans())
def test_tied_rows_give_the_exact_values(case: dict[str, dict[str, list[Any]]], integer_items: bool) -> None:
    run, judged = case["run"], case["judged"]
    number = {s: i for i, s in enumerate(IDS)}
    # integer ids: the fast path keeps them as numbers (judged as their decimal text)
    items = pa.array([number[s] for s in run["item"]], pa.int64()) if integer_items else pa.array(run["item"])
    judged_items = [str(number[s]) for s in judged["item"]] if integer_items else judged["item"]
    table = pa.table({"query": pa.array(run["query"]), "item": items, "score": pa.array(run["score"], pa.float64())})
    engine = Engine(Qrels.from_columns(judged["query"], judged_items, judged["grade"]), METRICS, queries="run")
    score_before = np.array(run["score"]).tobytes()
    fast = engine.evaluate_table(table)
    exact = engine.evaluate_table(table, force_exact=True)
    assert fast.path == "fast" and exact.path == "exact"
    for m in METRICS:
        assert fast.values[m].tobytes() == exact.values[m].tobytes(), m
    assert table.column("score").to_numpy().tobytes() == score_before


@settings(max_examples=100, deadline=None)
@given(case=tied_runs())
def test_columns_given_by_the_caller_are_not_written(case: dict[str, dict[str, list[Any]]]) -> None:
    """evaluate_columns (the regrouping engine's route) takes writable score and signature arrays: the tie
    move works on copies, and the values are evaluate_table's."""
    from rankmeter.data.ids import string_signature

    run, judged = case["run"], case["judged"]
    engine = Engine(Qrels.from_columns(judged["query"], judged["item"], judged["grade"]), METRICS, queries="run")
    table = pa.table({"query": pa.array(run["query"]), "item": pa.array(run["item"]),
                      "score": pa.array(run["score"], pa.float64())})
    starts = np.flatnonzero(np.r_[True, np.array(run["query"][1:]) != np.array(run["query"][:-1])])
    heads = pa.array([run["query"][i] for i in starts])
    lengths = np.diff(np.r_[starts, len(run["query"])])
    score = np.array(run["score"], dtype=np.float64)
    sig = string_signature(table.column("item"))
    score_before, sig_before = score.tobytes(), sig.tobytes()
    got = engine.evaluate_columns(heads, lengths, score, table.column("item"), np.arange(len(score)), sig)
    want = engine.evaluate_table(table)
    for m in METRICS:
        assert got.values[m].tobytes() == want.values[m].tobytes(), m
    assert score.tobytes() == score_before and sig.tobytes() == sig_before
