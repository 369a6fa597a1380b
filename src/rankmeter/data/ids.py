"""Integer coding of string ids: exact, never hashing values into numbers.

Ids are kept as text; a code is the position of an id in a ``pyarrow`` string
vocabulary. :func:`encode` sorts the vocabulary by the ids' UTF-8 bytes (codes then
compare like ``strcmp``); :func:`encode_unsorted` keeps the order of first
appearance, which is cheaper and is what runs use (their ties compare the ids
themselves). Lookups between vocabularies are exact hash lookups.
"""

from __future__ import annotations

from typing import Any, cast

import numpy as np
import pyarrow as pa

from .. import _compute as C

__all__ = [
    "ints", "to_numpy", "as_string_array", "encode", "encode_unsorted", "union_vocab", "recode", "extend_vocab",
    "string_signature", "as_string_column", "bools", "encode_grouped", "take_rows", "string_buffers", "distinct",
    "encode_with_signatures", "distinct_ids", "is_int_id_type", "integer_ids",
]


def ints(values: np.ndarray) -> pa.Array:
    """An int64 Arrow array over a numpy array's memory.

    ``pa.array(ndarray)`` would first import pandas to look for pandas types (a
    quarter of a second at the command line's cold start); this does not.
    """
    a = np.ascontiguousarray(values, dtype=np.int64)
    return pa.Array.from_buffers(pa.int64(), len(a), [None, pa.py_buffer(a)])


_NP = {
    pa.int8(): np.int8, pa.int16(): np.int16, pa.int32(): np.int32, pa.int64(): np.int64,
    pa.uint8(): np.uint8, pa.uint16(): np.uint16, pa.uint32(): np.uint32, pa.uint64(): np.uint64,
    pa.float32(): np.float32, pa.float64(): np.float64,
}


def distinct(values: np.ndarray) -> np.ndarray:
    """The sorted distinct values of a 1-d array: ``np.unique`` without its first-call import of
    ``numpy.ma`` (9 ms at the command line's start).

    >>> distinct(np.array([3, 1, 3, 2])).tolist()
    [1, 2, 3]
    """
    out = np.sort(values)
    if len(out) > 1:
        keep = np.empty(len(out), dtype=bool)
        keep[0] = True
        np.not_equal(out[1:], out[:-1], out=keep[1:])
        out = out[keep]
    return out


def to_numpy(arr: pa.Array | pa.ChunkedArray) -> np.ndarray:
    """A numpy view of a numeric Arrow array without nulls (a copy otherwise).

    ``Array.to_numpy`` imports pandas on its way (slow at cold start); a plain
    buffer view does not.
    """
    if isinstance(arr, pa.ChunkedArray):
        arr = arr.combine_chunks() if arr.num_chunks != 1 else arr.chunk(0)
    dtype = _NP.get(arr.type)
    if dtype is None or arr.null_count:
        return arr.to_numpy(zero_copy_only=False)  # type: ignore[no-any-return]  # pyarrow/torch values are untyped
    buf = arr.buffers()[1]
    return np.frombuffer(buf, dtype=dtype, count=len(arr), offset=arr.offset * np.dtype(dtype).itemsize)


def positions_or_minus1(idx: pa.Array) -> np.ndarray:
    """An int index array (as from ``pc.index_in``) as int64 with -1 for nulls (no pandas)."""
    if isinstance(idx, pa.ChunkedArray):
        idx = idx.combine_chunks()
    if idx.null_count == 0:
        return to_numpy(idx).astype(np.int64)
    dtype = _NP[idx.type]
    values = np.frombuffer(idx.buffers()[1], dtype=dtype, count=len(idx) + idx.offset)[idx.offset:]
    return np.where(_bitmap(idx.buffers()[0], idx.offset, len(idx)), values, -1).astype(np.int64)


def _bitmap(buf: pa.Buffer, offset: int, n: int) -> np.ndarray:
    """Bits ``offset .. offset + n`` of an Arrow bitmap (validity or boolean values) as numpy booleans."""
    bits = np.unpackbits(np.frombuffer(buf, dtype=np.uint8), bitorder="little")
    return bits[offset : offset + n].astype(bool)


