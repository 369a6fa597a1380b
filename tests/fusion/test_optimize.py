"""fuse_optimize: the search, the cross-validation against a slow reference, training without the held-out
queries, and a case built to overfit, where the held-out score differs from the tuned-on-everything score."""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rankmeter
from rankmeter import ParameterError
from rankmeter.fusion import fuse, fuse_optimize
from rankmeter.fusion.optimize import train_params


def _data(seed: int, n_queries: int = 12, pool: int = 15) -> tuple[dict[str, dict[str, int]], list[dict[str, Any]]]:
    rng = np.random.default_rng(seed)
    qrels = {f"q{q}": {f"d{d}": int(rng.integers(0, 3)) for d in range(pool)} for q in range(n_queries)}
    runs = [{f"q{q}": {f"d{d}": float(rng.random()) for d in rng.choice(pool, size=10, replace=False)}
             for q in range(n_queries)} for _ in range(2)]
    return qrels, runs


def _cv_reference(qrels: Any, runs: Any, method: str, metric: str, configs: list[dict[str, Any]], folds: int,
                  seed: int) -> tuple[float, list[float], dict[str, Any]]:
    """K-fold cross-validation written plainly: every configuration fused and evaluated with the public API."""
    per_config = []
    for c in configs:
        res = rankmeter.evaluate(qrels, fuse(runs, method, params=c), metric)
        per_config.append(dict(zip(res.queries, next(iter(res.values.values())), strict=True)))
    queries = list(per_config[0])
    order = np.random.default_rng(seed).permutation(len(queries))  # the same shuffle: one draw, after the grid
    held: dict[str, float] = {}
    fold_scores = []
    for part in np.array_split(order, folds):
        test = {queries[i] for i in part}
        train = [q for q in queries if q not in test]
        best = max(range(len(configs)), key=lambda i: (np.mean([per_config[i][q] for q in train]), -i))
        for q in test:
            held[q] = per_config[best][q]
        fold_scores.append(float(np.mean([per_config[best][q] for q in test])))
    best_all = max(range(len(configs)), key=lambda i: (np.mean(list(per_config[i].values())), -i))
    return float(np.mean(list(held.values()))), fold_scores, configs[best_all]


@pytest.mark.parametrize(("method", "grid", "configs"), [
    ("wsum", {"weights": [(0.0, 1.0), (0.3, 0.7), (0.5, 0.5), (0.8, 0.2), (1.0, 0.0)]},
     [{"weights": [a, b]} for a, b in [(0.0, 1.0), (0.3, 0.7), (0.5, 0.5), (0.8, 0.2), (1.0, 0.0)]]),
    ("rrf", {"k": [1, 10, 60]}, [{"k": 1}, {"k": 10}, {"k": 60}]),
])
def test_cross_validation_equals_a_plain_reading(method: str, grid: dict[str, Any], configs: list[dict[str, Any]]) \
        -> None:
    qrels, runs = _data(0)
    res = fuse_optimize(qrels, runs, method, "ndcg@5", grid=grid, folds=3, seed=7)
    held, folds, chosen = _cv_reference(qrels, runs, method, "ndcg@5", configs, 3, 7)
    assert res.heldout == pytest.approx(held, abs=1e-12)
    assert [f.heldout_score for f in res.folds] == pytest.approx(folds, abs=1e-12)
    assert res.params == chosen
    fused = fuse(runs, method, params=res.params)
    assert rankmeter.evaluate(qrels, fused, "ndcg@5").mean["ndcg@5"] == pytest.approx(res.score)


def test_a_case_built_to_overfit_reports_a_lower_held_out_score() -> None:
    """Two runs of pure noise and a fine grid of weights: the best weights on all queries fit the noise, so
    their score on those queries is above what the same search achieves on queries it did not see."""
    qrels, runs = _data(1, n_queries=30)
    res = fuse_optimize(qrels, runs, "wsum", "ndcg@5", step=0.05, folds=5, seed=0)
    assert res.score > res.heldout + 0.02  # 0.5816 tuned on all, 0.5519 held out
    assert np.mean([f.train_score for f in res.folds]) > np.mean([f.heldout_score for f in res.folds])
    assert len({tuple(f.params["weights"]) for f in res.folds}) > 1  # the folds chose differently


