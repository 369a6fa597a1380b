"""trec_eval's measures that rankmeter did not have, as registry entries (family ``trec``).

Each is trec_eval's definition (10.0; ``round="9.0.8"`` where 9.0.8 differs), over a
:class:`~rankmeter.metrics.batch.Batch`: rows are ranked items with their grade;
an item in the judgments with a negative grade is "in the pool, not judged" (it
counts for infAP and the RBP residual), an item not in the judgments is outside
the pool. Gains are the grades (trec_eval's default gains). Kernels are vectorised
over all queries; the references below are the slow one-query definitions, and
:mod:`rankmeter.metrics.trec.engine` is trec_eval's own walk (the ``trec_eval``
command's engine), against which tests check both on integer grades.
"""

from __future__ import annotations

import math
from typing import Any, Mapping, Sequence, cast

import numpy as np

from .. import _segments as S
from ..batch import Batch
from ..ranking.ap import ap_kernel, ap_reference
from ..ranking.bpref import bpref_kernel, bpref_reference
from ..registry import Example, MetricSpec, Param, TrecName, register

REL = Param("rel", float, 1.0, doc="minimum grade that counts as relevant")
ROUND = Param("round", str, "10.0", "how a recall level becomes a number of relevant items: 10.0 rounds "
              "(lround(x R)), 9.0.8 truncates x R + 0.9", choices=("10.0", "9.0.8"))
INFAP_EPSILON = 0.00001
ELEVEN = (0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0)


# ------------------------------------------------------------------------------ shared pieces

def _top(ranking: Sequence[str], k: int | None) -> list[str]:
    return list(ranking if k is None else ranking[:k])


def _judged(qrels: Mapping[str, float], d: str) -> bool:
    g = qrels.get(d)
    return g is not None and g >= 0


def _is_rel(qrels: Mapping[str, float], d: str, rel: float) -> bool:
    return _judged(qrels, d) and qrels[d] >= rel


def _n_rel(qrels: Mapping[str, float], rel: float) -> int:
    return sum(1 for g in qrels.values() if g >= 0 and g >= rel)


def _gain(qrels: Mapping[str, float], d: str) -> float:
    g = qrels.get(d)
    return float(g) if g is not None and g > 0 else 0.0


def _ideal(qrels: Mapping[str, float]) -> list[float]:
    return sorted((float(g) for g in qrels.values() if g > 0), reverse=True)


def _seg_scan(values: np.ndarray, offsets: np.ndarray, op: np.ufunc, reverse: bool = False) -> np.ndarray:
    """Inclusive scan (``np.add`` / ``np.maximum``) within each segment, left to right (``reverse``: right to left).

    Sequential within each segment, as trec_eval accumulates, so a query's values
    depend only on its own rows. Segments are grouped by length (powers of two) and
    each group is scanned as the rows of a padded matrix (``op.accumulate(axis=1)``).

    >>> _seg_scan(np.array([1.0, 2.0, 3.0, 4.0, 5.0]), np.array([0, 2, 5]), np.add).tolist()
    [1.0, 3.0, 3.0, 7.0, 12.0]
    >>> _seg_scan(np.array([1.0, 3.0, 2.0]), np.array([0, 3]), np.maximum, reverse=True).tolist()
    [3.0, 3.0, 2.0]
    """
    v = np.asarray(values, dtype=np.float64)
    out = np.empty_like(v)
    lengths = np.diff(offsets)
    if len(v) == 0:
        return out
    if op is np.add and not reverse and bool(np.all(v == np.trunc(v))) and float(np.abs(v).sum()) < 2.0 ** 52:
        # whole numbers: every partial sum is exact, so one running sum less each segment's start is too
        c = np.cumsum(v)
        return cast(np.ndarray, c - np.repeat(np.concatenate(([0.0], c))[offsets[:-1]], lengths))
    if bool(np.all(lengths == lengths[0])):  # every segment as long: one matrix, no gather
        m = v.reshape(len(lengths), int(lengths[0]))
        return (op.accumulate(m[:, ::-1], axis=1)[:, ::-1] if reverse else op.accumulate(m, axis=1)).ravel()
    fill = 0.0 if op is np.add else -np.inf
    width = np.zeros(len(lengths), dtype=np.int64)
    nz = lengths > 0
    width[nz] = 1 << np.ceil(np.log2(lengths[nz])).astype(np.int64)
    for w in np.unique(width[nz]).tolist():
        segs = np.flatnonzero(width == w)
        ln = lengths[segs]
        col = np.arange(w)
        inside = col[None, :] < ln[:, None]
        src = offsets[segs][:, None] + (ln[:, None] - 1 - col[None, :] if reverse else col[None, :])
        m = np.full((len(segs), w), fill)
        m[inside] = v[src[inside]]
        acc = op.accumulate(m, axis=1)
        out[src[inside]] = acc[inside]
    return out


def _per_batch(fn: Any) -> Any:
    """Compute once per batch (the kernels of one evaluation share it); results are read, never changed."""
    def wrapper(b: Batch, *args: Any) -> Any:
        key = ("trec." + fn.__name__, *args)
        if key not in b._cache:
            b._cache[key] = fn(b, *args)
        return b._cache[key]

    wrapper.__name__ = fn.__name__
    wrapper.__doc__ = fn.__doc__
    return wrapper


@_per_batch
def _row_gain(b: Batch) -> np.ndarray:
    """trec_eval's default gain of each row: the grade when judged and positive, else 0."""
    return np.where(b.judged & (b.grade > 0), b.grade, 0.0)


