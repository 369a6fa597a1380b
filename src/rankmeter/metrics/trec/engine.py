"""trec_eval's evaluation, measure by measure, as trec_eval 10.0 / 9.0.8 computes it.

One query at a time, like trec_eval: :func:`form_res_rels` turns a ranked list and
the query's judgments into what every measure reads (trec_eval's ``RES_RELS``: the
relevance value at each rank, ``-1`` for an item not in the judgments, ``-2`` for one
judged with a negative grade, and the count of judgments at each grade), then each
measure of :data:`MEASURES` (in trec_eval's order) computes its values. Sums are
taken in trec_eval's order (left to right) so that the printed 4 decimals are the
same as trec_eval's, and the ``log2`` discounts come from the C library
(:func:`math.log2`), as in trec_eval.

>>> rr = form_res_rels(["d1", "d2", "d3"], [3.0, 2.0, 1.0], {"d1": 1, "d3": 0, "d9": 1})
>>> rr.rel.tolist(), rr.num_rel, rr.num_rel_ret
([1, -1, 0], 2, 1)
>>> round(measure("map").compute(rr, Options())[0], 4)
0.5
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from functools import cached_property, cmp_to_key
from typing import Any, Callable, Mapping, Sequence

import numpy as np

from ..._errors import InputError, ParameterError
from ...io.cnumbers import atof, atol

__all__ = [
    "NONPOOL",
    "UNJUDGED",
    "MIN_GEO_MEAN",
    "INFAP_EPSILON",
    "Options",
    "ResRels",
    "form_res_rels",
    "FLOAT_SCORES",
    "stored_scores",
    "TrecMeasure",
    "MEASURES",
    "NICKNAMES",
    "measure",
    "expand_selection",
    "trec_ap",
    "trec_infap",
    "trec_bing",
    "trec_g",
    "trec_ndcg",
    "trec_ndcg_rel",
    "trec_rndcg",
    "trec_rbp",
    "trec_rbp_resid",
    "trec_iprec_at_recall",
    "trec_11pt_avg",
    "trec_rprec_mult",
    "trec_relative_p",
    "trec_bpref",
    "trec_relstring",
]

NONPOOL = -1  # the item is not in the judgments
UNJUDGED = -2  # the item is in the judgments with a negative grade ("in the pool, unjudged")
MIN_GEO_MEAN = 0.00001  # trec_eval's floor for geometric means
_MISSING = -(1 << 62)  # placeholder grade of an item not in the judgments
INFAP_EPSILON = 0.00001


@dataclass(frozen=True)
class Options:
    """trec_eval's evaluation settings (``-l``, ``-N``, ``-J``, ``-M``) and the version followed."""

    level: int = 1
    num_docs_in_coll: int = 0
    judged_only: bool = False
    max_docs: int | None = None
    compat: str = "10.0"


#: The trec_eval versions that store a score as a C ``float`` (``form_res_rels.c``'s ``float sim``, 9.0.4-9.0.8,
#: and so pytrec_eval); 10.0 keeps the ``double``.
FLOAT_SCORES = frozenset({"9.0.8"})


def stored_scores(sims: Any, compat: str) -> np.ndarray:
    """Scores as trec_eval ``compat`` holds them: float64, or rounded to float32 for 9.0.8.

    trec_eval 9.0.8 (and pytrec_eval, which bundles it) reads a score with ``atof`` into
    a ``float``: scores that differ only beyond single precision become equal, and their
    tie is then broken by docno. A value beyond float32's range becomes +-inf, as C's
    conversion gives on x86-64; nan stays nan.

    >>> stored_scores([1.00000002, 1.00000001, 0.5], "9.0.8").tolist()
    [1.0, 1.0, 0.5]
    >>> stored_scores([1.00000002, 1.00000001], "10.0").tolist()
    [1.00000002, 1.00000001]
    """
    values = np.asarray(sims, dtype=np.float64)
    if compat not in FLOAT_SCORES:
        return values
    with np.errstate(over="ignore"):
        return values.astype(np.float32).astype(np.float64)


@dataclass
class ResRels:
    """One query's ranked relevance values and judgment counts (trec_eval's RES_RELS)."""

    rel: np.ndarray  # int64, rank order
    rel_levels: np.ndarray  # int64, count of judgments at each grade 0..max
    num_rel: int
    num_rel_ret: int
    level: int

    @property
    def num_ret(self) -> int:
        return len(self.rel)

    @cached_property
    def isrel(self) -> np.ndarray:
        """Row flags: judged with grade >= level."""
        return self.rel >= self.level

    @cached_property
    def cum(self) -> np.ndarray:
        """Relevant rows so far, this one included."""
        return np.cumsum(self.isrel)

    @property
    def num_rel_levels(self) -> int:
        nz = np.flatnonzero(self.rel_levels)
        return int(nz[-1]) + 1 if len(nz) else 0

    @property
    def num_nonrel(self) -> int:
        """Judged items with 0 <= grade < level."""
        return int(self.rel_levels[: max(self.level, 0)].sum())


