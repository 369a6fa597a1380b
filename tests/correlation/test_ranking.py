"""Correlation of a ranking with graded judgments: the common-items rule, cutoffs, scipy on random runs."""

from __future__ import annotations

import math
import warnings

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

import rankmeter
from rankmeter.metrics import functions as F

ITEMS = [f"d{i}" for i in range(10)]


@st.composite
def case(draw):
    ranking = draw(st.lists(st.sampled_from(ITEMS), unique=True, max_size=10))
    qrels = draw(st.dictionaries(st.sampled_from(ITEMS), st.sampled_from([-1, 0, 1, 1, 2, 3]), min_size=1,
                                 max_size=10))
    if not any(g > 0 for g in qrels.values()):
        qrels[ITEMS[0]] = 1
    return ranking, qrels


def _scipy(f, a, b, **kw) -> float:
    if len(a) < 2:
        return 0.0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        v = float(f(a, b, **kw).statistic)
    return 0.0 if math.isnan(v) else v


@settings(max_examples=150)
@given(data=case(), k=st.sampled_from([None, 2, 5]))
def test_equal_scipy_on_the_common_items(data, k) -> None:
    ranking, qrels = data
    kept = [d for d in (ranking if k is None else ranking[:k]) if d in qrels and qrels[d] >= 0]
    system = [-i for i in range(len(kept))]
    grades = [qrels[d] for d in kept]
    suffix = "" if k is None else f"@{k}"
    names = [f"spearman{suffix}", f"kendall{suffix}", f"kendall(variant=c){suffix}",
             f"kendall_distance(normalize=false){suffix}"]
    got = rankmeter.evaluate({"q": qrels}, {"q": ranking}, names).mean
    assert got[names[0]] == pytest.approx(_scipy(stats.spearmanr, system, grades), abs=1e-12)
    assert got[names[1]] == pytest.approx(_scipy(stats.kendalltau, system, grades), abs=1e-12)
    assert got[names[2]] == pytest.approx(_scipy(stats.kendalltau, system, grades, variant="c"), abs=1e-12)
    dis = sum(1 for i in range(len(kept)) for j in range(i + 1, len(kept)) if grades[i] < grades[j])
    assert got[names[3]] == dis
    assert F.ranking_kendall(ranking, qrels, k=k) == pytest.approx(got[names[1]], abs=1e-15)


def test_rule_for_items_on_one_side() -> None:
    qrels = {"a": 3, "b": 2, "c": 1, "z": 3}
    # x is unjudged, z is judged but not ranked: both are left out
    assert F.ranking_kendall(["a", "x", "b", "c"], qrels) == 1.0
    assert F.ranking_spearman(["c", "b", "a"], qrels) == -1.0
    # a negative grade counts as unjudged (as in every ranking metric)
    assert F.ranking_kendall(["a", "n", "b"], {"a": 2, "b": 1, "n": -1}) == 1.0
    # fewer than two common items, or one grade only: 0
    assert F.ranking_kendall(["a", "x"], qrels) == 0.0
    assert F.ranking_spearman(["a", "b"], {"a": 1, "b": 1}) == 0.0
    assert F.metric("kendall_distance", ["a"], qrels) == 0.0


def test_multi_query_mean() -> None:
    qrels = {"q1": {"a": 2, "b": 1}, "q2": {"a": 2, "b": 1}, "q3": {"a": 1}}
    run = {"q1": ["a", "b"], "q2": ["b", "a"], "q3": ["a"]}
    r = rankmeter.evaluate(qrels, run, ["kendall", "kendall_distance"])
    assert r.per_query["kendall"].tolist() == [1.0, -1.0, 0.0]
    assert r.per_query["kendall_distance"].tolist() == [0.0, 1.0, 0.0]
