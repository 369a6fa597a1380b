"""The value :func:`rankmeter.compare` returns: scores, means, intervals, tests, notes, exporters.

A :class:`Comparison` holds numbers only; every rendering lives in
:mod:`rankmeter.report` (imported when an exporter is called), which reads the
Comparison's attributes and never imports this package.
"""

from __future__ import annotations

import dataclasses
import math
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable

import numpy as np

from .._errors import ParameterError
from .._files import json_text, write_text

if TYPE_CHECKING:
    import pandas as pd
    from rich.console import Console
    from rich.table import Table

__all__ = ["Comparison", "PairTest", "Settings", "ProgressFn", "json_number"]

ProgressFn = Callable[[str, int, int], None]


@dataclass(frozen=True)
class PairTest:
    """One paired comparison of run ``b`` against run ``a`` on one metric with one test.

    ``diff = mean(b) - mean(a)`` over the ``n`` queries tested (every compared query, or,
    when the metric has no value (nan) for some queries, those with a value in both runs);
    ``diff_interval`` its bootstrap interval;
    ``effect_size`` the standardised difference ``d_z = mean(d) / sd(d)``;
    ``significant`` is ``p_adjusted < alpha``; ``better`` names the better run
    when significant (respecting whether higher or lower is better), else None.
    """

    metric: str
    a: str
    b: str
    test: str
    statistic: float
    p_value: float
    p_adjusted: float
    correction: str
    diff: float
    diff_interval: tuple[float, float]
    effect_size: float
    n: int
    method: str
    significant: bool
    better: str | None

    def to_dict(self, details: bool = False) -> dict[str, Any]:
        out = {
            "metric": self.metric, "a": self.a, "b": self.b, "test": self.test,
            "statistic": json_number(self.statistic), "p_value": json_number(self.p_value),
            "p_adjusted": json_number(self.p_adjusted), "correction": self.correction,
            "diff": json_number(self.diff),
            "diff_interval": [json_number(self.diff_interval[0]), json_number(self.diff_interval[1])],
        }
        if details:
            out.update(effect_size=json_number(self.effect_size), n=self.n, method=self.method,
                       significant=self.significant, better=self.better)
        return out


@dataclass(frozen=True)
class Settings:
    """How a comparison was computed (written out in every report)."""

    tests: tuple[str, ...]
    correction: str
    family: str
    alpha: float
    confidence: float
    interval: str
    n_resamples: int
    seed: Any
    pairs: str
    baseline: str
    queries: str
    exact_max_n: int
    randomization: str = ""  # "exact (...)" / "Monte Carlo (...)" when the test ran

    def family_size(self, n_pairs: int, n_metrics: int) -> int:
        return n_pairs * (n_metrics if self.family == "all" else 1)

    def to_dict(self) -> dict[str, Any]:
        return {k: (list(v) if isinstance(v, tuple) else v) for k, v in dataclasses.asdict(self).items()}


def _check_writable(path: str | Path, method: str) -> None:
    """Refuse a path whose folder does not exist (or that is a folder) before any rendering."""
    p = Path(path)
    if p.is_dir():
        raise ParameterError(f"The 'path' parameter of {method} must name a file. Got the folder {str(p)!r} instead.")
    if not p.parent.is_dir():
        raise ParameterError(f"The 'path' parameter of {method} must be in an existing folder. Got {str(p)!r}, "
                             f"whose folder {str(p.parent)!r} does not exist.")


def json_number(x: Any) -> Any:
    """JSON-safe number: non-finite values become None (JSON has no inf/NaN)."""
    if x is None:
        return None
    f = float(x)
    return f if math.isfinite(f) else None


