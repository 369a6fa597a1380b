"""Shared pieces of the rating metrics: the ``per`` parameter and worked examples."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence

from ..registry import Param

__all__ = ["per_param", "RatingsExample", "AGGREGATION"]

AGGREGATION = (
    "per=pair pools every evaluated pair into one group (the global, micro value); per=user "
    "averages the per-user values (macro); per=item averages the per-item values."
)


def per_param(default: str) -> Param:
    return Param(
        "per",
        str,
        default,
        "what the mean is over: pair (all pairs pooled, micro), user or item (mean of per-group values, macro)",
        choices=("pair", "user", "item"),
    )


@dataclass(frozen=True)
class RatingsExample:
    """A worked example: true and predicted ratings (optionally users and items) and the value.

    ``value`` is the aggregate :func:`rankmeter.evaluate_ratings` reports for the metric
    string ``metric`` (which may carry parameters); ``scale`` and ``cost`` are passed
    through. Run as a test by ``tests/ratings/test_examples.py``.
    """

    metric: str
    true: Sequence[float]
    pred: Sequence[float]
    value: float
    users: Sequence[str] | None = None
    items: Sequence[str] | None = None
    scale: Any = None
    cost: Any = None
    note: str = ""
    tol: float = 1e-12
    params: Mapping[str, Any] = field(default_factory=dict)
