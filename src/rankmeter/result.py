"""The result of an evaluation: per-query values, means and what was counted."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Mapping, Sequence

import numpy as np

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["Result", "Coverage"]


@dataclass(frozen=True)
class Coverage:
    """Which queries (or users) counted, and which did not, with counts.

    Nothing is dropped silently: every query of either input is in exactly one of
    these groups.
    """

    policy: str
    evaluated: int
    missing_from_run: int = 0  # evaluated, scored as an empty ranking
    without_judgments: int = 0  # in the run only: left out
    without_relevant: int = 0  # judged, no relevant item: left out unless the policy keeps them
    without_relevant_kept: bool = False
    not_in_run_left_out: int = 0  # judged but not in the run, left out (policy "run")
    run_rows: int = 0
    run_rows_used: int = 0
    examples: Mapping[str, Sequence[str]] = field(default_factory=dict)
    judged_k: int | None = None  # the cutoff of the judgment coverage below (None: whole rankings)
    judged: float | None = None  # mean share of the top judged_k that has a judgment (judged@k)
    depth: int | None = None  # rankings cut to their first `depth` items (trec_eval -M)
    judged_only: bool = False  # unjudged items removed from every ranking (trec_eval -J)
    # skipped by the readers, per input (their notes say so)
    comment_lines: Mapping[str, int] = field(default_factory=dict)

    def notes(self) -> list[str]:
        """Human-readable lines for whatever was not plainly evaluated."""
        out = []

        def ex(key: str) -> str:
            ids = list(self.examples.get(key, ()))
            return f" (e.g. {', '.join(map(str, ids[:3]))})" if ids else ""

        if self.missing_from_run:
            out.append(f"{_count(self.missing_from_run, 'judged query', 'judged queries')} "
                       f"{_verb(self.missing_from_run, 'has', 'have')} no ranking in the run and score"
                       f"{'s' if self.missing_from_run == 1 else ''} as an empty ranking{ex('missing_from_run')}")
        if self.without_judgments:
            out.append(f"{_count(self.without_judgments, 'run query', 'run queries')} "
                       f"{_verb(self.without_judgments, 'has', 'have')} no judgments and "
                       f"{_verb(self.without_judgments, 'is', 'are')} left out{ex('without_judgments')}")
        if self.without_relevant:
            verb = "evaluated" if self.without_relevant_kept else "left out"
            out.append(f"{_count(self.without_relevant, 'judged query', 'judged queries')} "
                       f"{_verb(self.without_relevant, 'has', 'have')} no relevant item and "
                       f"{_verb(self.without_relevant, 'is', 'are')} {verb}{ex('without_relevant')}")
        if self.not_in_run_left_out:
            out.append(f"{_count(self.not_in_run_left_out, 'judged query', 'judged queries')} "
                       f"{_verb(self.not_in_run_left_out, 'is', 'are')} not in the run and "
                       f"{_verb(self.not_in_run_left_out, 'is', 'are')} left out (queries='run'){ex('not_in_run')}")
        if self.depth is not None:
            out.append(f"depth {self.depth}: every ranking was cut to its first {self.depth} items before every "
                       "metric (trec_eval -M); judgments and ideal rankings are whole")
        if self.judged_only:
            out.append("judged only: unjudged items (and items with a negative grade) were removed from every "
                       "ranking before every metric (trec_eval -J); these numbers are not comparable with "
                       "evaluations of the full rankings")
        if self.evaluated == 0:  # never a silent nan: say why every per-query mean is undefined
            why = ("the judgments are empty" if not (self.missing_from_run or self.without_relevant
                                                      or self.not_in_run_left_out or self.without_judgments)
                   else f"no query counts under queries={self.policy!r}")
            out.append(f"no query was evaluated ({why}): every per-query metric's mean is undefined (nan)")
        if self.judged is not None and self.evaluated:
            at = f"top {self.judged_k}" if self.judged_k is not None else "whole rankings"
            out.append(f"judgment coverage: {100 * self.judged:.1f}% of the {at} have a judgment "
                       f"(mean judged@{self.judged_k if self.judged_k is not None else 'all'})")
        return out

    def to_dict(self) -> dict[str, Any]:
        return {
            "policy": self.policy,
            "evaluated": self.evaluated,
            "missing_from_run": self.missing_from_run,
            "without_judgments": self.without_judgments,
            "without_relevant": self.without_relevant,
            "not_in_run_left_out": self.not_in_run_left_out,
            "run_rows": self.run_rows,
            "run_rows_used": self.run_rows_used,
            "judged_k": self.judged_k,
            "judged": self.judged,
            "depth": self.depth,
            "judged_only": self.judged_only,
            "comment_lines": dict(self.comment_lines),
        }


def _mean(v: np.ndarray) -> float:
    """The mean; a query without a value (nan: e.g. a user without a training profile) is left out."""
    v = np.asarray(v, dtype=np.float64)
    has = ~np.isnan(v)
    return float(np.mean(v)) if has.all() and len(v) else (float(np.mean(v[has])) if has.any() else float("nan"))


GMEAN_FLOOR = 1e-5  # trec_eval's floor for geometric means (gm_map, gm_bpref): a zero would make them 0


def _aggregate(v: np.ndarray, how: str) -> float:
    """A metric's summary over queries, as its registry entry declares: ``mean``, ``gmean``
    (exp of the mean log of max(v, 1e-5), trec_eval's gm_*) or ``sum``; nan values are left out.

    >>> round(_aggregate(np.array([0.5, 0.0]), "gmean"), 6), _aggregate(np.array([1.0, 2.0]), "sum")
    (0.002236, 3.0)
    """
    if how == "mean":
        return _mean(v)
    v = np.asarray(v, dtype=np.float64)
    v = v[~np.isnan(v)]
    if not len(v):
        return float("nan")
    if how == "gmean":
        return float(np.exp(np.mean(np.log(np.maximum(v, GMEAN_FLOOR)))))
    if how == "sum":
        return float(np.sum(v))
    raise ValueError(f"unknown aggregate {how!r}")


def _pooled(v: np.ndarray, w: np.ndarray) -> float:
    """sum(v w) / sum(w) over the queries with a value: a ratio of sums (``mean=pooled``).

    >>> _pooled(np.array([1.0, 0.0]), np.array([3.0, 1.0]))
    0.75
    """
    v, w = np.asarray(v, dtype=np.float64), np.asarray(w, dtype=np.float64)
    has = ~np.isnan(v)
    total = float(np.sum(w[has]))
    return float(np.sum(v[has] * w[has]) / total) if total > 0 else float("nan")


def _count(n: int, one: str, many: str) -> str:
    return f"{n} {one if n == 1 else many}"


def _verb(n: int, one: str, many: str) -> str:
    return one if n == 1 else many


@dataclass(frozen=True, eq=False)
class Result:
    """Per-query values of each metric, keyed by the metric string as written.

    ``mean`` maps metric -> mean over the evaluated queries; ``per_query`` is a
    pandas DataFrame (one row per query, one column per metric); ``to_dict()`` gives
    plain Python. ``coverage`` says which queries counted.
    """

    queries: Sequence[str]
    values: Mapping[str, np.ndarray]
    metrics: Sequence[Any] = ()
    coverage: Coverage | None = None
    notes: Sequence[str] = ()
    corpus: Mapping[str, float] = field(default_factory=dict)
    index_name: str = "query"
    # ties="bounds": metric -> (pessimistic, optimistic) per-query values, in the order of ``queries``
    tie_values: Mapping[str, tuple[np.ndarray, np.ndarray]] = field(default_factory=dict)
    # unjudged="bounds": metric -> (smallest, largest) per-query values over every completion of the judgments
    unjudged_values: Mapping[str, tuple[np.ndarray, np.ndarray]] = field(default_factory=dict)
    # beside them, each metric on the condensed lists (unjudged items removed: trec_eval -J)
    condensed: Mapping[str, np.ndarray] = field(default_factory=dict)
    # mean=pooled: metric -> per-query weights (denominators); its summary is sum(v w) / sum(w)
    weights: Mapping[str, np.ndarray] = field(default_factory=dict)

    @property
    def tie_bounds(self) -> dict[str, "pd.DataFrame"]:
        """``ties="bounds"``: per metric, a DataFrame indexed like ``per_query`` with columns ``low``
        (each group of tied scores ordered worst grade first) and ``high`` (best first); empty otherwise."""
        import pandas as pd

        index = pd.Index(list(self.queries), name=self.index_name)
        return {m: pd.DataFrame({"low": np.asarray(lo), "high": np.asarray(hi)}, index=index)
                for m, (lo, hi) in self.tie_values.items()}

    @property
    def bounds(self) -> dict[str, "pd.DataFrame"]:
        """``unjudged="bounds"``: per metric, a DataFrame indexed like ``per_query`` with columns ``low``
        and ``high``, the metric's smallest and largest value over every completion of the judgments
        (:mod:`rankmeter.metrics.unjudged`), and beside them ``condensed``, the metric on the condensed
        list (unjudged items removed, trec_eval ``-J``); empty otherwise. The mean's interval is the mean
        of each column."""
        import pandas as pd

        index = pd.Index(list(self.queries), name=self.index_name)
        return {m: pd.DataFrame({"low": np.asarray(lo), "high": np.asarray(hi),
                                 **({"condensed": np.asarray(self.condensed[m])} if m in self.condensed else {})},
                                index=index)
                for m, (lo, hi) in self.unjudged_values.items()}

    @property
    def mean(self) -> dict[str, float]:
        """Metric -> aggregate: the mean over queries (or the summary the metric's registry entry
        declares, e.g. a geometric mean for gm_map), or the corpus-level value."""
        how = {m.text: getattr(getattr(m, "spec", None), "aggregate", "mean") for m in self.metrics}
        out = {m: (_pooled(v, self.weights[m]) if m in self.weights else _aggregate(v, how.get(m, "mean")))
               for m, v in self.values.items()}
        out.update(self.corpus)
        if self.metrics:
            order = [m.text for m in self.metrics if m.text in out]
            out = {k: out[k] for k in order + [k for k in out if k not in order]}
        return out

    @property
    def sums(self) -> dict[str, float]:
        """Metric -> the sum of its per-query values (query-level metrics only).

        For a count (``num_ret``, ``num_rel_ret``...: the registry's ``count=True``) this is
        what trec_eval prints on its ``all`` line, and what the CLI shows, labelled
        ``(sum)``; :attr:`mean` keeps the mean. Counts sum to an int.

        >>> import rankmeter
        >>> r = rankmeter.evaluate({"q1": ["a"], "q2": ["c"]}, {"q1": ["a", "b"], "q2": ["c"]},
        ...                        ["num_ret", "num_rel_ret"])
        >>> r.sums, r.mean
        ({'num_ret': 3, 'num_rel_ret': 2}, {'num_ret': 1.5, 'num_rel_ret': 1.0})
        """
        counts = self.counts
        out: dict[str, float] = {}
        for m, v in self.values.items():
            total = float(np.sum(np.asarray(v, dtype=np.float64)))
            out[m] = int(round(total)) if m in counts and math.isfinite(total) else total
        return out

    @property
    def counts(self) -> tuple[str, ...]:
        """The metrics that are counts (registry ``count=True``): summed where the CLI aggregates them."""
        if self.metrics:
            return tuple(m.text for m in self.metrics if getattr(getattr(m, "spec", None), "count", False)
                         and m.text in self.values)
        from .metrics.registry import is_count

        def count(name: str) -> bool:
            try:
                return is_count(name)
            except ValueError:  # not a registered metric's name (a hand-built Result)
                return False

        return tuple(m for m in self.values if count(m))

    @property
    def n_queries(self) -> int:
        return len(self.queries)

    @property
    def per_query(self) -> "pd.DataFrame":
        import pandas as pd

        frame = pd.DataFrame({m: np.asarray(v) for m, v in self.values.items()},
                             index=pd.Index(list(self.queries), name=self.index_name))
        return frame

    def to_dict(self, per_query: bool = True) -> dict[str, Any]:
        """``{"queries": N, "mean": {...}, "per_query": {query: {metric: value}}}`` (corpus-level
        metrics appear in ``mean`` only; counts also in ``"sum"``: :attr:`sums`)."""
        out: dict[str, Any] = {"queries": self.n_queries, "mean": self.mean}
        if self.counts:  # trec_eval's aggregate of a count: its sum
            sums = self.sums
            out["sum"] = {m: sums[m] for m in self.counts}
        if per_query:
            names = list(self.values)
            cols = [np.asarray(self.values[m]).tolist() for m in names]
            out["per_query"] = {q: {m: c[i] for m, c in zip(names, cols, strict=True)}
                                for i, q in enumerate(self.queries)}
        if self.unjudged_values:  # unjudged="bounds": the interval of each mean, and per query
            out["bounds"] = {m: {"low": float(np.mean(lo)) if len(lo) else None,
                                 "high": float(np.mean(hi)) if len(hi) else None,
                                 "condensed": float(np.mean(self.condensed[m]))
                                 if m in self.condensed and len(lo) else None,
                                 **({"per_query": {q: [float(a), float(b)] for q, a, b in
                                                   zip(self.queries, lo, hi, strict=True)}} if per_query else {})}
                             for m, (lo, hi) in self.unjudged_values.items()}
        if self.coverage is not None:
            out["coverage"] = self.coverage.to_dict()
        if self.tie_values:  # ties="bounds": the pessimistic and optimistic means (and values per query)
            out["tie_bounds"] = {m: {"low": _mean(lo), "high": _mean(hi)} for m, (lo, hi) in self.tie_values.items()}
            if per_query:
                for m, (lo, hi) in self.tie_values.items():
                    out["tie_bounds"][m]["per_query"] = {
                        q: {"low": float(a), "high": float(b)}
                        for q, a, b in zip(self.queries, np.asarray(lo).tolist(), np.asarray(hi).tolist(), strict=True)}
        return out

    def by_group(self, groups: Any, **options: Any) -> Any:
        """Means per query group, group sizes, gaps and tests: :func:`rankmeter.stats.groups.by_group`."""
        from .stats.groups import by_group

        return by_group(self, groups, **options)

    def __getitem__(self, metric: str) -> float:
        return self.mean[metric]

    def __repr__(self) -> str:
        means = ", ".join(f"{m}={v:.4f}" for m, v in self.mean.items())
        plural = {"query": "queries"}.get(self.index_name, self.index_name + "s")
        return f"Result({_count(self.n_queries, self.index_name, plural)}: {means})"
