"""Propensity-weighted metrics: worked examples, IPS against a plain-Python reading of the formula, errors."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rankmeter
from rankmeter._errors import InputError, ParameterError
from rankmeter.metrics.registry import all_specs
from rankmeter.metrics.unbiased._common import UnbiasedExample

UNBIASED = [s for s in all_specs() if s.family == "unbiased"]
CASES = [pytest.param(s, ex, id=f"{ex.metric}-{i}") for s in UNBIASED for i, ex in enumerate(s.examples)
         if isinstance(ex, UnbiasedExample)]


def test_the_family() -> None:
    assert {s.name for s in UNBIASED} == {"ips_recall", "ips_precision", "ips_ndcg", "ips_rbp", "psp", "psndcg",
                                      "snips_recall", "snips_precision", "snips_ndcg", "snips_rbp",
                                      "snips_recall_corpus", "snips_precision_corpus", "snips_ndcg_corpus",
                                      "snips_rbp_corpus"}
    for s in UNBIASED:
        # corpus-level metrics have a slow reference over all users (snips.corpus_reference) instead
        assert len(s.examples) >= 2 and (s.reference is not None) == (s.level == "query")
        assert "needs_context" in s.properties
        assert "Labelled" in s.convention


@pytest.mark.parametrize("spec,ex", CASES)
def test_worked_example(spec, ex: UnbiasedExample) -> None:
    assert rankmeter.parse_metric(ex.metric).spec is spec
    res = rankmeter.evaluate(dict(ex.qrels), dict(ex.rankings), [ex.metric], context=ex.context)
    assert res.mean[ex.metric] == pytest.approx(ex.value, abs=ex.tol), ex.note


ITEMS = [f"i{n}" for n in range(12)]


@st.composite
def users(draw):
    out_q, out_r, prop = {}, {}, {}
    for i in ITEMS:
        prop[i] = draw(st.floats(0.01, 1.0))
    for u in range(draw(st.integers(1, 5))):
        rel = draw(st.lists(st.sampled_from(ITEMS), min_size=1, max_size=6, unique=True))
        ranking = draw(st.permutations(ITEMS))[: draw(st.integers(0, 12))]
        out_q[f"u{u}"] = {i: 1 for i in rel}
        out_r[f"u{u}"] = list(ranking)
    return out_q, out_r, prop


@settings(max_examples=60, deadline=None)
@given(users(), st.sampled_from([1, 3, 5, 10]), st.sampled_from([0.0, 0.2]))
def test_ips_equals_the_formula_per_user(data, k, clip) -> None:
    """IPS-recall / precision / nDCG of each user: the formula read literally in plain Python."""
    qrels, run, prop = data
    ctx = {"propensity": prop}
    names = [f"ips_recall(propensity=given,clip={clip})@{k}", f"ips_precision(propensity=given,clip={clip})@{k}",
             f"ips_ndcg(propensity=given,clip={clip})@{k}"]
    res = rankmeter.evaluate(qrels, run, names, context=ctx)
    for n, u in enumerate(res.queries):
        rel = set(qrels[u])
        top = run[u][:k]
        w = {i: 1 / max(prop[i], clip) for i in rel}
        recall = sum(w[i] for i in top if i in rel) / len(rel)
        precision = sum(w[i] for i in top if i in rel) / k
        dcg = sum(w[i] / math.log2(r + 2) for r, i in enumerate(top) if i in rel)
        ideal = sum(1 / math.log2(r + 2) for r in range(min(k, len(rel))))
        assert res.values[names[0]][n] == pytest.approx(recall, rel=1e-12)
        assert res.values[names[1]][n] == pytest.approx(precision, rel=1e-12)
        assert res.values[names[2]][n] == pytest.approx(dcg / ideal, rel=1e-12)


def test_equal_propensities_scale_the_plain_metric() -> None:
    qrels = {"u": {"a": 1, "b": 1}, "v": {"c": 1}}
    run = {"u": ["a", "x", "b"], "v": ["x", "c"]}
    ctx = {"propensity": {i: 0.5 for i in "abcx"}}
    res = rankmeter.evaluate(qrels, run, ["ips_recall(propensity=given)@2", "recall@2", "ips_ndcg(propensity=given)@3",
                                          "ndcg@3"], context=ctx)
    assert res.mean["ips_recall(propensity=given)@2"] == pytest.approx(2 * res.mean["recall@2"])
    assert res.mean["ips_ndcg(propensity=given)@3"] == pytest.approx(2 * res.mean["ndcg@3"])


def test_missing_context_and_items_are_clear_errors() -> None:
    with pytest.raises(ParameterError, match=r"context\['popularity'\].*context_from_train"):
        rankmeter.evaluate({"u": {"a": 1}}, {"u": ["a"]}, ["ips_recall@5"])
    with pytest.raises(InputError, match=r"1 relevant recommended items .*context\['propensity'\].*'a'"):
        rankmeter.evaluate({"u": {"a": 1}}, {"u": ["a"]}, ["ips_recall(propensity=given)@5"],
                           context={"propensity": {"b": 0.5}})
    with pytest.raises(InputError, match="clip"):
        rankmeter.evaluate({"u": {"a": 1}}, {"u": ["a"]}, ["ips_recall@5"], context={"popularity": {"a": 0.0}})
    assert rankmeter.evaluate({"u": {"a": 1}}, {"u": ["a"]}, ["ips_recall(clip=0.5)@5"],
                              context={"popularity": {"a": 0.0}}).mean["ips_recall(clip=0.5)@5"] == 2.0
    with pytest.raises(ParameterError, match="'clip' parameter"):
        rankmeter.parse_metric("ips_recall(clip=2)@5")
