"""The result of an evaluation: per-query values, means and what was counted."""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Mapping, Sequence, cast

import numpy as np

from ._files import json_text, write_text

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["Result", "Coverage", "QueryIds"]


class QueryIds(Sequence[str]):
    """A result's query ids: a read-only sequence of ``str`` over an Arrow string array.

    The Python strings are made on first use (iteration, indexing, ``in``, comparison),
    once; until then only the Arrow array is held (2M ids: about 22 MB, against about
    130 MB as a list of str), so a command that prints only the means never makes them.
    It compares equal to a list of the same ids, and pickles as that list.

    >>> import pyarrow as pa
    >>> ids = QueryIds(pa.array(["q1", "q2"]))
    >>> len(ids), ids == ["q1", "q2"], ids[1], list(ids), ids
    (2, True, 'q2', ['q1', 'q2'], ['q1', 'q2'])
    """

    __slots__ = ("_array", "_list")

    def __init__(self, array: Any) -> None:
        self._array: Any = array
        self._list: list[str] | None = None

    def _items(self) -> list[str]:
        if self._list is None:
            self._list = self._array.to_pylist()
            self._array = None  # (the strings now hold the ids)
        return self._list

    def __len__(self) -> int:
        return len(self._list) if self._list is not None else len(self._array)

    def __getitem__(self, i: Any) -> Any:
        return self._items()[i]

    def __iter__(self) -> Any:
        return iter(self._items())

    def __contains__(self, x: object) -> bool:
        return x in self._items()

    def __eq__(self, other: object) -> bool:
        if isinstance(other, QueryIds):
            return self._items() == other._items()
        if isinstance(other, list):
            return self._items() == other
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]  # mutable-like, as a list

    def __repr__(self) -> str:
        return repr(self._items())

    def __reduce__(self) -> tuple[Any, ...]:
        return (list, (self._items(),))


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
    # what produced it (rankmeter.provenance.Provenance): version, inputs with SHA-256, metrics, options, threads, date
    provenance: Any = field(default=None, repr=False)

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

    def _cached(self, name: str, make: Any) -> Any:
        """``make()``, computed once per result (a result is a value: its metrics never change). Asked once
        per metric, an aggregate over every metric made thousands of metrics quadratic (issue 32)."""
        got = self.__dict__.get(name)
        if got is None:
            got = make()
            object.__setattr__(self, name, got)
        return got

    @property
    def mean(self) -> dict[str, float]:
        """Metric -> aggregate: the mean over queries (or the summary the metric's registry entry
        declares, e.g. a geometric mean for gm_map), or the corpus-level value."""
        return dict(self._cached("_mean", self._means))  # (a copy: the caller may change it)

    def _means(self) -> dict[str, float]:
        how = {m.text: getattr(getattr(m, "spec", None), "aggregate", "mean") for m in self.metrics}
        out = {m: (_pooled(v, self.weights[m]) if m in self.weights else _aggregate(v, how.get(m, "mean")))
               for m, v in self.values.items()}
        out.update(self.corpus)
        if self.metrics:
            order = dict.fromkeys(m.text for m in self.metrics if m.text in out)  # (a dict: thousands of metrics)
            out = {k: out[k] for k in [*order, *(k for k in out if k not in order)]}
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
        return dict(self._cached("_sums", self._sums))

    def _sums(self) -> dict[str, float]:
        counts = set(self.counts)
        out: dict[str, float] = {}
        for m, v in self.values.items():
            total = float(np.sum(np.asarray(v, dtype=np.float64)))
            out[m] = int(round(total)) if m in counts and math.isfinite(total) else total
        return out

    @property
    def counts(self) -> tuple[str, ...]:
        """The metrics that are counts (registry ``count=True``): summed where the CLI aggregates them."""
        return cast("tuple[str, ...]", self._cached("_counts", self._counts))

    def _counts(self) -> tuple[str, ...]:
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

    def to_json(self, path: str | Path | None = None, *, indent: int | None = 2) -> str:
        """JSON text of :meth:`to_dict` (values per query included, non-finite numbers as null) with what
        :meth:`load` needs to rebuild the result, and the :mod:`provenance <rankmeter.provenance>` record;
        written to ``path`` (whole or not at all) if given."""
        text = json_text(result_to_saved(self), indent)
        if path is not None:
            write_text(path, text + "\n")
        return text

    def save(self, path: str | Path) -> Path:
        """Write :meth:`to_json` to ``path`` (a file; ``.json`` is the usual suffix) and return it."""
        self.to_json(path)
        return Path(path)

    @classmethod
    def load(cls, path: str | Path) -> "Result":
        """The result that :meth:`save` / :meth:`to_json` wrote (a path, or the JSON text itself).

        >>> import rankmeter
        >>> r = rankmeter.evaluate({"q1": ["a"], "q2": ["b"]}, {"q1": ["a", "b"], "q2": ["a"]}, ["rr", "P@1"])
        >>> back = Result.load(r.to_json())
        >>> back.mean == r.mean, list(back.queries), back.provenance == r.provenance
        (True, ['q1', 'q2'], True)
        """
        return result_from_saved(read_saved(path, "Result.load"), source=str(path)[:200])

    def equals(self, other: "Result") -> bool:
        """Same queries, values (nan equal to nan), means, coverage, notes and provenance."""
        return results_equal(self, other)

    def _repr_html_(self) -> str:
        """A compact HTML table of the means, the counts and the notes (Jupyter's rich display)."""
        from .report.notebook import result_html

        return result_html(self)

    def plot(self, metric: str | None = None) -> Any:
        """A matplotlib figure of the per-query distribution of ``metric`` (default: each per-query metric,
        side by side), the distribution figure of the HTML report. Needs matplotlib (``rankmeter[report]``)."""
        from .report.notebook import result_figure

        return result_figure(self, metric)

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


