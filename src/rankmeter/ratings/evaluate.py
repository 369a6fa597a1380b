"""``evaluate_ratings``: rating metrics over joined (user, item, true, predicted) pairs.

Aggregation
-----------
Every rating metric has a ``per`` parameter. The per-user table
(``result.per_query``, index ``user``) holds each user's own value for every
metric. ``result.mean`` holds the aggregate that ``per`` names:

- ``per=pair``: the metric over all evaluated pairs pooled into one group (the
  global, *micro* value). ``mae`` is ``mae(per=pair)``.
- ``per=user``: the mean of the per-user values (*macro*), e.g. Gunawardana and
  Shani's "Average MAE" for test sets with unbalanced users.
- ``per=item``: the mean of the per-item values; those are in ``result.per_item``.

Groups where a metric is undefined (a correlation of one pair, an AUC without both
classes) have NaN in the tables, are left out of macro means and counted in
``result.notes`` and ``result.undefined``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Iterable, Mapping

import numpy as np

from .._errors import MetricNameError, ParameterError
from ..metrics.rating_costs import CostMatrix
from ..metrics.rating_scale import Scale
from ..metrics.registry import Metric, parse_metric
from ..result import Result
from ._input import LoadedRatings, load_ratings

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["evaluate_ratings", "RatingsResult", "parse_ratings_metrics", "compute_ratings", "roc_curves"]


@dataclass(frozen=True, eq=False, repr=False)
class RatingsResult(Result):
    """A :class:`rankmeter.result.Result` of rating metrics, with the scale used and per-item values.

    ``mean`` gives each metric's aggregate (see ``per``); ``per_query`` the per-user
    table (index ``user``); ``per_item`` the per-item values of the ``per=item``
    metrics; ``scale`` the rating scale used and where it came from; ``coverage`` the
    joined, missing, skipped, filled and extra pairs; ``undefined`` the number of
    users (or items) without a value, per metric.
    """

    scale: Scale | None = None
    items: tuple[str, ...] = ()
    item_values: Mapping[str, np.ndarray] = field(default_factory=dict)
    undefined: Mapping[str, int] = field(default_factory=dict)

    @property
    def per_item(self) -> "pd.DataFrame":
        import pandas as pd

        return pd.DataFrame({m: np.asarray(v) for m, v in self.item_values.items()},
                            index=pd.Index(list(self.items), name="item"))

    def to_dict(self, per_query: bool = True) -> dict[str, Any]:
        out = super().to_dict(per_query=per_query)
        if self.scale is not None:
            out["scale"] = self.scale.to_dict()
        return out


def parse_ratings_metrics(metrics: Any) -> list[Metric]:
    """Parse rating metric names; ``spearman``, ``kendall`` and ``kendall_distance`` (and their
    aliases) mean the rating correlations ``rating_spearman``... here."""
    items = [metrics] if isinstance(metrics, (str, Metric)) else list(metrics)
    if not items:
        raise MetricNameError("no metric given")
    out: list[Metric] = []
    seen: set[str] = set()
    for raw in items:
        m = _parse_one(raw)
        if m.text in seen:
            raise MetricNameError(f"metric {m.text!r} given twice")
        seen.add(m.text)
        out.append(m)
    return out


def _parse_one(raw: str | Metric) -> Metric:
    m: Metric | None
    if isinstance(raw, Metric):
        m = raw
    else:
        if not isinstance(raw, str):
            raise MetricNameError(f"a metric name must be a string, got {type(raw).__name__}")
        try:
            m = parse_metric(raw)
        except MetricNameError:
            m = None
        if m is None or m.spec.input != "ratings":
            try:
                alt = parse_metric("rating_" + raw.strip())
            except (MetricNameError, ParameterError):
                alt = None
            if alt is not None and alt.spec.input == "ratings":
                return Metric(alt.spec, alt.params, alt.k, raw.strip())
            if m is None:
                m = parse_metric(raw)  # raises the original, helpful error
    if m.spec.input != "ratings":
        raise ParameterError(
            f"metric {m.text!r} evaluates {m.spec.input}, not ratings: use rankmeter.evaluate(...) "
            "(CLI: rankmeter evaluate)")
    return m


def compute_ratings(batch: Any, metrics: Iterable[Metric]) -> tuple[
        dict[str, np.ndarray], dict[str, float], dict[str, np.ndarray], dict[str, int]]:
    """(per-user values, aggregates, per-item values of per=item metrics, undefined counts)."""
    values: dict[str, np.ndarray] = {}
    agg: dict[str, float] = {}
    per_item: dict[str, np.ndarray] = {}
    undefined: dict[str, int] = {}
    done: dict[tuple[Any, ...], np.ndarray] = {}  # mae and mae(per=user) share their per-user values

    def run(m: Metric, by: str) -> np.ndarray:
        params = dict(m.params)
        key = (m.spec.name, by, tuple(sorted((k, v) for k, v in params.items() if k != "per")))
        if key not in done:
            group = batch.regroup(by)
            out = np.asarray(m.spec.kernel(group, **params), dtype=np.float64)
            if out.shape != (group.n_groups,):
                raise RuntimeError(f"kernel of {m.name} returned shape {out.shape} for {group.n_groups} groups")
            done[key] = out
        return done[key]

    for m in metrics:
        per = m.params.get("per", "pair")
        user_vals = run(m, "user")
        values[m.text] = user_vals
        if per == "pair":
            agg[m.text] = float(run(m, "all")[0])
            undef = int(np.isnan(user_vals).sum())
        else:
            group_vals = user_vals if per == "user" else run(m, "item")
            if per == "item":
                per_item[m.text] = group_vals
            ok = ~np.isnan(group_vals)
            undef = int((~ok).sum())
            agg[m.text] = float(group_vals[ok].mean()) if ok.any() else float("nan")
        if undef:
            undefined[m.text] = undef
    return values, agg, per_item, undefined


def evaluate_ratings(
    truth: Any,
    predictions: Any = None,
    metrics: str | Metric | Iterable[str | Metric] = ("mae", "rmse"),
    scale: Any = None,
    *,
    missing: str = "fail",
    fill: float | None = None,
    cost: Any = None,
    clip: bool = False,
    duplicates: str = "error",
    users: Any = None,
    items: Any = None,
    user: str | None = None,
    item: str | None = None,
    rating: str | None = None,
    prediction: str | None = None,
    context: Mapping[str, Any] | None = None,
) -> RatingsResult:
    """Evaluate predicted ratings against true ratings.

    ``truth`` and ``predictions``: two tables joined on (user, item) (paths —
    CSV/TSV/Parquet/MovieLens files —, pandas/polars DataFrames, pyarrow Tables,
    ``{user: {item: rating}}``); or ``predictions=None`` and one table with both the
    true rating and the prediction, or one list of ``(true, predicted)`` pairs; or two
    aligned arrays (with optional ``users=`` and ``items=`` arrays). ``metrics``: names
    such as ``"mae"``, ``"rmse(per=user)"``, ``"nmae"``, ``"cost"``, ``"spearman"``,
    ``"kendall(variant=a)"``, ``"roc_auc(rel=4)"``. ``scale``: ``(min, max)`` or
    ``"1:5"``; without it NMAE/NRMSE use the range of the true ratings (``result.scale``
    says which). ``missing``: ``"fail"`` (default), ``"skip"`` or ``"fill"`` (with
    ``fill=``) for test pairs without a prediction. ``cost``: the d(predicted, true)
    matrix of the ``cost`` metric. ``clip``: clip predictions into the declared scale
    (predictions outside it are counted either way). ``duplicates``: ``"error"``, ``"first"`` or
    ``"last"``. ``user``, ``item``, ``rating``, ``prediction``: column names.

    >>> r = evaluate_ratings([3.0, 1.0, 5.0, 2.0, 3.0], [2.3, 0.9, 4.9, 0.9, 1.5], ["mae", "rmse"])
    >>> {k: round(v, 6) for k, v in r.mean.items()}
    {'mae': 0.7, 'rmse': 0.891067}
    """
    parsed = parse_ratings_metrics(metrics)
    if clip and scale is None:  # clipping needs the range to clip into: never ignored in silence
        raise ParameterError("The 'clip' parameter of evaluate_ratings needs a scale to clip predictions into "
                             "(the 'scale' parameter: (min, max)). Got no scale.")
    loaded = load_ratings(truth, predictions, scale=scale, missing=missing, fill=fill, clip=clip,
                          duplicates=duplicates, users=users, items=items, user=user, item=item, rating=rating,
                          prediction=prediction)
    ctx: dict[str, Any] = dict(context or {})
    if cost is not None:
        ctx["cost"] = CostMatrix.from_any(cost)
    elif "cost" in ctx and ctx["cost"] is not None:
        ctx["cost"] = CostMatrix.from_any(ctx["cost"])
    return _run(loaded, parsed, ctx)


def _run(loaded: LoadedRatings, parsed: list[Metric], ctx: Mapping[str, Any]) -> RatingsResult:
    batch = loaded.batch(ctx)
    values, agg, per_item, undefined = compute_ratings(batch, parsed)
    notes = list(loaded.coverage.notes())
    for m in parsed:
        n = undefined.get(m.text)
        if n:
            per = m.params.get("per", "pair")
            groups = "items" if per == "item" else "users"
            tail = "left out of its mean" if per in ("user", "item") else "NaN in the per-user table"
            notes.append(f"{m.text}: {n} {groups} have no value (too few pairs, or no variation, or one class) and "
                         f"are {tail}")
    return RatingsResult(
        # RatingsCoverage, not Coverage (see RatingsResult) (the ignore below)
        queries=loaded.user_ids.to_pylist(), values=values, metrics=parsed, coverage=loaded.coverage,  # type: ignore[arg-type]
        notes=notes, corpus=agg, index_name="user", scale=loaded.scale,
        items=tuple(loaded.item_ids.to_pylist()) if per_item else (), item_values=per_item, undefined=undefined,
    )


def roc_curves(truth: Any, predictions: Any = None, *, rel: float = 1.0, per: str = "user",
               **options: Any) -> "pd.DataFrame":
    """ROC curve points: one row per (user, threshold) with the false and true positive rates.

    Inputs are those of :func:`evaluate_ratings` (``options`` are its loading keywords).
    A pair is positive when its true rating is >= ``rel``; a threshold t predicts
    positive for scores >= t. Every user's curve starts at (0, 0) with threshold
    +inf and has one point per distinct score, highest first (nothing dropped).
    ``per="pair"`` gives one pooled curve (user ``"all"``).
    """
    import pandas as pd

    from ..metrics import rankstats as RS

    if per not in ("user", "pair"):
        raise ParameterError(f"The 'per' parameter of roc_curves must be one of user, pair. Got {per!r} instead.")
    loaded = load_ratings(truth, predictions, **options)
    b = loaded.batch().regroup("user" if per == "user" else "all")
    off, t, p = b.segments()
    seg, thr, fpr, tpr = RS.roc_points(off, t >= rel, p)
    names = np.asarray(loaded.user_ids.to_pylist(), dtype=object) if per == "user" else np.array(["all"], dtype=object)
    return pd.DataFrame({"user": names[seg], "threshold": thr, "fpr": fpr, "tpr": tpr})