def string_buffers(arr: pa.Array) -> tuple[np.ndarray, np.ndarray]:
    """The offsets (of this slice: ``len(arr) + 1`` of them) and the data bytes of a string array."""
    bufs = arr.buffers()
    odt = np.int64 if pa.types.is_large_string(arr.type) else np.int32
    offsets = np.frombuffer(bufs[1], dtype=odt, count=len(arr) + 1 + arr.offset)[arr.offset:]
    data = np.frombuffer(bufs[2], dtype=np.uint8) if bufs[2] is not None else np.zeros(0, dtype=np.uint8)
    return offsets, data


def as_string_array(values: Any) -> pa.Array:
    """Any id column (strings, integers, a chunked array) as one string array."""
    if isinstance(values, pa.ChunkedArray):
        values = values.combine_chunks()
    if not isinstance(values, pa.Array):
        values = pa.array(values)
    if pa.types.is_dictionary(values.type):
        values = values.dictionary_decode()
    if pa.types.is_large_string(values.type) or pa.types.is_string_view(values.type):
        values = C.cast(values, pa.string())
    elif not pa.types.is_string(values.type):
        values = C.cast(values, pa.string())
    return values


def as_string_column(values: object) -> pa.Array | pa.ChunkedArray:
    """Like :func:`as_string_array`, but a chunked array stays chunked (no copy of its data)."""
    if isinstance(values, pa.ChunkedArray) and values.num_chunks > 1:
        if pa.types.is_string(values.type):
            return values
        return pa.chunked_array([as_string_array(c) for c in values.chunks], type=pa.string())
    return as_string_array(values)


def take_rows(values: pa.Array | pa.ChunkedArray, rows: np.ndarray) -> pa.Array:
    """``values.take(rows)`` that reads only the chunks the rows are in.

    Arrow's take on a chunked array first concatenates all its chunks (a copy of the
    whole column, tens of milliseconds for a million ids read from a file); this
    takes from each chunk and joins the pieces.
    """
    if not isinstance(values, pa.ChunkedArray):
        return C.take(values, ints(rows))
    if values.num_chunks == 0:
        return pa.nulls(0, type=values.type)
    if values.num_chunks == 1:
        return C.take(values.chunk(0), ints(rows))
    rows = np.asarray(rows, dtype=np.int64)
    order = None if bool((rows[1:] >= rows[:-1]).all()) else np.argsort(rows, kind="stable")
    ordered = rows if order is None else rows[order]
    bounds = np.cumsum([0] + [len(c) for c in values.chunks])
    cuts = np.searchsorted(ordered, bounds)
    parts = [C.take(values.chunk(k), ints(ordered[cuts[k]:cuts[k + 1]] - bounds[k]))
             for k in range(values.num_chunks) if cuts[k + 1] > cuts[k]]
    out = pa.concat_arrays(parts) if parts else values.chunk(0).slice(0, 0)
    if order is not None:
        back = np.empty(len(order), dtype=np.int64)
        back[order] = np.arange(len(order))
        out = C.take(out, ints(back))
    return out


def bools(arr: pa.Array | pa.ChunkedArray) -> np.ndarray:
    """A boolean Arrow array without nulls as numpy booleans (no pandas)."""
    if isinstance(arr, pa.ChunkedArray):
        arr = arr.combine_chunks()
    if len(arr) == 0:
        return np.zeros(0, dtype=bool)
    return _bitmap(arr.buffers()[1], arr.offset, len(arr))


def encode_grouped(values: pa.Array) -> tuple[np.ndarray, pa.Array]:
    """:func:`encode_unsorted` for a column whose equal values mostly come in runs.

    Only the first value of each run is hashed (a file grouped by query has one run
    per query), so a million rows of ten thousand queries cost ten thousand lookups.

    >>> codes, vocab = encode_grouped(pa.array(["b", "b", "a", "b"]))
    >>> codes.tolist(), vocab.to_pylist()
    ([0, 0, 1, 0], ['b', 'a'])
    """
    n = len(values)
    if n < 2:
        return encode_unsorted(values)
    starts = np.concatenate(([0], np.flatnonzero(bools(C.not_equal(values[1:], values[:-1]))) + 1))
    codes, vocab = encode_unsorted(take_rows(values, starts))
    return np.repeat(codes, np.diff(np.append(starts, n))), vocab


