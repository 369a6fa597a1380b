"""Mean asymmetric cost d(predicted, true) on a discrete rating scale (evaluation notes).

>>> from rankmeter.ratings import evaluate_ratings
>>> costs = {(3, 1): 5, (2, 1): 3, (3, 2): 3, (1, 2): 1, (2, 3): 1, (1, 3): 2}   # d(predicted, true)
>>> r = evaluate_ratings([(1, 3), (3, 1), (2, 2)], None, "cost", cost=costs)
>>> r.mean   # (d(3,1) + d(1,3) + d(2,2)) / 3: a disliked item recommended costs 5, a liked one missed 2
{'cost': 2.3333333333333335}
"""

from __future__ import annotations

import math
from typing import Any, Mapping, Sequence

import numpy as np

from ..._errors import ParameterError
from ..rating_batch import RatingsBatch
from ..rating_costs import ASYMMETRIC_LIKE_COSTS, CostMatrix
from ..registry import MetricSpec, Param, register
from ._common import AGGREGATION, RatingsExample, per_param

SNAP = Param(
    "snap",
    str,
    "exact",
    "predictions off the cost matrix's levels: exact = an error, nearest = rounded to the nearest level "
    "(halfway: the lower one)",
    choices=("exact", "nearest"),
)


def _matrix(context: Mapping[str, Any] | None) -> CostMatrix:
    cm = (context or {}).get("cost")
    if cm is None:
        raise ParameterError(
            "cost needs a cost matrix d(predicted, true): evaluate_ratings(..., cost={(3, 1): 5, (1, 3): 2, ...}) "
            "(CLI: --cost '3,1=5;1,3=2;...')")
    return CostMatrix.from_any(cm)


def cost_kernel(b: RatingsBatch, per: str = "pair", snap: str = "exact") -> np.ndarray:
    cm = _matrix(b.context)
    costs = b.row(("cost", snap), lambda: cm.costs(b.pred, b.true, snap))
    return b.group_mean(costs)


def cost_reference(true: Sequence[float], pred: Sequence[float], context: Mapping[str, Any] | None = None,
                   per: str = "pair", snap: str = "exact") -> float:
    cm = _matrix(context)
    levels = list(cm.levels)

    def index(v: float, snapping: bool) -> int:
        if not snapping:
            return levels.index(v)
        best = min(range(len(levels)), key=lambda i: (abs(levels[i] - v), levels[i]))
        return best

    total = 0.0
    for t, p in zip(true, pred, strict=True):
        total += float(cm.matrix[index(p, snap == "nearest"), index(t, False)])
    return total / len(true) if len(true) else math.nan


_T = (1.0, 3.0, 2.0, 3.0, 1.0)
_P = (3.0, 1.0, 2.0, 2.0, 2.0)

register(MetricSpec(
    name="cost",
    family="ratings",
    summary="Mean of a user-supplied cost d(predicted, true) over the pairs (asymmetric errors).",
    formula=r"cost = \frac{1}{|T|} \sum_{(u,i) \in T} d(\hat r_{ui}, r_{ui})",
    citation="Gunawardana & Shani, JMLR 10 2009 (section 3.1.1); evaluation notes.",
    convention=(
        "d's first argument is the prediction, the second the true rating: on the evaluation notes' like (3) / "
        "neutral (2) / "
        "dislike (1) scale d(3,1) = 5 is recommending a disliked item, d(1,3) = 2 missing a liked one. The "
        "matrix is passed as evaluate_ratings(cost=...) (a mapping {(predicted, true): cost}, (levels, matrix) "
        "with rows = predicted, or 'P,T=C;...'); the diagonal defaults to 0 and a pair met without a cost is "
        "an error. " + AGGREGATION
    ),
    kernel=cost_kernel,
    reference=cost_reference,
    params=(per_param("pair"), SNAP),
    aliases={"mean_cost": {}, "asymmetric_cost": {}},
    examples=(
        RatingsExample("cost", _T, _P, (5 + 2 + 0 + 1 + 3) / 5, cost=ASYMMETRIC_LIKE_COSTS,
                       note="evaluation notes: d(3,1) + d(1,3) + d(2,2) + d(2,3) + d(2,1) over 5 pairs"),
        RatingsExample("cost", (1.0,), (3.0,), 5.0, cost=ASYMMETRIC_LIKE_COSTS,
                       note="recommending a disliked item"),
        RatingsExample("cost", (3.0,), (1.0,), 2.0, cost=ASYMMETRIC_LIKE_COSTS, note="missing a liked item"),
        RatingsExample("cost(snap=nearest)", (1.0, 3.0), (2.6, 1.4), (5 + 2) / 2, cost=ASYMMETRIC_LIKE_COSTS,
                       note="2.6 -> 3, 1.4 -> 1"),
    ),
    cutoff=False,
    higher_is_better=False,
    bounds=(0.0, math.inf),
    properties=frozenset({"ratings", "error", "nonnegative", "needs_cost"}),
    input="ratings",
))
