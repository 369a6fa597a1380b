"""Metric functions for one list, one set or one pair of arrays (scikit-learn style).

Every function here builds a one-query (or one-group) batch and calls the kernel
registered for the metric, so its value is the one ``rankmeter.evaluate`` or
``rankmeter.evaluate_ratings`` reports for the same data.

Ranking functions take ``ranked`` (item ids, best first) and ``relevance``: a
mapping ``{item: grade}`` or a collection of relevant items (grade 1 each), plus
the cutoff ``k`` (None: the whole list) and the metric's parameters.

>>> precision(["a", "x", "b"], {"a", "b", "c"}, k=2)
0.5
>>> round(average_precision(["a", "x", "b"], {"a", "b", "c"}), 6)
0.555556
>>> rmse([3, 1, 5, 2, 3], [2.3, 0.9, 4.9, 0.9, 1.5])   # python-recsys
0.8910667763978186
>>> set_precision_recall_f(["classical", "invented", "baroque", "instrumental"],
...                        ["classical", "instrumental", "piano", "baroque"])
(0.75, 0.75, 0.75)
"""

from __future__ import annotations

import math
from typing import Any, Iterable, Mapping, Protocol, Sequence, TypeVar

import numpy as np

from .._errors import InputError, ParameterError
from .._params import check_int
from . import rankstats as RS
from .batch import Batch
from .registry import MetricSpec, get_spec, parse_metric

__all__ = [
    "mae", "mse", "rmse", "nmae", "nrmse", "mean_cost",
    "spearman_rho", "kendall_tau", "kendall_distance", "roc_auc", "roc_curve",
    "set_precision_recall_f", "confusion_counts",
    "precision", "recall", "f_score", "average_precision", "reciprocal_rank", "dcg", "ndcg", "rbp", "err",
    "rank_score", "lift_index", "bpref", "ranking_auc", "r_precision", "hits", "success",
    "ranking_spearman", "ranking_kendall", "metric",
]


# --------------------------------------------------------------------------- ranking


def _judgments(relevance: Any) -> dict[str, float]:
    if isinstance(relevance, Mapping):
        out = {}
        for item, g in relevance.items():
            try:
                gf = float(g)
            except (TypeError, ValueError):
                raise InputError(f"the grade of item {item!r} must be a number, got {g!r}") from None
            if math.isnan(gf):
                raise InputError(f"the grade of item {item!r} is NaN")
            out[str(item)] = gf
        return out
    if isinstance(relevance, (str, bytes)):
        raise InputError("relevance must be a mapping {item: grade} or a collection of relevant items, not a string")
    try:
        return {str(item): 1.0 for item in relevance}
    except TypeError:
        raise InputError(
            f"relevance must be a mapping {{item: grade}} or a collection of items, got {type(relevance).__name__}"
        ) from None


def _ranking(ranked: Any) -> list[str]:
    if isinstance(ranked, (str, bytes)):
        raise InputError("ranked must be a sequence of item ids, not a string")
    items = [str(x) for x in ranked]
    if len(set(items)) != len(items):
        seen: set[str] = set()
        # set.add: finds the first repeat (the ignore below)
        dup = next(x for x in items if x in seen or seen.add(x))  # type: ignore[func-returns-value]
        raise InputError(f"item {dup!r} appears twice in the ranking")
    return items


def _params(spec: MetricSpec, given: Mapping[str, Any], base: Mapping[str, Any] | None = None) -> dict[str, Any]:
    values = {p.name: p.default for p in spec.params}
    if base:
        values.update(base)
    for key, raw in given.items():
        p = spec.param(key)
        if p is None:
            allowed = ", ".join(q.name for q in spec.params) or "none"
            raise ParameterError(f"{spec.name} has no parameter {key!r} (parameters: {allowed})")
        values[key] = raw if raw is None else p.coerce(raw, spec.name)
    return values


def _check_k(k: Any, name: str) -> int | None:
    return check_int("k", k, func=name, low=1, allow_none=True)  # type: ignore[no-any-return]  # check_int returns Any


