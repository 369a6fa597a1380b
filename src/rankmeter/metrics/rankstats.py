"""Rank statistics over segments: average ranks, Kendall's pair counts, Spearman's rho, ROC.

Shared by the rank-correlation metrics (ranking against graded judgments, predicted
against true ratings), ROC AUC and the single-list functions of
:mod:`rankmeter.metrics.functions`. Every function takes CSR ``offsets`` (one
segment per query or user; ``[0, n]`` for one list) and returns one value per
segment; a segment's value never depends on the other segments. Pure numpy, no
Python loop over rows or segments.

Kendall's discordant pairs are counted in O(n log m) (m the number of distinct
values of the second variable) by a stable radix partition on the bits of the
dense ranks, most significant bit first (the levels of a wavelet matrix): at
each level, the pairs decided by that bit are the (one, zero) inversions of a
binary sequence inside each group of equal higher bits, which follow from the
positions of the ones; the array is then stably partitioned by the bit (zeros
first), which keeps each group contiguous and in its original order. Each level
is a handful of sequential numpy passes (no scatter, no per-element search), which
is what lets pure numpy keep up with the compiled merge sort of
``scipy.stats.kendalltau``. One list with many distinct values on both sides
(continuous data) goes faster still: both sorts are ``np.sort`` of packed integer
keys (:func:`sort_rows`), and without ties the count runs on a permutation
(:func:`permutation_inversions`): no group bookkeeping, and the last 6 bits are
counted with bit masks.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import cast

import numpy as np

from . import _segments as S

__all__ = [
    "KendallCounts",
    "sort_within",
    "average_ranks",
    "kendall_counts",
    "kendall_tau",
    "spearman_rho",
    "roc_auc",
    "roc_points",
    "count_inversions",
    "permutation_inversions",
    "sort_rows",
]


def _seg_ids(offsets: np.ndarray) -> np.ndarray:
    return S.row_segments(offsets)


def order_by(*keys: tuple[np.ndarray, int]) -> np.ndarray:
    """Row order sorting by several integer keys (most significant first), each ``(codes, size)``
    with codes in [0, size); equal rows keep their order.

    One ``np.sort`` of the keys packed with the row number into int64 when they fit in
    63 bits (far faster than ``np.lexsort``), else a lexicographic sort.
    """
    n = len(keys[0][0])
    row_bits = max(1, int(max(n - 1, 1)).bit_length())
    bits = sum(max(1, int(max(size - 1, 1)).bit_length()) for _, size in keys)
    if bits + row_bits <= 63:
        packed = np.zeros(n, dtype=np.int64)
        for codes, size in keys:
            packed *= max(size, 1)
            packed += codes
        packed <<= row_bits
        packed |= np.arange(n, dtype=np.int64)
        packed.sort()
        return packed & ((1 << row_bits) - 1)
    return np.lexsort(tuple(codes for codes, _ in reversed(keys)))


def codes_of(values: np.ndarray, few: bool = True) -> tuple[np.ndarray, int]:
    """Dense codes of ``values`` (equal values, equal codes; order kept) and how many there are.

    ``few=False`` skips the search in a short list of distinct values (tests force the sort).
    """
    lv = levels(values) if few else None
    if lv is not None:
        return lv[1], len(lv[0])
    order = np.argsort(values)
    new = _flags_new(values[order])
    dense = np.empty(len(values), dtype=np.int64)
    dense[order] = np.cumsum(new, dtype=np.int64) - 1
    return dense, int(new.sum()) if len(values) else 0


def _float_keys(values: np.ndarray) -> np.ndarray:
    """uint64 keys in the order of the float64 ``values`` (IEEE bits, sign flipped; -0.0 as 0.0)."""
    k = (values + 0.0).view(np.int64)
    k ^= (k >> 63) | np.int64(-(2**63))
    return k.view(np.uint64)


def sort_rows(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Row order sorting float64 ``values`` ascending, equal values in row order; and the sorted values.

    One ``np.sort`` of uint64 keys (far faster than ``np.argsort``): the value's
    order-preserving bits, less the smallest, shifted right until the row number
    fits below them. The shift is monotone, so rows can be out of order only
    within a run of equal shifted keys (values agreeing in all the bits kept, e.g.
    a few ulps apart); the runs holding a descent are re-sorted by a lexicographic
    sort, which keeps the result exact.
    """
    values = np.asarray(values, dtype=np.float64)
    n = len(values)
    if n == 0:
        return np.zeros(0, dtype=np.int64), values.copy()
    row_bits = max(1, (n - 1).bit_length())
    low = (1 << row_bits) - 1
    key = _float_keys(values)
    key -= key.min()
    shift = max(0, int(key.max()).bit_length() + row_bits - 64)
    key >>= shift
    key <<= row_bits
    key |= np.arange(n, dtype=np.uint64)
    key.sort()
    order = (key & low).view(np.int64)
    sv = values[order]
    descents = np.flatnonzero(sv[1:] < sv[:-1]) if shift else np.zeros(0, dtype=np.int64)
    if len(descents):
        # the sorted keys' rows [start, start + length) of each run holding a descent
        run_key = np.unique(key[descents] >> row_bits) << row_bits
        start = np.searchsorted(key, run_key)
        length = np.searchsorted(key, run_key | low, side="right") - start
        run = np.repeat(np.arange(len(start)), length)
        fix = np.arange(len(run)) + np.repeat(start - (np.cumsum(length) - length), length)
        rows = order[fix]  # in row order within each run: the lexsort keeps it for equal values
        order[fix] = rows[np.lexsort((values[rows], run))]
        sv[fix] = values[order[fix]]
    return order, sv


