"""Kendall's fast road for many distinct values: packed-key sorts and the permutation inversion count."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from rankmeter.metrics import rankstats as RS

from .test_kernels import slow_counts

ULP = 2.0**-52
# values a few ulps apart (equal once shifted) next to a huge range (which forces the shift)
CLOSE = [1.0, 1.0 + ULP, 1.0 + 2 * ULP, 1.0 + 3 * ULP, 1.0 - ULP / 2, -0.0, 0.0, 5e-324, -1e300, 1e300, 2.5, -7.0]


@settings(max_examples=200)
@given(p=st.integers(0, 300).flatmap(lambda n: st.permutations(range(n))))
def test_permutation_inversions(p) -> None:
    w = np.array(p, dtype=np.int64)
    assert RS.permutation_inversions(w) == int(RS.count_inversions(w)[0])


@pytest.mark.parametrize("n", [63, 64, 65, 4095, 4097, 65536, 70001])
def test_permutation_inversions_sizes(n) -> None:
    p = np.random.default_rng(n).permutation(n)
    assert RS.permutation_inversions(p) == int(RS.count_inversions(p)[0])
    assert RS.permutation_inversions(p[::-1].copy()) == n * (n - 1) // 2 - RS.permutation_inversions(p)


@settings(max_examples=200)
@given(values=st.lists(st.one_of(st.sampled_from(CLOSE), st.floats(allow_nan=False, allow_infinity=False)),
                       max_size=60))
def test_sort_rows_is_a_stable_argsort(values) -> None:
    v = np.array(values, dtype=np.float64)
    order, sv = RS.sort_rows(v)
    assert order.tolist() == np.argsort(v, kind="stable").tolist()
    assert np.array_equal(sv, v[order])


def test_sort_rows_resorts_close_values() -> None:
    rng = np.random.default_rng(3)
    n = 200_000
    v = rng.normal(size=n)
    v[rng.choice(n, 5000, replace=False)] = 1.0 + rng.integers(0, 100, 5000) * ULP  # ties and near ties
    order, _ = RS.sort_rows(v)
    assert np.array_equal(order, np.argsort(v, kind="stable"))


@settings(max_examples=200)
@given(data=st.integers(2, 40).flatmap(lambda n: st.tuples(*[st.lists(st.sampled_from(CLOSE), min_size=n,
                                                                      max_size=n)] * 2)))
def test_counts_of_close_values(data) -> None:
    a, b = data
    _, dis, tx, ty, txy = slow_counts(a, b)
    for x, y, x_ties, y_ties in ((a, b, tx, ty), (b, a, ty, tx)):  # one order takes the two-sort road
        c = RS.kendall_counts(np.array([0, len(a)]), np.array(x), np.array(y), "sort")
        assert c.discordant[0] == dis
        assert (c.x_ties[0], c.y_ties[0], c.joint_ties[0]) == (x_ties + txy, y_ties + txy, txy)


@pytest.mark.parametrize("ties", [False, True])
def test_large_continuous_equal_scipy(ties) -> None:
    rng = np.random.default_rng(11)
    n = 300_000
    x = rng.normal(size=n)
    y = x + rng.normal(size=n)
    close = rng.choice(n, 3000, replace=False)
    x[close] = 1.0 + (rng.integers(0, 100, 3000) if ties else rng.permutation(3000)) * ULP
    c = RS.kendall_counts(np.array([0, n]), x, y)
    assert (c.x_ties[0] > 0) == ties
    assert RS.kendall_tau(c)[0] == pytest.approx(stats.kendalltau(x, y).statistic, rel=1e-12, abs=1e-15)
