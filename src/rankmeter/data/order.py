"""The tie rule, written once: how rows of a query are put in rank order.

A scored run is ranked by score descending; equal scores are broken by item id
descending, comparing the ids' UTF-8 bytes (C's ``strcmp``), which is trec_eval's
rule (``form_res_rels.c``). Every reader, engine and recommender orders rows with
:func:`rank_order`; nothing else sorts rankings.

>>> import numpy as np, pyarrow as pa
>>> perm, moved = rank_order(np.array([0, 0, 0]), np.array([1.0, 2.0, 1.0]), pa.array(["a", "b", "c"]))
>>> perm.tolist()
[1, 2, 0]

How the rows are sorted (the result is the same permutation in every case)
-------------------------------------------------------------------------
- rows already in rank order (a file written best first): one linear check, no sort;
- rows grouped by query, in any order within the query: a *segmented* sort, each query's
  scores sorted on their own (queries of one length as the rows of a matrix, one
  ``np.argsort(axis=1)``; queries of mixed lengths by length class, padded), which costs
  O(n log L) for queries of L rows instead of a global O(n log n) two-key sort;
- rows not grouped by query: grouped first by one sort of 64-bit keys (query code, row),
  then as above (a run file read in blocks: :func:`group_blocks`, which gathers no text);
- non-finite scores (which the readers refuse): ``np.lexsort`` of (query, -score).

The sorts used are not stable, so rows of equal (query, score) may come out in any order;
the tie-break then orders them by item id descending and, for equal ids, by their position
in the input, which is exactly what a stable two-key sort followed by a stable id sort
gives (tests/core/test_rank_order.py checks this against that slow reference).
"""

from __future__ import annotations

from typing import Any, Callable, Iterable, Sequence, cast

import numpy as np
import pyarrow as pa

from .. import _compute as C
from .ids import distinct, ints, take_rows, to_numpy
from .keysort import sort_keys
from .words import id_words, short_ids, word_order, words_text

__all__ = ["SortedRuns", "code_ids", "code_words", "grade_order", "group_blocks", "group_rows", "rank_order",
           "segment_order", "sort_codes"]

# lengths classes of a segmented sort: below this many distinct lengths each length is its own class
# (no padding); above, lengths are padded up to a power of two (at most 2x the cells, ~log2(max) classes)
_EXACT_CLASSES = 16


def rank_order(qcodes: np.ndarray, value: np.ndarray, items: pa.Array | pa.ChunkedArray | np.ndarray,
               item_rows: np.ndarray | None = None,
               query_starts: np.ndarray | None = None) -> tuple[np.ndarray | None, np.ndarray | None]:
    """Permutation to (query asc, value desc, item id desc by bytes), or None if already so.

    Also returns, when the rows were in order but for some ties, the positions of the
    tied rows (the only ones the permutation may move), else None. Row i's item id is
    ``items[i]``, or ``items[item_rows[i]]`` when ``item_rows`` is given (rows gathered
    from a larger run whose ids are not copied); ``items`` as a numpy array: the ids'
    words (:mod:`rankmeter.data.words`, short ids only). ``query_starts``: each query's first row, when
    the caller knows them (``qcodes`` ascending, every query at least one row): they are
    then not found again.

    Sorting numbers is cheap; comparing ids is not. So rows are ordered by (query,
    value) with numpy (a per-query sort, :func:`segment_order`), and only the rows
    inside groups of equal (query, value), the ties, are ordered by their ids, with
    pyarrow's string sort. Rows equal in all three keep their input order.
    """
    n = len(qcodes)
    if n < 2:
        return None, None
    dq = np.diff(qcodes)
    same_q = dq == 0
    after, before = value[1:], value[:-1]  # (compared, not subtracted: a difference of two large values overflows)
    if bool(((dq > 0) | (same_q & (after <= before))).all()):
        perm = None
        same = same_q & (after == before)
    else:
        perm, same = _score_order(qcodes, value, dq, query_starts)
    starts = np.flatnonzero(same)  # row i + 1 ties with row i
    if not len(starts):
        return perm, None
    rows = np.concatenate((starts, starts + 1))  # positions (in the current order) of tied rows
    rows.sort()
    rows = rows[np.concatenate(([True], rows[1:] != rows[:-1]))]
    group = np.cumsum(~((rows > 0) & same[np.maximum(rows - 1, 0)]))  # a new group unless tied to the row above
    src = rows if perm is None else perm[rows]
    at = src if item_rows is None else item_rows[src]
    if isinstance(items, np.ndarray):  # short ids' words: their bytes' order is the swapped words' (descending:
        within = np.lexsort((src, ~word_order(items[at]), group))  # the complement's ascending)
    else:
        tied = take_rows(items, at)
        if pa.types.is_integer(tied.type):  # integer ids compare as their decimal text
            tied = C.cast(tied, pa.string())
        sub = pa.table({"g": ints(group), "item": tied, "row": ints(src)})
        # Arrow compares strings by their UTF-8 bytes, trec_eval's strcmp order; equal ids keep their input order
        within = to_numpy(C.sort_indices(sub, [("g", "ascending"), ("item", "descending"), ("row", "ascending")]))
    if perm is None:
        if bool((within == np.arange(len(rows))).all()):
            return None, None  # the ties are in order already
        new = np.arange(n)
        new[rows] = src[within]
        return new, rows
    perm[rows] = src[within]
    return perm, None