def metric(name: str, ranked: Sequence[Any], relevance: Any, k: int | None = None, **params: Any) -> float:
    """Any ranking metric of the registry on one ranked list, by name.

    ``name`` may carry parameters and a cutoff (``"ndcg(gain=exp)@5"``); ``k`` and
    ``params`` override them.

    >>> round(metric("ndcg(gain=exp)@2", ["1", "3", "2", "6", "4"], {"1": 5, "3": 2, "2": 4, "6": 1, "4": 3}), 6)
    0.812891
    """
    m = parse_metric(name)
    spec = m.spec
    if spec.input != "ranking":
        raise ParameterError(f"metric {name!r} evaluates {spec.input}, not a ranking: use the rating functions")
    if spec.level != "query":
        raise ParameterError(f"metric {name!r} is a property of many lists; use rankmeter.evaluate")
    k = _check_k(k, spec.name) if k is not None else m.k
    if k is not None and not spec.cutoff:
        raise ParameterError(f"metric {spec.name} takes no cutoff k")
    values = _params(spec, params, m.params)
    judgments = _judgments(relevance)
    items = _ranking(ranked)
    context = {"max_grade": max(judgments.values()) if judgments else 1.0}
    batch = Batch.from_lists([items], [judgments], context=context)
    return float(np.asarray(spec.kernel(batch.cut(k), **values), dtype=np.float64)[0])


class RankingFunction(Protocol):
    """The signature of the single-ranking functions (:func:`ndcg`, :func:`precision`, ...)."""

    def __call__(self, ranked: Sequence[Any], relevance: Any, k: int | None = None, **params: Any) -> float: ...


_F = TypeVar("_F")


def _ranking_fn(spec_name: str, preset: Mapping[str, Any] | None = None) -> RankingFunction:
    def fn(ranked: Sequence[Any], relevance: Any, k: int | None = None, **params: Any) -> float:
        spec = get_spec(spec_name)
        _check_k(k, spec.name)
        merged = dict(preset or {})
        merged.update(params)
        return metric(spec.name, ranked, relevance, k, **merged)

    return fn


def _doc(fn: _F, name: str, spec_name: str, extra: str = "") -> _F:
    f: Any = fn  # a function: its name and docstring are set
    f.__name__ = f.__qualname__ = name
    spec = get_spec(spec_name)
    params = ", ".join(f"{p.name}={p.default!r}" for p in spec.params) or "none"
    f.__doc__ = (f"{spec.summary}\n\n    Formula: ``{spec.formula}``\n\n    {spec.convention}\n\n"
                 f"    Parameters of the registered metric ``{spec.name}``: {params}. Reference: {spec.citation}"
                 f"{extra}")
    return fn


precision = _doc(_ranking_fn("p"), "precision", "p",
                 "\n\n    >>> precision(['1', '3', '2', '6'], ['1', '2', '4'], k=2)\n    0.5")
recall = _doc(_ranking_fn("r"), "recall", "r",
              "\n\n    >>> round(recall(['1', '3', '2', '6'], ['1', '2', '4']), 6)\n    0.666667")
f_score = _doc(_ranking_fn("f"), "f_score", "f",
               "\n\n    >>> f_score(['classical', 'invented', 'baroque', 'instrumental'],"
               "\n    ...         ['classical', 'instrumental', 'piano', 'baroque'], k=4)\n    0.75")
average_precision = _doc(_ranking_fn("ap"), "average_precision", "ap")
reciprocal_rank = _doc(_ranking_fn("rr"), "reciprocal_rank", "rr",
                       "\n\n    >>> reciprocal_rank(['classical', 'instrumental', 'piano'], ['instrumental'])\n"
                       "    0.5")
dcg = _doc(_ranking_fn("dcg"), "dcg", "dcg")
ndcg = _doc(_ranking_fn("ndcg"), "ndcg", "ndcg",
            "\n\n    >>> round(ndcg(['1', '3', '2', '6'], {'1': 1, '2': 1, '4': 1}), 6)\n    0.703918")