def encode(values: pa.Array) -> tuple[np.ndarray, pa.Array]:
    """Codes (int64) and the sorted vocabulary of a string array.

    >>> codes, vocab = encode(pa.array(["b", "a", "b", "c"]))
    >>> codes.tolist(), vocab.to_pylist()
    ([1, 0, 1, 2], ['a', 'b', 'c'])
    """
    if isinstance(values, pa.ChunkedArray):
        values = values.combine_chunks()
    got = _encode_by_sort(values)
    if got is not None:
        return got
    indices, dictionary = encode_grouped(values)  # rows grouped by their id (as judgments are) hash only run heads
    order = to_numpy(C.sort_indices(dictionary))
    position = np.empty(len(order), dtype=np.int64)
    position[order] = np.arange(len(order), dtype=np.int64)
    return position[indices], C.take(dictionary, ints(order))


def _encode_by_sort(values: pa.Array) -> tuple[np.ndarray, pa.Array] | None:
    """:func:`encode` of a large text column whose runs of equal ids are (nearly) all distinct, as a file
    grouped by query with few rows a query gives: the run heads are sorted once and numbered, with no hash
    table (hashing, then sorting a vocabulary as large as the heads, held about twice the memory). None for
    any other column (a sample of the heads repeats an id, a null, not text, small).

    >>> codes, vocab = _encode_by_sort(pa.array([str(i % 70000) for i in range(140000)]))
    >>> codes[:3].tolist(), vocab[:3].to_pylist(), len(vocab)
    ([0, 1, 11112], ['0', '1', '10'], 70000)
    """
    n = len(values)
    if n < _SIGNATURE_CODING or not pa.types.is_string(values.type) or values.null_count:
        return None
    starts = np.flatnonzero(bools(C.not_equal(values.slice(1), values.slice(0, n - 1)))) + 1
    m = len(starts) + 1
    if m < _SIGNATURE_CODING:  # few runs: encode_grouped hashes only them
        return None
    sample = values.slice(0, min(n, 4096))
    if len(C.unique(sample)) * 2 < len(sample):  # ids repeat within runs of the sample: hashing is cheaper
        return None
    heads = values if m == n else C.take(values, ints(np.concatenate(([0], starts))))
    if m < n:
        sample = heads.slice(0, min(m, 4096))
        if len(C.unique(sample)) != len(sample):  # runs of one id come back: the vocabulary is smaller than the heads
            return None
    order = to_numpy(C.sort_indices(heads))
    ordered = C.take(heads, ints(order))
    new = np.empty(m, dtype=bool)
    new[0] = True
    new[1:] = bools(C.not_equal(ordered.slice(1), ordered.slice(0, m - 1)))
    head_codes = np.empty(m, dtype=np.int64)
    head_codes[order] = np.cumsum(new) - 1
    del order
    vocab = C.take(ordered, ints(np.flatnonzero(new)))
    if m == n:
        return head_codes, vocab
    return np.repeat(head_codes, np.diff(np.concatenate(([0], starts, [n])))), vocab


def distinct_ids(values: pa.Array | pa.ChunkedArray) -> pa.Array:
    """The distinct ids of a text column in order of first appearance, as Arrow's ``unique`` gives them.

    A large column grouped by id (a run file's query column) has one run of rows per id: its
    run heads are then distinct, which their sorted 64-bit signatures show without a hash
    table (Arrow's, for the ids of 2M one-item queries: about 0.5 s and 130 MB). Heads with
    equal signatures (an id in two places, or two ids alike in 64 bits), nulls and small
    columns go to Arrow's ``unique``.

    >>> distinct_ids(pa.array(["b", "b", "a", "c"])).to_pylist(), distinct_ids(pa.array(["b", "a", "b"])).to_pylist()
    (['b', 'a', 'c'], ['b', 'a'])
    """
    values = as_string_array(values)
    n = len(values)
    if n < _SIGNATURE_CODING or values.null_count:
        return as_string_array(C.unique(values))
    starts = np.flatnonzero(bools(C.not_equal(values.slice(1), values.slice(0, n - 1)))) + 1
    heads = values if len(starts) == n - 1 else C.take(values, ints(np.concatenate(([0], starts))))
    del starts
    sig = string_signature(heads)
    sig.sort()
    if bool((sig[1:] == sig[:-1]).any()):
        return as_string_array(C.unique(heads))  # (the heads keep every id's first appearance, in order)
    return heads


def union_vocab(*vocabs: pa.Array) -> pa.Array:
    """The sorted union of sorted vocabularies."""
    joined = pa.concat_arrays([C.cast(v, pa.string()) for v in vocabs])
    unique = C.unique(joined)
    return C.take(unique, C.sort_indices(unique))


