"""Prediction errors: MAE, MSE, RMSE and their normalised forms NMAE, NRMSE.

>>> from rankmeter.ratings import evaluate_ratings
>>> data = [(3, 2.3), (1, 0.9), (5, 4.9), (2, 0.9), (3, 1.5)]   # python-recsys
>>> r = evaluate_ratings(data, None, ["mae", "rmse", "nmae"], scale=(1, 5))
>>> {k: round(v, 6) for k, v in r.mean.items()}
{'mae': 0.7, 'rmse': 0.891067, 'nmae': 0.175}
"""

from __future__ import annotations

import math
from typing import Any, Mapping, Sequence, cast

import numpy as np

from ..rating_batch import RatingsBatch
from ..registry import MetricSpec, register
from ._common import AGGREGATION, RatingsExample, per_param

_RECSYS_TRUE = (3.0, 1.0, 5.0, 2.0, 3.0)
_RECSYS_PRED = (2.3, 0.9, 4.9, 0.9, 1.5)
# two users, unbalanced: u1 has two exact-ish pairs, u2 one large error
_UNBAL: dict[str, Any] = dict(true=(4.0, 2.0, 5.0), pred=(3.0, 2.0, 1.0), users=("u1", "u1", "u2"),
                              items=("a", "b", "a"))


def _err(b: RatingsBatch) -> np.ndarray:
    return b.row("err", lambda: np.subtract(b.pred, b.true))


def _abs_err(b: RatingsBatch) -> np.ndarray:
    return b.row("abs_err", lambda: np.abs(_err(b)))


def _sq_err(b: RatingsBatch) -> np.ndarray:
    return b.row("sq_err", lambda: np.square(_err(b)))


# Beyond this magnitude a rating or prediction could overflow an error, its square or a sum of them
# (1e100 squared is 1e200, times 1e100 rows is still finite): the scaled path below is taken.
_LARGE = 1e100


def _large(b: RatingsBatch) -> bool:
    """Whether some rating or prediction is large enough for the plain formulas to overflow."""
    def make() -> np.ndarray:
        if not len(b.true):
            return np.array(False)
        return np.array(max(float(np.max(np.abs(b.true))), float(np.max(np.abs(b.pred)))) > _LARGE)
    return bool(b.row("large", make))


def _scaled(b: RatingsBatch) -> tuple[np.ndarray, np.ndarray]:
    """``(s, x)``: |predicted - true| = 2 s x per row, with s its group's largest half error and x in [0, 1].

    Halves never overflow (``p/2 - t/2`` is finite for finite p and t), and errors divided
    by their group's largest are at most 1, so their squares and sums stay finite: the
    error is scaled before squaring, and a representable RMSE (2e200) is never inf.
    """
    half = np.abs(np.subtract(b.pred / 2.0, b.true / 2.0))
    s = np.zeros(b.n_groups)
    np.maximum.at(s, b.gid, half)
    s_row = s[b.gid]
    x = np.zeros(len(half))
    np.divide(half, s_row, out=x, where=s_row > 0)
    return s, x


def mae_kernel(b: RatingsBatch, per: str = "pair") -> np.ndarray:
    if _large(b):
        s, x = _scaled(b)
        with np.errstate(over="ignore"):  # a mean beyond float's range is inf, as it should be
            return s * (2.0 * b.group_mean(x))
    return b.group_mean(_abs_err(b))


def mse_kernel(b: RatingsBatch, per: str = "pair") -> np.ndarray:
    if _large(b):
        s, x = _scaled(b)
        with np.errstate(over="ignore"):  # a mean square beyond float's range is inf, as it should be
            return s * (s * (4.0 * b.group_mean(x * x)))
    return b.group_mean(_sq_err(b))


def rmse_kernel(b: RatingsBatch, per: str = "pair") -> np.ndarray:
    if _large(b):
        s, x = _scaled(b)
        with np.errstate(over="ignore"):
            out: np.ndarray = s * (2.0 * np.sqrt(b.group_mean(x * x)))
        return out
    return cast(np.ndarray, np.sqrt(mse_kernel(b)))


