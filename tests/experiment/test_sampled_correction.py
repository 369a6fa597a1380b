"""Corrected sampled metrics: the estimators, the experiment's corrected mode, its labels and flip risk."""

from __future__ import annotations

import math
import subprocess
import sys

import numpy as np
import pytest

import rankmeter
from rankmeter._errors import ParameterError
from rankmeter.recsys.pipeline import experiment
from rankmeter.recsys.sampled import correct


def test_none_is_the_plain_sampled_metric() -> None:
    ranks = [[1, 4], [12], [2, 11, 30]]
    above = [[0, 1], [0], [0, 1, 2]]
    est = correct(ranks, 500, 99, metric="ndcg@10", method="none", above=above)
    want = []
    for rs, ab in zip(ranks, above):
        dcg = sum(1 / math.log2(r + a + 1) for r, a in zip(rs, ab) if r + a <= 10)
        ideal = sum(1 / math.log2(j + 1) for j in range(1, min(len(rs), 10) + 1))
        want.append(dcg / ideal)
    np.testing.assert_allclose(est.per_user, want, rtol=1e-12)
    rec = correct(ranks, 500, 99, metric="recall@10", method="none", above=above)
    assert rec.per_user.tolist() == [1.0, 0.0, 1 / 3]  # 2 + 0, 11 + 1 = 12, 30 + 2
    assert rec.label == "sampled N=99: inflates scores vs full ranking"


@pytest.mark.parametrize("metric", ["recall@10", "ndcg@10"])
def test_corrections_recover_a_known_full_ranking(metric: str) -> None:
    """Full ranks from a known distribution, sampled ranks drawn as the protocol draws them: the corrected
    estimates are far closer to the full-ranking value than the plain sampled one."""
    rng = np.random.default_rng(5)
    n_full, n = 2000, 100
    full = np.minimum(1 + rng.geometric(1 / 40, size=3000), n_full)  # a recommender that ranks well
    sampled = 1 + rng.binomial(n, (full - 1) / (n_full - 1))
    k = 10
    gain = (full <= k) / (np.log2(full + 1) if metric.startswith("ndcg") else 1.0)
    truth = gain.mean()
    ranks = [[int(r)] for r in sampled]
    plain = correct(ranks, n_full, n, metric=metric, method="none").mean
    for method in ("bv", "mle"):
        est = correct(ranks, n_full, n, metric=metric, method=method)
        assert abs(est.mean - truth) * 3 < abs(plain - truth), (method, est.mean, truth, plain)
        assert est.label == f"sampled N=100, corrected ({method})"


def test_parameters_are_checked() -> None:
    with pytest.raises(ParameterError, match="'method' parameter of correct"):
        correct([[1]], 100, 10, method="best")
    with pytest.raises(ParameterError, match="recall@k, ndcg@k or precision@k"):
        correct([[1]], 100, 10, metric="map@10")
    with pytest.raises(ParameterError, match=r"\[1, n_sampled \+ 1\]"):
        correct([[12]], 100, 10, metric="recall@5")
    with pytest.raises(ParameterError, match="n_items must exceed n_sampled"):
        correct([[1]], 10, 10, metric="recall@5")
    with pytest.raises(ParameterError, match="sampled_correction.*needs sampled"):
        experiment(rankmeter.datasets.movielens100k_like(0), sampled_correction="bv")


@pytest.fixture(scope="module")
def ml100k():
    data = rankmeter.datasets.movielens100k_like(0)
    metrics = ["recall@10", "ndcg@10"]
    recs = ("popular", "itemknn")
    full = experiment(data, recommenders=recs, metrics=metrics)
    plain = experiment(data, recommenders=recs, metrics=metrics, sampled=100)
    mle = experiment(data, recommenders=recs, metrics=metrics, sampled=100, sampled_correction="mle")
    return full, plain, mle


def test_done_when_on_movielens100k_like(ml100k) -> None:
    """The corrected estimate cuts the plain sampled estimate's error by at least 3x, and orders the two
    recommenders as full ranking does (figures in docs/unbiased.md)."""
    full, plain, mle = ml100k
    for metric in ("recall@10", "ndcg@10"):
        for name in ("popular", "itemknn"):
            truth = full.results[name].mean[metric]
            err_plain = abs(plain.results[name].mean[metric] - truth)
            err_mle = abs(mle.results[name].mean[metric] - truth)
            assert err_mle * 3 <= err_plain, (metric, name, truth, err_plain, err_mle)
        full_order = full.results["itemknn"].mean[metric] > full.results["popular"].mean[metric]
        assert (mle.results["itemknn"].mean[metric] > mle.results["popular"].mean[metric]) == full_order


def test_corrected_results_carry_their_label_and_flip_risk(ml100k) -> None:
    _full, plain, mle = ml100k
    assert mle.mode == "sampled N=100, seed=0, corrected (mle)"
    assert "corrected (mle)" in mle.to_dict()["mode"]
    assert mle.to_csv().splitlines()[1].startswith("sampled N=100, seed=0, corrected (mle)") or \
        "corrected (mle)" in mle.to_csv()
    assert any("recall@10: sampled N=100, corrected (mle)" in n for n in mle.results["popular"].notes)
    fr = mle.flip_risk["recall@10"]
    other = next(iter(fr))
    assert 0.0 <= fr[other]["flip_risk"] <= 1.0
    assert any("chance the order flips under full ranking" in n for n in mle.notes)
    # plain sampled comparisons get the flip risk too, from the mle estimates (their values stay plain)
    assert plain.flip_risk["ndcg@10"][other]["method"] == "mle" and mle.flip_risk["ndcg@10"][other]["method"] == "mle"
    assert plain.results["popular"].mean["recall@10"] > 0.3
    assert any(n.startswith("corrected (mle) estimates of the full-ranking values: recall@10, ndcg@10") for n in mle.notes)


