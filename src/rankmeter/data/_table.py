"""Shared machinery of Qrels and Run: grouping coded rows by query."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pyarrow as pa

__all__ = ["RowError", "offsets_from_sorted", "duplicate_rows", "Grouped"]


class RowError(ValueError):
    """A problem at a row of the input table; readers turn it into file:line."""

    def __init__(self, row: int, message: str) -> None:
        super().__init__(message)
        self.row = row
        self.message = message


def offsets_from_sorted(qcodes: np.ndarray, n_queries: int) -> np.ndarray:
    """CSR offsets (length n_queries + 1) of rows sorted by query code."""
    return np.searchsorted(qcodes, np.arange(n_queries + 1), side="left").astype(np.int64)


def duplicate_rows(keys: np.ndarray) -> np.ndarray:
    """Indices of rows whose key repeats an earlier row's key (in input order)."""
    if len(keys) < 2:
        return np.zeros(0, dtype=np.int64)
    order = np.argsort(keys, kind="stable")
    sk = keys[order]
    dup = np.zeros(len(keys), dtype=bool)
    dup[1:] = sk[1:] == sk[:-1]
    return np.sort(order[dup])


@dataclass(frozen=True, eq=False)
class Grouped:
    """Rows grouped by query: ``query_ids[q]`` owns rows ``offsets[q]:offsets[q+1]``."""

    query_ids: pa.Array
    item_ids: pa.Array
    offsets: np.ndarray
    items: np.ndarray

    @property
    def n_queries(self) -> int:
        return len(self.query_ids)

    def __len__(self) -> int:
        return int(self.offsets[-1]) if len(self.offsets) else 0

    def lengths(self) -> np.ndarray:
        return np.diff(self.offsets)

    def row_queries(self) -> np.ndarray:
        """The query code of every row."""
        return np.repeat(np.arange(self.n_queries, dtype=np.int64), self.lengths())