def form_res_rels(
    docnos: Sequence[str],
    sims: Sequence[float],
    judgments: Mapping[str, int],
    opts: Options | None = None,
    level: int | None = None,
) -> ResRels:
    """Rank one query's results and join them with its judgments, as trec_eval does.

    Order: score descending (scores as ``opts.compat`` stores them: :func:`stored_scores`),
    ties by docno descending (byte order); ``max_docs`` cuts after the sort;
    ``judged_only`` then keeps the items judged with a grade >= 0. A docno listed twice
    is an error, as in trec_eval.
    """
    opts = opts or Options()
    lvl = opts.level if level is None else level
    n = len(docnos)
    if n:
        # score descending, then docno descending: numpy compares str by code point (= UTF-8 byte order)
        order = np.lexsort((np.asarray(docnos, dtype=str), stored_scores(sims, opts.compat)))[::-1]
        if opts.max_docs is not None and n > opts.max_docs:
            order = order[: max(opts.max_docs, 0)]
        ranked = [docnos[i] for i in order.tolist()]
    else:
        ranked = []
    if len(set(ranked)) != len(ranked):
        seen: set[str] = set()
        # set.add: finds the first repeat (the ignore below)
        dup = next(d for d in ranked if d in seen or seen.add(d))  # type: ignore[func-returns-value]
        raise InputError(f"item {dup!r} is listed twice for one query (trec_eval refuses duplicate docs)")
    get = judgments.get
    raw = np.array([get(d, _MISSING) for d in ranked], dtype=np.int64)
    rel = np.where(raw == _MISSING, NONPOOL, np.where(raw < 0, UNJUDGED, raw))
    if opts.judged_only:
        rel = rel[rel >= 0]
    grades = np.fromiter((g for g in judgments.values() if g >= 0), dtype=np.int64)
    rel_levels = np.bincount(grades) if len(grades) else np.zeros(0, dtype=np.int64)
    num_rel = int(rel_levels[max(lvl, 0):].sum()) if len(rel_levels) else 0
    num_rel_ret = int(np.count_nonzero(rel >= lvl))
    return ResRels(rel=rel, rel_levels=rel_levels.astype(np.int64), num_rel=num_rel, num_rel_ret=num_rel_ret,
                   level=lvl)


# --- helpers -----------------------------------------------------------------------------

_LOG2: list[float] = [math.log2(i + 2) for i in range(1024)]


def _log2_table(n: int) -> np.ndarray:
    """``log2(i + 2)`` for i < n, from the C library (as trec_eval's discount)."""
    while len(_LOG2) < n:
        _LOG2.extend(math.log2(i + 2) for i in range(len(_LOG2), 2 * len(_LOG2)))
    return np.asarray(_LOG2[:n], dtype=np.float64)


def _seqsum(values: np.ndarray) -> float:
    """Left-to-right float sum (trec_eval's accumulation order; np.sum is pairwise)."""
    return float(np.cumsum(values)[-1]) if len(values) else 0.0


def _cum_at(cum: np.ndarray, k: int) -> int:
    """Relevant items in the top k (all of them when k exceeds the list)."""
    n = len(cum)
    if k <= 0 or n == 0:
        return 0
    return int(cum[min(k, n) - 1])


def _div(a: float, b: float) -> float:
    """C's double division: inf / nan instead of an exception."""
    if b == 0:
        if a == 0 or math.isnan(a):
            return -math.nan  # x86-64's default NaN (0.0 / 0.0) has its sign bit set: printf shows -nan
        return math.copysign(math.inf, a)
    return a / b


# --- gains (trec_eval's setup_gains / get_gain) -----------------------------------------

@dataclass
class _Gains:
    levels: list[int]
    gains: list[float]
    counts: list[int]

    def gain_of(self, rel: np.ndarray) -> np.ndarray:
        out = np.zeros(len(rel), dtype=np.float64)
        done = np.zeros(len(rel), dtype=bool)
        for lv, g in zip(self.levels, self.gains, strict=True):
            hit = (rel == lv) & ~done
            out[hit] = g
            done |= hit
        return out

    def ideal(self) -> np.ndarray:
        """The ideal gain sequence trec_eval walks: best level first, stopping at a gain <= 0."""
        if not self.gains or self.gains[-1] <= 0.0:
            return np.zeros(0)
        parts = []
        for i in range(len(self.gains) - 1, -1, -1):
            if self.counts[i] == 0:
                continue
            if self.gains[i] <= 0.0:
                break
            parts.append(np.full(self.counts[i], self.gains[i]))
        return np.concatenate(parts) if parts else np.zeros(0)


_VALID_INT = re.compile(r"^[+-]?\d+$")


def _setup_gains(pairs: Sequence[tuple[str, float]], rr: ResRels) -> _Gains:
    levels: list[int] = []
    gains: list[float] = []
    counts: list[int] = []
    for name, value in pairs:
        if not _VALID_INT.match(name):
            continue
        levels.append(atol(name))
        gains.append(float(value))
        counts.append(0)
    n_given = len(levels)
    for lv in range(rr.num_rel_levels):
        hit = [j for j in range(n_given) if levels[j] == lv]
        if hit:
            counts[hit[0]] = int(rr.rel_levels[lv])
        else:
            levels.append(lv)
            gains.append(float(lv))
            counts.append(int(rr.rel_levels[lv]))
    # trec_eval sorts with a comparator that truncates the gain difference to an int
    def by_gain(a: int, b: int) -> int:
        return int(gains[a] - gains[b])

    idx = sorted(range(len(levels)), key=cmp_to_key(by_gain))
    return _Gains([levels[i] for i in idx], [gains[i] for i in idx], [counts[i] for i in idx])


# --- measure definitions (one query) -----------------------------------------------------

def trec_ap(rr: ResRels) -> float:
    """Average precision: sum of precision at each relevant rank, over num_rel."""
    isrel = rr.isrel
    if not rr.num_rel or not isrel.any():
        return 0.0
    cum = rr.cum
    ranks = np.flatnonzero(isrel) + 1
    return _seqsum(cum[isrel] / ranks.astype(np.float64)) / rr.num_rel


