"""The same models on several data sets: per-data-set means, the mean over data sets, Friedman's rank
test with a post-hoc (Demšar 2006), and a random-effects meta-analysis of each model's difference
from a baseline (DerSimonian and Laird 1986). Formulas: :mod:`rankmeter.stats.across`.

Each data set is independent, so the rank test is across data sets only: never across the folds of
one data set, which share their users and items (the corrected resampled t-test of an experiment's
folds covers those).

>>> import rankmeter
>>> def res(vals):
...     return {m: rankmeter.evaluate({f"u{i}": {"a": 1} for i in range(len(v))},
...                                   {f"u{i}": ["a"] if x else ["b"] for i, x in enumerate(v)}, "P@1")
...             for m, v in vals.items()}
>>> across = compare_across({"ml": res({"pop": [1, 0, 0, 0], "ease": [1, 1, 0, 1], "knn": [1, 1, 0, 0]}),
...                          "books": res({"pop": [0, 0, 1, 0], "ease": [1, 1, 1, 0], "knn": [0, 1, 1, 0]})},
...                         baseline="pop")
>>> across.means.round(2).to_dict()
{'pop': {'ml': 0.25, 'books': 0.25}, 'ease': {'ml': 0.75, 'books': 0.75}, 'knn': {'ml': 0.5, 'books': 0.5}}
>>> across.friedman.mean_ranks
{'pop': 3.0, 'ease': 1.0, 'knn': 2.0}
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Mapping

import numpy as np

from .._errors import InputError, ParameterError

if TYPE_CHECKING:
    import pandas as pd

    from ..stats.across import FriedmanResult, MetaAnalysis

__all__ = ["AcrossResult", "compare_across"]


@dataclass(frozen=True)
class AcrossResult:
    """``means`` a data sets x models DataFrame of ``metric``; ``overall`` the mean over data sets;
    ``friedman`` the rank test (None with fewer than 3 models); ``meta[model]`` the random-effects
    estimate of ``model - baseline`` with ``effects[model]`` the per-data-set differences and their
    variances (DataFrame ``diff``, ``variance``, ``n``)."""

    metric: str
    baseline: str | None
    means: "pd.DataFrame"
    overall: dict[str, float]
    friedman: "FriedmanResult | None"
    meta: dict[str, "MetaAnalysis"]
    effects: dict[str, "pd.DataFrame"]
    notes: tuple[str, ...] = ()

    def plot(self) -> Any:
        """Demšar's critical-difference diagram (a matplotlib Figure; None with fewer than 3 models)."""
        from ..report.across import cd_diagram

        return cd_diagram(self)

    def to_markdown(self, digits: int = 4) -> str:
        """The means per data set, their mean, the mean ranks and the tests, as Markdown."""
        from ..report.across import to_markdown

        return to_markdown(self, digits)

    def to_html(self, digits: int = 4) -> str:
        """A self-contained HTML section with the critical-difference diagram."""
        from ..report.across import to_html

        return to_html(self, digits)

    def __repr__(self) -> str:
        return (f"AcrossResult({self.metric}: {len(self.means.columns)} models on {len(self.means.index)} data sets"
                f"{', baseline ' + self.baseline if self.baseline else ''})")


def _per_model(obj: Any, name: str) -> dict[str, Any]:
    """model -> per-user values source: a Result (per_query values) from an experiment, a mapping or a
    Comparison."""
    from ..result import Result

    if hasattr(obj, "scores") and hasattr(obj, "runs") and hasattr(obj, "queries"):  # a Comparison
        return {r: ("cmp", obj, r) for r in obj.runs}
    if hasattr(obj, "results") and isinstance(obj.results, Mapping):  # an experiment's result
        obj = obj.results
    if isinstance(obj, Mapping) and all(isinstance(v, Result) for v in obj.values()):
        return {str(k): ("res", v, str(k)) for k, v in obj.items()}
    raise InputError(f"data set {name!r}: expected a Comparison, an experiment's result or a mapping of model "
                     f"names to Results. Got {type(obj).__name__}.")


