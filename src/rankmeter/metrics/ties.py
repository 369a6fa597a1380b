"""Tied scores: the groups of rows a score ties, and the tie rules other than the id rule.

A run ranked by score puts equal scores in item-id order (:mod:`rankmeter.data.order`,
trec_eval's rule: the ``id`` rule, the default). Other tools do otherwise, so
``evaluate(..., ties=...)`` offers:

``average``
    the expected value of the metric over the orders of each tied group, every order
    equally likely, in closed form (McSherry and Najork, *Computing Information
    Retrieval Performance Measures Efficiently in the Presence of Tied Scores*, ECIR
    2008, doi:10.1007/978-3-540-78646-7_38), as scikit-learn's ``ndcg_score`` and
    torchmetrics compute nDCG. A metric offers it by declaring ``tie_average``, a
    kernel that reads a :class:`TieView`.
``optimistic`` / ``pessimistic``
    each tied group sorted by grade descending / ascending (then by the id rule). For
    the metrics that never decrease when a better-graded item moves up (declared in
    ``MetricSpec.ties``) these are the largest and the smallest value over the
    orders of the tied groups.
``bounds``
    the id rule's values, and beside them the pessimistic and optimistic ones
    (``result.tie_bounds``).

Groups are maximal runs of equal scores within a query, found on the rows in rank
order; a cutoff (or ``depth``) may cut through a group, and that is where the rule
matters.

>>> import numpy as np
>>> from .batch import Batch
>>> b = Batch.from_lists([["a", "b", "c"]], [{"c": 1}], scores=[[1.0, 1.0, 0.5]])
>>> g = tie_groups(b)
>>> g.size.tolist(), g.before.tolist()
([2, 1], [0, 2])
>>> reorder(b, "optimistic").grade.tolist() == b.grade.tolist()  # c is alone in its group
True
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Iterable

import numpy as np

from .._errors import ParameterError
from . import _segments as S
from .batch import Batch
from .registry import Metric

__all__ = ["TIE_MODES", "ORDER_MODES", "TieGroups", "TieView", "tie_groups", "reorder", "hypergeom_none",
           "first_hit_reciprocal", "supports", "check_ties"]

TIE_MODES = ("id", "average", "optimistic", "pessimistic", "bounds")
ORDER_MODES = ("optimistic", "pessimistic")  # modes that are one definite order per query


def supports(m: Metric, mode: str) -> bool:
    """Whether the registry declares the tie rule ``mode`` for this metric with these parameters.

    >>> from .registry import parse_metric
    >>> supports(parse_metric("ndcg@10"), "average"), supports(parse_metric("ap(norm=retrieved)"), "average")
    (True, False)
    >>> supports(parse_metric("err@10"), "bounds"), supports(parse_metric("err@10"), "average")
    (True, False)
    """
    if mode == "id":
        return True
    if m.spec.level != "query":
        return False
    for need in (ORDER_MODES if mode == "bounds" else (mode,)):
        if need not in m.spec.ties:
            return False
        for pname, bad in m.spec.ties_except.get(need, {}).items():
            if m.params.get(pname) in bad:
                return False
    return True


def check_ties(metrics: Iterable[Metric], ties: Any, *, order: str = "score", depth: int | None = None,
               judged_only: bool = False, func: str = "evaluate", option: str = "ties") -> None:
    """Refuse, up front and by name, a tie rule the registry does not declare for a metric.

    >>> from .registry import parse_metrics
    >>> try:
    ...     check_ties(parse_metrics(["ndcg@10", "err@10", "bpref"]), "average")
    ... except ParameterError as e:
    ...     print(str(e)[:60])
    ties='average' is not defined for err@10, bpref: it is defin
    """
    if ties not in TIE_MODES:
        raise ParameterError(f"The {option!r} parameter of {func} must be one of {', '.join(map(repr, TIE_MODES))}. "
                             f"Got {ties!r} instead.")
    if ties == "id":
        return
    if order == "rank":
        raise ParameterError(f"{option}={ties!r} applies to runs ranked by score (order='score'); with order='rank' "
                             "the rank column orders the items and there are no tied scores to break")
    if ties == "average" and depth is not None and judged_only:
        raise ParameterError(f"{option}='average' with both depth and judged_only is not defined (which tied items "
                             "the depth keeps decides which judged ones remain); give one of them")
    metrics = list(metrics)
    bad = [m for m in metrics if not supports(m, ties)]
    if bad:
        from .registry import all_specs

        offered = sorted(s.name for s in all_specs() if supports_spec(s, ties))
        why = " (McSherry and Najork's closed forms)" if ties == "average" else (
            " (metrics that never fall when a better-graded item moves up)")
        names = ", ".join(m.text for m in bad)
        raise ParameterError(f"{option}={ties!r} is not defined for {names}: it is defined for {', '.join(offered)}"
                             f"{why}; evaluate those metrics with {option}='id' in a separate call")


def supports_spec(spec: Any, mode: str) -> bool:
    """Whether a metric (some parameter values aside) supports the tie rule ``mode``."""
    need = ORDER_MODES if mode == "bounds" else (mode,)
    return spec.level == "query" and all(x in spec.ties for x in need)


@dataclass(frozen=True)
class TieGroups:
    """The tied groups of a batch's rows (rank order): per row its group, per group where it is.

    ``gid`` (per row) the group's index; per group: ``start`` its first row, ``size``
    its rows, ``before`` the rows of its query above it, ``query`` its query.
    """

    gid: np.ndarray
    start: np.ndarray
    size: np.ndarray
    before: np.ndarray
    query: np.ndarray

    def mean(self, x: np.ndarray) -> np.ndarray:
        """Per row, the mean of ``x`` over the row's group (what any order puts at that position on average)."""
        total = np.bincount(self.gid, weights=np.asarray(x, dtype=np.float64), minlength=len(self.size))
        return (total / self.size)[self.gid]  # type: ignore[no-any-return]  # numpy's stubs type this as Any

    def count(self, flags: np.ndarray) -> np.ndarray:
        """Per group, the number of rows where ``flags`` holds."""
        return np.bincount(self.gid, weights=np.asarray(flags, dtype=np.float64),
                           minlength=len(self.size))


