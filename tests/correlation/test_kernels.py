"""Rank correlation kernels against scipy on random data with ties, and against slow references."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from rankmeter.metrics import rankstats as RS
from rankmeter.metrics import functions as F
from rankmeter.metrics.ratings.correlation import _pair_counts

VALUES = st.lists(st.sampled_from([0.0, 1.0, 1.0, 2.0, 2.5, 3.0, -1.0, 7.0]), min_size=2, max_size=40)


@st.composite
def paired(draw, min_size: int = 2) -> tuple[list[float], list[float]]:
    n = draw(st.integers(min_size, 40))
    pool = st.one_of(st.sampled_from([0.0, 1.0, 2.0, 3.0]), st.floats(-5, 5, allow_nan=False, width=16))
    a = draw(st.lists(pool, min_size=n, max_size=n))
    b = draw(st.lists(pool, min_size=n, max_size=n))
    return a, b


def _scipy(f, a, b, **kw) -> float:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return float(f(a, b, **kw).statistic)


def _same(got: float, want: float) -> bool:
    return (math.isnan(got) and math.isnan(want)) or math.isclose(got, want, rel_tol=1e-12, abs_tol=1e-12)


# the O(n^2) pair count of the metrics' slow references
slow_counts = _pair_counts


METHODS = ["table", "sort"]  # contingency table (few distinct values) and sorting + radix inversion count


def _tau(a, b, variant: str, method: str) -> float:
    off = np.array([0, len(a)])
    return float(RS.kendall_tau(RS.kendall_counts(off, np.asarray(a, float), np.asarray(b, float), method),
                                variant)[0])


@settings(max_examples=150)
@given(data=paired())
def test_kendall_b_and_c_equal_scipy(data) -> None:
    a, b = data
    assert _same(F.kendall_tau(a, b), _scipy(stats.kendalltau, a, b))
    assert _same(F.kendall_tau(a, b, variant="c"), _scipy(stats.kendalltau, a, b, variant="c"))
    for method in METHODS:
        assert _same(_tau(a, b, "b", method), _scipy(stats.kendalltau, a, b)), method
        assert _same(_tau(a, b, "c", method), _scipy(stats.kendalltau, a, b, variant="c")), method


@settings(max_examples=150)
@given(data=paired())
def test_kendall_a_and_distance_equal_the_pair_count(data) -> None:
    a, b = data
    con, dis, *_ = slow_counts(a, b)
    n0 = len(a) * (len(a) - 1) / 2
    assert _same(F.kendall_tau(a, b, variant="a"), (con - dis) / n0)
    for method in METHODS:
        assert _same(_tau(a, b, "a", method), (con - dis) / n0), method
    assert F.kendall_distance(a, b, normalize=False) == dis
    assert _same(F.kendall_distance(a, b), dis / n0)


@settings(max_examples=150)
@given(data=paired())
def test_spearman_equals_scipy(data) -> None:
    a, b = data
    assert _same(F.spearman_rho(a, b), _scipy(stats.spearmanr, a, b))
    for method in METHODS:
        off = np.array([0, len(a)])
        got = float(RS.spearman_rho(off, np.asarray(a, float), np.asarray(b, float), method)[0])
        assert _same(got, _scipy(stats.spearmanr, a, b)), method


@settings(max_examples=200)
@given(data=st.lists(paired(min_size=0), min_size=1, max_size=6))
def test_segments_are_independent(data) -> None:
    """Many segments at once give each segment's own value (and empty segments are fine)."""
    lens = [len(a) for a, _ in data]
    off = np.concatenate(([0], np.cumsum(lens))).astype(np.int64)
    x = np.concatenate([np.asarray(a, dtype=float) for a, _ in data])
    y = np.concatenate([np.asarray(b, dtype=float) for _, b in data])
    for method in METHODS:
        c = RS.kendall_counts(off, x, y, method)
        rho = RS.spearman_rho(off, x, y, method)
        for s, (a, b) in enumerate(data):
            aa, bb = np.asarray(a, float), np.asarray(b, float)
            want = slow_counts(a, b)
            assert c.discordant[s] == want[1], method
            assert c.x_ties[s] == want[2] + want[4] and c.y_ties[s] == want[3] + want[4], method
            assert c.joint_ties[s] == want[4] and c.n[s] == len(a), method
            assert c.x_distinct[s] == len(set(a)) and c.y_distinct[s] == len(set(b)), method
            assert _same(rho[s], _scipy(stats.spearmanr, aa, bb) if len(a) > 1 else math.nan), method


