"""The 64-bit key helpers behind the evaluator's fast path, against plain Python sets and dicts."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from rankmeter.data.table import lookup_keys, may_repeat

keys = st.lists(st.integers(0, 2**64 - 1) | st.sampled_from([0, 1, 2**63, 2**64 - 1]), max_size=60)


@settings(max_examples=300, deadline=None)
@given(table=keys, probe=keys, shift=st.integers(0, 40))
def test_lookup_keys_is_a_dict_join(table, probe, shift) -> None:
    table = [(t >> shift) << shift for t in table]  # keys that differ only in their high bits
    probe = [(p >> shift) << shift for p in probe] + table[:5]
    t, p = np.array(table, dtype=np.uint64), np.array(probe, dtype=np.uint64)
    got = lookup_keys(p, t)
    if len(set(table)) < len(table):
        assert got is None
        return
    where = {v: i for i, v in enumerate(table)}
    want = sorted((i, where[v]) for i, v in enumerate(probe) if v in where)
    assert got is not None and sorted(zip(got[0].tolist(), got[1].tolist())) == want


@settings(max_examples=300, deadline=None)
@given(groups=st.lists(st.lists(st.integers(0, 20) | st.integers(2**63, 2**63 + 3), max_size=12), min_size=1, max_size=8))
def test_may_repeat_never_misses_a_repeat(groups) -> None:
    offsets = np.concatenate(([0], np.cumsum([len(g) for g in groups]))).astype(np.int64)
    flat = np.array([k for g in groups for k in g], dtype=np.uint64)
    repeated = any(len(set(g)) < len(g) for g in groups)
    if repeated:
        assert may_repeat(offsets, flat)
    # no false alarm from padding: keys below 2**63 never meet a padding cell
    if not repeated and all(k < 2**63 for g in groups for k in g):
        assert not may_repeat(offsets, flat)


@settings(max_examples=200, deadline=None)
@given(width=st.integers(1, 8), data=st.data())
def test_may_repeat_with_queries_of_one_length(width, data) -> None:
    # every query as long (a fixed depth): the rows are read as the grid itself
    groups = data.draw(st.lists(st.lists(st.integers(0, 12), min_size=width, max_size=width), min_size=1, max_size=6))
    offsets = np.arange(0, width * len(groups) + 1, width, dtype=np.int64)
    flat = np.array([k for g in groups for k in g], dtype=np.uint64)
    assert may_repeat(offsets, flat) == any(len(set(g)) < len(g) for g in groups)


@settings(max_examples=200, deadline=None)
@given(chunks=st.lists(st.lists(st.text(max_size=3), max_size=6), max_size=6), data=st.data())
def test_take_rows_equals_arrow_take(chunks, data) -> None:
    import pyarrow as pa

    from rankmeter.data.ids import take_rows

    col = pa.chunked_array([pa.array(c, type=pa.string()) for c in chunks], type=pa.string())
    n = len(col)
    rows = data.draw(st.lists(st.integers(0, n - 1), max_size=10)) if n else []
    got = take_rows(col, np.array(rows, dtype=np.int64)).to_pylist()
    assert got == [col[i].as_py() for i in rows]


@settings(max_examples=300, deadline=None)
@given(ids=st.lists(st.sampled_from(["", "a", "b", "é", "doc1", "doc10", "x" * 20 + "1" + "y" * 8,
                                     "x" * 20 + "2" + "y" * 8]) | st.text(max_size=12), min_size=1, max_size=80))
def test_codes_by_signature_equal_arrows_or_step_aside(ids) -> None:
    # the two long ids share a signature (same length, head and tail): then Arrow codes them
    import pyarrow as pa

    from rankmeter import _compute as C
    from rankmeter.data.ids import _codes_by_signature

    arr = pa.array(ids, pa.string())
    enc = C.dictionary_encode(arr)
    got = _codes_by_signature(arr)
    if got is None:
        assert len(set(ids)) > 1
        return
    np.testing.assert_array_equal(got[0], enc.indices.to_numpy())
    assert got[1].equals(enc.dictionary)


def test_ids_sharing_a_signature_are_coded_apart() -> None:
    import pyarrow as pa

    from rankmeter.data import ids as I

    a, b = "x" * 20 + "1" + "y" * 8, "x" * 20 + "2" + "y" * 8
    assert I.string_signature(pa.array([a]))[0] == I.string_signature(pa.array([b]))[0]
    arr = pa.array([a, "c", b, a] * 20_000)  # above the size coded by signature
    assert I._codes_by_signature(arr) is None
    codes, vocab = I.encode_unsorted(arr)
    assert vocab.to_pylist() == [a, "c", b] and codes[:4].tolist() == [0, 1, 2, 0]


def test_judged_item_signatures_are_those_of_the_ids() -> None:
    # found while coding a large judgment column, or computed on first use: the same signatures
    import pyarrow as pa

    from rankmeter import Qrels
    from rankmeter.data.ids import string_signature

    for n in (10, 70_000):
        q = Qrels.from_columns([f"q{i % 97}" for i in range(n)], [f"d{i % 5003}" for i in range(n)], [1] * n,
                               duplicates="first")
        np.testing.assert_array_equal(q.item_signatures(), string_signature(q.item_ids))
        assert isinstance(q.item_ids, pa.Array)


def _encode_reference(ids: list[str]) -> tuple[list[int], list[str]]:
    """Slow and obvious: the distinct ids in UTF-8 byte order, and each id's position among them."""
    vocab = sorted(set(ids), key=lambda s: s.encode("utf-8"))
    at = {v: i for i, v in enumerate(vocab)}
    return [at[i] for i in ids], vocab