def tie_groups(b: Batch, scored: bool = True) -> TieGroups:
    """The groups of equal scores of each query (``scored=False``: every row its own group,
    for rankings given in an explicit order, which have no ties)."""
    n = len(b.score)
    new = np.ones(n, dtype=bool)
    if scored and n > 1:
        new[1:] = b.score[1:] != b.score[:-1]
    starts_q = b.offsets[:-1][b.lengths > 0]
    new[starts_q] = True
    start = np.flatnonzero(new)
    gid = np.cumsum(new) - 1
    size = np.diff(np.append(start, n))
    query = np.searchsorted(b.offsets, start, side="right") - 1
    before = start - b.offsets[query]
    return TieGroups(gid=gid, start=start, size=size, before=before, query=query)


def reorder(b: Batch, mode: str, scored: bool = True) -> Batch:
    """The batch with each tied group sorted by grade, descending (``optimistic``) or
    ascending (``pessimistic``), equal grades kept in the id rule's order."""
    if not scored or len(b.grade) < 2:
        return b
    g = tie_groups(b)
    if len(g.size) == len(b.grade):
        return b
    key = -b.grade if mode == "optimistic" else b.grade
    perm = np.lexsort((np.arange(len(b.grade)), key, g.gid))
    if bool((perm == np.arange(len(perm))).all()):
        return b
    return replace(b, _cuts={}, _cache={}, _source=None, grade=b.grade[perm], judged=b.judged[perm],
                   score=b.score[perm], item=b.item[perm])


