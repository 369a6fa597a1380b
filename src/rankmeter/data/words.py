"""Short ids as numbers: an id of 1 to 8 bytes, none of them zero, read as one 8-byte word.

The word of such an id is its UTF-8 bytes as a little-endian 64-bit number, zero-padded:
``"D12"`` is ``0x323144``. Two short ids are equal exactly when their words are (a zero
byte, which no short id holds, marks the end), so words compare, join and code ids with
no signature to confirm and no text to keep. Read byte-swapped (big-endian), they order
as the ids' bytes do, C's ``strcmp`` (the padding's zeros sort a prefix first): the tie
rule's id order (:mod:`rankmeter.data.order`). Nearly every id in practice is short:
decimal document numbers, ``Q123``, MS MARCO's passage ids.

>>> import pyarrow as pa
>>> ids = pa.array(["D12", "D9", "D12"])
>>> short_ids(ids), [hex(w) for w in id_words(ids).tolist()]
(True, ['0x323144', '0x3944', '0x323144'])
>>> words_text(id_words(ids)).to_pylist()
['D12', 'D9', 'D12']
>>> (word_order(id_words(ids))[0] < word_order(id_words(ids))[1])  # "D12" < "D9", as strcmp
np.True_
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa

from .ids import _MASKS, string_buffers  # (the low ``i`` bytes of a word, index 8: all of them)

__all__ = ["id_words", "short_id_words", "short_ids", "word_order", "words_text"]


def short_ids(ids: pa.Array) -> bool:
    """Whether every id of a text array has 1 to 8 bytes, none of them zero, and none is null: then
    :func:`id_words` gives each id a number of its own."""
    if not pa.types.is_string(ids.type) or ids.null_count:
        return False
    if not len(ids):
        return True
    o, raw = string_buffers(ids)
    lengths = np.diff(o)
    return int(lengths.min()) >= 1 and int(lengths.max()) <= 8 and bool(raw[int(o[0]):int(o[-1])].all())


def id_words(ids: pa.Array, out: np.ndarray | None = None) -> np.ndarray:
    """Each id's first 8 bytes as a little-endian number, zero-padded (into ``out`` when given): the
    id's word where :func:`short_ids` holds. Read in place, but for the ids in the buffer's last 8
    bytes (a word from their start would run past its end), read from a padded copy of that tail;
    :data:`_BLOCK` ids at a time."""
    out = np.empty(len(ids), dtype=np.uint64) if out is None else out
    if not len(ids):
        return out
    o, raw = string_buffers(ids)
    for a in range(0, len(ids), _BLOCK):
        _block_words(o[a:a + _BLOCK + 1], raw, out[a:a + _BLOCK])
    return out


# ids read at a time: the temporaries (a few of 8 bytes an id) stay in the cache and in the heap's pages.
# Whole ranges of 356k ids made temporaries of 2.8 MB, which glibc's malloc hands back to the system
# when freed and faults in again: 4.2 ms a range's ids against 1.4 ms in blocks (measured on 2 cores)
_BLOCK = 1 << 16


def _block_words(o: np.ndarray, raw: np.ndarray, out: np.ndarray) -> None:
    """:func:`id_words` of the ids at offsets ``o`` (their ends included) of ``raw``, into ``out``."""
    o = o.astype(np.int64)
    masks = _MASKS[np.minimum(np.diff(o), 8)]
    safe = int(np.searchsorted(o[:-1], len(raw) - 8, side="right")) if len(raw) >= 8 else 0
    if safe:
        words = np.ndarray((len(raw) - 7,), dtype="<u8", buffer=raw, strides=(1,))  # a word at every byte
        np.bitwise_and(words[o[:safe]], masks[:safe], out=out[:safe])
    if safe < len(out):
        lo = int(o[safe])
        tail = np.zeros(len(raw) - lo + 8, dtype=np.uint8)
        tail[:len(raw) - lo] = raw[lo:]
        words = np.ndarray((len(tail) - 7,), dtype="<u8", buffer=tail, strides=(1,))
        np.bitwise_and(words[o[safe:-1] - lo], masks[safe:], out=out[safe:])


def short_id_words(ids: pa.Array) -> tuple[np.ndarray, np.ndarray]:
    """For ids of any length: each one's word where it is short (1 to 8 bytes, no zero byte), else 0,
    and which ones are (a longer id equals no short one).

    >>> words, ok = short_id_words(pa.array(["D1", "a-long-document-id", "x\\x00"]))
    >>> [hex(w) for w in words.tolist()], ok.tolist()
    (['0x3144', '0x0', '0x0'], [True, False, False])
    """
    if isinstance(ids, pa.ChunkedArray):
        ids = ids.combine_chunks()
    words = id_words(ids)
    if not len(ids):
        return words, np.zeros(0, dtype=bool)
    o, raw = string_buffers(ids)
    o = o.astype(np.int64)
    lengths = np.diff(o)
    ok = (lengths >= 1) & (lengths <= 8)
    zeros = np.flatnonzero(raw[int(o[0]):int(o[-1])] == 0) + int(o[0])
    ok[np.searchsorted(o, zeros, side="right") - 1] = False  # (an id holding a zero byte)
    if ids.null_count:
        ok &= np.asarray(ids.is_valid())
    words[~ok] = 0
    return words, ok


def words_text(words: np.ndarray) -> pa.Array:
    """The ids (text) of short ids' words: the inverse of :func:`id_words`."""
    raw = np.ascontiguousarray(words, dtype="<u8").view(np.uint8).reshape(-1, 8)
    lengths = 8 - np.argmax(raw[:, ::-1] != 0, axis=1)  # (no short id is empty: its last byte is not zero)
    offsets = np.concatenate(([0], np.cumsum(lengths))).astype(np.int32)
    data = raw[np.arange(8) < lengths[:, None]]
    return pa.Array.from_buffers(pa.string(), len(raw), [None, pa.py_buffer(offsets), pa.py_buffer(data)])


def word_order(words: np.ndarray) -> np.ndarray:
    """Numbers that order short ids' words as the ids' bytes (``strcmp``): the words byte-swapped."""
    return np.asarray(words, dtype=np.uint64).byteswap()