# ----------------------------------------------------------------------------- the saved form

RESULT_FORMAT = "rankmeter-result/1"


def _num(x: Any) -> Any:
    f = float(x)
    return f if math.isfinite(f) else None


def _arr(values: Sequence[Any]) -> np.ndarray:
    return np.array([np.nan if v is None else v for v in values], dtype=np.float64)


def result_to_saved(res: Result) -> dict[str, Any]:
    """:meth:`Result.to_dict` plus what :func:`result_from_saved` needs, JSON-safe (non-finite as null)."""
    out = res.to_dict(per_query=True)
    out["mean"] = {m: _num(v) for m, v in out["mean"].items()}
    names = list(res.values)
    cols = [[_num(v) for v in np.asarray(res.values[m], dtype=np.float64)] for m in names]
    out["per_query"] = {q: {m: c[i] for m, c in zip(names, cols, strict=True)} for i, q in enumerate(res.queries)}
    for section in ("bounds", "tie_bounds"):
        if section in out:
            out[section] = _json_safe(out[section])
    saved: dict[str, Any] = {
        "format": RESULT_FORMAT, "index_name": res.index_name, "metrics": [getattr(m, "text", str(m))
                                                                         for m in res.metrics],
        "values": names, "corpus": {m: _num(v) for m, v in res.corpus.items()}, "notes": list(res.notes),
    }
    if res.weights:
        saved["weights"] = {m: [_num(v) for v in np.asarray(w, dtype=np.float64)] for m, w in res.weights.items()}
    if res.coverage is not None:
        saved["coverage"] = {"without_relevant_kept": res.coverage.without_relevant_kept,
                             "examples": {k: list(v) for k, v in res.coverage.examples.items()}}
    out["rankmeter"] = saved
    if res.provenance is not None:
        out["provenance"] = res.provenance.to_dict()
    return out


