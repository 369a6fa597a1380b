"""What a recommender returned, counted and cleaned before evaluation (:class:`Validation`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence

import numpy as np
import pyarrow as pa

from .._compute import pc_on_first_use as pc
from .._errors import RankmeterError
from ..data.ids import as_string_array, encode

__all__ = ["Validation", "validate_recommendations"]


@dataclass(frozen=True)
class Validation:
    """What a recommender returned, counted. Rows are (user, item) recommendations.

    Removed before evaluation: ``extra_user_rows`` (users not asked for),
    ``unknown_items`` (items outside the catalogue), ``outside_candidates`` (sampled
    mode: items not among the user's candidates), ``duplicates`` (a repeated
    (user, item); the first in rank order is kept). Kept and counted:
    ``training_items`` (a user's own training item). Per user, after removals:
    ``missing_users`` (no list), ``short_lists`` (fewer than k items, missing users
    included), ``long_lists`` (more than k: the metrics read the top k).
    """

    recommender: str
    k: int
    users: int
    rows: int
    kept_rows: int
    extra_users: int = 0
    extra_user_rows: int = 0
    unknown_items: int = 0
    outside_candidates: int = 0
    duplicates: int = 0
    training_items: int = 0
    missing_users: int = 0
    short_lists: int = 0
    long_lists: int = 0
    examples: Mapping[str, Sequence[str]] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return not self.problems()

    def problems(self) -> list[str]:
        """One line per kind of problem found (empty when the output is clean)."""
        out = []

        def ex(key: str) -> str:
            ids = list(self.examples.get(key, ()))
            return f" (e.g. {', '.join(map(str, ids[:3]))})" if ids else ""

        if self.duplicates:
            out.append(f"{self.duplicates} duplicate recommendations removed (first in rank order "
                       f"kept){ex('duplicates')}")
        if self.unknown_items:
            out.append(f"{self.unknown_items} recommendations of items outside the catalogue removed"
                       f"{ex('unknown_items')}")
        if self.outside_candidates:
            out.append(f"{self.outside_candidates} recommendations outside the user's sampled candidates removed")
        if self.extra_user_rows:
            out.append(f"{self.extra_user_rows} recommendations for {self.extra_users} users not in the test set "
                       f"ignored{ex('extra_users')}")
        if self.training_items:
            out.append(f"{self.training_items} recommendations of the user's own training items (kept)"
                       f"{ex('training_items')}")
        if self.missing_users:
            out.append(f"{self.missing_users} of {self.users} test users got no recommendation (scored as empty "
                       f"lists){ex('missing_users')}")
        short_only = self.short_lists - self.missing_users
        if short_only:
            out.append(f"{short_only} users got fewer than k={self.k} recommendations{ex('short_lists')}")
        if self.long_lists:
            out.append(f"{self.long_lists} users got more than k={self.k} recommendations (metrics read the top k)")
        return out

    def to_dict(self) -> dict[str, Any]:
        return {
            "recommender": self.recommender, "k": self.k, "users": self.users, "rows": self.rows,
            "kept_rows": self.kept_rows, "extra_users": self.extra_users, "extra_user_rows": self.extra_user_rows,
            "unknown_items": self.unknown_items, "outside_candidates": self.outside_candidates,
            "duplicates": self.duplicates, "training_items": self.training_items,
            "missing_users": self.missing_users, "short_lists": self.short_lists, "long_lists": self.long_lists,
        }


def _mask(arr: pa.Array, value_set: pa.Array) -> np.ndarray:
    if len(arr) == 0:
        return np.zeros(0, dtype=bool)
    return np.asarray(pc.is_in(arr, value_set=value_set).to_numpy(zero_copy_only=False), dtype=bool)


def _codes(arr: pa.Array, vocab: pa.Array) -> np.ndarray:
    if len(arr) == 0:
        return np.zeros(0, dtype=np.int64)
    return np.asarray(pc.fill_null(pc.index_in(arr, value_set=vocab), -1).to_numpy(zero_copy_only=False),
                      dtype=np.int64)


def _first(arr: pa.Array, mask: np.ndarray, n: int = 3) -> list[str]:
    idx = np.flatnonzero(mask)[:200]
    return list(dict.fromkeys(arr.take(pa.array(idx, pa.int64())).to_pylist()))[:n] if len(idx) else []


def validate_recommendations(
    table: pa.Table,
    *,
    name: str,
    users: pa.Array,
    k: int,
    catalog: pa.Array,
    train_users: pa.Array,
    train_items: pa.Array,
    train_keys: np.ndarray,
    candidates: Any = None,
) -> tuple[pa.Table, Validation]:
    """Count and clean one recommender's ``user, item, score`` rows (see :class:`Validation`).

    ``train_keys`` are the sorted unique ``user code * len(train_items) + item code`` of
    the training interactions. Raises :class:`RankmeterError` when no usable row is left.
    """
    u = as_string_array(table.column("user"))
    i = as_string_array(table.column("item"))
    s = np.asarray(table.column("score").to_numpy(), dtype=np.float64)
    n_rows = len(u)
    examples: dict[str, list[str]] = {}
    keep = np.ones(n_rows, dtype=bool)

    asked = _mask(u, users)
    extra = ~asked
    extra_users = len(pc.unique(u.filter(pa.array(extra)))) if extra.any() else 0
    if extra.any():
        examples["extra_users"] = _first(u, extra)
    keep &= asked

    known = _mask(i, catalog)
    unknown = keep & ~known
    if unknown.any():
        examples["unknown_items"] = _first(i, unknown)
    keep &= known

    # duplicates among what is left: keep the first in rank order (score desc, item id desc)
    dup_count = 0
    idx = np.flatnonzero(keep)
    if len(idx):
        uc = _codes(u.take(pa.array(idx)), users)
        ic, ivocab = encode(i.take(pa.array(idx)))
        order = np.lexsort((-ic, -s[idx], uc))
        key = uc[order] * max(len(ivocab), 1) + ic[order]
        dup_sorted = np.zeros(len(order), dtype=bool)
        dup_sorted[1:] = key[1:] == key[:-1]
        dup_rows = idx[order[dup_sorted]]
        dup_count = len(dup_rows)
        if dup_count:
            dmask = np.zeros(n_rows, dtype=bool)
            dmask[dup_rows] = True
            examples["duplicates"] = _first(u, dmask)
            keep[dup_rows] = False

    outside = 0
    if candidates is not None and keep.any():
        idx = np.flatnonzero(keep)
        inside = candidates.pair_mask(u.take(pa.array(idx)), i.take(pa.array(idx)))
        outside = int((~inside).sum())
        keep[idx[~inside]] = False

    # the user's own training items (kept, counted)
    idx = np.flatnonzero(keep)
    seen_count = 0
    if len(idx) and len(train_keys):
        tu = _codes(u.take(pa.array(idx)), train_users)
        ti = _codes(i.take(pa.array(idx)), train_items)
        ok = (tu >= 0) & (ti >= 0)
        keys = tu * max(len(train_items), 1) + ti
        at = np.minimum(np.searchsorted(train_keys, keys), len(train_keys) - 1)
        seen = ok & (train_keys[at] == keys)
        seen_count = int(seen.sum())
        if seen_count:
            smask = np.zeros(n_rows, dtype=bool)
            smask[idx[seen]] = True
            examples["training_items"] = _first(u, smask)

    kept_u = u.filter(pa.array(keep))
    lengths = np.bincount(_codes(kept_u, users), minlength=len(users)) if len(kept_u) else np.zeros(len(users), int)
    missing = lengths == 0
    short = lengths < k
    if missing.any():
        examples["missing_users"] = _first(users, missing)
    if (short & ~missing).any():
        examples["short_lists"] = _first(users, short & ~missing)
    v = Validation(
        recommender=name, k=k, users=len(users), rows=n_rows, kept_rows=int(keep.sum()),
        extra_users=int(extra_users), extra_user_rows=int(extra.sum()), unknown_items=int(unknown.sum()),
        outside_candidates=outside, duplicates=dup_count, training_items=seen_count,
        missing_users=int(missing.sum()), short_lists=int(short.sum()), long_lists=int((lengths > k).sum()),
        examples=examples,
    )
    if v.kept_rows == 0:
        detail = "; ".join(v.problems()) or "it returned no rows"
        raise RankmeterError(
            f"recommender {name!r} gave no usable recommendation for any of the {len(users)} test users "
            f"({n_rows} rows returned: {detail}); its scores would be meaningless")
    return table.filter(pa.array(keep)), v