def recode(vocab: pa.Array, into: pa.Array) -> np.ndarray:
    """Position of every id of ``vocab`` in the larger sorted vocabulary ``into``.

    Monotonic when both are sorted, so sorted codes stay sorted.
    """
    if len(vocab) == 0:
        return np.zeros(0, dtype=np.int64)
    idx = C.index_in(vocab, into)
    return positions_or_minus1(idx)  # -1: not in ``into``


def encode_unsorted(values: pa.Array) -> tuple[np.ndarray, pa.Array]:
    """Codes (int64) and the vocabulary in order of first appearance (no sort: fast).

    >>> codes, vocab = encode_unsorted(pa.array(["b", "a", "b"]))
    >>> codes.tolist(), vocab.to_pylist()
    ([0, 1, 0], ['b', 'a'])

    Large text columns (the item ids of a million judgments) are coded from their 64-bit
    signatures (:func:`_codes_by_signature`), every id confirmed equal to its group's
    first; Arrow's hash table is the reference and the fallback.
    """
    got = _by_signature(values)
    if got is not None:
        return got  # type: ignore[return-value]  # a tuple of the declared length
    encoded = C.dictionary_encode(values)
    if isinstance(encoded, pa.ChunkedArray):
        encoded = encoded.combine_chunks()
    indices = to_numpy(encoded.indices).astype(np.int64, copy=False)
    return indices, encoded.dictionary


_SIGNATURE_CODING = 1 << 16  # rows from which encode_unsorted codes by signature


def _by_signature(values: object, signatures: bool = False) -> tuple[np.ndarray, ...] | None:
    """:func:`_codes_by_signature` of a large text array without nulls; None for any other column."""
    if isinstance(values, pa.Array) and len(values) >= _SIGNATURE_CODING and pa.types.is_string(values.type) \
            and not values.null_count:
        return _codes_by_signature(values, signatures=signatures)
    return None


def encode_with_signatures(values: pa.Array) -> tuple[np.ndarray, pa.Array, np.ndarray]:
    """:func:`encode_unsorted`, and the :func:`string_signature` of every id of the vocabulary (computed
    on the way when the column is coded by signature).

    >>> codes, vocab, sig = encode_with_signatures(pa.array(["b", "a", "b"]))
    >>> codes.tolist(), vocab.to_pylist(), bool(sig[0] == string_signature(pa.array(["b"]))[0])
    ([0, 1, 0], ['b', 'a'], True)
    """
    got = _by_signature(values, signatures=True)
    if got is not None:
        return got  # type: ignore[return-value]  # a tuple of the declared length
    codes, vocab = encode_unsorted(values)
    return codes, vocab, string_signature(vocab)


def _codes_by_signature(values: pa.Array, rounds: int = 12,
                        signatures: bool = False) -> tuple[np.ndarray, ...] | None:
    """:func:`encode_unsorted` through 64-bit signatures, at about half the cost of Arrow's hash table.

    Rows are grouped by signature (:func:`_codes_by_key`), and every row is confirmed equal to
    its group's first. None when two different ids share a signature or the rounds run out:
    the caller asks Arrow.
    """
    sig = string_signature(values)
    got = _codes_by_key(sig, rounds)
    if got is None:
        return None
    code, first, head = got
    block = 1 << 18  # (confirmed 256k rows at a time: 2M rows of one id took two copies of 2M ids at once)
    for lo in range(0, len(sig), block):
        part = first[lo:lo + block]
        later = np.flatnonzero(part != np.arange(lo, lo + len(part), dtype=first.dtype))
        if len(later) and not bool(bools(C.equal(C.take(values, ints(later + lo)),
                                                 C.take(values, ints(part[later])))).all()):
            return None  # two ids share a signature
    del first
    return (code, C.take(values, ints(head))) + ((sig[head],) if signatures else ())


