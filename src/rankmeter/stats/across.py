"""Statistics across splits and across data sets: the corrected resampled t-test, Friedman's test with
its post-hoc tests, and a random-effects meta-analysis.

**Corrected resampled t-test** (Nadeau and Bengio 2003, doi:10.1023/A:1024068626366; for k-fold
Bouckaert and Frank 2004, doi:10.1007/978-3-540-24775-3_3). Over ``J`` splits with per-split
differences ``d_j``, ``s^2`` their sample variance (ddof 1) and ``rho = n_test / n_train``::

    t = mean(d) / sqrt((1/J + rho) s^2),   Student t with J - 1 degrees of freedom

(k-fold: ``rho = 1 / (k - 1)``). The corrected interval is
``mean +- t(0.975, J - 1) s sqrt(1/J + rho)``.

**Friedman's test** with the Nemenyi or Holm post-hoc (Demšar 2006, JMLR 7:1-30): models ranked
within each data set (1 = best, ties share the mean rank); the statistic is scipy's
``friedmanchisquare``; Nemenyi's critical difference ``CD = q_alpha sqrt(k (k + 1) / (6 N))`` with
``q_alpha`` the studentized range quantile over ``sqrt(2)``; Holm's post-hoc tests every pair with
``z = (R_i - R_j) / sqrt(k (k + 1) / (6 N))``.

**DerSimonian-Laird random effects** (DerSimonian and Laird 1986, doi:10.1016/0197-2456(86)90046-2):
effects ``y_i`` with variances ``v_i``, ``w_i = 1 / v_i``, ``Q = sum w_i (y_i - y_FE)^2``,
``tau^2 = max(0, (Q - (k - 1)) / (sum w - sum w^2 / sum w))``, ``w*_i = 1 / (v_i + tau^2)``,
``mu = sum w* y / sum w*``, the Wald interval ``mu +- 1.96 sqrt(1 / sum w*)``,
``I^2 = max(0, (Q - (k - 1)) / Q)``.

>>> r = corrected_resampled_t([0.02, 0.03, 0.01, 0.04, 0.02], rho=1 / 4)
>>> round(r.statistic, 4), round(r.p_value, 4)
(3.1379, 0.0349)
>>> m = dersimonian_laird([0.1, 0.3, 0.2], [0.01, 0.02, 0.015])
>>> round(m.mu, 4), round(m.tau2, 4)
(0.1769, 0.0)
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Sequence

import numpy as np

from .._errors import ParameterError

__all__ = ["CorrectedT", "FriedmanResult", "MetaAnalysis", "corrected_resampled_t", "dersimonian_laird", "friedman"]


@dataclass(frozen=True)
class CorrectedT:
    """The corrected resampled t-test over ``splits`` per-split differences."""

    mean: float
    sd: float
    statistic: float
    p_value: float
    df: int
    rho: float
    ci_low: float
    ci_high: float
    splits: int


def corrected_resampled_t(diffs: Sequence[float], *, rho: float, confidence: float = 0.95) -> CorrectedT:
    """Nadeau and Bengio's test of ``mean(diffs) = 0`` (see the module's formula); ``rho = n_test / n_train``."""
    from scipy import stats

    d = np.asarray(diffs, dtype=np.float64)
    j = len(d)
    if j < 2:
        raise ParameterError(f"the corrected resampled t-test needs at least 2 splits. Got {j}.")
    if not math.isfinite(rho) or rho < 0:
        raise ParameterError(f"rho (n_test / n_train) must be a number >= 0. Got {rho!r} instead.")
    mean, sd = float(d.mean()), float(d.std(ddof=1))
    se = sd * math.sqrt(1.0 / j + rho)
    if se == 0.0:
        t = 0.0 if mean == 0.0 else math.copysign(math.inf, mean)
        p = 1.0 if mean == 0.0 else 0.0
    else:
        t = mean / se
        p = float(2.0 * stats.t.sf(abs(t), j - 1))
    q = float(stats.t.ppf(0.5 + confidence / 2.0, j - 1))
    return CorrectedT(mean, sd, t, p, j - 1, rho, mean - q * se, mean + q * se, j)


@dataclass(frozen=True)
class FriedmanResult:
    """Friedman's test over ``datasets`` x ``models``: the mean ranks (1 = best), the statistic and p-value,
    Nemenyi's critical difference, and the post-hoc p-values per pair (``pairs``: (a, b, p, adjusted p))."""

    models: tuple[str, ...]
    mean_ranks: dict[str, float]
    statistic: float
    p_value: float
    critical_difference: float
    posthoc: str
    pairs: tuple[tuple[str, str, float, float], ...]
    datasets: int
    alpha: float