def _values(src: tuple[str, Any, str], metric: str) -> tuple[list[str], np.ndarray]:
    kind, obj, model = src
    if kind == "cmp":
        if metric not in obj.metrics:
            raise InputError(f"the comparison has no metric {metric!r} (it has {', '.join(obj.metrics)})")
        return list(obj.queries), np.asarray(obj.scores[model][metric], dtype=np.float64)
    if metric not in obj.values:
        raise InputError(f"model {model!r} has no per-user values of {metric!r} (it has {', '.join(obj.values)})")
    return list(obj.queries), np.asarray(obj.values[metric], dtype=np.float64)


def _higher(metric: str) -> bool:
    from ..metrics.registry import parse_metric

    try:
        return bool(parse_metric(metric).spec.higher_is_better)
    except Exception:  # noqa: BLE001  (a name the registry does not know, e.g. from saved results: higher is better)
        return True


def compare_across(results: Mapping[str, Any], metric: str | None = None, *, baseline: str | None = None,
                   posthoc: str = "nemenyi", alpha: float = 0.05) -> AcrossResult:
    """Compare the same models across data sets (see the module's docstring).

    ``results``: ``{data set: Comparison | experiment result | {model: Result}}``; every data set must
    hold the same models. ``metric``: the metric compared (default: the only one they share, else an
    error). ``baseline``: the model the meta-analysis takes differences from (default: none, no
    meta-analysis). ``posthoc``: ``"nemenyi"`` or ``"holm"``.
    """
    import pandas as pd

    from ..stats.across import dersimonian_laird, friedman

    if not isinstance(results, Mapping) or len(results) < 2:
        raise ParameterError("compare_across needs a mapping of at least 2 data sets to their results")
    per = {str(d): _per_model(r, str(d)) for d, r in results.items()}
    first = next(iter(per))
    models = list(per[first])
    for d, held in per.items():
        if set(held) != set(models):
            raise InputError(f"data sets {first!r} and {d!r} hold different models ({sorted(set(models) ^ set(held))} "
                             "in one only): compare_across needs the same models everywhere")
    if metric is None:
        shared: set[str] | None = None
        for held in per.values():
            for src in held.values():
                names = set(src[1].metrics) if src[0] == "cmp" else set(src[1].values)
                shared = names if shared is None else shared & names
        if not shared or len(shared) != 1:
            raise ParameterError(f"name the metric: the results share {sorted(shared or [])}")
        metric = next(iter(shared))
    if baseline is not None and baseline not in models:
        raise ParameterError(f"The 'baseline' parameter of compare_across must be one of {', '.join(models)}. "
                             f"Got {baseline!r} instead.")
    higher = _higher(metric)
    values = {d: {m: _values(src, metric) for m, src in per[d].items()} for d in per}
    means = pd.DataFrame({m: [float(np.nanmean(values[d][m][1])) for d in per] for m in models},
                         index=pd.Index(list(per), name="dataset"))
    overall = {m: float(means[m].mean()) for m in models}
    notes: list[str] = []
    fr = None
    if len(models) >= 3:
        fr = friedman(means.to_numpy(), models, higher_is_better=higher, posthoc=posthoc, alpha=alpha)
    else:
        notes.append("Friedman's test needs at least 3 models: left out")
    meta: dict[str, Any] = {}
    effects: dict[str, pd.DataFrame] = {}
    if baseline is not None:
        for m in models:
            if m == baseline:
                continue
            rows = []
            for d in per:
                qa, va = values[d][baseline]
                qb, vb = values[d][m]
                pos = {q: i for i, q in enumerate(qa)}
                pairs = [(va[pos[q]], vb[i]) for i, q in enumerate(qb) if q in pos]
                diff = np.array([b - a for a, b in pairs], dtype=np.float64)
                diff = diff[~np.isnan(diff)]
                n = len(diff)
                var = float(diff.var(ddof=1) / n) if n > 1 else float("nan")
                rows.append({"dataset": d, "diff": float(diff.mean()) if n else float("nan"), "variance": var, "n": n})
            eff = pd.DataFrame(rows).set_index("dataset")
            effects[m] = eff
            meta[m] = dersimonian_laird(eff["diff"].to_numpy(), eff["variance"].to_numpy())
        notes.append(f"meta-analysis: DerSimonian-Laird random effects of each model minus {baseline} on {metric}, "
                     "the variance of each data set's mean per-user difference (ddof 1) / n")
    return AcrossResult(metric, baseline, means, overall, fr, meta, effects, tuple(notes))
