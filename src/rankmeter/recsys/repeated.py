"""Repeated protocols in an experiment: run each split as a single-split experiment, then summarise across them.

``res.per_fold`` holds every split's means (``fold, model, metric, value``); ``res.across`` per model and
metric the mean and standard deviation (ddof 1) of the ``J`` per-split means and the corrected interval
``mean +- t(0.975, J - 1) sd sqrt(1/J + rho)`` with ``rho = n_test / n_train`` (k-fold: ``1 / (k - 1)``;
Nadeau and Bengio 2003, Bouckaert and Frank 2004). Each model is compared with each baseline by the
corrected resampled t-test on the per-split differences of the means
(:func:`rankmeter.stats.across.corrected_resampled_t`), with one correction over the family; within each
split, ``res.folds[j].comparisons`` hold the paired tests over users.

>>> from rankmeter.recsys.pipeline import experiment
>>> from rankmeter.datasets import synthetic
>>> res = experiment(synthetic(n_users=60, n_items=80, seed=1), split="kfold", folds=3, k=5,
...                  recommenders=["random", "popular"], metrics=["ndcg@5"], n_resamples=100)
>>> res.across.columns.tolist()
['model', 'metric', 'mean', 'sd', 'ci_low', 'ci_high', 'folds']
>>> len(res.per_fold), res.labels
(6, ('fold 1', 'fold 2', 'fold 3'))
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Mapping, Sequence, cast

import numpy as np

from .._errors import ParameterError
from .._files import json_text, write_text
from .protocol import Design, is_grid, make_splits, point_spec, shorthands, tune
from .result import ExperimentResult

if TYPE_CHECKING:
    import pandas as pd
    from rich.console import Console

    from ..report.terminal import Grid

__all__ = ["RepeatedResult", "run_protocol", "across_row"]

_OWN = ("interactions", "split", "split_params", "folds", "repeats", "validation_fraction", "tune_metric",
        "recommenders")


def _spec_mapping(recommenders: Any) -> dict[str, Any]:
    """Recommenders as ``{name: spec}`` (a list with a grid in it gets names: the type, or the callable's name)."""
    if isinstance(recommenders, Mapping):
        return dict(recommenders)
    out: dict[str, Any] = {}
    for r in ([recommenders] if isinstance(recommenders, (str, Path)) else list(recommenders)):
        if isinstance(r, Mapping):
            fn = r.get("callable")
            name = str(r.get("type") or getattr(fn, "__name__", None) or fn or "recommender")
        elif isinstance(r, (str, Path)):
            name = Path(str(r)).stem if Path(str(r)).suffix else str(r)
        else:
            name = str(getattr(r, "name", None) or type(r).__name__.lower())
        base, n = name, 2
        while name in out:
            name, n = f"{base}_{n}", n + 1
        out[name] = r
    return out


def _merged(split: Any) -> Any:
    """The split with its validation rows back in training (the refit on train + validation)."""
    from ..split import Counts, Split

    data = split.data
    train = split.train_mask | split.validation_mask
    users = data.table.column(data.user).to_numpy()
    items = data.table.column(data.item).to_numpy()
    c = Counts(int(train.sum()), len(np.unique(users[train].astype(str))), len(np.unique(items[train].astype(str))))
    s = split.summary
    summary = dataclasses.replace(s, train=c, validation=None,
                                  params={**s.params, "refit": "train + validation"})
    return Split(data, train, split.test_mask, summary, cold_users=split.cold_users, cold_items=split.cold_items,
                 small_users=split.small_users)


def _tune_metric(a: Mapping[str, Any]) -> str:
    from ..metrics.registry import parse_metrics

    if a["tune_metric"] is not None:
        m = parse_metrics([a["tune_metric"]])[0]
        if m.spec.level != "query":
            raise ParameterError(f"The 'tune_metric' parameter of experiment must be a per-user metric. Got "
                                 f"{a['tune_metric']!r}, a corpus-level one.")
        return str(a["tune_metric"])
    metrics = a["metrics"]
    if metrics:
        for m in parse_metrics([metrics] if isinstance(metrics, str) else list(metrics)):
            if m.spec.level == "query":
                return str(m.text)
    return f"ndcg@{a['k']}"


def run_protocol(args: Mapping[str, Any]) -> ExperimentResult:
    """``experiment`` for repeated protocols, several splits and grids (see :mod:`rankmeter.recsys.protocol`)."""
    from .loading import load_interactions
    from .pipeline import experiment

    a = dict(args)
    split = a["split"]
    params, n = shorthands(split, a["split_params"], a["folds"], a["repeats"])
    repeated = (isinstance(split, str) and split.lower() == "kfold") or n > 1
    data, _, _ = load_interactions(a["interactions"], {"user": a["user"], "item": a["item"], "rating": a["rating"],
                                                       "timestamp": a["timestamp"]})
    filters = {"min_user_interactions": a["min_user_interactions"],
               "min_item_interactions": a["min_item_interactions"]}
    named = _spec_mapping(a["recommenders"])
    grids = {name: spec for name, spec in named.items() if is_grid(spec)}
    vf = a["validation_fraction"]
    given_validation = getattr(split, "validation_mask", None) is not None  # a Split with validation_fraction
    if grids and vf is None and not given_validation:
        raise ParameterError(f"the recommender {next(iter(grids))!r} is a grid (a parameter with a list of values): "
                             "tuning needs a validation part, give validation_fraction (e.g. 0.1)")
    if vf is not None and not isinstance(split, str):
        raise ParameterError("The 'validation_fraction' parameter of experiment needs a protocol name as split (the "
                             "validation part is carved by the protocol's rule).")
    splits, design = make_splits(data, split, params, filters, a["seed"], n, vf)
    metric = _tune_metric(a) if grids else None
    inner = {key: v for key, v in a.items() if key not in _OWN}
    baseline = inner.pop("baseline")
    results: list[ExperimentResult] = []
    for i, s in enumerate(splits):
        tuning: dict[str, Any] = {}
        recs: Any = dict(named) if grids else a["recommenders"]
        for name, spec in grids.items():
            assert metric is not None
            kw = {key: v for key, v in inner.items() if key not in ("metrics", "groups", "progress")}
            tuning[name] = tune(a["interactions"], s, name, spec, metric, experiment, **kw)
            recs[name] = point_spec(tuning[name]["spec"])
        final = _merged(s) if getattr(s, "validation_mask", None) is not None else s
        r = experiment(a["interactions"], split=final, recommenders=recs, baseline=baseline, **inner)
        if i == 0 and baseline == "best" and r.baseline is not None:
            baseline = r.baseline  # the same baseline in every split
        notes = list(r.notes)
        if vf is not None and not grids:
            notes.append(f"validation_fraction={vf}: no recommender is tuned (no grid), so the validation rows went "
                         "back into training")
        for name, t in tuning.items():
            notes.append(f"{name} tuned on the validation part ({t['validation_rows']} rows, never the test rows) by "
                         f"{t['metric']}: chose {t['params']}, refitted on train + validation")
        results.append(dataclasses.replace(r, tuning=tuning, notes=tuple(notes),
                                           split={**r.split, "protocol": design.description}))
    if not repeated:
        return results[0]
    return RepeatedResult.build(results, design, a, chosen_on_first=a["baseline"] == "best")


def across_row(values: Sequence[float], rho: float, confidence: float = 0.95) -> dict[str, float]:
    """Mean, sd (ddof 1) and the corrected interval ``mean +- t(q, J - 1) sd sqrt(1/J + rho)`` of per-split values.

    Worked example: three splits 0.2, 0.4, 0.3 with rho = 0.5: mean 0.3, sd 0.1, half-width
    t(0.975, 2) 0.1 sqrt(1/3 + 0.5) = 4.3027 x 0.1 x 0.9129 = 0.3928.

    >>> r = across_row([0.2, 0.4, 0.3], rho=0.5)
    >>> round(r["mean"], 4), round(r["sd"], 4), round(r["ci_high"] - r["mean"], 4)
    (0.3, 0.1, 0.3928)
    """
    from scipy import stats

    v = np.asarray([x for x in values if math.isfinite(x)], dtype=np.float64)
    j = len(v)
    if j == 0:
        return {"mean": math.nan, "sd": math.nan, "ci_low": math.nan, "ci_high": math.nan, "folds": 0}
    mean = float(v.mean())
    if j < 2:
        return {"mean": mean, "sd": math.nan, "ci_low": math.nan, "ci_high": math.nan, "folds": j}
    sd = float(v.std(ddof=1))
    half = float(stats.t.ppf(0.5 + confidence / 2, j - 1)) * sd * math.sqrt(1.0 / j + rho)
    return {"mean": mean, "sd": sd, "ci_low": mean - half, "ci_high": mean + half, "folds": j}


@dataclass(frozen=True, eq=False)
class RepeatedResult(ExperimentResult):
    """Everything a repeated protocol (k-fold, repeated hold-out) produced: an
    :class:`~rankmeter.recsys.result.ExperimentResult` whose tables are across the splits.

    ``folds[j]``: the :class:`~rankmeter.recsys.result.ExperimentResult` of split ``labels[j]`` (evaluated
    exactly as a single split, with its paired tests over users against each baseline); ``design``: how the
    splits were made and ``rho``; ``tests``: the corrected resampled t-test of each model against each
    baseline on each per-user metric (one correction over the family), also as one DataFrame per baseline in
    ``comparisons`` (``comparison``: the first); ``results[name]``: the pooled per-user values of all splits
    (users named ``"label:user"``; corpus-level metrics: their mean over the splits); ``tuning``: per split
    label, the tuned recommenders.
    """

    comparison: Any  # the first baseline's DataFrame of corrected resampled t-tests (None without one)
    comparisons: dict[str, Any] = field(default_factory=dict)  # baseline -> DataFrame of those tests
    folds: tuple["ExperimentResult", ...] = ()
    labels: tuple[str, ...] = ()
    design: Design = Design((), math.nan, "", "")
    tests: tuple[dict[str, Any], ...] = ()
    higher_is_better: dict[str, bool] = field(default_factory=dict)

    # ------------------------------------------------------------------ build

    @classmethod
    def build(cls, folds: Sequence["ExperimentResult"], design: Design, args: Mapping[str, Any],
              chosen_on_first: bool = False) -> "RepeatedResult":
        from ..metrics.registry import parse_metrics
        from ..stats.across import corrected_resampled_t
        from ..stats.correction import adjust, canonical_correction

        first = folds[0]
        parsed = {m.text: m for m in parse_metrics(list(first.metrics))}
        hib = {m: bool(p.spec.higher_is_better) for m, p in parsed.items()}
        query = [m for m in first.metrics if parsed[m].spec.level == "query"]
        bases = () if first.baseline is None else (first.baseline if isinstance(first.baseline, tuple)
                                                   else (first.baseline,))
        names = list(first.results)
        pairs: list[tuple[str, str]] = []
        for b in bases:
            for m in names:
                if m != b and (m, b) not in pairs and (b, m) not in pairs:
                    pairs.append((b, m))
        raw: list[dict[str, Any]] = []
        from ..compare.stages import metric_aliases

        # another spelling of a metric (success@10 after hit_rate@10) is the same test: tested once, in the family once
        same = metric_aliases(query, [parsed[m] for m in query])
        for b, m in pairs:
            for metric in query:
                if metric in same:
                    continue
                d = [f.results[m].mean[metric] - f.results[b].mean[metric] for f in folds]
                d = [x for x in d if math.isfinite(x)]
                if len(d) < 2:
                    continue
                r = corrected_resampled_t(d, rho=design.rho)
                raw.append({"baseline": b, "model": m, "metric": metric, "diff": r.mean, "sd": r.sd,
                            "statistic": r.statistic, "df": r.df, "p_value": r.p_value, "rho": r.rho,
                            "ci_low": r.ci_low, "ci_high": r.ci_high, "folds": r.splits})
        method = canonical_correction(str(args["correction"]))
        alpha = float(args["alpha"])
        n_family = len(raw)  # (before each spelling gets its row)
        if raw:
            adj = adjust(np.array([t["p_value"] for t in raw]), method)
            for t, p in zip(raw, adj, strict=True):
                t["p_adjusted"] = float(p)
                t["correction"] = f"{method} (family of {len(raw)} tests)"
                t["significant"] = bool(p < alpha)
                better = None
                if t["significant"]:
                    better = t["model"] if (float(t["diff"]) > 0) == hib[str(t["metric"])] else t["baseline"]
                t["better"] = better
                t["test"] = "corrected resampled t"
            if same:  # each spelling's row, in the order of the metrics, with the first spelling's numbers
                rows = {(t["baseline"], t["model"], t["metric"]): t for t in raw}
                raw = [dict(rows[(b, m, same.get(metric, metric))], metric=metric) for b, m in pairs for metric in query
                       if (b, m, same.get(metric, metric)) in rows]
        notes = [f"protocol: {design.description}; each split evaluated as a single-split experiment"]
        notes.append(f"across splits: mean and sd (ddof 1) of the {len(folds)} per-split means; interval: the "
                     f"corrected one, mean +- t(0.975, {len(folds) - 1}) sd sqrt(1/{len(folds)} + {design.rho:.4g}) "
                     "(rho = n_test / n_train" + (", 1/(k-1) for k-fold" if design.method == "kfold" else "") + ")")
        if raw:
            notes.append(f"tests across splits: corrected resampled t-test (Nadeau and Bengio 2003) on the per-split "
                         f"differences of the means, {len(folds) - 1} df, {method} correction over the family of "
                         f"{n_family} tests; within each split: paired {first.settings.get('test')} test over users "
                         "(res.folds[j].comparisons)")
        if chosen_on_first and bases:
            notes.append(f"baseline='best': {bases[0]} was chosen on the first split and kept for every split")
        notes.append("res.results[name]: the pooled per-user values of all splits (users named 'split label:user')")
        settings = {**first.settings, "protocol": design.description, "rho": design.rho, "splits": len(folds)}
        import pandas as pd

        from ..result import Result

        pooled = {}
        for n in first.results:
            rs = [f.results[n] for f in folds]
            queries = [f"{label}:{q}" for label, r in zip(design.labels, rs, strict=True) for q in r.queries]
            values = {m: np.concatenate([np.asarray(r.values[m]) for r in rs]) for m in rs[0].values}
            corpus = {m: float(np.mean([r.corpus[m] for r in rs])) for m in rs[0].corpus}
            pooled[n] = Result(queries=queries, values=values, metrics=rs[0].metrics, corpus=corpus,
                               index_name="user", notes=("pooled per-user values of all splits",))
        tables = {b: pd.DataFrame([t for t in raw if t["baseline"] == b]) for b in bases}
        timings: dict[str, float] = {}
        for f in folds:
            for key, v in f.timings.items():
                timings[key] = timings.get(key, 0.0) + v
        tuning = {label: f.tuning for label, f in zip(design.labels, folds, strict=True) if f.tuning}
        return cls(results=pooled, comparison=tables[bases[0]] if bases else None, validation={}, timings=timings,
                   metrics=first.metrics, k=first.k, baseline=first.baseline, mode=first.mode, data=first.data,
                   split={"protocol": design.description, "splits": [f.split for f in folds]}, notes=tuple(notes),
                   settings=settings, comparisons=tables, tuning=tuning, folds=tuple(folds), labels=design.labels,
                   design=design, tests=tuple(raw), higher_is_better=hib)

    # ------------------------------------------------------------------ tables

    @property
    def baselines(self) -> tuple[str, ...]:
        if self.baseline is None:
            return ()
        return self.baseline if isinstance(self.baseline, tuple) else (self.baseline,)

    @property
    def per_fold(self) -> "pd.DataFrame":
        """One row per (fold, model, metric): the split's mean (corpus-level metrics: their value)."""
        import pandas as pd

        rows = [(label, n, m, float(r.mean.get(m, math.nan)))
                for label, f in zip(self.labels, self.folds, strict=True)
                for n, r in f.results.items() for m in self.metrics]
        return pd.DataFrame(rows, columns=["fold", "model", "metric", "value"])

    @property
    def across(self) -> "pd.DataFrame":
        """One row per (model, metric): mean, sd, the corrected interval (``ci_low``, ``ci_high``), folds."""
        import pandas as pd

        rows = []
        for n in self.folds[0].results:
            for m in self.metrics:
                r = across_row([float(f.results[n].mean.get(m, math.nan)) for f in self.folds], self.design.rho)
                rows.append({"model": n, "metric": m, **r})
        return pd.DataFrame(rows, columns=["model", "metric", "mean", "sd", "ci_low", "ci_high", "folds"])

    @property
    def means(self) -> "pd.DataFrame":
        """Recommender x metric: the mean over the splits."""
        frame = self.across.pivot(index="model", columns="metric", values="mean")[list(self.metrics)]
        frame = frame.loc[list(self.folds[0].results)]
        frame.index.name = "recommender"
        frame.columns.name = None
        return frame

    @property
    def total_seconds(self) -> float:
        return float(sum(f.total_seconds for f in self.folds))

    def beats(self, metric: str, name: str) -> list[str]:
        """The baselines ``name`` is significantly better than on ``metric`` across the splits."""
        return [t["baseline"] if t["model"] == name else t["model"] for t in self.tests
                if t["metric"] == metric and t.get("better") == name and name in (t["model"], t["baseline"])]

    def loses(self, metric: str, name: str) -> list[str]:
        return [t["baseline"] if t["model"] == name else t["model"] for t in self.tests
                if t["metric"] == metric and t.get("significant") and t.get("better") not in (name, None)
                and name in (t["model"], t["baseline"])]

    def marker(self, metric: str, name: str) -> str:
        """``▲`` / ``▼`` (with the baseline numbers when there are several) against the baselines."""
        up = [b for b in self.beats(metric, name) if b in self.baselines]
        down = [b for b in self.loses(metric, name) if b in self.baselines]
        if len(self.baselines) <= 1 and name in self.baselines:
            return ""
        if len(self.baselines) <= 1:
            return " ▲" if up else " ▼" if down else ""
        num = {b: str(i + 1) for i, b in enumerate(self.baselines)}
        out = ""
        if up:
            out += " ▲" + ",".join(num.get(b, b) for b in up)
        if down:
            out += " ▼" + ",".join(num.get(b, b) for b in down)
        return out

    def caption(self) -> str:
        parts = [f"mean ± sd over {len(self.folds)} splits ({self.design.description})"]
        if self.tests:
            t = self.tests[0]
            which = ("; ".join(f"{i + 1} = {b}" for i, b in enumerate(self.baselines)) if len(self.baselines) > 1
                     else str(self.baselines[0]))
            parts.append(f"▲/▼: significantly better/worse than the baseline ({which}) by the corrected resampled "
                         f"t-test, {t['correction']}, alpha={self.settings.get('alpha', 0.05):g}")
        if self.mode != "full ranking":
            parts.append(f"WARNING: {self.mode}")
        return "; ".join(parts)

    def cell(self, model: str, metric: str, digits: int = 4) -> str:
        from .result import format_value

        if metric in self.folds[0].counts:  # a count: each split's sum over its users (the table says "sum")
            vals = [float(f.results[model].sums[metric]) for f in self.folds]
        else:
            vals = [float(f.results[model].mean.get(metric, math.nan)) for f in self.folds]
        r = across_row(vals, self.design.rho)
        return f"{format_value(r['mean'], digits)} ± {format_value(r['sd'], digits)}"

    def grid(self, digits: int = 4) -> "Grid":
        from ..report.terminal import Grid

        names = list(self.folds[0].results)
        return Grid(columns=["metric"] + [n + (" (baseline)" if n in self.baselines else "") for n in names],
                    rows=[[f"{m} (sum per split)" if m in self.folds[0].counts else m]
                          + [self.cell(n, m, digits) + self.marker(m, n) for n in names] for m in self.metrics],
                    title=f"rankmeter experiment: top-{self.k}, {self.mode}, {len(self.folds)} splits",
                    caption=self.caption())

    def print(self, console: "Console | None" = None, digits: int = 4, verbose: bool = False) -> None:
        """The main table (mean ± sd with markers); with ``verbose`` also the notes and each split's checks."""
        from rich.console import Console
        from rich.markup import escape

        from ..report.terminal import terminal_text

        con = console or Console()
        con.print(self.grid(digits).to_rich())
        for name, t in (self.tuning.get(self.labels[0], {}) or {}).items():
            con.print(f"tuned {escape(terminal_text(name))}: {escape(terminal_text(str(t['params'])))} "
                      f"(split {self.labels[0]}; all splits in the report)")
        lines = list(self.notes) + [f"{label}: {n}" for label, f in zip(self.labels, self.folds, strict=True)
                                    for n in f.notes]
        if verbose:
            for line in lines:
                con.print(f"note: {escape(terminal_text(line))}")
        else:
            con.print(f"[dim]{len(lines)} notes: --verbose or the report (res.notes, res.folds\\[j].notes)[/dim]")

    # ------------------------------------------------------------------ files

    def to_dict(self) -> dict[str, Any]:
        from .result import jsonable

        across = self.across
        return cast("dict[str, Any]", jsonable({
            "mode": self.mode, "k": self.k, "metrics": list(self.metrics), "baseline": self.baseline,
            "protocol": {"description": self.design.description, "method": self.design.method,
                         "folds": self.design.folds, "repeats": self.design.repeats, "rho": self.design.rho,
                         "labels": list(self.labels)},
            "across": across.to_dict(orient="records"),
            "table": {n: {m: self.cell(n, m) for m in self.metrics} for n in self.folds[0].results},
            "per_fold": self.per_fold.to_dict(orient="records"),
            "tests": list(self.tests),
            "tuning": {label: {n: {k: v for k, v in t.items() if k != "spec"} for n, t in per.items()}
                       for label, per in self.tuning.items()},
            "notes": list(self.notes),
            "settings": self.settings,
            "folds": [f.to_dict() for f in self.folds],
        }))

    def to_json(self, path: str | Path | None = None) -> str:
        text = json_text(self.to_dict())
        if path is not None:
            write_text(path, text + "\n")
        return text

    def to_csv(self, path: str | Path | None = None) -> str:
        """The main table as CSV: one row per recommender, one column per metric, cells ``mean ± sd``."""
        import pandas as pd

        from ..report.tabular import safe_text

        names = list(self.folds[0].results)
        frame = pd.DataFrame([[self.cell(n, m) for m in self.metrics] for n in names],
                             index=pd.Index([safe_text(n) for n in names], name="recommender"),
                             columns=[safe_text(m) for m in self.metrics])
        frame.insert(0, "splits", len(self.folds))
        frame.insert(0, "mode", self.mode)
        text = frame.to_csv(lineterminator="\n")
        if path is not None:
            write_text(path, text)
        return cast("str", text)

    def to_latex(self, path: str | Path | None = None, digits: int = 4) -> str:
        """A ``tabular`` of the main table, cells ``mean $\\pm$ sd`` with the markers."""
        from ..report.latex import escape as latex_escape

        names = list(self.folds[0].results)
        lines = ["\\begin{tabular}{l" + "r" * len(names) + "}", "\\toprule",
                 "metric & " + " & ".join(latex_escape(n) for n in names) + " \\\\", "\\midrule"]
        for m in self.metrics:
            cells = []
            for n in names:
                mark = self.marker(m, n).replace("▲", "$^\\blacktriangle$").replace("▼", "$^\\blacktriangledown$")
                cells.append(self.cell(n, m, digits).replace("±", "$\\pm$") + mark)
            lines.append(latex_escape(m) + " & " + " & ".join(cells) + " \\\\")
        lines += ["\\bottomrule", "\\end{tabular}", "% " + latex_escape(self.caption())]
        text = "\n".join(lines) + "\n"
        if path is not None:
            write_text(path, text)
        return text

    def to_html(self, path: str | Path | None = None, *, title: str | None = None, k_max: int | None = None) -> str:
        """The report (:func:`rankmeter.report.experiment.repeated_to_html`; ``k_max`` is not used: no curves)."""
        from ..report.experiment import repeated_to_html

        text = repeated_to_html(self, title=title)
        if path is not None:
            write_text(path, text)
        return text

    def save(self, directory: str | Path) -> dict[str, Path]:
        """``report.html``, ``results.json``, ``means.csv`` (mean ± sd), ``per_fold.csv``, ``across.csv``,
        ``table.tex``; each written whole or not at all and listed in the folder's manifest."""
        from .output import begin_files, record_files

        d = Path(directory)
        d.mkdir(parents=True, exist_ok=True)
        paths = {"report": d / "report.html", "json": d / "results.json", "csv": d / "means.csv",
                 "per_fold": d / "per_fold.csv", "across": d / "across.csv", "latex": d / "table.tex"}
        begin_files(d, [p.name for p in paths.values()])
        per_fold = self.per_fold.to_csv(index=False, lineterminator="\n")
        across = self.across.to_csv(index=False, lineterminator="\n")
        writers: dict[str, Any] = {"json": self.to_json, "csv": self.to_csv, "latex": self.to_latex,
                                   "report": self.to_html, "per_fold": lambda p: write_text(p, per_fold),
                                   "across": lambda p: write_text(p, across)}
        for key, write in writers.items():
            write(paths[key])
            record_files(d, [paths[key].name])
        return paths

    def __repr__(self) -> str:
        return (f"RepeatedResult({len(self.folds[0].results)} recommenders, {len(self.folds)} splits, top-{self.k}, "
                f"baseline={self.baseline!r})")