def nmae_kernel(b: RatingsBatch, per: str = "pair") -> np.ndarray:
    return mae_kernel(b) / b.scale_range("nmae")


def nrmse_kernel(b: RatingsBatch, per: str = "pair") -> np.ndarray:
    return rmse_kernel(b) / b.scale_range("nrmse")


def _range(true: Sequence[float], context: Mapping[str, Any] | None) -> float:
    scale = (context or {}).get("scale")
    if scale is not None:
        return float(scale.max - scale.min)
    return max(true) - min(true)


def mae_reference(true: Sequence[float], pred: Sequence[float], context: Mapping[str, Any] | None = None,
                  per: str = "pair") -> float:
    return sum(abs(p - t) for t, p in zip(true, pred, strict=True)) / len(true) if len(true) else math.nan


def mse_reference(true: Sequence[float], pred: Sequence[float], context: Mapping[str, Any] | None = None,
                  per: str = "pair") -> float:
    return sum((p - t) ** 2 for t, p in zip(true, pred, strict=True)) / len(true) if len(true) else math.nan


def rmse_reference(true: Sequence[float], pred: Sequence[float], context: Mapping[str, Any] | None = None,
                   per: str = "pair") -> float:
    return math.sqrt(mse_reference(true, pred))


def nmae_reference(true: Sequence[float], pred: Sequence[float], context: Mapping[str, Any] | None = None,
                   per: str = "pair") -> float:
    return mae_reference(true, pred) / _range(true, context)


def nrmse_reference(true: Sequence[float], pred: Sequence[float], context: Mapping[str, Any] | None = None,
                    per: str = "pair") -> float:
    return rmse_reference(true, pred) / _range(true, context)


_CITE = "Herlocker et al., TOIS 22(1) 2004, doi:10.1145/963770.963772; python-recsys; the evaluation notes."
_NORM = ("r_max - r_min comes from the declared scale (scale=(1, 5), CLI --scale 1:5) or, when none is "
         "declared, from the smallest and largest true rating of the evaluated pairs (the result's .scale "
         "says which: source 'declared' or 'data'). ")
_ERR_PROPS = frozenset({"ratings", "error", "nonnegative"})

# what every error measure shares: lower is better, no cutoff, 0 for perfect predictions
_ERROR: dict[str, Any] = dict(family="ratings", input="ratings", cutoff=False, higher_is_better=False,
                              bounds=(0.0, math.inf))

register(MetricSpec(
    **_ERROR,
    name="mae",
    summary="Mean absolute error between predicted and true ratings.",
    formula=r"MAE = \frac{1}{|T|} \sum_{(u,i) \in T} |\hat r_{ui} - r_{ui}|",
    citation=_CITE,
    convention=AGGREGATION + " mae is mae(per=pair); the evaluation notes' Average MAE is mae(per=user) or "
    "mae(per=item).",
    kernel=mae_kernel,
    reference=mae_reference,
    params=(per_param("pair"),),
    aliases={"mean_absolute_error": {}},
    examples=(
        RatingsExample("mae", _RECSYS_TRUE, _RECSYS_PRED, 0.7, note="python-recsys MAE(DATA_PRED) = 0.7",
                       tol=1e-12),
        RatingsExample("mae", (4.0,), (3.2,), 0.8, note="python-recsys MAE().compute(4.0, 3.2)", tol=1e-12),
        RatingsExample("mae", **_UNBAL, value=5 / 3, note="micro: (1 + 0 + 4) / 3"),
        RatingsExample("mae(per=user)", **_UNBAL, value=(0.5 + 4) / 2, note="macro over users: (0.5 + 4) / 2"),
        RatingsExample("mae(per=item)", **_UNBAL, value=(2.5 + 0) / 2, note="item a: (1 + 4) / 2, item b: 0"),
    ),
    properties=_ERR_PROPS,
))

