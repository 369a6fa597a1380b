"""Decision-based metrics: confusion counts and set precision / recall / F (seed 002)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rankmeter
from rankmeter import ParameterError
from rankmeter.metrics import functions as F

TEST = ["classical", "invented", "baroque", "instrumental"]
GT = ["classical", "instrumental", "piano", "baroque"]
ITEMS = [f"i{j}" for j in range(12)]


def test_seed_002_decision() -> None:
    # PrecisionRecallF1().compute() returns (0.75, 0.75, 0.75): 'invented' is wrong, 'piano' is missed
    assert F.set_precision_recall_f(TEST, GT) == (0.75, 0.75, 0.75)
    assert F.confusion_counts(TEST, GT) == {"tp": 3, "fp": 1, "fn": 1}
    assert F.confusion_counts(TEST, GT, catalog=10) == {"tp": 3, "fp": 1, "fn": 1, "tn": 5}
    r = rankmeter.evaluate({"u": GT}, {"u": TEST}, ["set_p", "set_recall", "set_f", "f@4", "tp", "fp", "fn",
                                                    "tn(catalog=10)"])
    assert r.mean == {"set_p": 0.75, "set_recall": 0.75, "set_f": 0.75, "f@4": 0.75, "tp": 3.0, "fp": 1.0,
                      "fn": 1.0, "tn(catalog=10)": 5.0}


@settings(max_examples=200)
@given(rec=st.lists(st.sampled_from(ITEMS), unique=True, max_size=8),
       rel=st.lists(st.sampled_from(ITEMS), unique=True, min_size=1, max_size=8),
       beta=st.sampled_from([0.5, 1.0, 2.0]), k=st.sampled_from([None, 1, 3]))
def test_against_python_sets(rec, rel, beta, k) -> None:
    got_rec = set(rec if k is None else rec[:k])
    tp = len(got_rec & set(rel))
    fp, fn = len(got_rec) - tp, len(set(rel)) - tp
    p = tp / len(got_rec) if got_rec else 0.0
    r = tp / len(rel)
    f = (1 + beta**2) * p * r / (beta**2 * p + r) if p + r else 0.0
    assert F.metric("tp", rec, rel, k=k) == tp
    assert F.metric("fp", rec, rel, k=k) == fp
    assert F.metric("fn", rec, rel, k=k) == fn
    assert F.metric("tn", rec, rel, k=k, catalog=20) == 20 - tp - fp - fn
    assert F.metric("set_f", rec, rel, k=k, beta=beta) == pytest.approx(f)
    if k is None:
        assert F.set_precision_recall_f(rec, rel, beta=beta) == pytest.approx((p, r, f))
        # order plays no part
        assert F.set_precision_recall_f(list(reversed(rec)), rel, beta=beta) == pytest.approx((p, r, f))


def test_set_f_divides_by_retrieved_not_k() -> None:
    assert F.metric("set_f", ["a"], ["a", "b"], k=10) == pytest.approx(2 * 1 * 0.5 / 1.5)
    assert F.metric("f", ["a"], ["a", "b"], k=10) == pytest.approx(2 * 0.1 * 0.5 / 0.6)


def test_tn_needs_a_catalogue() -> None:
    with pytest.raises(ParameterError, match="tn needs the catalogue size"):
        rankmeter.evaluate({"u": GT}, {"u": TEST}, ["tn"])
    r = rankmeter.evaluate({"u": GT}, {"u": TEST}, ["tn"], context={"catalog_size": 10})
    assert r.mean["tn"] == 5.0
    r = rankmeter.evaluate({"u": GT}, {"u": TEST}, ["tn"], context={"catalog": [f"x{i}" for i in range(7)]})
    assert r.mean["tn"] == 2.0
    with pytest.raises(ParameterError, match="catalog' parameter of tn must be at least"):
        rankmeter.evaluate({"u": GT}, {"u": TEST}, ["tn(catalog=4)"])
    with pytest.raises(ParameterError, match="int >= 1"):
        rankmeter.evaluate({"u": GT}, {"u": TEST}, ["tn(catalog=0)"])


def test_bad_sets() -> None:
    with pytest.raises(Exception, match="twice"):
        F.set_precision_recall_f(["a", "a"], ["a"])
    with pytest.raises(Exception, match="not a string"):
        F.confusion_counts("abc", ["a"])
