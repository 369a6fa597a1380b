"""Rating prediction evaluation: predicted against true ratings on (user, item) pairs.

:func:`evaluate_ratings` joins true and predicted ratings on (user, item) (or takes
one table holding both, or two aligned arrays), reports what could not be joined,
and runs the rating metrics of the registry (``mae``, ``rmse``, ``nmae``,
``mae(per=user)``, ``cost``, ``spearman``, ``roc_auc`` ...). See docs/ratings.md.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..metrics.rating_batch import RatingsBatch
from ..metrics.rating_costs import CostMatrix
from ..metrics.rating_scale import Scale

__all__ = [
    "CostMatrix",
    "RatingsBatch",
    "RatingsCoverage",
    "RatingsResult",
    "Scale",
    "evaluate_ratings",
    "load_ratings",
    "roc_curves",
]

if TYPE_CHECKING:  # the names loaded on first use, as type checkers see them
    from ._input import RatingsCoverage, load_ratings
    from .evaluate import RatingsResult, evaluate_ratings, roc_curves

_LAZY = {
    "evaluate_ratings": "evaluate",
    "RatingsResult": "evaluate",
    "RatingsCoverage": "_input",
    "load_ratings": "_input",
    "roc_curves": "evaluate",
}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        import importlib

        module = importlib.import_module(f"{__name__}.{_LAZY[name]}")
        return getattr(module, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
