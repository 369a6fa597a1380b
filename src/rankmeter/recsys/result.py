"""What an experiment produced (:class:`ExperimentResult`): tables, JSON, CSV; the HTML is in report/."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Mapping, cast

import numpy as np

from .._files import json_text, write_text
from .validation import Validation

if TYPE_CHECKING:
    import pandas as pd
    from rich.console import Console
    from rich.table import Table

    from ..compare import Comparison
    from ..data import Qrels, Run
    from ..report.terminal import Grid
    from ..result import Result

__all__ = ["ExperimentResult", "FULL_RANKING"]

FULL_RANKING = "full ranking"


@dataclass(frozen=True, eq=False)
class ExperimentResult:
    """Everything an experiment produced.

    ``results[name]``: the :class:`~rankmeter.result.Result` of each recommender (per-user
    values and means, corpus-level values in ``.corpus``); ``comparison``: the
    :class:`~rankmeter.compare.Comparison` of the per-user metrics against ``baseline``
    (None with a single recommender); ``validation[name]``: what each recommender
    returned, counted; ``timings``: seconds per stage; ``mode``: ``"full ranking"`` or
    the sampled-mode label; ``data`` and ``split``: the counts of the input and of the
    split; ``notes``: everything a reader should know; ``groups[name]`` (with
    ``experiment(groups=...)``): the :class:`~rankmeter.compare.groups.GroupResult` of each
    recommender, ``group_info`` how the groups were made and their display order.
    """

    results: dict[str, "Result"]
    comparison: "Comparison | None"
    validation: dict[str, Validation]
    timings: dict[str, float]
    metrics: tuple[str, ...]
    k: int
    baseline: str | tuple[str, ...] | None
    mode: str
    data: dict[str, Any]
    split: dict[str, Any]
    notes: tuple[str, ...] = ()
    runs: dict[str, "Run"] = field(default_factory=dict, repr=False)
    reference: tuple[str, ...] = ()
    settings: dict[str, Any] = field(default_factory=dict)
    qrels: "Qrels | None" = field(default=None, repr=False)
    context: dict[str, Any] = field(default_factory=dict, repr=False)
    #: corrected sampled mode: metric -> recommender -> {"difference", "flip_risk", "resamples"} against the baseline
    flip_risk: dict[str, dict[str, Any]] = field(default_factory=dict)
    #: results per user group (experiment(groups=...)): recommender -> GroupResult (means per group, sizes,
    #: gaps, paired tests against the baseline within each group); group_info: how the groups were made
    groups: dict[str, Any] = field(default_factory=dict)
    group_info: dict[str, Any] = field(default_factory=dict)
    #: what produced it (rankmeter.provenance.Provenance): version, inputs with SHA-256, metrics, options, seeds, date
    provenance: Any = field(default=None, repr=False)
    #: each baseline's comparison (``baseline=[...]``: one correction over the whole family); ``comparison`` is the
    #: first one
    comparisons: dict[str, "Comparison"] = field(default_factory=dict)
    #: tuned recommenders (a grid with ``validation_fraction``): name -> {"params", "scores", "metric", ...}
    tuning: dict[str, Any] = field(default_factory=dict)

    @property
    def sampled(self) -> bool:
        return self.mode != FULL_RANKING

    @property
    def means(self) -> "pd.DataFrame":
        """Recommender x metric means (corpus-level metrics: their single value)."""
        import pandas as pd

        rows = {n: r.mean for n, r in self.results.items()}
        frame = pd.DataFrame.from_dict(rows, orient="index")[list(self.metrics)]
        frame.index.name = "recommender"
        return frame

    @property
    def total_seconds(self) -> float:
        return float(sum(self.timings.values()))

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-ready dict: settings, mode, data and split counts, means, validation, timings, tests."""
        out: dict[str, Any] = {
            "mode": self.mode,
            "flip_risk": self.flip_risk,
            "k": self.k,
            "metrics": list(self.metrics),
            "baseline": self.baseline,
            "reference_recommenders": list(self.reference),
            "settings": jsonable(self.settings),
            "data": jsonable(self.data),
            "split": jsonable(self.split),
            "means": {n: {m: json_number(v) for m, v in r.mean.items()} for n, r in self.results.items()},
            "users_evaluated": {n: r.n_queries for n, r in self.results.items()},
            "validation": {n: v.to_dict() for n, v in self.validation.items()},
            "timings_seconds": {k: round(v, 4) for k, v in self.timings.items()},
            "notes": list(self.notes),
        }
        if self.comparison is not None:
            out["comparison"] = self.comparison.to_dict(details=True)
        if len(self.comparisons) > 1:
            out["comparisons"] = {b: c.to_dict(details=True) for b, c in self.comparisons.items()}
        if self.tuning:
            out["tuning"] = jsonable({n: {k: v for k, v in t.items() if k != "spec"} for n, t in self.tuning.items()})
        if self.groups:
            info = {k: v for k, v in self.group_info.items() if k != "between"}
            info["between"] = {n: jsonable(t.to_dict(orient="records")) for n, t in
                               self.group_info.get("between", {}).items()}
            out["groups"] = {"info": jsonable(info),
                             "by_recommender": {n: jsonable(g.to_dict()) for n, g in self.groups.items()}}
        from .saved import saved_sections

        out.update(saved_sections(self))  # what ExperimentResult.load reads back, and the provenance record
        return out

    def group_frame(self) -> "pd.DataFrame":
        """The per-group means as one long table: recommender, group, size, metric, mean, left_out."""
        import pandas as pd

        frames = [g.to_frame().assign(recommender=n) for n, g in self.groups.items()]
        if not frames:
            return pd.DataFrame(columns=["recommender", "group", "size", "metric", "mean", "left_out"])
        return pd.concat(frames, ignore_index=True)[["recommender", "group", "size", "metric", "mean", "left_out"]]

    def to_json(self, path: str | Path | None = None) -> str:
        text = json_text(self.to_dict())
        if path is not None:
            write_text(path, text + "\n")
        return text

    def to_csv(self, path: str | Path | None = None) -> str:
        """The means table as CSV, with a ``mode`` column (the sampled label when sampled)."""
        from ..report.tabular import safe_text

        frame = self.means.copy()
        frame.insert(0, "mode", self.mode)
        # names are data: a recommender called "=HYPERLINK(...)" must not become a spreadsheet formula
        frame.index = type(frame.index)([safe_text(n) for n in frame.index], name=frame.index.name)
        frame.columns = [safe_text(c) for c in frame.columns]
        text = frame.to_csv(lineterminator="\n")
        if path is not None:
            write_text(path, text)
        return cast("str", text)

    # ------------------------------------------------------------------ terminal

    def grid(self, digits: int = 4) -> "Grid":
        """The means as a :class:`~rankmeter.report.terminal.Grid`: one row per metric, one column per
        recommender, markers against the baseline; printed whole or in parts, never cut."""
        from ..report.terminal import Grid

        means = {n: r.mean for n, r in self.results.items()}
        counts = set(self.counts)
        sums = {n: r.sums for n, r in self.results.items()} if counts else {}  # (made once, not per cell)

        def shown(n: str, m: str) -> str:  # a count: its sum over the users (an int, as trec_eval), else the mean
            return str(sums[n][m]) if m in counts else format_value(means[n].get(m, float("nan")), digits)

        return Grid(
            columns=["metric"] + [n + (" (baseline)" if n in self.baselines else "") for n in self.results],
            rows=[[f"{m} (sum)" if m in counts else m] + [shown(n, m) + self.marker(m, n) for n in self.results]
                  for m in self.metrics],
            title=f"rankmeter experiment: top-{self.k}, {self.mode}",
            caption=self.caption(),
        )

    def group_grid(self, digits: int = 4) -> "Grid":
        """The per-group means as a :class:`~rankmeter.report.terminal.Grid`: one row per per-user metric,
        one column per recommender and group (``experiment(groups=...)``)."""
        from ..report.terminal import Grid

        order = list(self.group_info.get("order", []))
        first = next(iter(self.groups.values()))
        order = [g for g in order if g in first.groups] + [g for g in first.groups if g not in order]
        cols = [(n, g) for n in self.groups for g in order]
        counts = set(getattr(first, "counts", ()))  # a count: its sum per group, labelled
        sums = {n: gv.sums for n, gv in self.groups.items()} if counts else {}  # (made once, not per cell)

        def shown(n: str, g: str, m: str) -> str:
            return str(sums[n][g][m]) if m in counts else format_value(self.groups[n].means.loc[g, m], digits)

        return Grid(
            columns=["metric"] + [f"{n}: {g} ({first.sizes[g]})" for n, g in cols],
            rows=[[f"{m} (sum)" if m in counts else m] + [shown(n, g, m) for n, g in cols]
                  for m in first.means.columns],
            title=f"per user group: {self.group_info.get('description', '')}",
            caption="mean per group of users (group size in brackets); users without a value are left out",
        )

    def table(self, digits: int = 4) -> "Table":
        """A rich table of :meth:`grid` (data-derived text shown as written)."""
        return self.grid(digits).to_rich()

    @property
    def counts(self) -> tuple[str, ...]:
        """The count metrics (``num_ret@10``...: the registry's ``count=True``), which the tables show by their sum
        over the users (``Result.sums``); ``results[name].mean`` keeps the mean."""
        first = next(iter(self.results.values()), None)
        return tuple(getattr(first, "counts", ())) if first is not None else ()

    @property
    def baselines(self) -> tuple[str, ...]:
        """The baseline names (one, several with ``baseline=[...]``, or none)."""
        if self.baseline is None:
            return ()
        return self.baseline if isinstance(self.baseline, tuple) else (self.baseline,)

    def marker(self, metric: str, name: str) -> str:
        """``" ▲"`` / ``" ▼"`` when ``name`` is significantly better / worse than the baseline on ``metric``;
        with several baselines ``" ▲1,2"``: better than baselines 1 and 2 (their order in ``baseline``)."""
        if len(self.comparisons) > 1:
            up: list[str] = []
            down: list[str] = []
            for i, b in enumerate(self.baselines):
                cmp = self.comparisons.get(b)
                if cmp is None or name == b:
                    continue
                pt = cmp.against_baseline(metric, name)  # (None for a metric not compared)
                if pt is not None and pt.significant:
                    (up if pt.better == name else down).append(str(i + 1))
            return (" ▲" + ",".join(up) if up else "") + (" ▼" + ",".join(down) if down else "")
        if self.comparison is None or name == self.baseline:
            return ""
        pt = self.comparison.against_baseline(metric, name)  # (None for a metric not compared)
        if pt is None or not pt.significant:
            return ""
        return " ▲" if pt.better == name else " ▼"

    def caption(self) -> str:
        """What the markers mean, the number of test users, and the sampled-mode warning."""
        parts = []
        if self.comparison is not None and len(self.comparisons) > 1:
            s = self.comparison.settings
            which = "; ".join(f"{i + 1} = {b}" for i, b in enumerate(self.baselines))
            parts.append(f"▲n/▼n: significantly better/worse than baseline n ({which}; {s.tests[0]} test, one "
                         f"{s.correction} correction over the family, alpha={s.alpha:g}); corpus-level metrics are "
                         "not tested")
        elif self.comparison is not None:
            s = self.comparison.settings
            parts.append(f"▲/▼: significantly better/worse than {self.baseline} ({s.tests[0]} test, "
                         f"{s.correction} correction, alpha={s.alpha:g}); corpus-level metrics are not tested")
        n_users = next(iter(self.results.values())).n_queries if self.results else 0
        parts.append(f"{n_users} test users")
        if self.sampled:
            parts.append(f"WARNING: {self.mode}")
        return "; ".join(parts)

    def print(self, console: "Console | None" = None, digits: int = 4) -> None:
        """The means table, the checks of each recommender's output, the notes and the timings."""
        from rich.console import Console
        from rich.markup import escape as markup_escape

        from ..report.escape import escape as one_rule
        from ..report.terminal import terminal_text

        def escape(text: str) -> str:  # rich leaves ESC as it is: control characters escaped first
            return markup_escape(terminal_text(text))

        con = console or Console()
        if self.sampled:
            con.print(f"[bold yellow]{escape(self.mode)}[/bold yellow]")
        con.print(self.table(digits))
        if self.groups:
            con.print(self.group_grid(digits).to_rich())
        for name, v in self.validation.items():
            for line in v.problems():
                con.print(f"[yellow]{markup_escape(one_rule(name))}[/yellow]: {escape(line)}")
        for line in self.notes:
            con.print(f"note: {escape(line)}")
        timing = ", ".join(f"{escape(k)} {v:.2f}s" for k, v in self.timings.items())
        con.print(f"[dim]timings: {timing} (total {self.total_seconds:.1f}s)[/dim]")

    # ------------------------------------------------------------------ HTML

    def to_html(self, path: str | Path | None = None, *, title: str | None = None, k_max: int | None = None) -> str:
        """One self-contained HTML page (inline CSS and figures, nothing from the network).

        See :func:`rankmeter.report.experiment.to_html`: the mode (with the sampled-mode
        warning), data and split counts, every metric, metric@k curves, the paired tests,
        per-user differences and distributions, the checks of each recommender's output,
        the notes and the timings. Without matplotlib, the page has the tables only.
        """
        from ..report.experiment import to_html

        text = to_html(self, title=title, k_max=k_max)
        if path is not None:
            write_text(path, text)
        return text

    def save(self, directory: str | Path) -> dict[str, Path]:
        """Write ``report.html``, ``results.json`` and ``means.csv`` into ``directory``.

        Each file is written whole or not at all (a temporary name, renamed when complete), and
        listed in the folder's manifest (``.rankmeter-files.json``) once complete, so a later run
        may replace them (see :mod:`rankmeter.recsys.output`).
        """
        from .output import begin_files, record_files

        d = Path(directory)
        d.mkdir(parents=True, exist_ok=True)
        paths = {"report": d / "report.html", "json": d / "results.json", "csv": d / "means.csv"}
        begin_files(d, [p.name for p in paths.values()])
        for key, write in (("json", self.to_json), ("csv", self.to_csv), ("report", self.to_html)):
            write(paths[key])
            record_files(d, [paths[key].name])
        return paths

    @classmethod
    def load(cls, path: str | Path) -> "ExperimentResult":
        """The result that :meth:`save` (a folder: its ``results.json``), :meth:`to_json` or ``rankmeter
        run-experiment`` wrote: per-user results, comparisons, validation, timings, settings, notes and
        provenance (not the rankings, judgments or per-group views: :mod:`rankmeter.recsys.saved`)."""
        from ..result import read_saved
        from .saved import experiment_from_saved

        p = Path(path) if not (isinstance(path, str) and path.lstrip().startswith("{")) else None
        if p is not None and p.is_dir():
            path = p / "results.json"
        return experiment_from_saved(read_saved(path, "ExperimentResult.load"), source=str(path)[:200])

    def equals(self, other: "ExperimentResult") -> bool:
        """The same saved content (:func:`rankmeter.recsys.saved.experiments_equal`)."""
        from .saved import experiments_equal

        return experiments_equal(self, other)

    def _repr_html_(self) -> str:
        """Means per recommender with the markers against the baseline, the mode, the caption and the notes
        (Jupyter's rich display)."""
        from ..report.notebook import experiment_html

        return experiment_html(self)

    def plot(self, kind: str = "differences", metric: str | None = None, *, k_max: int = 100) -> Any:
        """A figure of the experiment's comparison, as :meth:`rankmeter.compare.Comparison.plot` draws it
        (``"curves"``, ``"differences"``, ``"distribution"``); with one recommender, its distribution."""
        if self.comparison is not None:
            return self.comparison.plot(kind, metric, k_max=k_max)
        return next(iter(self.results.values())).plot(metric)

    def __repr__(self) -> str:
        return (f"ExperimentResult({len(self.results)} recommenders, top-{self.k}, {self.mode}, "
                f"baseline={self.baseline!r})")


