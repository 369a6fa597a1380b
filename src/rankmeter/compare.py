"""Compare runs: per-query scores on one query set, paired tests, intervals, reports.

>>> qrels = {"q1": {"a": 1, "b": 1}, "q2": {"c": 1}, "q3": {"d": 2}, "q4": {"e": 1}}
>>> runs = {"bm25": {"q1": ["a", "x", "b"], "q2": ["y", "c"], "q3": ["z", "d"], "q4": ["w", "e"]},
...         "dense": {"q1": ["a", "b"], "q2": ["c"], "q3": ["d"], "q4": ["e"]}}
>>> cmp = compare(qrels, runs, ["P@1", "ndcg@3"], test="randomization")
>>> cmp.means["dense"]["P@1"], cmp.means["bm25"]["P@1"]
(1.0, 0.25)
>>> t = cmp.test("P@1", "bm25", "dense")
>>> t.diff, t.p_value, t.method          # 4 queries: all 16 sign patterns enumerated
(0.75, 0.25, 'exact (16 sign patterns)')

What is compared
----------------
Every run is evaluated on the *same* query list (``queries="judged"``: every
judged query with a relevant item, as :func:`rankmeter.evaluate`); a query
missing from a run scores as an empty ranking there, and the number of such
queries is reported per run. Precomputed :class:`~rankmeter.result.Result`
objects (e.g. from ``evaluate_ratings``) cannot be re-scored on queries they lack,
so they are aligned on the queries common to all inputs and the left-out
queries are counted in ``notes``.

Tests, intervals, corrections
-----------------------------
See :mod:`rankmeter.stats.tests`. Every mean and every difference gets a
bootstrap interval (BCa by default) from ``n_resamples`` resamples of the
queries, the same resamples for every run (the paired design). The tests of
one metric with one test form a family (``family="metric"``, default) that the
correction (Holm by default) adjusts; ``family="all"`` makes every metric's
comparisons one family. One ``seed`` drives everything through
``numpy.random.SeedSequence(seed).spawn(2)``: stream 0 draws the randomisation
sign patterns, stream 1 the bootstrap resamples.
"""

from __future__ import annotations

import dataclasses
import itertools
import json
import math
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Iterable, Mapping, Sequence

import numpy as np

from ._errors import InputError, MetricNameError, ParameterError
from .result import Result

if TYPE_CHECKING:
    import pandas as pd
    from rich.console import Console
    from rich.table import Table

__all__ = ["compare", "Comparison", "PairTest", "Settings", "TESTS", "TEST_NAMES"]

TESTS = ("t", "wilcoxon", "randomization", "bootstrap")
TEST_NAMES = {
    "t": "paired t-test",
    "wilcoxon": "Wilcoxon signed-rank test",
    "randomization": "randomisation (sign-flip permutation) test",
    "bootstrap": "paired bootstrap test",
}
_TEST_ALIASES = {
    "t": "t", "ttest": "t", "t-test": "t", "student": "t", "paired_t": "t",
    "wilcoxon": "wilcoxon", "signed-rank": "wilcoxon",
    "randomization": "randomization", "randomisation": "randomization", "permutation": "randomization",
    "fisher": "randomization",
    "bootstrap": "bootstrap",
}

ProgressFn = Callable[[str, int, int], None]


