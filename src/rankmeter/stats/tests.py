"""Paired significance tests, effect sizes and bootstrap intervals.

Every test here is *paired*: both systems were evaluated on the same queries and
the test looks at the per-query differences ``d = x - y``. Functions take 1-D
arrays (one comparison) or 2-D arrays whose rows are comparisons (``(m, n)``:
``m`` comparisons over ``n`` queries) and are vectorised over the rows.

Conventions (the literature and the libraries disagree; these are ours):

- two-sided alternatives throughout;
- :func:`paired_t` and :func:`wilcoxon` reproduce ``scipy.stats.ttest_rel`` and
  ``scipy.stats.wilcoxon`` (SciPy >= 1.13 defaults: ``zero_method='wilcox'``,
  ``correction=False``, ``method='auto'``) to within 1e-12, and differ only
  where SciPy returns NaN (fewer than two queries, every difference zero): we
  return a p-value of 1 and say why in ``method``;
- :func:`randomization_test` is Fisher's sign-flip test of the mean difference:
  exact (all ``2^n`` sign patterns, ``p = count / 2^n``) when ``n <= exact_max_n``,
  otherwise Monte Carlo with ``p = (count + 1) / (B + 1)`` (Phipson & Smyth 2010);
- :func:`bootstrap_test` is the paired bootstrap test of the mean difference
  (Efron & Tibshirani 1993, section 16.4; Berg-Kirkpatrick et al. 2012): the
  bootstrap distribution of the mean difference, shifted to mean zero, is the
  null distribution; ``p = (1 + #{|d*_b - d| >= |d|}) / (B + 1)``;
- :func:`bootstrap_interval` is the BCa interval (Efron 1987) by default,
  percentile on request.

Randomness takes a ``seed`` (int, ``SeedSequence`` or ``Generator``); the
resampling is single-stream, so results do not depend on the number of threads
(see :mod:`rankmeter.stats.resampling` for how sums are made exact).
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any, NamedTuple

import numpy as np

from .._errors import ParameterError
from . import resampling as R

__all__ = [
    "PairedTest",
    "paired_t",
    "wilcoxon",
    "randomization_test",
    "bootstrap_test",
    "bootstrap_interval",
    "effect_size",
    "EXACT_MAX_N",
    "TESTS",
    "TEST_NAMES",
]

TESTS = ("t", "wilcoxon", "randomization", "bootstrap", "tukey-hsd")
TEST_NAMES = {
    "t": "paired t-test",
    "wilcoxon": "Wilcoxon signed-rank test",
    "randomization": "randomisation (sign-flip permutation) test",
    "bootstrap": "paired bootstrap test",
    "tukey-hsd": "randomised Tukey HSD test (blocked on topics, familywise over all pairs of runs)",
}

EXACT_MAX_N = 20  # randomisation: enumerate all 2^n sign patterns up to this many queries


class PairedTest(NamedTuple):
    """The outcome of a paired test: statistic, two-sided p-value and how it was computed.

    For 1-D input the fields are scalars (``float``/``str``); for 2-D input arrays,
    one entry per row (comparison).
    """

    statistic: Any
    p_value: Any
    method: Any


def _as_diffs(x: Any, y: Any | None, name: str) -> tuple[np.ndarray, bool]:
    """Differences ``x - y`` as a 2-D float array (rows: comparisons) and whether input was 1-D."""
    xa = np.asarray(x, dtype=np.float64)
    if y is not None:
        ya = np.asarray(y, dtype=np.float64)
        if xa.shape != ya.shape:
            raise ParameterError(
                f"The 'x' and 'y' parameters of {name} must have the same shape. "
                f"Got {xa.shape} and {ya.shape} instead.")
        d = xa - ya
    else:
        d = xa
    if d.ndim not in (1, 2):
        raise ParameterError(f"The 'x' parameter of {name} must be a 1-D or 2-D array. Got {d.ndim} dimensions "
                             "instead.")
    if d.shape[-1] == 0:
        raise ParameterError(f"The 'x' parameter of {name} must hold at least one query. Got an empty array instead.")
    if not np.all(np.isfinite(d)):
        raise ParameterError(f"The values given to {name} must be finite numbers. Got NaN or infinity instead.")
    one = d.ndim == 1
    return (d[None, :] if one else d), one


def _out(stat: np.ndarray, p: np.ndarray, method: np.ndarray, one: bool) -> PairedTest:
    if one:
        return PairedTest(float(stat[0]), float(p[0]), str(method[0]))
    return PairedTest(stat, p, method)


# --------------------------------------------------------------------------- t-test

def paired_t(x: Any, y: Any | None = None) -> PairedTest:
    """Paired t-test of the mean difference (Student 1908), two-sided.

    ``t = mean(d) / (sd(d) / sqrt(n))`` with ``sd`` the sample standard deviation
    (``ddof=1``) and ``n - 1`` degrees of freedom; ``p = 2 * P(T_{n-1} >= |t|)``.
    Equal to ``scipy.stats.ttest_rel(x, y)``. Where SciPy gives NaN we define:
    fewer than 2 queries -> ``t = 0, p = 1``; every difference zero -> ``t = 0,
    p = 1``. Constant non-zero differences give ``t = +-inf, p = 0`` as in SciPy.

    >>> r = paired_t([0.5, 0.7, 0.4, 0.9], [0.4, 0.5, 0.4, 0.6])
    >>> round(r.statistic, 6), round(r.p_value, 6), r.method
    (2.32379, 0.102728, 'student t, 3 df')
    """
    from scipy import special

    d, one = _as_diffs(x, y, "paired_t")
    m, n = d.shape
    mean = np.mean(d, axis=-1)
    method = np.full(m, f"student t, {n - 1} df", dtype=object)
    if n < 2:
        method[:] = "undefined: fewer than 2 queries (p set to 1)"
        return _out(np.zeros(m), np.ones(m), method, one)
    # the same operations as scipy.stats.ttest_1samp, so the values agree to the last bits
    var = np.mean((d - mean[:, None]) ** 2, axis=-1) * (n / (n - 1))
    denom = np.sqrt(var / n)
    with np.errstate(divide="ignore", invalid="ignore"):
        t = mean / denom
    p = 2.0 * special.stdtr(n - 1, -np.abs(t))
    zero = (denom == 0) & (mean == 0)
    t = np.where(zero, 0.0, t)
    p = np.where(zero, 1.0, p)
    method[zero] = "undefined: every difference is zero (p set to 1)"
    const = (denom == 0) & (mean != 0)
    method[const] = f"student t, {n - 1} df; constant non-zero differences (t infinite)"
    return _out(t, p, method, one)


# --------------------------------------------------------------------------- Wilcoxon

def _midranks(a: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Average ranks along rows, and per row the tie term sum(t^3 - t) and whether ties exist.

    Infinite entries (used to mark zeros) are ranked last and left out of the tie terms.
    """
    m, n = a.shape
    order = np.argsort(a, axis=1, kind="stable")
    y = np.take_along_axis(a, order, axis=1)
    new = np.ones((m, n), dtype=bool)
    new[:, 1:] = y[:, 1:] != y[:, :-1]
    flat = new.ravel()
    starts = np.flatnonzero(flat)
    counts = np.diff(np.append(starts, m * n))
    avg = (starts % n + 1).astype(np.float64) + (counts - 1) / 2.0
    ranks_sorted = np.repeat(avg, counts).reshape(m, n)
    ranks = np.empty_like(ranks_sorted)
    np.put_along_axis(ranks, order, ranks_sorted, axis=1)
    row = starts // n
    finite = np.isfinite(y.ravel()[starts])
    c = counts.astype(np.float64)
    tie = np.bincount(row[finite], weights=(c**3 - c)[finite], minlength=m)
    has_ties = np.bincount(row[finite & (counts > 1)], minlength=m) > 0
    return ranks, tie, has_ties


