"""ROC AUC and ROC curves against scikit-learn, with ties; per user and pooled."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from sklearn.metrics import roc_auc_score, roc_curve

from rankmeter.metrics import rankstats as RS
from rankmeter.metrics import functions as F
from rankmeter.ratings import evaluate_ratings, roc_curves


@st.composite
def labelled(draw):
    n = draw(st.integers(2, 40))
    labels = draw(st.lists(st.sampled_from([0, 1]), min_size=n, max_size=n))
    scores = draw(st.lists(st.sampled_from([0.0, 0.1, 0.5, 0.5, 1.0, 2.0, -3.0]), min_size=n, max_size=n))
    return labels, scores


@settings(max_examples=150)
@given(data=labelled())
def test_auc_and_curve_equal_sklearn(data) -> None:
    labels, scores = data
    assume(0 < sum(labels) < len(labels))
    assert F.roc_auc(labels, scores) == pytest.approx(roc_auc_score(labels, scores), abs=1e-12)
    for method in ("table", "sort"):
        got = RS.roc_auc(np.array([0, len(labels)]), np.asarray(labels, bool), np.asarray(scores, float), method)
        assert got[0] == pytest.approx(roc_auc_score(labels, scores), abs=1e-12), method
    fpr, tpr, thr = F.roc_curve(labels, scores)
    f2, t2, th2 = roc_curve(labels, scores, drop_intermediate=False)
    assert np.allclose(fpr, f2) and np.allclose(tpr, t2) and np.array_equal(thr, th2)
    # the Mann-Whitney statistic: ties count one half
    pos = [s for s, l in zip(scores, labels) if l]
    neg = [s for s, l in zip(scores, labels) if not l]
    u = sum(1.0 if p > q else 0.5 if p == q else 0.0 for p in pos for q in neg)
    assert F.roc_auc(labels, scores) == pytest.approx(u / (len(pos) * len(neg)))


@settings(max_examples=100)
@given(data=st.lists(labelled(), min_size=1, max_size=5))
def test_per_user_and_pooled(data) -> None:
    rows = [(f"u{i}", f"i{j}", lab, sc) for i, (ls, ss) in enumerate(data) for j, (lab, sc) in enumerate(zip(ls, ss))]
    df = pd.DataFrame(rows, columns=["user", "item", "rating", "prediction"])
    assume(0 < df.rating.sum() < len(df))
    r = evaluate_ratings(df, None, ["roc_auc", "roc_auc(per=pair)"])
    assert r.mean["roc_auc(per=pair)"] == pytest.approx(roc_auc_score(df.rating, df.prediction))
    per_user = []
    for u, g in df.groupby("user"):
        if 0 < g.rating.sum() < len(g):
            want = roc_auc_score(g.rating, g.prediction)
            assert r.per_query.loc[u, "roc_auc"] == pytest.approx(want)
            per_user.append(want)
        else:
            assert math.isnan(r.per_query.loc[u, "roc_auc"])
    if per_user:
        assert r.mean["roc_auc"] == pytest.approx(np.mean(per_user))
    else:
        assert math.isnan(r.mean["roc_auc"])
    curves = roc_curves(df, None)
    for u, g in df.groupby("user"):
        c = curves[curves.user == u]
        if 0 < g.rating.sum() < len(g):
            f2, t2, th2 = roc_curve(g.rating, g.prediction, drop_intermediate=False)
            assert np.allclose(c.fpr, f2) and np.allclose(c.tpr, t2) and np.array_equal(c.threshold, th2)
    pooled = roc_curves(df, None, per="pair")
    f2, t2, _ = roc_curve(df.rating, df.prediction, drop_intermediate=False)
    assert np.allclose(pooled.fpr, f2) and np.allclose(pooled.tpr, t2) and set(pooled.user) == {"all"}


def test_rel_threshold_on_ratings() -> None:
    truth = [5, 4, 2, 1, 3]
    pred = [4.5, 3.0, 3.5, 1.0, 2.0]
    r = evaluate_ratings(truth, pred, ["roc_auc(rel=4)"])
    assert r.mean["roc_auc(rel=4)"] == pytest.approx(roc_auc_score(np.array(truth) >= 4, pred))


def test_bad_labels() -> None:
    with pytest.raises(Exception, match="labels must be 0/1"):
        F.roc_auc([0, 2], [0.1, 0.2])
    with pytest.raises(Exception, match="both a positive and a negative"):
        F.roc_curve([0, 0], [0.1, 0.2])
