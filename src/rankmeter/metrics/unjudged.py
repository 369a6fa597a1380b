"""Bounds for unjudged items: the smallest and largest value a metric can take over every completion of
the judgments.

A *completion* judges every retrieved unjudged item of a query: not relevant (grade 0), or relevant at
grade ``g`` (``evaluate(..., unjudged="bounds", unjudged_grade=g)``; by default the query's highest
judged grade, or the judgments' highest grade for a query with no relevant judgment). Items neither
retrieved nor judged are outside the bounds' scope: they stay as they are.

Why a pass over the number of items made relevant suffices. nDCG, AP, R-precision, recall and bpref
are not monotone in the judgments: an item made relevant low in the ranking raises the ideal (or the
number of relevant items) more than the gain, so the ends are not simply "all unjudged not relevant"
and "all relevant". But for a *fixed number* ``m`` of items made relevant, the ideal ranking, the
number of relevant and of judged non-relevant items are fixed, and every supported metric never
decreases when a relevant item trades places with a non-relevant one ranked above it (the swap
property: P, R, AP, RR, DCG, nDCG, R-precision, RBP, ERR, success and bpref all have it). Any choice
of ``m`` unjudged positions turns into "the first ``m`` unjudged positions" by such upward swaps and
into "the last ``m``" by downward ones, so for each ``m`` the top-``m`` choice is the largest value and
the bottom-``m`` choice the smallest. The bounds are the extremes over ``m = 0 .. u`` (``u`` unjudged
retrieved items): ``2 (u + 1)`` evaluations instead of ``2^u``. For a metric with a cutoff ``k`` only
the first ``k`` rows are materialised; the items made relevant below ``k`` enter the judgments alone.

Every unjudged item is judged in a completion, so bpref (which ignores unjudged items) can lie outside
its own bounds: the bounds are over judged completions. RBP's high end is ``rbp + residual - p^d``.

>>> from .batch import Batch
>>> from .registry import parse_metric
>>> # a relevant, x judged not relevant, u unjudged: AP is 1 as judged, 5/6 with u relevant (R grows)
>>> b = Batch.from_lists([["a", "x", "u"]], [{"a": 1, "x": 0}])
>>> low, high = unjudged_extremes(b, parse_metric("ap"), grades=np.array([1.0]))
>>> round(float(low[0]), 4), round(float(high[0]), 4)
(0.8333, 1.0)
"""

from __future__ import annotations

from typing import Iterable

import numpy as np

from .._errors import ParameterError
from . import _segments as S
from .batch import Batch
from .registry import Metric

__all__ = ["UNJUDGED_MODES", "check_unjudged", "query_grades", "supports_bounds", "unjudged_extremes"]

UNJUDGED_MODES = ("ignore", "bounds")

#: rows of completions materialised at once (about 100 MB of row arrays)
_ROW_BUDGET = 4_000_000


def supports_bounds(m: Metric) -> bool:
    """Whether the registry declares unjudged bounds for this metric with these parameters.

    >>> from .registry import parse_metric
    >>> supports_bounds(parse_metric("ndcg@10")), supports_bounds(parse_metric("judged@10"))
    (True, False)
    """
    if m.spec.level != "query" or not m.spec.unjudged_bounds:
        return False
    return all(m.params.get(p) not in bad for p, bad in m.spec.unjudged_except.items())


def check_unjudged(metrics: Iterable[Metric], unjudged: object, grade: object, *, ties: str = "id",
                   func: str = "evaluate") -> None:
    """Refuse, up front and by name, a mode or a metric the bounds do not cover."""
    if not isinstance(unjudged, str) or unjudged not in UNJUDGED_MODES:
        raise ParameterError(f"The 'unjudged' parameter of {func} must be 'ignore' or 'bounds'. Got {unjudged!r} "
                             "instead.")
    if grade is not None and (isinstance(grade, bool) or not isinstance(grade, (int, float))
                              or not np.isfinite(grade) or grade <= 0):
        raise ParameterError(f"The 'unjudged_grade' parameter of {func} must be a number > 0 or None. Got {grade!r} "
                             "instead.")
    if unjudged == "ignore":
        if grade is not None:
            raise ParameterError(f"The 'unjudged_grade' parameter of {func} applies with unjudged='bounds' only")
        return
    if ties != "id":
        raise ParameterError(f"unjudged='bounds' works with the id tie rule only; got ties={ties!r} as well")
    bad = [m.text for m in metrics if not supports_bounds(m)]
    if bad:
        ok = "P, R, F?, AP, RR, nDCG/DCG, R-precision, RBP, ERR, success and bpref"
        raise ParameterError(f"unjudged='bounds' is not defined for {', '.join(bad)} (bounds cover {ok})")


def query_grades(batch: Batch, grade: float | None, top: float) -> np.ndarray:
    """The grade ``g`` of each query's completions: ``grade`` when given, else the query's highest
    judged grade, or ``top`` (the judgments' highest grade) for a query with no relevant judgment."""
    n = batch.n_queries
    if grade is not None:
        return np.full(n, float(grade))
    first = batch.qrel_offsets[:-1]
    has = np.diff(batch.qrel_offsets) > 0
    best = np.full(n, -np.inf)
    best[has] = batch.qrel_grade[first[has]]  # qrel_grade is sorted descending within each query
    return np.where(best > 0, best, top if top > 0 else 1.0)


