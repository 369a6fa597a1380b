"""Statistics across splits and data sets against hand computations and scipy: the corrected resampled
t-test (Nadeau and Bengio), Friedman with Nemenyi/Holm (Demšar 2006), DerSimonian-Laird on the BCG
vaccine trials (the worked example of metafor's documentation and Viechtbauer 2010)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from rankmeter import ParameterError
from rankmeter.stats.across import corrected_resampled_t, dersimonian_laird, friedman


def test_corrected_resampled_t_by_hand() -> None:
    d = [0.02, 0.03, 0.01, 0.04, 0.02]
    j, rho = 5, 1 / 4  # 5-fold: n_test / n_train = 1 / (k - 1)
    mean = sum(d) / j
    s2 = sum((x - mean) ** 2 for x in d) / (j - 1)
    t = mean / math.sqrt((1 / j + rho) * s2)
    r = corrected_resampled_t(d, rho=rho)
    assert r.statistic == pytest.approx(t, rel=1e-12)
    assert r.p_value == pytest.approx(2 * stats.t.sf(abs(t), j - 1), rel=1e-12)
    half = stats.t.ppf(0.975, j - 1) * math.sqrt(s2) * math.sqrt(1 / j + rho)
    assert (r.ci_low, r.ci_high) == (pytest.approx(mean - half), pytest.approx(mean + half))
    # without the correction (rho = 0) it is the plain one-sample t-test over the splits
    plain = stats.ttest_1samp(d, 0.0)
    assert corrected_resampled_t(d, rho=0).statistic == pytest.approx(plain.statistic)
    with pytest.raises(ParameterError, match="at least 2 splits"):
        corrected_resampled_t([0.1], rho=0.25)


def test_friedman_equals_scipy_and_the_posthocs() -> None:
    rng = np.random.default_rng(3)
    x = rng.random((6, 4)) + np.array([0.0, 0.1, 0.2, 0.3])
    x[2, 1] = x[2, 2]  # a tie within a data set
    models = ["a", "b", "c", "d"]
    r = friedman(x, models)
    ref = stats.friedmanchisquare(*x.T)
    assert r.statistic == pytest.approx(ref.statistic, rel=1e-12) and r.p_value == pytest.approx(ref.pvalue)
    ranks = stats.rankdata(-x, axis=1).mean(axis=0)
    assert [r.mean_ranks[m] for m in models] == pytest.approx(ranks.tolist())
    # Demšar's critical difference for k = 4, alpha = 0.05: q = 2.569
    assert r.critical_difference == pytest.approx(2.569 * math.sqrt(4 * 5 / 36), abs=1e-3)
    h = friedman(x, models, posthoc="holm")
    se = math.sqrt(4 * 5 / 36)
    pa = {(a, b): p for a, b, p, _ in h.pairs}
    assert pa[("a", "d")] == pytest.approx(2 * stats.norm.sf(abs(ranks[0] - ranks[3]) / se))
    adjusted = sorted(p for *_, p in h.pairs)
    assert all(p <= 1.0 for p in adjusted)
    with pytest.raises(ParameterError, match="at least 3 models and 2 data sets"):
        friedman(x[:, :2], ["a", "b"])


# Colditz et al. 1994: BCG vaccine trials (tpos, tneg, cpos, cneg); log relative risks
BCG = [(4, 119, 11, 128), (6, 300, 29, 274), (3, 228, 11, 209), (62, 13536, 248, 12619), (33, 5036, 47, 5761),
       (180, 1361, 372, 1079), (8, 2537, 10, 619), (505, 87886, 499, 87892), (29, 7470, 45, 7232),
       (17, 1699, 65, 1600), (186, 50448, 141, 27197), (5, 2493, 3, 2338), (27, 16886, 29, 17825)]


def test_dersimonian_laird_on_the_bcg_trials() -> None:
    y = [math.log((a / (a + b)) / (c / (c + e))) for a, b, c, e in BCG]
    v = [1 / a - 1 / (a + b) + 1 / c - 1 / (c + e) for a, b, c, e in BCG]
    m = dersimonian_laird(y, v)
    # metafor: rma(yi, vi, data = escalc("RR", ...), method = "DL"): estimate -0.7141, se 0.1787,
    # tau^2 0.3088, Q(df = 12) = 152.2330, CI -1.0644 to -0.3638
    assert m.mu == pytest.approx(-0.7141, abs=5e-5) and m.se == pytest.approx(0.1787, abs=5e-5)
    assert m.tau2 == pytest.approx(0.3088, abs=5e-5) and m.q == pytest.approx(152.2330, abs=5e-4)
    assert (m.ci_low, m.ci_high) == (pytest.approx(-1.0644, abs=5e-5), pytest.approx(-0.3638, abs=5e-5))
    assert m.i2 == pytest.approx((m.q - 12) / m.q)
    # a hand computation of the same formulas
    w = [1 / x for x in v]
    fe = sum(wi * yi for wi, yi in zip(w, y, strict=True)) / sum(w)
    q = sum(wi * (yi - fe) ** 2 for wi, yi in zip(w, y, strict=True))
    tau2 = max(0.0, (q - 12) / (sum(w) - sum(wi * wi for wi in w) / sum(w)))
    ws = [1 / (x + tau2) for x in v]
    assert m.mu == pytest.approx(sum(a * b for a, b in zip(ws, y, strict=True)) / sum(ws), rel=1e-12)
