"""Paired t-test and Wilcoxon against SciPy; effect sizes; edge cases."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from scipy import stats

from rankmeter import ParameterError
from rankmeter.stats import effect_size, paired_t, wilcoxon

# ------------------------------------------------------------------ data strategies


@st.composite
def paired(draw, min_n=2, max_n=80):
    """Paired samples: continuous, or rounded (ties and zero differences), like metric values."""
    n = draw(st.integers(min_n, max_n))
    seed = draw(st.integers(0, 2**32 - 1))
    kind = draw(st.sampled_from(["continuous", "rounded", "coarse", "shifted"]))
    rng = np.random.default_rng(seed)
    x = rng.random(n)
    y = np.clip(x + rng.normal(0, 0.2, n), 0, 1)
    if kind == "rounded":
        x, y = np.round(x, 2), np.round(y, 2)
    elif kind == "coarse":  # P@10-like: multiples of 0.1, many zeros and ties
        x, y = np.round(x * 10) / 10, np.round(y * 10) / 10
    elif kind == "shifted":
        y = x - 0.05 + rng.normal(0, 0.01, n)
    return x, y


def close(a, b, tol=1e-12):
    return abs(a - b) <= tol


# ------------------------------------------------------------------ t-test


def test_t_hand_worked():
    # d = (0.1, 0.2, 0, 0.3): mean 0.15, sd 0.129099, t = 0.15 / (0.129099 / 2) = 2.32379
    r = paired_t([0.5, 0.7, 0.4, 0.9], [0.4, 0.5, 0.4, 0.6])
    assert r.statistic == pytest.approx(0.15 / (np.std([0.1, 0.2, 0, 0.3], ddof=1) / 2), rel=1e-12)
    assert r.p_value == pytest.approx(0.10272807885839899, abs=1e-12)


@pytest.mark.filterwarnings("ignore:Precision loss:RuntimeWarning")  # scipy warns on near-constant data
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(paired())
def test_t_equals_scipy(data):
    x, y = data
    ref = stats.ttest_rel(x, y)
    got = paired_t(x, y)
    if np.all(x == y):
        assert (got.statistic, got.p_value) == (0.0, 1.0)
        return
    if np.isinf(ref.statistic):
        assert got.statistic == ref.statistic and got.p_value == 0.0
        return
    assert close(got.statistic, float(ref.statistic), 1e-12 * max(1, abs(ref.statistic)))
    assert close(got.p_value, float(ref.pvalue))


def test_t_vectorised_rows_equal_single():
    rng = np.random.default_rng(5)
    d = rng.normal(0.1, 1, (7, 30))
    rows = paired_t(d)
    for i in range(7):
        one = paired_t(d[i])
        assert rows.statistic[i] == one.statistic and rows.p_value[i] == one.p_value


def test_t_edge_cases_defined():
    one = paired_t([0.3], [0.1])
    assert (one.statistic, one.p_value) == (0.0, 1.0) and "fewer than 2" in one.method
    same = paired_t([0.3, 0.5, 0.2], [0.3, 0.5, 0.2])
    assert (same.statistic, same.p_value) == (0.0, 1.0) and "zero" in same.method
    const = paired_t([0.5, 0.6, 0.7], [0.4, 0.5, 0.6])
    assert const.p_value < 1e-12 and "constant" in const.method  # scipy: t = inf, p = 0 (up to rounding)


def test_t_rejects_nan_and_mismatch():
    with pytest.raises(ParameterError, match="finite"):
        paired_t([0.1, np.nan], [0.2, 0.3])
    with pytest.raises(ParameterError, match="same shape"):
        paired_t([0.1, 0.2], [0.2])


# ------------------------------------------------------------------ Wilcoxon


def test_wilcoxon_hand_worked():
    # d = (0.1, 0.2, -0.05, 0.3, 0.3) -> ties at 0.3; ranks 2, 3, 1, 4.5, 4.5: W- = 1
    r = wilcoxon([0.5, 0.7, 0.4, 0.9, 0.3], [0.4, 0.5, 0.45, 0.6, 0.0])
    assert r.statistic == 1.0
    # no zeros, but floating 0.3 differences are not exactly equal here; scipy agrees on 0.125
    assert r.p_value == pytest.approx(float(stats.wilcoxon([0.5, 0.7, 0.4, 0.9, 0.3], [0.4, 0.5, 0.45, 0.6, 0.0]).pvalue), abs=1e-15)


def test_wilcoxon_exact_small_by_enumeration():
    # n = 4 untied: W+ = 10 is the most extreme of 16 patterns -> p = 2/16
    r = wilcoxon([1.0, 2.0, 3.0, 4.0], [0.0, 0.0, 0.0, 0.0])
    assert r.p_value == 0.125 and r.method == "exact" and r.statistic == 0.0


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(paired(min_n=1, max_n=120))
def test_wilcoxon_equals_scipy(data):
    x, y = data
    got = wilcoxon(x, y)
    if np.all(x == y):
        assert (got.statistic, got.p_value) == (0.0, 1.0) and "zero" in got.method
        return
    ref = stats.wilcoxon(x, y)
    assert close(got.statistic, float(ref.statistic))
    assert close(got.p_value, float(ref.pvalue)), (got, ref)


@pytest.mark.parametrize("n", [5, 13, 14, 30, 50, 51, 200])
def test_wilcoxon_each_branch_equals_scipy(n):
    rng = np.random.default_rng(n)
    for make in (lambda: rng.random(n) - 0.4,  # untied
                 lambda: np.round(rng.random(n) * 6 - 2) / 4):  # ties and zeros
        d = make()
        if np.all(d == 0):
            continue
        ref = stats.wilcoxon(d)
        got = wilcoxon(d)
        assert close(got.p_value, float(ref.pvalue)) and close(got.statistic, float(ref.statistic)), (n, got, ref)


def test_wilcoxon_vectorised_rows_equal_single():
    rng = np.random.default_rng(2)
    d = np.round(rng.normal(0, 1, (9, 40)), 1)
    rows = wilcoxon(d)
    for i in range(9):
        one = wilcoxon(d[i])
        assert rows.statistic[i] == one.statistic and rows.p_value[i] == one.p_value


def test_wilcoxon_single_query_and_identical():
    assert wilcoxon([0.4], [0.1]).p_value == 1.0
    for n in (3, 20, 100):
        r = wilcoxon(np.full(n, 0.5), np.full(n, 0.5))
        assert (r.statistic, r.p_value) == (0.0, 1.0)


# ------------------------------------------------------------------ effect size


def test_effect_size_against_definition():
    rng = np.random.default_rng(1)
    x, y = rng.random(25), rng.random(25)
    md, dz = effect_size(x, y)
    d = x - y
    assert md == pytest.approx(d.mean(), abs=1e-15)
    assert dz == pytest.approx(d.mean() / d.std(ddof=1), rel=1e-12)


def test_effect_size_edges():
    assert effect_size([0.2], [0.1])[1] == 0.0
    assert effect_size([0.2, 0.3], [0.2, 0.3]) == (0.0, 0.0)
    assert effect_size([0.5, 0.5], [0.25, 0.25])[1] == np.inf