def _plan(batch: Batch, k: int | None) -> tuple[np.ndarray, ...]:
    """Per query: kept rows L, unjudged rows in the kept part (u_t) and below it (u_b)."""
    lengths = batch.lengths
    kept = lengths if k is None else np.minimum(lengths, k)
    unj = ~batch.matched
    pos = batch.pos
    u_all = S.seg_sum(unj, batch.offsets).astype(np.int64)
    u_top = S.seg_sum(unj & (pos <= kept[np.repeat(np.arange(batch.n_queries), lengths)]), batch.offsets)
    u_top = u_top.astype(np.int64)
    return kept.astype(np.int64), u_top, u_all - u_top


def unjudged_extremes(batch: Batch, metric: Metric, grades: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per query, the smallest and largest value of ``metric`` over every completion (module docstring).

    ``batch``: the rankings as evaluated (after ``depth`` / ``judged_only``), whole (not cut at the
    metric's cutoff); ``grades``: each query's grade ``g`` (:func:`query_grades`).
    """
    kept, u_top, u_below = _plan(batch, metric.k)
    n = batch.n_queries
    per_query_rows = 2 * (u_top + u_below + 1) * np.maximum(kept, 1)
    low = np.empty(n)
    high = np.empty(n)
    start = 0
    while start < n:  # blocks of queries within the row budget (at least one query each)
        total = np.cumsum(per_query_rows[start:])
        stop = start + max(1, int(np.searchsorted(total, _ROW_BUDGET, side="right")))
        lo, hi = _block(batch, metric, grades, kept, u_top, u_below, start, stop)
        low[start:stop], high[start:stop] = lo, hi
        start = stop
    return low, high


def _block(batch: Batch, metric: Metric, grades: np.ndarray, kept: np.ndarray, u_top: np.ndarray,
           u_below: np.ndarray, start: int, stop: int) -> tuple[np.ndarray, np.ndarray]:
    qs = np.arange(start, stop)
    u = u_top[qs] + u_below[qs]
    n_comp = 2 * (u + 1)  # per query: m = 0..u, first the top-m choices, then the bottom-m ones
    comp_q = np.repeat(qs, n_comp)
    idx_in_q = np.arange(len(comp_q)) - np.repeat(np.cumsum(n_comp) - n_comp, n_comp)
    bottom = idx_in_q > u[comp_q - start]
    m = np.where(bottom, idx_in_q - (u[comp_q - start] + 1), idx_in_q)
    ut, ub = u_top[comp_q], u_below[comp_q]
    # how many of the kept part's unjudged rows are made relevant, and how many rows below the cut
    in_top = np.where(bottom, np.maximum(0, m - ub), np.minimum(m, ut))
    # the rows of each completion: the query's kept rows
    lens = kept[comp_q]
    offsets = np.concatenate(([0], np.cumsum(lens))).astype(np.int64)
    rows_q = np.repeat(comp_q, lens)
    within = np.arange(int(offsets[-1]), dtype=np.int64) - np.repeat(offsets[:-1], lens)
    src = batch.offsets[rows_q] + within
    grade = batch.grade[src].copy()
    matched = batch.matched[src].copy()
    unj = ~matched
    # rank of each unjudged kept row among the query's unjudged kept rows (0-based)
    unj_rank = S.seg_count_cumsum(unj, offsets) - 1
    comp_of_row = np.repeat(np.arange(len(comp_q)), lens)
    t = in_top[comp_of_row]
    first = np.where(bottom[comp_of_row], ut[comp_of_row] - t, 0)  # bottom: the last t of the kept ones
    made = unj & (unj_rank >= first) & (unj_rank < first + t)
    g = grades[rows_q]
    grade[unj] = 0.0
    grade[made] = g[made]
    matched[:] = True  # every retrieved item is judged in a completion (0 or g)
    # the judgments: the query's own, plus each completed item (kept rows and those below the cut)
    jq = batch.qrel_offsets
    own = (jq[comp_q + 1] - jq[comp_q]).astype(np.int64)
    extra_zero = (ut + ub) - m
    qlen = own + m + extra_zero
    q_offsets = np.concatenate(([0], np.cumsum(qlen))).astype(np.int64)
    q_grade = np.empty(int(q_offsets[-1]))
    comp_of_q = np.repeat(np.arange(len(comp_q)), qlen)
    within_q = np.arange(len(q_grade), dtype=np.int64) - np.repeat(q_offsets[:-1], qlen)
    is_own = within_q < own[comp_of_q]
    q_grade[is_own] = batch.qrel_grade[jq[comp_q[comp_of_q[is_own]]] + within_q[is_own]]
    is_g = ~is_own & (within_q < own[comp_of_q] + m[comp_of_q])
    q_grade[is_g] = grades[comp_q[comp_of_q[is_g]]]
    q_grade[~is_own & ~is_g] = 0.0
    context = dict(batch.context)
    if "max_grade" in context and len(grades):  # err's normaliser: a completion may grade above the judgments
        context["max_grade"] = max(float(context["max_grade"]), float(np.max(grades[qs])))
    completed = Batch.build(offsets=offsets, grade=grade, matched=matched, score=batch.score[src],
                            item=batch.item[src], qrel_offsets=q_offsets, qrel_grade=q_grade,
                            context=context)
    values = np.asarray(metric.spec.kernel(completed.cut(metric.k), **metric.params), dtype=np.float64)
    firsts = (np.cumsum(n_comp) - n_comp).astype(np.int64)
    with np.errstate(invalid="ignore"):
        lo = np.fmin.reduceat(values, firsts) if len(values) else np.zeros(0)
        hi = np.fmax.reduceat(values, firsts) if len(values) else np.zeros(0)
    return lo, hi