@_per_batch
def _ideal_csr(b: Batch) -> tuple[np.ndarray, np.ndarray]:
    """The ideal gains of each query (positive grades, best first) as (offsets, values)."""
    pos = b.qrel_grade > 0  # qrel_grade is sorted descending within each query
    n = S.seg_sum(pos, b.qrel_offsets).astype(np.int64)
    offsets = np.concatenate(([0], np.cumsum(n))).astype(np.int64)
    return offsets, b.qrel_grade[pos]


def _log2p2(i: np.ndarray) -> np.ndarray:
    """log2(i + 2) for 0-based positions (the DCG discount of rank i + 1)."""
    return np.log2(np.asarray(i, dtype=np.float64) + 2.0)


def _recall_cut(x: float, R: np.ndarray, how: str) -> np.ndarray:
    v = x * R.astype(np.float64)
    if how == "9.0.8":
        return np.floor(v + 0.9).astype(np.int64)
    return np.floor(v + 0.5).astype(np.int64)  # C lround, for v >= 0


def _recall_cut_one(x: float, R: int, how: str) -> int:
    return int(math.floor(x * R + (0.9 if how == "9.0.8" else 0.5)))


# ------------------------------------------------------------------------------ num_q

register(MetricSpec(
    name="num_q", family="trec", reads_items=False, cutoff=False, count=True, bounds=(1.0, 1.0),
    summary="Number of queries evaluated: 1 per query, summed on trec_eval's 'all' line.",
    formula=r"num\_q = 1 \text{ per query}",
    citation="trec_eval num_q.",
    kernel=lambda b: np.ones(b.n_queries),
    reference=lambda ranking, qrels, k: 1.0,
    examples=(Example(("a",), {"a": 1}, 1.0),),
    properties=frozenset({"ranking", "count"}),
    trec_name="num_q",
))


# ------------------------------------------------------------------------------ geometric means

register(MetricSpec(
    name="gm_ap", family="trec", reads_items=False, cutoff=False, aggregate="gmean",
    summary="Average precision, aggregated by the geometric mean over queries (trec_eval gm_map).",
    formula=r"gm\_map = \exp\left(\frac{1}{|Q|} \sum_q \ln \max(AP_q, 10^{-5})\right)",
    citation="Robertson, 'On GMAP', CIKM 2006, doi:10.1145/1183614.1183630; trec_eval gm_map.",
    convention="Per query this is AP; only the aggregate differs (floor 1e-5 before the logarithm).",
    kernel=lambda b, rel: ap_kernel(b, rel, "relevant"),
    reference=lambda ranking, qrels, k, rel: ap_reference(ranking, qrels, k, rel, "relevant"),
    params=(REL,),
    examples=(Example(("a", "x", "b"), {"a": 1, "b": 1, "c": 1}, (1 + 2 / 3) / 3),),
    properties=frozenset({"ranking", "binary"}),
    trec_name="gm_map",
))

register(MetricSpec(
    name="gm_bpref", family="trec", reads_items=False, cutoff=False, aggregate="gmean",
    summary="bpref, aggregated by the geometric mean over queries (trec_eval gm_bpref).",
    formula=r"gm\_bpref = \exp\left(\frac{1}{|Q|} \sum_q \ln \max(bpref_q, 10^{-5})\right)",
    citation="Buckley & Voorhees, SIGIR 2004, doi:10.1145/1008992.1009000; trec_eval gm_bpref.",
    convention="Per query this is bpref; only the aggregate differs (floor 1e-5 before the logarithm).",
    kernel=bpref_kernel,
    reference=bpref_reference,
    params=(REL,),
    examples=(Example(("a", "n1", "b"), {"a": 1, "b": 1, "n1": 0}, (1 + 0) / 2),),
    properties=frozenset({"ranking", "binary"}),
    trec_name="gm_bpref",
))


# ------------------------------------------------------------------------------ interpolated precision

@_per_batch
def _iprec_parts(b: Batch, rel: float) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Per relevant row: query, its index among the query's relevant rows, interpolated precision."""
    rows, query, rank = b.relevant_rows(rel)
    counts = np.bincount(query, minlength=b.n_queries).astype(np.int64)
    roff = np.concatenate(([0], np.cumsum(counts))).astype(np.int64)
    found = np.arange(len(rows)) - roff[query]  # 0-based index among relevant rows
    prec = (found + 1.0) / rank
    sufmax = _seg_scan(prec, roff, np.maximum, reverse=True)
    return query, found, sufmax, roff


def _iprec_at(b: Batch, rel: float, levels: Sequence[float], how: str) -> list[np.ndarray]:
    query, found, ip, roff = _iprec_parts(b, rel)
    R = b.n_rel(rel).astype(np.int64)
    nrr = np.diff(roff)
    out = []
    for x in levels:
        c = _recall_cut(x, R, how)
        v = np.zeros(b.n_queries)
        ok = (c >= 1) & (c <= nrr)
        v[ok] = ip[roff[:-1][ok] + c[ok] - 1]
        first = (c <= 0) & (nrr > 0)
        v[first] = ip[roff[:-1][first]]
        out.append(v)
    return out


def iprec_kernel(b: Batch, rel: float, recall: float, round: str) -> np.ndarray:
    return _iprec_at(b, rel, [recall], round)[0]