@settings(max_examples=12, deadline=None)
@given(n=st.integers(1 << 16, 90_000), distinct=st.integers(1, 200_000), run=st.integers(1, 3),
       shuffle=st.booleans(), seed=st.integers(0, 2**32 - 1))
def test_encode_of_large_columns_equals_the_reference_by_either_path(n, distinct, run, shuffle, seed) -> None:
    # columns of 64k+ rows: sorted run heads (_encode_by_sort) when the runs are distinct, else the hash coding
    import pyarrow as pa

    from rankmeter.data.ids import _encode_by_sort, encode

    rng = np.random.default_rng(seed)
    heads = rng.integers(0, distinct, size=n // run + 1)
    values = np.repeat(heads, run)[:n]
    if shuffle:
        rng.shuffle(values)
    ids = [f"q{v}" if v % 3 else f"é{v}" for v in values.tolist()]
    codes, vocab = encode(pa.array(ids))
    want_codes, want_vocab = _encode_reference(ids)
    assert codes.dtype == np.int64 and codes.tolist() == want_codes
    assert vocab.to_pylist() == want_vocab
    got = _encode_by_sort(pa.array(ids))
    if got is not None:
        assert got[0].tolist() == want_codes and got[1].to_pylist() == want_vocab


@settings(max_examples=300, deadline=None)
@given(codes=st.lists(st.integers(-5, 5) | st.integers(-2**40, 2**40), max_size=40))
def test_sort_codes_is_a_stable_argsort(codes) -> None:
    from rankmeter.data.order import sort_codes

    arr = np.array(codes, dtype=np.int64)
    got, order = sort_codes(arr)
    want = np.argsort(arr, kind="stable")
    assert order.tolist() == want.tolist()
    assert got.tolist() == arr[want].tolist()


@settings(max_examples=300, deadline=None)
@given(rows=st.lists(st.tuples(st.integers(0, 4), st.sampled_from([0.0, -0.0, 1.0, 2.0, 3.0, -1.0, 0.5, 1e6])),
                     max_size=40))
def test_grade_order_is_lexsort(rows) -> None:
    from rankmeter.data.order import grade_order

    rowq = np.array(sorted(q for q, _ in rows), dtype=np.int64)  # (judgments grouped by query)
    grades = np.array([g for _, g in rows], dtype=np.float64)
    assert grade_order(rowq, grades).tolist() == np.lexsort((-grades, rowq)).tolist()
