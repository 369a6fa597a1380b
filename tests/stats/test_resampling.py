"""Randomisation test, paired bootstrap and bootstrap intervals: references, convergence, coverage."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from scipy import stats

from rankmeter import ParameterError
from rankmeter.stats import bootstrap_interval, bootstrap_test, randomization_test
from rankmeter.stats import resampling as R


def exact_flip_reference(d):
    """All 2^n sign patterns, one at a time."""
    obs = abs(sum(d))
    hits = 0
    for signs in itertools.product((1, -1), repeat=len(d)):
        t = abs(sum(s * v for s, v in zip(signs, d)))
        hits += t >= obs - 1e-12
    return hits / 2 ** len(d)


# ------------------------------------------------------------------ randomisation


def test_randomization_hand_worked():
    # d = (0.1, 0.2, 0, 0.3): |sum| = 0.6 reached by ++?+ only: 2 of 16 patterns and their mirror -> 4/16
    r = randomization_test([0.5, 0.7, 0.4, 0.9], [0.4, 0.5, 0.4, 0.6])
    assert r.p_value == 0.25 and r.method.startswith("exact")
    assert r.statistic == pytest.approx(0.15)


@pytest.mark.parametrize("seed", range(12))
def test_randomization_exact_equals_enumeration(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 11))
    d = np.round(rng.normal(0.05, 0.2, n), int(rng.integers(1, 4)))
    assert randomization_test(d).p_value == pytest.approx(exact_flip_reference(list(d)), abs=1e-15)


def test_randomization_monte_carlo_converges_to_exact():
    rng = np.random.default_rng(11)
    d = np.round(rng.normal(0.08, 0.3, 16), 2)
    exact = randomization_test(d).p_value
    assert randomization_test(d).method.startswith("exact")
    errors = []
    for B in (500, 5000, 50000):
        mc = randomization_test(d, n_resamples=B, seed=3, exact_max_n=0)
        assert mc.method.startswith("Monte Carlo")
        se = np.sqrt(exact * (1 - exact) / B)
        assert abs(mc.p_value - exact) <= 4 * se + 2 / B, (B, mc.p_value, exact)
        errors.append(abs(mc.p_value - exact))
    assert errors[-1] < 0.01


def test_randomization_mc_p_convention_and_seed():
    rng = np.random.default_rng(0)
    d = rng.normal(3, 0.1, 40)  # far from the null: no random pattern is as extreme
    r = randomization_test(d, n_resamples=999, seed=1)
    assert r.p_value == 1 / 1000
    d2 = np.random.default_rng(9).normal(0.1, 1, 60)
    assert randomization_test(d2, seed=7).p_value == randomization_test(d2, seed=7).p_value


def test_randomization_identical_and_single():
    assert randomization_test([0.4, 0.5], [0.4, 0.5]).p_value == 1.0
    assert randomization_test([0.4], [0.1]).p_value == 1.0
    assert randomization_test(np.zeros(100), n_resamples=50).p_value == 1.0


def test_randomization_rows_share_patterns_but_each_valid():
    rng = np.random.default_rng(4)
    d = rng.normal(0, 1, (3, 50))
    rows = randomization_test(d, n_resamples=3000, seed=2)
    for i in range(3):
        assert rows.p_value[i] == randomization_test(d[i], n_resamples=3000, seed=2).p_value


def test_randomization_null_uniformity():
    """Under the null the Monte Carlo p-value is (super-)uniform: P(p <= 0.1) about 0.1."""
    rng = np.random.default_rng(123)
    d = rng.normal(0, 1, (400, 30))
    p = randomization_test(d, n_resamples=999, seed=5).p_value
    assert 0.06 <= np.mean(p <= 0.1) <= 0.14


def test_block_size_and_threads_do_not_change_results(monkeypatch):
    threadpoolctl = pytest.importorskip("threadpoolctl")
    monkeypatch.setenv("RANKMETER_RESAMPLE_BLAS_THREADS", "0")  # let BLAS use every thread it has
    rng = np.random.default_rng(8)
    X = rng.random((3000, 6))
    pairs = np.array([[0, 1], [0, 2], [3, 5], [1, 4]])
    groups = np.array([0, 0, 0, 1, 1, 1])
    ref = R.sign_flip_test(X, pairs, groups, n_resamples=1000, rng=np.random.default_rng(1))
    boot = R.bootstrap_sums(X, groups, n_resamples=700, rng=np.random.default_rng(2))
    for rows in (1, 7, 256):
        got = R.sign_flip_test(X, pairs, groups, n_resamples=1000, rng=np.random.default_rng(1), block_rows=rows)
        assert np.array_equal(got.count, ref.count)
        b2 = R.bootstrap_sums(X, groups, n_resamples=700, rng=np.random.default_rng(2), block_rows=rows)
        assert np.array_equal(b2.sums, boot.sums)
    with threadpoolctl.threadpool_limits(1):
        one = R.sign_flip_test(X, pairs, groups, n_resamples=1000, rng=np.random.default_rng(1))
        b1 = R.bootstrap_sums(X, groups, n_resamples=700, rng=np.random.default_rng(2))
    assert np.array_equal(one.count, ref.count) and np.array_equal(b1.sums, boot.sums)


def test_quantised_sums_are_exact():
    rng = np.random.default_rng(3)
    X = rng.random((5000, 4)) * np.array([1, 1, 1000, 1000])
    Xq, unit = R.quantise(X, np.array([0, 0, 1, 1]))
    assert np.all(Xq == np.rint(Xq)) and np.abs(Xq).sum(axis=0).max() <= 2**50
    assert np.max(np.abs(Xq * unit - X)) <= unit.max() / 2
    # a permuted sum equals the integer (Python int) sum exactly
    bits = rng.integers(0, 2, (10, 5000)).astype(float)
    exact = [[sum(int(v) for v, bt in zip(Xq[:, j], bits[i]) if bt) for j in range(4)] for i in range(10)]
    assert np.array_equal(bits @ Xq, np.array(exact, dtype=float))


# ------------------------------------------------------------------ bootstrap


def slow_bootstrap_means(x, B, seed):
    """The same draws as the engine (one bounded uint32 per draw), one resample at a time."""
    rng = np.random.default_rng(seed)
    n = len(x)
    out = []
    for _ in range(B):
        idx = rng.integers(0, n, n, dtype=np.uint32)
        out.append(np.mean([x[i] for i in idx]))
    return np.array(out)


def test_bootstrap_sums_equal_slow_reference():
    x = np.random.default_rng(0).random(37)
    boot = R.bootstrap_sums(x[:, None], np.zeros(1, dtype=int), n_resamples=300, rng=np.random.default_rng(4))
    means = boot.sums[:, 0] * boot.unit[0] / boot.n
    assert np.allclose(means, slow_bootstrap_means(x, 300, 4), atol=1e-12)


def test_percentile_interval_is_the_quantile_of_resampled_means():
    x = np.random.default_rng(1).random(30)
    lo, hi = bootstrap_interval(x, n_resamples=2000, seed=4, method="percentile")
    ref = slow_bootstrap_means(x, 2000, 4)  # seed=4 -> default_rng(4), the same draws
    assert lo == pytest.approx(np.quantile(ref, 0.025), abs=1e-12)
    assert hi == pytest.approx(np.quantile(ref, 0.975), abs=1e-12)


def test_bca_close_to_scipy_bca():
    x = np.random.default_rng(2).exponential(1.0, 60)  # skewed: BCa differs from percentile
    lo, hi = bootstrap_interval(x, n_resamples=20000, seed=1)
    ref = stats.bootstrap((x,), np.mean, method="BCa", n_resamples=20000, rng=np.random.default_rng(9)).confidence_interval
    assert lo == pytest.approx(ref.low, abs=0.03) and hi == pytest.approx(ref.high, abs=0.03)
    plo, phi = bootstrap_interval(x, n_resamples=20000, seed=1, method="percentile")
    assert hi - phi > 0  # skewed to the right: BCa moves the interval up


@pytest.mark.parametrize("method", ["bca", "percentile"])
def test_bootstrap_interval_coverage(method):
    """300 samples of n=50 from N(0.3, 1): the 95% interval covers 0.3 in ~95% of them."""
    rng = np.random.default_rng(2024)
    data = rng.normal(0.3, 1.0, (300, 50))
    lo, hi = bootstrap_interval(data, n_resamples=2000, seed=11, method=method)
    cover = np.mean((lo <= 0.3) & (0.3 <= hi))
    sd = np.sqrt(0.95 * 0.05 / 300)
    # bootstrap intervals are slightly too narrow at n = 50 (about 94%): allow 3.5 sd below
    assert 0.95 - 3.5 * sd <= cover <= 0.95 + 3 * sd, cover


def test_bootstrap_interval_coverage_independent_resamples():
    """Coverage with a different seed for every sample (no shared resamples)."""
    rng = np.random.default_rng(77)
    hits = 0
    for i in range(200):
        x = rng.exponential(0.5, 40)
        lo, hi = bootstrap_interval(x, n_resamples=1000, seed=i)
        hits += lo <= 0.5 <= hi
    cover = hits / 200
    assert 0.88 <= cover <= 0.99, cover


def test_bootstrap_interval_edges():
    assert bootstrap_interval([0.4]) == (0.4, 0.4)
    m = float(np.mean([0.2, 0.2, 0.2]))
    assert bootstrap_interval([0.2, 0.2, 0.2]) == (m, m)
    lo, hi = bootstrap_interval([0.0, 0.0, 0.0, 1.0], n_resamples=500)
    assert 0.0 <= lo <= 0.25 <= hi <= 1.0
    with pytest.raises(ParameterError, match="confidence"):
        bootstrap_interval([0.1, 0.2], confidence=95)
    with pytest.raises(ParameterError, match="interval"):
        bootstrap_interval([0.1, 0.2], method="studentized")


def test_bootstrap_test():
    rng = np.random.default_rng(6)
    a = rng.random(200)
    assert bootstrap_test(a + 0.1, a + rng.normal(0, 0.01, 200)).p_value == 1 / 10001
    assert bootstrap_test(a, a).p_value == 1.0
    assert bootstrap_test([0.5], [0.1]).p_value == 1.0
    # null: p roughly uniform
    d = rng.normal(0, 1, (300, 30))
    p = bootstrap_test(d, n_resamples=999, seed=3).p_value
    assert 0.05 <= np.mean(p <= 0.1) <= 0.2  # the bootstrap test is a little liberal at n = 30


def test_bootstrap_test_agrees_with_t_for_large_n():
    rng = np.random.default_rng(12)
    x = rng.random(400)
    y = x + rng.normal(0.02, 0.2, 400)
    pb = bootstrap_test(x, y, n_resamples=20000, seed=2).p_value
    pt = stats.ttest_rel(x, y).pvalue
    assert abs(pb - pt) < 0.02


def test_seed_validation():
    with pytest.raises(ParameterError, match="seed"):
        randomization_test([0.1, 0.2] * 30, seed="x")
    with pytest.raises(ParameterError, match="n_resamples"):
        bootstrap_test([0.1, 0.2], n_resamples=0)
