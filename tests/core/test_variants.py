"""Variants that reproduce other tools' conventions (issue 26): pooled means, RecTools' ideal of k items,
GAUC, and the parameters with a word for a number (entropy(base=e)).

Oracles: plain-Python readings of each tool's definition, written out per query; scikit-learn where it
computes the same thing (roc_auc_score for tied_pairs=half).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings

import rankmeter
from rankmeter.metrics.registry import parse_metric

from ..strategies import qrels_and_run, ranked_items


def _relevant(j: dict, rel: float = 1.0) -> set:
    return {d for d, g in j.items() if g >= 0 and g >= rel}


@settings(max_examples=60, deadline=None)
@given(data=qrels_and_run())
def test_pooled_precision_and_recall_are_ratios_of_sums(data) -> None:
    """implicit's precision_at_k: sum of hits over sum of min(k, R); recall pooled: sum of hits over sum of R."""
    qrels, run = data
    for k in (1, 3, 10):
        names = [f"p(norm=min,mean=pooled)@{k}", f"p(norm=min)@{k}", f"r(mean=pooled)@{k}", f"p(mean=pooled)@{k}"]
        res = rankmeter.evaluate(qrels, run, names)
        hits = den_min = den_rel = den_k = 0.0
        for q in res.queries:
            ranking = ranked_items(run.get(q, {}))[:k]
            rel = _relevant(qrels[q])
            h = sum(1 for d in ranking if d in rel)
            hits += h
            den_min += min(k, len(rel))
            den_rel += len(rel)
            den_k += k
        want = hits / den_min if den_min else math.nan
        got = res.mean[names[0]]
        assert (math.isnan(want) and math.isnan(got)) or abs(got - want) <= 1e-12
        assert abs(res.mean[names[2]] - (hits / den_rel if den_rel else math.nan)) <= 1e-12 or not den_rel
        assert abs(res.mean[names[3]] - hits / den_k) <= 1e-12 if res.queries else True
        # the per-query values are the same either way: only the summary pools
        assert np.array_equal(res.values[names[0]], res.values[names[1]])


def test_pooled_differs_from_the_mean_and_says_so() -> None:
    qrels = {"u1": {"a": 1, "b": 1, "c": 1}, "u2": {"x": 1}}
    run = {"u1": ["a", "z", "b"], "u2": ["y", "w", "v"]}
    res = rankmeter.evaluate(qrels, run, ["p(norm=min,mean=pooled)@2", "p(norm=min)@2"])
    assert res.mean["p(norm=min,mean=pooled)@2"] == pytest.approx(1 / 3, abs=1e-15)  # (1 + 0) / (2 + 1)
    assert res.mean["p(norm=min)@2"] == pytest.approx((1 / 2 + 0) / 2, abs=1e-15)
    assert any("p(norm=min,mean=pooled)@2: pooled" in n for n in res.notes)


@settings(max_examples=60, deadline=None)
@given(data=qrels_and_run())
def test_ndcg_ideal_k_is_rectools_ndcg(data) -> None:
    """RecTools' NDCG (divide_by_achievable=False) on binary judgments: DCG over the DCG of k relevant items."""
    qrels, run = data
    binary = {q: {d: (1.0 if g >= 1 else 0.0) for d, g in j.items()} for q, j in qrels.items()}
    for k in (1, 3, 10):
        res = rankmeter.evaluate(binary, run, f"ndcg(ideal=k)@{k}")
        ideal = sum(1 / math.log2(i + 1) for i in range(1, k + 1))
        for q, v in zip(res.queries, res.values[f"ndcg(ideal=k)@{k}"], strict=True):
            rel = _relevant(binary[q])
            dcg = sum(1 / math.log2(i + 2) for i, d in enumerate(ranked_items(run.get(q, {}))[:k]) if d in rel)
            assert abs(v - dcg / ideal) <= 1e-12, (q, k, v, dcg / ideal)


def test_gauc_weights_each_query_by_its_positives() -> None:
    qrels = {"u1": {"a": 1, "b": 1}, "u2": {"c": 1}, "u3": {"z": 1}, "u4": {"q": 1}}
    run = {"u1": {"a": 3.0, "x": 2.0, "b": 1.0}, "u2": {"c": 1.0, "y": 0.0}, "u3": {"z": 1.0, "w": 1.0},
           "u4": {"q": 1.0}}
    res = rankmeter.evaluate(qrels, run, ["gauc", "gauc(tied_pairs=half)", "gauc(tied_pairs=zero)"])
    # u1: AUC 1/2 with 2 positives; u2: 1 with 1; u3: tied pair; u4 has no negative: left out
    assert res.mean["gauc"] == pytest.approx((2 * 0.5 + 1 + 1) / 4, abs=1e-15)  # id rule: z above w
    assert res.mean["gauc(tied_pairs=half)"] == pytest.approx((2 * 0.5 + 1 + 0.5) / 4, abs=1e-15)
    assert res.mean["gauc(tied_pairs=zero)"] == pytest.approx((2 * 0.5 + 1 + 0) / 4, abs=1e-15)


def test_auc_tied_pairs_half_is_scikit_learn_roc_auc() -> None:
    sk = pytest.importorskip("sklearn.metrics")
    rng = np.random.default_rng(11)
    qrels, run, truth, pred = {}, {}, {}, {}
    for q in range(30):
        n = int(rng.integers(2, 10))
        y = rng.integers(0, 2, size=n)
        y[0], y[1] = 1, 0  # both classes
        s = rng.integers(0, 3, size=n).astype(float)
        qrels[f"q{q}"] = {f"i{j}": int(g) for j, g in enumerate(y)}
        run[f"q{q}"] = {f"i{j}": float(v) for j, v in enumerate(s)}
        truth[f"q{q}"], pred[f"q{q}"] = y, s
    res = rankmeter.evaluate(qrels, run, ["auc(tied_pairs=half)", "auc"])
    for q, v in zip(res.queries, res.values["auc(tied_pairs=half)"], strict=True):
        assert abs(v - sk.roc_auc_score(truth[q], pred[q])) <= 1e-12, q
    assert any(abs(v - sk.roc_auc_score(truth[q], pred[q])) > 1e-6
               for q, v in zip(res.queries, res.values["auc"], strict=True))  # the id rule differs on ties


def test_named_number_in_a_metric_name() -> None:
    assert parse_metric("entropy(base=e)").params["base"] == pytest.approx(math.e, abs=0)
    assert parse_metric("entropy(base=E)") == parse_metric(f"entropy(base={math.e!r})")
    run = {"u1": ["a", "b"], "u2": ["a", "c"]}
    res = rankmeter.evaluate(run, run, ["entropy(normalize=distinct_count,base=e)@2"],
                             context={"catalog": list("abcd")})
    p = np.array([0.5, 0.25, 0.25])
    assert res.mean["entropy(normalize=distinct_count,base=e)@2"] == pytest.approx(-(p * np.log(p)).sum() / 3,
                                                                                 abs=1e-15)
