"""Judge agreement equals the reference implementations: scikit-learn's cohen_kappa_score and the
krippendorff package, on random judgments with missing values."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rankmeter import ParameterError
from rankmeter.judges import agreement, cohen_kappa

sklearn_metrics = pytest.importorskip("sklearn.metrics")
krippendorff = pytest.importorskip("krippendorff")

grades = st.sampled_from([0, 1, 2, 3, 4, -1, 0.5])


@st.composite
def two_judges(draw: st.DrawFn) -> tuple[dict[str, dict[str, float]], dict[str, dict[str, float]]]:
    """Two judgment sets over a small pool of (query, item) pairs, each judging a random subset."""
    n = draw(st.integers(2, 25))
    pool = [(f"q{i % 4}", f"d{i}") for i in range(n)]
    a: dict[str, dict[str, float]] = {}
    b: dict[str, dict[str, float]] = {}
    for q, d in pool:
        which = draw(st.sampled_from(["both", "both", "both", "a", "b"]))
        if which in ("both", "a"):
            a.setdefault(q, {})[d] = draw(grades)
        if which in ("both", "b"):
            b.setdefault(q, {})[d] = draw(grades)
    if not a:
        a["q0"] = {"d0": 1}
    if not b:
        b["q0"] = {"d0": 0}
    return a, b


def _aligned(a: dict[str, dict[str, float]], b: dict[str, dict[str, float]]) -> tuple[list[float], list[float]]:
    keys = sorted((q, d) for q in a for d in a[q] if d in b.get(q, {}))
    return [a[q][d] for q, d in keys], [b[q][d] for q, d in keys]


def _same(x: float, y: float) -> bool:
    return (math.isnan(x) and math.isnan(y)) or abs(x - y) < 1e-12


@settings(max_examples=150, deadline=None)
@given(two_judges())
def test_kappa_equals_scikit_learn(pair: tuple[dict, dict]) -> None:
    a, b = pair
    ag = agreement(a, b)
    x, y = _aligned(a, b)
    assert ag.pairs["both"] == len(x)
    if len(x) == 0:
        assert math.isnan(ag.kappa())
        return
    labels = sorted(set(x) | set(y))  # scikit-learn takes integer classes: code each grade by its index
    xi, yi = [labels.index(v) for v in x], [labels.index(v) for v in y]
    for w in (None, "linear", "quadratic"):
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ref = float(sklearn_metrics.cohen_kappa_score(xi, yi, weights=w))
        assert _same(ag.kappa(w), ref), (w, ag.kappa(w), ref)


@settings(max_examples=150, deadline=None)
@given(two_judges(), st.integers(0, 2))
def test_alpha_equals_the_krippendorff_package(pair: tuple[dict, dict], extra: int) -> None:
    a, b = pair
    judges = [a, b] + [b] * extra  # a third and fourth judge repeat b (missing values kept)
    ag = agreement(*judges, names=[f"j{i}" for i in range(len(judges))])
    units = sorted({(q, d) for j in judges for q in j for d in j[q]})
    data = [[j.get(q, {}).get(d, np.nan) for q, d in units] for j in judges]
    pairable = sum(1 for k in range(len(units)) if sum(not np.isnan(row[k]) for row in data) >= 2)
    for level in ("nominal", "ordinal", "interval"):
        mine = ag.alpha(level)
        values = {v for row in data for v in row if not np.isnan(v)}
        if pairable == 0 or len(values) < 2:
            assert math.isnan(mine) or pairable > 0
            continue
        try:
            ref = float(krippendorff.alpha(reliability_data=data, level_of_measurement=level))
        except ValueError:  # the package refuses data with one value among the pairable units
            assert math.isnan(mine)
            continue
        assert _same(mine, ref), (level, mine, ref)


def test_value_distance_uses_the_grades() -> None:
    # grades 0, 1, 4: index distance says 0 and 4 are 2 apart, value distance 4 apart
    x, y = [0, 1, 4, 4, 0], [0, 4, 4, 1, 1]
    by_index = cohen_kappa(x, y, weights="linear")
    by_value = cohen_kappa(x, y, weights="linear", distance="value")
    assert _same(by_index, float(sklearn_metrics.cohen_kappa_score(x, y, weights="linear")))
    assert not _same(by_index, by_value)
    labels = [0.0, 1.0, 4.0]
    o = np.zeros((3, 3))
    for i, j in zip(x, y, strict=True):
        o[labels.index(i), labels.index(j)] += 1
    e = np.outer(o.sum(1), o.sum(0)) / o.sum()
    w = np.abs(np.subtract.outer(labels, labels))
    assert _same(by_value, 1 - (w * o).sum() / (w * e).sum())


def test_confusion_binary_and_per_query() -> None:
    a = {"q1": {"d1": 2, "d2": 0, "d3": 1}, "q2": {"d1": 1, "d5": 0}}
    b = {"q1": {"d1": 2, "d2": 1, "d3": 1}, "q2": {"d1": 1, "d9": 0}}
    ag = agreement(a, b, names=["human", "llm"])
    assert ag.pairs == {"both": 4, "only_a": 1, "only_b": 1}
    conf = ag.confusion
    assert conf.index.name == "human" and conf.columns.name == "llm"
    assert conf.loc["0", "1"] == 1 and conf.loc["1", "1"] == 2 and conf.loc["2", "2"] == 1
    assert int(conf.to_numpy().sum()) == 4
    binary = ag.binary()
    assert list(binary.index) == ["1", "2"]
    assert binary.loc["1", "agreement"] == 0.75 and binary.loc["1", "only_b"] == 1
    pq = ag.per_query()
    assert list(pq.index) == ["q1", "q2"]  # q1 disagrees on one of three pairs: listed first
    assert pq.loc["q1", "pairs"] == 3 and pq.loc["q2", "agreement"] == 1.0


def test_kappa_needs_two_judges_and_names_must_differ() -> None:
    a = {"q": {"d": 1}}
    three = agreement(a, a, a)
    assert three.pairs["units_2plus"] == 1
    with pytest.raises(ParameterError, match="exactly two judges"):
        three.kappa()
    with pytest.raises(ParameterError, match="names must differ"):
        agreement(a, a, names=["x", "x"])
    with pytest.raises(ParameterError, match="weights"):
        agreement(a, a).kappa("cubic")  # type: ignore[arg-type]
    with pytest.raises(ParameterError, match="level"):
        agreement(a, a).alpha("ratio")  # type: ignore[arg-type]
