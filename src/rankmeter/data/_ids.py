"""Integer coding of string ids: exact, order-preserving, no hashing of values into numbers.

Ids are kept as text. A vocabulary is a sorted ``pyarrow`` string array; a code is
the position of an id in it. Because the vocabulary is sorted by the bytes of the
UTF-8 text, comparing codes compares ids the way ``strcmp`` does, which is what
trec_eval's tie rule (item id descending) needs.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

__all__ = ["as_string_array", "encode", "union_vocab", "recode"]


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
    order = pc.sort_indices(dictionary).to_numpy()
    position = np.empty(len(order), dtype=np.int64)
    position[order] = np.arange(len(order), dtype=np.int64)
    indices = encoded.indices.to_numpy(zero_copy_only=False).astype(np.int64, copy=False)
    return position[indices], dictionary.take(pa.array(order))


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
    return idx.to_numpy(zero_copy_only=False).astype(np.int64)
