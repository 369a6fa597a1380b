"""Shared machinery of Qrels and Run: grouping coded rows by query."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pyarrow as pa

__all__ = ["RowError", "offsets_from_sorted", "duplicate_rows", "may_repeat", "lookup_keys", "Grouped", "search_sorted",
           "row_segments", "positions"]


class RowError(ValueError):
    """A problem at a row of the input table; readers turn it into file:line."""

    def __init__(self, row: int, message: str) -> None:
        super().__init__(message)
        self.row = row
        self.message = message


def offsets_from_sorted(qcodes: np.ndarray, n_queries: int) -> np.ndarray:
    """CSR offsets (length n_queries + 1) of rows sorted by query code."""
    return np.searchsorted(qcodes, np.arange(n_queries + 1), side="left").astype(np.int64)


def _common_length(offsets: np.ndarray) -> int | None:
    """The length every segment of CSR ``offsets`` has, if they all have one (a run cut at a fixed depth)."""
    if len(offsets) < 2:
        return None
    lengths = np.diff(offsets)
    width = int(lengths[0])
    return width if bool((lengths == width).all()) else None


def row_segments(offsets: np.ndarray) -> np.ndarray:
    """Each row's segment (0, 1, ...), for rows grouped by segment (CSR ``offsets``).

    Segments of one length are filled by broadcasting, which lets go of Python's GIL: ``np.repeat``
    holds it, and the page faults of its fresh output with it, stalling another worker's Python
    (10M rows at a fixed depth: ~0.03 s of CPU, a two-worker job ~1% longer).

    >>> row_segments(np.array([0, 2, 4])).tolist(), row_segments(np.array([0, 1, 4])).tolist()
    ([0, 0, 1, 1], [0, 1, 1, 1])
    """
    width = _common_length(offsets)
    if width is None:
        return np.repeat(np.arange(max(len(offsets) - 1, 0), dtype=np.int64), np.diff(offsets))
    out = np.empty((len(offsets) - 1, width), dtype=np.int64)
    out[:] = np.arange(len(offsets) - 1, dtype=np.int64)[:, None]
    return out.reshape(-1)


def positions(offsets: np.ndarray) -> np.ndarray:
    """The 1-based position of each row within its segment (CSR ``offsets``; one length: as
    :func:`row_segments`, by broadcasting).

    >>> positions(np.array([0, 2, 4])).tolist(), positions(np.array([0, 1, 4])).tolist()
    ([1, 2, 1, 2], [1, 1, 2, 3])
    """
    width = _common_length(offsets)
    if width is None:
        n = int(offsets[-1]) if len(offsets) else 0
        out = np.arange(1, n + 1, dtype=np.int64)
        out -= np.repeat(offsets[:-1], np.diff(offsets))
        return out
    out = np.empty((len(offsets) - 1, width), dtype=np.int64)
    out[:] = np.arange(1, width + 1, dtype=np.int64)
    return out.reshape(-1)


def search_sorted(table: np.ndarray, keys: np.ndarray) -> np.ndarray:
    """``np.searchsorted(table, keys)`` (side left) for a sorted ``table``, the keys searched in sorted order.

    numpy's binary search starts each key's search from the previous key's result when the keys
    ascend, so sorted keys walk the table in order instead of jumping about it: for 250k random
    64-bit keys in a table of 2M (the query ids of a chunk among 2M judged queries), a sort and the
    search cost about a third of the search alone, which missed the cache at nearly every step.

    >>> search_sorted(np.array([10, 20, 30]), np.array([25, 5, 30, 31])).tolist()
    [2, 0, 2, 3]
    """
    if len(keys) < 1024 or len(table) < 1 << 16:  # (small: the table fits the cache, the sort would not pay)
        return np.searchsorted(table, keys)
    if bool((keys[1:] >= keys[:-1]).all()):  # (ascending already)
        return np.searchsorted(table, keys)
    order = np.argsort(keys)
    out = np.empty(len(keys), dtype=np.intp)
    out[order] = np.searchsorted(table, keys[order])
    return out


def duplicate_rows(keys: np.ndarray) -> np.ndarray:
    """Indices of rows whose key repeats an earlier row's key (in input order)."""
    if len(keys) < 2:
        return np.zeros(0, dtype=np.int64)
    order = np.argsort(keys, kind="stable")
    sk = keys[order]
    dup = np.zeros(len(keys), dtype=bool)
    dup[1:] = sk[1:] == sk[:-1]
    return np.sort(order[dup])