def test_the_supervised_methods_train_without_the_held_out_queries() -> None:
    qrels, runs = _data(2)
    res = fuse_optimize(qrels, runs, "posfuse", "ndcg@5", folds=3, seed=1)
    for f in res.folds:
        train = {q: j for q, j in qrels.items() if q not in f.queries}
        assert f.params["probs"] == train_params(train, runs, "posfuse")["probs"]
    assert res.params["probs"] == train_params(qrels, runs, "posfuse")["probs"]
    assert res.fuse(runs).to_dict() == fuse(runs, "posfuse", params=res.params).to_dict()


@pytest.mark.parametrize("method", ["probfuse", "segfuse", "slidefuse", "bayesfuse", "mapfuse"])
def test_every_supervised_method_trains_through_fuse_optimize(method: str) -> None:
    qrels, runs = _data(3, n_queries=6)
    grid = {"n_segments": [2, 5]} if method == "probfuse" else ({"w": [0, 2]} if method == "slidefuse" else None)
    res = fuse_optimize(qrels, runs, method, "map", folds=2, grid=grid)
    fused = fuse(runs, method, params=res.params)
    assert rankmeter.evaluate(qrels, fused, "map").mean["map"] == pytest.approx(res.score)
    assert len(res.folds) == 2 and set(res.folds[0].queries).isdisjoint(res.folds[1].queries)


def test_random_search_is_seeded() -> None:
    qrels, runs = _data(4)
    a = fuse_optimize(qrels, runs, "wsum", "ndcg@5", search="random", n_trials=8, seed=3)
    b = fuse_optimize(qrels, runs, "wsum", "ndcg@5", search="random", n_trials=8, seed=3)
    c = fuse_optimize(qrels, runs, "wsum", "ndcg@5", search="random", n_trials=8, seed=4)
    assert a.trials == b.trials and a.params == b.params and a.heldout == b.heldout
    assert a.trials != c.trials
    assert all(abs(sum(t[0]["weights"]) - 1) < 1e-9 for t in a.trials)


def test_the_weight_grid_is_ranx_s_simplex() -> None:
    qrels, runs = _data(5, n_queries=4)
    res = fuse_optimize(qrels, [*runs, runs[0]], "wsum", "P@5", step=0.5, folds=2)
    got = sorted(tuple(t[0]["weights"]) for t in res.trials)
    want = sorted(w for w in itertools.product([0.0, 0.5, 1.0], repeat=3) if sum(w) == 1.0)
    assert got == want


@pytest.mark.parametrize(("kw", "match"), [
    ({"folds": 50}, "at most the number of evaluated queries"),
    ({"folds": 1}, "'folds' parameter of fuse_optimize must be an int >= 2"),
    ({"grid": {"gamma": [1]}}, "grid names 'gamma', which wsum does not search"),
    ({"step": 0.3}, "must divide 1"),
    ({"search": "bayes"}, "'search' parameter of fuse_optimize must be one of grid, random"),
])
def test_errors(kw: dict[str, Any], match: str) -> None:
    qrels, runs = _data(6, n_queries=5)
    with pytest.raises(ParameterError, match=match):
        fuse_optimize(qrels, runs, "wsum", "ndcg@5", **kw)


def test_rankmeter_exports_it() -> None:
    assert rankmeter.fuse_optimize is fuse_optimize


@settings(max_examples=10)
@given(st.integers(0, 10_000), st.integers(2, 4), st.integers(0, 100))
def test_cross_validation_property(data_seed: int, folds: int, seed: int) -> None:
    """On random judgments and runs, the held-out scores are those of the plain reading, for any folds and seed."""
    qrels, runs = _data(data_seed, n_queries=8, pool=12)
    configs = [{"weights": [a, 1 - a]} for a in (0.0, 0.5, 1.0)]
    res = fuse_optimize(qrels, runs, "wsum", "rr", step=0.5, folds=folds, seed=seed)
    held, fold_scores, chosen = _cv_reference(qrels, runs, "wsum", "rr", configs, folds, seed)
    assert res.heldout == pytest.approx(held, abs=1e-12)
    assert [f.heldout_score for f in res.folds] == pytest.approx(fold_scores, abs=1e-12)
    assert res.params == chosen
