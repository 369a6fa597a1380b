"""Pools to judge, and how much a pool favours the runs that built it.

**Depth-k pooling** (Spärck Jones and van Rijsbergen 1975; TREC's method): the pool of a query is the
union of the first ``depth`` items of every run (ranked by rankmeter's tie rule), each item with the
runs that contributed it.

**Leave-one-run-out** (Zobel 1998, doi:10.1145/290941.291014; Büttcher et al. 2007,
doi:10.1145/1277741.1277755): run ``r`` is evaluated again on the judgments without the items only
``r`` contributed to the pool (they become unjudged, so not relevant), and its score and rank are
compared with those on the whole judgments. The rank under leave-one-out places ``r``'s reduced score
among the other runs' scores on the whole judgments, as Zobel does. A large drop means the pool
rewards runs that took part in it: a new run, which did not, is scored as if all its unique finds
were not relevant.

>>> runs = {"x": {"q": ["a", "b"]}, "y": {"q": ["a", "c"]}}
>>> p = pool(runs, depth=2)
>>> p.items["q"]
{'a': ['x', 'y'], 'b': ['x'], 'c': ['y']}
>>> bias = pool_bias({"q": {"a": 0, "b": 1, "c": 0}}, runs, ["P@2"], depth=2)
>>> bias.by_run[["run", "full", "reduced", "change", "unique_relevant"]].to_dict("records")[0]
{'run': 'x', 'full': 0.5, 'reduced': 0.0, 'change': -0.5, 'unique_relevant': 1}
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Iterable, Mapping, Sequence

from .._errors import InputError, ParameterError

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["Pool", "PoolBias", "pool", "pool_bias"]


def _named(runs: Mapping[str, Any] | Sequence[Any]) -> dict[str, Any]:
    if isinstance(runs, Mapping):
        named = {str(k): v for k, v in runs.items()}
    else:
        from pathlib import Path

        named = {}
        for i, r in enumerate(runs):
            name = Path(r).stem if isinstance(r, (str, Path)) else f"run{i + 1}"
            if name in named:
                raise ParameterError(f"two runs are both named {name!r}: pass a dict of names to runs")
            named[name] = r
    if not named:
        raise ParameterError("no runs given: a pool needs at least one run")
    return named


def _tops(runs: Mapping[str, Any], depth: int) -> dict[str, dict[str, list[str]]]:
    """Each run's first ``depth`` items per query, by rankmeter's tie rule."""
    from ..io import as_run

    return {name: {q: items[:depth] for q, items in as_run(r, source=name).to_lists().items()}
            for name, r in runs.items()}


def _check_depth(depth: int) -> None:
    if isinstance(depth, bool) or not isinstance(depth, int) or depth < 1:
        raise ParameterError(f"The 'depth' parameter of pool must be an int >= 1. Got {depth!r} instead.")


@dataclass(frozen=True)
class Pool:
    """``items[query][item]`` = the runs (in the order given) whose first ``depth`` items hold it."""

    depth: int
    runs: tuple[str, ...]
    items: dict[str, dict[str, list[str]]]

    @property
    def size(self) -> int:
        """How many (query, item) pairs the pool holds."""
        return sum(len(v) for v in self.items.values())

    def to_qrels_text(self) -> str:
        """TREC qrels lines without grades (``query 0 item``), queries and items in text order.

        An id holding a blank or a control character cannot be written as a field of such a line (it
        would split it, or change what it reads as): refused with the id; the CSV form keeps it.
        """
        for q in sorted(self.items):
            for text in (q, *self.items[q]):
                if any(c.isspace() or ord(c) < 32 or ord(c) == 127 for c in text):
                    raise InputError(f"the id {text[:200]!r} holds a blank or a control character and cannot be "
                                     "written as a TREC qrels field: write the pool as CSV (--format csv)")
        return "".join(f"{q} 0 {d}\n" for q in sorted(self.items) for d in sorted(self.items[q]))

    def rows(self) -> list[tuple[str, str, int, str]]:
        """(query, item, number of runs, the runs joined by ``;``) per pooled pair, in text order."""
        return [(q, d, len(rs), ";".join(rs)) for q in sorted(self.items) for d, rs in sorted(self.items[q].items())]


def pool(runs: Mapping[str, Any] | Sequence[Any], *, depth: int = 100, method: str = "depth",
         **fusion: Any) -> Pool:
    """The pool of ``runs`` (a dict of names to runs, or a list; anything :func:`rankmeter.read_run`
    accepts). ``method``: ``"depth"`` (the union of every run's first ``depth`` items), or a fusion
    method of :func:`rankmeter.fusion.fuse` (``"rrf"``, ``"sum"``, ...; ``fusion`` holds its other
    arguments): the first ``depth`` items of the fused run, each listed with the runs that
    retrieved it anywhere in their rankings.

    >>> pool({"x": {"q": ["a", "b", "c"]}, "y": {"q": ["c", "d"]}}, depth=2, method="rrf").items["q"]
    {'a': ['x'], 'c': ['x', 'y']}
    """
    _check_depth(depth)
    named = _named(runs)
    if method != "depth":
        from ..fusion import fuse

        fused = fuse(named, method, **fusion).to_lists()
        tops_all = _tops(named, 1 << 62)
        items_f: dict[str, dict[str, list[str]]] = {}
        for q, ranked in fused.items():
            items_f[q] = {d: [n for n in named if d in set(tops_all[n].get(q, ()))] for d in ranked[:depth]}
        return Pool(depth, tuple(named), {q: dict(sorted(v.items())) for q, v in items_f.items()})
    if fusion:
        raise ParameterError(f"pool(method='depth') takes no fusion arguments. Got {', '.join(fusion)}.")
    tops = _tops(named, depth)
    items: dict[str, dict[str, list[str]]] = {}
    for name, per_query in tops.items():
        for q, top in per_query.items():
            slot = items.setdefault(q, {})
            for d in top:
                slot.setdefault(d, []).append(name)
    return Pool(depth, tuple(named), {q: dict(sorted(v.items())) for q, v in items.items()})


@dataclass(frozen=True)
class PoolBias:
    """The leave-one-run-out test: ``by_run`` one row per (run, metric) with ``full`` and ``reduced``
    (the mean on the whole judgments and on the judgments without the run's unique items), ``change``
    (reduced - full), ``rank_full``, ``rank_reduced``, ``unique`` (judged items only this run
    pooled) and ``unique_relevant``; ``summary`` per metric: the mean and largest absolute change and
    the largest rank drop."""

    depth: int
    by_run: "pd.DataFrame"
    summary: "pd.DataFrame"


def _rank(value: float, others: Iterable[float], higher: bool) -> int:
    """1 + the number of other runs strictly better than ``value``."""
    return 1 + sum(1 for o in others if (o > value if higher else o < value))


def pool_bias(qrels: Any, runs: Mapping[str, Any] | Sequence[Any], metrics: str | Iterable[Any], *,
              depth: int = 100, **options: Any) -> PoolBias:
    """Leave-one-run-out over ``runs`` with the pool of depth ``depth`` (see the module's docstring).

    ``options`` go to :func:`rankmeter.evaluate` (``queries``, ``judged_only``...). The reduced
    evaluation keeps the queries that counted on the whole judgments, so a query that loses all its
    relevant items scores 0 instead of leaving the mean.
    """
    import pandas as pd

    from ..evaluate import evaluate
    from ..io import as_qrels
    from ..metrics.registry import parse_metric

    _check_depth(depth)
    named = _named(runs)
    judged = as_qrels(qrels).to_dict()
    p = pool(named, depth=depth)
    full = {name: evaluate(judged, r, metrics, **options) for name, r in named.items()}
    keys = list(next(iter(full.values())).mean)
    rows = []
    for name, r in named.items():
        unique = {(q, d) for q, items in p.items.items() for d, rs in items.items() if rs == [name]}
        removed = {(q, d) for q, d in unique if d in judged.get(q, {})}
        reduced_qrels = {q: {d: g for d, g in items.items() if (q, d) not in removed} for q, items in judged.items()}
        # the same queries as on the whole judgments: one that loses its relevant items scores 0 there
        reduced = evaluate(reduced_qrels, r, metrics, **{**options, "queries": list(full[name].queries)})
        for k in keys:
            higher = parse_metric(k).spec.higher_is_better
            others = [full[o].mean[k] for o in named if o != name]
            rows.append({"run": name, "metric": k, "full": full[name].mean[k], "reduced": reduced.mean[k],
                         "change": reduced.mean[k] - full[name].mean[k],
                         "rank_full": _rank(full[name].mean[k], others, higher),
                         "rank_reduced": _rank(reduced.mean[k], others, higher),
                         "unique": len(removed),
                         "unique_relevant": sum(1 for q, d in removed if judged[q][d] > 0)})
    by_run = pd.DataFrame(rows, columns=["run", "metric", "full", "reduced", "change", "rank_full", "rank_reduced",
                                         "unique", "unique_relevant"])
    summary = (by_run.assign(abs_change=by_run["change"].abs(), rank_drop=by_run["rank_reduced"] - by_run["rank_full"])
               .groupby("metric", sort=False)
               .agg(mean_change=("change", "mean"), mean_abs_change=("abs_change", "mean"),
                    max_abs_change=("abs_change", "max"), max_rank_drop=("rank_drop", "max")))
    return PoolBias(depth, by_run, summary)