@dataclass(eq=False)
class Comparison:
    """The outcome of :func:`compare`: scores, means, intervals, tests, notes and exporters.

    ``scores[run][metric]`` are the per-query values over ``queries`` (the same
    list for every run); ``means[run][metric]`` and ``intervals[run][metric]``
    (bootstrap, ``settings.confidence``); ``tests`` one :class:`PairTest` per
    metric, pair and test; ``notes`` everything a reader should know (missing
    queries, degenerate cases); ``missing[run]`` how many of the queries the run
    has no ranking for (scored as empty). A per-query value may be nan (no value: a user
    the metric leaves out, e.g. without a training profile): ``no_value[metric][run]``
    counts them; they are left out of the run's mean and interval and of every paired
    test of the metric that involves the run (``PairTest.n``), and a note says so.
    Two spellings of one metric (``hit_rate@10`` and ``success@10``) are both in ``metrics``
    and keyed as written, with the same numbers: the metric is computed and tested once, and
    the multiple-testing family counts it once (``aliases[spelling]`` names the first spelling).
    """

    runs: tuple[str, ...]
    metrics: tuple[str, ...]
    queries: tuple[str, ...]
    scores: dict[str, dict[str, np.ndarray]]
    means: dict[str, dict[str, float]]
    intervals: dict[str, dict[str, tuple[float, float]]]
    tests: list[PairTest]
    settings: Settings
    notes: list[str] = field(default_factory=list)
    missing: dict[str, int] = field(default_factory=dict)
    higher_is_better: dict[str, bool] = field(default_factory=dict)
    unit: str = "query"  # what a row is: "query", or e.g. "user" for ratings results
    # how similar the compared runs' rankings are: one entry per compared pair of runs given as rankings,
    # {"a", "b", "measure", "mean", "queries"} (compare(..., overlap=True))
    overlap: list[dict[str, Any]] = field(default_factory=list)
    # per metric with missing values (nan, e.g. users without a training profile): run -> how many of the
    # queries have no value; they are left out of that run's mean and of the paired tests (PairTest.n)
    no_value: dict[str, dict[str, int]] = field(default_factory=dict)
    # unjudged="bounds": run -> metric -> (smallest, largest) mean over every completion of the judgments, and
    # the compared (metric, a, b) whose intervals overlap: unresolved by the judgments
    unjudged_bounds: dict[str, dict[str, tuple[float, float]]] = field(default_factory=dict)
    unresolved: list[tuple[str, str, str]] = field(default_factory=list)
    # another spelling of a metric given before it (success@10 after hit_rate@10) -> that first spelling:
    # computed and tested once, shown under each spelling with the same statistics, counted once in the
    # multiple-testing family
    aliases: dict[str, str] = field(default_factory=dict)
    # the count metrics (the registry's count=True: num_ret, num_rel_ret...): shown by their sum over the
    # queries in every table, as trec_eval; means, intervals and tests stay per query (sums, sum_interval)
    counts: tuple[str, ...] = ()
    # what produced it (rankmeter.provenance.Provenance): version, inputs with SHA-256, metrics, options, seed, date
    provenance: Any = field(default=None, repr=False)
    _sources: dict[str, Any] = field(default_factory=dict, repr=False)
    _curves: dict[int, Any] = field(default_factory=dict, repr=False)

    # ----------------------------------------------------------------- access

    @property
    def baseline(self) -> str:
        return self.settings.baseline

    @property
    def n_queries(self) -> int:
        return len(self.queries)

    @property
    def units(self) -> str:
        """What the rows are, in the number :attr:`n_queries` takes: "queries", "users", or "query" for one."""
        if self.n_queries == 1:
            return self.unit
        return "queries" if self.unit == "query" else self.unit + "s"

    @property
    def sums(self) -> dict[str, dict[str, int]]:
        """``sums[run][metric]``: each count metric's sum over the queries with a value (trec_eval's ``all`` line
        of a count), as the tables show it; ``means`` keeps the per-query mean."""
        return {r: {m: int(round(float(np.nansum(self.scores[r][m])))) for m in self.counts} for r in self.runs}

    def sum_interval(self, run: str, metric: str) -> tuple[float, float]:
        """The bootstrap interval of a count's sum: its mean's interval times the number of queries with a value
        (a resample's sum is that many times its mean)."""
        n = int(np.count_nonzero(~np.isnan(np.asarray(self.scores[run][metric], dtype=np.float64))))
        lo, hi = self.intervals[run][metric]
        return lo * n, hi * n

    def test(self, metric: str, a: str, b: str, test: str | None = None) -> PairTest:
        """The comparison of ``b`` against ``a`` (either order) on ``metric`` with ``test`` (first test if None)."""
        name = test or self.settings.tests[0]
        found = self._tests_by_key().get((metric, name, frozenset((a, b))))
        if found is not None:
            return found
        raise ParameterError(f"no {name} comparison of {a!r} and {b!r} on {metric!r} in this comparison "
                             f"(runs: {', '.join(self.runs)}; metrics: {', '.join(self.metrics)})")

    def _tests_by_key(self) -> dict[tuple[str, str, frozenset[str]], PairTest]:
        """The first test of each (metric, test, pair of runs), indexed once per list of tests: looked up by a scan,
        a table asking once per metric and run made thousands of metrics quadratic (issue 32)."""
        cached = self.__dict__.get("_test_index")
        if cached is None or cached[0] is not self.tests or cached[1] != len(self.tests):
            index: dict[tuple[str, str, frozenset[str]], PairTest] = {}
            for t in self.tests:
                index.setdefault((t.metric, t.test, frozenset((t.a, t.b))), t)
            cached = (self.tests, len(self.tests), index)
            self.__dict__["_test_index"] = cached
        return cached[2]

    def against_baseline(self, metric: str, run: str) -> PairTest | None:
        """The primary test of ``run`` against the baseline on ``metric`` (None for the baseline)."""
        if run == self.baseline:
            return None
        return self._tests_by_key().get((metric, self.settings.tests[0], frozenset((self.baseline, run))))

    def best(self, metric: str) -> list[str]:
        """Runs with the best mean on ``metric`` (several when tied)."""
        vals = {r: self.means[r][metric] for r in self.runs}
        target = max(vals.values()) if self.higher_is_better.get(metric, True) else min(vals.values())
        return [r for r, v in vals.items() if v == target]

    @property
    def per_query(self) -> "pd.DataFrame":
        """Per-query scores: one row per query, columns ``(run, metric)``."""
        import pandas as pd

        cols = {(r, m): self.scores[r][m] for r in self.runs for m in self.metrics}
        frame = pd.DataFrame(cols, index=pd.Index(list(self.queries), name="query"))
        frame.columns = pd.MultiIndex.from_tuples(list(cols), names=["run", "metric"])
        return frame

    def describe(self) -> str:
        """One paragraph stating the test settings (used as caption/footnote by the reports)."""
        from ..report import describe

        return describe(self)

    @property
    def has_rankings(self) -> bool:
        """True when the runs were given as rankings (metric@k curves can be drawn), not as results."""
        return bool(self._sources.get("runs"))

    # ----------------------------------------------------------------- many systems

    def discriminative_power(self, *, test: str | None = None, alpha: float | None = None,
                             adjusted: bool = True) -> dict[str, Any]:
        """Share of the pairs of runs each metric finds significantly different, with the ASL curve
        (Sakai 2006); needs ``pairs="all"``. See :func:`rankmeter.compare.many.discriminative_power`."""
        from .many import discriminative_power

        return discriminative_power(self, test=test, alpha=alpha, adjusted=adjusted)

    def ranking_correlation(self, metric_a: str, metric_b: str, other: "Comparison | None" = None) -> Any:
        """Kendall's tau and tau_AP between the orderings of the runs by ``metric_a`` (here) and by
        ``metric_b`` (here, or in ``other``, e.g. the same runs under other judgments)."""
        from .many import ranking_correlation

        return ranking_correlation(self, other if other is not None else self, metric_a, metric_b)

    def anova(self, metric: str) -> Any:
        """The system x topic ANOVA table of ``metric`` (:func:`rankmeter.stats.anova_two_way`)."""
        from .many import anova_of

        return anova_of(self, metric)

    def topic_set_size(self, metric: str, min_diff: float, *, alpha: float | None = None, beta: float = 0.20) -> Any:
        """Topics a paired t-test needs to detect ``min_diff`` on ``metric`` with power ``1 - beta``, the
        variance estimated from these runs (ANOVA residual; :func:`rankmeter.stats.topic_set_size`)."""
        from .many import topic_set_size_of

        return topic_set_size_of(self, metric, min_diff, alpha=alpha, beta=beta)

    # ----------------------------------------------------------------- exporters

    def to_dict(self, details: bool = False) -> dict[str, Any]:
        """``{"queries": N, "means": ..., "intervals": ..., "tests": [...]}``, and ``"sums"`` of the count metrics
        (``num_ret``...: their sum over the queries, as the tables show them; ``means``, ``intervals`` and each
        test's ``diff`` stay per query).

        ``details=True`` adds the effect size, n, method and significance of each
        test and top-level ``runs``, ``metrics``, ``baseline``, ``settings``,
        ``missing`` and ``notes``. Non-finite numbers (an infinite t statistic) are
        written as null.
        """
        out: dict[str, Any] = {
            "queries": self.n_queries,
            "means": {r: {m: json_number(self.means[r][m]) for m in self.metrics} for r in self.runs},
            "intervals": {r: {m: [json_number(v) for v in self.intervals[r][m]] for m in self.metrics}
                          for r in self.runs},
            "tests": [t.to_dict(details) for t in self.tests],
        }
        if self.counts:  # a count's sum over the queries, as the tables show it (means stay per query)
            out["sums"] = self.sums
        if details:
            out.update(runs=list(self.runs), metrics=list(self.metrics), baseline=self.baseline,
                       settings=self.settings.to_dict(), missing=dict(self.missing), notes=list(self.notes))
            if self.no_value:
                out["no_value"] = {m: dict(v) for m, v in self.no_value.items()}
        if self.overlap:
            out["overlap"] = [{k: (json_number(v) if k == "mean" else v) for k, v in o.items()} for o in self.overlap]
        return out

    def to_json(self, path: str | Path | None = None, *, indent: int | None = 2, details: bool = False) -> str:
        """JSON text of :meth:`to_dict` (written to ``path`` if given), with the per-query scores and settings
        that :meth:`load` reads back (section ``"rankmeter"``) and the provenance record (``"provenance"``)."""
        out = self.to_dict(details)
        out["rankmeter"] = saved_section(self)
        if self.provenance is not None:
            out["provenance"] = self.provenance.to_dict()
        text = json_text(out, indent)
        if path is not None:
            write_text(path, text + "\n")
        return text

    def save(self, path: str | Path) -> Path:
        """Write :meth:`to_json` (with details) to ``path`` and return it; :meth:`load` reads it back."""
        self.to_json(path, details=True)
        return Path(path)

    @classmethod
    def load(cls, path: str | Path) -> "Comparison":
        """The comparison that :meth:`save` / :meth:`to_json` wrote (a path, or the JSON text itself): runs,
        metrics, queries, per-query scores, means, intervals, tests, settings, notes and provenance. Its
        metric@k curves are not available (they need the rankings).

        >>> from rankmeter.compare import compare
        >>> c = compare({"q1": ["a"], "q2": ["b"]}, {"A": {"q1": ["a"], "q2": ["x"]}, "B": {"q1": ["x"], "q2": ["b"]}},
        ...             ["rr"], n_resamples=100)
        >>> back = Comparison.load(c.to_json())
        >>> back.means == c.means, back.equals(c)
        (True, True)
        """
        from ..result import read_saved

        return comparison_from_saved(read_saved(path, "Comparison.load"), source=str(path)[:200])

    def equals(self, other: "Comparison") -> bool:
        """The same numbers, tests, settings, notes and provenance (nan equal to nan)."""
        return comparisons_equal(self, other)

    def _repr_html_(self) -> str:
        """The means table (intervals, markers, best in bold), the tests and the notes (Jupyter's rich display)."""
        from ..report.notebook import comparison_html

        return comparison_html(self)

    def plot(self, kind: str = "differences", metric: str | None = None, *, k_max: int = 100) -> Any:
        """A matplotlib figure, as the HTML report draws it: ``kind="curves"`` (metric@k for k = 1..``k_max``,
        runs given as rankings), ``"differences"`` (per-query differences against the baseline, sorted) or
        ``"distribution"`` (per-query values of every run). ``metric``: default the first."""
        from ..report.notebook import comparison_figure

        return comparison_figure(self, kind, metric, k_max=k_max)

    def to_csv(self, path: str | Path | None = None) -> str:
        """Long-format CSV: one ``mean`` row per run and metric (and a ``sum`` row for a count metric: its sum over
        the queries and the sum's interval), one ``diff`` row per test.

        Columns: ``kind, metric, run, against, test, value, low, high, statistic,
        p_value, p_adjusted, correction, significant, effect_size, n``. For a
        ``diff`` row, ``value`` is ``mean(run) - mean(against)`` and ``low, high``
        its interval.
        """
        from ..report import to_csv

        text = to_csv(self)
        if path is not None:
            write_text(path, text)
        return text

    def to_markdown(self, *, digits: int = 4) -> str:
        """Markdown: the means table (intervals, markers, best in bold), the tests, the settings."""
        from ..report import to_markdown

        return to_markdown(self, digits=digits)

    def to_latex(self, *, digits: int = 3, intervals: bool = False, label: str = "tab:comparison") -> str:
        """A booktabs table: best value per metric in bold, markers explained in the caption."""
        from ..report import to_latex

        return to_latex(self, digits=digits, intervals=intervals, label=label)

    def to_table(self, *, digits: int = 4) -> "Table":
        """A rich table of means with intervals and significance markers against the baseline."""
        from ..report import means_table

        return means_table(self, digits=digits)

    def to_tests_table(self, *, digits: int = 4, compact: bool = False) -> "Table":
        """A rich table of every test: difference, interval, d_z, statistic, p and adjusted p
        (``compact``: without d_z and the statistic)."""
        from ..report import tests_table

        return tests_table(self, digits=digits, compact=compact)

    def print(self, console: "Console | None" = None, *, digits: int = 4) -> None:
        """Print both tables, the settings and the notes to a rich console (stdout by default)."""
        from ..report import print_comparison

        print_comparison(self, console=console, digits=digits)

    def to_html(self, path: str | Path | None = None, *, k_max: int = 100, title: str | None = None,
                progress: ProgressFn | None = None, groups: Any = None) -> str:
        """One self-contained HTML page (inline CSS and PNG figures; nothing loads from the network).

        Tables, metric@k curves (k = 1..``k_max``, when the runs themselves were
        given), per-query difference plots against the baseline, per-query score
        distributions and the settings; with ``groups`` (a query -> group mapping or file, or the
        views of :func:`rankmeter.compare.groups.compare_by_group`) a per-group section with a plot
        per metric. Needs matplotlib (``pip install
        'rankmeter[report]'``).
        """
        from ..report import to_html

        if path is not None:
            _check_writable(path, "to_html")  # before the figures, which take the time
        if groups is not None and not (isinstance(groups, dict) and groups
                                       and all(hasattr(v, "means") for v in groups.values())):
            from .groups import compare_by_group

            groups = compare_by_group(self, groups)
        text = to_html(self, k_max=k_max, title=title, progress=progress, groups=groups)
        if path is not None:
            write_text(path, text)
        return text

    # ----------------------------------------------------------------- curves

    def curves(self, k_max: int = 100, progress: ProgressFn | None = None) -> dict[str, dict[str, np.ndarray]]:
        """Mean metric@k for k = 1..k_max per run: ``{"ndcg@k": {run: array(k_max)}}``.

        One curve per metric (with its parameters) that takes a cutoff; available
        for runs given as rankings (not for precomputed results, which are skipped).
        Evaluated on the comparison's query list.

        The work is bounded by the data: past the longest list of the data (a query's
        ranking in any run, or its judgments), a larger k adds no item, so the curves
        stop there (each metric is constant beyond it, or falls as 1/k for precision) and
        a note says so. The arrays are then shorter than ``k_max``.
        """
        if isinstance(k_max, bool) or not isinstance(k_max, int) or k_max < 1:
            raise ParameterError(f"The 'k_max' parameter of curves must be an int >= 1. Got {k_max!r} instead.")
        if k_max in self._curves:
            return self._curves[k_max]  # type: ignore[no-any-return]  # the cache holds Any
        src = self._sources
        out: dict[str, dict[str, np.ndarray]] = {}
        if not src.get("runs"):
            self._curves[k_max] = out
            return out
        asked = k_max
        k_max = min(k_max, _longest_list(src["qrels"], src["runs"].values()))
        if k_max < asked:
            note = (f"metric@k curves stop at k = {k_max}, the longest list of the data (a ranking or a query's "
                    f"judgments), not at the {asked} asked for: a larger k adds no item")
            if note not in self.notes:
                self.notes.append(note)
        from ..evaluate import evaluate

        bases: dict[str, Any] = {}
        seen: set[str] = set()
        for m in src["metrics"]:
            key = dataclasses.replace(m, k=None).canonical
            if m.spec.cutoff and m.spec.level == "query" and key not in seen:
                seen.add(key)
                # the name as the user wrote it, cutoff replaced: "nDCG@10" -> "nDCG@k", "P_10" -> "P@k"
                label = re.sub(r"(@\s*\d+|[._]\d+)\s*$", "", m.text.strip()) + "@k"
                bases[label if label not in bases else key + "@k"] = m
        if not bases:
            self._curves[asked] = out
            return out
        wanted = []
        for label, m in bases.items():
            for k in range(1, k_max + 1):
                wanted.append((label, k, dataclasses.replace(m, k=k, text=f"{label[:-2]}@{k}")))
        names = list(src["runs"])
        for i, name in enumerate(names):
            res = evaluate(src["qrels"], src["runs"][name], [w[2] for w in wanted], queries=list(self.queries))
            means = res.mean
            for label, k, m in wanted:
                out.setdefault(label, {}).setdefault(name, np.zeros(k_max))[k - 1] = means[m.text]
            if progress is not None:
                progress("metric@k curves", i + 1, len(names))
        self._curves[asked] = out
        return out

    def __repr__(self) -> str:
        head = ", ".join(f"{m}" for m in self.metrics)
        return (f"Comparison({len(self.runs)} runs x {self.n_queries} queries: {head}; "
                f"{len(self.tests)} tests, baseline {self.baseline!r})")


