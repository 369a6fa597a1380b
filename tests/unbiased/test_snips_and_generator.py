"""SNIPS estimates on data with known propensities, and the generator of such data."""

from __future__ import annotations

import numpy as np
import pytest

import rankmeter
from rankmeter._errors import ParameterError
from rankmeter.metrics.unbiased.snips import snips
from rankmeter.recsys.recommenders import ItemKNN, MostPopular


def _by_user(table) -> dict[str, set[str]]:
    out: dict[str, set[str]] = {}
    for u, i in zip(table.column("user").to_pylist(), table.column("item").to_pylist()):
        out.setdefault(str(u), set()).add(str(i))
    return out


def test_generator_is_deterministic_and_its_propensities_are_exact() -> None:
    a = rankmeter.datasets.biased_feedback(n_users=300, n_items=200, seed=4)
    b = rankmeter.datasets.biased_feedback(n_users=300, n_items=200, seed=4)
    assert a.train.equals(b.train) and a.test.equals(b.test) and a.propensity == b.propensity
    # train and test are disjoint parts of the relevant pairs; truth = relevant minus train
    rel = set(zip(a.relevant.column("user").to_pylist(), a.relevant.column("item").to_pylist()))
    tr = set(zip(a.train.column("user").to_pylist(), a.train.column("item").to_pylist()))
    te = set(zip(a.test.column("user").to_pylist(), a.test.column("item").to_pylist()))
    truth = set(zip(a.truth.column("user").to_pylist(), a.truth.column("item").to_pylist()))
    assert tr <= rel and te <= rel and not (tr & te) and truth == rel - tr
    # the share of truth pairs observed in test matches the mean propensity of those pairs
    p = np.array([a.propensity[str(i)] for _, i in truth])
    observed = np.array([(u, i) in te for u, i in truth])
    assert abs(observed.mean() - p.mean()) < 4 * np.sqrt(p.mean() * (1 - p.mean()) / len(p))
    # popular items are observed more often: exposure is biased by popularity
    counts = np.bincount(a.relevant.column("item").to_numpy(), minlength=201)[1:]
    obs = np.array([a.observation[str(i + 1)] for i in range(200)])
    assert np.corrcoef(counts, obs)[0, 1] > 0.8
    with pytest.raises(ParameterError, match="exponent"):
        rankmeter.datasets.biased_feedback(exponent=-1)


@pytest.mark.parametrize("rec", [MostPopular, ItemKNN])
def test_snips_is_closer_to_full_information_than_the_plain_estimate(rec) -> None:
    d = rankmeter.datasets.biased_feedback(seed=0)
    truth, observed = _by_user(d.truth), _by_user(d.test)
    users = [u for u in observed if u in truth]
    model = rec()
    model.fit(d.train)
    top = model.recommend(users, 10)
    run: dict[str, list[str]] = {}
    for u, i in zip(top.column("user").to_pylist(), top.column("item").to_pylist()):
        run.setdefault(str(u), []).append(str(i))
    for metric in ("recall@10", "ndcg@10"):
        full = np.mean(list(snips({u: truth[u] for u in users}, run, d.propensity, metric, "plain").values()))
        plain = np.mean(list(snips({u: observed[u] for u in users}, run, d.propensity, metric, "plain").values()))
        sn = np.mean(list(snips({u: observed[u] for u in users}, run, d.propensity, metric, "snips").values()))
        assert abs(sn - full) < abs(plain - full), (metric, full, plain, sn)


def test_snips_ips_matches_the_registry_metric_per_user() -> None:
    relevant = {"u": {"a", "b", "e"}, "v": {"d"}}
    run = {"u": ["a", "c", "b", "d"], "v": ["c", "d"]}
    prop = {"a": 0.5, "b": 0.25, "c": 1.0, "d": 0.1, "e": 0.3}
    res = rankmeter.evaluate({u: {i: 1 for i in s} for u, s in relevant.items()}, run,
                             ["ips_recall(propensity=given)@3", "ips_ndcg(propensity=given)@3"],
                             context={"propensity": prop})
    for m, name in (("recall@3", "ips_recall(propensity=given)@3"), ("ndcg@3", "ips_ndcg(propensity=given)@3")):
        mine = snips(relevant, run, prop, m, "ips")
        assert [mine[u] for u in res.queries] == pytest.approx(res.values[name].tolist(), rel=1e-12)
    # snips recall by hand: u finds a (w 2) and b (w 4) of a, b, e (w 1/.3)
    assert snips(relevant, run, prop, "recall@3")["u"] == pytest.approx(6 / (6 + 1 / 0.3))
    with pytest.raises(ParameterError, match="recall@k or ndcg@k"):
        snips(relevant, run, prop, "map@3")
