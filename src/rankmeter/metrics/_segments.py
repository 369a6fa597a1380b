"""Segment operations: reductions over each query's contiguous rows, vectorised.

Every function takes ``offsets`` (length n_segments + 1). Sums are computed per
segment with ``np.add.reduceat`` (never as differences of a global cumulative sum),
so a query's value does not depend on which other queries share the batch: the
in-process, streaming and Spark engines give bit-identical per-query numbers.
"""

from __future__ import annotations

from typing import cast

import numpy as np

from ..data.table import positions, row_segments  # (the one implementation: the data layer's)

__all__ = [
    "seg_sum",
    "seg_min",
    "seg_count_cumsum",
    "positions",
    "row_segments",
    "seg_first_true",
]


def _starts(offsets: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    lengths = np.diff(offsets)
    nonempty = lengths > 0
    return offsets[:-1][nonempty], nonempty


def seg_sum(values: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """Sum of each segment (0.0 for an empty one)."""
    out = np.zeros(len(offsets) - 1, dtype=np.float64)
    starts, nonempty = _starts(offsets)
    if len(starts):
        out[nonempty] = np.add.reduceat(np.asarray(values, dtype=np.float64), starts)
    return out


def seg_min(values: np.ndarray, offsets: np.ndarray, empty: float = np.inf) -> np.ndarray:
    out = np.full(len(offsets) - 1, empty, dtype=np.float64)
    starts, nonempty = _starts(offsets)
    if len(starts):
        out[nonempty] = np.minimum.reduceat(np.asarray(values, dtype=np.float64), starts)
    return out


def seg_count_cumsum(flags: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """Running count of True within each segment, inclusive (exact: integers)."""
    c = np.cumsum(flags, dtype=np.int64)
    lengths = np.diff(offsets)
    before = np.concatenate(([0], c))[offsets[:-1]]
    return cast(np.ndarray, c - np.repeat(before, lengths))


def seg_first_true(flags: np.ndarray, pos: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """Position (1-based) of the first True row per segment; 0 where there is none."""
    first = seg_min(np.where(flags, pos, np.inf), offsets)
    return np.where(np.isfinite(first), first, 0).astype(np.int64)