def _json_safe(x: Any) -> Any:
    if isinstance(x, Mapping):
        return {k: _json_safe(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_json_safe(v) for v in x]
    if isinstance(x, (float, np.floating)):
        return _num(x)
    return x


def read_saved(path: Any, method: str) -> dict[str, Any]:
    """The JSON object in the file ``path`` (or ``path`` itself when it is JSON text or a dict)."""
    from ._errors import InputError

    if isinstance(path, Mapping):
        return dict(path)
    text = str(path)
    source = text[:200]
    if not text.lstrip().startswith("{"):
        # the project's reader: a compressed copy is read; UTF-16, binary data, /dev/zero are refused by name
        from .io.source import read_text_file

        try:
            text = read_text_file(text)
        except InputError as exc:
            raise InputError(f"{method}: cannot read the saved result: {exc.message}", source=source,
                             line=exc.line) from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise InputError(f"{method}: expected the JSON that rankmeter saved; found text that is not JSON "
                         f"({exc.msg})", source=source, line=exc.lineno) from None
    except RecursionError:
        raise InputError(f"{method}: expected the JSON that rankmeter saved; found arrays or objects nested too "
                         "deeply to read", source=source) from None
    if not isinstance(data, dict):
        raise InputError(f"{method}: expected a JSON object; found {type(data).__name__}", source=source)
    return data


def result_from_saved(d: Mapping[str, Any], source: str = "") -> Result:
    """The :class:`Result` that :func:`result_to_saved` wrote."""
    from ._errors import InputError
    from .provenance import Provenance

    info = d.get("rankmeter")
    if not isinstance(info, Mapping) or info.get("format") != RESULT_FORMAT:
        raise InputError(f"Result.load: expected a result saved by rankmeter (format {RESULT_FORMAT!r}); found "
                         + (f"format {info.get('format')!r}" if isinstance(info, Mapping) else
                            "JSON without rankmeter's 'rankmeter' section"), source=source)
    names = list(info.get("values", []))
    per_query: Mapping[str, Mapping[str, Any]] = d.get("per_query", {})
    queries = list(per_query)
    values = {m: _arr([per_query[q].get(m) for q in queries]) for m in names}
    metrics: list[Any] = []
    if info.get("metrics"):
        from .metrics.registry import parse_metrics

        try:
            metrics = list(parse_metrics(list(info["metrics"])))
        except Exception:  # noqa: BLE001 (names of a hand-built result: the means are then plain means)
            metrics = []
    coverage = None
    if isinstance(d.get("coverage"), Mapping):
        c = dict(d["coverage"])
        extra = info.get("coverage", {})
        coverage = Coverage(policy=c["policy"], evaluated=c["evaluated"], missing_from_run=c["missing_from_run"],
                            without_judgments=c["without_judgments"], without_relevant=c["without_relevant"],
                            without_relevant_kept=bool(extra.get("without_relevant_kept", False)),
                            not_in_run_left_out=c["not_in_run_left_out"], run_rows=c["run_rows"],
                            run_rows_used=c["run_rows_used"],
                            examples={k: tuple(v) for k, v in extra.get("examples", {}).items()},
                            judged_k=c["judged_k"], judged=c["judged"], depth=c["depth"], judged_only=c["judged_only"],
                            comment_lines=dict(c.get("comment_lines", {})))
    tie_values = {m: (_arr([v["low"] for v in b.get("per_query", {}).values()]),
                      _arr([v["high"] for v in b.get("per_query", {}).values()]))
                  for m, b in d.get("tie_bounds", {}).items()}
    unjudged = {m: (_arr([v[0] for v in b.get("per_query", {}).values()]),
                    _arr([v[1] for v in b.get("per_query", {}).values()]))
                for m, b in d.get("bounds", {}).items()}
    corpus = {m: (float("nan") if v is None else float(v)) for m, v in info.get("corpus", {}).items()}
    weights = {m: _arr(w) for m, w in info.get("weights", {}).items()}
    prov = Provenance.from_dict(d["provenance"]) if isinstance(d.get("provenance"), Mapping) else None
    return Result(queries=queries, values=values, metrics=metrics, coverage=coverage,
                  notes=tuple(info.get("notes", ())), corpus=corpus, index_name=str(info.get("index_name", "query")),
                  tie_values=tie_values,
                  unjudged_values=unjudged, weights=weights, provenance=prov)


def _same(a: Any, b: Any) -> bool:
    x, y = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    return x.shape == y.shape and bool(np.array_equal(x, y, equal_nan=True))


def results_equal(a: Result, b: Result) -> bool:
    """Same queries, values, means, bounds, coverage, notes and provenance (nan equals nan)."""
    if list(a.queries) != list(b.queries) or list(a.values) != list(b.values) or a.index_name != b.index_name:
        return False
    if not all(_same(a.values[m], b.values[m]) for m in a.values):
        return False
    ma, mb = a.mean, b.mean
    if list(ma) != list(mb) or not _same(list(ma.values()), list(mb.values())):
        return False
    for x, y in ((a.tie_values, b.tie_values), (a.unjudged_values, b.unjudged_values)):
        if list(x) != list(y) or not all(_same(x[m][i], y[m][i]) for m in x for i in (0, 1)):
            return False
    if list(a.weights) != list(b.weights) or not all(_same(a.weights[m], b.weights[m]) for m in a.weights):
        return False
    return (_coverage_key(a.coverage) == _coverage_key(b.coverage) and tuple(a.notes) == tuple(b.notes)
            and a.provenance == b.provenance)


def _coverage_key(c: Coverage | None) -> Any:
    if c is None:
        return None
    return (c.to_dict(), c.without_relevant_kept, {k: list(v) for k, v in c.examples.items()})
