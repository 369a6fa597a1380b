"""EASE, ALS and user-kNN: each equals a plain reading of its model on small data, and each beats
popularity by at least 10% (relative) on ndcg@10 and recall@20 on movielens100k_like(0)."""

from __future__ import annotations

import numpy as np
import pytest

import rankmeter
from rankmeter.datasets import movielens100k_like
from rankmeter.recsys.recommenders import ALS, EASE, UserKNN, make_recommender
from rankmeter.recsys.recommenders.als import _solve_side

TRAIN = {"user": ["u1", "u1", "u2", "u2", "u2", "u3", "u3", "u4"],
         "item": ["a", "b", "a", "c", "d", "b", "c", "d"]}


def test_ease_equals_the_constrained_ridge_solution_column_by_column() -> None:
    rec = EASE(l2=2.0).fit(TRAIN)
    x = rec.data.matrix.toarray()
    m = x.shape[1]
    for j in range(m):
        others = [i for i in range(m) if i != j]
        xo = x[:, others]
        b = np.linalg.solve(xo.T @ xo + 2.0 * np.eye(m - 1), xo.T @ x[:, j])
        assert rec.weights is not None
        assert np.allclose(rec.weights[others, j], b, atol=1e-12) and rec.weights[j, j] == 0.0


def test_als_half_step_equals_one_solve_per_row() -> None:
    rec = ALS(factors=3, iterations=1).fit(TRAIN)
    x = rec.data.matrix.tocsr()
    rng = np.random.default_rng(1)
    y = rng.normal(size=(x.shape[1], 3))
    got = _solve_side(y, x, 10.0, 0.5)
    for u in range(x.shape[0]):
        yu = y[x[u].indices]
        a = y.T @ y + 10.0 * yu.T @ yu + 0.5 * np.eye(3)
        assert np.allclose(got[u], np.linalg.solve(a, 11.0 * yu.sum(axis=0)), atol=1e-12)
    a1 = ALS(factors=4, seed=3).fit(TRAIN).recommend(["u1", "u4"], k=2).to_pydict()
    a2 = ALS(factors=4, seed=3).fit(TRAIN).recommend(["u1", "u4"], k=2).to_pydict()
    assert a1 == a2


def test_userknn_scores_by_hand() -> None:
    rec = UserKNN(neighbors=2).fit(TRAIN)
    sets = {"u1": {"a", "b"}, "u2": {"a", "c", "d"}, "u3": {"b", "c"}, "u4": {"d"}}

    def sim(u: str, v: str) -> float:
        return len(sets[u] & sets[v]) / np.sqrt(len(sets[u]) * len(sets[v]))

    # u1's neighbours: u3 (0.5) and u2 (0.408); c gets both, d only u2's
    got = rec.recommend(["u1"], k=2).to_pydict()
    assert got["item"] == ["c", "d"]
    assert got["score"] == pytest.approx([sim("u1", "u3") + sim("u1", "u2"), sim("u1", "u2")])


def test_names_and_parameters() -> None:
    assert repr(make_recommender("ease", {"l2": 10})) == "EASE(l2=10)"
    assert isinstance(make_recommender("mf"), ALS) and isinstance(make_recommender("user_knn"), UserKNN)
    with pytest.raises(rankmeter.ParameterError, match="'l2' parameter of EASE"):
        EASE(l2=0)
    with pytest.raises(rankmeter.ParameterError, match="'factors' parameter of ALS"):
        ALS(factors=0)


@pytest.mark.slow
def test_each_beats_popularity_by_ten_percent() -> None:
    data = movielens100k_like(0).interactions
    res = rankmeter.experiment(data, split="temporal", recommenders=["popular", "ease", "als", "userknn"],
                               metrics=["ndcg@10", "recall@20"], k=20, baseline=None, seed=0)
    pop = res.results["popular"].mean
    for name in ("ease", "als", "userknn"):
        mine = res.results[name].mean
        for metric in ("ndcg@10", "recall@20"):
            assert mine[metric] >= 1.10 * pop[metric], (name, metric, mine[metric], pop[metric])