def _iprec_reference_all(ranking: Sequence[str], qrels: Mapping[str, float], rel: float,
                         levels: Sequence[float], how: str) -> list[float]:
    R = _n_rel(qrels, rel)
    hits, precs = 0, []
    for i, d in enumerate(ranking, start=1):
        if _is_rel(qrels, d, rel):
            hits += 1
            precs.append(hits / i)
    out = []
    for x in levels:
        c = _recall_cut_one(x, R, how)
        if c > hits or not precs:
            out.append(0.0)
        else:
            j = max(c, 1) - 1
            out.append(max(precs[j:]))
    return out


def iprec_reference(ranking: Sequence[str], qrels: Mapping[str, float], k: int | None, rel: float,
                    recall: float, round: str) -> float:
    return _iprec_reference_all(ranking, qrels, rel, [recall], round)[0]


register(MetricSpec(
    name="iprec_at_recall", family="trec", reads_items=False, cutoff=False,
    summary="Interpolated precision at a recall level: the best precision at or after that recall.",
    formula=r"iprec(x) = \max_{i \ge r_x} P@i,\ r_x = \text{rank of the } c\text{-th relevant item},\ c = round(x R)",
    citation="Manning, Raghavan & Schuetze, Introduction to IR (2008), sec. 8.4; trec_eval iprec_at_recall.",
    convention=(
        "The level x becomes c relevant items: lround(x R) (trec_eval 10.0) or (long)(x R + 0.9) (9.0.8, "
        "round=9.0.8); c = 0 takes the value at the first relevant item; 0 when fewer than c relevant "
        "items are retrieved. trec_eval prints nan for an empty ranking at x = 0; rankmeter gives 0."
    ),
    kernel=iprec_kernel,
    reference=iprec_reference,
    params=(REL, Param("recall", float, 0.0, "recall level in [0, 1]", low=0.0, high=1.0), ROUND),
    examples=(
        Example(("x", "a", "b", "y", "c"), {"a": 1, "b": 1, "c": 1, "d": 1}, 2 / 3,
                params={"recall": 0.5}, note="c = lround(2) = 2: max(P@3, P@5) = max(2/3, 3/5)"),
        Example(("x", "a", "b", "y", "c"), {"a": 1, "b": 1, "c": 1, "d": 1}, 0.0,
                params={"recall": 1.0}, note="only 3 of 4 relevant items retrieved"),
    ),
    properties=frozenset({"ranking", "binary"}),
    trec_names=(TrecName("iprec_at_recall", param="recall"),),
))


def iprec_avg_kernel(b: Batch, rel: float, round: str) -> np.ndarray:
    vals = _iprec_at(b, rel, ELEVEN, round)
    total = np.zeros(b.n_queries)
    for v in reversed(vals):  # trec_eval adds the levels from the highest down
        total = total + v
    return total / len(ELEVEN)


def iprec_avg_reference(ranking: Sequence[str], qrels: Mapping[str, float], k: int | None, rel: float,
                        round: str) -> float:
    return sum(reversed(_iprec_reference_all(ranking, qrels, rel, ELEVEN, round))) / len(ELEVEN)


register(MetricSpec(
    name="iprec_avg", family="trec", reads_items=False, cutoff=False,
    summary="11-point interpolated average precision: iprec_at_recall averaged over recall 0, 0.1, ..., 1.",
    formula=r"\frac{1}{11} \sum_{x \in \{0, 0.1, \dots, 1\}} iprec(x)",
    citation="Salton & McGill (1983); trec_eval 11pt_avg.",
    convention="As iprec_at_recall (round=9.0.8 for trec_eval 9.0.8's levels).",
    kernel=iprec_avg_kernel,
    reference=iprec_avg_reference,
    params=(REL, ROUND),
    aliases={"eleven_pt_avg": {}},
    examples=(Example(("a", "x"), {"a": 1}, 1.0, note="the only relevant item first: 1 at every level"),),
    properties=frozenset({"ranking", "binary"}),
    trec_name="11pt_avg",
))


# ------------------------------------------------------------------------------ infAP

