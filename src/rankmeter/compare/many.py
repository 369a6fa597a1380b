"""Many systems at once: discriminative power, system-ranking correlation, ANOVA and topic-set size.

Functions of a :class:`~rankmeter.compare.comparison.Comparison` (also its methods).

- **Discriminative power** (Sakai, SIGIR 2006, doi:10.1145/1148170.1148261): the
  share of the compared pairs of runs a metric finds significantly different at
  ``alpha``; the achieved-significance-level (ASL) curve is the pairs' p-values
  sorted increasingly (Sakai plots it against the pair's rank). Needs every pair
  compared (``compare(..., pairs="all")``). The p-values are the test's adjusted
  ones by default (Tukey HSD: familywise already).
- **System-ranking correlation**: Kendall's tau and tau_AP (Yilmaz et al. 2008)
  between the orderings of the runs by their means on two metrics (one
  comparison) or on the same metric under two judgment sets (two comparisons).
- **ANOVA** (system x topic) and **topic-set size** (Sakai's power analysis with
  the ANOVA residual variance): :mod:`rankmeter.stats.anova`, :mod:`rankmeter.stats.power`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from .._errors import InputError, ParameterError

if TYPE_CHECKING:
    from .comparison import Comparison

__all__ = ["DiscriminativePower", "RankingCorrelation", "discriminative_power", "ranking_correlation",
           "score_matrix_of", "anova_of", "topic_set_size_of"]


@dataclass(frozen=True)
class DiscriminativePower:
    """One metric's discriminative power: ``significant`` of ``n_pairs`` pairs at ``alpha``; ``asl`` the
    pairs' p-values sorted increasingly (the ASL curve); ``test`` the test that gave them."""

    metric: str
    test: str
    alpha: float
    n_pairs: int
    significant: int
    asl: tuple[float, ...]

    @property
    def share(self) -> float:
        return self.significant / self.n_pairs if self.n_pairs else float("nan")


def _check_metric(cmp: "Comparison", metric: str) -> None:
    if metric not in cmp.metrics:
        raise ParameterError(f"no metric {metric!r} in this comparison (metrics: {', '.join(cmp.metrics)})")


def discriminative_power(cmp: "Comparison", *, test: str | None = None, alpha: float | None = None,
                         adjusted: bool = True) -> dict[str, DiscriminativePower]:
    """``{metric: DiscriminativePower}`` over every pair of runs of ``cmp`` (needs ``pairs="all"``)."""
    from .._params import check_number

    name = test or cmp.settings.tests[0]
    if name not in cmp.settings.tests:
        raise ParameterError(f"The 'test' parameter of discriminative_power must be one of the comparison's tests "
                             f"({', '.join(cmp.settings.tests)}). Got {test!r} instead.")
    a = cmp.settings.alpha if alpha is None else check_number("alpha", alpha, func="discriminative_power", low=0,
                                                               high=1, low_open=True, high_open=True)
    n_runs = len(cmp.runs)
    out = {}
    for m in cmp.metrics:
        tests = [t for t in cmp.tests if t.metric == m and t.test == name]
        if len(tests) != n_runs * (n_runs - 1) // 2:
            raise ParameterError("discriminative power needs every pair of runs compared: run compare with "
                                 f"pairs='all' (this comparison has {len(tests)} of the "
                                 f"{n_runs * (n_runs - 1) // 2} pairs of {m!r})")
        ps = sorted(t.p_adjusted if adjusted else t.p_value for t in tests)
        out[m] = DiscriminativePower(m, name, float(a), len(ps), sum(1 for p in ps if p < a), tuple(ps))
    return out


@dataclass(frozen=True)
class RankingCorrelation:
    """Agreement of two orderings of the same runs: Kendall's tau-b and tau_AP (the first ordering as the
    reference; NaN when a mean is tied, as tau_AP has no ties), over ``n`` runs."""

    tau: float
    tau_ap: float
    n: int
    ties: bool


def _means(x: Any, metric: str | None, what: str) -> dict[str, float]:
    from .comparison import Comparison

    if isinstance(x, Comparison):
        if metric is None:
            if len(x.metrics) != 1:
                raise ParameterError(f"The '{what}' metric must be named: the comparison has several metrics "
                                     f"({', '.join(x.metrics)})")
            metric = x.metrics[0]
        _check_metric(x, metric)
        sign = 1.0 if x.higher_is_better.get(metric, True) else -1.0
        return {r: sign * x.means[r][metric] for r in x.runs}
    return {str(k): float(v) for k, v in dict(x).items()}


def ranking_correlation(a: Any, b: Any, metric_a: str | None = None, metric_b: str | None = None
                        ) -> RankingCorrelation:
    """Kendall's tau and tau_AP between the orderings of the runs by ``a`` and by ``b``.

    ``a``, ``b``: a Comparison (with ``metric_a`` / ``metric_b`` when it has several
    metrics) or a mapping ``{run: mean}``; both must cover the same runs. Runs are
    ordered best first (lower-is-better metrics reversed).

    >>> r = ranking_correlation({"x": 0.3, "y": 0.2, "z": 0.1}, {"x": 0.3, "y": 0.1, "z": 0.2})
    >>> round(r.tau, 6), round(r.tau_ap, 6)
    (0.333333, 0.5)
    """
    from ..metrics.agreement import tau_ap
    from ..metrics.functions import kendall_tau

    ma, mb = _means(a, metric_a, "metric_a"), _means(b, metric_b, "metric_b")
    if set(ma) != set(mb):
        raise InputError(f"ranking_correlation: the two sides rank different runs ({sorted(set(ma) ^ set(mb))[:3]} "
                         "in one only)")
    runs = sorted(ma)
    if len(runs) < 2:
        raise InputError("ranking_correlation: at least 2 runs are needed")
    x = np.array([ma[r] for r in runs])
    y = np.array([mb[r] for r in runs])
    tau = kendall_tau(x, y, variant="b")
    ties = len(set(x.tolist())) < len(x) or len(set(y.tolist())) < len(y)
    if ties:
        tap = float("nan")
    else:
        order_a = [runs[i] for i in np.argsort(-x, kind="stable")]
        order_b = [runs[i] for i in np.argsort(-y, kind="stable")]
        tap = tau_ap(order_a, order_b)
    return RankingCorrelation(float(tau), float(tap), len(runs), ties)


def score_matrix_of(cmp: "Comparison", metric: str) -> np.ndarray:
    """The queries x runs matrix of ``metric``'s per-query scores (a complete block: no missing value)."""
    _check_metric(cmp, metric)
    x = np.column_stack([cmp.scores[r][metric] for r in cmp.runs])
    gaps = np.isnan(x).any(axis=1)
    if gaps.any():
        raise ParameterError(f"metric {metric!r} has no value (nan) for {int(gaps.sum())} of the {cmp.n_queries} "
                             f"{cmp.units} in at least one run; the two-way ANOVA needs a value for every query and "
                             "run: compare again on the others (queries=[...])")
    return x


def anova_of(cmp: "Comparison", metric: str) -> Any:
    from ..stats.anova import anova_two_way

    return anova_two_way(score_matrix_of(cmp, metric))


def topic_set_size_of(cmp: "Comparison", metric: str, min_diff: float, *, alpha: float | None = None,
                      beta: float = 0.20) -> Any:
    from ..stats.power import topic_set_size

    a = cmp.settings.alpha if alpha is None else alpha
    if math.isnan(a):  # pragma: no cover - settings always hold a number
        raise ParameterError("alpha is undefined")
    return topic_set_size(min_diff, alpha=a, beta=beta, scores=score_matrix_of(cmp, metric))
