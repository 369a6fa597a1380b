"""The segmented rank order (rankmeter.data.order) equals the former global two-key sort, bit for bit.

Two slow references: ``lexsort_rank_order``, the implementation before the segmented sort
(one ``np.lexsort`` of (query, -score) over the whole chunk, then the ids inside ties), kept
verbatim; and ``python_rank_order``, a Python ``sorted`` on the whole key, obviously right.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rankmeter.data.order import code_ids, group_blocks, group_rows, rank_order, segment_order


def lexsort_rank_order(qcodes: np.ndarray, value: np.ndarray,
                       items: pa.Array) -> tuple[np.ndarray | None, np.ndarray | None]:
    """rank_order as it was before the segmented sort (commit 7b78a80): the reference."""
    n = len(qcodes)
    if n < 2:
        return None, None
    dq = np.diff(qcodes)
    with np.errstate(over="ignore"):  # (two large values: their difference overflows to inf, of the right sign)
        dv = np.diff(value)
    same_q = dq == 0
    if bool(((dq > 0) | (same_q & (dv <= 0))).all()):
        perm = None
        same = same_q & (dv == 0)
    else:
        perm = np.lexsort((-value, qcodes))
        q, v = qcodes[perm], value[perm]
        same = (q[1:] == q[:-1]) & (v[1:] == v[:-1])
    starts = np.flatnonzero(same)
    if not len(starts):
        return perm, None
    rows = np.concatenate((starts, starts + 1))
    rows.sort()
    rows = rows[np.concatenate(([True], rows[1:] != rows[:-1]))]
    group = np.cumsum(~((rows > 0) & same[np.maximum(rows - 1, 0)]))
    src = rows if perm is None else perm[rows]
    tied = items.take(pa.array(src, type=pa.int64()))
    if pa.types.is_integer(tied.type):
        tied = pc.cast(tied, pa.string())
    sub = pa.table({"g": pa.array(group, type=pa.int64()), "item": tied})
    within = pc.sort_indices(sub, [("g", "ascending"), ("item", "descending")]).to_numpy()
    if perm is None:
        if bool((within == np.arange(len(rows))).all()):
            return None, None
        new = np.arange(n)
        new[rows] = src[within]
        return new, rows
    perm[rows] = src[within]
    return perm, None


def python_rank_order(qcodes: np.ndarray, value: np.ndarray, items: pa.Array) -> np.ndarray:
    """(query asc, score desc, id bytes desc, row asc) by Python's sort of the whole key."""
    ids = [str(x).encode() for x in items.to_pylist()]
    # bytes descending: sort ascending on the complement of each byte, a shorter id (a prefix) last
    def key(r: int) -> tuple:
        return (int(qcodes[r]), -float(value[r]), [255 - b for b in ids[r]] + [256], r)
    return np.array(sorted(range(len(qcodes)), key=key), dtype=np.int64)


def _check(qcodes: np.ndarray, value: np.ndarray, items: pa.Array) -> None:
    got = rank_order(qcodes, value, items)
    want = lexsort_rank_order(qcodes, value, items)
    for g, w in zip(got, want, strict=True):
        assert (g is None) == (w is None), (got, want)
        if g is not None:
            np.testing.assert_array_equal(g, w)
    if len(qcodes) > 1 and bool((np.diff(qcodes) >= 0).all()):  # grouped: the queries' first rows given
        starts = np.flatnonzero(np.concatenate(([True], qcodes[1:] != qcodes[:-1])))
        for g, w in zip(rank_order(qcodes, value, items, query_starts=starts), want, strict=True):
            assert (g is None) == (w is None)
            if g is not None:
                np.testing.assert_array_equal(g, w)
    perm = np.arange(len(qcodes)) if got[0] is None else got[0]
    np.testing.assert_array_equal(perm, python_rank_order(qcodes, value, items))


IDS = ["d", "d1", "d10", "d100", "d2", "", "D", "1", "10", "é", "e"]  # prefixes of each other, bytes order