def trec_bpref(rr: ResRels) -> float:
    """bpref: each relevant item scores 1 - min(nonrel above, R) / min(N, R)."""
    rel = rr.rel[rr.rel >= 0]  # items not judged (or judged negative) are skipped
    nonrel = rel < rr.level
    isrel = ~nonrel
    if not isrel.any() or not rr.num_rel:
        return 0.0
    above = np.cumsum(nonrel)[isrel]
    denom = float(min(rr.num_nonrel, rr.num_rel))
    terms = np.where(above > 0, 1.0 - np.minimum(above, rr.num_rel) / (denom if denom else 1.0), 1.0)
    return _seqsum(terms) / rr.num_rel


def trec_infap(rr: ResRels) -> float:
    """Inferred AP (Yilmaz & Aslam 2006), trec_eval's estimator.

    Items not in the judgments are skipped; items judged negative are "in the pool,
    unjudged"; each relevant item at 0-based rank j > 0 adds
    1/(j+1) + j/(j+1) * (above in pool)/j * (rel above + e)/(rel above + nonrel above + 2e).
    """
    rel = rr.rel
    isrel = (rel >= rr.level)
    nonrel = (rel >= 0) & (rel < rr.level)
    if not isrel.any():
        return 0.0
    pos = np.flatnonzero(isrel)
    r1 = np.arange(len(pos), dtype=np.int64)  # relevant items above (rel_so_far - 1)
    n_non = np.cumsum(nonrel)[pos]  # nonrel above (the row itself is relevant)
    n_unj = np.cumsum(rel == UNJUDGED)[pos]
    fj = pos.astype(np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        # the same operations, in the same order, as trec_eval's C expression
        terms = 1.0 / (fj + 1.0) + (fj / (fj + 1.0)) * ((r1 + n_non + n_unj) / fj) * (
            (r1 + INFAP_EPSILON) / ((r1 + n_non) + 2 * INFAP_EPSILON))
    terms = np.where(pos == 0, 1.0, terms)
    total = _seqsum(terms)
    if rr.num_rel:
        total /= rr.num_rel
    return total


def trec_bing(rr: ResRels) -> float:
    """binG: mean over relevant items of 1 / log2(2 + non-relevant items above)."""
    isrel = rr.isrel
    if not isrel.any():
        return 0.0
    pos = np.flatnonzero(isrel)
    k = np.arange(1, len(pos) + 1)
    disc = _log2_table(int((pos - k).max()) + 2)[pos - k + 1 - 0]  # log2(3 + i - k) = table[i - k + 1]
    return _seqsum(1.0 / disc) / rr.num_rel


def trec_ndcg(rr: ResRels, pairs: Sequence[tuple[str, float]] = ()) -> float:
    """nDCG with trec_eval's gains (grade by default, ``level=gain`` pairs to change them)."""
    g = _setup_gains(pairs, rr)
    dcg, ideal = _dcgs(rr, g)
    return dcg / ideal if ideal > 0.0 else 0.0


def _dcgs(rr: ResRels, g: _Gains) -> tuple[float, float]:
    gain = g.gain_of(rr.rel)
    ideal = g.ideal()
    n = max(len(gain), len(ideal))
    disc = _log2_table(n)
    nz = gain != 0
    dcg = _seqsum(gain[nz] / disc[: len(gain)][nz])
    idcg = _seqsum(ideal / disc[: len(ideal)])
    return dcg, idcg


def trec_ndcg_cut(rr: ResRels, cutoffs: Sequence[int]) -> list[float]:
    """nDCG at cutoffs with the grades as gains (trec_eval's ndcg_cut)."""
    gain = np.where(rr.rel > 0, rr.rel, 0).astype(np.float64)
    disc = _log2_table(max(len(gain), 1))
    contrib = np.where(gain > 0, gain / disc[: len(gain)], 0.0)
    levels = rr.rel_levels
    ideal = np.concatenate([np.full(int(levels[lv]), float(lv)) for lv in range(len(levels) - 1, 0, -1)]) \
        if len(levels) > 1 else np.zeros(0)
    idisc = _log2_table(max(len(ideal), 1))
    icontrib = ideal / idisc[: len(ideal)]
    dcum = np.cumsum(contrib[gain > 0]) if len(contrib) else np.zeros(0)
    dpos = np.flatnonzero(gain > 0)
    icum = np.cumsum(icontrib)
    out = []
    for k in cutoffs:
        m = int(np.searchsorted(dpos, k, side="left"))  # positive rows with index < k
        dcg = float(dcum[m - 1]) if m > 0 else 0.0
        kk = min(k, len(icum))
        idcg = float(icum[kk - 1]) if kk > 0 else 0.0
        out.append(dcg / idcg if idcg > 0.0 else dcg)
    return out


def trec_ndcg_rel(rr: ResRels, pairs: Sequence[tuple[str, float]] = ()) -> float:
    """ndcg_rel: nDCG averaged over the relevant items (trec_eval, experimental)."""
    g = _setup_gains(pairs, rr)
    gain = g.gain_of(rr.rel)
    ideal = g.ideal()
    n_ret, n_ideal = len(gain), len(ideal)
    disc = _log2_table(max(n_ret, n_ideal))
    dcg_steps = np.where(gain != 0, gain / disc[:n_ret], 0.0)
    dcg_cum = np.cumsum(np.where(gain != 0, dcg_steps, 0.0)) if n_ret else np.zeros(0)
    # ideal dcg at row i (only rows below the end of the ideal list move it)
    icum = np.cumsum(ideal / disc[:n_ideal]) if n_ideal else np.zeros(0)
    idcg_final = float(icum[-1]) if n_ideal else 0.0
    total = 0.0
    n_rel_ret = 0
    with np.errstate(divide="ignore", invalid="ignore"):
        for i in np.flatnonzero(gain > 0).tolist():
            idcg = float(icum[i]) if i < n_ideal else idcg_final
            total += _div(float(dcg_cum[i]), idcg)
            n_rel_ret += 1
    results_dcg = float(dcg_cum[-1]) if n_ret else 0.0
    total += _div(float(n_ideal - n_rel_ret) * results_dcg, idcg_final)
    return total / n_ideal if total > 0.0 else 0.0


def trec_rndcg(rr: ResRels, pairs: Sequence[tuple[str, float]] = ()) -> float:
    """Rndcg: nDCG averaged at the R-level boundaries of the ideal ranking (trec_eval)."""
    g = _setup_gains(pairs, rr)
    if rr.num_rel == 0:
        return 0.0
    gain = g.gain_of(rr.rel)
    n_ret = len(gain)
    # Walk trec_eval's loops literally; only the ideal boundaries need a Python step
    seq_gains = g.gains
    counts = g.counts
    cur = len(seq_gains) - 1
    ideal_gain = seq_gains[cur] if cur >= 0 else 0.0
    old = ideal_gain
    n_at = 0
    total = 0.0
    changed = 0
    dcg = 0.0
    idcg = 0.0
    i = 0
    disc = _log2_table(max(n_ret, 1) + sum(counts) + 2)
    while i < n_ret and ideal_gain > 0.0:
        rg = gain[i]
        n_at += 1
        while cur >= 0 and n_at > counts[cur]:
            n_at = 1
            cur -= 1
            ideal_gain = seq_gains[cur] if cur >= 0 else 0.0
        if old != ideal_gain:
            if idcg > 0.0:
                total += dcg / idcg
                changed += 1
            old = ideal_gain
        if rg != 0:
            dcg += rg / disc[i]
        if ideal_gain > 0.0:
            idcg += ideal_gain / disc[i]
        i += 1
    if i < n_ret:
        rest = gain[i:]
        nz = rest != 0
        steps = rest[nz] / disc[i:n_ret][nz]
        for s in steps.tolist():
            dcg += s
        if idcg > 0.0:
            total += dcg / idcg
            changed += 1
    while ideal_gain > 0.0:
        n_at += 1
        while cur >= 0 and n_at > counts[cur]:
            n_at = 1
            cur -= 1
            ideal_gain = seq_gains[cur] if cur >= 0 else 0.0
        if old != ideal_gain:
            if idcg > 0.0:
                total += dcg / idcg
                changed += 1
            old = ideal_gain
        if ideal_gain > 0.0:
            if i >= len(disc):
                disc = _log2_table(2 * i + 2)
            idcg += ideal_gain / disc[i]
        i += 1
    return _div(total, float(changed))


def trec_g(rr: ResRels, pairs: Sequence[tuple[str, float]] = ()) -> float:
    """G: gain discounted by log2(2 + ideal cost so far - gain so far), normalised (trec_eval)."""
    g = _setup_gains(pairs, rr)
    gain = g.gain_of(rr.rel)
    ideal = g.ideal()
    n_ret, n_ideal = len(gain), len(ideal)
    sum_results = np.cumsum(gain) if n_ret else np.zeros(0)
    # cost per row: the ideal gain while it lasts (at least 1.0), then 1.0
    cost = np.ones(n_ret)
    m = min(n_ret, n_ideal)
    cost[:m] = np.maximum(ideal[:m], 1.0)
    sum_cost = np.cumsum(cost) if n_ret else np.zeros(0)
    nz = gain != 0
    terms = gain[nz] / np.array([math.log2(x) for x in (2.0 + sum_cost[nz] - sum_results[nz]).tolist()])
    results_g = _seqsum(terms)
    sum_ideal = _seqsum(ideal)
    return results_g / sum_ideal if sum_ideal > 0.0 else 0.0


def _rescaled_rbp_gains(g: _Gains, compat_minmax: tuple[float, float] | None = None) -> _Gains:
    lo = min([0.0] + g.gains)
    hi = max([0.0] + g.gains)
    if lo < 0 or hi > 1:
        return _Gains(g.levels, [(x - lo) / (hi - lo) for x in g.gains], g.counts)
    return g


def trec_rbp(rr: ResRels, p: float = 0.9, pairs: Sequence[tuple[str, float]] = ()) -> float:
    """Rank-biased precision with trec_eval's graded gains, rescaled to [0, 1] when outside it."""
    g = _rescaled_rbp_gains(_setup_gains(pairs, rr))
    gain = g.gain_of(rr.rel)
    weights = np.cumprod(np.concatenate(([1.0], np.full(max(len(gain) - 1, 0), p))))[: len(gain)]
    nz = gain != 0
    return (1.0 - p) * _seqsum(gain[nz] * weights[nz])


def trec_rbp_resid(rr: ResRels, p: float = 0.9) -> float:
    """RBP residual: p^n + (1 - p) * sum of p^i over unjudged ranks; 0 when none is unjudged."""
    unj = rr.rel < 0
    if not unj.any():
        return 0.0
    n = len(rr.rel)
    weights = np.cumprod(np.concatenate(([1.0], np.full(n, p))))  # p^0 .. p^n
    return float(weights[n]) + (1 - p) * _seqsum(weights[:n][unj])


def _recall_cut(x: float, num_rel: int, compat: str) -> int:
    if compat == "9.0.8":
        return int(x * num_rel + 0.9)
    v = x * num_rel
    return int(math.floor(v + 0.5)) if v >= 0 else -int(math.floor(-v + 0.5))  # C lround


def _interp(rr: ResRels) -> tuple[np.ndarray, np.ndarray, float]:
    """Relevant positions, interpolated precision at each, and precision at the end of the list."""
    isrel = rr.isrel
    n = len(rr.rel)
    init = _div(float(rr.num_rel_ret), float(n))
    if not isrel.any():
        return np.zeros(0, dtype=np.int64), np.zeros(0), init
    cum = rr.cum
    prec = cum / np.arange(1, n + 1, dtype=np.float64)
    suf = np.maximum.accumulate(prec[::-1])[::-1]
    suf = np.maximum(suf, init)
    pos = np.flatnonzero(isrel)
    return pos, suf[pos], init


def trec_iprec_at_recall(rr: ResRels, levels: Sequence[float], compat: str = "10.0") -> list[float]:
    """Interpolated precision at recall levels (trec_eval's cutoffs in relevant items)."""
    cuts = [_recall_cut(x, rr.num_rel, compat) for x in levels]
    return _walk_interp(rr, cuts)


def _walk_interp(rr: ResRels, cuts: Sequence[int]) -> list[float]:
    """trec_eval's backward walk: value of each cutoff index, as it assigns them."""
    pos, ip, init = _interp(rr)
    out = [0.0] * len(cuts)
    cur = len(cuts) - 1
    while cur >= 0 and cuts[cur] > rr.num_rel_ret:
        cur -= 1
    int_precis = init
    for j in range(len(pos) - 1, -1, -1):  # the j+1-th relevant item, rel_so_far = j + 1
        int_precis = float(ip[j])
        while cur >= 0 and j + 1 == cuts[cur]:
            out[cur] = int_precis
            cur -= 1
    while cur >= 0:
        out[cur] = int_precis
        cur -= 1
    return out


def _walk_interp_order(rr: ResRels, cuts: Sequence[int]) -> list[float]:
    """The values of :func:`_walk_interp` in the order trec_eval adds them (11pt_avg)."""
    pos, ip, init = _interp(rr)
    added: list[float] = []
    cur = len(cuts) - 1
    while cur >= 0 and cuts[cur] > rr.num_rel_ret:
        cur -= 1
    int_precis = init
    for j in range(len(pos) - 1, -1, -1):
        int_precis = float(ip[j])
        while cur >= 0 and j + 1 == cuts[cur]:
            added.append(int_precis)
            cur -= 1
    while cur >= 0:
        added.append(int_precis)
        cur -= 1
    return added


def trec_11pt_avg(rr: ResRels, levels: Sequence[float], compat: str = "10.0") -> float:
    """Interpolated precision averaged over the recall levels."""
    cuts = [_recall_cut(x, rr.num_rel, compat) for x in levels]
    total = 0.0
    for v in _walk_interp_order(rr, cuts):
        total += v
    return total / float(len(levels))


def trec_rprec_mult(rr: ResRels, mults: Sequence[float]) -> list[float]:
    """Precision at multiples of R: cutoff (long)(x * R + 0.9) (trec_eval's Rprec_mult)."""
    cum = rr.cum
    n = len(rr.rel)
    out = []
    for x in mults:
        c = int(x * rr.num_rel + 0.9)
        if c <= 0:
            out.append(0.0)
        elif c > n:
            out.append(rr.num_rel_ret / float(c))
        else:
            # trec_eval's backward walk stops at the first relevant item: 0 above it
            hits = int(cum[c - 1])
            out.append(hits / float(c) if hits > 0 else 0.0)
    return out


def trec_relative_p(rr: ResRels, cutoffs: Sequence[int]) -> list[float]:
    """Precision at k over the best possible precision at k: hits / min(k, R)."""
    if rr.num_rel == 0:
        return [0.0] * len(cutoffs)
    cum = rr.cum
    return [_cum_at(cum, k) / float(min(k, rr.num_rel)) for k in cutoffs]


def trec_relstring(rr: ResRels, length: float) -> str:
    """The relevance values of the first ``length`` items as characters (trec_eval's relstring)."""
    n = max(min(int(length), len(rr.rel)), 0)
    out = []
    for r in rr.rel[:n].tolist():
        if r > 9:
            out.append(">")
        elif r >= 0:
            out.append(chr(48 + r))
        elif r == NONPOOL:
            out.append("-")
        elif r == UNJUDGED:
            out.append(".")
        else:
            out.append("<")
    return "".join(out)


# --- the measure table ---------------------------------------------------------------------

# (a query's ResRels, or the list of them of its judgment groups for the *_avgjg measures), params, options
Calc = Callable[[Any, Any, Options], list[Any]]


@dataclass(frozen=True)
class TrecMeasure:
    """One trec_eval measure: name, value kind, default parameters and its calculation.

    ``kind``: ``long`` (a count: printed as an integer, summed on the ``all`` line),
    ``float`` (averaged), ``gm`` (geometric mean, floor 1e-5, not printed per query),
    ``cut_long`` / ``cut_double`` (one value per cutoff, named ``name_10`` /
    ``name_0.20``), ``param`` (one value named ``name`` or ``name_<params>``),
    ``pairs`` (``level=gain`` parameters), ``string`` (relstring), ``runid``, ``num_q``.
    """

    name: str
    kind: str
    calc: Calc
    default: tuple[Any, ...] = ()
    param_style: str = ""  # how -m name.params parses: long_cut, double_cut, double, pairs
    rel_format: str = "qrels"  # the judgments it reads: qrels, jg (qrels_jg) or prefs; "" = any

    def parse_params(self, text: str) -> tuple[Any, ...]:
        """The parameters of ``-m name.<text>``, checked as trec_eval checks them."""
        parts = text.split(",")
        if self.param_style == "long_cut":
            vals = sorted(atol(p) for p in parts)
            if vals[0] <= 0:
                raise ParameterError(f"-m {self.name}.{text}: cutoffs must be positive")
            if len(set(vals)) != len(vals):
                raise ParameterError(f"-m {self.name}.{text}: duplicate cutoffs")
            return tuple(vals)
        if self.param_style == "double_cut":
            fvals = sorted(atof(p) for p in parts)
            if not all(math.isfinite(x) for x in fvals):  # trec_eval's (int) of them is undefined
                raise ParameterError(f"-m {self.name}.{text}: cutoffs must be finite numbers")
            if len(set(fvals)) != len(fvals):
                raise ParameterError(f"-m {self.name}.{text}: duplicate cutoffs")
            return tuple(fvals)
        if self.param_style == "double":
            return tuple(atof(p) for p in parts)
        if self.param_style == "pairs":
            pairs = []
            for p in parts:
                if p.count("=") != 1:
                    raise ParameterError(f"-m {self.name}.{text}: parameters must be name=value pairs")
                k, v = p.split("=")
                pairs.append((k, atof(v)))
                if not math.isfinite(pairs[-1][1]):  # trec_eval's int(gain difference) is undefined there
                    raise ParameterError(f"-m {self.name}.{text}: the value of {k} must be a finite number, got {v}")
                if self.name in ("rbp", "rbp_resid") and k == "p" and not 0.0 < pairs[-1][1] < 1.0:
                    raise ParameterError(f"-m {self.name}.{text}: the persistence p must be in (0, 1), got {v}")
            return tuple(pairs)
        raise ParameterError(f"measure {self.name} takes no parameters (got -m {self.name}.{text})")

    def value_names(self, params: tuple[Any, ...], printable: str | None) -> list[str]:
        if self.kind == "cut_long":
            return [f"{self.name}_{k}" for k in params]
        if self.kind == "cut_double":
            limit = len(self.name) + 9  # trec_eval's buffer for the name
            return [f"{self.name}_{x:3.2f}"[:limit] for x in params]
        if printable is not None and self.kind in ("param", "pairs", "string"):
            return [f"{self.name}_{printable}"]
        return [self.name]

    def compute(self, rr: ResRels, opts: Options, params: tuple[Any, ...] | None = None) -> list[Any]:
        return self.calc(rr, self.default if params is None else params, opts)


def _cut_p(rr: ResRels, ks: Sequence[int], o: Options) -> list[float]:
    cum = rr.cum
    return [_cum_at(cum, k) / float(k) for k in ks]


def _cut_recall(rr: ResRels, ks: Sequence[int], o: Options) -> list[float]:
    if rr.num_rel == 0:
        return [0.0] * len(ks)
    cum = rr.cum
    return [_cum_at(cum, k) / float(rr.num_rel) for k in ks]


def _cut_map(rr: ResRels, ks: Sequence[int], o: Options) -> list[float]:
    isrel = rr.isrel
    if rr.num_rel == 0 or not isrel.any():
        return [0.0] * len(ks)
    pos = np.flatnonzero(isrel)
    prec = np.arange(1, len(pos) + 1) / (pos + 1.0)
    run = np.cumsum(prec)
    out = []
    for k in ks:
        m = int(np.searchsorted(pos, k, side="left"))
        out.append(float(run[m - 1]) / rr.num_rel if m else 0.0)
    return out


def _cut_success(rr: ResRels, ks: Sequence[int], o: Options) -> list[float]:
    cum = rr.cum
    return [1.0 if _cum_at(cum, k) > 0 else 0.0 for k in ks]


def _cut_unj(rr: ResRels, ks: Sequence[int], o: Options) -> list[float]:
    cum = np.cumsum(rr.rel < 0)
    return [_cum_at(cum, k) / float(k) for k in ks]


def _rprec(rr: ResRels, _: Any, o: Options) -> list[float]:
    if not rr.num_rel:
        return [0.0]
    cum = rr.cum
    return [_cum_at(cum, rr.num_rel) / float(rr.num_rel)]


def _recip(rr: ResRels, _: Any, o: Options) -> list[float]:
    hit = np.flatnonzero(rr.rel >= rr.level)
    return [1.0 / (int(hit[0]) + 1) if len(hit) else 0.0]


def _utility(rr: ResRels, p: Sequence[float], o: Options) -> list[float]:
    if len(p) != 4:
        raise ParameterError("utility needs exactly 4 coefficients (-m utility.a,b,c,d)")
    a, b, c, d = p
    return [a * rr.num_rel_ret + b * (rr.num_ret - rr.num_rel_ret) + c * (rr.num_rel - rr.num_rel_ret)
            + d * (o.num_docs_in_coll + rr.num_rel_ret - rr.num_ret - rr.num_rel)]


def _set_p(rr: ResRels, _: Any, o: Options) -> list[float]:
    return [rr.num_rel_ret / float(rr.num_ret) if rr.num_ret else 0.0]


def _set_rel_p(rr: ResRels, _: Any, o: Options) -> list[float]:
    return [rr.num_rel_ret / float(min(rr.num_ret, rr.num_rel)) if rr.num_ret and rr.num_rel else 0.0]


def _set_recall(rr: ResRels, _: Any, o: Options) -> list[float]:
    return [rr.num_rel_ret / float(rr.num_rel) if rr.num_rel else 0.0]


def _set_map(rr: ResRels, _: Any, o: Options) -> list[float]:
    if rr.num_ret and rr.num_rel:
        return [(float(rr.num_rel_ret) * float(rr.num_rel_ret)) / (float(rr.num_ret) * float(rr.num_rel))]
    return [0.0]


def _set_f(rr: ResRels, p: Sequence[float], o: Options) -> list[float]:
    if not rr.num_rel_ret:
        return [0.0]
    P = rr.num_rel_ret / float(rr.num_ret)
    R = rr.num_rel_ret / float(rr.num_rel)
    x = p[0]
    return [_div((x + 1.0) * P * R, x * P + R)]


def _avg_jg(values: Sequence[float]) -> float:
    """Sum over the judgment groups, divided by their number when more than one (trec_eval)."""
    total = 0.0
    for v in values:
        total += v
    return total / len(values) if len(values) > 1 else total


def _avg_jg_cut(rows: Sequence[Sequence[float]]) -> list[float]:
    return [_avg_jg([r[i] for r in rows]) for i in range(len(rows[0]))] if rows else []


def _prefs_calc(name: str) -> Calc:
    def calc(rp: Any, p: Any, o: Options) -> list[Any]:
        from .prefs import PREFS_MEASURES

        return [PREFS_MEASURES[name][1](rp)]

    return calc


def _pair_p(pairs: Sequence[tuple[str, float]], default: float) -> float:
    p = default
    for name, value in pairs:
        if name == "p":
            p = value
    return p


MEASURES: tuple[TrecMeasure, ...] = (
    TrecMeasure("runid", "runid", lambda rr, p, o: [], rel_format=""),
    TrecMeasure("num_q", "num_q", lambda rr, p, o: [1], rel_format=""),
    TrecMeasure("num_ret", "long", lambda rr, p, o: [rr.num_ret]),
    TrecMeasure("num_rel", "long", lambda rr, p, o: [rr.num_rel]),
    TrecMeasure("num_rel_ret", "long", lambda rr, p, o: [rr.num_rel_ret]),
    TrecMeasure("map", "float", lambda rr, p, o: [trec_ap(rr)]),
    TrecMeasure("gm_map", "gm", lambda rr, p, o: [trec_ap(rr)]),
    TrecMeasure("Rprec", "float", _rprec),
    TrecMeasure("bpref", "float", lambda rr, p, o: [trec_bpref(rr)]),
    TrecMeasure("recip_rank", "float", _recip),
    TrecMeasure("iprec_at_recall", "cut_double", lambda rr, p, o: trec_iprec_at_recall(rr, p, o.compat),
                (0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0), "double_cut"),
    TrecMeasure("P", "cut_long", _cut_p, (5, 10, 15, 20, 30, 100, 200, 500, 1000), "long_cut"),
    TrecMeasure("relstring", "string", lambda rr, p, o: [trec_relstring(rr, p[0])], (10.0,), "double"),
    TrecMeasure("recall", "cut_long", _cut_recall, (5, 10, 15, 20, 30, 100, 200, 500, 1000), "long_cut"),
    TrecMeasure("infAP", "float", lambda rr, p, o: [trec_infap(rr)]),
    TrecMeasure("gm_bpref", "gm", lambda rr, p, o: [trec_bpref(rr)]),
    TrecMeasure("Rprec_mult", "cut_double", lambda rr, p, o: trec_rprec_mult(rr, p),
                (0.2, 0.4, 0.6, 0.8, 1.0, 1.2, 1.4, 1.6, 1.8, 2.0), "double_cut"),
    TrecMeasure("utility", "param", _utility, (1.0, -1.0, 0.0, 0.0), "double"),
    TrecMeasure("11pt_avg", "param", lambda rr, p, o: [trec_11pt_avg(rr, p, o.compat)],
                (0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0), "double"),
    TrecMeasure("binG", "float", lambda rr, p, o: [trec_bing(rr)]),
    TrecMeasure("G", "pairs", lambda rr, p, o: [trec_g(rr, p)], (), "pairs"),
    TrecMeasure("dcg", "pairs", lambda rr, p, o: [_dcgs(rr, _setup_gains(p, rr))[0]], (), "pairs"),
    TrecMeasure("ideal_dcg", "pairs", lambda rr, p, o: [_dcgs(rr, _setup_gains(p, rr))[1]], (), "pairs"),
    TrecMeasure("ndcg", "pairs", lambda rr, p, o: [trec_ndcg(rr, p)], (), "pairs"),
    TrecMeasure("ndcg_rel", "pairs", lambda rr, p, o: [trec_ndcg_rel(rr, p)], (), "pairs"),
    TrecMeasure("Rndcg", "pairs", lambda rr, p, o: [trec_rndcg(rr, p)], (), "pairs"),
    TrecMeasure("ndcg_cut", "cut_long", lambda rr, p, o: trec_ndcg_cut(rr, p),
                (5, 10, 15, 20, 30, 100, 200, 500, 1000), "long_cut"),
    TrecMeasure("map_cut", "cut_long", _cut_map, (5, 10, 15, 20, 30, 100, 200, 500, 1000), "long_cut"),
    TrecMeasure("relative_P", "cut_long", lambda rr, p, o: trec_relative_p(rr, p),
                (5, 10, 15, 20, 30, 100, 200, 500, 1000), "long_cut"),
    TrecMeasure("success", "cut_long", _cut_success, (1, 5, 10), "long_cut"),
    TrecMeasure("set_P", "float", _set_p),
    TrecMeasure("set_relative_P", "float", _set_rel_p),
    TrecMeasure("set_recall", "float", _set_recall),
    TrecMeasure("set_map", "float", _set_map),
    TrecMeasure("set_F", "param", _set_f, (1.0,), "double"),
    TrecMeasure("num_nonrel_judged_ret", "long",
                lambda rr, p, o: [int(np.count_nonzero((rr.rel >= 0) & (rr.rel < rr.level)))]),
    # preference measures (-R prefs, -R qrels_prefs): ``rr`` is then a prefs.ResultsPrefs
    *(TrecMeasure(name, kind, _prefs_calc(name), rel_format="prefs")
      for name, kind in (("prefs_num_prefs_poss", "long"), ("prefs_num_prefs_ful", "long"),
                         ("prefs_num_prefs_ful_ret", "long"), ("prefs_simp", "float"), ("prefs_pair", "float"),
                         ("prefs_avgjg", "float"), ("prefs_avgjg_Rnonrel", "float"), ("prefs_simp_ret", "float"),
                         ("prefs_pair_ret", "float"), ("prefs_avgjg_ret", "float"),
                         ("prefs_avgjg_Rnonrel_ret", "float"), ("prefs_simp_imp", "float"),
                         ("prefs_pair_imp", "float"), ("prefs_avgjg_imp", "float"))),
    # judgment-group measures (-R qrels_jg): ``rr`` is then the list of one ResRels per group
    TrecMeasure("map_avgjg", "float", lambda rrs, p, o: [_avg_jg([trec_ap(rr) for rr in rrs])], (), "", "jg"),
    TrecMeasure("P_avgjg", "cut_long", lambda rrs, p, o: _avg_jg_cut([_cut_p(rr, p, o) for rr in rrs]),
                (5, 10, 15, 20, 30, 100, 200, 500, 1000), "long_cut", "jg"),
    TrecMeasure("Rprec_mult_avgjg", "cut_double",
                lambda rrs, p, o: _avg_jg_cut([trec_rprec_mult(rr, p) for rr in rrs]),
                (0.2, 0.4, 0.6, 0.8, 1.0, 1.2, 1.4, 1.6, 1.8, 2.0), "double_cut", "jg"),
    TrecMeasure("rbp", "pairs", lambda rr, p, o: [trec_rbp(rr, _pair_p(p, 0.9), p)], (), "pairs"),
    TrecMeasure("rbp_resid", "pairs", lambda rr, p, o: [trec_rbp_resid(rr, _pair_p(p, 0.9))], (), "pairs"),
    TrecMeasure("unj", "cut_long", _cut_unj, (5, 10, 20), "long_cut"),
)

_BY_NAME = {m.name: m for m in MEASURES}

_OFFICIAL = ("runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec", "bpref",
             "recip_rank", "iprec_at_recall", "P")
_ALL_TREC_908 = _OFFICIAL + ("relstring", "recall", "infAP", "gm_bpref", "utility", "11pt_avg", "ndcg",
                             "relative_P", "Rprec_mult", "success", "map_cut", "ndcg_cut", "ndcg_rel",
                             "Rndcg", "binG", "G", "set_P", "set_recall", "set_relative_P", "set_map",
                             "set_F", "num_nonrel_judged_ret")

_ALL_PREFS = ("runid", "num_q", "prefs_num_prefs_poss", "prefs_num_prefs_ful", "prefs_num_prefs_ful_ret",
              "prefs_simp", "prefs_pair", "prefs_avgjg", "prefs_avgjg_Rnonrel", "prefs_simp_ret", "prefs_pair_ret",
              "prefs_avgjg_ret", "prefs_avgjg_Rnonrel_ret", "prefs_simp_imp", "prefs_pair_imp", "prefs_avgjg_imp")
_PREFS = ("runid", "num_q", "prefs_num_prefs_poss", "prefs_num_prefs_ful", "prefs_num_prefs_ful_ret", "prefs_simp",
          "prefs_pair", "prefs_avgjg")

NICKNAMES: dict[str, dict[str, tuple[str, ...]]] = {
    "10.0": {
        "official": _OFFICIAL,
        "all_trec": _ALL_TREC_908 + ("unj", "rbp", "rbp_resid"),
        "set": ("runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "utility", "set_P", "set_recall",
                "set_relative_P", "set_map", "set_F"),
        "qrels_jg": ("runid", "num_q", "map_avgjg", "P_avgjg", "Rprec_mult_avgjg"),
        "all_prefs": _ALL_PREFS,
        "prefs": _PREFS,
    },
    "9.0.8": {
        "official": _OFFICIAL,
        "all_trec": _ALL_TREC_908,
        "set": ("runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "utility", "set_P", "set_recall",
                "set_relative_P", "set_map", "set_F"),
        "qrels_jg": ("runid", "num_q", "map_avgjg", "P_avgjg", "Rprec_mult_avgjg"),
        "all_prefs": _ALL_PREFS,
        "prefs": _PREFS,
    },
}

# measures that trec_eval 9.0.8 does not have
_NEW_IN_10 = {"rbp", "rbp_resid", "unj"}


def measure(name: str) -> TrecMeasure:
    """The trec_eval measure called ``name`` (exact, case-sensitive, as trec_eval)."""
    if name not in _BY_NAME:
        raise ParameterError(f"trec_eval has no measure {name!r}")
    return _BY_NAME[name]


def expand_selection(args: Sequence[str], compat: str = "10.0") -> tuple[list[TrecMeasure], dict[str, str]]:
    """The measures ``-m`` options select (in trec_eval's order) and their parameter texts.

    >>> ms, params = expand_selection(["P.5,10", "map"])
    >>> [m.name for m in ms], params
    (['map', 'P'], {'P': '5,10'})
    """
    marked: set[str] = set()
    params: dict[str, str] = {}
    names = NICKNAMES[compat]
    for arg in args:
        name, dot, rest = arg.partition(".")
        if dot:
            if rest == "":
                raise ParameterError(f"-m {arg}: improper measure parameters")
            params.setdefault(name, rest)  # trec_eval uses the first -m name.params given
        if name in names:
            marked.update(names[name])
            continue
        if name not in _BY_NAME or (compat == "9.0.8" and name in _NEW_IN_10):
            raise ParameterError(f"illegal measure '{arg}' (-m): trec_eval {compat} has no such measure")
        marked.add(name)
    return [m for m in MEASURES if m.name in marked], params