@dataclass(frozen=True)
class PairTest:
    """One paired comparison of run ``b`` against run ``a`` on one metric with one test.

    ``diff = mean(b) - mean(a)``; ``diff_interval`` its bootstrap interval;
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
            "statistic": _num(self.statistic), "p_value": _num(self.p_value),
            "p_adjusted": _num(self.p_adjusted), "correction": self.correction,
            "diff": _num(self.diff), "diff_interval": [_num(self.diff_interval[0]), _num(self.diff_interval[1])],
        }
        if details:
            out.update(effect_size=_num(self.effect_size), n=self.n, method=self.method,
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


def _num(x: Any) -> Any:
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
    has no ranking for (scored as empty).
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
        """The plural of :attr:`unit`: "queries", "users"."""
        return "queries" if self.unit == "query" else self.unit + "s"

    def test(self, metric: str, a: str, b: str, test: str | None = None) -> PairTest:
        """The comparison of ``b`` against ``a`` (either order) on ``metric`` with ``test`` (first test if None)."""
        name = test or self.settings.tests[0]
        for t in self.tests:
            if t.metric == metric and t.test == name and {t.a, t.b} == {a, b}:
                return t
        raise ParameterError(f"no {name} comparison of {a!r} and {b!r} on {metric!r} in this comparison "
                             f"(runs: {', '.join(self.runs)}; metrics: {', '.join(self.metrics)})")

    def against_baseline(self, metric: str, run: str) -> PairTest | None:
        """The primary test of ``run`` against the baseline on ``metric`` (None for the baseline)."""
        if run == self.baseline:
            return None
        try:
            return self.test(metric, self.baseline, run)
        except ParameterError:
            return None

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
        from .report._common import describe

        return describe(self)

    # ----------------------------------------------------------------- exporters

    def to_dict(self, details: bool = False) -> dict[str, Any]:
        """``{"queries": N, "means": ..., "intervals": ..., "tests": [...]}``.

        ``details=True`` adds the effect size, n, method and significance of each
        test and top-level ``runs``, ``metrics``, ``baseline``, ``settings``,
        ``missing`` and ``notes``. Non-finite numbers (an infinite t statistic) are
        written as null.
        """
        out: dict[str, Any] = {
            "queries": self.n_queries,
            "means": {r: {m: _num(self.means[r][m]) for m in self.metrics} for r in self.runs},
            "intervals": {r: {m: [_num(v) for v in self.intervals[r][m]] for m in self.metrics} for r in self.runs},
            "tests": [t.to_dict(details) for t in self.tests],
        }
        if details:
            out.update(runs=list(self.runs), metrics=list(self.metrics), baseline=self.baseline,
                       settings=self.settings.to_dict(), missing=dict(self.missing), notes=list(self.notes))
        return out

    def to_json(self, path: str | Path | None = None, *, indent: int | None = 2, details: bool = False) -> str:
        """JSON text of :meth:`to_dict` (written to ``path`` if given)."""
        text = json.dumps(self.to_dict(details), indent=indent, allow_nan=False)
        if path is not None:
            Path(path).write_text(text + "\n", encoding="utf-8")
        return text

    def to_csv(self, path: str | Path | None = None) -> str:
        """Long-format CSV: one ``mean`` row per run and metric, one ``diff`` row per test.

        Columns: ``kind, metric, run, against, test, value, low, high, statistic,
        p_value, p_adjusted, correction, significant, effect_size, n``. For a
        ``diff`` row, ``value`` is ``mean(run) - mean(against)`` and ``low, high``
        its interval.
        """
        from .report.tabular import to_csv

        text = to_csv(self)
        if path is not None:
            Path(path).write_text(text, encoding="utf-8")
        return text

    def to_markdown(self, *, digits: int = 4) -> str:
        """Markdown: the means table (intervals, markers, best in bold), the tests, the settings."""
        from .report.markdown import to_markdown

        return to_markdown(self, digits=digits)

    def to_latex(self, *, digits: int = 3, intervals: bool = False, label: str = "tab:comparison") -> str:
        """A booktabs table: best value per metric in bold, markers explained in the caption."""
        from .report.latex import to_latex

        return to_latex(self, digits=digits, intervals=intervals, label=label)

    def to_table(self, *, digits: int = 4) -> "Table":
        """A rich table of means with intervals and significance markers against the baseline."""
        from .report.terminal import means_table

        return means_table(self, digits=digits)

    def to_tests_table(self, *, digits: int = 4, compact: bool = False) -> "Table":
        """A rich table of every test: difference, interval, d_z, statistic, p and adjusted p
        (``compact``: without d_z and the statistic)."""
        from .report.terminal import tests_table

        return tests_table(self, digits=digits, compact=compact)

    def print(self, console: "Console | None" = None, *, digits: int = 4) -> None:
        """Print both tables, the settings and the notes to a rich console (stdout by default)."""
        from .report.terminal import print_comparison

        print_comparison(self, console=console, digits=digits)

    def to_html(self, path: str | Path | None = None, *, k_max: int = 100, title: str | None = None,
                progress: ProgressFn | None = None) -> str:
        """One self-contained HTML page (inline CSS and PNG figures; nothing loads from the network).

        Tables, metric@k curves (k = 1..``k_max``, when the runs themselves were
        given), per-query difference plots against the baseline, per-query score
        distributions and the settings. Needs matplotlib (``pip install
        'rankmeter[report]'``).
        """
        from .report.html import to_html

        text = to_html(self, k_max=k_max, title=title, progress=progress)
        if path is not None:
            Path(path).write_text(text, encoding="utf-8")
        return text

    # ----------------------------------------------------------------- curves

    def curves(self, k_max: int = 100, progress: ProgressFn | None = None) -> dict[str, dict[str, np.ndarray]]:
        """Mean metric@k for k = 1..k_max per run: ``{"ndcg@k": {run: array(k_max)}}``.

        One curve per metric (with its parameters) that takes a cutoff; available
        for runs given as rankings (not for precomputed results, which are skipped).
        Evaluated on the comparison's query list.
        """
        if isinstance(k_max, bool) or not isinstance(k_max, int) or k_max < 1:
            raise ParameterError(f"The 'k_max' parameter of curves must be an int >= 1. Got {k_max!r} instead.")
        if k_max in self._curves:
            return self._curves[k_max]  # type: ignore[no-any-return]
        src = self._sources
        out: dict[str, dict[str, np.ndarray]] = {}
        if not src.get("runs"):
            self._curves[k_max] = out
            return out
        from .evaluate import evaluate

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
            self._curves[k_max] = out
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
        self._curves[k_max] = out
        return out

    def __repr__(self) -> str:
        head = ", ".join(f"{m}" for m in self.metrics)
        return (f"Comparison({len(self.runs)} runs x {self.n_queries} queries: {head}; "
                f"{len(self.tests)} tests, baseline {self.baseline!r})")


# =========================================================================== compare()


def _normalise_tests(test: str | Sequence[str]) -> tuple[str, ...]:
    items = [test] if isinstance(test, str) else list(test)
    if not items:
        raise ParameterError("The 'test' parameter of compare must name at least one test. Got an empty list instead.")
    out: list[str] = []
    for t in items:
        key = _TEST_ALIASES.get(str(t).lower())
        if key is None:
            raise ParameterError(f"The 'test' parameter of compare must be one of {', '.join(TESTS)}. Got {t!r} instead.")
        if key not in out:
            out.append(key)
    return tuple(out)


def _run_names(runs: Any) -> list[tuple[str, Any]]:
    from .data import Run

    if isinstance(runs, Mapping):
        first = next(iter(runs.values()), None)
        single = (isinstance(first, Mapping) and first and all(isinstance(v, (int, float)) for v in first.values())) \
            or (isinstance(first, (list, tuple)) and first and all(isinstance(v, str) for v in first))
        if single:
            raise ParameterError("The 'runs' parameter of compare must be a mapping {name: run} or a list of runs. "
                                 "Got what looks like a single run ({query: items}) instead.")
        items = [(str(k), v) for k, v in runs.items()]
    elif isinstance(runs, (str, Path, Run, Result)) or not isinstance(runs, Iterable):
        raise ParameterError("The 'runs' parameter of compare must be a mapping {name: run} or a list of runs. "
                             f"Got a single {type(runs).__name__} instead.")
    else:
        items = []
        for i, r in enumerate(runs):
            name = Path(r).stem if isinstance(r, (str, Path)) else f"run{i + 1}"
            items.append((name, r))
    names = [n for n, _ in items]
    dup = sorted({n for n in names if names.count(n) > 1})
    if dup:
        raise ParameterError(f"run names must be unique; {', '.join(map(repr, dup))} appears more than once "
                             "(pass a mapping {name: run} to name them)")
    if len(items) < 2:
        raise ParameterError(f"The 'runs' parameter of compare must hold at least 2 runs. Got {len(items)} instead.")
    return items


def _judged_queries(q: Any, policy: str) -> list[str]:
    rowq = q.row_queries()
    codes = np.unique(rowq[q.grades > 0]) if policy == "judged" else np.arange(q.n_queries)
    import pyarrow as pa

    return list(q.query_ids.take(pa.array(codes)).to_pylist())


def _find_metric(result: Result, text: str) -> str | None:
    if text in result.values:
        return text
    try:
        from .metrics.registry import parse_metric

        want = parse_metric(text).canonical
        for key in result.values:
            try:
                if parse_metric(key).canonical == want:
                    return key
            except Exception:
                continue
    except Exception:
        return None
    return None


def _higher_is_better(text: str, results: Sequence[Result]) -> bool:
    for r in results:
        for m in getattr(r, "metrics", ()) or ():
            if getattr(m, "text", None) == text and hasattr(m, "spec"):
                return bool(m.spec.higher_is_better)
    try:
        from .metrics.registry import parse_metric

        return bool(parse_metric(text).spec.higher_is_better)
    except Exception:
        return True


def _examples(items: Sequence[str], k: int = 3) -> str:
    shown = ", ".join(map(str, items[:k]))
    return shown + (", ..." if len(items) > k else "")


def compare(
    qrels: Any,
    runs: Mapping[str, Any] | Sequence[Any],
    metrics: str | Iterable[Any] | None = None,
    *,
    baseline: str | None = None,
    test: str | Sequence[str] = "t",
    correction: str = "holm",
    alpha: float = 0.05,
    confidence: float = 0.95,
    n_resamples: int = 10_000,
    seed: Any = 0,
    pairs: str = "baseline",
    queries: str | Sequence[str] = "judged",
    family: str = "metric",
    interval: str = "bca",
    exact_max_n: int = 20,
    progress: ProgressFn | None = None,
) -> Comparison:
    """Evaluate several runs on one query set and compare them with paired tests.

    ``runs``: ``{name: run}`` or a list (names: file stems for paths, else
    ``run1, run2, ...``); a run is anything :func:`rankmeter.evaluate` accepts, or
    a precomputed :class:`~rankmeter.result.Result` (then ``qrels`` may be None
    and ``metrics`` None means every metric the results share).
    ``baseline``: the run the others are tested against and the markers refer to
    (default: the first run). ``pairs``: ``"baseline"`` (each run against the
    baseline) or ``"all"`` (every pair). ``test``: ``"t"``, ``"wilcoxon"``,
    ``"randomization"``, ``"bootstrap"`` or a list (the first one gives the
    markers). ``correction``: ``"holm"``, ``"bonferroni"``, ``"bh"``, ``"none"``,
    applied per metric and test (``family="metric"``) or over all metrics
    (``family="all"``). ``confidence`` and ``interval`` (``"bca"`` or
    ``"percentile"``) set the bootstrap intervals; ``n_resamples`` is the number
    of bootstrap resamples and of random sign patterns; ``seed`` makes both
    reproducible. ``queries``: ``"judged"`` (judged queries with a relevant item),
    ``"qrels"`` (every judged query), ``"common"`` (judged queries present in every
    run) or a list of ids. ``progress(task, done, total)`` is called during long work.
    """
    from . import stats as S
    from .stats import _resample as R
    from .stats.correction import _canonical as canonical_correction

    tests = _normalise_tests(test)
    corr = canonical_correction(correction)
    if isinstance(alpha, bool) or not isinstance(alpha, (int, float)) or not 0 < alpha < 1:
        raise ParameterError(f"The 'alpha' parameter of compare must be a number in (0, 1). Got {alpha!r} instead.")
    R.check_confidence(confidence, "compare")
    R.check_interval_method(interval, "compare")
    if isinstance(n_resamples, bool) or not isinstance(n_resamples, (int, np.integer)) or n_resamples < 1:
        raise ParameterError(f"The 'n_resamples' parameter of compare must be an int >= 1. Got {n_resamples!r} instead.")
    if pairs not in ("baseline", "all"):
        raise ParameterError(f"The 'pairs' parameter of compare must be 'baseline' or 'all'. Got {pairs!r} instead.")
    if family not in ("metric", "all"):
        raise ParameterError(f"The 'family' parameter of compare must be 'metric' or 'all'. Got {family!r} instead.")
    gen_flip, gen_boot = R.streams(seed, 2)
    items = _run_names(runs)
    names = [n for n, _ in items]
    if baseline is None:
        baseline = names[0]
    elif baseline not in names:
        raise ParameterError(f"The 'baseline' parameter of compare must be one of the run names "
                             f"({', '.join(names)}). Got {baseline!r} instead.")
    notes: list[str] = []
    missing: dict[str, int] = {n: 0 for n in names}

    ranked = [(n, r) for n, r in items if not isinstance(r, Result)]
    given = [(n, r) for n, r in items if isinstance(r, Result)]

    # ---------------------------------------------------------------- metrics
    metric_objs: list[Any] = []
    if metrics is None:
        if ranked:
            raise ParameterError("The 'metrics' parameter of compare is required when runs are rankings "
                                 "(e.g. ['ndcg@10', 'P@10']).")
        shared = [m for m in given[0][1].values if all(_find_metric(r, m) for _, r in given[1:])]
        if not shared:
            raise InputError("the results share no metric with per-query values", source="runs")
        metric_texts = shared
    else:
        from .metrics.registry import parse_metrics

        raw = [metrics] if isinstance(metrics, str) else list(metrics)
        if ranked:
            metric_objs = parse_metrics(raw)
            for m in metric_objs:
                if m.spec.level == "corpus":
                    raise ParameterError(f"metric {m.text!r} is corpus-level (one value per run): it has no "
                                         "per-query values to test; use rankmeter.evaluate for it")
            metric_texts = [m.text for m in metric_objs]
        else:
            metric_texts = [getattr(m, "text", m) for m in raw]
            if not metric_texts:
                raise MetricNameError("no metric given")
    for n, r in given:
        for m in metric_texts:
            if _find_metric(r, m) is None:
                if m in getattr(r, "corpus", {}):
                    raise ParameterError(f"metric {m!r} of run {n!r} is corpus-level (one value per run): it has "
                                         "no per-query values to test")
                raise InputError(f"run {n!r} has no per-query values of metric {m!r} "
                                 f"(it has: {', '.join(r.values) or 'none'})", source=n)

    # ---------------------------------------------------------------- query set
    per_run: dict[str, tuple[list[str], dict[str, np.ndarray]]] = {}
    master: list[str] | None = None
    if ranked:
        from .data import Qrels
        from .evaluate import evaluate
        from .io import as_qrels, as_run

        if qrels is None:
            raise ParameterError("The 'qrels' parameter of compare is required when runs are rankings. Got None instead.")
        q = qrels if isinstance(qrels, Qrels) else as_qrels(qrels)
        loaded = {}
        for i, (n, r) in enumerate(ranked):
            loaded[n] = as_run(r, source=n) if not isinstance(r, (str, Path)) else as_run(r)
            if progress is not None:
                progress("reading runs", i + 1, len(ranked))
        if isinstance(queries, str):
            if queries not in ("judged", "qrels", "common"):
                raise ParameterError("The 'queries' parameter of compare must be 'judged', 'qrels', 'common' or a "
                                     f"list of query ids. Got {queries!r} instead.")
            master = _judged_queries(q, "qrels" if queries == "qrels" else "judged")
            if queries == "common":
                before = len(master)
                for n, run in loaded.items():
                    have = set(run.query_ids.to_pylist())
                    master = [x for x in master if x in have]
                if before - len(master):
                    notes.append(f"queries='common': {before - len(master)} judged queries missing from at least "
                                 "one run are left out")
            policy = queries
        else:
            master = [str(x) for x in queries]
            if len(set(master)) != len(master):
                raise ParameterError("The 'queries' parameter of compare must not repeat a query id.")
            policy = "given"
        if policy in ("judged", "common"):
            no_rel = q.n_queries - len(_judged_queries(q, "judged"))
            if no_rel:
                notes.append(f"{no_rel} judged queries have no relevant item and are left out "
                             "(queries='qrels' keeps them)")
        if not master:
            raise InputError("no query to compare on: the judgments have no query with a relevant item"
                             if policy == "judged" else "no query to compare on", source="qrels")
        for i, (n, _) in enumerate(ranked):
            res = evaluate(q, loaded[n], metric_objs, queries=master)
            cov = res.coverage
            if cov is not None:  # per-run lines; "no relevant item" is about the qrels: said once below
                missing[n] = cov.missing_from_run
                ex = list(cov.examples.get("missing_from_run", ()))
                if cov.missing_from_run:
                    notes.append(f"run {n!r}: {cov.missing_from_run} of the {len(master)} queries have no ranking "
                                 f"in the run and score as an empty ranking (e.g. {_examples(ex)})")
                if cov.without_judgments:
                    ex = list(cov.examples.get("without_judgments", ()))
                    notes.append(f"run {n!r}: {cov.without_judgments} run queries have no judgments and are left "
                                 f"out (e.g. {_examples(ex)})")
            per_run[n] = (list(res.queries), dict(res.values))
            if progress is not None:
                progress("evaluating runs", i + 1, len(ranked))
        sources = {"qrels": q, "runs": loaded, "metrics": metric_objs}
    else:
        sources = {}
        if not isinstance(queries, str):
            master = [str(x) for x in queries]

    for n, r in given:
        qs = [str(x) for x in r.queries]
        if len(set(qs)) != len(qs):
            raise InputError(f"result {n!r} lists a query more than once", source=n)
        per_run[n] = (qs, {m: np.asarray(r.values[_find_metric(r, m)], dtype=np.float64) for m in metric_texts})

    # common query list: the master list (rankings) intersected with every result's queries
    final = list(master) if master is not None else list(per_run[given[0][0]][0])
    for n, _ in given:
        have = set(per_run[n][0])
        kept = [x for x in final if x in have]
        if len(kept) < len(final):
            ex = [x for x in final if x not in have]
            notes.append(f"result {n!r} has no values for {len(final) - len(kept)} of the queries, which are left "
                         f"out of every run (e.g. {_examples(ex)})")
        final = kept
    for n, _ in given:
        extra = len(per_run[n][0]) - len(set(per_run[n][0]) & set(final))
        if extra:
            notes.append(f"result {n!r}: {extra} of its queries are not in the common query set and are left out")
    if not final:
        raise InputError("the runs have no query in common to compare on", source="runs")
    nq = len(final)

    import pandas as pd

    index = pd.Index(final)
    scores: dict[str, dict[str, np.ndarray]] = {}
    for n in names:
        qs, vals = per_run[n]
        pos = pd.Index(qs).get_indexer(index)
        scores[n] = {}
        for m in metric_texts:
            col = np.asarray(vals[m], dtype=np.float64)[pos]
            bad = np.flatnonzero(~np.isfinite(col))
            if len(bad):
                raise InputError(f"run {n!r}, metric {m!r}: {len(bad)} per-query values are NaN or infinite "
                                 f"(e.g. query {final[bad[0]]!r})", source=n)
            scores[n][m] = col

    results_for_hib = [r for _, r in given]
    hib = {m: (next((o.spec.higher_is_better for o in metric_objs if o.text == m), None)
               if metric_objs else None) for m in metric_texts}
    hib = {m: (v if v is not None else _higher_is_better(m, results_for_hib)) for m, v in hib.items()}

    # ---------------------------------------------------------------- matrices
    Rn, M = len(names), len(metric_texts)
    X = np.empty((nq, M * Rn))
    for mi, m in enumerate(metric_texts):
        for ri, n in enumerate(names):
            X[:, mi * Rn + ri] = scores[n][m]
    groups = np.repeat(np.arange(M), Rn)
    b_idx = names.index(baseline)
    run_pairs = [(b_idx, r) for r in range(Rn) if r != b_idx]
    if pairs == "all":
        run_pairs += [(i, j) for i, j in itertools.combinations(range(Rn), 2) if b_idx not in (i, j)]
    col_pairs = np.array([(mi * Rn + a, mi * Rn + b) for mi in range(M) for a, b in run_pairs], dtype=np.int64)
    pair_metric = np.repeat(np.arange(M), len(run_pairs))
    D = np.ascontiguousarray((X[:, col_pairs[:, 1]] - X[:, col_pairs[:, 0]]).T)  # (P, n)
    # means exactly as Result.mean computes them, so the tables agree with rankmeter.evaluate
    means_arr = np.array([np.mean(scores[names[c % Rn]][metric_texts[c // Rn]]) for c in range(M * Rn)])

    def report(task: str) -> Callable[[int, int], None] | None:
        if progress is None:
            return None
        return lambda done, total: progress(task, done, total)

    boot = R.bootstrap_sums(X, groups, n_resamples=int(n_resamples), rng=gen_boot, progress=report("bootstrap"))
    lo, hi, code = R.intervals(boot, confidence=confidence, method=interval, means=means_arr)
    dboot = R.diff_sums(boot, col_pairs)
    diff_mean = means_arr[col_pairs[:, 1]] - means_arr[col_pairs[:, 0]]  # = mean(b) - mean(a) as tabled
    dlo, dhi, dcode = R.intervals(dboot, confidence=confidence, method=interval, means=diff_mean)
    _, dz = S.effect_size(D)

    results: dict[str, tuple[np.ndarray, np.ndarray, np.ndarray]] = {}
    flip_method = ""
    for t in tests:
        if t == "t":
            r = S.paired_t(D)
            results[t] = (np.asarray(r.statistic), np.asarray(r.p_value), np.asarray(r.method))
        elif t == "wilcoxon":
            r = S.wilcoxon(D)
            results[t] = (np.asarray(r.statistic), np.asarray(r.p_value), np.asarray(r.method))
        elif t == "randomization":
            fr = R.sign_flip_test(X, col_pairs, groups, n_resamples=int(n_resamples), rng=gen_flip,
                                  exact_max_n=exact_max_n, progress=report("randomisation test"))
            flip_method = fr.method
            results[t] = (diff_mean.copy(), fr.p_value, np.full(len(col_pairs), fr.method, dtype=object))
        else:
            p = R.bootstrap_p(boot, col_pairs)
            results[t] = (diff_mean.copy(), p, np.full(len(col_pairs), f"paired bootstrap ({n_resamples} resamples)",
                                                       dtype=object))
        if nq < 2 and t in ("bootstrap",):
            stat, p, meth = results[t]
            results[t] = (stat, np.ones_like(p), np.full(len(p), "undefined: fewer than 2 queries (p set to 1)",
                                                          dtype=object))

    # ---------------------------------------------------------------- corrections
    tests_out: list[PairTest] = []
    for t in tests:
        stat, p, meth = results[t]
        padj = np.empty_like(p)
        fams = [np.arange(len(p))] if family == "all" else [np.flatnonzero(pair_metric == mi) for mi in range(M)]
        for idx in fams:
            padj[idx] = S.adjust(p[idx], corr)
        for k, (ca, cb) in enumerate(col_pairs):
            mi = int(pair_metric[k])
            a, b = names[ca % Rn], names[cb % Rn]
            sig = bool(padj[k] < alpha)
            better = None
            if sig and diff_mean[k] != 0:
                better = b if (diff_mean[k] > 0) == hib[metric_texts[mi]] else a
            tests_out.append(PairTest(
                metric=metric_texts[mi], a=a, b=b, test=t, statistic=float(stat[k]), p_value=float(p[k]),
                p_adjusted=float(padj[k]), correction=corr, diff=float(diff_mean[k]),
                diff_interval=(float(dlo[k]), float(dhi[k])), effect_size=float(dz[k]), n=nq,
                method=str(meth[k]), significant=sig, better=better))

    # ---------------------------------------------------------------- notes on degenerate cases
    if nq == 1:
        notes.append("only 1 query: no test can reject (p-values are 1 or undefined) and intervals have zero width")
    same = [(metric_texts[int(pair_metric[k])], names[a % Rn], names[b % Rn])
            for k, (a, b) in enumerate(col_pairs) if np.all(D[k] == 0)]
    if same:
        notes.append(f"{len(same)} comparisons have identical scores on every query (difference 0, p = 1): "
                     + _examples([f"{a} vs {b} on {m}" for m, a, b in same]))
    const = [(metric_texts[int(pair_metric[k])], names[a % Rn], names[b % Rn])
             for k, (a, b) in enumerate(col_pairs) if nq > 1 and not np.all(D[k] == 0) and np.all(D[k] == D[k][0])]
    if const:
        notes.append(f"{len(const)} comparisons have the same non-zero difference on every query (zero variance: "
                     "t statistic and effect size infinite, interval of zero width): "
                     + _examples([f"{a} vs {b} on {m}" for m, a, b in const]))
    flat = [f"{names[c % Rn]} on {metric_texts[c // Rn]}" for c in np.flatnonzero(code == 1)] if nq > 1 else []
    if flat:
        notes.append(f"{len(flat)} runs score the same on every query (interval of zero width): {_examples(flat)}")
    fell = [f"{names[c % Rn]} on {metric_texts[c // Rn]}" for c in np.flatnonzero(code == 2)]
    fell += [f"{names[a % Rn]} vs {names[b % Rn]} on {metric_texts[int(pair_metric[k])]}"
             for k, (a, b) in enumerate(col_pairs) if dcode[k] == 2]
    if fell and interval == "bca":
        notes.append(f"{len(fell)} BCa intervals fell back to the percentile interval (all resamples on one side "
                     f"of the estimate): {_examples(fell)}")
    if "bootstrap" in tests and 1 < nq < 20:
        notes.append(f"only {nq} queries: the paired bootstrap test gives too small p-values with few queries; "
                     "prefer the randomisation test")
    if "wilcoxon" in tests:
        kinds = sorted(set(results["wilcoxon"][2].tolist()))
        if len(kinds) > 1:
            notes.append("Wilcoxon p-values computed by: " + "; ".join(kinds))

    units = {getattr(r, "index_name", "query") for _, r in given}
    unit = units.pop() if (not ranked and len(units) == 1) else "query"
    settings = Settings(
        tests=tests, correction=corr, family=family, alpha=float(alpha), confidence=float(confidence),
        interval=interval, n_resamples=int(n_resamples),
        seed=seed if isinstance(seed, (int, np.integer, type(None))) else repr(seed),
        pairs=pairs, baseline=baseline,
        queries=("results" if not ranked else queries) if isinstance(queries, str) else "given",
        exact_max_n=int(exact_max_n), randomization=flip_method)
    means = {n: {m: float(means_arr[mi * Rn + ri]) for mi, m in enumerate(metric_texts)} for ri, n in enumerate(names)}
    ivs = {n: {m: (float(lo[mi * Rn + ri]), float(hi[mi * Rn + ri])) for mi, m in enumerate(metric_texts)}
           for ri, n in enumerate(names)}
    return Comparison(
        runs=tuple(names), metrics=tuple(metric_texts), queries=tuple(final), scores=scores, means=means,
        intervals=ivs, tests=tests_out, settings=settings, notes=notes, missing=missing, higher_is_better=hib,
        unit=unit, _sources=sources)
