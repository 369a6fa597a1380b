"""Topic-set-size design: how many topics a paired comparison needs (Sakai's power analysis).

Sakai ("Topic set size design", Information Retrieval Journal 19(3), 2016,
doi:10.1007/s10791-015-9273-z; and his book, chapter 6): to detect a true
difference of at least ``min_diff`` between two systems with a two-sided paired
t-test at level ``alpha`` with probability ``1 - beta``, choose the smallest
number of topics ``n`` whose power reaches ``1 - beta``. The power is exact,
from the noncentral t distribution:

.. math::

    1 - \\beta(n) = P(|T| > t_{1-\\alpha/2,\\,n-1}), \\quad
    T \\sim t'_{n-1}\\big(\\sqrt{n}\\, \\mathrm{minD} / \\sigma_d\\big)

where ``sigma_d^2`` is the variance of the per-topic differences. Estimated from
runs, Sakai takes ``sigma_d^2 = 2 V_E`` with ``V_E`` the residual variance of
the two-way ANOVA (system x topic) of the runs' scores
(:func:`rankmeter.stats.anova.anova_two_way`).

>>> r = topic_set_size(0.05, variance=0.02, alpha=0.05, beta=0.20)
>>> r.n, round(r.power, 4)
(128, 0.8015)
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from .._params import check_number

__all__ = ["TopicSetSize", "topic_set_size", "paired_t_power"]


@dataclass(frozen=True)
class TopicSetSize:
    """The topics needed (``n``), the power they reach and the inputs: ``variance`` is ``V_E`` (per-system
    score variance), ``diff_variance = 2 V_E`` the variance of the per-topic differences."""

    n: int
    power: float
    min_diff: float
    alpha: float
    beta: float
    variance: float
    diff_variance: float
    source: str


def paired_t_power(n: int, min_diff: float, diff_sd: float, alpha: float = 0.05) -> float:
    """Power of the two-sided paired t-test with ``n`` topics for a true mean difference ``min_diff``."""
    from scipy import stats

    if n < 2:
        return 0.0
    df = n - 1
    crit = stats.t.ppf(1 - alpha / 2, df)
    nc = math.sqrt(n) * min_diff / diff_sd
    return float(stats.nct.sf(crit, df, nc) + stats.nct.cdf(-crit, df, nc))


def topic_set_size(min_diff: float, *, alpha: float = 0.05, beta: float = 0.20, variance: float | None = None,
                   scores: Any = None, max_n: int = 10_000_000) -> TopicSetSize:
    """Smallest number of topics for a paired t-test to detect ``min_diff`` (give ``variance`` = V_E, or
    ``scores``, a topics x systems matrix from which V_E is the two-way ANOVA residual variance)."""
    from .._errors import ParameterError

    min_diff = check_number("min_diff", min_diff, func="topic_set_size", low=0, low_open=True)
    alpha = check_number("alpha", alpha, func="topic_set_size", low=0, high=1, low_open=True, high_open=True)
    beta = check_number("beta", beta, func="topic_set_size", low=0, high=1, low_open=True, high_open=True)
    if (variance is None) == (scores is None):
        raise ParameterError("topic_set_size needs exactly one of 'variance' (V_E) and 'scores' (a topics x "
                             "systems matrix). Got " + ("neither" if variance is None else "both") + " instead.")
    if scores is not None:
        from .anova import anova_two_way

        variance = anova_two_way(scores).residual_variance
        source = "residual variance of the two-way ANOVA of the scores"
    else:
        source = "given"
    variance = check_number("variance", variance, func="topic_set_size", low=0, low_open=True)
    sd = math.sqrt(2 * variance)
    target = 1 - beta
    # power grows with n: double up to an upper bound, then bisect
    lo, hi = 1, 2
    while paired_t_power(hi, min_diff, sd, alpha) < target:
        lo, hi = hi, hi * 2
        if hi > max_n:
            raise ParameterError(f"topic_set_size: more than {max_n} topics would be needed "
                                 f"(min_diff {min_diff} is tiny against the variance {variance})")
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if paired_t_power(mid, min_diff, sd, alpha) >= target:
            hi = mid
        else:
            lo = mid
    return TopicSetSize(n=hi, power=paired_t_power(hi, min_diff, sd, alpha), min_diff=min_diff, alpha=alpha,
                        beta=beta, variance=float(variance), diff_variance=2 * float(variance), source=source)