def friedman(scores: np.ndarray, models: Sequence[str], *, higher_is_better: bool = True, posthoc: str = "nemenyi",
             alpha: float = 0.05) -> FriedmanResult:
    """Friedman's test on a datasets x models matrix of scores, with the Nemenyi or Holm post-hoc."""
    from scipy import stats

    from .correction import holm

    x = np.asarray(scores, dtype=np.float64)
    n, k = x.shape
    if k < 3 or n < 2:
        raise ParameterError(f"Friedman's test needs at least 3 models and 2 data sets. Got {k} models and {n} "
                             "data sets.")
    if len(models) != k:
        raise ParameterError(f"{len(models)} model names for {k} columns of scores")
    if posthoc not in ("nemenyi", "holm"):
        raise ParameterError(f"The 'posthoc' parameter must be 'nemenyi' or 'holm'. Got {posthoc!r} instead.")
    if np.isnan(x).any():
        raise ParameterError("Friedman's test needs a score of every model on every data set (a NaN was found)")
    ranks = stats.rankdata(-x if higher_is_better else x, axis=1)
    mean_ranks = ranks.mean(axis=0)
    stat, p = stats.friedmanchisquare(*[x[:, j] for j in range(k)])
    se = math.sqrt(k * (k + 1) / (6.0 * n))
    q = float(stats.studentized_range.ppf(1.0 - alpha, k, np.inf)) / math.sqrt(2.0)
    pairs_idx = [(a, b) for a in range(k) for b in range(a + 1, k)]
    z = np.array([(mean_ranks[a] - mean_ranks[b]) / se for a, b in pairs_idx])
    if posthoc == "holm":
        raw = 2.0 * stats.norm.sf(np.abs(z))
        adj = holm(raw)
    else:  # Nemenyi: the studentized range distribution of the rank differences, all pairs at once
        raw = np.array([float(stats.studentized_range.sf(abs(v) * math.sqrt(2.0), k, np.inf)) for v in z])
        adj = raw
    pairs = tuple((models[a], models[b], float(r), float(s)) for (a, b), r, s in zip(pairs_idx, raw, adj,
                                                                                      strict=True))
    return FriedmanResult(tuple(models), {m: float(r) for m, r in zip(models, mean_ranks, strict=True)},
                          float(stat), float(p), q * se, posthoc, pairs, n, alpha)


@dataclass(frozen=True)
class MetaAnalysis:
    """A DerSimonian-Laird random-effects pooled effect ``mu`` with its Wald interval."""

    mu: float
    se: float
    ci_low: float
    ci_high: float
    tau2: float
    q: float
    i2: float
    k: int


def dersimonian_laird(effects: Sequence[float], variances: Sequence[float], *, z: float = 1.959963984540054
                      ) -> MetaAnalysis:
    """DerSimonian and Laird's random-effects estimate (see the module's formula)."""
    y = np.asarray(effects, dtype=np.float64)
    v = np.asarray(variances, dtype=np.float64)
    if y.shape != v.shape or len(y) < 2:
        raise ParameterError(f"a meta-analysis needs at least 2 effects with one variance each. Got {len(y)} effects "
                             f"and {len(v)} variances.")
    if (v <= 0).any() or not np.isfinite(v).all():
        raise ParameterError("every variance of a meta-analysis must be finite and > 0 (a data set whose "
                             "per-user differences are all equal has variance 0)")
    w = 1.0 / v
    fe = float((w * y).sum() / w.sum())
    q = float((w * (y - fe) ** 2).sum())
    k = len(y)
    c = float(w.sum() - (w**2).sum() / w.sum())
    tau2 = max(0.0, (q - (k - 1)) / c) if c > 0 else 0.0
    ws = 1.0 / (v + tau2)
    mu = float((ws * y).sum() / ws.sum())
    se = math.sqrt(1.0 / float(ws.sum()))
    i2 = max(0.0, (q - (k - 1)) / q) if q > 0 else 0.0
    return MetaAnalysis(mu, se, mu - z * se, mu + z * se, tau2, q, i2, k)