def _codes_by_key(key: np.ndarray, rounds: int = 12) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """Rows of equal 64-bit ``key`` grouped: each row's code (int64, groups numbered by their first row),
    each row's group's first row, and the groups' first rows in order. None when the rounds run out.

    Rows are grouped in an open table twice the size of the rows still ungrouped (each round
    groups every row whose slot holds a row of its key; the others try again with another
    multiplier). Exact on the keys: rows are grouped only with rows of the very same key.

    >>> code, first, head = _codes_by_key(np.array([7, 3, 7, 9, 3], dtype=np.uint64))
    >>> code.tolist(), first.tolist(), head.tolist()
    ([0, 1, 0, 2, 1], [0, 1, 0, 3, 1], [0, 1, 3])
    """
    n = len(key)
    pos = np.int32 if n < 2**31 else np.int64  # (row numbers in 4 bytes where they fit: half the temporaries)
    rows = np.arange(n, dtype=pos)
    rep: np.ndarray[Any, np.dtype[np.signedinteger[Any]]] = np.empty(n, dtype=pos)  # a row of the same key
    todo, tkey = rows, key
    mix = 0x9E3779B97F4A7C15
    for _ in range(rounds):
        bits = max(10, (2 * len(todo) - 1).bit_length())
        with np.errstate(over="ignore"):
            slot = ((tkey * np.uint64(mix)) >> np.uint64(64 - bits)).astype(np.intp)
        table = np.empty(1 << bits, dtype=pos)
        table[slot] = todo  # one row per occupied slot (which one is not said)
        owner = table[slot]
        del table, slot
        same = key[owner] == tkey
        rep[todo[same]] = owner[same]
        todo = todo[~same]
        if not len(todo):
            break
        tkey = key[todo]
        mix = (mix * 0x5851F42D4C957F2D + 0x14057B7EF767814F) % (1 << 64) | 1
    else:
        return None
    del todo, tkey
    first = np.full(n, n, dtype=pos)
    np.minimum.at(first, rep, rows)
    first = first[rep]  # each row's group's first row
    del rep
    head = np.flatnonzero(first == rows)  # the groups' first rows, in order
    code = np.empty(n, dtype=pos)
    code[head] = np.arange(len(head), dtype=pos)
    return code[first].astype(np.int64), first, head


def is_int_id_type(t: pa.DataType) -> bool:
    """Integer ids kept as numbers (their text is their decimal form): signed, or unsigned up to 32 bits.

    >>> is_int_id_type(pa.int32()), is_int_id_type(pa.uint64()), is_int_id_type(pa.string())
    (True, False, False)
    """
    return bool(pa.types.is_signed_integer(t) or t in (pa.uint8(), pa.uint16(), pa.uint32()))


def integer_ids(values: object) -> np.ndarray | None:
    """An id column of integers (signed, or unsigned up to 32 bits; Arrow or numpy; no nulls) as int64,
    else None. Such ids are text by their decimal form; coding them as numbers skips writing it per row.

    >>> integer_ids(pa.array([7, 10], pa.int32())).tolist(), integer_ids(pa.array(["7"]))
    ([7, 10], None)
    """
    if isinstance(values, (pa.Array, pa.ChunkedArray)):
        # (the type looked at before any chunks are joined: a text column is left as it is)
        if values.null_count or not is_int_id_type(values.type):
            return None
        if isinstance(values, pa.ChunkedArray):
            values = values.combine_chunks()
        return np.asarray(to_numpy(values), dtype=np.int64)
    if isinstance(values, np.ndarray) and values.dtype.kind in "iu" and values.ndim == 1 \
            and (values.dtype.kind == "i" or values.dtype.itemsize <= 4):
        return values.astype(np.int64, copy=False)
    return None


def encode_integer_ids(values: np.ndarray) -> tuple[np.ndarray, pa.Array, np.ndarray, np.ndarray]:
    """:func:`encode_with_signatures` of integer ids (see :func:`integer_ids`), and the vocabulary's integers.

    The same codes and vocabulary (each id's decimal text, in order of first appearance) as coding
    the ids' text, but only the distinct ids are written as text.

    >>> codes, vocab, sig, vals = encode_integer_ids(np.array([10, 7, 10]))
    >>> codes.tolist(), vocab.to_pylist(), vals.tolist(), sig.tolist() == string_signature(vocab).tolist()
    ([0, 1, 0], ['10', '7'], [10, 7], True)
    """
    got = _codes_by_key(values.view(np.uint64))
    if got is None:  # (the rounds ran out: never seen) numbered by first appearance through a sort
        uniq, first_at, inverse = np.unique(values, return_index=True, return_inverse=True)
        by_first = np.argsort(first_at, kind="stable")
        rank = np.empty(len(uniq), dtype=np.int64)
        rank[by_first] = np.arange(len(uniq), dtype=np.int64)
        codes, vals = rank[inverse.ravel()], uniq[by_first]
    else:
        codes, _first, head = got
        vals = values[head]
    vocab = C.cast(ints(vals), pa.string())
    return codes, vocab, string_signature(vocab), vals


