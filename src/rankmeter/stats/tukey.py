"""Randomised Tukey HSD blocked on topics: one familywise test of every pair of many systems.

Carterette (ACM TOIS 30(1), 2012, doi:10.1145/2094072.2094076) and Sakai
("Laboratory Experiments in Information Retrieval", Springer 2018, section 4.4):
under the null hypothesis that the systems are interchangeable, the scores of one
topic may be permuted across the systems. For each permutation (every topic
permuted independently), the statistic is the range of the system means,
``max_j mean_j - min_j mean_j``. The p-value of the pair (i, j) is the share of
permutations whose range reaches the observed ``|mean_i - mean_j|``; comparing
every pair with the same distribution of the *maximum* difference controls the
familywise error over all pairs (no further correction).

Conventions: exact (all ``(m!)^n`` permutations, ``p = count / total``) when that
number is at most ``exact_max``; otherwise Monte Carlo with ``B`` random
permutations and ``p = (count + 1) / (B + 1)`` (Phipson & Smyth 2010), as the
sign-flip test of :mod:`rankmeter.stats.tests`. A range reaches the observed
difference when it is at least the difference minus a relative ``1e-12``
(floating-point sums of the same numbers in another order).

>>> X = [[0.2, 0.5, 0.4], [0.1, 0.6, 0.3], [0.3, 0.7, 0.2]]   # 3 topics x 3 systems
>>> r = tukey_hsd(X)
>>> r.method
'exact (216 permutations)'
>>> round(float(r.p_value[0, 1]), 6)
0.083333
"""

from __future__ import annotations

import itertools
import math
from typing import Any, NamedTuple

import numpy as np

from .._errors import InputError
from .._params import check_int

__all__ = ["TukeyHSD", "tukey_hsd", "EXACT_MAX"]

EXACT_MAX = 200_000


class TukeyHSD(NamedTuple):
    """Pairwise familywise p-values (``p_value[i, j]``, symmetric, 1 on the diagonal),
    differences of means (``diff[i, j] = mean_j - mean_i``) and how the test ran."""

    p_value: np.ndarray
    diff: np.ndarray
    method: str


def _matrix(scores: Any) -> np.ndarray:
    X = np.asarray(scores, dtype=np.float64)
    if X.ndim != 2 or X.shape[0] < 1 or X.shape[1] < 2:
        raise InputError(f"tukey_hsd: scores must be a topics x systems matrix with at least 1 topic and "
                         f"2 systems, got shape {X.shape}")
    if not np.all(np.isfinite(X)):
        raise InputError("tukey_hsd: scores must be finite (a NaN or infinite value was found)")
    return X


def _count_exceed(ranges: np.ndarray, obs: np.ndarray) -> np.ndarray:
    """For each observed difference, how many ranges reach it."""
    tol = 1e-12 * max(1.0, float(np.max(np.abs(obs))) if obs.size else 1.0)
    srt = np.sort(ranges)
    return len(srt) - np.searchsorted(srt, obs - tol, side="left")


def tukey_hsd(scores: Any, *, n_resamples: int = 10_000, seed: Any = 0, exact_max: int = EXACT_MAX,
              rng: np.random.Generator | None = None) -> TukeyHSD:
    """Randomised Tukey HSD on a topics x systems matrix of scores (blocked on topics).

    ``seed`` (or a ``numpy.random.Generator`` as ``rng``) makes the Monte Carlo
    test reproducible; the permutations are drawn in blocks from one stream, so the
    result does not depend on the thread count.
    """
    from .resampling import make_rng

    X = _matrix(scores)
    n, m = X.shape
    n_resamples = check_int("n_resamples", n_resamples, func="tukey_hsd", low=1)
    exact_max = check_int("exact_max", exact_max, func="tukey_hsd", low=0)
    means = X.mean(axis=0)
    diff = means[None, :] - means[:, None]
    obs = np.abs(diff)
    total = math.factorial(m) ** n
    if total <= exact_max:
        perms = np.array(list(itertools.permutations(range(m))), dtype=np.int64)  # (m!, m)
        sums = np.zeros((total, m))
        codes = np.arange(total, dtype=np.int64)  # permutation combination c: topic t uses perms[digit t of c]
        for t in range(n):
            digit = (codes // len(perms) ** (n - 1 - t)) % len(perms)
            sums += X[t][perms[digit]]
        perm_means = sums / n
        ranges = perm_means.max(axis=1) - perm_means.min(axis=1)
        p = _count_exceed(ranges, obs.ravel()).reshape(m, m) / total
        method = f"exact ({total} permutations)"
    else:
        gen = rng if rng is not None else make_rng(seed)
        ranges = np.empty(n_resamples)
        block = max(1, min(n_resamples, 4_000_000 // max(1, n * m)))
        done = 0
        while done < n_resamples:
            b = min(block, n_resamples - done)
            order = np.argsort(gen.random((b, n, m)), axis=2)
            perm = np.take_along_axis(np.broadcast_to(X, (b, n, m)), order, axis=2)
            pm = perm.mean(axis=1)
            ranges[done: done + b] = pm.max(axis=1) - pm.min(axis=1)
            done += b
        p = (_count_exceed(ranges, obs.ravel()).reshape(m, m) + 1) / (n_resamples + 1)
        method = f"Monte Carlo ({n_resamples} permutations)"
    p = np.minimum(p, 1.0)
    np.fill_diagonal(p, 1.0)
    return TukeyHSD(p_value=p, diff=diff, method=method)
