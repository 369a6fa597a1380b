"""The experiment reads propensities given per (user, item) for the metrics with propensity=given."""

from __future__ import annotations

import pyarrow as pa
import pytest

import rankmeter
from rankmeter.datasets import movielens100k_like


def test_given_propensities_reach_the_metrics() -> None:
    table = movielens100k_like(0).interactions
    users = [str(u) for u in table.column("user").to_pylist()]
    items = [str(i) for i in table.column("item").to_pylist()]
    ones = pa.table({"user": users, "item": items, "propensity": [1.0] * len(users)})
    half = pa.table({"user": users, "item": items, "propensity": [0.5] * len(users)})
    metrics = ["recall@10", "ips_recall(propensity=given)@10", "snips_recall(propensity=given)@10"]
    kw = dict(recommenders=["popular"], metrics=metrics, baseline=None, split="holdout")
    res = rankmeter.experiment(table, propensities=ones, **kw)
    means = res.results["popular"].mean
    # every pair observed for sure: the weighted estimates are the plain recall
    assert means["ips_recall(propensity=given)@10"] == pytest.approx(means["recall@10"], abs=1e-12)
    assert means["snips_recall(propensity=given)@10"] == pytest.approx(means["recall@10"], abs=1e-12)
    # a uniform propensity leaves the self-normalised estimate unchanged: the table was read, not ignored
    res2 = rankmeter.experiment(table, propensities=half, **kw)
    assert res2.results["popular"].mean["snips_recall(propensity=given)@10"] == pytest.approx(
        means["recall@10"], abs=1e-12)
    with pytest.raises(rankmeter.InputError):  # pairs without a propensity are named, never guessed
        rankmeter.experiment(table, propensities=ones.slice(0, 10), **kw)