def format_value(v: Any, digits: int) -> str:
    """A table cell: an int as an integer, a float always with ``digits`` decimals (``1.0000`` beside ``0.9000``,
    never ``1``), nan as ``nan``.

    >>> format_value(3, 4), format_value(1.0, 4), format_value(0.25, 2)
    ('3', '1.0000', '0.25')
    """
    if isinstance(v, (int, np.integer)) and not isinstance(v, bool):
        return str(int(v))
    try:
        f = float(v)
    except (TypeError, ValueError):
        return str(v)
    if math.isnan(f):
        return "nan"
    return f"{f:.{digits}f}"


def json_number(v: Any) -> Any:
    if isinstance(v, (float, np.floating)) and not math.isfinite(float(v)):
        return None
    return float(v) if isinstance(v, (float, np.floating)) else v


def jsonable(x: Any) -> Any:
    if isinstance(x, Mapping):
        return {str(k): jsonable(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [jsonable(v) for v in x]
    if isinstance(x, (np.integer,)):
        return int(x)
    if isinstance(x, (float, np.floating)):
        return json_number(float(x))
    if isinstance(x, (str, int, bool)) or x is None:
        return x
    try:
        from fractions import Fraction

        if isinstance(x, Fraction):
            return float(x)
    except ImportError:  # pragma: no cover
        pass
    return str(x)
