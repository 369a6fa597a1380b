"""Randomised Tukey HSD, two-way ANOVA and topic-set size against plain-Python and statsmodels references."""

from __future__ import annotations

import itertools
import math
import random

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rankmeter import InputError, ParameterError
from rankmeter.stats import anova_two_way, paired_t_power, topic_set_size, tukey_hsd

# ------------------------------------------------------------------ plain-Python references


def tukey_ref_exact(X):
    """Every permutation of every topic's scores across systems, enumerated with itertools."""
    n, m = len(X), len(X[0])
    means = [sum(X[t][j] for t in range(n)) / n for j in range(m)]
    ranges = []
    for combo in itertools.product(itertools.permutations(range(m)), repeat=n):
        pm = [sum(X[t][combo[t][j]] for t in range(n)) / n for j in range(m)]
        ranges.append(max(pm) - min(pm))
    total = len(ranges)
    p = [[1.0] * m for _ in range(m)]
    for i in range(m):
        for j in range(m):
            if i != j:
                d = abs(means[i] - means[j])
                p[i][j] = sum(1 for r in ranges if r >= d - 1e-12) / total
    return p


def tukey_ref_mc(X, B, seed):
    """Carterette's algorithm with Python's random module: shuffle each topic's row, record the range."""
    rng = random.Random(seed)
    n, m = len(X), len(X[0])
    means = [sum(X[t][j] for t in range(n)) / n for j in range(m)]
    ranges = []
    for _ in range(B):
        rows = []
        for t in range(n):
            row = list(X[t])
            rng.shuffle(row)
            rows.append(row)
        pm = [sum(rows[t][j] for t in range(n)) / n for j in range(m)]
        ranges.append(max(pm) - min(pm))
    return [[(sum(1 for r in ranges if r >= abs(means[i] - means[j]) - 1e-12) + 1) / (B + 1)
             for j in range(m)] for i in range(m)]


# ------------------------------------------------------------------ Tukey HSD


@settings(max_examples=25, deadline=None)
@given(n=st.integers(1, 4), m=st.integers(2, 3), seed=st.integers(0, 10**6),
       coarse=st.booleans())
def test_tukey_exact_equals_enumeration(n, m, seed, coarse):
    rng = np.random.default_rng(seed)
    X = rng.random((n, m))
    if coarse:
        X = np.round(X * 4) / 4  # ties among scores and among ranges
    got = tukey_hsd(X)
    assert got.method.startswith("exact")
    want = np.array(tukey_ref_exact(X.tolist()))
    np.testing.assert_allclose(got.p_value, want, atol=1e-12)


def test_tukey_monte_carlo_converges_to_reference():
    rng = np.random.default_rng(3)
    X = rng.random((25, 4)) * 0.3 + np.array([0.0, 0.05, 0.1, 0.12])
    B = 4000
    got = tukey_hsd(X, n_resamples=B, seed=1, exact_max=0)
    ref = np.array(tukey_ref_mc(X.tolist(), B, seed=2))
    assert got.method == f"Monte Carlo ({B} permutations)"
    # both estimate the same p: their difference has sd <= sqrt(2 p (1-p) / B); allow 5 of it
    se = np.sqrt(2 * np.clip(ref * (1 - ref), 1 / B, None) / B)
    assert np.all(np.abs(got.p_value - ref) <= 5 * se + 1e-12)
    assert not np.allclose(got.p_value, 1)  # a real test: some pairs differ


def test_tukey_monte_carlo_close_to_exact_on_small_case():
    X = np.array([[0.2, 0.5, 0.4], [0.1, 0.6, 0.3], [0.3, 0.7, 0.2], [0.25, 0.55, 0.35]])
    exact = tukey_hsd(X).p_value
    mc = tukey_hsd(X, n_resamples=20000, seed=5, exact_max=0).p_value
    assert np.all(np.abs(mc - exact) <= 5 * np.sqrt(exact * (1 - exact) / 20000) + 1e-4)


