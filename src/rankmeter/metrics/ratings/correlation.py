"""Rank correlation of predicted and true ratings, per user (or item, or pooled).

Each user's predicted ratings order their items; so do the true ratings. Spearman's
rho and Kendall's tau measure how well the two orders agree, ties included (tau-b by
default). python-recsys computes both with scipy on its example.

>>> from rankmeter.ratings import evaluate_ratings
>>> data = [(3, 2.3), (1, 0.9), (5, 4.9), (2, 0.9), (3, 1.5)]   # python-recsys
>>> r = evaluate_ratings(data, None, ["spearman", "kendall"])
>>> {k: round(v, 6) for k, v in r.mean.items()}
{'spearman': 0.947368, 'kendall': 0.888889}
"""

from __future__ import annotations

import math
from typing import Any, Mapping, Sequence

import numpy as np

from .. import rankstats as RS
from ..rating_batch import RatingsBatch
from ..registry import MetricSpec, Param, register
from ._common import RatingsExample, per_param

VARIANT = Param("variant", str, "b", "a: no tie correction; b: tie-corrected (scipy's default); c: Stuart's tau-c",
                choices=("a", "b", "c"))
NORMALIZE = Param("normalize", bool, True, "divide by n(n-1)/2 (to [0, 1]); false gives the number of pairs")

_RECSYS_TRUE = (3.0, 1.0, 5.0, 2.0, 3.0)
_RECSYS_PRED = (2.3, 0.9, 4.9, 0.9, 1.5)
# python-recsys's explicit ranking example as one user's ratings of four items
_EXPL_ITEMS = ("classical", "piano", "baroque", "instrumental")
_EXPL_TRUE = (50.0, 100.0, 25.0, 25.0)
_EXPL_PRED = (25.0, 75.0, 50.0, 25.0)

_UNDEFINED = (
    "A group with fewer than two pairs, or whose true or predicted ratings are all equal, has no value "
    "(NaN in the per-user table); it is left out of per=user / per=item means and counted in the result's "
    "notes."
)


def _segments(b: RatingsBatch) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    return b.segments()


def spearman_kernel(b: RatingsBatch, per: str = "user") -> np.ndarray:
    off, t, p = _segments(b)
    return RS.spearman_rho(off, t, p)


def kendall_kernel(b: RatingsBatch, per: str = "user", variant: str = "b") -> np.ndarray:
    off, t, p = _segments(b)
    key = ("kendall_counts", b.by)
    counts = b._cache.get(key)
    if counts is None:
        counts = b._cache[key] = RS.kendall_counts(off, t, p)
    return RS.kendall_tau(counts, variant)


def kendall_distance_kernel(b: RatingsBatch, per: str = "user", normalize: bool = True) -> np.ndarray:
    off, t, p = _segments(b)
    key = ("kendall_counts", b.by)
    counts = b._cache.get(key)
    if counts is None:
        counts = b._cache[key] = RS.kendall_counts(off, t, p)
    d = counts.discordant.astype(np.float64)
    if not normalize:
        return d
    pairs = counts.pairs.astype(np.float64)
    return np.divide(d, pairs, out=np.zeros_like(d), where=pairs > 0)


# ---------------------------------------------------------------- slow references (one group)


def _avg_ranks(values: Sequence[float]) -> list[float]:
    return [sum(1 for w in values if w < v) + (sum(1 for w in values if w == v) + 1) / 2 for v in values]


def spearman_reference(true: Sequence[float], pred: Sequence[float], context: Mapping[str, Any] | None = None,
                       per: str = "user") -> float:
    n = len(true)
    if n < 2:
        return math.nan
    rx, ry = _avg_ranks(true), _avg_ranks(pred)
    mx, my = sum(rx) / n, sum(ry) / n
    sxy = sum((a - mx) * (b - my) for a, b in zip(rx, ry, strict=True))
    sxx = sum((a - mx) ** 2 for a in rx)
    syy = sum((b - my) ** 2 for b in ry)
    return sxy / math.sqrt(sxx * syy) if sxx > 0 and syy > 0 else math.nan


def _pair_counts(x: Sequence[float], y: Sequence[float]) -> tuple[int, int, int, int, int]:
    con = dis = tx = ty = txy = 0
    n = len(x)
    for i in range(n):
        for j in range(i + 1, n):
            dx, dy = x[i] - x[j], y[i] - y[j]
            if dx == 0 and dy == 0:
                txy += 1
            elif dx == 0:
                tx += 1
            elif dy == 0:
                ty += 1
            elif (dx > 0) == (dy > 0):
                con += 1
            else:
                dis += 1
    return con, dis, tx, ty, txy


def kendall_reference(true: Sequence[float], pred: Sequence[float], context: Mapping[str, Any] | None = None,
                      per: str = "user", variant: str = "b") -> float:
    n = len(true)
    if n < 2:
        return math.nan
    con, dis, tx, ty, txy = _pair_counts(true, pred)
    n0 = n * (n - 1) // 2
    if variant == "a":
        return (con - dis) / n0
    if variant == "b":
        den = math.sqrt((con + dis + tx) * (con + dis + ty))  # pairs untied in y / in x
        return (con - dis) / den if den > 0 else math.nan
    m = min(len(set(true)), len(set(pred)))
    return 2 * (con - dis) / (n * n * (m - 1) / m) if m > 1 else math.nan


def kendall_distance_reference(true: Sequence[float], pred: Sequence[float],
                               context: Mapping[str, Any] | None = None, per: str = "user",
                               normalize: bool = True) -> float:
    n = len(true)
    _, dis, _, _, _ = _pair_counts(true, pred)
    if not normalize:
        return float(dis)
    return dis / (n * (n - 1) / 2) if n > 1 else 0.0