@settings(max_examples=150)
@given(w=st.lists(st.integers(0, 9), max_size=60), cuts=st.lists(st.integers(0, 60), max_size=4))
def test_count_inversions(w, cuts) -> None:
    n = len(w)
    off = np.array(sorted({0, n} | {c for c in cuts if c <= n}), dtype=np.int64)
    got = RS.count_inversions(np.array(w, dtype=np.int64), off)
    for s in range(len(off) - 1):
        seg = w[off[s]:off[s + 1]]
        want = sum(1 for i in range(len(seg)) for j in range(i + 1, len(seg)) if seg[i] > seg[j])
        assert got[s] == want


@pytest.mark.parametrize("method", ["auto", "table", "sort"])
def test_average_ranks(method) -> None:
    off = np.array([0, 4, 4, 7])
    got = RS.average_ranks(off, np.array([25.0, 75.0, 50.0, 25.0, 3.0, 3.0, -0.0]), method)
    assert got.tolist() == [1.5, 4.0, 3.0, 1.5, 2.5, 2.5, 1.0]


@pytest.mark.slow
def test_large_inputs_equal_scipy() -> None:
    rng = np.random.default_rng(7)
    n = 200_000
    x = rng.normal(size=n)
    y = x + rng.normal(size=n)
    assert F.kendall_tau(x, y) == pytest.approx(stats.kendalltau(x, y).statistic, rel=1e-12)
    xt = rng.integers(1, 6, n).astype(float)
    yt = np.round(xt + rng.normal(size=n), 1)
    assert F.kendall_tau(xt, yt) == pytest.approx(stats.kendalltau(xt, yt).statistic, rel=1e-12)
    assert F.kendall_tau(xt, yt, variant="c") == pytest.approx(stats.kendalltau(xt, yt, variant="c").statistic,
                                                               rel=1e-12)
    assert F.spearman_rho(xt, yt) == pytest.approx(stats.spearmanr(xt, yt).statistic, rel=1e-12)


def test_undefined_is_nan() -> None:
    assert math.isnan(F.kendall_tau([1, 1, 1], [1, 2, 3]))
    assert math.isnan(F.spearman_rho([1, 2, 3], [5, 5, 5]))
    assert math.isnan(F.kendall_tau([1], [2]))
    assert F.kendall_distance([1], [2]) == 0.0
    assert F.kendall_tau([1, 1, 1], [1, 2, 3], variant="a") == 0.0


@settings(max_examples=100)
@given(a=st.lists(st.integers(0, 5), min_size=1, max_size=30), big=st.booleans())
def test_order_by(a, big) -> None:
    """Packed single sort and the lexicographic fallback (keys too wide to pack) agree with lexsort."""
    n = len(a)
    rng = np.random.default_rng(len(a))
    first = np.asarray(a, dtype=np.int64)
    second = rng.integers(0, 3, n)
    size2 = 2**40 if big else 3
    got = RS.order_by((first, 6), (second, size2))
    want = np.lexsort((second, first))
    assert got.tolist() == want.tolist()


@pytest.mark.parametrize("method", ["auto", "table", "sort"])
@pytest.mark.parametrize("offsets", [[0], [0, 0], [0, 0, 0]])
def test_no_rows_and_no_segments(method, offsets) -> None:
    off = np.array(offsets)
    e = np.zeros(0)
    n_seg = len(offsets) - 1
    assert RS.kendall_tau(RS.kendall_counts(off, e, e, method)).shape == (n_seg,)
    assert RS.spearman_rho(off, e, e, method).shape == (n_seg,)
    assert RS.roc_auc(off, e.astype(bool), e, method).shape == (n_seg,)
    assert RS.count_inversions(np.zeros(0, dtype=np.int64), off).shape == (n_seg,)


def test_a_run_without_queries_for_ranking_correlations() -> None:
    import rankmeter

    r = rankmeter.evaluate({"q": {"a": 1}}, {"other": ["a"]}, ["kendall", "spearman", "kendall_distance@3"],
                           queries="run")
    assert r.n_queries == 0


@pytest.mark.parametrize("dx, dy", [(2, 2), (3, 40_000), (100, 5_000), (5_000, 100), (1_000, 1_000), (60_000, 7)])
def test_kendall_on_large_lists_equals_scipy_for_every_tie_structure(dx: int, dy: int) -> None:
    # past 16,384 values the distinct values are found by hashing (and a side with thousands of
    # them may still be counted in a table): every path must give scipy's tau-b
    from scipy import stats

    from rankmeter.metrics import kendall_tau

    rng = np.random.default_rng(dx * 7 + dy)
    n = 50_000
    z = rng.normal(size=n)
    x = np.floor((z + rng.normal(size=n)) * dx / 4).astype(float)
    y = np.floor((z + rng.normal(size=n)) * dy / 4).astype(float)
    assert abs(kendall_tau(x, y) - stats.kendalltau(x, y).statistic) <= 1e-12