def test_tukey_seeded_and_familywise_at_least_pairwise():
    rng = np.random.default_rng(0)
    X = rng.random((30, 5))
    a = tukey_hsd(X, n_resamples=500, seed=7)
    b = tukey_hsd(X, n_resamples=500, seed=7)
    np.testing.assert_array_equal(a.p_value, b.p_value)
    assert np.allclose(a.p_value, a.p_value.T) and np.all(np.diag(a.p_value) == 1)
    assert a.diff[0, 1] == pytest.approx(X[:, 1].mean() - X[:, 0].mean())


def test_tukey_errors():
    with pytest.raises(InputError, match="at least 1 topic and 2 systems"):
        tukey_hsd([[1.0], [2.0]])
    with pytest.raises(InputError, match="finite"):
        tukey_hsd([[1.0, float("nan")]])
    with pytest.raises(ParameterError, match="'n_resamples' parameter of tukey_hsd"):
        tukey_hsd([[1.0, 2.0]], n_resamples=0)


# ------------------------------------------------------------------ ANOVA


@settings(max_examples=15, deadline=None)
@given(n=st.integers(2, 12), m=st.integers(2, 6), seed=st.integers(0, 10**6))
def test_anova_against_statsmodels(n, m, seed):
    import pandas as pd
    import statsmodels.formula.api as smf
    from statsmodels.stats.anova import anova_lm

    X = np.random.default_rng(seed).random((n, m))
    frame = pd.DataFrame([(f"t{i}", f"s{j}", X[i, j]) for i in range(n) for j in range(m)],
                         columns=["topic", "system", "score"])
    want = anova_lm(smf.ols("score ~ C(system) + C(topic)", data=frame).fit())
    got = anova_two_way(X).to_frame()
    for ours, theirs in (("system", "C(system)"), ("topic", "C(topic)"), ("residual", "Residual")):
        assert got.loc[ours, "sum_sq"] == pytest.approx(want.loc[theirs, "sum_sq"], rel=1e-9, abs=1e-12)
        assert got.loc[ours, "df"] == want.loc[theirs, "df"]
    for ours, theirs in (("system", "C(system)"), ("topic", "C(topic)")):
        assert got.loc[ours, "F"] == pytest.approx(want.loc[theirs, "F"], rel=1e-7)
        assert got.loc[ours, "p_value"] == pytest.approx(want.loc[theirs, "PR(>F)"], rel=1e-6, abs=1e-12)


def test_anova_errors_and_zero_residual():
    with pytest.raises(InputError, match="at least 2 topics"):
        anova_two_way([[1.0, 2.0]])
    t = anova_two_way([[1.0, 2.0], [2.0, 3.0]])  # additive: no residual
    assert t.residual_variance == 0 and math.isnan(t.f[0])


# ------------------------------------------------------------------ topic-set size


@pytest.mark.parametrize("min_diff,variance,alpha,beta", [(0.05, 0.02, 0.05, 0.2), (0.1, 0.01, 0.01, 0.1),
                                                            (0.02, 0.005, 0.05, 0.2)])
def test_topic_set_size_against_statsmodels(min_diff, variance, alpha, beta):
    from statsmodels.stats.power import TTestPower

    r = topic_set_size(min_diff, variance=variance, alpha=alpha, beta=beta)
    effect = min_diff / math.sqrt(2 * variance)
    n_real = TTestPower().solve_power(effect_size=effect, alpha=alpha, power=1 - beta)
    assert r.n == math.ceil(n_real)
    assert r.power >= 1 - beta > paired_t_power(r.n - 1, min_diff, math.sqrt(2 * variance), alpha)
    assert r.power == pytest.approx(TTestPower().power(effect_size=effect, nobs=r.n, alpha=alpha), abs=1e-9)


def test_topic_set_size_from_scores_uses_anova_residual():
    X = np.random.default_rng(1).random((20, 4))
    r = topic_set_size(0.1, scores=X)
    assert r.variance == pytest.approx(anova_two_way(X).residual_variance) and "ANOVA" in r.source
    with pytest.raises(ParameterError, match="exactly one of"):
        topic_set_size(0.1)
    with pytest.raises(ParameterError, match="'min_diff' parameter of topic_set_size"):
        topic_set_size(0, variance=0.1)
