"""experiment(ties=..., convention=...): the tie rule and a tool's conventions reach every recommender's result."""

from __future__ import annotations

import pytest

from rankmeter import ParameterError
from rankmeter.datasets import synthetic
from rankmeter.experiment import experiment


@pytest.fixture(scope="module")
def small():
    return synthetic(n_users=80, n_items=60, seed=4)


def test_ties_and_convention(small) -> None:
    kw = {"recommenders": ("popular",), "k": 5, "n_resamples": 50, "baseline": None}
    ids = experiment(small, metrics=["ndcg@5", "p@5"], **kw)
    bounds = experiment(small, metrics=["ndcg@5", "p@5"], ties="bounds", **kw)
    res, res_b = ids.results["popular"], bounds.results["popular"]
    assert res.mean == res_b.mean
    for m in ("ndcg@5", "p@5"):
        frame = res_b.tie_bounds[m]
        assert (frame["low"] <= res.per_query[m] + 1e-15).all() and (res.per_query[m] <= frame["high"] + 1e-15).all()
    assert any(n.startswith("ties=bounds") for n in bounds.notes)
    conv = experiment(small, metrics=["precision@5"], convention="implicit", **kw)
    assert "precision@5" in conv.results["popular"].mean
    assert any("pooled" in n for n in conv.results["popular"].notes)
    with pytest.raises(ParameterError, match="not defined for bpref"):
        experiment(small, metrics=["ndcg@5", "bpref"], ties="average", **kw)