def _score_order(qcodes: np.ndarray, value: np.ndarray, dq: np.ndarray,
                 starts: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """A permutation to (query asc, value desc), equal rows in any order, and where row i + 1 ties with row i
    (``starts``: each query's first row, as :func:`rank_order`'s)."""
    if not bool(np.isfinite(value).all()):  # the readers refuse these; the plain two-key sort keeps them right
        perm = np.lexsort((-value, qcodes))
        q, v = qcodes[perm], value[perm]
        return perm, (q[1:] == q[:-1]) & (v[1:] == v[:-1])
    group: np.ndarray | None = None
    q = qcodes
    if not bool((dq >= 0).all()):
        q, group = sort_codes(qcodes)
    v = value if group is None else value[group]
    if group is not None or starts is None:  # (the caller's first rows are of the rows as given)
        change = np.flatnonzero(q[1:] != q[:-1]) + 1 if group is not None else np.flatnonzero(dq) + 1
        starts = np.concatenate(([0], change)).astype(np.int64)
    bounds = starts[1:]
    within = segment_order(-v, starts)
    vs = v[within]
    same = vs[1:] == vs[:-1]
    same[bounds - 1] = False  # the last row of a query never ties with the next query's first
    return (within if group is None else group[within]), same


def group_rows(qcodes: np.ndarray) -> np.ndarray:
    """The rows in query order, rows of a query in input order (a stable sort by query code).

    >>> group_rows(np.array([2, 0, 2, 1, 0])).tolist()
    [1, 4, 3, 0, 2]
    """
    packed = _packed_sort(qcodes)
    if packed is None:
        return np.argsort(qcodes, kind="stable")
    key, shift, _ = packed
    key &= (1 << shift) - 1
    return key


def sort_codes(codes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Integer codes sorted, and the stable order that sorts them (:func:`group_rows`), the sorted codes
    taken from the same packed keys (about 3x faster than a stable argsort and a gather).

    >>> [a.tolist() for a in sort_codes(np.array([2, 0, 2, 1, 0]))]
    [[0, 0, 1, 2, 2], [1, 4, 3, 0, 2]]
    """
    packed = _packed_sort(codes)
    if packed is None:
        order = np.argsort(codes, kind="stable")
        return codes[order].astype(np.int64, copy=False), order
    key, shift, lo = packed
    order = key & ((1 << shift) - 1)
    key >>= shift
    key += lo
    return key, order


def _packed_sort(codes: np.ndarray) -> tuple[np.ndarray, int, int] | None:
    """Each code (less the smallest, ``lo``) shifted left by ``shift`` bits and or-ed with its row, sorted:
    distinct keys, so any sort gives the stable order (:func:`~rankmeter.data.keysort.sort_keys`); None when they
    do not fit 64 bits."""
    n = len(codes)
    lo, hi = (int(codes.min()), int(codes.max())) if n else (0, 0)
    shift = max(n - 1, 1).bit_length()
    if (hi - lo).bit_length() + shift > 63:
        return None
    key = ((codes.astype(np.int64) - lo) << shift) | np.arange(n, dtype=np.int64)
    sort_keys(key, shift)
    return key, shift, lo


def grade_order(rowq: np.ndarray, grades: np.ndarray) -> np.ndarray:
    """Judgments' rows by query, then grade descending, equal grades in row order: ``np.lexsort((-grades,
    rowq))``, through :func:`group_rows` of one integer key where the grades are integers of a small range
    (as nearly all are: 3-4x faster for 1M judgments).

    >>> grade_order(np.array([0, 0, 0, 1, 1]), np.array([0.0, 2.0, 0.0, 1.0, 3.0])).tolist()
    [1, 0, 2, 4, 3]
    """
    if len(grades):
        lo, hi = float(grades.min()), float(grades.max())
        if hi - lo < 1 << 16 and bool((grades == np.floor(grades)).all()):
            key = rowq.astype(np.int64) * (int(hi - lo) + 1)
            key += (hi - grades).astype(np.int64)  # (the highest grade first)
            return group_rows(key)
    return np.lexsort((-grades, rowq))


def code_ids(ids: list[pa.Array], batch_rows: int = 1 << 24) -> list[pa.ChunkedArray]:
    """Arrow's ``dictionary_encode`` of text chunks, in batches of whole chunks of about ``batch_rows``
    ids (each batch a dictionary of its own, ids in order of first appearance: :func:`group_blocks`
    joins them), at about half its cost where every id is short (:mod:`rankmeter.data.words`): the
    ids' words are then coded (:func:`code_words`).
    The list is emptied, each chunk let go of once read (a batch's words take its text's place).

    >>> coded = code_ids([pa.array(["q10", "q1"]), pa.array(["q1", "q10", "é"])])
    >>> [c.indices.to_pylist() for c in coded[0].chunks], coded[0].chunks[-1].dictionary.to_pylist()
    ([[0, 1], [1, 0, 2]], ['q10', 'q1', 'é'])
    """
    short = all(short_ids(a) for a in ids)
    out: list[pa.ChunkedArray] = []
    while ids:
        batch: list[pa.Array] = []
        rows = 0
        while ids and (not batch or rows + len(ids[0]) <= batch_rows):
            batch.append(ids.pop(0))
            rows += len(batch[-1])
        if short and rows:
            words: list[pa.Array] = []
            while batch:
                a = batch.pop(0)
                # (from Arrow's pool, which has the memory of the text let go of just before)
                buf = pa.allocate_buffer(8 * len(a))
                id_words(a, np.frombuffer(buf, dtype=np.uint64))
                words.append(pa.Array.from_buffers(pa.uint64(), len(a), [None, buf]))
                del a, buf
            out.append(code_words(words))
        else:
            out.append(cast(pa.ChunkedArray, C.dictionary_encode(pa.chunked_array(batch, pa.string()))))
    return out


def code_words(words: list[pa.Array]) -> pa.ChunkedArray:
    """Arrow's ``dictionary_encode`` of short ids given as their words (chunks of uint64, emptied here), the
    dictionary then made text again: one dictionary for all of the chunks, ids in order of first appearance.

    >>> from rankmeter.data.words import id_words
    >>> coded = code_words([pa.array(id_words(pa.array(["q2", "q1", "q2"])))])
    >>> coded.chunks[0].indices.to_pylist(), coded.chunks[0].dictionary.to_pylist()
    ([0, 1, 0], ['q2', 'q1'])
    """
    coded = C.dictionary_encode(pa.chunked_array(words, pa.uint64()))
    words.clear()
    full = [c for c in coded.chunks if len(c)]
    text = words_text(to_numpy(full[-1].dictionary)) if full else pa.array([], pa.string())  # (a memo only grows)
    return pa.chunked_array([pa.DictionaryArray.from_arrays(c.indices, text) for c in coded.chunks],
                            pa.dictionary(pa.int32(), pa.string()))


def group_blocks(coded: Sequence[pa.ChunkedArray], map_: Callable[..., Iterable[Any]] = map,
                 key: np.ndarray | None = None, rows_at: Sequence[int] | None = None,
                 merge: bool = True) -> tuple[pa.Array, np.ndarray, Any]:
    """The rows of consecutive parts of a column of query ids, each part coded by Arrow's
    ``dictionary_encode`` (a dictionary of its own, for all of the part's chunks), put in query order.

    Returns the distinct ids in order of first appearance, each one's number of rows, and the
    rows (positions in the parts joined) query after query, a query's rows in input order: what
    :func:`group_rows` of the joined column's codes gives. Only the parts' dictionaries are joined
    and coded again; the codes are packed with the rows chunk by chunk into 64-bit keys, each part's
    sorted on its own (:meth:`_Layout.pack_part`), then the parts' sorted runs merged.
    ``map_``: how the parts are packed and sorted (a thread pool's ``map``: at once, on its threads).
    ``key``: the memory (int64, one per row) to pack and sort the keys in, returned as the rows (by
    default a fresh array). ``rows_at``: each non-empty chunk's first row's number, where the rows are
    not numbered 0, 1, 2... (chunks laid out with room between them): the rows returned are these numbers.
    ``merge=False``: the rows as :class:`SortedRuns`, each part's keys sorted but not merged (the caller
    merges the rows of each range of queries it takes, on its own threads).

    >>> from rankmeter import _compute as C
    >>> parts = [C.dictionary_encode(pa.chunked_array(p)) for p in ([["b", "a"], ["b"]], [["c", "b"]])]
    >>> ids, counts, rows = group_blocks(parts)
    >>> ids.to_pylist(), counts.tolist(), rows.tolist()
    (['b', 'a', 'c'], [3, 1, 1], [0, 2, 4, 1, 3])
    """
    parts = [[c for c in part.chunks if len(c)] for part in coded]
    parts = [p for p in parts if p]
    n = sum(len(c) for p in parts for c in p)
    if not n:
        return pa.nulls(0, pa.string()), np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    ids, maps = _joined_vocab(parts)
    key = C.pool_empty(n, np.int64) if key is None else key  # (sorted in place: becomes the rows)
    layout = _Layout(parts, rows_at)
    if max(len(ids) - 1, 1).bit_length() + layout.shift > 63:  # (no room to pack: a stable sort of the codes)
        at = 0
        for part, to in zip(parts, maps, strict=True):
            for chunk in part:
                c = to_numpy(chunk.indices)
                key[at:at + len(c)] = c if to is None else to[c]
                at += len(c)
        rows = np.argsort(key, kind="stable")
        if rows_at is not None:  # (positions among the chunks' rows, as the rows' numbers)
            rows += np.repeat(np.subtract(layout.numbers, layout.ats), [len(c) for p in parts for c in p])[rows]
        counts = _joined_counts(maps, [_part_counts(p) for p in parts], len(ids))
        return ids, counts, rows if merge else SortedRuns(rows, [0, n], 0, counts)
    per_part = list(map_(lambda p: layout.pack_part(parts[p], maps[p], p, key), range(len(parts))))
    counts = _joined_counts(maps, per_part, len(ids))
    runs = SortedRuns(key, layout.bounds, layout.shift, counts)
    return ids, counts, runs.merged() if merge else runs


def _joined_vocab(parts: list[list[Any]]) -> tuple[pa.Array, list[np.ndarray | None]]:
    """The distinct ids of parts coded each by a dictionary of its own (in order of first appearance), and
    each part's codes as the joined one's (None: the same codes, as the first part's always are)."""
    vocabs = [p[-1].dictionary for p in parts]  # (a memo only grows: a part's last dictionary holds its ids)
    if len(parts) == 1:
        return vocabs[0], [None]
    joined = C.dictionary_encode(pa.concat_arrays(vocabs))
    glob = to_numpy(joined.indices).astype(np.int64)
    ends = np.cumsum([len(v) for v in vocabs]).tolist()
    maps: list[np.ndarray | None] = [None]  # (the first part's ids come first, in their order)
    maps += [glob[a:b] for a, b in zip(ends[:-1], ends[1:], strict=True)]  # each other part's ids' codes
    return joined.dictionary, maps


def _part_counts(part: list[Any]) -> np.ndarray:
    """A part's rows by its own codes (its chunks share its dictionary, which only grows)."""
    counts = np.zeros(len(part[-1].dictionary), dtype=np.int64)
    for chunk in part:
        counts += np.bincount(to_numpy(chunk.indices), minlength=len(counts))
    return counts


def _joined_counts(maps: list[np.ndarray | None], per_part: list[np.ndarray], size: int) -> np.ndarray:
    """Each id's number of rows, from each part's counts by its own codes (``maps``: as :func:`_joined_vocab`)."""
    counts = np.zeros(size, dtype=np.int64)
    for to, got in zip(maps, per_part, strict=True):
        if to is None:
            counts[:len(got)] += got
        else:
            counts[to] += got  # (a part's ids are distinct: no index twice)
    return counts


class _Layout:
    """Where the chunks' packed keys go (one after another) and their rows' numbers (``rows_at``, or their
    positions), with the bits a key keeps for the number."""

    def __init__(self, parts: list[list[Any]], rows_at: Sequence[int] | None) -> None:
        sizes = [len(c) for p in parts for c in p]
        self.ats = np.cumsum([0] + sizes)[:-1].tolist()
        self.numbers = self.ats if rows_at is None else list(rows_at)
        self.shift = max([a + m - 1 for a, m in zip(self.numbers, sizes, strict=True)] + [1]).bit_length()
        firsts = np.cumsum([0] + [len(p) for p in parts]).tolist()  # (each part's first chunk)
        self.bounds = [self.ats[k] if k < len(sizes) else sum(sizes) for k in firsts]  # (each part's keys)
        self.first_chunk = firsts

    def pack_part(self, part: list[Any], to: np.ndarray | None, p: int, key: np.ndarray) -> np.ndarray:
        """Part ``p``'s codes (as the joined vocabulary's) packed with its rows' numbers into ``key``, sorted;
        its rows by its own codes (:func:`_part_counts`)."""
        for j, chunk in enumerate(part):
            k = self.first_chunk[p] + j
            c = to_numpy(chunk.indices)
            m, at = len(c), self.ats[k]
            part_key = key[at:at + m]
            # (indexing, then a copy: np.take with out= took several times as long)
            part_key[:] = c if to is None else to[c]
            np.left_shift(part_key, self.shift, out=part_key)
            np.bitwise_or(part_key, np.arange(self.numbers[k], self.numbers[k] + m, dtype=np.int64), out=part_key)
        sort_keys(key[self.bounds[p]:self.bounds[p + 1]], self.shift)
        return _part_counts(part)


class SortedRuns:
    """Rows put in query order as sorted runs: ``key`` holds side by side, between ``bounds``, each part's keys
    (query code, row number: ``shift`` bits for the number) sorted on its own; the runs are merged when
    asked, all of them (:meth:`merged`, in place) or those of a range of queries (:meth:`rows`). With
    ``shift`` 0, ``key`` holds the rows already. ``counts``: each query's number of rows.

    >>> runs = SortedRuns(np.array([0 << 4 | 1, 1 << 4 | 0, 0 << 4 | 5, 2 << 4 | 6]), [0, 2, 4], 4, np.array([2, 1, 1]))
    >>> runs.rows(0, 2).tolist(), runs.merged().tolist()
    ([1, 5, 0], [1, 5, 0, 6])
    """

    def __init__(self, key: np.ndarray, bounds: list[int], shift: int, counts: np.ndarray) -> None:
        self.key, self.bounds, self.shift, self.counts = key, bounds, shift, counts
        self.ends = np.concatenate(([0], np.cumsum(counts)))  # (each query's first row, once merged)

    def rows(self, qa: int, qb: int) -> np.ndarray:
        """The rows of queries ``qa`` to ``qb`` (excluded), query after query, a query's rows in order."""
        if not self.shift:
            return self.key[int(self.ends[qa]):int(self.ends[qb])]
        lo, hi = qa << self.shift, qb << self.shift
        runs = [self.key[a:b] for a, b in zip(self.bounds[:-1], self.bounds[1:], strict=True)]
        got = np.concatenate([r[np.searchsorted(r, lo):np.searchsorted(r, hi)] for r in runs])
        if len(runs) > 1:
            got.sort(kind="stable")  # (a stable sort finds the sorted runs: one linear merge)
        got &= (1 << self.shift) - 1
        return got

    def merged(self) -> np.ndarray:
        """Every row, query after query (``key``, its runs merged in place)."""
        if self.shift:
            if len(self.bounds) > 2:
                self.key.sort(kind="stable")
            self.key &= (1 << self.shift) - 1
            self.shift = 0
        return self.key


def segment_order(key: np.ndarray, starts: np.ndarray) -> np.ndarray:
    """A permutation sorting ``key`` ascending within each segment (segments start at ``starts``).

    Each segment is sorted on its own: segments of one length as the rows of a matrix
    (one ``np.argsort(axis=1)``), mixed lengths by length class, each class padded with
    +inf to its longest segment. Equal keys come out adjacent but in any order. The keys
    must be finite floats (the padding must sort last).

    >>> segment_order(np.array([3.0, 1.0, 2.0, 5.0, 4.0]), np.array([0, 3])).tolist()
    [1, 2, 0, 4, 3]
    """
    n = len(key)
    if n < 2:
        return np.arange(n, dtype=np.int64)
    starts = np.asarray(starts, dtype=np.int64)
    lengths = np.diff(np.append(starts, n))
    if len(starts) == 1:
        return np.argsort(key).astype(np.int64, copy=False)
    width = int(lengths[0])
    if bool((lengths == width).all()):
        perm = np.argsort(key.reshape(-1, width), axis=1)
        perm += starts[:, None]
        return perm.ravel()
    perm = np.arange(n, dtype=np.int64)
    sizes = distinct(lengths)
    if len(sizes) > _EXACT_CLASSES:
        cls = np.left_shift(1, np.ceil(np.log2(np.maximum(lengths, 1))).astype(np.int64))
        classes = distinct(cls)
    else:
        cls, classes = lengths, sizes
    for c in classes.tolist():
        if c < 2:
            continue  # segments of one row stay as they are
        segs = np.flatnonzero(cls == c)
        lens = lengths[segs]
        wide = int(lens.max())
        m = len(segs)
        total = int(lens.sum())
        offs = np.cumsum(lens) - lens  # each segment's first cell among the class's rows
        col = np.arange(total, dtype=np.int64) - np.repeat(offs, lens)
        rowbase = np.repeat(np.arange(m, dtype=np.int64) * wide, lens)
        src = np.repeat(starts[segs], lens) + col
        mat = np.full(m * wide, np.inf, dtype=key.dtype)
        mat[rowbase + col] = key[src]
        order = np.argsort(mat.reshape(m, wide), axis=1).ravel()
        perm[src] = np.repeat(starts[segs], lens) + order[rowbase + col]
    return perm
