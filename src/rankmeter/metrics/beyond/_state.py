"""The mergeable state of the corpus-level beyond-accuracy metrics.

Item codes in a :class:`~rankmeter.metrics.batch.Batch` are positions in that batch's
item vocabulary. Two batches of one run (streamed chunks, Spark partitions) have
different vocabularies, so the same code can name different items. A state is
therefore keyed by item **id**: ``ids`` (a sorted, unique string array of the items
recommended at least once) and per-item sums aligned with it. ``merge`` takes the
union of the ids and adds the sums; integer sums stay exact. Per-list quantities
(users counted, users covered) are additive ``totals``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping

import numpy as np
import pyarrow as pa

from ...data.ids import recode, union_vocab
from ._context import batch_vocab

__all__ = ["ItemState", "merge_states"]


@dataclass(frozen=True, eq=False)
class ItemState:
    """Per-item sums keyed by item id, and additive totals, for one or more batches.

    ``sums["count"]`` is the exposure of each item: the number of lists (within the
    cutoff) that contain it. ``k`` is the cutoff the lists were cut at (None: no cutoff).
    """

    ids: pa.Array
    sums: Mapping[str, np.ndarray]
    totals: Mapping[str, float] = field(default_factory=dict)
    k: int | None = None
    max_len: int = 0

    @classmethod
    def from_batch(cls, batch: Any, weights: Mapping[str, np.ndarray] | None = None,
                   totals: Mapping[str, float] | None = None) -> "ItemState":
        """Exposure counts (and optional per-row weights summed per item) of a cut batch."""
        vocab = batch_vocab(batch)
        n = len(vocab)
        counts = np.bincount(batch.item, minlength=n) if len(batch.item) else np.zeros(n, dtype=np.int64)
        nz = np.flatnonzero(counts)
        sums: dict[str, np.ndarray] = {"count": counts[nz].astype(np.int64)}
        for name, w in (weights or {}).items():
            sums[name] = np.bincount(batch.item, weights=w, minlength=n)[nz] if len(batch.item) \
                else np.zeros(0)
        lengths = np.diff(batch.offsets)
        return cls(
            ids=vocab.take(pa.array(nz, type=pa.int64())),
            sums=sums,
            totals=dict(totals or {}),
            k=batch.k,
            max_len=int(lengths.max()) if len(lengths) else 0,
        )

    def merge(self, other: "ItemState") -> "ItemState":
        if self.k != other.k:
            raise ValueError(f"cannot merge states cut at different k ({self.k} and {other.k})")
        if set(self.sums) != set(other.sums) or set(self.totals) != set(other.totals):
            raise ValueError("cannot merge states of different metrics")
        if len(self.ids) == len(other.ids) and self.ids.equals(other.ids):
            ids = self.ids
            sums = {n: self.sums[n] + other.sums[n] for n in self.sums}
        else:
            ids = union_vocab(self.ids, other.ids)
            a, b = recode(self.ids, ids), recode(other.ids, ids)
            sums = {}
            for n in self.sums:
                dtype = np.result_type(self.sums[n], other.sums[n])
                out = np.zeros(len(ids), dtype=dtype)
                out[a] += self.sums[n]
                out[b] += other.sums[n]
                sums[n] = out
        totals = {n: self.totals[n] + other.totals[n] for n in self.totals}
        return ItemState(ids=ids, sums=sums, totals=totals, k=self.k, max_len=max(self.max_len, other.max_len))

    @property
    def n_items(self) -> int:
        return len(self.ids)

    def __repr__(self) -> str:
        tot = ", ".join(f"{k}={v:g}" for k, v in self.totals.items())
        return f"ItemState({len(self.ids)} items exposed, k={self.k}{', ' + tot if tot else ''})"


def merge_states(a: ItemState, b: ItemState) -> ItemState:
    """``spec.merge`` of every corpus-level beyond-accuracy metric."""
    return a.merge(b)
