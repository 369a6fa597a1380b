"""Metrics: the registry (:mod:`rankmeter.metrics.registry`) and functions for single lists and arrays.

The functions are in the scikit-learn spirit: plain Python or numpy in, a number
out, for one ranking, one set or one pair of arrays. Each builds a one-query batch
and calls the registered kernel, so it gives exactly what ``rankmeter.evaluate`` /
``rankmeter.evaluate_ratings`` give for the same list.

>>> from rankmeter.metrics import mae, kendall_tau, ndcg
>>> mae([3, 1, 5, 2, 3], [2.3, 0.9, 4.9, 0.9, 1.5])
0.7
>>> round(kendall_tau([50, 100, 25, 25], [25, 75, 50, 25]), 6)
0.4
>>> round(ndcg(["1", "3", "2", "6"], {"1": 1, "2": 1, "4": 1}, k=2), 6)
0.613147

Importing this package is light (numpy only); the functions load on first use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

__all__ = [
    # ratings
    "mae",
    "mse",
    "rmse",
    "nmae",
    "nrmse",
    "mean_cost",
    # rank correlation and ROC
    "spearman_rho",
    "kendall_tau",
    "kendall_distance",
    "roc_auc",
    "roc_curve",
    # sets
    "set_precision_recall_f",
    "confusion_counts",
    # ranking
    "precision",
    "recall",
    "f_score",
    "average_precision",
    "reciprocal_rank",
    "dcg",
    "ndcg",
    "rbp",
    "err",
    "rank_score",
    "lift_index",
    "bpref",
    "ranking_auc",
    "r_precision",
    "hits",
    "success",
    "ranking_spearman",
    "ranking_kendall",
    "metric",
    # agreement between two rankings
    "rbo",
    "RBOResult",
    "tau_ap",
    "kendall_tau_rankings",
    "tie_groups",
]

_AGREEMENT = ("rbo", "RBOResult", "tau_ap", "kendall_tau_rankings", "tie_groups")

if TYPE_CHECKING:  # the functions loaded on first use, as type checkers see them
    from .agreement import RBOResult, kendall_tau_rankings, rbo, tau_ap, tie_groups
    from .functions import (
        average_precision,
        bpref,
        confusion_counts,
        dcg,
        err,
        f_score,
        hits,
        kendall_distance,
        kendall_tau,
        lift_index,
        mae,
        mean_cost,
        metric,
        mse,
        ndcg,
        nmae,
        nrmse,
        precision,
        r_precision,
        rank_score,
        ranking_auc,
        ranking_kendall,
        ranking_spearman,
        rbp,
        recall,
        reciprocal_rank,
        rmse,
        roc_auc,
        roc_curve,
        set_precision_recall_f,
        spearman_rho,
        success,
    )


def __getattr__(name: str) -> Any:
    if name in _AGREEMENT:
        from . import agreement

        return getattr(agreement, name)
    if name in __all__:
        from . import functions

        return getattr(functions, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(list(globals()) + __all__)
