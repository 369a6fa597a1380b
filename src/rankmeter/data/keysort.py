"""Sorting packed 64-bit keys ``code << shift | row`` in place, by the way that suits the keys and the processor.

Every key is distinct (each holds its row's number), so every sort gives the same array; only the
time differs:

- keys nearly in order (judgments written query after query, a query's grades or items in any
  order; sorted runs side by side): numpy's stable sort (timsort) follows the runs, about linear;
- keys in no order: numpy's quicksort, except where that is slow (below): there, blocks of
  :data:`RADIX_ROWS` keys, each put in order by a stable radix sort of its codes (numpy's stable
  argsort of 16-bit integers is a radix sort) and one gather, then the blocks' runs merged (timsort).

Where numpy's quicksort is slow: on AMD Zen 4 processors its AVX-512 code (x86-simd-sort) stores
through ``vpcompressq`` to memory, which that core runs in microcode, 4-6x slower than the same
numpy's AVX2 code (numpy/x86-simd-sort issue 6, numpy pull request 32690);
:func:`quicksort_is_slow` tells. Measured on this project's Zen 4 machine (2026-11-27), int64 keys:

======================================  =============  ============  =====================
keys                                    quicksort      AVX2 code     here
======================================  =============  ============  =====================
1M judgments in query order             52-67 ms       10-11 ms      timsort 11 ms
356k in no order (a range of a run)     16.4 ms        3.6 ms        radix 3.4 ms
5M in no order (half a regrouped run)   303 ms         60 ms         blocks 117 ms
======================================  =============  ============  =====================

Elsewhere the radix blocks would lose (5M: 117 ms against 60), so they are used only there.

>>> key = np.array([2 << 4 | 0, 0 << 4 | 1, 2 << 4 | 2, 1 << 4 | 3])
>>> sort_keys(key, 4); (key >> 4).tolist(), (key & 15).tolist()
([0, 1, 2, 2], [1, 3, 0, 2])
"""

from __future__ import annotations

import functools
import os
import platform

import numpy as np

__all__ = ["RADIX_ROWS", "nearly_sorted", "quicksort_is_slow", "radix_order", "sort_keys", "zen4_avx512"]

RADIX_ROWS = 1 << 19  # keys per radix block (4 MB of keys, 1 MB of 16-bit digits: a core's cache)

_SAMPLE_STEP = 64  # "nearly in order": one key in this many ascends from the one sampled before it...
_SAMPLE_DESCENTS = 16  # ...but for at most one in this many of them


def sort_keys(key: np.ndarray, shift: int, radix: bool | None = None) -> None:
    """Sort ``key`` (int64, ``code << shift | row``, every key distinct and not negative) in place.
    ``radix``: whether keys in no order are sorted by radix blocks (default: :func:`quicksort_is_slow`).

    >>> key = np.array([5 << 3 | 1, 5 << 3 | 0, 0 << 3 | 7]); sort_keys(key, 3, radix=True); key.tolist()
    [7, 40, 41]
    """
    n = len(key)
    if n < 2:
        return
    if nearly_sorted(key):
        key.sort(kind="stable")  # (timsort: runs found and merged)
        return
    if not (quicksort_is_slow() if radix is None else radix):
        key.sort()
        return
    for at in range(0, n, RADIX_ROWS):
        block = key[at:at + RADIX_ROWS]
        codes = block >> shift
        top = int(codes.max())
        if top < 1 << 32:
            block[:] = block[radix_order(codes, top)]
        else:  # (codes of more than 32 bits: more passes than a sort is worth)
            block.sort()
    key.sort(kind="stable")  # (the blocks' runs merged; rows not ascending within a code put right)


@functools.cache
def quicksort_is_slow() -> bool:
    """Whether numpy's quicksort runs its AVX-512 code on an AMD Zen 4 core, on this machine
    (:func:`zen4_avx512` of ``/proc/cpuinfo``; never on another architecture or system). Read once."""
    if platform.machine().lower() not in ("x86_64", "amd64"):
        return False
    try:
        with open("/proc/cpuinfo", encoding="ascii", errors="replace") as fh:
            cpuinfo = fh.read(1 << 14)
    except OSError:
        return False
    return zen4_avx512(cpuinfo, os.environ.get("NPY_DISABLE_CPU_FEATURES", ""))


def zen4_avx512(cpuinfo: str, disabled: str = "") -> bool:
    """Whether ``cpuinfo`` (the text of ``/proc/cpuinfo``) shows an AMD processor of family 25 (Zen 3 and
    Zen 4) with AVX-512 (Zen 4 alone), which numpy uses unless ``disabled`` (``NPY_DISABLE_CPU_FEATURES``)
    names it.

    >>> zen4_avx512("vendor_id : AuthenticAMD\\ncpu family : 25\\nflags : fpu avx2 avx512f")
    True
    >>> zen4_avx512("vendor_id : AuthenticAMD\\ncpu family : 25\\nflags : fpu avx2 avx512f", "X86_V4")
    False
    """
    if any(name in disabled for name in ("X86_V4", "AVX512F", "AVX512_SKX")):
        return False
    first = cpuinfo.split("\n\n", 1)[0]  # (the first processor's block)
    info = {k.strip(): v.strip() for k, v in (line.split(":", 1) for line in first.splitlines() if ":" in line)}
    return (info.get("vendor_id") == "AuthenticAMD" and info.get("cpu family") == "25"
            and "avx512f" in info.get("flags", "").split())


def nearly_sorted(key: np.ndarray) -> bool:
    """Whether ``key`` sampled every :data:`_SAMPLE_STEP` values descends at most once in
    :data:`_SAMPLE_DESCENTS` steps: disorder that is only local, which timsort's runs absorb.

    >>> nearly_sorted(np.arange(1000) ^ 3), nearly_sorted(np.arange(1000)[::-1])
    (True, False)
    """
    sample = key[::_SAMPLE_STEP]
    return int(np.count_nonzero(sample[1:] < sample[:-1])) * _SAMPLE_DESCENTS <= len(sample)


def radix_order(codes: np.ndarray, top: int) -> np.ndarray:
    """The stable order of ``codes`` (int64, 0 <= code <= ``top`` < 2**32): a radix sort of their 16-bit
    halves, low half first.

    >>> radix_order(np.array([70000, 3, 70000, 1]), 70000).tolist()
    [3, 1, 0, 2]
    """
    order = np.argsort(codes.astype(np.uint16), kind="stable")  # (the low 16 bits: the cast wraps)
    if top < 1 << 16:
        return order
    high = (codes >> 16).astype(np.uint16)[order]
    return order[np.argsort(high, kind="stable")]