def _longest_list(qrels: Any, runs: Any) -> int:
    """The most rows any one query has, in the judgments or in any run (at least 1)."""
    longest = 1
    for table in (qrels, *runs):
        lengths = np.diff(getattr(table, "offsets", np.zeros(1, dtype=np.int64)))
        if len(lengths):
            longest = max(longest, int(lengths.max()))
    return longest


COMPARISON_FORMAT = "rankmeter-comparison/1"


def _nums(values: Any) -> list[Any]:
    return [json_number(v) for v in np.asarray(values, dtype=np.float64)]


def _floats(values: Any) -> np.ndarray:
    return np.array([np.nan if v is None else v for v in values], dtype=np.float64)


def _f(v: Any) -> float:
    return float("nan") if v is None else float(v)


def saved_section(cmp: Comparison) -> dict[str, Any]:
    """What :func:`comparison_from_saved` needs beyond :meth:`Comparison.to_dict`."""
    return {
        "format": COMPARISON_FORMAT, "runs": list(cmp.runs), "metrics": list(cmp.metrics),
        "query_ids": list(cmp.queries), "unit": cmp.unit, "baseline": cmp.baseline,
        "scores": {r: {m: _nums(cmp.scores[r][m]) for m in cmp.metrics} for r in cmp.runs},
        "means": {r: {m: json_number(cmp.means[r][m]) for m in cmp.metrics} for r in cmp.runs},
        "tests": [t.to_dict(details=True) for t in cmp.tests],
        "settings": cmp.settings.to_dict(), "notes": list(cmp.notes), "missing": dict(cmp.missing),
        "higher_is_better": dict(cmp.higher_is_better), "overlap": [
            {k: (json_number(v) if k == "mean" else v) for k, v in o.items()} for o in cmp.overlap],
        "no_value": {m: dict(v) for m, v in cmp.no_value.items()},
        "unjudged_bounds": {r: {m: [json_number(v[0]), json_number(v[1])] for m, v in b.items()}
                            for r, b in cmp.unjudged_bounds.items()},
        "unresolved": [list(u) for u in cmp.unresolved],
        "aliases": dict(cmp.aliases), "counts": list(cmp.counts),
    }


