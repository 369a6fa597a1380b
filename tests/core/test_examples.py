"""Every worked example declared in the registry (the seeds' examples among them) is a test."""

from __future__ import annotations

import pytest

import rankmeter
from rankmeter.metrics.registry import Example, all_specs

CASES = [
    pytest.param(spec, ex, id=f"{spec.name}-{i}-{ex.note or ''}")
    for spec in all_specs()
    if spec.input == "ranking"
    for i, ex in enumerate(spec.examples)
    if isinstance(ex, Example)
]


def _metric_string(spec, ex: Example) -> str:
    params = ",".join(f"{k}={v}" for k, v in ex.params.items())
    return spec.name + (f"({params})" if params else "") + (f"@{ex.k}" if ex.k is not None else "")


@pytest.mark.parametrize("spec,ex", CASES)
def test_worked_example(spec, ex: Example) -> None:
    metric = _metric_string(spec, ex)
    qrels = {"q": dict(ex.qrels)}
    run = {"q": list(ex.ranking)}
    value = rankmeter.evaluate(qrels, run, [metric], queries="qrels").mean[metric]
    assert value == pytest.approx(ex.value, abs=ex.tol), f"{metric}: {value} != {ex.value} ({ex.note})"


def test_every_ranking_metric_has_an_example() -> None:
    missing = [s.name for s in all_specs() if s.input == "ranking" and s.level == "query" and not s.examples]
    assert not missing, f"metrics without a worked example: {missing}"


def test_hivemall_table_seed_000() -> None:
    """Seed 000's table: three users with rec = [1, 3, 2, 6] and truth = [1, 2, 4]."""
    truth = {u: ["1", "2", "4"] for u in ("1", "2", "3")}
    rec = {u: {"1": 10.0, "3": 8.0, "2": 6.0, "6": 2.0} for u in ("1", "2", "3")}
    expected = {
        "recall": 0.6666666666666666, "recall@2": 0.3333333333333333,
        "precision": 0.5, "precision@2": 0.5,
        "map": 0.5555555555555555, "map@2": 0.3333333333333333,
        "auc": 0.75, "auc@2": 1.0,
        "mrr": 1.0, "mrr@2": 1.0,
        "ndcg": 0.7039180890341349, "ndcg@2": 0.6131471927654585,
    }
    got = rankmeter.evaluate(truth, rec, list(expected)).mean
    for name, value in expected.items():
        assert got[name] == pytest.approx(value, abs=1e-12), name


def test_hivemall_graded_seed_000() -> None:
    grades = {"1": 5.0, "3": 2.0, "2": 4.0, "6": 1.0, "4": 3.0}
    scores = {"1": 10.0, "3": 8.0, "2": 6.0, "6": 2.0, "4": 1.0}
    qrels = {u: grades for u in "123"}
    run = {u: scores for u in "123"}
    got = rankmeter.evaluate(qrels, run, ["ndcg(gain=exp)@2", "ndcg_burges@3"]).mean
    assert got["ndcg(gain=exp)@2"] == pytest.approx(0.8128912838590544, abs=1e-12)
    assert got["ndcg_burges@3"] == pytest.approx(0.9187707805346093, abs=1e-12)


def test_python_recsys_map_seed_002() -> None:
    gt = ["1", "2", "3", "4", "5"]
    runs = {"a": ["1", "3", "5"], "b": ["99", "3", "5"], "c": ["3", "99", "1"]}
    got = rankmeter.evaluate({q: gt for q in runs}, runs, ["ap(norm=retrieved)"]).mean
    assert got["ap(norm=retrieved)"] == pytest.approx(0.805556, abs=1e-6)