rbp = _doc(_ranking_fn("rbp"), "rbp", "rbp")
err = _doc(_ranking_fn("err"), "err", "err")
rank_score = _doc(_ranking_fn("rank_score"), "rank_score", "rank_score")
lift_index = _doc(_ranking_fn("lift_index"), "lift_index", "lift_index")
bpref = _doc(_ranking_fn("bpref"), "bpref", "bpref")
ranking_auc = _doc(_ranking_fn("auc"), "ranking_auc", "auc")
r_precision = _doc(_ranking_fn("rprec"), "r_precision", "rprec")
hits = _doc(_ranking_fn("hits"), "hits", "hits")
success = _doc(_ranking_fn("success"), "success", "success")
ranking_spearman = _doc(_ranking_fn("spearman"), "ranking_spearman", "spearman",
                        "\n\n    >>> ranking_spearman(['c', 'b', 'a'], {'a': 3, 'b': 2, 'c': 1})\n    -1.0")
ranking_kendall = _doc(_ranking_fn("kendall"), "ranking_kendall", "kendall")


# --------------------------------------------------------------------------- sets


def _as_set_list(values: Iterable[Any], what: str) -> list[str]:
    if isinstance(values, (str, bytes)):
        raise InputError(f"{what} must be a collection of item ids, not a string")
    items = [str(x) for x in values]
    if len(set(items)) != len(items):
        raise InputError(f"{what} holds an item twice")
    return items


def set_precision_recall_f(recommended: Iterable[Any], relevant: Iterable[Any],
                           beta: float = 1.0) -> tuple[float, float, float]:
    """Precision, recall and F-beta of an unordered recommended set against the relevant set.

    P = TP / (TP + FP), R = TP / (TP + FN), F = (1 + beta^2) P R / (beta^2 P + R); 0 when
    a denominator is 0 (registry: ``set_p``, ``set_recall``, ``set_f``; python-recsys).

    >>> [round(v, 6) for v in set_precision_recall_f(["a", "b"], ["b", "c", "d"], beta=2.0)]
    [0.5, 0.333333, 0.357143]
    """
    rec = _as_set_list(recommended, "recommended")
    rel = {x: 1.0 for x in _as_set_list(relevant, "relevant")}
    p = metric("p", rec, rel, norm="retrieved")
    r = metric("r", rec, rel)
    f = metric("set_f", rec, rel, beta=beta)
    return p, r, f


def confusion_counts(recommended: Iterable[Any], relevant: Iterable[Any],
                     catalog: int | None = None) -> dict[str, int]:
    """TP, FP, FN and (given the catalogue size) TN of a recommended set against the relevant set.

    >>> confusion_counts(["classical", "invented", "baroque", "instrumental"],
    ...                  ["classical", "instrumental", "piano", "baroque"], catalog=10)
    {'tp': 3, 'fp': 1, 'fn': 1, 'tn': 5}
    """
    rec = _as_set_list(recommended, "recommended")
    rel = {x: 1.0 for x in _as_set_list(relevant, "relevant")}
    out = {name: int(metric(name, rec, rel)) for name in ("tp", "fp", "fn")}
    if catalog is not None:
        out["tn"] = int(metric("tn", rec, rel, catalog=catalog))
    return out


# --------------------------------------------------------------------------- ratings


def _pair_arrays(y_true: Any, y_pred: Any, what: str = "ratings") -> tuple[np.ndarray, np.ndarray]:
    try:
        t = np.asarray(y_true, dtype=np.float64)
        p = np.asarray(y_pred, dtype=np.float64)
    except (TypeError, ValueError):
        raise InputError(f"true and predicted {what} must be numbers") from None
    if t.ndim != 1 or p.ndim != 1:
        raise InputError(f"true and predicted {what} must be one-dimensional; got shapes {t.shape} and {p.shape}")
    if len(t) != len(p):
        raise InputError(f"true and predicted {what} have different lengths: {len(t)} and {len(p)}")
    if len(t) == 0:
        raise InputError(f"no {what}: the arrays are empty")
    for arr, side in ((t, "true"), (p, "predicted")):
        bad = ~np.isfinite(arr)
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            raise InputError(f"{int(bad.sum())} {side} {what} are not finite numbers, e.g. at position {i}: {arr[i]}")
    return t, p