def comparison_from_saved(d: dict[str, Any], source: str = "") -> Comparison:
    """The :class:`Comparison` that :meth:`Comparison.to_json` wrote."""
    from .._errors import InputError
    from ..provenance import Provenance

    info = d.get("rankmeter")
    if not isinstance(info, dict) or info.get("format") != COMPARISON_FORMAT:
        raise InputError(f"Comparison.load: expected a comparison saved by rankmeter (format {COMPARISON_FORMAT!r}); "
                         "found " + (f"format {info.get('format')!r}" if isinstance(info, dict) else
                                     "JSON without rankmeter's 'rankmeter' section"), source=source)
    runs, metrics = tuple(info["runs"]), tuple(info["metrics"])
    tests = [PairTest(metric=t["metric"], a=t["a"], b=t["b"], test=t["test"], statistic=_f(t["statistic"]),
                      p_value=_f(t["p_value"]), p_adjusted=_f(t["p_adjusted"]), correction=t["correction"],
                      diff=_f(t["diff"]), diff_interval=(_f(t["diff_interval"][0]), _f(t["diff_interval"][1])),
                      effect_size=_f(t["effect_size"]), n=int(t["n"]), method=t["method"],
                      significant=bool(t["significant"]), better=t["better"]) for t in info["tests"]]
    s = dict(info["settings"])
    s["tests"] = tuple(s["tests"])
    intervals = d.get("intervals", {})
    return Comparison(
        runs=runs, metrics=metrics, queries=tuple(info["query_ids"]),
        scores={r: {m: _floats(info["scores"][r][m]) for m in metrics} for r in runs},
        means={r: {m: _f(info["means"][r][m]) for m in metrics} for r in runs},
        intervals={r: {m: (_f(intervals[r][m][0]), _f(intervals[r][m][1])) for m in metrics} for r in runs},
        tests=tests, settings=Settings(**s), notes=list(info["notes"]), missing=dict(info["missing"]),
        higher_is_better=dict(info["higher_is_better"]), unit=info["unit"],
        overlap=[{k: (_f(v) if k == "mean" else v) for k, v in o.items()} for o in info.get("overlap", [])],
        no_value={m: dict(v) for m, v in info.get("no_value", {}).items()},
        unjudged_bounds={r: {m: (_f(v[0]), _f(v[1])) for m, v in b.items()}
                         for r, b in info.get("unjudged_bounds", {}).items()},
        unresolved=[(u[0], u[1], u[2]) for u in info.get("unresolved", [])],
        aliases={str(a): str(m) for a, m in info.get("aliases", {}).items()},
        counts=tuple(str(m) for m in info.get("counts", [])),
        provenance=Provenance.from_dict(d["provenance"]) if isinstance(d.get("provenance"), dict) else None)


def _same(a: Any, b: Any) -> bool:
    x, y = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    return x.shape == y.shape and bool(np.array_equal(x, y, equal_nan=True))


def comparisons_equal(a: Comparison, b: Comparison) -> bool:
    """Same runs, metrics, queries, scores, means, intervals, tests, settings, notes and provenance."""
    if (a.runs, a.metrics, a.queries, a.unit) != (b.runs, b.metrics, b.queries, b.unit):
        return False
    for r in a.runs:
        for m in a.metrics:
            if not (_same(a.scores[r][m], b.scores[r][m]) and _same(a.means[r][m], b.means[r][m])
                    and _same(a.intervals[r][m], b.intervals[r][m])):
                return False
    tests_a = [t.to_dict(details=True) for t in a.tests]
    tests_b = [t.to_dict(details=True) for t in b.tests]
    return (tests_a == tests_b and a.settings.to_dict() == b.settings.to_dict() and list(a.notes) == list(b.notes)
            and dict(a.missing) == dict(b.missing) and dict(a.higher_is_better) == dict(b.higher_is_better)
            and dict(a.aliases) == dict(b.aliases) and a.counts == b.counts and a.provenance == b.provenance)
