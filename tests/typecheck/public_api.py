"""Calls of the public API as a user's code writes them, with the types a type checker must see.

Never run: :mod:`tests.typing.test_public_types` runs mypy over this file (strict, the
project's configuration) and fails on any error, so ``assert_type`` fails when a public
function's annotation changes, and in particular when it becomes ``Any``. The lazily loaded
names (``rankmeter.Comparison``, ``rankmeter.evaluate_stream``, ...) are checked too: they
must be visible to type checkers (their ``TYPE_CHECKING`` imports).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, assert_type

import numpy as np
import pandas as pd

import rankmeter
import rankmeter.torch
from rankmeter import Coverage, Qrels, Result, Run
from rankmeter.compare import Comparison, PairTest
from rankmeter.experiment import ExperimentResult
from rankmeter.io import read_qrels, read_run
from rankmeter.metrics.agreement import RBOResult
from rankmeter.metrics.registry import Metric
from rankmeter.ratings.evaluate import RatingsResult
from rankmeter.split import Folds, Split, holdout, kfold, leave_k_out, strong, temporal
from rankmeter.split.strong import StrongSplit


def readers(qrels_path: str, run_path: str) -> tuple[Qrels, Run]:
    qrels = read_qrels(qrels_path)
    assert_type(qrels, Qrels)
    run = read_run(run_path)
    assert_type(run, Run)
    assert_type(rankmeter.read_qrels(qrels_path), Qrels)
    assert_type(rankmeter.read_run(run_path), Run)
    assert_type(rankmeter.read_interactions("u.data"), rankmeter.Interactions)
    return qrels, run


def evaluation(qrels: Qrels, run: Run) -> None:
    result = rankmeter.evaluate(qrels, run, ["ndcg@10", "P@5"])
    assert_type(result, Result)
    assert_type(result.mean, dict[str, float])
    assert_type(result.values, Mapping[str, np.ndarray])
    assert_type(result.per_query, pd.DataFrame)
    assert_type(result.coverage, Coverage | None)
    assert_type(result.to_dict(), dict[str, Any])
    assert_type(rankmeter.parse_metric("ndcg@10"), Metric)
    assert_type(rankmeter.evaluate_stream(qrels, "run.txt", ["ap"]), Result)
    assert_type(rankmeter.evaluate_ratings([(3, 2.5)], None, ["mae"]), RatingsResult)
    assert_type(rankmeter.evaluate_ratings([(3, 2.5)], None, ["mae"]).mean, dict[str, float])


def single_lists() -> None:
    assert_type(rankmeter.metrics.ndcg(["a", "b"], {"a": 1}, k=10), float)
    assert_type(rankmeter.metrics.mae([3.0], [2.5]), float)
    assert_type(rankmeter.metrics.rbo(["a", "b"], ["b", "a"]), RBOResult)


def comparison(qrels: Qrels, a: Run, b: Run) -> None:
    cmp = rankmeter.compare(qrels, {"a": a, "b": b}, ["ndcg@10"])
    assert_type(cmp, Comparison)
    assert_type(cmp, rankmeter.Comparison)
    assert_type(cmp.test("ndcg@10", "a", "b"), PairTest)


def experiment(data: dict[str, list[str]]) -> None:
    exp = rankmeter.experiment(data)
    assert_type(exp, ExperimentResult)
    assert_type(exp, rankmeter.ExperimentResult)


def splitting(data: dict[str, list[str]]) -> None:
    assert_type(holdout(data, test_fraction=0.2), Split)
    assert_type(temporal(data), Split)
    assert_type(leave_k_out(data), Split)
    assert_type(kfold(data), Folds)
    assert_type(strong(data), StrongSplit)
    assert_type(rankmeter.split.holdout(data), Split)


def tensors(scores: Any, relevant: Any, users: Any, items: Any) -> None:
    assert_type(rankmeter.torch.evaluate(scores, relevant, ["ndcg@10"]), Result)
    assert_type(rankmeter.torch.topk(users, items, 10), Run)


def fusion(qrels: Qrels, a: Run, b: Run) -> None:
    from rankmeter.fusion import OptimizeResult

    assert_type(rankmeter.fuse([a, b], "rrf"), Run)
    assert_type(rankmeter.fuse({"a": a, "b": b}, "wsum", weights=[0.3, 0.7], depth=10), Run)
    res = rankmeter.fuse_optimize(qrels, [a, b], "wsum", "ndcg@10", folds=3)
    assert_type(res, OptimizeResult)
    assert_type(res.heldout, float)
    assert_type(res.fuse([a, b]), Run)