def sort_within(offsets: np.ndarray, values: np.ndarray, *, stable: bool = False, few: bool = True) -> np.ndarray:
    """Row order sorting each segment's rows by value, ascending (segments stay in place)."""
    n = int(offsets[-1])
    if len(offsets) <= 2 or n == 0:
        return np.argsort(values, kind="stable" if stable else "quicksort")
    codes, m = codes_of(values, few)
    return order_by((_seg_ids(offsets), len(offsets) - 1), (codes, m))


def _run_starts(flags_new: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Group id of each row and the start row of each group, from 'starts a new group' flags."""
    starts = np.flatnonzero(flags_new)
    gid = np.cumsum(flags_new, dtype=np.int64) - 1
    return gid, starts


_FEW = 1 << 16  # "few distinct values": counted in tables instead of sorted


def levels(values: np.ndarray, sample_limit: int = 1024) -> tuple[np.ndarray, np.ndarray] | None:
    """(sorted distinct values, code of each row) when ``values`` has few distinct values, else None.

    Cheap when there are many: a strided sample of 4096 values is looked at first (more
    than ``sample_limit`` distinct values in it: None).
    Codes come from a binary search in the distinct values (no sort of the rows).
    """
    raw = np.asarray(values, dtype=np.float64)
    n = len(raw)
    if n == 0:
        return None
    if n > 16384 and len(np.unique(raw[:: n // 4096])) > sample_limit:
        return None
    v = raw + 0.0  # -0.0 becomes 0.0
    if n > 16384:  # one hash pass gives the distinct values and every row's code (a binary search per row is slower)
        import pyarrow as pa

        from .. import _compute as C
        from ..data.ids import to_numpy

        enc = C.dictionary_encode(pa.array(v))
        d = to_numpy(enc.dictionary)
        if len(d) > _FEW:
            return None
        order = np.argsort(d)
        position = np.empty(len(d), dtype=np.int64)
        position[order] = np.arange(len(d), dtype=np.int64)
        return d[order], position[to_numpy(enc.indices)]
    u = np.unique(v)
    if len(u) > _FEW:
        return None
    return u, np.searchsorted(u, v).astype(np.int64)


def _table_ok(n_seg: int, cells: int, n: int) -> bool:
    return n_seg * cells <= max(n, 1 << 20)


def average_ranks(offsets: np.ndarray, values: np.ndarray, method: str = "auto") -> np.ndarray:
    """1-based rank of each row within its segment, ties given the average of their ranks.

    ``method``: ``"table"`` counts rows per (segment, value) (few distinct values),
    ``"sort"`` sorts; ``"auto"`` picks (tests force each).

    >>> average_ranks(np.array([0, 4]), np.array([25.0, 75.0, 50.0, 25.0])).tolist()
    [1.5, 4.0, 3.0, 1.5]
    """
    values = np.asarray(values, dtype=np.float64)
    n = len(values)
    out = np.empty(n, dtype=np.float64)
    if n == 0:
        return out
    n_seg = len(offsets) - 1
    lv = levels(values) if method != "sort" else None
    if lv is not None and (method == "table" or _table_ok(n_seg, len(lv[0]), n)):
        # counts per (segment, level): rank = rows of lower levels + (count + 1) / 2
        m = len(lv[0])
        row_seg = _seg_ids(offsets) if n_seg > 1 else np.zeros(n, dtype=np.int64)
        cell = row_seg * m + lv[1]
        counts = np.bincount(cell, minlength=n_seg * m).reshape(n_seg, m)
        before = np.cumsum(counts, axis=1) - counts
        avg = before + (counts + 1) / 2.0
        return cast(np.ndarray, avg.ravel()[cell])
    order = sort_within(offsets, values, few=method != "sort")
    sv = values[order]
    seg = _seg_ids(offsets)[order] if len(offsets) > 2 else None
    new = np.empty(n, dtype=bool)
    new[0] = True
    np.not_equal(sv[1:], sv[:-1], out=new[1:])
    if seg is not None:
        new[1:] |= seg[1:] != seg[:-1]
    gid, starts = _run_starts(new)
    ends = np.append(starts[1:], n)  # exclusive
    # position of the sorted row within its segment, 1-based
    if seg is not None:
        group_start = offsets[:-1][seg][starts]  # where each group's segment starts
        first, last = starts - group_start + 1, ends - group_start
    else:
        first, last = starts + 1, ends
    avg = (first + last) / 2.0
    out[order] = avg[gid]
    return out


def count_inversions(w: np.ndarray, offsets: np.ndarray | None = None) -> np.ndarray:
    """Pairs i < j of the same segment with w[i] > w[j], per segment (int64).

    ``w`` holds non-negative integers (dense ranks); ``offsets`` groups its rows
    into segments (one segment when None).

    Radix partition on the bits of ``w``, most significant first. Before the level
    of bit b, the rows are arranged in groups of equal (segment, bits above b), each
    contiguous and in original order (only the bits up to b are kept, in 32, 16 then
    8-bit integers). With C[i] the ones (bit b set) before row i,
    a group [s, e) holds ``sum_{i in [s, e)} (C[i] - C[s]) - O(O-1)/2`` pairs
    decided at this bit (O its ones): every zero counts the ones before it in its
    group. The rows are then stably partitioned by the bit, zeros first, over the
    whole array; groups stay contiguous, and split in two.

    >>> count_inversions(np.array([2, 0, 1, 0])).tolist()
    [4]
    >>> count_inversions(np.array([1, 0, 0, 1]), np.array([0, 2, 4])).tolist()
    [1, 0]
    """
    w = np.asarray(w)
    n = len(w)
    if offsets is None:
        offsets = np.array([0, n], dtype=np.int64)
    offsets = np.asarray(offsets, dtype=np.int64)
    n_seg = len(offsets) - 1
    out = np.zeros(n_seg, dtype=np.int64)
    if n < 2:
        return out
    top = int(w.max())
    if top < 1:
        return out
    if top >= 2**31 or n >= 2**31 - 1:  # pragma: no cover - int32 buffers
        raise ValueError("count_inversions: values or rows beyond 2^31")
    bits = top.bit_length()
    multi = n_seg > 1
    v = np.ascontiguousarray(w, dtype=np.int32)  # below bit b, only the low b + 1 bits are kept
    v2 = np.empty_like(v)
    mask = np.empty(n, dtype=bool)
    notmask = np.empty(n, dtype=bool)
    c = np.zeros(n + 1, dtype=np.int32)  # c[i] = ones before row i (when the groups are many)
    # groups, in arrangement order: size and segment; empty groups are dropped
    lengths = np.diff(offsets)
    keep = lengths > 0
    g_size = lengths[keep]
    g_seg = np.flatnonzero(keep)
    total = 0
    for b in range(bits - 1, -1, -1):
        if b == 15 or b == 7:  # narrower values, less memory traffic
            v = v.astype(np.uint16 if b == 15 else np.uint8)
            v2 = np.empty_like(v)
        g_start = np.cumsum(g_size) - g_size
        g_end = g_start + g_size
        np.greater_equal(v, 1 << b, out=mask)  # bit b, as v < 2^(b+1)
        ones_at = np.flatnonzero(mask)  # positions of the ones, increasing
        if len(g_size) * 64 <= n:
            c_start = np.searchsorted(ones_at, g_start)
            c_end = np.searchsorted(ones_at, g_end)
        else:
            np.cumsum(mask, out=c[1:])
            c_start = c[g_start].astype(np.int64)
            c_end = c[g_end].astype(np.int64)
        ones = c_end - c_start
        # pairs (one before zero) in group [s, e) with O ones at positions p: O (e - 1) - sum p - O (O - 1) / 2
        base = ones * (g_end - 1) - ones * (ones - 1) // 2
        if multi:
            csum = np.concatenate(([0], np.cumsum(ones_at)))
            per_group = base - (csum[c_end] - csum[c_start])
            out += np.bincount(g_seg, weights=per_group, minlength=n_seg).astype(np.int64)
        else:
            total += int(base.sum()) - int(ones_at.sum())
        if b == 0:
            break
        np.logical_not(mask, out=notmask)
        zeros_at = np.flatnonzero(notmask)
        nz = len(zeros_at)
        v.take(zeros_at, out=v2[:nz])
        v.take(ones_at, out=v2[nz:])
        v2[nz:] -= v2.dtype.type(1 << b)
        v, v2 = v2, v
        zeros = g_size - ones
        g_size = np.concatenate((zeros, ones))
        g_seg = np.concatenate((g_seg, g_seg))
        nonempty = g_size > 0
        if not nonempty.all():
            g_size, g_seg = g_size[nonempty], g_seg[nonempty]
    if not multi:
        out[0] = total
    return out


_BIT = np.left_shift(np.uint64(1), np.arange(64, dtype=np.uint64))


def permutation_inversions(p: np.ndarray) -> int:
    """Pairs i < j with p[i] > p[j], for a permutation ``p`` of 0..n-1.

    The radix partition of :func:`count_inversions`, with ``p`` padded by n..N-1 to
    a multiple of 64 (no pair added): the group of a value prefix P holds exactly
    the values of its band, so its size and ones follow from P (no per-group
    counting). After the partition on bit 6 the array is blocks of 64, each a
    permutation of 0..63 in original order, counted with bit masks: an element's
    smaller predecessors are the popcount, below its own bit, of the running OR of
    its block's bits.

    >>> permutation_inversions(np.array([2, 0, 3, 1]))
    3
    """
    n = len(p)
    size_n = max(64, -(-n // 64) * 64)
    v = np.empty(size_n, dtype=np.int32)
    v[:n] = p
    v[n:] = np.arange(n, size_n)
    v2 = np.empty_like(v)
    mask = np.empty(size_n, dtype=bool)
    prefix = np.zeros(1, dtype=np.int64)  # value >> (b + 1) of each group, in arrangement order
    total = 0
    for b in range((size_n - 1).bit_length() - 1, 5, -1):
        dtype = np.uint8 if b < 8 else np.uint16 if b < 16 else np.int32  # v < 2^(b+1)
        if v.dtype != dtype:
            v, v2 = v.astype(dtype), np.empty(size_n, dtype=dtype)
        size = np.clip(size_n - (prefix << (b + 1)), 0, 1 << (b + 1))
        ones = np.maximum(size - (1 << b), 0)
        end = np.cumsum(size)
        np.greater_equal(v, 1 << b, out=mask)
        ones_at = np.flatnonzero(mask)
        # (one, zero) pairs of the group [s, e) with O ones at positions p: O (e - 1) - sum p - O (O - 1) / 2
        total += int((ones * (end - 1) - ones * (ones - 1) // 2).sum()) - int(ones_at.sum())
        zeros_at = np.flatnonzero(~mask)
        nz = len(zeros_at)
        v.take(zeros_at, out=v2[:nz])
        v.take(ones_at, out=v2[nz:])
        v2[nz:] -= dtype(1 << b)
        v, v2 = v2, v
        prefix = np.concatenate((2 * prefix, 2 * prefix + 1))
        prefix = prefix[(prefix << b) < size_n]
    bit = _BIT[v].reshape(-1, 64)
    below = np.bitwise_or.accumulate(bit, axis=1)
    bit -= np.uint64(1)
    below &= bit
    return total + len(bit) * (64 * 63 // 2) - int(np.bitwise_count(below).sum(dtype=np.int64))


@dataclass(frozen=True)
class KendallCounts:
    """Pair counts per segment, the ingredients of every Kendall statistic.

    ``pairs`` = n(n-1)/2; ``discordant``; ``x_ties`` / ``y_ties`` = pairs tied in x / y
    (sum of t(t-1)/2 over tie groups); ``joint_ties`` = pairs tied in both;
    ``x_distinct`` / ``y_distinct`` = distinct values (for tau-c).
    """

    n: np.ndarray
    pairs: np.ndarray
    discordant: np.ndarray
    x_ties: np.ndarray
    y_ties: np.ndarray
    joint_ties: np.ndarray
    x_distinct: np.ndarray
    y_distinct: np.ndarray

    @property
    def s(self) -> np.ndarray:
        """Concordant minus discordant pairs."""
        return cast(np.ndarray, self.pairs - self.x_ties - self.y_ties + self.joint_ties - 2 * self.discordant)


def _tie_pairs(flags_new: np.ndarray, seg_of_row: np.ndarray | None, n_seg: int) -> np.ndarray:
    """sum over runs of t(t-1)/2 per segment, from 'starts a new run' flags."""
    starts = np.flatnonzero(flags_new)
    t = np.diff(starts, append=len(flags_new)).astype(np.int64)
    tp = t * (t - 1) // 2
    if seg_of_row is None:
        return np.array([tp.sum()], dtype=np.int64)
    return np.bincount(seg_of_row[starts], weights=tp, minlength=n_seg).astype(np.int64)


def _flags_new(*sorted_cols: np.ndarray) -> np.ndarray:
    """True where a row starts a new run of equal values in any of the (sorted) columns."""
    n = len(sorted_cols[0])
    new = np.empty(n, dtype=bool)
    if n:
        new[0] = True
        np.not_equal(sorted_cols[0][1:], sorted_cols[0][:-1], out=new[1:])
        for col in sorted_cols[1:]:
            new[1:] |= col[1:] != col[:-1]
    return new


def _kendall_table(n_seg: int, seg: np.ndarray | None, cx: np.ndarray, mx: int, cy: np.ndarray, my: int,
                   lengths: np.ndarray) -> KendallCounts:
    """Pair counts from the (segment, x level, y level) contingency table: no sort at all."""
    cell = (cx * my + cy) if seg is None else (seg * mx + cx) * my + cy
    c = np.bincount(cell, minlength=n_seg * mx * my).reshape(n_seg, mx, my).astype(np.int64)
    # t[s, i, j] = rows of segment s with x level >= i and y level <= j
    t = np.cumsum(np.cumsum(c[:, ::-1, :], axis=1)[:, ::-1, :], axis=2)
    below = np.zeros_like(c)  # rows with a larger x and a smaller y than cell (i, j)
    below[:, :-1, 1:] = t[:, 1:, :-1]
    dis = (c * below).sum(axis=(1, 2))
    rows = c.sum(axis=2)
    cols = c.sum(axis=1)
    pairs = lengths * (lengths - 1) // 2
    return KendallCounts(
        n=lengths.astype(np.int64), pairs=pairs.astype(np.int64), discordant=dis.astype(np.int64),
        x_ties=(rows * (rows - 1) // 2).sum(axis=1), y_ties=(cols * (cols - 1) // 2).sum(axis=1),
        joint_ties=(c * (c - 1) // 2).sum(axis=(1, 2)), x_distinct=(rows > 0).sum(axis=1).astype(np.int64),
        y_distinct=(cols > 0).sum(axis=1).astype(np.int64),
    )


def _kendall_one(a: np.ndarray, wb: np.ndarray, mb: int) -> tuple[int, int, int, int, int, int]:
    """One segment: order by ``a``, count inversions of the dense codes ``wb`` (mb of them).

    Returns (discordant, a ties, b ties, joint ties, a distinct, b distinct).
    """
    n = len(a)
    order, sa = sort_rows(a)
    w = wb[order]
    new_a = _flags_new(sa)
    if n and not new_a.all():
        # a has ties: order each run of equal a by b, by one sort of packed keys
        key = (np.cumsum(new_a, dtype=np.int64) - 1) * mb + w
        key.sort()
        w = key % mb
    dis = int(count_inversions(w)[0])
    a_distinct = int(np.count_nonzero(new_a))
    if a_distinct == n:  # no ties in a, hence no joint ties
        a_ties = joint = 0
    else:
        new_ab = new_a.copy()
        new_ab[1:] |= w[1:] != w[:-1]
        a_ties, joint = int(_tie_pairs(new_a, None, 1)[0]), int(_tie_pairs(new_ab, None, 1)[0])
    if mb == n:  # codes all distinct
        b_ties, b_distinct = 0, n
    else:
        counts_b = np.bincount(wb, minlength=mb)
        b_ties, b_distinct = int((counts_b * (counts_b - 1) // 2).sum()), int(np.count_nonzero(counts_b))
    return dis, a_ties, b_ties, joint, a_distinct, b_distinct


def _kendall_sorted(a: np.ndarray, b: np.ndarray) -> tuple[int, int, int, int, int, int]:
    """One segment, both sides with many distinct values: sort by ``a``, then the positions by ``b``.

    With the positions in a's order sorted by b (equal b by position), the discordant
    pairs are the inversions of the a codes at those positions: of the positions
    themselves, a permutation, when a has no ties. Returns as :func:`_kendall_one`.
    """
    n = len(a)
    order, sa = sort_rows(a)
    pos, sb = sort_rows(b[order])
    new_a, new_b = _flags_new(sa), _flags_new(sb)
    a_distinct, b_distinct = int(np.count_nonzero(new_a)), int(np.count_nonzero(new_b))
    if a_distinct == n:
        dis, a_ties, joint = permutation_inversions(pos), 0, 0
    else:
        w = (np.cumsum(new_a) - 1)[pos]
        dis = int(count_inversions(w)[0])
        new_ab = new_b.copy()
        new_ab[1:] |= w[1:] != w[:-1]  # equal a are adjacent within a run of equal b
        a_ties, joint = int(_tie_pairs(new_a, None, 1)[0]), int(_tie_pairs(new_ab, None, 1)[0])
    b_ties = 0 if b_distinct == n else int(_tie_pairs(new_b, None, 1)[0])
    return dis, a_ties, b_ties, joint, a_distinct, b_distinct


def kendall_counts(offsets: np.ndarray, x: np.ndarray, y: np.ndarray, method: str = "auto") -> KendallCounts:
    """Discordant and tied pairs of (x, y) per segment, in O(n log n).

    ``method`` (``"auto"``, ``"table"``, ``"sort"``) forces a path, for tests.

    - Few distinct values on both sides (ratings): the pairs are counted from the
      contingency table of the two (cumulative sums over it), without sorting rows.
    - One segment, few distinct values on one side: a sort by the other, a sort of
      packed keys only when it has ties, and :func:`count_inversions` on the codes
      of the side with few values (few radix levels).
    - One segment otherwise: :func:`_kendall_sorted` (two :func:`sort_rows`, then
      :func:`permutation_inversions` when the first side has no ties).
    - Several segments: a lexicographic sort by (segment, x, y), then the same count,
      segment by segment.
    """
    x = np.asarray(x, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    offsets = np.asarray(offsets, dtype=np.int64)
    n_seg = len(offsets) - 1
    lengths = np.diff(offsets)
    n = len(x)
    multi = n_seg > 1
    if n_seg == 0:
        empty = np.zeros(0, dtype=np.int64)
        return KendallCounts(empty, empty, empty, empty, empty, empty, empty, empty)
    if method == "sort":
        lx = ly = None
        if not multi and len(np.unique(x)) < len(np.unique(y)):
            lx = levels(x)  # exercises the swapped roles too
    else:
        lx, ly = levels(x), levels(y)
        # one side with few values, the other with some thousands: the table may still be small
        if method == "auto" and (lx is None) != (ly is None):
            few = len((lx or ly)[0])  # type: ignore[index]  # exactly one of lx, ly is None here
            if n_seg * few * 4096 <= max(n, 1 << 20):
                if lx is None:
                    lx = levels(x, sample_limit=4000)
                else:
                    ly = levels(y, sample_limit=4000)
    if lx is not None and ly is not None and (method == "table" or _table_ok(n_seg, len(lx[0]) * len(ly[0]), n)):
        return _kendall_table(n_seg, _seg_ids(offsets) if multi else None, lx[1], len(lx[0]), ly[1], len(ly[0]),
                              lengths)
    if not multi:
        pairs = lengths * (lengths - 1) // 2
        if ly is not None:
            dis, xt, yt, jt, xd, yd = _kendall_one(x, ly[1], len(ly[0]))
        elif lx is not None:  # x has few values: count on its codes, sorting by y (Kendall's counts are symmetric)
            dis, yt, xt, jt, yd, xd = _kendall_one(y, lx[1], len(lx[0]))
        else:
            dis, xt, yt, jt, xd, yd = _kendall_sorted(x, y)

        def arr(v: int) -> np.ndarray:
            return np.array([v], dtype=np.int64)

        return KendallCounts(n=lengths.astype(np.int64), pairs=pairs.astype(np.int64), discordant=arr(dis),
                             x_ties=arr(xt), y_ties=arr(yt), joint_ties=arr(jt), x_distinct=arr(xd),
                             y_distinct=arr(yd))
    seg = _seg_ids(offsets)
    few = method != "sort"
    cx, mx = (lx[1], len(lx[0])) if lx is not None else codes_of(x, few)
    cy, my = (ly[1], len(ly[0])) if ly is not None else codes_of(y, few)
    swap = mx < my  # count inversions on the side with fewer codes (fewer radix levels)
    ca, ma, cb, mb = (cy, my, cx, mx) if swap else (cx, mx, cy, my)
    order = order_by((seg, n_seg), (ca, ma), (cb, mb))  # rows keep the segment layout
    sa = ca[order]
    w = cb[order]
    new_a = _flags_new(sa, seg)
    new_ab = new_a.copy()
    if n:
        new_ab[1:] |= w[1:] != w[:-1]
    order_b = order_by((seg, n_seg), (cb, mb)) if (method == "sort" or not _table_ok(n_seg, mb, n)) else None
    if order_b is None:
        cnt = np.bincount(seg * mb + cb, minlength=n_seg * mb).reshape(n_seg, mb).astype(np.int64)
        b_ties = (cnt * (cnt - 1) // 2).sum(axis=1)
        b_distinct = (cnt > 0).sum(axis=1).astype(np.int64)
    else:
        new_b = _flags_new(cb[order_b], seg)
        b_ties = _tie_pairs(new_b, seg, n_seg)
        b_distinct = np.bincount(seg[new_b], minlength=n_seg).astype(np.int64)
    a_ties = _tie_pairs(new_a, seg, n_seg)
    a_distinct = np.bincount(seg[new_a], minlength=n_seg).astype(np.int64)
    if swap:
        x_ties, y_ties, x_distinct, y_distinct = b_ties, a_ties, b_distinct, a_distinct
    else:
        x_ties, y_ties, x_distinct, y_distinct = a_ties, b_ties, a_distinct, b_distinct
    pairs = lengths * (lengths - 1) // 2
    return KendallCounts(
        n=lengths.astype(np.int64), pairs=pairs.astype(np.int64), discordant=count_inversions(w, offsets),
        x_ties=x_ties, y_ties=y_ties, joint_ties=_tie_pairs(new_ab, seg, n_seg), x_distinct=x_distinct,
        y_distinct=y_distinct,
    )


def kendall_tau(c: KendallCounts, variant: str = "b") -> np.ndarray:
    """Kendall's tau per segment from its pair counts; NaN where undefined.

    a: S / (n(n-1)/2); b: S / sqrt((n0 - n1)(n0 - n2)); c: 2S / (n^2 (m-1)/m),
    m = min(distinct x, distinct y) (Stuart's tau-c, as scipy).
    """
    s = c.s.astype(np.float64)
    out = np.full(len(s), np.nan)
    if variant == "a":
        den = c.pairs.astype(np.float64)
        ok = den > 0
        out[ok] = s[ok] / den[ok]
    elif variant == "b":
        # as scipy: S / sqrt(n0 - n1) / sqrt(n0 - n2)
        d1 = (c.pairs - c.x_ties).astype(np.float64)
        d2 = (c.pairs - c.y_ties).astype(np.float64)
        ok = (d1 > 0) & (d2 > 0)
        out[ok] = s[ok] / np.sqrt(d1[ok]) / np.sqrt(d2[ok])
    elif variant == "c":
        mm = np.minimum(c.x_distinct, c.y_distinct).astype(np.float64)
        nn = c.n.astype(np.float64)
        ok = mm > 1
        out[ok] = 2 * s[ok] / (nn[ok] ** 2 * (mm[ok] - 1) / mm[ok])
    else:
        raise ValueError(f"unknown Kendall variant {variant!r}")
    return cast(np.ndarray, np.clip(out, -1.0, 1.0))


def spearman_rho(offsets: np.ndarray, x: np.ndarray, y: np.ndarray, method: str = "auto") -> np.ndarray:
    """Spearman's rho per segment: Pearson's r of the average ranks; NaN where undefined."""
    offsets = np.asarray(offsets, dtype=np.int64)
    lengths = np.diff(offsets)
    rx = average_ranks(offsets, x, method)
    ry = average_ranks(offsets, y, method)
    centre = np.repeat((lengths + 1) / 2.0, lengths)
    cx, cy = rx - centre, ry - centre
    sxy = S.seg_sum(cx * cy, offsets)
    sxx = S.seg_sum(cx * cx, offsets)
    syy = S.seg_sum(cy * cy, offsets)
    den = np.sqrt(sxx * syy)
    out = np.full(len(lengths), np.nan)
    ok = den > 0
    out[ok] = np.clip(sxy[ok] / den[ok], -1.0, 1.0)
    return out


def roc_auc(offsets: np.ndarray, labels: np.ndarray, scores: np.ndarray, method: str = "auto") -> np.ndarray:
    """Area under the ROC curve per segment (Mann-Whitney U / (P N), ties half); NaN without both classes."""
    offsets = np.asarray(offsets, dtype=np.int64)
    labels = np.asarray(labels, dtype=bool)
    ranks = average_ranks(offsets, scores, method)
    pos = S.seg_sum(labels, offsets)
    neg = np.diff(offsets) - pos
    rsum = S.seg_sum(np.where(labels, ranks, 0.0), offsets)
    u = rsum - pos * (pos + 1) / 2.0
    out = np.full(len(pos), np.nan)
    ok = (pos > 0) & (neg > 0)
    out[ok] = u[ok] / (pos[ok] * neg[ok])
    return out


def roc_points(offsets: np.ndarray, labels: np.ndarray, scores: np.ndarray) -> tuple[np.ndarray, ...]:
    """ROC curve points of every segment: (segment, threshold, fpr, tpr), all distinct thresholds.

    Per segment, the first point is (fpr, tpr) = (0, 0) at threshold +inf, then one
    point per distinct score, highest first: predicting positive for scores >=
    threshold. A segment without positives (negatives) has NaN tpr (fpr).
    """
    offsets = np.asarray(offsets, dtype=np.int64)
    labels = np.asarray(labels, dtype=bool)
    scores = np.asarray(scores, dtype=np.float64)
    n_seg = len(offsets) - 1
    n = len(scores)
    order = sort_within(offsets, -scores)
    ss = scores[order]
    sl = labels[order]
    seg = _seg_ids(offsets)[order] if n_seg > 1 else np.zeros(n, dtype=np.int64)
    pos_tot = S.seg_sum(labels, offsets)
    neg_tot = np.diff(offsets) - pos_tot
    tp = S.seg_count_cumsum(sl, offsets)
    fp = S.positions(offsets) - tp
    # last row of each run of equal scores within a segment
    last = np.ones(n, dtype=bool)
    if n:
        last[:-1] = (ss[1:] != ss[:-1]) | (seg[1:] != seg[:-1])
    keep = np.flatnonzero(last)
    seg_k = seg[keep]
    with np.errstate(divide="ignore", invalid="ignore"):
        tpr = tp[keep] / pos_tot[seg_k]
        fpr = fp[keep] / neg_tot[seg_k]
    # one (0, 0, +inf) point at the head of every segment
    head_seg = np.arange(n_seg, dtype=np.int64)
    with np.errstate(divide="ignore", invalid="ignore"):
        head_tpr = np.where(pos_tot > 0, 0.0, np.nan)
        head_fpr = np.where(neg_tot > 0, 0.0, np.nan)
    all_seg = np.concatenate((head_seg, seg_k))
    all_thr = np.concatenate((np.full(n_seg, np.inf), ss[keep]))
    all_fpr = np.concatenate((head_fpr, fpr))
    all_tpr = np.concatenate((head_tpr, tpr))
    rank_in = np.concatenate((np.zeros(n_seg, np.int64), np.ones(len(keep), np.int64)))
    o = np.lexsort((np.arange(len(all_seg)), rank_in, all_seg))
    return all_seg[o], all_thr[o], all_fpr[o], all_tpr[o]