_CITE_S = "Spearman, Am. J. Psychol. 15(1) 1904, doi:10.2307/1412159; python-recsys."
_CITE_K = "Kendall, Biometrika 30 1938, doi:10.1093/biomet/30.1-2.81; Kendall, Biometrika 33 1945 (tau-b); " \
          "python-recsys."
_CORR_PROPS = frozenset({"ratings", "correlation", "undefined_nan", "symmetric"})

register(MetricSpec(
    name="rating_spearman",
    family="ratings",
    summary="Spearman's rho between each user's predicted and true ratings.",
    formula=(r"\rho = \frac{\sum_i (R_i - \bar R)(\hat R_i - \bar{\hat R})}"
             r"{\sqrt{\sum_i (R_i - \bar R)^2 \sum_i (\hat R_i - \bar{\hat R})^2}}"),
    citation=_CITE_S,
    convention=(
        "Pearson's correlation of the average ranks (ties get the mean of their ranks), as scipy.stats.spearmanr "
        "and python-recsys; the shortcut 1 - 6 sum d^2 / (n(n^2-1)) is exact only without ties (it gives 0.55 "
        "instead of python-recsys's 0.5). " + _UNDEFINED + " Default per=user; per=pair correlates all pairs pooled. "
        "In evaluate_ratings the plain name spearman means this metric."
    ),
    kernel=spearman_kernel,
    reference=spearman_reference,
    params=(per_param("user"),),
    aliases={"rating_spearman_rho": {}, "rating_rho": {}},
    examples=(
        RatingsExample("spearman", _RECSYS_TRUE, _RECSYS_PRED, 0.947368, tol=5e-7, note="python-recsys: 0.947368"),
        RatingsExample("spearman", _EXPL_TRUE, _EXPL_PRED, 0.5, items=_EXPL_ITEMS, note="python-recsys: 0.5"),
    ),
    cutoff=False,
    bounds=(-1.0, 1.0),
    properties=_CORR_PROPS,
    input="ratings",
))

register(MetricSpec(
    name="rating_kendall",
    family="ratings",
    summary="Kendall's tau between each user's predicted and true ratings (tau-b by default).",
    formula=r"\tau_b = \frac{C - D}{\sqrt{(n_0 - n_1)(n_0 - n_2)}},\ n_0 = n(n-1)/2",
    citation=_CITE_K,
    convention=(
        "C, D: concordant and discordant pairs; n_1, n_2: pairs tied in the true / predicted ratings. "
        "variant=b (default) is scipy's and reproduces python-recsys's 0.4 and 0.888889 (tau-a gives 1/3 and 0.8); "
        "variant=a divides by n_0; variant=c is Stuart's tau-c. O(n log n). " + _UNDEFINED
        + " In evaluate_ratings the plain name kendall means this metric."
    ),
    kernel=kendall_kernel,
    reference=kendall_reference,
    params=(per_param("user"), VARIANT),
    aliases={"rating_kendall_tau": {}, "rating_tau_a": {"variant": "a"}, "rating_tau_b": {"variant": "b"}},
    examples=(
        RatingsExample("kendall", _RECSYS_TRUE, _RECSYS_PRED, 0.888889, tol=5e-7, note="python-recsys: 0.888889"),
        RatingsExample("kendall", _EXPL_TRUE, _EXPL_PRED, 0.4, items=_EXPL_ITEMS, tol=1e-12, note="python-recsys: 0.4"),
        RatingsExample("kendall(variant=a)", _RECSYS_TRUE, _RECSYS_PRED, 0.8, note="tau-a: (8 - 0) / 10"),
        RatingsExample("kendall(variant=a)", _EXPL_TRUE, _EXPL_PRED, 1 / 3, items=_EXPL_ITEMS,
                       note="tau-a: (3 - 1) / 6"),
    ),
    cutoff=False,
    bounds=(-1.0, 1.0),
    properties=_CORR_PROPS,
    input="ratings",
))

register(MetricSpec(
    name="rating_kendall_distance",
    family="ratings",
    summary="Kendall distance: pairs of items the predicted ratings order against the true ones.",
    formula=r"K = |\{(i, j) : (r_i - r_j)(\hat r_i - \hat r_j) < 0\}| \;/\; (n(n-1)/2)",
    citation="Kendall (1938); Fagin, Kumar & Sivakumar, SIAM J. Discrete Math. 17(1) 2003 (p = 0).",
    convention=(
        "Pairs tied on either side are not discordant (Fagin's K^(0)); normalize=true (default) divides by "
        "all n(n-1)/2 pairs, so it lies in [0, 1] and equals (1 - tau_a)/2 without ties; normalize=false "
        "gives the count. A group with fewer than two pairs has distance 0."
    ),
    kernel=kendall_distance_kernel,
    reference=kendall_distance_reference,
    params=(per_param("user"), NORMALIZE),
    aliases={},
    examples=(
        RatingsExample("kendall_distance(normalize=false)", _RECSYS_TRUE, _RECSYS_PRED, 0.0,
                       note="python-recsys ratings: no discordant pair"),
        RatingsExample("kendall_distance(normalize=false)", _EXPL_TRUE, _EXPL_PRED, 1.0, items=_EXPL_ITEMS,
                       note="python-recsys: classical/baroque swapped"),
        RatingsExample("kendall_distance", _EXPL_TRUE, _EXPL_PRED, 1 / 6, items=_EXPL_ITEMS),
    ),
    cutoff=False,
    higher_is_better=False,
    bounds=(0.0, math.inf),
    properties=frozenset({"ratings", "correlation", "symmetric", "nonnegative"}),
    input="ratings",
))