def extend_vocab(vocab: pa.Array, other: pa.Array) -> tuple[pa.Array, np.ndarray]:
    """``vocab`` followed by the ids of ``other`` it lacks, and the code of every id of ``other``.

    Exact hash lookup; nothing is sorted, so it stays cheap for large vocabularies.
    """
    if len(other) == 0:
        return vocab, np.zeros(0, dtype=np.int64)
    pos = positions_or_minus1(C.index_in(other, vocab))
    missing = pos < 0
    codes = pos.copy()
    if missing.any():
        idx = np.flatnonzero(missing)
        codes[idx] = len(vocab) + np.arange(len(idx))
        vocab = pa.concat_arrays([C.cast(vocab, pa.string()), C.cast(C.take(other, ints(idx)), pa.string())])
    return vocab, codes


_MASKS = np.array([(1 << (8 * i)) - 1 for i in range(8)] + [(1 << 64) - 1], dtype=np.uint64)


def string_signature(arr: pa.Array | pa.ChunkedArray, block: int = 1 << 17) -> np.ndarray:
    """A 64-bit signature of every string: equal strings get equal signatures.

    Made of the length and two 8-byte words of the UTF-8 bytes (head and tail), mixed
    into 64 bits: different strings rarely share a signature (ids longer than 16 bytes
    that agree on both words always do), so it is a filter, never an identity: callers
    confirm every match by comparing the strings themselves. Computed ``block``
    strings at a time, so the temporaries stay small.
    """
    out = np.empty(len(arr), dtype=np.uint64)
    chunks = arr.chunks if isinstance(arr, pa.ChunkedArray) else [arr]
    at = 0
    for chunk in chunks:
        if not (pa.types.is_string(chunk.type) or pa.types.is_large_string(chunk.type)):
            chunk = as_string_array(chunk)
        for lo in range(0, len(chunk), block):
            part = chunk.slice(lo, block)
            out[at : at + len(part)] = _signature_block(part)
            at += len(part)
    return out


def _signature_block(arr: pa.Array) -> np.ndarray:
    offsets, raw = string_buffers(arr)
    o = offsets.astype(np.int64)
    starts = o[:-1]
    lengths = np.diff(o)
    # strings read in place; only the short ones in the buffer's last 8 bytes (an 8-byte word from their
    # start would run past its end) are read from a padded copy of that tail
    safe = int(np.searchsorted(starts, len(raw) - 8, side="right")) if len(raw) >= 8 else 0
    h = np.empty(len(starts), dtype=np.uint64)
    if safe:
        words = np.ndarray((len(raw) - 7,), dtype="<u8", buffer=raw, strides=(1,))  # a word at every byte
        h[:safe] = _signatures_from(words, starts[:safe], lengths[:safe])
    if safe < len(starts):
        lo = int(starts[safe])
        tail = np.zeros(len(raw) - lo + 16, dtype=np.uint8)
        tail[: len(raw) - lo] = raw[lo:]
        words = np.ndarray((len(tail) - 7,), dtype="<u8", buffer=tail, strides=(1,))
        h[safe:] = _signatures_from(words, starts[safe:] - lo, lengths[safe:])
    return h


def _signatures_from(words: np.ndarray, starts: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """Length, head word and tail word of each string, mixed (``words[i]``: the 8 bytes from byte i).

    ``head * M1 + tail * M2 + length * M3`` (mod 2^64), the words masked to the string's bytes. When no
    string is longer than 8 bytes, its tail word is its head word, so ``head * (M1 + M2)`` is the same
    value at half the cost (the usual case: numeric and short ids). Computed in place, one temporary.
    """
    mask = _MASKS[np.minimum(lengths, 8)]
    with np.errstate(over="ignore"):
        h = words[starts]
        h &= mask
        if len(lengths) and int(lengths.max()) <= 8:
            h *= _M12
        else:
            tail = words[starts + np.maximum(lengths - 8, 0)]
            tail &= mask
            tail *= _M2
            h *= _M1
            h += tail
        size = lengths.astype(np.uint64)
        size *= _M3
        h += size
    return cast(np.ndarray, h)


_M1, _M2, _M3 = np.uint64(0x9E3779B97F4A7C15), np.uint64(0xC2B2AE3D27D4EB4F), np.uint64(0x27D4EB2F165667C5)
_M12 = np.uint64((0x9E3779B97F4A7C15 + 0xC2B2AE3D27D4EB4F) % (1 << 64))