@st.composite
def runs(draw: st.DrawFn) -> tuple[np.ndarray, np.ndarray, pa.Array]:
    lengths = draw(st.lists(st.integers(1, 12), min_size=1, max_size=25))  # one-row queries too
    if draw(st.booleans()):
        lengths = [lengths[0]] * len(lengths)  # queries of one length (the matrix path)
    q = np.repeat(np.arange(len(lengths)), lengths)
    n = len(q)
    scores = draw(st.lists(st.one_of(st.sampled_from([0.0, -0.0, 1.0, 2.5, -3.0]),
                                     st.floats(allow_nan=False, allow_infinity=False, width=64)),
                           min_size=n, max_size=n))
    value = np.array(scores, dtype=np.float64)
    shape = draw(st.sampled_from(["grouped", "ungrouped", "sorted", "gaps"]))
    if shape == "ungrouped":
        q = np.array(draw(st.permutations(q.tolist())), dtype=np.int64)
    elif shape == "sorted":  # already in rank order but for ties (the linear check path)
        order = np.lexsort((-value, q))
        value = value[order]
    elif shape == "gaps":
        q = q * 7 + 3  # codes with gaps, as a chunk's codes among all queries
    if draw(st.booleans()):
        items = pa.array([draw(st.sampled_from(IDS)) for _ in range(n)])
    else:
        items = pa.array([draw(st.integers(-20, 120)) for _ in range(n)], type=pa.int64())
    return q.astype(np.int64), value, items


@settings(max_examples=150)
@given(runs())
def test_segmented_order_equals_the_global_sort(run: tuple[np.ndarray, np.ndarray, pa.Array]) -> None:
    _check(*run)


@settings(max_examples=40)
@given(seed=st.integers(0, 2**32 - 1), distinct_lengths=st.booleans(), grouped=st.booleans())
def test_many_length_classes(seed: int, distinct_lengths: bool, grouped: bool) -> None:
    # more length classes than are sorted unpadded: lengths padded to powers of two
    rng = np.random.default_rng(seed)
    nq = int(rng.integers(20, 120))
    lengths = rng.integers(1, 300 if distinct_lengths else 4, nq)
    q = np.repeat(np.arange(nq), lengths)
    if not grouped:
        q = rng.permutation(q)
    value = np.round(rng.normal(size=len(q)), int(rng.integers(0, 3)))  # ties
    items = pa.array(rng.integers(0, 60, len(q)).astype(str))
    got = rank_order(q, value, items)
    want = lexsort_rank_order(q, value, items)
    for g, w in zip(got, want, strict=True):
        assert (g is None) == (w is None)
        if g is not None:
            np.testing.assert_array_equal(g, w)


def test_non_finite_scores_take_the_two_key_sort() -> None:
    q = np.array([0, 0, 0, 1, 1])
    value = np.array([np.inf, 1.0, -np.inf, np.nan, 2.0])
    items = pa.array(["a", "b", "c", "d", "e"])
    got, _ = rank_order(q, value, items)
    want, _ = lexsort_rank_order(q, value, items)
    np.testing.assert_array_equal(got, want)


def test_equal_rows_keep_their_input_order() -> None:
    # equal query, score and id: input order (what a stable sort gives), with the unstable per-query sort
    q = np.zeros(40, dtype=np.int64)
    value = np.tile([1.0, 2.0], 20)
    items = pa.array(["x"] * 40)
    perm, _ = rank_order(q, value, items)
    assert perm.tolist() == list(range(1, 40, 2)) + list(range(0, 40, 2))


@pytest.mark.parametrize("lengths", [[5, 5, 5], [1, 4, 2, 7], [3] * 20 + [40], list(range(1, 30))])
def test_segment_order_sorts_each_segment(lengths: list[int]) -> None:
    rng = np.random.default_rng(len(lengths))
    key = rng.random(sum(lengths))
    starts = np.concatenate(([0], np.cumsum(lengths)[:-1]))
    perm = segment_order(key, starts)
    ends = np.cumsum(lengths)
    for a, b in zip(starts, ends, strict=True):
        assert sorted(perm[a:b].tolist()) == list(range(a, b))  # each segment's rows stay in it
        assert (np.diff(key[perm[a:b]]) >= 0).all()