def _one_group(t: np.ndarray, p: np.ndarray, context: Mapping[str, Any] | None = None) -> Any:
    from .rating_batch import RatingsBatch

    n = len(t)
    return RatingsBatch(t, p, np.zeros(n, dtype=np.int64), np.arange(n, dtype=np.int64), 1, n, "all",
                        dict(context or {}))


def _ratings_value(name: str, t: np.ndarray, p: np.ndarray, context: Mapping[str, Any] | None = None,
                   **params: Any) -> float:
    spec = get_spec(name)
    values = _params(spec, params)
    values["per"] = "pair"
    return float(np.asarray(spec.kernel(_one_group(t, p, context), **values), dtype=np.float64)[0])


def mae(y_true: Any, y_pred: Any) -> float:
    """Mean absolute error: mean of |predicted - true| (registry: ``mae``).

    >>> round(mae([4.0], [3.2]), 6)   # python-recsys MAE().compute(4.0, 3.2)
    0.8
    """
    t, p = _pair_arrays(y_true, y_pred)
    return _ratings_value("mae", t, p)


def mse(y_true: Any, y_pred: Any) -> float:
    """Mean squared error: mean of (predicted - true)^2 (registry: ``mse``)."""
    t, p = _pair_arrays(y_true, y_pred)
    return _ratings_value("mse", t, p)


def rmse(y_true: Any, y_pred: Any) -> float:
    """Root mean squared error (registry: ``rmse``)."""
    t, p = _pair_arrays(y_true, y_pred)
    return _ratings_value("rmse", t, p)


def _scale_ctx(scale: Any, t: np.ndarray) -> dict[str, Any]:
    from .rating_scale import as_scale

    s = as_scale(scale)
    if s is None:
        return {}
    out = (t < s.min) | (t > s.max)
    if out.any():
        raise InputError(f"{int(out.sum())} true ratings are outside the declared scale {s.min:g}:{s.max:g}, "
                         f"e.g. {t[np.flatnonzero(out)[0]]:g}")
    return {"scale": s}


def nmae(y_true: Any, y_pred: Any, scale: Any = None) -> float:
    """MAE / (r_max - r_min), the scale declared (``(1, 5)``, ``"1:5"``) or else the range of ``y_true``.

    >>> nmae([3, 1, 5, 2, 3], [2.3, 0.9, 4.9, 0.9, 1.5], scale=(1, 5))
    0.175
    """
    t, p = _pair_arrays(y_true, y_pred)
    return _ratings_value("nmae", t, p, _scale_ctx(scale, t))


def nrmse(y_true: Any, y_pred: Any, scale: Any = None) -> float:
    """RMSE / (r_max - r_min), the scale declared or else the range of ``y_true``."""
    t, p = _pair_arrays(y_true, y_pred)
    return _ratings_value("nrmse", t, p, _scale_ctx(scale, t))


def mean_cost(y_true: Any, y_pred: Any, cost: Any, snap: str = "exact") -> float:
    """Mean of d(predicted, true) for a user-supplied cost (registry: ``cost``; evaluation notes).

    ``cost`` is a mapping ``{(predicted, true): cost}``, a pair ``(levels, matrix)`` with
    rows = predicted, or ``"P,T=C;..."``; the diagonal defaults to 0.

    >>> costs = {(3, 1): 5, (2, 1): 3, (3, 2): 3, (1, 2): 1, (2, 3): 1, (1, 3): 2}   # Gunawardana & Shani
    >>> mean_cost([1, 3], [3, 1], costs)   # a disliked item recommended (5), a liked one missed (2)
    3.5
    """
    from .rating_costs import CostMatrix

    t, p = _pair_arrays(y_true, y_pred)
    return _ratings_value("cost", t, p, {"cost": CostMatrix.from_any(cost)}, snap=snap)


