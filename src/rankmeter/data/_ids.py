"""Integer coding of string ids: exact, never hashing values into numbers.

Ids are kept as text; a code is the position of an id in a ``pyarrow`` string
vocabulary. :func:`encode` sorts the vocabulary by the ids' UTF-8 bytes (codes then
compare like ``strcmp``); :func:`encode_unsorted` keeps the order of first
appearance, which is cheaper and is what runs use (their ties compare the ids
themselves). Lookups between vocabularies are exact hash lookups.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

__all__ = ["ints", "to_numpy", "as_string_array", "encode", "encode_unsorted", "union_vocab", "recode", "extend_vocab"]


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


def to_numpy(arr: pa.Array | pa.ChunkedArray) -> np.ndarray:
    """A numpy view of a numeric Arrow array without nulls (a copy otherwise).

    ``Array.to_numpy`` imports pandas on its way (slow at cold start); a plain
    buffer view does not.
    """
    if isinstance(arr, pa.ChunkedArray):
        arr = arr.combine_chunks() if arr.num_chunks != 1 else arr.chunk(0)
    dtype = _NP.get(arr.type)
    if dtype is None or arr.null_count:
        return arr.to_numpy(zero_copy_only=False)  # type: ignore[no-any-return]
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
    bits = np.unpackbits(np.frombuffer(idx.buffers()[0], dtype=np.uint8), bitorder="little")
    valid = bits[idx.offset : idx.offset + len(idx)].astype(bool)
    return np.where(valid, values, -1).astype(np.int64)


def as_string_array(values: object) -> pa.Array:
    """Any id column (strings, integers, a chunked array) as one string array."""
    if isinstance(values, pa.ChunkedArray):
        values = values.combine_chunks()
    if not isinstance(values, pa.Array):
        values = pa.array(values)
    if pa.types.is_dictionary(values.type):
        values = values.dictionary_decode()
    if pa.types.is_large_string(values.type) or pa.types.is_string_view(values.type):
        values = values.cast(pa.string())
    elif not pa.types.is_string(values.type):
        values = pc.cast(values, pa.string())
    return values


def encode(values: pa.Array) -> tuple[np.ndarray, pa.Array]:
    """Codes (int64) and the sorted vocabulary of a string array.

    >>> codes, vocab = encode(pa.array(["b", "a", "b", "c"]))
    >>> codes.tolist(), vocab.to_pylist()
    ([1, 0, 1, 2], ['a', 'b', 'c'])
    """
    encoded = pc.dictionary_encode(values)
    if isinstance(encoded, pa.ChunkedArray):
        encoded = encoded.combine_chunks()
    dictionary = encoded.dictionary
    order = to_numpy(pc.sort_indices(dictionary))
    position = np.empty(len(order), dtype=np.int64)
    position[order] = np.arange(len(order), dtype=np.int64)
    indices = to_numpy(encoded.indices).astype(np.int64, copy=False)
    return position[indices], dictionary.take(ints(order))


def union_vocab(*vocabs: pa.Array) -> pa.Array:
    """The sorted union of sorted vocabularies."""
    joined = pa.concat_arrays([v.cast(pa.string()) for v in vocabs])
    unique = pc.unique(joined)
    return unique.take(pc.sort_indices(unique))


def recode(vocab: pa.Array, into: pa.Array) -> np.ndarray:
    """Position of every id of ``vocab`` in the larger sorted vocabulary ``into``.

    Monotonic when both are sorted, so sorted codes stay sorted.
    """
    if len(vocab) == 0:
        return np.zeros(0, dtype=np.int64)
    idx = pc.index_in(vocab, value_set=into)
    return positions_or_minus1(idx)  # -1: not in ``into``


def encode_unsorted(values: pa.Array) -> tuple[np.ndarray, pa.Array]:
    """Codes (int64) and the vocabulary in order of first appearance (no sort: fast).

    >>> codes, vocab = encode_unsorted(pa.array(["b", "a", "b"]))
    >>> codes.tolist(), vocab.to_pylist()
    ([0, 1, 0], ['b', 'a'])
    """
    encoded = pc.dictionary_encode(values)
    if isinstance(encoded, pa.ChunkedArray):
        encoded = encoded.combine_chunks()
    indices = to_numpy(encoded.indices).astype(np.int64, copy=False)
    return indices, encoded.dictionary


def extend_vocab(vocab: pa.Array, other: pa.Array) -> tuple[pa.Array, np.ndarray]:
    """``vocab`` followed by the ids of ``other`` it lacks, and the code of every id of ``other``.

    Exact hash lookup; nothing is sorted, so it stays cheap for large vocabularies.
    """
    if len(other) == 0:
        return vocab, np.zeros(0, dtype=np.int64)
    pos = positions_or_minus1(pc.index_in(other, value_set=vocab))
    missing = pos < 0
    codes = pos.copy()
    if missing.any():
        idx = np.flatnonzero(missing)
        codes[idx] = len(vocab) + np.arange(len(idx))
        vocab = pa.concat_arrays([vocab.cast(pa.string()), other.take(ints(idx)).cast(pa.string())])
    return vocab, codes