def test_a_tie_never_spans_two_queries() -> None:
    # the last row of query 0 and the first of query 1 have equal scores: not a tie
    q = np.array([0, 0, 0, 1, 1])
    value = np.array([1.0, 2.0, 1.0, 1.0, 0.0])
    items = pa.array(["a", "b", "c", "z", "y"])
    _check(q, value, items)
    assert rank_order(q, value, items)[0].tolist() == [1, 2, 0, 3, 4]


@settings(max_examples=80)
@given(runs(), st.integers(0, 2**32 - 1), st.booleans())
def test_ids_read_through_item_rows(run: tuple[np.ndarray, np.ndarray, pa.Array], seed: int, chunked: bool) -> None:
    # row i's id at items[item_rows[i]] of a larger (perhaps chunked) array: the same order as the ids taken
    q, value, items = run
    rng = np.random.default_rng(seed)
    n = len(q)
    spare = pa.array([IDS[0]] * 7) if pa.types.is_string(items.type) else pa.array([0] * 7, type=items.type)
    big = pa.concat_arrays([spare, items, spare])
    where = rng.permutation(len(big))  # the ids scattered over the larger array
    scattered = big.take(pa.array(np.argsort(where)))
    item_rows = where[7:7 + n]
    assert scattered.take(pa.array(item_rows)).equals(items)
    source = pa.chunked_array([scattered.slice(0, 5), scattered.slice(5)]) if chunked else scattered
    got = rank_order(q, value, source, item_rows)
    want = rank_order(q, value, items)
    for g, w in zip(got, want, strict=True):
        assert (g is None) == (w is None)
        if g is not None:
            np.testing.assert_array_equal(g, w)


def slow_group_blocks(blocks: list[list[str]]) -> tuple[list[str], list[int], list[int]]:
    """The distinct ids in order of first appearance, their counts, and the rows by a stable Python sort."""
    flat = [x for b in blocks for x in b]
    first = {x: i for i, x in reversed(list(enumerate(flat)))}
    ids = sorted(first, key=first.__getitem__)
    code = {x: i for i, x in enumerate(ids)}
    return ids, [flat.count(x) for x in ids], sorted(range(len(flat)), key=lambda r: code[flat[r]])


@settings(max_examples=100)
@given(st.lists(st.lists(st.sampled_from(IDS), max_size=15), min_size=1, max_size=6), st.integers(0, 6), st.booleans())
def test_group_blocks_equals_a_stable_sort_of_the_joined_ids(blocks: list[list[str]], parts: int, pooled: bool) -> None:
    cut = parts % (len(blocks) + 1)  # the blocks in two parts, each coded on its own (one part when cut is 0)
    coded = [pc.dictionary_encode(pa.chunked_array([pa.array(b, type=pa.string()) for b in blocks[a:b]],
                                                   type=pa.string()))  # (empty blocks and parts too)
             for a, b in ([(0, len(blocks))] if cut == 0 else [(0, cut), (cut, len(blocks))])]
    if pooled:  # the chunks packed on a thread pool's threads, as the regrouping engine does
        from concurrent.futures import ThreadPoolExecutor

        with ThreadPoolExecutor(2) as pool:
            ids, counts, rows = group_blocks(coded, pool.map)
    else:
        ids, counts, rows = group_blocks(coded)
    want_ids, want_counts, want_rows = slow_group_blocks(blocks)
    assert ids.to_pylist() == want_ids
    assert counts.tolist() == want_counts
    assert rows.tolist() == want_rows
    flat = pa.array([x for b in blocks for x in b], type=pa.string())
    if len(flat):  # the same as coding the joined ids and group_rows
        assert rows.tolist() == group_rows(pc.dictionary_encode(flat).indices.to_numpy().astype(np.int64)).tolist()


WORDS = ["q", "q1", "q10", "12345678", "123456789", "é", "éé", "\x00", "a\x00", "", "Q1"]  # 8 bytes and more, zeros


@settings(max_examples=100)
@given(st.lists(st.lists(st.sampled_from(WORDS), max_size=12), min_size=1, max_size=5), st.booleans(),
       st.integers(1, 30))
