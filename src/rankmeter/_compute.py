"""The Arrow compute kernels of the evaluation path, called by name.

``import pyarrow.compute`` builds a Python wrapper for every kernel Arrow has, which
costs 30-40 ms each time the command line starts; so do the array methods that go
through it (``Array.take``, ``Array.cast``). The evaluation path calls the few
kernels it needs through ``pyarrow._compute.call_function`` instead, the function
those wrappers call themselves. Everything off that path uses ``pyarrow.compute``.

For type checkers this is the Arrow boundary: pyarrow has no type information, so its
values are ``Any``; the functions here return them as the ``Column`` they are, and
``pc_on_first_use`` gives ``pyarrow.compute``'s functions as ``Any``.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any, TypeAlias

import pyarrow as pa
from pyarrow._compute import (
    ArraySortOptions,
    CastOptions,
    ScalarAggregateOptions,
    SetLookupOptions,
    SortOptions,
    call_function,
)

__all__ = [
    "all_true", "cast", "dictionary_encode", "equal", "index_in", "is_finite", "not_equal", "sort_indices",
    "take", "unique", "release_memory", "map_large_arrays", "MILLIONS",
]

Column: TypeAlias = pa.Array | pa.ChunkedArray


def take(values: Column | pa.Table, indices: pa.Array) -> Column:
    return call_function("take", [values, indices])


def dictionary_encode(values: Column) -> Column:
    return call_function("dictionary_encode", [values])


def sort_indices(values: Column | pa.Table, sort_keys: Sequence[tuple[str, str]] | None = None) -> pa.Array:
    """Indices sorting an array ascending, or a table by ``sort_keys`` ((column, order), ...)."""
    if sort_keys is None:
        return call_function("array_sort_indices", [values], ArraySortOptions("ascending"))
    return call_function("sort_indices", [values], SortOptions(list(sort_keys)))


def index_in(values: Column, value_set: pa.Array) -> Column:
    return call_function("index_in", [values], SetLookupOptions(value_set))


def unique(values: Column) -> pa.Array:
    return call_function("unique", [values])


def equal(a: Column, b: Column) -> Column:
    return call_function("equal", [a, b])


def not_equal(a: Column, b: Column) -> Column:
    return call_function("not_equal", [a, b])


def is_finite(values: Column) -> Column:
    return call_function("is_finite", [values])


def all_true(values: Column) -> bool:
    """Whether every value of a boolean column is true (an empty column: True)."""
    return bool(call_function("all", [values], ScalarAggregateOptions(min_count=0)).as_py())


def cast(values: Column, to: pa.DataType) -> Column:
    return call_function("cast", [values], CastOptions(to))


class _OnFirstUse:
    """``pyarrow.compute``, imported when an attribute is first read.

    For modules the package imports eagerly but whose Arrow work runs only on demand.
    """

    def __getattr__(self, name: str) -> Any:  # pyarrow.compute is untyped: its functions are Any
        import pyarrow.compute

        return getattr(pyarrow.compute, name)


pc_on_first_use = _OnFirstUse()


# "millions": from this many judgments, or judged queries, the evaluation's memory measures apply
# (release_memory after a large input or chunk, map_large_arrays, smaller chunks)
MILLIONS = 1 << 20


@functools.lru_cache(maxsize=32)
def empty_table(schema: pa.Schema) -> pa.Table:
    """A table of ``schema``'s columns and no rows, holding no memory of another table: one for each
    schema, shared (a table cannot change).

    Not pyarrow's ``Schema.empty_table()``: its first call imports pandas (0.14 s, twice that
    when two threads make the call at once; measured in the regrouping route of a 10M-line run).
    Shared, because a new one for each of a run's ranges keeps its few bytes of buffers alive for the
    whole evaluation, between the buffers the parse frees: the heap then reuses them less (10M lines
    not grouped by query: 184k -> 167k page faults, peak memory 768 -> 689 MB).

    >>> empty_table(pa.schema([("query", pa.string()), ("score", pa.float64())])).num_rows
    0
    """
    return pa.Table.from_arrays([pa.nulls(0, f.type) for f in schema], schema=schema)


def release_memory() -> None:
    """Give back to the system the memory the allocators keep after large temporaries are freed.

    Arrow's pool (mimalloc) and glibc's malloc (numpy's arrays) both hold on to freed pages;
    after a phase that made hundreds of MB of temporaries (coding the ids of millions of
    judgments), the next phase would otherwise start from that high-water mark. Called
    between the phases of a large evaluation (a few ms); a no-op where glibc is absent.
    """
    import ctypes

    pa.default_memory_pool().release_unused()
    try:
        ctypes.CDLL(None).malloc_trim(0)  # (the process's own symbols: glibc's malloc_trim where it has one)
    except (OSError, AttributeError):  # not glibc
        pass


def map_large_arrays(threshold: int = 1 << 20) -> None:  # (bytes)
    """From now on, give every allocation over ``threshold`` bytes a mapping of its own, handed back to the
    system when it is freed (glibc's ``M_MMAP_THRESHOLD``; a no-op where glibc is absent).

    For judgments of millions of queries only: each chunk's per-query outputs (ids, values) then
    live as long as the evaluation, between the chunks' freed temporaries, and the heap keeps the
    holes (2M one-item queries: about 200 MB of resident memory above what is in use). Not set for
    ordinary inputs (100k queries of 100 rows), where reusing the heap's pages saves page faults.
    """
    import ctypes

    try:
        ctypes.CDLL(None).mallopt(-3, int(threshold))  # M_MMAP_THRESHOLD (fixed from now on)
    except (OSError, AttributeError):  # not glibc
        pass


def pool_empty(n: int, dtype: Any) -> Any:
    """An uninitialised numpy array of ``n`` items in Arrow's memory pool (kept alive by the array).

    For large arrays that are filled once and read at random (a run regrouped in memory: its
    sort keys, joined ids, gathered scores): numpy asks for huge pages for its large arrays,
    whose first touch cost about 0.6 s more system time than the pool's pages for 350 MB
    (10M lines in any order, measured on a shared 2-core VM), while the reads were as fast.

    >>> a = pool_empty(3, "int64"); a[:] = 7; a.tolist()
    [7, 7, 7]
    """
    import numpy as np

    dt = np.dtype(dtype)
    return np.frombuffer(pa.allocate_buffer(max(n * dt.itemsize, 1)), dtype=dt)[:n]