def test_cli_sampled_correction(tmp_path) -> None:
    path = tmp_path / "d.csv"
    rng = np.random.default_rng(0)
    rows = {(f"u{u}", f"i{int(i)}") for u in range(60) for i in rng.zipf(1.5, size=25) % 150}
    path.write_text("user,item\n" + "".join(f"{u},{i}\n" for u, i in sorted(rows)))
    proc = subprocess.run([sys.executable, "-m", "rankmeter", "run-experiment", "-i", str(path), "--split", "holdout",
                           "-r", "popular", "-r", "itemknn", "-m", "recall@10", "-m", "ndcg@10", "--sampled", "50",
                           "--sampled-correction", "bv", "--no-report", "--no-progress", "--format", "json"],
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert "sampled N=50, seed=0, corrected (bv)" in proc.stderr
    import json
    out = json.loads(proc.stdout)
    assert out["mode"] == "sampled N=50, seed=0, corrected (bv)" and "recall@10" in out["flip_risk"]
    bad = subprocess.run([sys.executable, "-m", "rankmeter", "run-experiment", "-i", str(path),
                          "--sampled-correction", "bv", "--no-report"], capture_output=True, text=True)
    assert bad.returncode == 2 and "needs sampled" in bad.stderr


# ----------------------------------------------------------------------------- sampling protocols

from rankmeter.recsys.sampled import sample_negatives  # noqa: E402


def _toy():
    test = {"user": ["u1", "u1", "u2"], "item": ["a", "b", "c"]}
    known = {"user": ["u1", "u1", "u2", "u1", "u3", "u3", "u4", "u4", "u5"],
             "item": ["a", "b", "c", "d", "e", "e2", "e", "e2", "e"]}
    return test, known


def test_per_positive_draws_n_per_held_out_item() -> None:
    test, known = _toy()
    cat = ["a", "b", "c", "d", "e", "e2", "f", "g", "h", "i"]
    c = sample_negatives(test, n=2, seed=0, interactions=known, catalog=cat, per="positive")
    m = c.to_mapping()
    assert c.negatives.tolist() == [4, 2]  # u1 has 2 held-out items, u2 one
    assert len(m["u1"]) == 2 + 4 and not ({"a", "b", "d"} & set(m["u1"][2:]))
    assert c.label == "sampled (N=2 per held-out item, seed=0): inflates scores vs full ranking"


def test_popularity_proportional_negatives() -> None:
    test, known = _toy()
    cat = ["a", "b", "c", "d", "e", "e2", "f", "g"]
    counts = {"e": 0, "e2": 0}
    for seed in range(300):
        c = sample_negatives(test, n=1, seed=seed, interactions=known, catalog=cat, strategy="popularity")
        neg = c.to_mapping()["u2"][1:]
        assert neg and neg[0] in ("a", "b", "d", "e", "e2")  # never f, g: nobody interacted with them
        if neg[0] in counts:
            counts[neg[0]] += 1
    # e is interacted with 3 times, e2 twice: drawn about 3:2
    assert 1.1 < counts["e"] / counts["e2"] < 2.2, counts
    assert "popularity-proportional" in c.label
    with pytest.raises(ParameterError, match="'strategy' parameter"):
        sample_negatives(test, n=1, strategy="pop")


def test_experiment_protocols_are_labelled() -> None:
    data = rankmeter.datasets.synthetic(n_users=60, n_items=120, seed=2)
    res = experiment(data, recommenders=("popular",), metrics=["recall@10"], sampled=20, sampled_per="positive",
                     sampled_strategy="popularity", baseline=None)
    assert res.mode == "sampled (N=20 per held-out item, popularity-proportional, seed=0): inflates scores vs full ranking"
    with pytest.raises(ParameterError, match="needs sampled_strategy='uniform'"):
        experiment(data, sampled=20, sampled_strategy="popularity", sampled_correction="bv")
    cor = experiment(data, recommenders=("popular", "itemknn"), metrics=["recall@10"], sampled=20,
                     sampled_per="positive", sampled_correction="mle", n_resamples=100)
    assert cor.mode == "sampled N=20 per held-out item, seed=0, corrected (mle)"


def test_items_outside_the_candidates_do_not_count_as_negatives() -> None:
    data = rankmeter.datasets.synthetic(n_users=60, n_items=120, seed=2)
    res = experiment(data, k=5, sampled=20, sampled_correction="bv", baseline=None, recommenders={
        "popular": "popular",
        "all_items": lambda tr, users, k: {u: [str(i) for i in range(1, 60)] for u in users}})
    assert res.validation["all_items"].outside_candidates > 0
    r = res.results["all_items"]
    # pop_lift compares the list's mean popularity with the profile's: undefined (nan) for an empty list
    empty = np.array([len(res.runs["all_items"].to_lists().get(u, [])) == 0 for u in r.queries])
    assert empty.any() and np.array_equal(np.isnan(r.values["pop_lift@5"]), empty)
    assert all(np.isfinite(v).all() for m, v in r.values.items() if m != "pop_lift@5")