def infap_kernel(b: Batch, rel: float) -> np.ndarray:
    pos0 = b.pos - 1
    isrel = b.judged & (b.grade >= rel)
    nonrel = b.judged & (b.grade < rel)
    pool_unj = ~b.judged & (b.grade < 0)  # in the judgments with a negative grade
    crel = S.seg_count_cumsum(isrel, b.offsets)
    cnon = S.seg_count_cumsum(nonrel, b.offsets)
    cunj = S.seg_count_cumsum(pool_unj, b.offsets)
    rows = np.flatnonzero(isrel)
    j = pos0[rows].astype(np.float64)
    r1 = crel[rows] - 1.0
    nr, un = cnon[rows].astype(np.float64), cunj[rows].astype(np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        term = 1.0 / (j + 1.0) + (j / (j + 1.0)) * ((r1 + nr + un) / j) * (
            (r1 + INFAP_EPSILON) / (r1 + nr + 2 * INFAP_EPSILON))
    term = np.where(j == 0, 1.0, term)
    query = np.searchsorted(b.offsets, rows, side="right") - 1
    total = np.bincount(query, weights=term, minlength=b.n_queries).astype(np.float64)
    R = b.n_rel(rel)
    return cast(np.ndarray, np.divide(total, R, out=np.zeros_like(total), where=R > 0))


def infap_reference(ranking: Sequence[str], qrels: Mapping[str, float], k: int | None, rel: float) -> float:
    total, nonrel, found, unj = 0.0, 0, 0, 0
    for j, d in enumerate(_top(ranking, k)):
        g = qrels.get(d)
        if g is None:
            continue
        if g < 0:
            unj += 1
        elif g < rel:
            nonrel += 1
        else:
            found += 1
            if j == 0:
                total += 1.0
            else:
                total += 1 / (j + 1) + (j / (j + 1)) * ((found - 1 + nonrel + unj) / j) * (
                    (found - 1 + INFAP_EPSILON) / (found - 1 + nonrel + 2 * INFAP_EPSILON))
    R = _n_rel(qrels, rel)
    return total / R if R else 0.0


register(MetricSpec(
    name="infap", family="trec", reads_items=False, cutoff=False,
    summary="Inferred AP: AP estimated from a random sample of the judgment pool.",
    formula=(r"infAP = \frac{1}{R} \sum_{relevant\ i} \left(\frac{1}{i} + \frac{i-1}{i} \cdot "
             r"\frac{|d_{<i} \in pool|}{i-1} \cdot "
             r"\frac{rel_{<i} + \epsilon}{rel_{<i} + nonrel_{<i} + 2\epsilon}\right)"),
    citation="Yilmaz & Aslam, 'Estimating average precision with incomplete and imperfect judgments', "
             "CIKM 2006, doi:10.1145/1183614.1183633; trec_eval infAP.",
    convention=(
        "Items judged with a negative grade are 'in the pool, not judged' (pool_{<i} counts them); items "
        "not in the judgments are outside the pool; epsilon = 1e-5; with complete judgments infAP = AP."
    ),
    kernel=infap_kernel,
    reference=infap_reference,
    params=(REL,),
    aliases={"inferred_ap": {}},
    examples=(
        Example(("a", "u", "b"), {"a": 1, "b": 1, "u": -1},
                (1 + (1 / 3 + (2 / 3) * (2 / 2) * ((1 + 1e-5) / (1 + 2e-5)))) / 2,
                note="u in the pool, unjudged: b's estimated precision above is (1 + e) / (1 + 2e)"),
    ),
    properties=frozenset({"ranking", "binary"}),
    trec_name="infAP",
))


# ------------------------------------------------------------------------------ binG, G

def bing_kernel(b: Batch, rel: float) -> np.ndarray:
    rows, query, rank = b.relevant_rows(rel)
    counts = np.bincount(query, minlength=b.n_queries)
    roff = np.concatenate(([0], np.cumsum(counts))).astype(np.int64)
    k = np.arange(1, len(rows) + 1) - roff[query]  # 1-based index among relevant rows
    term = 1.0 / np.log2(2.0 + (rank - k))  # 2 + relevant-free rows above
    total = np.bincount(query, weights=term, minlength=b.n_queries).astype(np.float64)
    R = b.n_rel(rel)
    return cast(np.ndarray, np.divide(total, R, out=np.zeros_like(total), where=R > 0))


def bing_reference(ranking: Sequence[str], qrels: Mapping[str, float], k: int | None, rel: float) -> float:
    total, nonrel = 0.0, 0
    for d in _top(ranking, k):
        if _is_rel(qrels, d, rel):
            total += 1 / math.log2(2 + nonrel)
        else:
            nonrel += 1
    R = _n_rel(qrels, rel)
    return total / R if R else 0.0


register(MetricSpec(
    name="bing", family="trec", reads_items=False, cutoff=False,
    summary="Binary G: mean over relevant items of 1 / log2(2 + items above that are not relevant).",
    formula=r"binG = \frac{1}{R} \sum_{relevant\ i} \frac{1}{\log_2(2 + nonrel_{<i})}",
    citation="trec_eval binG (Buckley, experimental, 2008).",
    convention="Unjudged items above count as not relevant.",
    kernel=bing_kernel,
    reference=bing_reference,
    params=(REL,),
    aliases={"binary_g": {}},
    examples=(Example(("a", "x", "b"), {"a": 1, "b": 1}, (1 + 1 / math.log2(3)) / 2),),
    properties=frozenset({"ranking", "binary"}),
    trec_name="binG",
))


def g_kernel(b: Batch) -> np.ndarray:
    gain = _row_gain(b)
    ioff, ideal = _ideal_csr(b)
    n_ideal = np.diff(ioff)
    pos0 = b.pos - 1
    q = S.row_segments(b.offsets)
    has = pos0 < n_ideal[q]
    cost = np.ones(len(gain))
    idx = ioff[:-1][q[has]] + pos0[has]
    cost[has] = np.maximum(ideal[idx], 1.0)
    sum_results = _seg_scan(gain, b.offsets, np.add)
    sum_cost = _seg_scan(cost, b.offsets, np.add)
    nz = gain != 0
    term = gain[nz] / np.log2(2.0 + sum_cost[nz] - sum_results[nz])
    total = np.bincount(q[nz], weights=term, minlength=b.n_queries).astype(np.float64)
    sum_ideal = S.seg_sum(ideal, ioff)
    return cast(np.ndarray, np.divide(total, sum_ideal, out=np.zeros_like(total), where=sum_ideal > 0))


def g_reference(ranking: Sequence[str], qrels: Mapping[str, float], k: int | None) -> float:
    ideal = _ideal(qrels)
    total, got, cost = 0.0, 0.0, 0.0
    for i, d in enumerate(_top(ranking, k)):
        g = _gain(qrels, d)
        got += g
        cost += max(ideal[i], 1.0) if i < len(ideal) else 1.0
        if g:
            total += g / math.log2(2 + cost - got)
    return total / sum(ideal) if ideal else 0.0


register(MetricSpec(
    name="g", family="trec", reads_items=False, cutoff=False,
    summary="Normalised gain G: each gain discounted by how far the list so far is from the ideal one.",
    formula=(r"G = \frac{1}{\sum_j g^*_j} \sum_i \frac{g_i}{\log_2(2 + C_i - \sum_{j \le i} g_j)},\ "
             r"C_i = \sum_{j \le i} \max(g^*_j, 1)"),
    citation="trec_eval G (Buckley, experimental, 2008).",
    convention="Gains are the grades (negative and unjudged: 0); g*_j is the ideal gain at rank j (1 past its end).",
    kernel=g_kernel,
    reference=g_reference,
    aliases={"normalized_gain": {}},
    examples=(Example(("b", "a"), {"a": 2, "b": 1}, (1 / math.log2(2 + 2 - 1) + 2 / math.log2(2 + 3 - 3)) / 3,
                      note="costs 2 then 3 (ideal 2, 1); gains so far 1 then 3"),),
    properties=frozenset({"ranking", "graded"}),
    trec_name="G",
))


# ------------------------------------------------------------------------------ ndcg_rel, Rndcg

@_per_batch
def _dcg_prefix(b: Batch) -> tuple[np.ndarray, np.ndarray]:
    """Row gains and the DCG up to and including each row (within its query)."""
    gain = _row_gain(b)
    step = np.where(gain != 0, gain / _log2p2(b.pos - 1), 0.0)
    return gain, _seg_scan(step, b.offsets, np.add)


@_per_batch
def _ideal_prefix(b: Batch) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    ioff, ideal = _ideal_csr(b)
    ipos = S.positions(ioff) - 1
    return ioff, ideal, _seg_scan(ideal / _log2p2(ipos), ioff, np.add)


def ndcg_rel_kernel(b: Batch) -> np.ndarray:
    gain, dcg = _dcg_prefix(b)
    ioff, ideal, icum = _ideal_prefix(b)
    n_ideal = np.diff(ioff)
    q = S.row_segments(b.offsets)
    pos0 = b.pos - 1
    hit = np.flatnonzero((gain > 0) & (n_ideal[q] > 0))
    at = ioff[:-1][q[hit]] + np.minimum(pos0[hit], n_ideal[q[hit]] - 1)
    total = np.bincount(q[hit], weights=dcg[hit] / icum[at], minlength=b.n_queries).astype(np.float64)
    n_hit = np.bincount(q[hit], minlength=b.n_queries)
    last = b.offsets[1:] - 1
    dcg_total = np.where(b.lengths > 0, dcg[np.maximum(last, 0)] if len(dcg) else 0.0, 0.0)
    idcg_total = np.where(n_ideal > 0, icum[np.maximum(ioff[1:] - 1, 0)] if len(icum) else 0.0, 0.0)
    rest = np.divide((n_ideal - n_hit) * dcg_total, idcg_total, out=np.zeros(b.n_queries), where=idcg_total > 0)
    total = total + rest
    return cast(np.ndarray, np.divide(total, n_ideal, out=np.zeros(b.n_queries), where=(n_ideal > 0) & (total > 0)))


def ndcg_rel_reference(ranking: Sequence[str], qrels: Mapping[str, float], k: int | None) -> float:
    ideal = _ideal(qrels)
    if not ideal:
        return 0.0
    icum = np.cumsum([g / math.log2(i + 2) for i, g in enumerate(ideal)])
    dcg, total, found = 0.0, 0.0, 0
    for i, d in enumerate(_top(ranking, k)):
        g = _gain(qrels, d)
        dcg += g / math.log2(i + 2)
        if g > 0:
            total += dcg / icum[min(i, len(ideal) - 1)]
            found += 1
    total += (len(ideal) - found) * dcg / icum[-1]
    return total / len(ideal) if total > 0 else 0.0


register(MetricSpec(
    name="ndcg_rel", family="trec", reads_items=False, cutoff=False,
    summary="nDCG averaged over the relevant items: at each one retrieved, and at the end for the others.",
    formula=r"\frac{1}{R} \left(\sum_{i:\ g_i > 0} nDCG@i + (R - R_{ret}) \cdot nDCG@n\right)",
    citation="trec_eval ndcg_rel (Buckley, experimental).",
    convention="Gains are the grades; R counts the items with a positive grade; nDCG@i uses the ideal DCG up to "
               "min(i, R).",
    kernel=ndcg_rel_kernel,
    reference=ndcg_rel_reference,
    examples=(Example(("a", "x"), {"a": 1, "b": 1}, (1.0 + 1 / (1 + 1 / math.log2(3))) / 2,
                      note="a at rank 1: nDCG 1; b never retrieved: DCG 1 over ideal 1 + 1/log2(3)"),),
    properties=frozenset({"ranking", "graded"}),
    trec_name="ndcg_rel",
))


def rndcg_kernel(b: Batch, rel: float) -> np.ndarray:
    gain, dcg = _dcg_prefix(b)
    ioff, ideal, icum = _ideal_prefix(b)
    n_ideal = np.diff(ioff)
    R = b.n_rel(rel)
    nq = b.n_queries
    # boundaries: ideal positions p (1..n_ideal) where the ideal gain changes, and p = n_ideal
    ipos = S.positions(ioff)  # 1-based: the boundary p sits before ideal row p (0-based p)
    iq = S.row_segments(ioff)
    nxt = np.empty(len(ideal))
    if len(ideal):
        nxt[:-1] = ideal[1:]
        nxt[-1] = -np.inf
    is_last = ipos == n_ideal[iq]
    boundary = is_last | (ideal != np.where(is_last, -np.inf, nxt))
    p = ipos[boundary]
    bq = iq[boundary]
    idcg_before = icum[np.flatnonzero(boundary)]  # ideal DCG over ideal rows < p
    lengths = b.lengths
    m = np.minimum(p, lengths[bq])  # the run's rows counted before the boundary
    dcg_before = np.where(m > 0, dcg[np.maximum(b.offsets[:-1][bq] + m - 1, 0)] if len(dcg) else 0.0, 0.0)
    total = np.bincount(bq, weights=dcg_before / idcg_before, minlength=nq).astype(np.float64)
    count = np.bincount(bq, minlength=nq).astype(np.float64)
    # the end of the run, when it goes on past the ideal list (trec_eval counts it then)
    tail = n_ideal + 1 < lengths
    last = b.offsets[1:] - 1
    dcg_total = np.where(lengths > 0, dcg[np.maximum(last, 0)] if len(dcg) else 0.0, 0.0)
    idcg_total = np.where(n_ideal > 0, icum[np.maximum(ioff[1:] - 1, 0)] if len(icum) else 0.0, 0.0)
    add = tail & (idcg_total > 0)
    total[add] += dcg_total[add] / idcg_total[add]
    count[add] += 1
    return np.divide(total, count, out=np.zeros(nq), where=(count > 0) & (R > 0))


def rndcg_reference(ranking: Sequence[str], qrels: Mapping[str, float], k: int | None, rel: float) -> float:
    if _n_rel(qrels, rel) == 0:
        return 0.0
    ideal = _ideal(qrels)
    ranking = _top(ranking, k)
    dcg = [0.0]
    for i, d in enumerate(ranking):
        dcg.append(dcg[-1] + _gain(qrels, d) / math.log2(i + 2))
    idcg = [0.0]
    for i, g in enumerate(ideal):
        idcg.append(idcg[-1] + g / math.log2(i + 2))
    points = []
    for p in range(1, len(ideal) + 1):
        if p == len(ideal) or ideal[p] != ideal[p - 1]:
            points.append(dcg[min(p, len(ranking))] / idcg[p])
    if len(ideal) + 1 < len(ranking):
        points.append(dcg[-1] / idcg[-1])
    return sum(points) / len(points) if points else 0.0


register(MetricSpec(
    name="rndcg", family="trec", reads_items=False, cutoff=False,
    summary="nDCG averaged at the R-levels: where the ideal ranking moves down a grade, and at the end.",
    formula=r"Rndcg = \frac{1}{|B|} \sum_{p \in B} nDCG@p,\ B = \text{ranks where the ideal gain drops}",
    citation="trec_eval Rndcg (Buckley, experimental).",
    convention=(
        "Gains are the grades; each boundary p takes the run's DCG over its top p (all of it when shorter) "
        "over the ideal DCG@p; the end of the run counts when it is longer than the ideal list + 1 "
        "(trec_eval); 0 when no item has grade >= rel."
    ),
    kernel=rndcg_kernel,
    reference=rndcg_reference,
    params=(REL,),
    examples=(Example(("b", "a"), {"a": 2, "b": 1}, (0.5 + (1 + 2 / math.log2(3)) / (2 + 1 / math.log2(3))) / 2,
                      note="boundaries after rank 1 (grade 2 -> 1) and rank 2 (end of the ideal list)"),),
    properties=frozenset({"ranking", "graded"}),
    trec_name="Rndcg",
))


# ------------------------------------------------------------------------------ precision variants

@_per_batch
def _hits(b: Batch, rel: float) -> tuple[np.ndarray, np.ndarray]:
    """Relevant rows so far (each row included) and each query's relevant rows."""
    return S.seg_count_cumsum(b.relevant(rel), b.offsets), b.seg_sum(b.relevant(rel))


def rprec_mult_kernel(b: Batch, rel: float, mult: float) -> np.ndarray:
    R = b.n_rel(rel)
    c = np.floor(mult * R + 0.9).astype(np.int64)
    hits, total = _hits(b, rel)
    lengths = b.lengths
    out = np.zeros(b.n_queries)
    beyond = c > lengths
    out[beyond & (c > 0)] = total[beyond & (c > 0)] / c[beyond & (c > 0)]
    inside = (c >= 1) & ~beyond
    out[inside] = hits[b.offsets[:-1][inside] + c[inside] - 1] / c[inside]
    return out


def rprec_mult_reference(ranking: Sequence[str], qrels: Mapping[str, float], k: int | None, rel: float,
                         mult: float) -> float:
    c = int(math.floor(mult * _n_rel(qrels, rel) + 0.9))
    if c <= 0:
        return 0.0
    return sum(1 for d in list(ranking)[:c] if _is_rel(qrels, d, rel)) / c


register(MetricSpec(
    name="rprec_mult", family="trec", reads_items=False, cutoff=False,
    summary="Precision at a multiple of R (the number of relevant items): P@(mult x R).",
    formula=r"P@c,\ c = \lfloor mult \cdot R + 0.9 \rfloor",
    citation="Sakai, 'On the reliability of information retrieval metrics based on graded relevance', "
             "IPM 2007 (R-based cutoffs); trec_eval Rprec_mult.",
    convention="c rounds as trec_eval ((long)(x R + 0.9)); 0 when c = 0; mult = 1 is R-precision.",
    kernel=rprec_mult_kernel,
    reference=rprec_mult_reference,
    params=(REL, Param("mult", float, 1.0, "multiple of R", low=0.0)),
    examples=(Example(("a", "x", "b", "y"), {"a": 1, "b": 1}, 1 / 2, params={"mult": 1.0}),
              Example(("a", "x", "b", "y"), {"a": 1, "b": 1}, 2 / 4, params={"mult": 2.0})),
    properties=frozenset({"ranking", "binary"}),
    trec_names=(TrecName("Rprec_mult", param="mult"),),
))


def relative_p_kernel(b: Batch, rel: float) -> np.ndarray:
    R = b.n_rel(rel)
    hits = b.seg_sum(b.relevant(rel))
    denom = np.minimum(R, b.k if b.k is not None else b.lengths).astype(np.float64)
    return cast(np.ndarray, np.divide(hits, denom, out=np.zeros(b.n_queries), where=(denom > 0) & (R > 0)))


def relative_p_reference(ranking: Sequence[str], qrels: Mapping[str, float], k: int | None, rel: float) -> float:
    R = _n_rel(qrels, rel)
    kept = _top(ranking, k)
    denom = min(R, k if k is not None else len(kept))
    return sum(1 for d in kept if _is_rel(qrels, d, rel)) / denom if denom and R else 0.0


register(MetricSpec(
    name="relative_p", family="trec", reads_items=False,
    summary="Precision at k over the best precision possible at k: hits / min(k, R).",
    formula=r"relP@k = \frac{|\{i \le k: rel_i \ge rel\}|}{\min(k, R)}",
    citation="trec_eval relative_P (@k) and set_relative_P (no cutoff).",
    convention="Without a cutoff, k is the number retrieved (trec_eval set_relative_P); 0 when R = 0.",
    kernel=relative_p_kernel,
    reference=relative_p_reference,
    params=(REL,),
    examples=(Example(("a", "x", "y"), {"a": 1, "b": 1}, 1 / 2, k=3, note="1 hit over min(3, 2)"),
              Example(("a", "x"), {"a": 1, "b": 1, "c": 1}, 1 / 2, note="set: 1 hit over min(2, 3)")),
    properties=frozenset({"ranking", "binary", "k_scaled"}),
    trec_names=(TrecName("relative_P", cutoff=True), TrecName("set_relative_P")),
))


def set_map_kernel(b: Batch, rel: float) -> np.ndarray:
    R = b.n_rel(rel)
    hits = b.seg_sum(b.relevant(rel))
    denom = (b.lengths * R).astype(np.float64)
    return cast(np.ndarray, np.divide(hits * hits, denom, out=np.zeros(b.n_queries), where=denom > 0))


def set_map_reference(ranking: Sequence[str], qrels: Mapping[str, float], k: int | None, rel: float) -> float:
    kept = _top(ranking, k)
    R = _n_rel(qrels, rel)
    hits = sum(1 for d in kept if _is_rel(qrels, d, rel))
    return hits * hits / (len(kept) * R) if kept and R else 0.0


register(MetricSpec(
    name="set_map", family="trec", reads_items=False,
    summary="Unranked AP of the retrieved set: set precision times set recall.",
    formula=r"set\_map = \frac{|ret \cap rel|^2}{|ret| \cdot R}",
    citation="trec_eval set_map (exact_unranked_avg_prec in trec_eval 8).",
    convention="0 when nothing is retrieved or R = 0.",
    kernel=set_map_kernel,
    reference=set_map_reference,
    params=(REL,),
    examples=(Example(("a", "x"), {"a": 1, "b": 1, "c": 1}, 1 / 6),),
    properties=frozenset({"ranking", "binary", "order_free"}),
    trec_name="set_map",
))


def utility_kernel(batch: Batch, rel: float, a: float, b: float, c: float, d: float, n_docs: int) -> np.ndarray:
    R = batch.n_rel(rel)
    hits = batch.seg_sum(batch.relevant(rel))
    ret = batch.lengths.astype(np.float64)
    return cast(np.ndarray, a * hits + b * (ret - hits) + c * (R - hits) + d * (n_docs + hits - ret - R))


def utility_reference(ranking: Sequence[str], qrels: Mapping[str, float], k: int | None, rel: float, a: float,
                      b: float, c: float, d: float, n_docs: int) -> float:
    kept = _top(ranking, k)
    R = _n_rel(qrels, rel)
    hits = sum(1 for x in kept if _is_rel(qrels, x, rel))
    return a * hits + b * (len(kept) - hits) + c * (R - hits) + d * (n_docs + hits - len(kept) - R)


register(MetricSpec(
    name="utility", family="trec", reads_items=False, bounds=None,
    summary="Linear utility of the retrieved set: a per relevant retrieved, b per other retrieved, c, d likewise.",
    formula=r"a \cdot TP + b \cdot FP + c \cdot FN + d \cdot TN,\ TN = n\_docs - TP - FP - FN",
    citation="Hull & Robertson, 'The TREC-8 filtering track final report' (1999); trec_eval utility.",
    convention="Defaults a=1, b=-1, c=0, d=0 (trec_eval); n_docs is the collection size (trec_eval -N).",
    kernel=utility_kernel,
    reference=utility_reference,
    params=(REL, Param("a", float, 1.0, "worth of a relevant retrieved item"),
            Param("b", float, -1.0, "worth of a non-relevant retrieved item"),
            Param("c", float, 0.0, "worth of a relevant item not retrieved"),
            Param("d", float, 0.0, "worth of a non-relevant item not retrieved"),
            Param("n_docs", int, 0, "documents in the collection", low=0)),
    examples=(Example(("a", "x", "y"), {"a": 1, "b": 1}, 1 - 2),),
    properties=frozenset({"ranking", "binary", "order_free"}),
    trec_name="utility",
))


# ------------------------------------------------------------------------------ trec_eval's RBP

def trec_rbp_kernel(b: Batch, p: float, residual: bool) -> np.ndarray:
    q = S.row_segments(b.offsets)
    pos0 = (b.pos - 1).astype(np.float64)
    weight = np.power(p, pos0)
    if residual:
        unj = ~b.judged
        n_unj = np.bincount(q[unj], minlength=b.n_queries)
        s = np.bincount(q[unj], weights=weight[unj], minlength=b.n_queries).astype(np.float64)
        out = np.power(p, b.lengths.astype(np.float64)) + (1 - p) * s
        return np.where(n_unj > 0, out, 0.0)
    # grades rescaled to [0, 1] by the query's largest grade when it exceeds 1 (trec_eval)
    top = np.zeros(b.n_queries)
    has = np.diff(b.qrel_offsets) > 0
    top[has] = np.maximum(b.qrel_grade[b.qrel_offsets[:-1][has]], 0.0)
    scale = np.where(top > 1, top, 1.0)
    gain = np.where(b.judged & (b.grade > 0), b.grade, 0.0) / scale[q]
    nz = gain != 0
    return (1 - p) * np.bincount(q[nz], weights=gain[nz] * weight[nz], minlength=b.n_queries).astype(np.float64)


def trec_rbp_reference(ranking: Sequence[str], qrels: Mapping[str, float], k: int | None, p: float,
                       residual: bool) -> float:
    kept = _top(ranking, k)
    if residual:
        unj = [i for i, d in enumerate(kept) if not _judged(qrels, d)]
        return p ** len(kept) + (1 - p) * sum(p ** i for i in unj) if unj else 0.0
    top = max([0.0] + [float(g) for g in qrels.values()])
    scale = top if top > 1 else 1.0
    return (1 - p) * sum(_gain(qrels, d) / scale * p ** i for i, d in enumerate(kept))


register(MetricSpec(
    name="trec_rbp", family="trec", reads_items=False,
    summary="Rank-biased precision as trec_eval computes it: graded gains in [0, 1], p = 0.9.",
    formula=r"RBP = (1 - p) \sum_i \frac{g_i}{\max(1, g_{max})} p^{i-1};\ "
            r"resid = p^n + (1-p) \sum_{i\ unjudged} p^{i-1}",
    citation="Moffat & Zobel, 'Rank-biased precision for measurement of retrieval effectiveness', TOIS 27(1), "
             "2008, doi:10.1145/1416950.1416952; trec_eval 10.0 rbp and rbp_resid.",
    convention=(
        "Gains are the grades divided by the query's largest grade when it exceeds 1 (trec_eval rescales "
        "to [0, 1]); the residual is 0 when no retrieved item is unjudged (trec_eval), else p^n + the "
        "weight of the unjudged ranks. rankmeter's own rbp is binary with p = 0.8."
    ),
    kernel=trec_rbp_kernel,
    reference=trec_rbp_reference,
    params=(Param("p", float, 0.9, "persistence", low=0.0, high=1.0, low_open=True, high_open=True),
            Param("residual", bool, False, "return the residual instead of RBP")),
    aliases={"rbp_trec": {}, "trec_rbp_resid": {"residual": True}},
    examples=(Example(("a", "b"), {"a": 2, "b": 1}, 0.1 * (1.0 + 0.5 * 0.9), note="grades / 2"),
              Example(("a", "u"), {"a": 1}, 0.9 ** 2 + 0.1 * 0.9, params={"residual": True})),
    properties=frozenset({"ranking", "graded"}),
    trec_names=(TrecName("rbp"), TrecName("rbp_resid", {"residual": True})),
))


# ------------------------------------------------------------------------------ trec_eval's printed names

def trec_display_name(name: str, params: Mapping[str, object], k: int | None) -> str | None:
    """The name trec_eval prints for a metric of this family (None when it is not one).

    For ``--format trec``: recall levels and multiples print with two decimals, cutoffs
    after an underscore, the residual of RBP as ``rbp_resid``.

    >>> trec_display_name("iprec_at_recall", {"recall": 0.1}, None), trec_display_name("relative_p", {}, 5)
    ('iprec_at_recall_0.10', 'relative_P_5')
    >>> trec_display_name("relative_p", {}, None), trec_display_name("trec_rbp", {"residual": True}, None)
    ('set_relative_P', 'rbp_resid')
    """
    if name == "iprec_at_recall":
        # a number parameter (the ignore below)
        return f"iprec_at_recall_{float(params.get('recall', 0.0)):3.2f}"  # type: ignore[arg-type]
    if name == "rprec_mult":
        return f"Rprec_mult_{float(params.get('mult', 1.0)):3.2f}"  # type: ignore[arg-type]  # a number parameter
    if name == "relative_p":
        return f"relative_P_{k}" if k is not None else "set_relative_P"
    if name == "trec_rbp":
        return "rbp_resid" if params.get("residual") else "rbp"
    fixed = {"num_q": "num_q", "gm_ap": "gm_map", "gm_bpref": "gm_bpref", "iprec_avg": "11pt_avg", "infap": "infAP",
             "bing": "binG", "g": "G", "ndcg_rel": "ndcg_rel", "rndcg": "Rndcg", "set_map": "set_map",
             "utility": "utility"}
    return fixed.get(name)