# --------------------------------------------------------------------------- correlation and ROC


def spearman_rho(a: Any, b: Any) -> float:
    """Spearman's rho: Pearson's r of the average ranks of ``a`` and ``b`` (scipy.stats.spearmanr).

    NaN when either side is constant. Registry: ``spearman`` (ranking against grades),
    ``rating_spearman`` (ratings).

    >>> round(spearman_rho([3, 1, 5, 2, 3], [2.3, 0.9, 4.9, 0.9, 1.5]), 6)   # python-recsys
    0.947368
    """
    x, y = _pair_arrays(a, b, "values")
    return _ratings_value("rating_spearman", x, y)


def kendall_tau(a: Any, b: Any, variant: str = "b") -> float:
    """Kendall's tau of ``a`` and ``b``: variant ``"b"`` (tie-corrected, scipy's default), ``"a"`` or ``"c"``.

    O(n log n). NaN when undefined (tau-b: either side constant).

    >>> round(kendall_tau([3, 1, 5, 2, 3], [2.3, 0.9, 4.9, 0.9, 1.5]), 6)   # python-recsys
    0.888889
    >>> round(kendall_tau([50, 100, 25, 25], [25, 75, 50, 25], variant="a"), 6)
    0.333333
    """
    x, y = _pair_arrays(a, b, "values")
    return _ratings_value("rating_kendall", x, y, variant=variant)


def kendall_distance(a: Any, b: Any, normalize: bool = True) -> float:
    """Pairs ordered one way by ``a`` and the other way by ``b`` (ties never count),
    divided by n(n-1)/2 unless ``normalize=False``.

    >>> kendall_distance([1, 2, 3], [3, 2, 1], normalize=False)
    3.0
    """
    x, y = _pair_arrays(a, b, "values")
    return _ratings_value("rating_kendall_distance", x, y, normalize=normalize)


def _labels(labels: Any, scores: Any) -> tuple[np.ndarray, np.ndarray]:
    lab, sc = _pair_arrays(labels, scores, "labels and scores")
    if not np.isin(lab, (0.0, 1.0)).all():
        raise InputError("labels must be 0/1 (or booleans); for graded labels pass e.g. labels >= 4")
    if lab.min() == lab.max():
        raise InputError("ROC needs both a positive and a negative label; all labels are "
                         f"{'positive' if lab[0] else 'negative'}")
    return lab, sc


def roc_auc(labels: Any, scores: Any) -> float:
    """Area under the ROC curve, ties counting one half (= Mann-Whitney U / (P N)).

    Equal to sklearn.metrics.roc_auc_score. Registry: ``roc_auc`` (ratings, per user or pooled).

    >>> roc_auc([1, 0, 1, 0], [0.9, 0.4, 0.4, 0.1])
    0.875
    """
    lab, sc = _labels(labels, scores)
    return _ratings_value("roc_auc", lab, sc, rel=1.0)


def roc_curve(labels: Any, scores: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """ROC curve: (fpr, tpr, thresholds), one point per distinct score (highest first) after
    (0, 0) at threshold +inf; predicting positive for scores >= threshold.

    Equal to sklearn.metrics.roc_curve(..., drop_intermediate=False).

    >>> fpr, tpr, thr = roc_curve([1, 0, 1, 0], [0.9, 0.4, 0.4, 0.1])
    >>> fpr.tolist(), tpr.tolist(), thr.tolist()
    ([0.0, 0.0, 0.5, 1.0], [0.0, 0.5, 1.0, 1.0], [inf, 0.9, 0.4, 0.1])
    """
    lab, sc = _labels(labels, scores)
    _, thr, fpr, tpr = RS.roc_points(np.array([0, len(sc)], dtype=np.int64), lab.astype(bool), sc)
    return fpr, tpr, thr