def test_code_ids_equals_arrow_dictionary_encode(chunks: list[list[str]], short: bool, batch: int) -> None:
    if short:  # ids of 1 to 8 bytes without a zero byte: coded as numbers
        chunks = [[x for x in c if 0 < len(x.encode()) <= 8 and "\x00" not in x] for c in chunks]
    arrays = [pa.array(c, type=pa.string()) for c in chunks]
    given = list(arrays)
    got = code_ids(given, batch_rows=batch)
    assert given == []  # (emptied as read)
    for part in got:  # each batch coded as Arrow codes it (codes and dictionary in order of first appearance)
        values = part.to_pylist()
        want = pc.dictionary_encode(pa.array(values, type=pa.string()))
        assert [i for c in part.chunks for i in c.indices.to_pylist()] == want.indices.to_pylist()
        full = [c for c in part.chunks if len(c)]
        if full:
            assert full[-1].dictionary.to_pylist() == want.dictionary.to_pylist()
    assert [x for part in got for x in part.to_pylist()] == [x for c in chunks for x in c]
    if any(chunks):  # and group_blocks joins the batches' dictionaries
        ids, counts, rows = group_blocks(got)
        assert (ids.to_pylist(), counts.tolist(), rows.tolist()) == slow_group_blocks(chunks)


SHORT_IDS = ["d", "d1", "d10", "d100", "d2", "D", "1", "10", "é", "e", "12345678"]  # short: 1 to 8 bytes


@settings(max_examples=120)
@given(runs(), st.data())
def test_ties_broken_on_words_as_on_the_ids(run: tuple[np.ndarray, np.ndarray, pa.Array], data: st.DataObject) -> None:
    # short ids given as their words (rankmeter.data.words) are ranked as the ids themselves
    from rankmeter.data.words import id_words

    q, value, _ = run
    items = pa.array([data.draw(st.sampled_from(SHORT_IDS)) for _ in range(len(q))], type=pa.string())
    got = rank_order(q, value, id_words(items))
    want = rank_order(q, value, items)
    for g, w in zip(got, want, strict=True):
        assert (g is None) == (w is None)
        if g is not None:
            np.testing.assert_array_equal(g, w)


@settings(max_examples=100)
@given(st.lists(st.lists(st.sampled_from(IDS), max_size=15), min_size=1, max_size=6), st.integers(0, 6),
       st.lists(st.integers(0, 40), min_size=6, max_size=6), st.booleans())
def test_group_blocks_numbers_the_rows_as_told(blocks: list[list[str]], parts: int, gaps: list[int],
                                                 far: bool) -> None:
    # chunks laid out with room between them (rows_at: each non-empty chunk's first row's number): the rows
    # are those numbers; far numbers leave no room to pack the keys (the stable argsort then)
    cut = parts % (len(blocks) + 1)
    coded = [pc.dictionary_encode(pa.chunked_array([pa.array(b, type=pa.string()) for b in blocks[a:b]],
                                                   type=pa.string()))
             for a, b in ([(0, len(blocks))] if cut == 0 else [(0, cut), (cut, len(blocks))])]
    full = [b for b in blocks if b]
    if not full:
        return
    starts, at = [], (1 << 60) if far else 0
    for b, gap in zip(full, gaps, strict=False):
        starts.append(at + gap)
        at += gap + len(b)
    number = [s + i for s, b in zip(starts, full, strict=True) for i in range(len(b))]  # each row's number
    key = np.full(len(number), -1, dtype=np.int64)  # (the caller's memory)
    ids, counts, rows = group_blocks(coded, key=key, rows_at=starts)
    want_ids, want_counts, want_rows = slow_group_blocks(blocks)
    assert (ids.to_pylist(), counts.tolist()) == (want_ids, want_counts)
    assert rows.tolist() == [number[r] for r in want_rows]
    if not far:
        assert rows is key  # (packed and sorted in the memory given)
    # unmerged: each range of queries' rows merged on demand, the same rows
    _, _, runs = group_blocks(coded, key=np.full(len(number), -1, dtype=np.int64), rows_at=starts, merge=False)
    ends = np.concatenate(([0], np.cumsum(counts)))
    for qa in range(len(counts) + 1):
        for qb in range(qa, len(counts) + 1):
            assert runs.rows(qa, qb).tolist() == rows[ends[qa]:ends[qb]].tolist()
    assert runs.merged().tolist() == rows.tolist()
