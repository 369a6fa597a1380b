"""Per-query agreement between two runs: RBO, tau_AP and Kendall's tau, query by query.

A measure is written ``name(param=value, ...)@k``:

- ``rbo(p=0.9)`` the extrapolated RBO (``rbo_min``, ``rbo_max``, ``rbo_res``: the
  lower bound, upper bound and residual); ``ties=a|b|w`` reads equal scores as
  ties (Corsi & Urbano's variants) instead of breaking them by the tie rule;
- ``tau_ap`` (``symmetric=true`` for the mean of both directions; run A is the reference);
- ``kendall`` (``variant=b|a|c``).

``@k`` cuts both rankings to their first ``k`` items first. Each query's rankings
are the runs' rankings in rank order (:mod:`rankmeter.data.order`'s tie rule).
tau_AP and Kendall's tau need the same items in both rankings: they are computed
on the items both runs retrieved for the query (each list keeps its order), and
the number of such items is reported per query (``common``); with fewer than 2
common items they are undefined (NaN, counted in ``notes``). Queries found in one
run only are counted and listed in ``notes``; the means are over the queries of
both runs where the measure is defined.

>>> a = {"q1": ["d1", "d2", "d3"], "q2": ["d4", "d5"]}
>>> b = {"q1": ["d2", "d1", "d3"], "q3": ["d9"]}
>>> res = overlap_runs(a, b, ["rbo(p=0.9)", "tau_ap"])
>>> res.queries, res.values["rbo(p=0.9)"].round(6).tolist(), res.values["tau_ap"].tolist()
(['q1'], [0.9], [0.0])
>>> res.notes
['1 query only in run A (q2)', '1 query only in run B (q3)']
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from typing import Any, Sequence

import numpy as np

from .._errors import MetricNameError, ParameterError
from .._params import parse_bool, parse_int, parse_number

__all__ = ["OverlapMeasure", "OverlapResult", "parse_overlap_measure", "overlap_runs", "MEASURES"]

MEASURES = {
    "rbo": "extrapolated rank-biased overlap (Webber et al. 2010, eq. 32)",
    "rbo_min": "RBO lower bound",
    "rbo_max": "RBO upper bound",
    "rbo_res": "RBO residual (upper - lower bound)",
    "tau_ap": "AP correlation (Yilmaz et al. 2008), run A as the reference",
    "kendall": "Kendall's tau of the common items' ranks",
}
_PARAMS = {
    "rbo": {"p", "ties"}, "rbo_min": {"p", "ties"}, "rbo_max": {"p", "ties"}, "rbo_res": {"p", "ties"},
    "tau_ap": {"symmetric"}, "kendall": {"variant"},
}
_TEXT = re.compile(r"^\s*([A-Za-z_]+)\s*(?:\((.*)\))?\s*(?:@\s*(\S+))?\s*$")


@dataclass(frozen=True)
class OverlapMeasure:
    """A parsed measure: ``name``, its parameters and the depth ``k`` (None: whole rankings)."""

    text: str
    name: str
    params: dict[str, Any] = field(default_factory=dict)
    k: int | None = None

    @property
    def is_rbo(self) -> bool:
        return self.name.startswith("rbo")


def parse_overlap_measure(text: str) -> OverlapMeasure:
    """``"rbo(p=0.8, ties=a)@10"`` -> an :class:`OverlapMeasure` (names and values checked)."""
    m = _TEXT.match(str(text))
    name = m.group(1).lower() if m else ""
    if not m or name not in MEASURES:
        raise MetricNameError(f"unknown agreement measure {text!r}; expected one of {', '.join(MEASURES)} "
                              "(e.g. 'rbo(p=0.9)', 'tau_ap', 'kendall@10')")
    params: dict[str, Any] = {}
    body = (m.group(2) or "").strip()
    for part in filter(None, (x.strip() for x in body.split(","))):
        if "=" not in part:
            raise MetricNameError(f"measure {text!r}: parameter {part!r} must be written name=value")
        key, value = (x.strip() for x in part.split("=", 1))
        if key not in _PARAMS[name]:
            raise ParameterError(f"{name} has no parameter {key!r} (it takes: {', '.join(sorted(_PARAMS[name]))})")
        if key == "p":
            params[key] = parse_number("p", value, func=name)
            if not 0 < params[key] < 1:
                raise ParameterError(f"The 'p' parameter of {name} must be a number in the range (0, 1). "
                                     f"Got {value!r} instead.")
        elif key == "ties":
            if value not in ("a", "b", "w"):
                raise ParameterError(f"The 'ties' parameter of {name} must be one of a, b, w. Got {value!r} instead.")
            params[key] = value
        elif key == "symmetric":
            params[key] = parse_bool("symmetric", value, func=name)
        elif key == "variant":
            if value not in ("a", "b", "c"):
                raise ParameterError(f"The 'variant' parameter of {name} must be one of a, b, c. "
                                     f"Got {value!r} instead.")
            params[key] = value
    k = parse_int("k", m.group(3), func=name, low=1) if m.group(3) is not None else None
    if name.startswith("rbo"):
        params.setdefault("p", 0.9)
    return OverlapMeasure(str(text).strip(), name, params, k)


@dataclass
class OverlapResult:
    """Per-query values of each measure over the queries of both runs (``queries``), the number of
    common items per query (``common``), the means and what was left out (``notes``)."""

    queries: list[str]
    values: dict[str, np.ndarray]
    common: np.ndarray
    only_a: list[str]
    only_b: list[str]
    notes: list[str]

    @property
    def mean(self) -> dict[str, float]:
        """Mean over the queries where the measure is defined (NaN if none)."""
        out = {}
        for m, v in self.values.items():
            ok = v[~np.isnan(v)]
            out[m] = float(np.mean(ok)) if len(ok) else float("nan")
        return out

    def defined(self, measure: str) -> int:
        return int(np.sum(~np.isnan(self.values[measure])))

    def to_dict(self, per_query: bool = False) -> dict[str, Any]:
        def num(x: float) -> float | None:
            return None if math.isnan(x) else float(x)

        out: dict[str, Any] = {
            "queries": len(self.queries),
            "mean": {m: num(v) for m, v in self.mean.items()},
            "defined": {m: self.defined(m) for m in self.values},
            "only_a": len(self.only_a), "only_b": len(self.only_b), "notes": list(self.notes),
        }
        if per_query:
            out["per_query"] = {q: {**{m: num(float(v[i])) for m, v in self.values.items()},
                                    "common": int(self.common[i])} for i, q in enumerate(self.queries)}
        return out


def _rankings(run: Any, name: str, with_scores: bool) -> dict[str, tuple[list[str], np.ndarray | None]]:
    from ..data import Run
    from ..io import as_run

    r = run if isinstance(run, Run) else as_run(run, source=name)
    qids, items = r.query_ids.to_pylist(), r.item_rows.to_pylist()
    out = {}
    for q in range(r.n_queries):
        a, b = int(r.offsets[q]), int(r.offsets[q + 1])
        out[str(qids[q])] = (items[a:b], r.scores[a:b] if with_scores else None)
    return out


def _examples(items: Sequence[str], k: int = 3) -> str:
    return ", ".join(items[:k]) + (", ..." if len(items) > k else "")


def _one(m: OverlapMeasure, la: list[str], sa: np.ndarray | None, lb: list[str], sb: np.ndarray | None) -> float:
    from ..metrics.agreement import kendall_tau_rankings, rbo, tau_ap, tie_groups

    if m.k is not None:
        la, lb = la[: m.k], lb[: m.k]
        sa = sa[: m.k] if sa is not None else None
        sb = sb[: m.k] if sb is not None else None
    if m.is_rbo:
        ties = m.params.get("ties")
        if ties is not None and sa is not None and sb is not None:
            ra, rb = tie_groups(la, sa), tie_groups(lb, sb)
        else:
            ra, rb = la, lb
        r = rbo(ra, rb, p=m.params["p"], ties=ties)
        return {"rbo": r.ext, "rbo_min": r.min, "rbo_max": r.max, "rbo_res": r.res}[m.name]
    both = set(la) & set(lb)
    ca, cb = [x for x in la if x in both], [x for x in lb if x in both]
    if len(ca) < 2:
        return float("nan")
    if m.name == "tau_ap":
        return tau_ap(ca, cb, symmetric=m.params.get("symmetric", False))
    return kendall_tau_rankings(ca, cb, variant=m.params.get("variant", "b"))


def overlap_runs(run_a: Any, run_b: Any, measures: Sequence[Any], *, names: tuple[str, str] = ("run A", "run B"),
                 queries: Sequence[str] | None = None) -> OverlapResult:
    """Per-query agreement of two runs (anything :func:`rankmeter.io.as_run` accepts) on ``measures``.

    ``queries``: restrict to these query ids (those missing from a run are counted
    as in one run only).
    """
    parsed = [m if isinstance(m, OverlapMeasure) else parse_overlap_measure(m) for m in measures]
    if not parsed:
        raise MetricNameError("no agreement measure given (e.g. 'rbo(p=0.9)', 'tau_ap')")
    texts = [m.text for m in parsed]
    dup = sorted({t for t in texts if texts.count(t) > 1})
    if dup:
        raise ParameterError(f"measure {dup[0]!r} is given twice")
    with_scores = any(m.params.get("ties") for m in parsed)
    A = _rankings(run_a, names[0], with_scores)
    B = _rankings(run_b, names[1], with_scores)
    wanted = list(A) + [q for q in B if q not in A] if queries is None else [str(q) for q in queries]
    both = [q for q in wanted if q in A and q in B]
    only_a = [q for q in wanted if q in A and q not in B]
    only_b = [q for q in wanted if q in B and q not in A]
    notes = []
    if only_a:
        notes.append(f"{len(only_a)} {'query' if len(only_a) == 1 else 'queries'} only in {names[0]} "
                     f"({_examples(only_a)})")
    if only_b:
        notes.append(f"{len(only_b)} {'query' if len(only_b) == 1 else 'queries'} only in {names[1]} "
                     f"({_examples(only_b)})")
    if queries is not None:
        neither = [q for q in wanted if q not in A and q not in B]
        if neither:
            notes.append(f"{len(neither)} of the given queries in neither run ({_examples(neither)})")
    values = {m.text: np.empty(len(both)) for m in parsed}
    common = np.empty(len(both), dtype=np.int64)
    for i, q in enumerate(both):
        (la, sa), (lb, sb) = A[q], B[q]
        common[i] = len(set(la) & set(lb))
        for m in parsed:
            values[m.text][i] = _one(m, la, sa, lb, sb)
    for m in parsed:
        bad = int(np.isnan(values[m.text]).sum())
        if bad:
            notes.append(f"{m.text}: undefined on {bad} {'query' if bad == 1 else 'queries'} with fewer than 2 "
                         "items in both rankings (left out of the mean)")
    if not both:
        notes.append("the runs have no query in common")
    return OverlapResult(both, values, common, only_a, only_b, notes)