def may_repeat(offsets: np.ndarray, key: np.ndarray) -> bool:
    """Whether two rows of one query might share a key (rows grouped by query, CSR ``offsets``).

    With the 64-bit signatures of the ids as keys, False proves every query's ids
    distinct; True asks the caller to compare the ids themselves. Queries of similar
    length are checked in a (queries x longest) grid sorted along its rows, which is
    much cheaper than sorting all keys.
    """
    n = int(offsets[-1]) if len(offsets) else 0
    if n < 2:
        return False
    nq = len(offsets) - 1
    lengths = np.diff(offsets)
    width = int(lengths.max())
    if nq * width == n:  # every query as long (a fixed depth): the rows are the grid already
        grid = key.reshape(nq, width).copy()
        grid.sort(axis=1)
        return bool((grid[:, 1:] == grid[:, :-1]).any())
    if nq * width <= 2 * n + 1024:
        # padding cells hold distinct values; a key equal to one only costs an exact check
        grid = np.empty((nq, width), dtype=np.uint64)
        grid[:] = np.arange(width, dtype=np.uint64) | np.uint64(1 << 63)
        flat = np.arange(n, dtype=np.int64)
        flat += np.repeat(np.arange(nq, dtype=np.int64) * width - offsets[:-1], lengths)
        grid.ravel()[flat] = key
        del flat
        grid.sort(axis=1)
        return bool((grid[:, 1:] == grid[:, :-1]).any())
    rows_q = np.repeat(np.arange(nq, dtype=np.uint64), lengths)
    with np.errstate(over="ignore"):
        sk = np.sort(key * np.uint64(0x9E3779B97F4A7C15) + rows_q)
    return bool((sk[1:] == sk[:-1]).any())


def lookup_keys(keys: np.ndarray, table_keys: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
    """Rows of ``keys`` found in ``table_keys``, and where: ``(rows, table_rows)``; None when ``table_keys``
    repeats a key.

    A join of 64-bit keys through an open table four times the size of
    ``table_keys`` that holds the keys themselves: each key reads one slot and
    compares. The few table keys that lost their slot to another one are searched
    in sorted order, only by the keys that land on such a slot and miss it.

    >>> [a.tolist() for a in lookup_keys(np.array([5, 7, 9], dtype=np.uint64), np.array([9, 5], dtype=np.uint64))]
    [[0, 2], [1, 0]]
    """
    nt = len(table_keys)
    if not nt:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    bits = max(10, (4 * nt - 1).bit_length())
    shift, mixed = np.uint64(64 - bits), np.uint64(0x9E3779B97F4A7C15)
    with np.errstate(over="ignore"):
        t_slot = table_keys * mixed
        t_slot >>= shift
        t_slot = t_slot.view(np.int64)
        slot = keys * mixed
        slot >>= shift
        slot = slot.view(np.int64)
    itype = np.int32 if nt < 2**31 else np.int64
    owner: np.ndarray = np.full(1 << bits, -1, dtype=itype)
    owner[t_slot] = np.arange(nt, dtype=itype)
    won = owner[t_slot]  # (the last table key written to a slot owns it)
    lost = np.flatnonzero(won != np.arange(nt, dtype=itype))  # table keys that share their slot
    lost_keys = table_keys[lost]
    order = np.argsort(lost_keys)
    sorted_lost = lost_keys[order]
    if bool((lost_keys == table_keys[won[lost]]).any()) or bool((sorted_lost[1:] == sorted_lost[:-1]).any()):
        return None  # equal keys share a slot: a repeated key
    slot_key = np.zeros(1 << bits, dtype=np.uint64)
    slot_key[t_slot] = table_keys[won]  # each slot's owner's key (empty slots: 0, told apart by their owner)
    del won
    hit = slot_key.take(slot) == keys
    rows = np.flatnonzero(hit)
    where = owner[slot[rows]].astype(np.int64)
    if bool((where < 0).any()):  # a key of 0 read from an empty slot
        good = where >= 0
        rows, where = rows[good], where[good]
    if len(lost):
        shared = np.zeros(1 << bits, dtype=bool)
        shared[t_slot[lost]] = True
        on_shared = shared.take(slot)
        on_shared &= ~hit
        maybe = np.flatnonzero(on_shared)
        at = np.minimum(np.searchsorted(sorted_lost, keys[maybe]), len(lost) - 1)
        found_lost = sorted_lost[at] == keys[maybe]
        rows = np.concatenate((rows, maybe[found_lost]))
        where = np.concatenate((where, lost[order[at[found_lost]]]))
    return rows, where


@dataclass(frozen=True, eq=False)
class Grouped:
    """Rows grouped by query: ``query_ids[q]`` owns rows ``offsets[q]:offsets[q+1]``."""

    query_ids: pa.Array
    offsets: np.ndarray

    @property
    def n_queries(self) -> int:
        return len(self.query_ids)

    def __len__(self) -> int:
        return int(self.offsets[-1]) if len(self.offsets) else 0

    def lengths(self) -> np.ndarray:
        return np.diff(self.offsets)

    def row_queries(self) -> np.ndarray:
        """The query code of every row."""
        return row_segments(self.offsets)
