"""Welch's t-test between groups (stats.groups.welch) equals scipy.stats.ttest_ind(equal_var=False), bit for bit."""

from __future__ import annotations

import warnings

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from rankmeter.stats.groups import welch


@st.composite
def samples(draw: st.DrawFn) -> tuple[np.ndarray, np.ndarray]:
    """Two independent samples of 2..40 values: continuous, metric-like (coarse, ties), constant, or nearly
    constant (scipy's precision-loss warning)."""
    na, nb = draw(st.integers(2, 40)), draw(st.integers(2, 40))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    kind = draw(st.sampled_from(["continuous", "coarse", "constant", "one constant", "zeros", "near"]))
    a, b = rng.random(na), rng.random(nb) * 2
    if kind == "coarse":
        a, b = np.round(a * 10) / 10, np.round(b * 5) / 10
    elif kind == "constant":
        a, b = np.full(na, 0.305), np.full(nb, 0.305)
    elif kind == "one constant":
        a = np.full(na, 0.25)
    elif kind == "zeros":
        a, b = np.zeros(na), np.zeros(nb)
    elif kind == "near":
        a, b = 1e8 + a * 1e-8, 1e8 + b * 1e-8
    return a, b


def _same(x: float, y: float) -> bool:
    return (np.isnan(x) and np.isnan(y)) or x == y


@settings(max_examples=150, deadline=None)
@given(samples())
def test_welch_equals_scipy_bit_for_bit_with_its_warnings(data: tuple[np.ndarray, np.ndarray]) -> None:
    a, b = data
    with warnings.catch_warnings(record=True) as theirs:
        warnings.simplefilter("always")
        ref = stats.ttest_ind(a, b, equal_var=False)
    with warnings.catch_warnings(record=True) as ours:
        warnings.simplefilter("always")
        t, p = welch(a, b)
    assert _same(t, float(ref.statistic)) and _same(p, float(ref.pvalue)), (t, p, ref)
    assert sorted(str(w.message) for w in ours) == sorted(str(w.message) for w in theirs)


def test_welch_hand_worked() -> None:
    # a: mean 2.5, var 5/3; b: mean 4, var 4; se = sqrt(5/12 + 4/3) = 1.322876; t = -1.5 / se = -1.133893
    t, p = welch(np.array([1.0, 2.0, 3.0, 4.0]), np.array([2.0, 4.0, 6.0]))
    assert abs(t + 1.5 / np.sqrt(5 / 12 + 4 / 3)) < 1e-12
    df = (5 / 12 + 4 / 3) ** 2 / ((5 / 12) ** 2 / 3 + (4 / 3) ** 2 / 2)
    assert abs(p - 2 * stats.t.sf(abs(t), df)) < 1e-12
