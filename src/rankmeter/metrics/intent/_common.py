"""What every intent-aware kernel shares: ranked rows matched with their subtopics, and ndeval's ideal ranking.

Notation (ndeval's, Clarke et al. 2008): a query has the set S of its *actual*
subtopics (those with at least one judgment of grade >= rel); J(d, s) = 1 when item d
is judged with grade >= rel for subtopic s; c_s(r) is the number of items at ranks
1..r relevant to s. The gain of the item at rank r is

    G(r) = sum_s J(d_r, s) (1 - alpha)^{c_s(r-1)}

(a subtopic's worth decays by 1 - alpha each time it is seen again).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping, Sequence, cast

import numpy as np

from ..._errors import InputError
from .. import _segments as S
from ..batch import Batch
from ..registry import Param
from ..subtopic_batch import BatchSubtopics

__all__ = ["ALPHA", "BETA", "REL", "EXAMPLE_JUDGMENTS", "EXAMPLE_RANKING", "BINARY", "NDEVAL", "IntentExample",
           "intent_batch", "Relevant", "relevant", "Matched", "matched",
           "row_gain", "ideal_gains", "ideal_ideal", "ideal_sum", "discounted", "depth_of", "ratio", "weights"]

REL = Param("rel", float, 1.0, doc="minimum grade for an item to count as relevant to a subtopic")
ALPHA = Param("alpha", float, 0.5, doc="redundancy penalty: a subtopic's gain shrinks by 1 - alpha each time "
              "it is seen again", low=0, high=1)
BETA = Param("beta", float, 0.5, doc="patience of NRBP's user: probability of going on to the next rank",
             low=0, high=1, low_open=True, high_open=True)


#: ndeval's documentation example, the worked example of every intent-aware metric: subtopics
#: a = {A}, b = {B, D}, c = {C}, and the ranking A, D, E, B (E unjudged).
EXAMPLE_JUDGMENTS: Mapping[str, Mapping[str, float]] = {"a": {"A": 1}, "b": {"B": 1, "D": 1}, "c": {"C": 1}}
EXAMPLE_RANKING = ("A", "D", "E", "B")
#: The conventions every intent-aware metric shares, said in each spec's convention.
BINARY = ("An item is relevant to a subtopic when its grade for it is >= rel (binary, as ndeval); only actual "
          "subtopics (with a relevant item) count")
NDEVAL = "; computed as NIST's ndeval (TREC Web track 2009-2014)."


@dataclass(frozen=True)
class IntentExample:
    """A worked example of an intent-aware metric: rankings, judgments by subtopic, the value."""

    metric: str
    ranking: tuple[str, ...]
    judgments: Mapping[str, Mapping[str, float]]  # {subtopic: {item: grade}}
    value: float
    note: str = ""
    tol: float = 1e-12


def intent_batch(rankings: Sequence[Sequence[str]],
                 judgments: Sequence[Mapping[str, Mapping[str, float]]]) -> Batch:
    """A :class:`Batch` with judgments by subtopic, from Python lists (one ranking, best first,
    and one ``{subtopic: {item: grade}}`` per query); each item's grade for the other
    metrics is its highest over its subtopics.

    >>> b = intent_batch([["d1", "d2"]], [{"s1": {"d1": 1}, "s2": {"d1": 0, "d2": 2}}])
    >>> b.grade.tolist(), b.subtopics.grade.tolist()
    ([1.0, 2.0], [2.0, 1.0, 0.0])
    """
    per_item: list[Mapping[str, float]] = []
    for per in judgments:
        best: dict[str, float] = {}
        for js in per.values():
            for i, g in js.items():
                best[i] = max(best.get(i, -np.inf), float(g))
        per_item.append(best)
    b = Batch.from_lists([list(r) for r in rankings], per_item)
    b.subtopics = BatchSubtopics.from_dicts(judgments, b.context["item_ids"])
    return b


def _subtopics(b: Batch) -> BatchSubtopics:
    if b.subtopics is None:
        raise InputError("intent-aware metrics need judgments by subtopic (query subtopic item grade, as ndeval "
                         "reads them): read the judgments with subtopics=True (CLI: --subtopics)", source="qrels")
    return b.subtopics


@dataclass(frozen=True)
class Relevant:
    """The relevant (grade >= rel) judgments of a batch, by query.

    ``query``, ``item``, ``sid`` per relevant judgment (ndeval's order: item id
    descending, then subtopic); ``sid`` numbers the (query, subtopic) pairs;
    ``n_sub`` counts each query's actual subtopics, ``n_rel_sub`` each pair's relevant items.
    """

    query: np.ndarray
    item: np.ndarray
    sid: np.ndarray
    n_sub: np.ndarray
    n_rel_sub: np.ndarray


def relevant(b: Batch, rel: float) -> Relevant:
    st = _subtopics(b)
    key = ("relevant", rel)
    if key not in st.cache:
        keep = st.grade >= rel
        nq = len(st.offsets) - 1
        query = S.row_segments(st.offsets)[keep] if len(st.grade) else np.zeros(0, dtype=np.int64)
        width = int(st.subtopic.max()) + 1 if len(st.subtopic) else 1
        pair, sid = np.unique(query * width + st.subtopic[keep], return_inverse=True)
        sid = sid.reshape(-1).astype(np.int64)
        st.cache[key] = Relevant(query=query, item=st.item[keep], sid=sid,
                                 n_sub=np.bincount(pair // width, minlength=nq).astype(np.float64),
                                 n_rel_sub=np.bincount(sid, minlength=len(pair)).astype(np.float64))
    return st.cache[key]  # type: ignore[no-any-return]  # the cache holds Any


@dataclass(frozen=True)
class Matched:
    """Ranked rows matched with their relevant subtopics: one entry per (row, subtopic) pair.

    ``row`` (a row of the batch), ``sid`` (the (query, subtopic) pair), ``seen``: how
    many rows above it were relevant to the same subtopic (c_s(r-1)).
    """

    row: np.ndarray
    sid: np.ndarray
    seen: np.ndarray


def matched(b: Batch, rel: float) -> Matched:
    """The (row, subtopic) pairs of a batch (cached per cut)."""
    key = ("intent_matched", rel)
    if key in b._cache:
        return b._cache[key]  # type: ignore[no-any-return]  # the cache holds Any
    r = relevant(b, rel)
    n = len(b.grade)
    width = int(max(int(r.item.max()) if len(r.item) else 0, int(b.item.max()) if n else 0)) + 1
    jkey = r.query * width + r.item
    jorder = np.argsort(jkey, kind="stable")
    sk = jkey[jorder]
    rkey = S.row_segments(b.offsets) * width + np.asarray(b.item, dtype=np.int64)
    lo = np.searchsorted(sk, rkey, side="left")
    cnt = np.searchsorted(sk, rkey, side="right") - lo
    total = int(cnt.sum())
    row = np.repeat(np.arange(n, dtype=np.int64), cnt)
    within = np.arange(total, dtype=np.int64) - np.repeat(np.cumsum(cnt) - cnt, cnt)
    sid = r.sid[jorder[np.repeat(lo, cnt) + within]]
    # pairs are in rank order within each query: a stable sort by subtopic keeps it
    order = np.argsort(sid, kind="stable")
    first = np.ones(total, dtype=bool)
    first[1:] = sid[order][1:] != sid[order][:-1]
    start = np.maximum.accumulate(np.where(first, np.arange(total), 0))
    seen = np.empty(total, dtype=np.int64)
    seen[order] = np.arange(total) - start
    out = Matched(row=row, sid=sid, seen=seen)
    b._cache[key] = out
    return out


def row_gain(b: Batch, rel: float, alpha: float) -> np.ndarray:
    """G(r) of every ranked row."""
    m = matched(b, rel)
    return np.bincount(m.row, weights=np.power(1.0 - alpha, m.seen), minlength=len(b.grade))


def ideal_gains(b: Batch, rel: float, alpha: float, depth: int | None) -> tuple[np.ndarray, np.ndarray]:
    """ndeval's greedy ideal ranking of each query: the gains G*(1), G*(2), ... (CSR: offsets, gains).

    At each rank, the item with the largest gain given the items above it; among equal
    gains the item with the larger id (UTF-8 bytes), as ndeval breaks them. Only items
    relevant to some subtopic are ranked (the others gain 0 at any rank). ``depth``
    caps the ranks computed (None: all); cached on the batch's judgments.
    """
    r = relevant(b, rel)
    st = _subtopics(b)
    nq = len(st.offsets) - 1
    key = ("ideal", rel, alpha)
    if key in st.cache:
        done, offsets, gains = st.cache[key]
        if done is None or (depth is not None and depth <= done):
            return offsets, gains
    # the distinct relevant items of each query, in judgment order (item id descending)
    n = len(r.item)
    new = np.ones(n, dtype=bool)
    new[1:] = (r.query[1:] != r.query[:-1]) | (r.item[1:] != r.item[:-1])
    unit = np.cumsum(new) - 1  # the item index of every relevant judgment
    n_units = int(new.sum())
    uquery = r.query[new]
    per_q = np.bincount(uquery, minlength=nq)
    longest = int(per_q.max()) if nq and n_units else 0
    steps = longest if depth is None else min(longest, depth)
    qs, ts, gs = [], [], []
    if steps:
        has = np.flatnonzero(per_q > 0)
        ustart = np.concatenate(([0], np.cumsum(per_q)))[has]
        useg = np.repeat(np.arange(len(has)), per_q[has])
        weight = np.ones(len(r.n_rel_sub))
        picked = np.zeros(n_units, dtype=bool)
        decay = 1.0 - alpha
        for t in range(steps):
            score = np.bincount(unit, weights=weight[r.sid], minlength=n_units)
            score[picked] = -1.0
            best = np.maximum.reduceat(score, ustart)
            live = best >= 0
            hit = np.flatnonzero((score == best[useg]) & live[useg])
            segs, first = np.unique(useg[hit], return_index=True)
            choice = hit[first]
            picked[choice] = True
            now = np.zeros(n_units, dtype=bool)
            now[choice] = True
            weight[r.sid[now[unit]]] *= decay  # each chosen item's subtopics are seen once more
            qs.append(has[segs])
            ts.append(np.full(len(segs), t, dtype=np.int64))
            gs.append(best[segs])
    q = np.concatenate(qs) if qs else np.zeros(0, dtype=np.int64)
    step_of = np.concatenate(ts) if ts else np.zeros(0, dtype=np.int64)
    g = np.concatenate(gs) if gs else np.zeros(0)
    order = np.lexsort((step_of, q))
    offsets = np.concatenate(([0], np.cumsum(np.bincount(q, minlength=nq)))).astype(np.int64)
    gains = g[order]
    st.cache[key] = (None if steps == longest else steps, offsets, gains)
    return offsets, gains


def discounted(b: Batch, rel: float, alpha: float, discount: str) -> np.ndarray:
    """sum over the ranked rows of G(r) w(r), w the rank discount (``log2`` or ``reciprocal``)."""
    return b.seg_sum(row_gain(b, rel, alpha) * weights(b.pos.astype(np.float64), discount))


def depth_of(b: Batch) -> np.ndarray:
    """The depth each query is measured to: the cutoff k, or without one the length of its ranking."""
    return np.full(b.n_queries, b.k, dtype=np.int64) if b.k is not None else b.lengths.astype(np.int64)


def ideal_ideal(b: Batch, rel: float, alpha: float, discount: str) -> np.ndarray:
    """ndeval's collection-independent normaliser at each query's depth d:
    |S| * sum_{i<d} (1 - alpha)^i w(i+1), as if every subtopic were covered at every rank."""
    r = relevant(b, rel)
    d = depth_of(b)
    top = int(d.max()) if len(d) else 0
    ranks = np.arange(1, top + 1, dtype=np.float64)
    with np.errstate(under="ignore"):
        terms = np.power(1.0 - alpha, ranks - 1.0) * weights(ranks, discount)
    cum = np.concatenate(([0.0], np.cumsum(terms)))
    return cast(np.ndarray, r.n_sub * cum[d])


def weights(ranks: np.ndarray, discount: str) -> np.ndarray:
    """The rank discount: ``log2`` (alpha-nDCG: 1 / log2(r + 1)) or ``reciprocal`` (ERR-IA: 1 / r)."""
    return 1.0 / np.log2(ranks + 1.0) if discount == "log2" else 1.0 / ranks


def ideal_sum(b: Batch, rel: float, alpha: float, discount: str, beta: float | None = None) -> np.ndarray:
    """sum over ranks of the ideal ranking of G*(i) w(i): to the cutoff k, or without one over the
    whole ideal ranking; w is the discount, or beta^(i-1) for NRBP."""
    depth = b.k
    offsets, gains = ideal_gains(b, rel, alpha, depth)
    rank = S.positions(offsets).astype(np.float64)
    keep = np.ones(len(gains), dtype=bool) if depth is None else rank <= depth
    if beta is not None:
        with np.errstate(under="ignore"):
            w = np.power(beta, rank - 1.0)
    else:
        w = weights(rank, discount)
    return S.seg_sum(np.where(keep, gains * w, 0.0), offsets)


def ratio(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    """num / den, 0 where den is 0 (a query without any actual subtopic)."""
    out = np.zeros(len(num))
    ok = den > 0
    out[ok] = num[ok] / den[ok]
    return out