@lru_cache(maxsize=64)
def _signed_rank_pmf(n: int) -> np.ndarray:
    """Null distribution of W+ for n untied non-zero differences (same recursion as SciPy)."""
    c = np.ones(1, dtype=np.float64)
    for k in range(1, n + 1):
        prev = c
        c = np.zeros(k * (k + 1) // 2 + 1, dtype=np.float64)
        mm = len(prev)
        c[:mm] = prev * 0.5
        c[-mm:] += prev * 0.5
    c.setflags(write=False)
    return c


def _exact_signed_rank_p(r_plus: float, n: int) -> float:
    pmf = _signed_rank_pmf(n)
    mean = n * (n + 1) / 4

    def sf(k: int) -> float:
        return float(pmf[k:].sum()) if k <= mean else 1.0 - float(pmf[:k].sum())

    def cdf(k: int) -> float:
        return float(pmf[: k + 1].sum()) if k <= mean else 1.0 - float(pmf[k + 1:].sum())

    p = 2.0 * min(sf(int(np.floor(r_plus))), cdf(int(np.ceil(r_plus))))
    return float(min(max(p, 0.0), 1.0))


def _flip_signed_rank_p(r_plus: float, ranks_nonzero: np.ndarray) -> float:
    """Exact sign-flip null of W+ with (tied) mid-ranks, as scipy's permutation branch."""
    k = len(ranks_nonzero)
    codes = np.arange(2**k, dtype=np.int64)[:, None]
    bits = ((codes >> np.arange(k)) & 1).astype(np.float64)
    null = bits @ ranks_nonzero
    gamma = abs(np.finfo(np.float64).eps * 100 * r_plus)
    less = np.count_nonzero(null <= r_plus + gamma) / len(null)
    greater = np.count_nonzero(null >= r_plus - gamma) / len(null)
    return float(min(max(2 * min(less, greater), 0.0), 1.0))


def wilcoxon(x: Any, y: Any | None = None) -> PairedTest:
    """Wilcoxon signed-rank test (Wilcoxon 1945), two-sided, as ``scipy.stats.wilcoxon`` defaults.

    Zero differences are dropped (``zero_method='wilcox'``); the remaining
    ``|d|`` get average ranks; ``W+`` sums the ranks of positive differences and
    the statistic reported is ``min(W+, W-)`` (SciPy's). The p-value follows
    SciPy >= 1.13's ``method='auto'``, which we match exactly:

    - more than 50 queries (zeros included): normal approximation,
      ``z = (W+ - n'(n'+1)/4) / sqrt((n'(n'+1)(2n'+1) - sum(t^3 - t)/2) / 24)``
      over the ``n'`` non-zero differences with the tie correction, no continuity
      correction;
    - otherwise, no ties and no zeros: the exact null distribution of ``W+``;
    - otherwise (ties or zeros), at most 13 queries: the exact sign-flip
      distribution of ``W+`` with mid-ranks (SciPy's permutation branch);
    - otherwise: the normal approximation.

    Every difference zero (SciPy: NaN) gives statistic 0 and p = 1.

    >>> r = wilcoxon([0.5, 0.7, 0.4, 0.9, 0.3], [0.4, 0.5, 0.45, 0.6, 0.0])
    >>> r.statistic, r.p_value, r.method
    (1.0, 0.125, 'exact')
    """
    from scipy import special

    d, one = _as_diffs(x, y, "wilcoxon")
    m, n = d.shape
    zero = d == 0
    n_zero = zero.sum(axis=1)
    count = (n - n_zero).astype(np.float64)
    absd = np.where(zero, np.inf, np.abs(d))
    ranks, tie, has_ties = _midranks(absd)
    r_plus = np.sum(np.where(d > 0, ranks, 0.0), axis=1)
    r_minus = np.sum(np.where(d < 0, ranks, 0.0), axis=1)
    mn = count * (count + 1.0) * 0.25
    se = count * (count + 1.0) * (2.0 * count + 1.0)
    se = np.sqrt((se - tie / 2) / 24)
    with np.errstate(divide="ignore", invalid="ignore"):
        z = (r_plus - mn) / se
    p = np.empty(m)
    method = np.empty(m, dtype=object)
    for i in range(m):  # a loop over comparisons, not queries: each branch is O(n) or tiny
        if count[i] == 0:
            p[i], method[i] = 1.0, "undefined: every difference is zero (p set to 1)"
        elif n > 50 or ((has_ties[i] or n_zero[i] > 0) and n > 13):
            p[i], method[i] = 2.0 * special.ndtr(-abs(z[i])), "normal approximation"
        elif not (has_ties[i] or n_zero[i] > 0):
            p[i], method[i] = _exact_signed_rank_p(float(r_plus[i]), int(count[i])), "exact"
        else:
            p[i] = _flip_signed_rank_p(float(r_plus[i]), ranks[i][~zero[i]])
            method[i] = "exact sign-flip distribution (ties or zeros)"
    stat = np.minimum(r_plus, r_minus)
    return _out(stat, p, method, one)


# --------------------------------------------------------------------------- randomisation

def randomization_test(
    x: Any,
    y: Any | None = None,
    *,
    n_resamples: int = 10_000,
    seed: Any = 0,
    exact_max_n: int = EXACT_MAX_N,
) -> PairedTest:
    """Fisher's paired randomisation (sign-flip permutation) test of the mean difference.

    Under the null hypothesis the two systems are exchangeable on each query, so
    each difference's sign is +-1 with probability 1/2. The statistic is
    ``T = mean(d)``; the two-sided p-value is the share of sign patterns ``s`` with
    ``|mean(s * d)| >= |T|`` (Fisher 1935; Smucker, Allan & Carterette 2007).

    - ``n <= exact_max_n`` (20): all ``2^n`` patterns are enumerated and
      ``p = count / 2^n`` (the identity pattern is among them);
    - otherwise ``n_resamples`` random patterns from a seeded generator and
      ``p = (count + 1) / (n_resamples + 1)``, which is never 0 and is a valid
      p-value (Phipson & Smyth 2010).

    Rows of a 2-D input are tested with the *same* sign patterns (one matrix
    product); each p-value is valid, the p-values of different rows are correlated.

    >>> r = randomization_test([0.5, 0.7, 0.4, 0.9], [0.4, 0.5, 0.4, 0.6])
    >>> round(r.statistic, 6), r.p_value, r.method
    (0.15, 0.25, 'exact (16 sign patterns)')
    """
    d, one = _as_diffs(x, y, "randomization_test")
    _check_resamples(n_resamples, "randomization_test")
    m, n = d.shape
    X = d.T  # columns: comparisons; compare each column with the zero column
    zeros = np.zeros((n, 1))
    cols = np.hstack([zeros, X])
    pairs = np.column_stack([np.zeros(m, dtype=np.int64), np.arange(1, m + 1)])
    res = R.sign_flip_test(cols, pairs, groups=np.zeros(m + 1, dtype=np.int64), n_resamples=n_resamples,
                           rng=R.make_rng(seed), exact_max_n=exact_max_n)
    method = np.full(m, res.method, dtype=object)
    return _out(np.mean(d, axis=1), res.p_value, method, one)


def _check_resamples(n_resamples: int, name: str) -> None:
    if not isinstance(n_resamples, (int, np.integer)) or isinstance(n_resamples, bool) or n_resamples < 1:
        raise ParameterError(f"The 'n_resamples' parameter of {name} must be an int >= 1. Got {n_resamples!r} instead.")


# --------------------------------------------------------------------------- bootstrap

def bootstrap_test(
    x: Any,
    y: Any | None = None,
    *,
    n_resamples: int = 10_000,
    seed: Any = 0,
) -> PairedTest:
    """Paired bootstrap test of the mean difference, two-sided.

    Queries are resampled with replacement (the same queries for both systems:
    the resampling unit is the query, so the pairing is kept). With ``d*_b`` the
    mean difference of resample ``b`` and ``d`` the observed one, the shifted
    bootstrap distribution ``d*_b - d`` stands for the null distribution
    (Efron & Tibshirani 1993, algorithm 16.2 for the mean; the two-sided form of
    Berg-Kirkpatrick, Burkett & Klein 2012):

    ``p = (1 + #{b : |d*_b - d| >= |d|}) / (B + 1)``.

    Fewer than 2 queries give ``p = 1`` (no test is possible).

    >>> r = bootstrap_test([0.5, 0.7, 0.4, 0.9, 0.6, 0.8], [0.4, 0.5, 0.4, 0.6, 0.6, 0.5], seed=1)
    >>> round(r.statistic, 6), r.p_value < 0.05
    (0.15, True)
    """
    d, one = _as_diffs(x, y, "bootstrap_test")
    _check_resamples(n_resamples, "bootstrap_test")
    m, n = d.shape
    cols = np.hstack([np.zeros((n, 1)), d.T])
    groups = np.zeros(m + 1, dtype=np.int64)
    boot = R.bootstrap_sums(cols, groups, n_resamples=n_resamples, rng=R.make_rng(seed))
    pairs = np.column_stack([np.zeros(m, dtype=np.int64), np.arange(1, m + 1)])
    p = R.bootstrap_p(boot, pairs)
    method = np.full(m, f"paired bootstrap ({n_resamples} resamples)", dtype=object)
    if n < 2:
        p = np.ones(m)
        method[:] = "undefined: fewer than 2 queries (p set to 1)"
    return _out(np.mean(d, axis=1), p, method, one)


def bootstrap_interval(
    x: Any,
    *,
    confidence: float = 0.95,
    n_resamples: int = 10_000,
    seed: Any = 0,
    method: str = "bca",
) -> tuple[Any, Any]:
    """Bootstrap confidence interval of the mean: BCa (default) or percentile.

    ``x`` is 1-D (one sample) or 2-D with one sample per *row*. Percentile: the
    ``(1-c)/2`` and ``(1+c)/2`` quantiles (linear interpolation, NumPy's default)
    of the resampled means. BCa (Efron 1987; Efron & Tibshirani 1993, ch. 14)
    moves those levels to ``Phi(z0 + (z0 + z_a) / (1 - a (z0 + z_a)))`` with the
    bias correction ``z0 = Phi^-1((#{m*_b < m} + #{m*_b = m} / 2) / B)`` (ties
    split in half, unlike SciPy which counts ``<`` only) and the acceleration from
    the jackknife, for the mean ``a = sum((x - m)^3) / (6 (sum((x - m)^2))^1.5)``.
    When ``z0`` is infinite (every resample on one side) the percentile interval
    is used. A constant sample or a single value gives the zero-width interval
    ``[m, m]``.

    >>> lo, hi = bootstrap_interval([0.2, 0.4, 0.9, 0.5, 0.7, 0.3, 0.6, 0.8], seed=3)
    >>> bool(0.3 < lo < 0.55 < hi < 0.8)
    True
    """
    xa = np.asarray(x, dtype=np.float64)
    one = xa.ndim == 1
    X = xa[None, :] if one else xa
    if X.ndim != 2 or X.shape[1] == 0:
        raise ParameterError(f"The 'x' parameter of bootstrap_interval must be a non-empty 1-D or 2-D array. "
                             f"Got shape {xa.shape} instead.")
    if not np.all(np.isfinite(X)):
        raise ParameterError("The values given to bootstrap_interval must be finite numbers. Got NaN or infinity "
                             "instead.")
    _check_resamples(n_resamples, "bootstrap_interval")
    R.check_confidence(confidence, "bootstrap_interval")
    R.check_interval_method(method, "bootstrap_interval")
    cols = X.T
    groups = np.arange(cols.shape[1], dtype=np.int64)  # each sample on its own grid
    boot = R.bootstrap_sums(cols, groups, n_resamples=n_resamples, rng=R.make_rng(seed))
    lo, hi, _ = R.intervals(boot, confidence=confidence, method=method, means=X.mean(axis=1))
    if one:
        return float(lo[0]), float(hi[0])
    return lo, hi


# --------------------------------------------------------------------------- effect size

def effect_size(x: Any, y: Any | None = None) -> tuple[Any, Any]:
    """Mean difference and standardised mean difference of paired samples.

    Returns ``(mean(d), d_z)`` with ``d_z = mean(d) / sd(d)`` (Cohen's d for
    paired samples, "d_z", Cohen 1988 / Lakens 2013; ``sd`` with ``ddof=1``). Fewer
    than 2 queries or every difference zero give ``d_z = 0``; constant non-zero
    differences give ``d_z = +-inf`` (no spread to standardise by).

    >>> md, dz = effect_size([0.5, 0.7, 0.4, 0.9], [0.4, 0.5, 0.4, 0.6])
    >>> round(md, 4), round(dz, 4)
    (0.15, 1.1619)
    """
    d, one = _as_diffs(x, y, "effect_size")
    m, n = d.shape
    mean = np.mean(d, axis=1)
    if n < 2:
        dz = np.zeros(m)
    else:
        sd = np.std(d, axis=1, ddof=1)
        with np.errstate(divide="ignore", invalid="ignore"):
            dz = np.where(sd > 0, mean / np.where(sd > 0, sd, 1.0), np.sign(mean) * np.inf)
        dz = np.where((sd == 0) & (mean == 0), 0.0, dz)
    if one:
        return float(mean[0]), float(dz[0])
    return mean, dz
