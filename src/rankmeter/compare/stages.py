"""The stages of :func:`rankmeter.compare` (:mod:`rankmeter.compare.api`), one function each.

``compare`` = :func:`check_settings` -> :func:`name_runs` -> :func:`resolve_metrics`
-> :func:`evaluate_runs` (rankings) and :func:`collect_results` (precomputed
results) -> :func:`align` (one query list for every run) -> :func:`score_matrix`
-> :func:`resample` (bootstrap intervals) -> :func:`pair_tests` ->
:func:`correct` (multiple testing) -> :func:`degenerate_notes` -> a
:class:`~rankmeter.compare.comparison.Comparison`.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable, Mapping, Sequence, cast

import numpy as np

from .._errors import InputError, MetricNameError, ParameterError
from ..io.source import is_stream
from ..result import Result
from ..stats import resampling as R
from ..stats.tests import TESTS
from .comparison import PairTest, ProgressFn
from .streamed import StreamedRun

__all__ = [
    "check_settings", "name_runs", "resolve_metrics", "evaluate_runs", "collect_results", "align",
    "score_matrix", "resample", "pair_tests", "nan_pairing", "correct", "degenerate_notes", "metric_aliases",
    "spread_aliases", "alias_labels", "count_metrics",
]

_TEST_ALIASES = {
    "t": "t", "ttest": "t", "t-test": "t", "student": "t", "paired_t": "t",
    "wilcoxon": "wilcoxon", "signed-rank": "wilcoxon",
    "randomization": "randomization", "randomisation": "randomization", "permutation": "randomization",
    "fisher": "randomization",
    "bootstrap": "bootstrap",
    "tukey-hsd": "tukey-hsd", "tukey": "tukey-hsd", "hsd": "tukey-hsd", "tukey_hsd": "tukey-hsd",
}


# =========================================================================== settings and inputs


@dataclass
class Plan:
    """Checked settings of one comparison (what :func:`check_settings` returns)."""

    tests: tuple[str, ...]
    correction: str
    alpha: float
    confidence: float
    interval: str
    n_resamples: int
    seed: Any
    pairs: str
    family: str
    queries: Any
    exact_max_n: int


def check_settings(test: Any, correction: str, alpha: float, confidence: float, interval: str, n_resamples: Any,
                   seed: Any, pairs: str, family: str, queries: Any, exact_max_n: int) -> Plan:
    """Validate every keyword of :func:`compare` up front; aliases become canonical names."""
    from ..stats.correction import canonical_correction

    tests = _normalise_tests(test)
    corr = canonical_correction(correction)
    if isinstance(alpha, bool) or not isinstance(alpha, (int, float)) or not 0 < alpha < 1:
        raise ParameterError(f"The 'alpha' parameter of compare must be a number in (0, 1). Got {alpha!r} instead.")
    R.check_confidence(confidence, "compare")
    R.check_interval_method(interval, "compare")
    if isinstance(n_resamples, bool) or not isinstance(n_resamples, (int, np.integer)) or n_resamples < 1:
        raise ParameterError(f"The 'n_resamples' parameter of compare must be an int >= 1. Got {n_resamples!r} "
                             "instead.")
    if pairs not in ("baseline", "all"):
        raise ParameterError(f"The 'pairs' parameter of compare must be 'baseline' or 'all'. Got {pairs!r} instead.")
    if family not in ("metric", "all"):
        raise ParameterError(f"The 'family' parameter of compare must be 'metric' or 'all'. Got {family!r} instead.")
    return Plan(tests, corr, float(alpha), float(confidence), interval, int(n_resamples), seed, pairs, family,
                queries, int(exact_max_n))


def _normalise_tests(test: str | Sequence[str]) -> tuple[str, ...]:
    items = [test] if isinstance(test, str) else list(test)
    if not items:
        raise ParameterError("The 'test' parameter of compare must name at least one test. Got an empty list instead.")
    out: list[str] = []
    for t in items:
        key = _TEST_ALIASES.get(str(t).lower())
        if key is None:
            raise ParameterError(f"The 'test' parameter of compare must be one of {', '.join(TESTS)}. Got {t!r} "
                                 "instead.")
        if key not in out:
            out.append(key)
    return tuple(out)


def name_runs(runs: Any) -> list[tuple[str, Any]]:
    """``[(name, run), ...]`` from a mapping or a list (file stems for paths, else ``run1, run2, ...``)."""
    from ..data import Run

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


def _find_metric(result: Result, text: str) -> str | None:
    if text in result.values:
        return text
    try:
        from ..metrics.registry import parse_metric

        want = parse_metric(text).canonical
        for key in result.values:
            try:
                if parse_metric(key).canonical == want:
                    return key
            except Exception:  # noqa: BLE001  (a value's name that does not parse matches by its text only)
                continue
    except Exception:  # noqa: BLE001  (a name that does not parse matches by its text only, tried above)
        return None
    return None


def directions(metric_texts: Sequence[str], metric_objs: Sequence[Any] | None,
               given: Sequence[tuple[str, Result]]) -> dict[str, bool]:
    """Whether higher is better, per metric: from the metrics asked for, else from a given result's own metric
    objects (the first found), else from the registry (a name that is no metric: higher is better). Each source
    is read once, not once per metric (thousands of ``-m`` options)."""
    known: dict[str, bool] = {}
    for o in metric_objs or ():
        known.setdefault(o.text, bool(o.spec.higher_is_better))
    for _, r in given:
        for o in getattr(r, "metrics", ()) or ():
            if getattr(o, "text", None) is not None and hasattr(o, "spec"):
                known.setdefault(o.text, bool(o.spec.higher_is_better))
    return {m: known[m] if m in known else _registry_direction(m) for m in metric_texts}


def _registry_direction(text: str) -> bool:
    try:
        from ..metrics.registry import parse_metric

        return bool(parse_metric(text).spec.higher_is_better)
    except Exception:  # noqa: BLE001  (a precomputed value's name that is no metric: higher is better)
        return True


def examples(items: Sequence[str], k: int = 3) -> str:
    """The first ``k`` items, comma-separated, with ``...`` when there are more."""
    shown = ", ".join(map(str, items[:k]))
    return shown + (", ..." if len(items) > k else "")


def _plural(n: int, one: str, many: str | None = None) -> str:
    return f"{n} {one if n == 1 else (many or one + 's')}"


def resolve_metrics(metrics: Any, ranked: list[tuple[str, Any]],
                    given: list[tuple[str, Result]]) -> tuple[list[str], list[Any]]:
    """``(metric texts, parsed metrics)``: what every run is compared on, checked against every input."""
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
        from ..metrics.registry import parse_metrics

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
        for text in metric_texts:
            if _find_metric(r, text) is None:
                if text in getattr(r, "corpus", {}):
                    raise ParameterError(f"metric {text!r} of run {n!r} is corpus-level (one value per run): it "
                                         "has no per-query values to test")
                raise InputError(f"run {n!r} has no per-query values of metric {text!r} "
                                 f"(it has: {', '.join(r.values) or 'none'})", source=n)
    return metric_texts, metric_objs


def metric_aliases(metric_texts: Sequence[str], metric_objs: Sequence[Any]) -> dict[str, str]:
    """``{spelling: first spelling}`` for each metric written again under another spelling (``success@10``
    after ``hit_rate@10``, ``p@10`` after ``P@10``): the same canonical metric
    (:attr:`rankmeter.metrics.registry.Metric.canonical`, as the evaluation core computes it once).

    A comparison computes and tests such a metric once, under its first spelling, and shows it under
    each spelling with the same statistics: an alias is the same test, not one more in the
    multiple-testing family.

    >>> metric_aliases(["hit_rate@10", "ndcg@10", "success@10"], [])
    {'success@10': 'hit_rate@10'}
    """
    if metric_objs:
        keys = [m.canonical for m in metric_objs]
    else:  # precomputed results: a text that is no metric of the registry is its own key
        from ..metrics.registry import parse_metric

        keys = []
        for text in metric_texts:
            try:
                keys.append(parse_metric(text).canonical)
            except Exception:  # noqa: BLE001  (a value's name that does not parse is matched by its text only)
                keys.append("\0" + text)
    first: dict[str, str] = {}
    out: dict[str, str] = {}
    for text, key in zip(metric_texts, keys, strict=True):
        if key in first and first[key] != text:
            out[text] = first[key]
        else:
            first.setdefault(key, text)
    return out


def count_metrics(metric_texts: Sequence[str], metric_objs: Sequence[Any]) -> tuple[str, ...]:
    """The metrics that are counts (the registry's ``count=True``: ``num_ret``, ``num_rel_ret``...), which every
    table shows by their sum over the queries.

    >>> count_metrics(["num_ret", "map", "num_rel_ret"], [])
    ('num_ret', 'num_rel_ret')
    """
    if metric_objs:
        return tuple(m.text for m in metric_objs if getattr(m.spec, "count", False))
    from ..metrics.registry import parse_metric

    out = []
    for text in metric_texts:
        try:
            if parse_metric(text).spec.count:
                out.append(text)
        except Exception:  # noqa: BLE001  (a value's name that is no metric of the registry is no count)
            continue
    return tuple(out)


def spread_aliases(aliases: Mapping[str, str], shown: Sequence[str], scores: dict[str, dict[str, np.ndarray]],
                   hib: dict[str, bool], tests: list[PairTest], no_value: dict[str, dict[str, int]]
                   ) -> tuple[dict[str, dict[str, np.ndarray]], dict[str, bool], list[PairTest],
                              dict[str, dict[str, int]]]:
    """What was computed under each metric's first spelling, under every spelling in ``shown``
    (``aliases``: spelling -> first spelling): scores, directions, tests (in the order test, metric,
    pair) and the counts of missing values."""
    import dataclasses

    def first(m: str) -> str:
        return aliases.get(m, m)

    scores = {n: {m: s[first(m)] for m in shown} for n, s in scores.items()}
    hib = {m: hib[first(m)] for m in shown}
    by_key: dict[tuple[str, str], list[PairTest]] = {}
    for t in tests:
        by_key.setdefault((t.test, t.metric), []).append(t)
    order = list(dict.fromkeys(t.test for t in tests))
    spread = [t if m == t.metric else dataclasses.replace(t, metric=m)
              for name in order for m in shown for t in by_key.get((name, first(m)), [])]
    no_value = {m: dict(no_value[first(m)]) for m in shown if first(m) in no_value}
    return scores, hib, spread, no_value


def alias_labels(aliases: Mapping[str, str], labels: Mapping[str, str]) -> dict[str, str]:
    """The shown name of an alias of a relabelled metric: ``mae (mean over users)`` gives ``MAE (mean over
    users)`` for the spelling ``MAE``."""
    out: dict[str, str] = {}
    for a, m in aliases.items():
        if m in labels:
            label = labels[m]
            out[a] = a + label[len(m):] if label.startswith(m) else f"{a} ({label})"
    return out


# =========================================================================== per-query scores


def _judged_queries(q: Any, policy: str) -> list[str]:
    rowq = q.row_queries()
    codes = np.unique(rowq[q.grades > 0]) if policy == "judged" else np.arange(q.n_queries)
    import pyarrow as pa

    return list(q.query_ids.take(pa.array(codes)).to_pylist())


@dataclass
class Evaluated:
    """Per-query values of every input: ``per_run[name] = (query ids, {metric: values})``."""

    per_run: dict[str, tuple[list[str], dict[str, np.ndarray]]] = field(default_factory=dict)
    master: list[str] | None = None
    notes: list[str] = field(default_factory=list)
    missing: dict[str, int] = field(default_factory=dict)
    sources: dict[str, Any] = field(default_factory=dict)
    # unjudged="bounds": run -> metric -> (smallest, largest) mean over every completion of the judgments
    bounds: dict[str, dict[str, tuple[float, float]]] = field(default_factory=dict)


def evaluate_runs(qrels: Any, ranked: list[tuple[str, Any]], metric_objs: list[Any], queries: Any,
                  progress: ProgressFn | None, out: Evaluated, depth: int | None = None,
                  judged_only: bool = False, ties: str = "id", unjudged: str = "ignore",
                  unjudged_grade: float | None = None) -> None:
    """Evaluate every run given as a ranking on one master query list (into ``out``)."""
    from ..data import Qrels
    from ..evaluate import evaluate
    from ..io import as_qrels, as_run

    notes = out.notes
    if depth is not None:
        notes.append(f"depth {depth}: every ranking was cut to its first {depth} items before every metric "
                     "(trec_eval -M)")
    if judged_only:
        notes.append("judged only: unjudged items (and items with a negative grade) were removed from every ranking "
                     "before every metric (trec_eval -J); not comparable with evaluations of the full rankings")
    if ties != "id":
        notes.append(f"ties={ties}: tied scores were not ordered by item id but "
                     + ("averaged over their orders (McSherry and Najork 2008)" if ties == "average"
                        else f"{'best' if ties == 'optimistic' else 'worst'} grade first"))
    if qrels is None:
        raise ParameterError("The 'qrels' parameter of compare is required when runs are rankings. Got None instead.")
    q = qrels if isinstance(qrels, Qrels) else as_qrels(qrels)
    notes.extend(f"judgments: {line}" for line in q.notes)  # what the reader inferred or skipped
    loaded = {}
    streamed: dict[str, StreamedRun] = {}  # runs on a stream: read and evaluated as they arrive, never held
    for i, (n, r) in enumerate(ranked):
        if isinstance(r, StreamedRun) or (isinstance(r, (str, Path)) and is_stream(r)):
            streamed[n] = r if isinstance(r, StreamedRun) else StreamedRun(str(r))
            continue
        loaded[n] = as_run(r, source=n) if not isinstance(r, (str, Path)) else as_run(r)
        notes.extend(f"run {n!r}: {line}" for line in loaded[n].notes)
        if progress is not None:
            progress("reading runs", i + 1, len(ranked))
    if streamed and unjudged != "ignore":
        raise ParameterError(f"unjudged='bounds' evaluates each run in memory; run {next(iter(streamed))!r} is a "
                             "stream ('-', a pipe or a FIFO): write it to a file first")
    done: dict[str, Any] = {}  # streamed runs evaluated before the master list (queries='common')
    if isinstance(queries, str):
        if queries not in ("judged", "qrels", "common"):
            raise ParameterError("The 'queries' parameter of compare must be 'judged', 'qrels', 'common' or a "
                                 f"list of query ids. Got {queries!r} instead.")
        master = _judged_queries(q, "qrels" if queries == "qrels" else "judged")
        if queries == "common":
            before = len(master)
            for run in loaded.values():
                have = set(run.query_ids.to_pylist())
                master = [x for x in master if x in have]
            for n, stream in streamed.items():  # its judged queries, known once it is read: its values kept
                done[n] = stream.evaluate(q, metric_objs, "run", depth=depth, judged_only=judged_only, ties=ties)
                have = {str(x) for x in done[n].queries}
                master = [x for x in master if x in have]
            if before - len(master):
                notes.append(f"queries='common': {_plural(before - len(master), 'judged query', 'judged queries')} "
                             "missing from at least one run left out")
        policy = queries
    else:
        master = [str(x) for x in queries]
        if len(set(master)) != len(master):
            raise ParameterError("The 'queries' parameter of compare must not repeat a query id.")
        policy = "given"
    if policy in ("judged", "common"):
        no_rel = q.n_queries - len(_judged_queries(q, "judged"))
        if no_rel:
            notes.append(f"{_plural(no_rel, 'judged query', 'judged queries')} without a relevant item "
                         "left out (queries='qrels' keeps them)")
    if not master:
        raise InputError("no query to compare on: the judgments have no query with a relevant item"
                         if policy == "judged" else "no query to compare on", source="qrels")
    for i, (n, _) in enumerate(ranked):
        if n in streamed:
            res = done[n] if n in done else streamed[n].evaluate(q, metric_objs, master, depth=depth,
                                                                  judged_only=judged_only, ties=ties)
            notes.extend(f"run {n!r}: {line}" for line in streamed[n].reader_notes(res))
        else:
            res = evaluate(q, loaded[n], metric_objs, queries=master, depth=depth, judged_only=judged_only,
                           ties=ties, unjudged=unjudged, unjudged_grade=unjudged_grade)
        if res.unjudged_values:
            out.bounds[n] = {m: (float(np.mean(lo)), float(np.mean(hi))) for m, (lo, hi) in res.unjudged_values.items()}
        cov = res.coverage
        if cov is not None:  # per-run lines; "no relevant item" is about the qrels: said once above
            out.missing[n] = cov.missing_from_run
            ex = list(cov.examples.get("missing_from_run", ()))
            if cov.missing_from_run:
                notes.append(f"run {n!r}: {cov.missing_from_run} of the {_plural(len(master), 'query', 'queries')} "
                             f"{'has' if cov.missing_from_run == 1 else 'have'} no ranking in the run and "
                             f"score{'s' if cov.missing_from_run == 1 else ''} as an empty ranking "
                             f"(e.g. {examples(ex)})")
            if cov.without_judgments:
                ex = list(cov.examples.get("without_judgments", ()))
                notes.append(f"run {n!r}: {_plural(cov.without_judgments, 'run query', 'run queries')} without "
                             f"judgments left out (e.g. {examples(ex)})")
            if cov.judged is not None:
                at = f"top {cov.judged_k}" if cov.judged_k is not None else "whole rankings"
                notes.append(f"run {n!r}: judgment coverage {100 * cov.judged:.1f}% of the {at}")
        out.per_run[n] = (list(res.queries), dict(res.values))
        if progress is not None:
            progress("evaluating runs", i + 1, len(ranked))
    out.master = master
    out.sources = {"qrels": q, "runs": loaded, "metrics": metric_objs}


def _label(result: Result, key: str, unit: str) -> str | None:
    """A label for a precomputed result's metric whose own aggregate is not the mean of its per-row values.

    ``mae`` of :func:`rankmeter.evaluate_ratings` is over all pairs; compared per user it
    becomes the mean of the per-user values, shown as ``mae (mean over users)``.
    """
    if key not in getattr(result, "corpus", {}):
        return None
    for m in getattr(result, "metrics", ()) or ():
        if getattr(m, "text", None) == key and unit == "user" and getattr(m, "params", {}).get("per") == "user":
            return None
    units = "queries" if unit == "query" else unit + "s"
    return f"{key} (mean over {units})"


def collect_results(given: list[tuple[str, Result]], metric_texts: list[str], out: Evaluated) -> dict[str, str]:
    """Per-query values of precomputed results (into ``out``); returns labels of relabelled metrics."""
    labels: dict[str, str] = {}
    for n, r in given:
        qs = [str(x) for x in r.queries]
        if len(set(qs)) != len(qs):
            raise InputError(f"result {n!r} lists a query more than once", source=n)
        vals = {}
        for m in metric_texts:
            key = cast(str, _find_metric(r, m))  # found: checked when the inputs were read
            vals[m] = np.asarray(r.values[key], dtype=np.float64)
            label = _label(r, key, getattr(r, "index_name", "query"))
            if label is not None:
                labels[m] = label
        out.per_run[n] = (qs, vals)
    return labels


def align(given: list[tuple[str, Result]], ev: Evaluated) -> list[str]:
    """The common query list: the master list (rankings) intersected with every result's queries."""
    per_run, notes = ev.per_run, ev.notes
    final = list(ev.master) if ev.master is not None else list(per_run[given[0][0]][0])
    for n, _ in given:
        have = set(per_run[n][0])
        kept = [x for x in final if x in have]
        if len(kept) < len(final):
            ex = [x for x in final if x not in have]
            notes.append(f"result {n!r} has no values for {len(final) - len(kept)} of the queries, which are left "
                         f"out of every run (e.g. {examples(ex)})")
        final = kept
    for n, _ in given:
        extra = len(per_run[n][0]) - len(set(per_run[n][0]) & set(final))
        if extra:
            be = "is" if extra == 1 else "are"
            notes.append(f"result {n!r}: {extra} of its queries {be} not in the common query set and {be} left out")
    if not final:
        raise InputError("the runs have no query in common to compare on", source="runs")
    return final


def score_matrix(names: list[str], metric_texts: list[str], final: list[str],
                 ev: Evaluated) -> dict[str, dict[str, np.ndarray]]:
    """``scores[run][metric]``: per-query values in the order of ``final``.

    NaN is "no value" (a user a metric leaves out, e.g. without a training profile) and is
    kept: :func:`nan_pairing` leaves such queries out of that metric's tests. Infinite
    values are refused.
    """
    import pandas as pd

    index = pd.Index(final)
    scores: dict[str, dict[str, np.ndarray]] = {}
    for n in names:
        qs, vals = ev.per_run[n]
        pos = pd.Index(qs).get_indexer(index)
        scores[n] = {}
        for m in metric_texts:
            col = np.asarray(vals[m], dtype=np.float64)[pos]
            bad = np.flatnonzero(np.isinf(col))
            if len(bad):
                raise InputError(f"run {n!r}, metric {m!r}: {len(bad)} per-query values are infinite "
                                 f"(e.g. query {final[bad[0]]!r})", source=n)
            scores[n][m] = col
    return scores


# =========================================================================== statistics


@dataclass
class Layout:
    """The score matrix ``X`` (queries x (metric, run) columns) and the compared column pairs.

    With values missing (NaN), ``X`` and ``D`` hold 0 in their place (the vectorised engines
    run on every column at once), ``raw`` keeps the NaN, ``ok[k]`` marks the queries pair
    ``k`` is tested on (a value in both runs) and :func:`nan_pairing` recomputes the
    affected columns and pairs; ``n_pair[k]`` is the number of queries of pair ``k``.
    """

    X: np.ndarray
    groups: np.ndarray
    col_pairs: np.ndarray
    pair_metric: np.ndarray
    D: np.ndarray
    means: np.ndarray
    diff_mean: np.ndarray
    n_runs: int
    raw: np.ndarray | None = None
    ok: np.ndarray | None = None
    n_pair: np.ndarray | None = None
    dz: dict[int, float] = field(default_factory=dict)


def _run_pairs(n_runs: int, b_idx: int, pairs: str) -> list[tuple[int, int]]:
    run_pairs = [(b_idx, r) for r in range(n_runs) if r != b_idx]
    if pairs == "all":
        run_pairs += [(i, j) for i, j in itertools.combinations(range(n_runs), 2) if b_idx not in (i, j)]
    return run_pairs


def layout(scores: dict[str, dict[str, np.ndarray]], names: list[str], metric_texts: list[str], baseline: str,
           pairs: str) -> Layout:
    """Arrange the scores for the resampling engines."""
    Rn, M = len(names), len(metric_texts)
    nq = len(next(iter(scores[names[0]].values())))
    X = np.empty((nq, M * Rn))
    for mi, m in enumerate(metric_texts):
        for ri, n in enumerate(names):
            X[:, mi * Rn + ri] = scores[n][m]
    groups = np.repeat(np.arange(M), Rn)
    run_pairs = _run_pairs(Rn, names.index(baseline), pairs)
    col_pairs = np.array([(mi * Rn + a, mi * Rn + b) for mi in range(M) for a, b in run_pairs], dtype=np.int64)
    pair_metric = np.repeat(np.arange(M), len(run_pairs))
    missing = np.isnan(X)
    raw = ok = None
    if missing.any():
        raw, X = X, np.where(missing, 0.0, X)
        ok = np.ascontiguousarray((~missing[:, col_pairs[:, 0]] & ~missing[:, col_pairs[:, 1]]).T)  # (P, n)
    D = np.ascontiguousarray((X[:, col_pairs[:, 1]] - X[:, col_pairs[:, 0]]).T)  # (P, n)
    # means exactly as Result.mean computes them (nan left out), so the tables agree with rankmeter.evaluate
    means = np.array([_mean(scores[names[c % Rn]][metric_texts[c // Rn]]) for c in range(M * Rn)])
    diff_mean = means[col_pairs[:, 1]] - means[col_pairs[:, 0]]  # = mean(b) - mean(a) as tabled
    n_pair = ok.sum(axis=1) if ok is not None else np.full(len(col_pairs), nq, dtype=np.int64)
    return Layout(X, groups, col_pairs, pair_metric, D, means, diff_mean, Rn, raw, ok, n_pair)


def _mean(v: np.ndarray) -> float:
    """The mean of the values; nan (no value) left out, as :attr:`rankmeter.result.Result.mean`."""
    has = ~np.isnan(v)
    if has.all():
        return float(np.mean(v)) if len(v) else float("nan")
    return float(np.mean(v[has])) if has.any() else float("nan")


def _task(progress: ProgressFn | None, task: str) -> Callable[[int, int], None] | None:
    if progress is None:
        return None
    return lambda done, total: progress(task, done, total)


@dataclass
class Resampled:
    lo: np.ndarray
    hi: np.ndarray
    code: np.ndarray
    dlo: np.ndarray
    dhi: np.ndarray
    dcode: np.ndarray
    p_bootstrap: np.ndarray | None  # the paired bootstrap test's p-value per pair (None: not asked for)


#: the most resampled sums (float64) :func:`resample` holds at once: beyond, the metrics go in blocks
SUMS_VALUES = 1 << 23


def resample(lay: Layout, plan: Plan, rng: np.random.Generator, progress: ProgressFn | None) -> Resampled:
    """Bootstrap intervals of every mean and every difference (the same resamples for all), and the paired
    bootstrap test's p-values when it is asked for.

    The resampled sums of ``B`` resamples and ``c`` columns take ``8 B c`` bytes; beyond
    :data:`SUMS_VALUES` values (thousands of metrics, or many resamples) the metrics are resampled a block
    at a time, each block from the same state of ``rng``: the same resamples, so the same numbers, with the
    sums of one block held at a time (the draws are made once per block).
    """
    B = int(plan.n_resamples)
    Rn = max(lay.n_runs, 1)
    M = lay.X.shape[1] // Rn
    pairs = np.asarray(lay.col_pairs, dtype=np.int64).reshape(-1, 2)
    per = max(1, SUMS_VALUES // max(B * Rn, 1))  # metrics per block
    blocks = [(m0, min(M, m0 + per)) for m0 in range(0, M, per)] or [(0, 0)]
    lo, hi, dlo, dhi = (np.empty(n) for n in (Rn * M, Rn * M, len(pairs), len(pairs)))
    code, dcode = np.empty(Rn * M, dtype=np.int64), np.empty(len(pairs), dtype=np.int64)
    p_boot = np.empty(len(pairs)) if "bootstrap" in plan.tests else None
    state = rng.bit_generator.state
    gen = rng
    for i, (m0, m1) in enumerate(blocks):
        if len(blocks) > 1:
            gen = np.random.Generator(type(rng.bit_generator)())
            gen.bit_generator.state = state
        cols = slice(m0 * Rn, m1 * Rn)
        boot = R.bootstrap_sums(lay.X[:, cols], lay.groups[cols], n_resamples=B, rng=gen,
                                progress=_task(progress, "bootstrap") if len(blocks) == 1 else None)
        lo[cols], hi[cols], code[cols] = R.intervals(boot, confidence=plan.confidence, method=plan.interval,
                                                     means=lay.means[cols])
        sel = np.flatnonzero((lay.pair_metric >= m0) & (lay.pair_metric < m1))
        local = pairs[sel] - cols.start
        # the differences' resamples a block of pairs at a time (bounded temporaries)
        for b in R.column_blocks(len(sel), B):
            d = R.diff_sums(boot, local[b])
            dlo[sel[b]], dhi[sel[b]], dcode[sel[b]] = R.intervals(d, confidence=plan.confidence,
                                                                  method=plan.interval,
                                                                  means=np.asarray(lay.diff_mean)[sel[b]])
            if p_boot is not None:
                p_boot[sel[b]] = R.diff_p(d)
        del boot
        if progress is not None and len(blocks) > 1:
            progress("bootstrap", i + 1, len(blocks))
    if len(blocks) > 1:
        rng.bit_generator.state = gen.bit_generator.state  # the stream goes on as after one pass
    return Resampled(lo, hi, code, dlo, dhi, dcode, p_boot)


def pair_tests(lay: Layout, plan: Plan, rs: Resampled, rng: np.random.Generator,
               progress: ProgressFn | None) -> tuple[dict[str, tuple[np.ndarray, np.ndarray, np.ndarray]], str]:
    """``{test: (statistic, p, method)}`` per column pair, and how the randomisation test ran."""
    from .. import stats as S

    nq = lay.X.shape[0]
    results: dict[str, tuple[np.ndarray, np.ndarray, np.ndarray]] = {}
    flip_method = ""
    for t in plan.tests:
        if t == "t":
            r = S.paired_t(lay.D)
            results[t] = (np.asarray(r.statistic), np.asarray(r.p_value), np.asarray(r.method))
        elif t == "wilcoxon":
            r = S.wilcoxon(lay.D)
            results[t] = (np.asarray(r.statistic), np.asarray(r.p_value), np.asarray(r.method))
        elif t == "randomization":
            fr = R.sign_flip_test(lay.X, lay.col_pairs, lay.groups, n_resamples=plan.n_resamples, rng=rng,
                                  exact_max_n=plan.exact_max_n, progress=_task(progress, "randomisation test"))
            flip_method = fr.method
            results[t] = (lay.diff_mean.copy(), fr.p_value, np.full(len(lay.col_pairs), fr.method, dtype=object))
        elif t == "tukey-hsd":
            results[t] = _tukey(lay, plan, rng, progress)
        else:
            assert rs.p_bootstrap is not None  # (made by resample when the test is asked for)
            p = rs.p_bootstrap
            results[t] = (lay.diff_mean.copy(), p,
                          np.full(len(lay.col_pairs), f"paired bootstrap ({plan.n_resamples} resamples)", dtype=object))
        if nq < 2 and t == "bootstrap":
            stat, p, _ = results[t]
            results[t] = (stat, np.ones_like(p), np.full(len(p), "undefined: fewer than 2 queries (p set to 1)",
                                                          dtype=object))
    return results, flip_method


def _tukey(lay: Layout, plan: Plan, rng: np.random.Generator,
           progress: ProgressFn | None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Randomised Tukey HSD per metric over all the runs; the p-value of each compared pair."""
    from ..stats.tukey import tukey_hsd

    Rn = lay.n_runs
    M = lay.X.shape[1] // Rn
    p = np.empty(len(lay.col_pairs))
    meth = np.empty(len(lay.col_pairs), dtype=object)
    for mi in range(M):
        r = tukey_hsd(lay.X[:, mi * Rn:(mi + 1) * Rn], n_resamples=plan.n_resamples, rng=rng)
        for k in np.flatnonzero(lay.pair_metric == mi):
            a, b = lay.col_pairs[k]
            p[k] = r.p_value[a % Rn, b % Rn]
            meth[k] = f"randomised Tukey HSD, {r.method}, familywise over all {Rn * (Rn - 1) // 2} pairs of runs"
        if progress is not None:
            progress("Tukey HSD", mi + 1, M)
    return lay.diff_mean.copy(), p, meth


def correct(lay: Layout, plan: Plan, rs: Resampled, results: dict[str, tuple[np.ndarray, np.ndarray, np.ndarray]],
            names: list[str], metric_texts: list[str], hib: dict[str, bool]) -> list[PairTest]:
    """Adjust the p-values of each family and build one :class:`PairTest` per metric, pair and test."""
    from ..stats.correction import adjust
    from ..stats.tests import effect_size

    Rn, M, nq = lay.n_runs, len(metric_texts), lay.X.shape[0]
    _, dz = effect_size(lay.D)
    out: list[PairTest] = []
    for t in plan.tests:
        stat, p, meth = results[t]
        padj = np.empty_like(p)
        fams = ([np.arange(len(p))] if plan.family == "all"
                else [np.flatnonzero(lay.pair_metric == mi) for mi in range(M)])
        for idx in fams:
            # Tukey HSD's p-values are familywise already (over all pairs of runs of the metric)
            padj[idx] = p[idx] if t == "tukey-hsd" else adjust(p[idx], plan.correction)
        for k, (ca, cb) in enumerate(lay.col_pairs):
            mi = int(lay.pair_metric[k])
            a, b = names[ca % Rn], names[cb % Rn]
            sig = bool(padj[k] < plan.alpha)
            better = None
            if sig and lay.diff_mean[k] != 0:
                better = b if (lay.diff_mean[k] > 0) == hib[metric_texts[mi]] else a
            out.append(PairTest(
                metric=metric_texts[mi], a=a, b=b, test=t, statistic=float(stat[k]), p_value=float(p[k]),
                p_adjusted=float(padj[k]), correction="tukey-hsd" if t == "tukey-hsd" else plan.correction,
                diff=float(lay.diff_mean[k]),
                diff_interval=(float(rs.dlo[k]), float(rs.dhi[k])), effect_size=float(lay.dz.get(k, dz[k])),
                n=int(lay.n_pair[k]) if lay.n_pair is not None else nq,
                method=str(meth[k]), significant=sig, better=better))
    return out


def degenerate_notes(lay: Layout, plan: Plan, rs: Resampled, results: dict[str, Any], names: list[str],
                     metric_texts: list[str]) -> list[str]:
    """Notes on cases a reader must know of: one query, identical runs, zero variance, BCa fallbacks."""
    Rn, nq = lay.n_runs, lay.X.shape[0]
    D: np.ndarray | list[np.ndarray]  # one row of differences per pair (its own queries when some are nan)
    col_pairs, pair_metric, D = lay.col_pairs, lay.pair_metric, lay.D
    notes: list[str] = []
    if nq == 1:
        notes.append("only 1 query: no test can reject (p-values are 1 or undefined) and intervals have zero width")
    if lay.ok is not None:  # a pair's differences over the queries it is tested on
        D = [D[k][lay.ok[k]] for k in range(len(col_pairs))]
    same = [(metric_texts[int(pair_metric[k])], names[a % Rn], names[b % Rn])
            for k, (a, b) in enumerate(col_pairs) if len(D[k]) and np.all(D[k] == 0)]
    if same:
        notes.append(f"{_plural(len(same), 'comparison')} with identical scores on every query (difference 0, "
                     "p = 1): " + examples([f"{a} vs {b} on {m}" for m, a, b in same]))
    const = [(metric_texts[int(pair_metric[k])], names[a % Rn], names[b % Rn])
             for k, (a, b) in enumerate(col_pairs)
             if len(D[k]) > 1 and not np.all(D[k] == 0) and np.all(D[k] == D[k][0])]
    if const:
        notes.append(f"{_plural(len(const), 'comparison')} with the same non-zero difference on every query (zero "
                     "variance: t statistic and effect size infinite, interval of zero width): "
                     + examples([f"{a} vs {b} on {m}" for m, a, b in const]))
    flat = [f"{names[c % Rn]} on {metric_texts[c // Rn]}" for c in np.flatnonzero(rs.code == 1)] if nq > 1 else []
    if flat:
        notes.append(f"{_plural(len(flat), 'run')} scoring the same on every query (interval of zero width): "
                     f"{examples(flat)}")
    fell = [f"{names[c % Rn]} on {metric_texts[c // Rn]}" for c in np.flatnonzero(rs.code == 2)]
    fell += [f"{names[a % Rn]} vs {names[b % Rn]} on {metric_texts[int(pair_metric[k])]}"
             for k, (a, b) in enumerate(col_pairs) if rs.dcode[k] == 2]
    if fell and plan.interval == "bca":
        notes.append(f"{_plural(len(fell), 'BCa interval')} fell back to the percentile interval (all resamples on "
                     f"one side of the estimate): {examples(fell)}")
    if "bootstrap" in plan.tests and 1 < nq < 20:
        notes.append(f"only {nq} queries: the paired bootstrap test gives too small p-values with few queries; "
                     "prefer the randomisation test")
    if "tukey-hsd" in plan.tests:
        notes.append("Tukey HSD: p-values are familywise over all pairs of runs of each metric (the "
                     f"{plan.correction} correction is not applied to them)"
                     + ("; they are not adjusted across metrics (family='all')" if plan.family == "all" else ""))
    if "wilcoxon" in plan.tests:
        kinds = sorted(set(results["wilcoxon"][2].tolist()))
        if len(kinds) > 1:
            notes.append("Wilcoxon p-values computed by: " + "; ".join(kinds))
    return notes


def _pair_layout(x: np.ndarray) -> Layout:
    """The layout of one pair of runs (two columns, ``b - a``) for the tests of a pair with missing values."""
    D = np.ascontiguousarray((x[:, 1] - x[:, 0])[None, :])
    means = np.array([float(np.mean(x[:, 0])), float(np.mean(x[:, 1]))])
    return Layout(np.ascontiguousarray(x), np.zeros(2, dtype=np.int64), np.array([[0, 1]], dtype=np.int64),
                  np.zeros(1, dtype=np.int64), D, means, np.array([means[1] - means[0]]), 2)


def nan_pairing(lay: Layout, plan: Plan, rs: Resampled, results: dict[str, tuple[np.ndarray, np.ndarray, np.ndarray]],
                names: list[str], metric_texts: list[str], queries: Sequence[str], unit: str,
                rng: np.random.Generator) -> tuple[list[str], dict[str, dict[str, int]]]:
    """Recompute what missing values (nan) touch; returns the notes and the count per metric and run.

    A query without a value for a run (nan: e.g. a user without a training profile, whom
    the metric leaves out) is left out of that run's mean and interval, and a query
    without a value for either run of a pair is left out of that pair's paired tests,
    difference, interval and effect size (``PairTest.n`` is the number of queries
    tested). Randomised Tukey HSD, which tests all the runs of a metric at once, uses the
    queries with a value for every run. Nothing is dropped silently: a note per metric
    gives the counts and examples.
    """
    if lay.raw is None or lay.ok is None:
        return [], {}
    from ..stats.tests import effect_size

    Rn, raw, nq = lay.n_runs, lay.raw, lay.raw.shape[0]
    units = "queries" if unit == "query" else unit + "s"
    # each run's mean interval over its own valued queries
    for c in np.flatnonzero(np.isnan(raw).any(axis=0)):
        v = raw[:, c][~np.isnan(raw[:, c])]
        if len(v) == 0:
            rs.lo[c] = rs.hi[c] = np.nan
            continue
        boot = R.bootstrap_sums(v[:, None], np.zeros(1, dtype=np.int64), n_resamples=plan.n_resamples, rng=rng)
        lo, hi, code = R.intervals(boot, confidence=plan.confidence, method=plan.interval,
                                   means=np.array([lay.means[c]]))
        rs.lo[c], rs.hi[c], rs.code[c] = lo[0], hi[0], code[0]
    pair_plan = Plan(**{**plan.__dict__, "tests": tuple(t for t in plan.tests if t != "tukey-hsd")})
    results.update({t: (np.asarray(st, dtype=np.float64).copy(), np.asarray(p, dtype=np.float64).copy(),
                        np.asarray(meth, dtype=object).copy()) for t, (st, p, meth) in results.items()})
    for k in np.flatnonzero(~lay.ok.all(axis=1)):
        ca, cb = lay.col_pairs[k]
        rows = lay.ok[k]
        n = int(rows.sum())
        if n == 0:
            lay.diff_mean[k] = rs.dlo[k] = rs.dhi[k] = np.nan
            lay.dz[int(k)] = np.nan
            for t in pair_plan.tests:
                results[t][0][k], results[t][1][k] = np.nan, 1.0
                results[t][2][k] = f"undefined: no {unit} has a value for both runs (p set to 1)"
            continue
        sub = _pair_layout(raw[rows][:, [ca, cb]])
        srs = resample(sub, pair_plan, rng, None)
        sres, _ = pair_tests(sub, pair_plan, srs, rng, None)
        lay.diff_mean[k] = sub.diff_mean[0]
        rs.dlo[k], rs.dhi[k], rs.dcode[k] = srs.dlo[0], srs.dhi[0], srs.dcode[0]
        lay.dz[int(k)] = float(np.asarray(effect_size(sub.D)[1]).ravel()[0])
        for t, (stat, p, meth) in sres.items():
            results[t][0][k], results[t][1][k], results[t][2][k] = stat[0], p[0], meth[0]
    notes: list[str] = []
    if "tukey-hsd" in plan.tests:
        M = len(metric_texts)
        for mi in range(M):
            block = raw[:, mi * Rn:(mi + 1) * Rn]
            rows = ~np.isnan(block).any(axis=1)
            if rows.all():
                continue
            ks = np.flatnonzero(lay.pair_metric == mi)
            if rows.sum() < 2:
                for k in ks:
                    results["tukey-hsd"][1][k] = 1.0
                    results["tukey-hsd"][2][k] = f"undefined: fewer than 2 {units} with a value for every run"
                continue
            sub = Layout(np.ascontiguousarray(block[rows]), np.zeros(Rn, dtype=np.int64),
                         lay.col_pairs[ks] - mi * Rn, np.zeros(len(ks), dtype=np.int64), lay.D[ks][:, rows],
                         lay.means[mi * Rn:(mi + 1) * Rn], lay.diff_mean[ks], Rn)
            _, p, meth = _tukey(sub, plan, rng, None)
            for j, k in enumerate(ks):
                results["tukey-hsd"][1][k] = p[j]
                results["tukey-hsd"][2][k] = f"{meth[j]}, on the {int(rows.sum())} {units} with a value for every run"
    counts: dict[str, dict[str, int]] = {}
    for mi, m in enumerate(metric_texts):
        block = np.isnan(raw[:, mi * Rn:(mi + 1) * Rn])
        if not block.any():
            continue
        counts[m] = {names[r]: int(block[:, r].sum()) for r in range(Rn)}
        ex = [queries[int(q)] for q in np.flatnonzero(block.any(axis=1))]
        per_run = ", ".join(f"{n} in {r}" for r, n in counts[m].items())
        n_pairs = [int(lay.n_pair[k]) if lay.n_pair is not None else nq
                   for k in np.flatnonzero(lay.pair_metric == mi)]
        fewest, most = min(n_pairs), max(n_pairs)
        tested = (f"each paired test uses the {fewest} {units} with a value in both runs" if fewest == most else
                  f"each paired test uses the {units} with a value in both runs ({fewest} to {most}; n in the tests "
                  "table)")
        notes.append(f"{m}: no value (nan) for {per_run} of the {nq} {units} (e.g. {examples(ex)}); they are left "
                     f"out of that run's mean and interval, and {tested}")
    return notes, counts


def _overlap_p(overlap: Any) -> float | None:
    if overlap is False or overlap is None:
        return None
    if overlap is True:
        return 0.9
    from .._params import check_number

    return float(check_number("overlap", overlap, func="compare", low=0, high=1, low_open=True, high_open=True))


def rank_overlap(ev: Evaluated, names: list[str], run_pairs: list[tuple[int, int]], queries: list[str], p: float,
                 notes: list[str]) -> list[dict[str, Any]]:
    """Mean extrapolated RBO between the rankings of each compared pair of runs (runs given as rankings)."""
    from .overlap import overlap_runs

    loaded = ev.sources.get("runs", {})
    out: list[dict[str, Any]] = []
    skipped = [(names[a], names[b]) for a, b in run_pairs if names[a] not in loaded or names[b] not in loaded]
    if skipped:
        notes.append(f"overlap: {_plural(len(skipped), 'pair')} of runs not given as rankings (precomputed "
                     f"results) have no RBO: " + examples([f"{a} vs {b}" for a, b in skipped]))
    measure = f"rbo(p={p:g})"
    for a, b in run_pairs:
        na, nb = names[a], names[b]
        if na not in loaded or nb not in loaded:
            continue
        res = overlap_runs(loaded[na], loaded[nb], [measure], names=(na, nb), queries=queries)
        out.append({"a": na, "b": nb, "measure": measure, "mean": res.mean[measure], "queries": len(res.queries)})
        left = len(queries) - len(res.queries)
        if left:
            notes.append(f"overlap of {na} and {nb}: {_plural(left, 'compared query', 'compared queries')} "
                         "missing from one of them left out of the mean RBO")
    return out


def _unit(given: list[tuple[str, Result]]) -> str:
    units = {getattr(r, "index_name", "query") for _, r in given}
    return units.pop() if len(units) == 1 else "row"


def unresolved_pairs(tests: list[PairTest], bounds: dict[str, dict[str, tuple[float, float]]]
                     ) -> tuple[list[tuple[str, str, str]], list[str]]:
    """The compared pairs whose order the unjudged items could reverse: the intervals of the two runs'
    means over every completion of the judgments overlap (``unjudged="bounds"``), with a note each, in
    the words of the tie notes."""
    out: list[tuple[str, str, str]] = []
    notes: list[str] = []
    seen: set[tuple[str, str, str]] = set()
    for t in tests:
        key = (t.metric, t.a, t.b)
        if key in seen or t.a not in bounds or t.b not in bounds or t.metric not in bounds[t.a]:
            continue
        seen.add(key)
        (la, ha), (lb, hb) = bounds[t.a][t.metric], bounds[t.b][t.metric]
        if la <= hb and lb <= ha:
            out.append(key)
            notes.append(f"unjudged=bounds: {t.b} vs {t.a} on {t.metric}: the difference {t.diff:+.4g} is within what "
                         f"the unjudged items can change (means in [{la:.4g}, {ha:.4g}] and [{lb:.4g}, {hb:.4g}]): "
                         "unresolved by the judgments")
    return out, notes