class TieView:
    """What an average kernel reads: the batch the id rule's kernel would read (``b``: restricted
    and cut), and the whole rankings (``full``) with their tied groups, the cutoff ``limit``
    (the smaller of the metric's k and the evaluation's depth; None: whole rankings).

    The closed forms all rest on one fact: in a uniformly random order of a group of n
    rows, each position holds each row with probability 1/n, and, given that one
    position holds a given row, the other positions hold the other n - 1 rows uniformly.
    """

    def __init__(self, b: Batch, full: Batch, groups: TieGroups, limit: int | None) -> None:
        self.b = b
        self.full = full
        self.groups = groups
        self.limit = limit

    @property
    def n_queries(self) -> int:
        return self.b.n_queries

    def in_top(self) -> np.ndarray:
        """Row flags of ``full``: the row's position is within the cutoff."""
        if self.limit is None:
            return np.ones(len(self.full.grade), dtype=bool)
        return self.full.pos <= self.limit

    def expected_sum(self, x: np.ndarray, weight: np.ndarray | float = 1.0) -> np.ndarray:
        """Per query, the expected sum over the positions within the cutoff of ``weight(position) *
        x(item at it)``: each position holds the mean of ``x`` over its group."""
        with np.errstate(over="ignore", invalid="ignore"):
            v = self.groups.mean(x) * weight
        return self.full.seg_sum(np.where(self.in_top(), v, 0.0))

    def group_top(self) -> np.ndarray:
        """Per group, how many of its positions are within the cutoff."""
        g = self.groups
        if self.limit is None:
            return g.size
        # numpy's stubs type this as Any (the ignore below)
        return np.clip(self.limit - g.before, 0, g.size)  # type: ignore[no-any-return]

    def before_in_query(self, per_group: np.ndarray) -> np.ndarray:
        """Per group, the sum of ``per_group`` over the groups above it in its query."""
        g = self.groups
        c = np.cumsum(per_group) - per_group
        first = np.ones(len(g.size), dtype=bool)
        first[1:] = g.query[1:] != g.query[:-1]
        head = np.maximum.accumulate(np.where(first, np.arange(len(g.size)), 0))
        return c - c[head]  # type: ignore[no-any-return]  # numpy's stubs type this as Any


def hypergeom_none(n: np.ndarray, r: np.ndarray, m: np.ndarray) -> np.ndarray:
    """Probability that m rows drawn without replacement from n, r of them marked, hold no marked
    row: ``C(n - r, m) / C(n, m) = prod_{i<m} (n - r - i) / (n - i)``, an exact product.

    >>> hypergeom_none(np.array([4, 4, 3]), np.array([1, 2, 0]), np.array([2, 3, 3])).tolist()
    [0.5, 0.0, 1.0]
    """
    n, r, m = (np.asarray(a, dtype=np.int64) for a in (n, r, m))
    out = np.ones(len(n), dtype=np.float64)
    out[m > n - r] = 0.0
    todo = np.flatnonzero((m > 0) & (r > 0) & (m <= n - r))
    if not len(todo):
        return out
    lens = m[todo]
    offs = np.concatenate(([0], np.cumsum(lens)))
    i = S.positions(offs) - 1
    nn, rr = np.repeat(n[todo], lens), np.repeat(r[todo], lens)
    out[todo] = np.multiply.reduceat((nn - rr - i) / (nn - i), offs[:-1])
    return out


def first_hit_reciprocal(before: np.ndarray, n: np.ndarray, r: np.ndarray, m: np.ndarray) -> np.ndarray:
    """``E[1 / (before + J)]`` over the positions ``J <= m`` where a random order of n rows, r of
    them marked (r >= 1), puts its first marked row (0 when that is below m):
    ``P(J = j) = C(n - j, r - 1) / C(n, r)``, computed as ``r/n * prod_{i<j} (n - i - r + 1)/(n - i)``.

    >>> first_hit_reciprocal(np.array([0]), np.array([2]), np.array([1]), np.array([2])).tolist()  # (1 + 1/2) / 2
    [0.75]
    """
    before, n, r, m = (np.asarray(a, dtype=np.int64) for a in (before, n, r, m))
    lens = np.clip(np.minimum(m, n - r + 1), 0, None)
    out = np.zeros(len(n), dtype=np.float64)
    # step j over the groups that reach it, longest first (a prefix), so each group's value comes from its
    # own factors in its own order, whichever other groups share the batch (bit-identical across chunks)
    order = np.argsort(-lens, kind="stable")
    ln, nn, rr, bb = lens[order], n[order].astype(np.float64), r[order].astype(np.float64), before[order]
    prob = np.divide(rr, nn, out=np.zeros(len(nn)), where=nn > 0)  # P(J = 1)
    acc = np.zeros(len(nn))
    for j in range(1, int(ln.max(initial=0)) + 1):
        a = int(np.searchsorted(-ln, -j, side="right"))  # the groups with lens >= j
        if j > 1:  # P(J = j) = P(J = j - 1) (n - (j - 1) - r + 1) / (n - (j - 1))
            prob[:a] *= (nn[:a] - (j - 1) - rr[:a] + 1) / (nn[:a] - (j - 1))
        acc[:a] += prob[:a] / (bb[:a] + j)
    out[order] = acc
    return out