register(MetricSpec(
    **_ERROR,
    name="mse",
    summary="Mean squared error between predicted and true ratings.",
    formula=r"MSE = \frac{1}{|T|} \sum_{(u,i) \in T} (\hat r_{ui} - r_{ui})^2",
    citation=_CITE,
    convention=AGGREGATION,
    kernel=mse_kernel,
    reference=mse_reference,
    params=(per_param("pair"),),
    aliases={"mean_squared_error": {}},
    examples=(RatingsExample("mse", _RECSYS_TRUE, _RECSYS_PRED, 3.97 / 5, note="(0.49+0.01+0.01+1.21+2.25)/5",
                             tol=1e-12),),
    properties=_ERR_PROPS,
))

register(MetricSpec(
    **_ERROR,
    name="rmse",
    summary="Root mean squared error between predicted and true ratings.",
    formula=r"RMSE = \sqrt{\frac{1}{|T|} \sum_{(u,i) \in T} (\hat r_{ui} - r_{ui})^2}",
    citation=_CITE,
    convention=AGGREGATION + " rmse(per=user) is the mean of the per-user RMSEs (not the root of a mean).",
    kernel=rmse_kernel,
    reference=rmse_reference,
    params=(per_param("pair"),),
    aliases={"root_mean_squared_error": {}},
    examples=(
        RatingsExample("rmse", _RECSYS_TRUE, _RECSYS_PRED, 0.891067, note="python-recsys RMSE = 0.891067",
                       tol=5e-7),
        RatingsExample("rmse", (4.0,), (3.2,), 0.8, note="python-recsys RMSE().compute(4.0, 3.2)", tol=1e-12),
        RatingsExample("rmse(per=user)", **_UNBAL, value=(math.sqrt(0.5) + 4) / 2, note="macro over users"),
        RatingsExample("rmse(per=item)", **_UNBAL, value=(math.sqrt(17 / 2) + 0) / 2, note="macro over items"),
    ),
    properties=_ERR_PROPS,
))

register(MetricSpec(
    **_ERROR,
    name="nmae",
    summary="Normalised MAE: MAE divided by the width of the rating scale.",
    formula=r"NMAE = MAE / (r_{max} - r_{min})",
    citation="Goldberg et al., Information Retrieval 4(2) 2001, doi:10.1023/A:1011419012209; evaluation notes.",
    convention=_NORM + AGGREGATION,
    kernel=nmae_kernel,
    reference=nmae_reference,
    params=(per_param("pair"),),
    aliases={"normalized_mae": {}, "normalised_mae": {}},
    examples=(
        RatingsExample("nmae", _RECSYS_TRUE, _RECSYS_PRED, 0.7 / 4, scale=(1, 5),
                       note="evaluation notes: MAE / (5 - 1)"),
        RatingsExample("nmae", _RECSYS_TRUE, _RECSYS_PRED, 0.7 / 4, note="scale from the data: 1..5"),
        RatingsExample("nmae", _RECSYS_TRUE, _RECSYS_PRED, 0.7 / 9, scale=(1, 10), note="declared 1..10"),
    ),
    properties=_ERR_PROPS | {"uses_scale"},
))

register(MetricSpec(
    **_ERROR,
    name="nrmse",
    summary="Normalised RMSE: RMSE divided by the width of the rating scale.",
    formula=r"NRMSE = RMSE / (r_{max} - r_{min})",
    citation="The evaluation notes; Gunawardana & Shani, JMLR 10 2009.",
    convention=_NORM + AGGREGATION,
    kernel=nrmse_kernel,
    reference=nrmse_reference,
    params=(per_param("pair"),),
    aliases={"normalized_rmse": {}, "normalised_rmse": {}},
    examples=(
        RatingsExample("nrmse", _RECSYS_TRUE, _RECSYS_PRED, math.sqrt(3.97 / 5) / 4, scale=(1, 5),
                       note="evaluation notes: RMSE / (5 - 1)"),
    ),
    properties=_ERR_PROPS | {"uses_scale"},
))
