"""The input of every rating kernel: (user, item, true rating, predicted rating) rows, grouped.

A :class:`RatingsBatch` holds the evaluated pairs as columns (``true``, ``pred``
float64; ``user``, ``item`` integer codes into sorted id vocabularies) and says how
rows are grouped: ``by="user"`` (one value per user: the per-user table),
``by="item"`` (one value per item: the per-item average of Gunawardana & Shani), or
``by="all"`` (one group of every pair: the global, micro value).
:meth:`RatingsBatch.regroup` gives the same rows grouped another way without
copying them.

Kernels return one value per group. Sums per group go through
:meth:`RatingsBatch.group_sum` (``np.bincount`` over the group codes: one pass, no
sort, and a group's sum only reads that group's rows, in row order). Kernels that
need each group's rows together (rank correlation, ROC) call
:meth:`RatingsBatch.segments`, which sorts the rows by (group, other id) once and
caches the CSR ``offsets``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, Mapping, Sequence

import numpy as np

from .._errors import InputError, ParameterError
from .rating_scale import Scale

__all__ = ["RatingsBatch", "GROUPINGS"]

GROUPINGS = ("user", "item", "all")


@dataclass(eq=False)
class RatingsBatch:
    true: np.ndarray
    pred: np.ndarray
    user: np.ndarray
    item: np.ndarray
    n_users: int
    n_items: int
    by: str = "user"
    context: Mapping[str, Any] = field(default_factory=dict)
    _rows: dict[Any, Any] = field(default_factory=dict, repr=False)  # per-row caches, shared by regroups
    _groups: dict[str, "RatingsBatch"] = field(default_factory=dict, repr=False)
    _cache: dict[Any, Any] = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        if self.by not in GROUPINGS:
            raise ValueError(f"by must be one of {GROUPINGS}, got {self.by!r}")

    # ------------------------------------------------------------------ groups

    def __len__(self) -> int:
        return len(self.true)

    @property
    def n_groups(self) -> int:
        return {"user": self.n_users, "item": self.n_items, "all": 1}[self.by]

    @cached_property
    def gid(self) -> np.ndarray:
        """The group code of every row."""
        if self.by == "user":
            return self.user
        if self.by == "item":
            return self.item
        return np.zeros(len(self.true), dtype=np.int64)

    @cached_property
    def lengths(self) -> np.ndarray:
        """Pairs per group."""
        if self.by == "all":
            return np.array([len(self.true)], dtype=np.int64)
        return np.bincount(self.gid, minlength=self.n_groups).astype(np.int64)

    def group_sum(self, values: np.ndarray) -> np.ndarray:
        """Sum of ``values`` (one per row) over each group."""
        values = np.asarray(values, dtype=np.float64)
        if self.by == "all":
            return np.array([np.add.reduce(values)]) if len(values) else np.zeros(1)
        return np.bincount(self.gid, weights=values, minlength=self.n_groups)

    def group_mean(self, values: np.ndarray) -> np.ndarray:
        """Mean of ``values`` over each group (NaN for a group without rows)."""
        s = self.group_sum(values)
        n = self.lengths
        out = np.full(len(s), np.nan)
        np.divide(s, n, out=out, where=n > 0)
        return out

    def regroup(self, by: str) -> "RatingsBatch":
        """The same rows grouped by ``"user"``, ``"item"`` or ``"all"`` (cached, rows shared)."""
        if by == self.by:
            return self
        if by not in GROUPINGS:
            raise ParameterError(f"The 'per' parameter must be one of pair, user, item. Got {by!r} instead.")
        if by not in self._groups:
            other = RatingsBatch(self.true, self.pred, self.user, self.item, self.n_users, self.n_items, by,
                                 self.context, self._rows, self._groups)
            self._groups[by] = other
            self._groups.setdefault(self.by, self)
        return self._groups[by]

    def segments(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(offsets, true, pred) with each group's rows contiguous, ordered by the other id code."""
        key = "segments"
        if key not in self._cache:
            n = len(self.true)
            from .rankstats import order_by

            if self.by == "all":
                order = None if _sorted_pairs(self.user, self.item, self.n_items) else order_by(
                    (self.user, self.n_users), (self.item, self.n_items))
                offsets = np.array([0, n], dtype=np.int64)
            else:
                other = self.item if self.by == "user" else self.user
                n_other = self.n_items if self.by == "user" else self.n_users
                order = None if _sorted_pairs(self.gid, other, n_other) else order_by(
                    (self.gid, self.n_groups), (other, n_other))
                offsets = np.concatenate(([0], np.cumsum(self.lengths))).astype(np.int64)
            if order is None:
                self._cache[key] = (offsets, self.true, self.pred)
            else:
                self._cache[key] = (offsets, self.true[order], self.pred[order])
        return self._cache[key]  # type: ignore[no-any-return]  # the cache holds Any

    def row(self, name: str | tuple[str, ...], make: Any) -> np.ndarray:
        """A per-row array computed once and shared by every grouping (e.g. absolute errors)."""
        if name not in self._rows:
            self._rows[name] = make()
        return self._rows[name]  # type: ignore[no-any-return]  # the cache holds Any

    # ------------------------------------------------------------------ context

    @property
    def scale(self) -> Scale | None:
        s = self.context.get("scale")
        return s if isinstance(s, Scale) else None

    def scale_range(self, metric: str) -> float:
        s = self.scale
        if s is None:
            if len(self.true) == 0:
                return float("nan")
            lo, hi = float(np.min(self.true)), float(np.max(self.true))
        else:
            lo, hi = s.min, s.max
        if not hi > lo:
            raise ParameterError(
                f"{metric} divides by r_max - r_min, which is 0: every true rating is {lo:g} and no scale was "
                "declared; declare one with scale=(min, max) (CLI: --scale MIN:MAX)")
        return hi - lo

    # ------------------------------------------------------------------ building

    @classmethod
    def from_arrays(
        cls,
        true: Sequence[float] | np.ndarray,
        pred: Sequence[float] | np.ndarray,
        users: Sequence[Any] | np.ndarray | None = None,
        items: Sequence[Any] | np.ndarray | None = None,
        *,
        by: str = "user",
        context: Mapping[str, Any] | None = None,
    ) -> "RatingsBatch":
        """A batch from aligned arrays (for single lists and tests; the evaluator builds it from tables).

        Without ``users`` every pair belongs to one user ``"all"``; without ``items`` pair
        ``i`` is item ``str(i)``. Ids are coded over their sorted text.

        >>> b = RatingsBatch.from_arrays([3, 1, 5], [2.5, 1.0, 4.0], users=["u2", "u1", "u2"])
        >>> b.n_users, b.lengths.tolist(), b.group_sum(b.pred).tolist()
        (2, [1, 2], [1.0, 6.5])
        """
        t = _floats(true, "true ratings")
        p = _floats(pred, "predicted ratings")
        if len(t) != len(p):
            raise InputError(f"true and predicted ratings have different lengths: {len(t)} and {len(p)}")
        n = len(t)
        ucodes, uvocab = _encode(users, n, "users", default="all")
        icodes, ivocab = _encode(items, n, "items", default=None)
        ctx = dict(context or {})
        ctx.setdefault("user_ids", uvocab)
        ctx.setdefault("item_ids", ivocab)
        return cls(t, p, ucodes, icodes, len(uvocab), len(ivocab), by, ctx)


def _sorted_pairs(a: np.ndarray, b: np.ndarray, nb: int) -> bool:
    """Whether rows are already sorted by (a, b)."""
    if len(a) < 2:
        return True
    key = a.astype(np.int64) * max(nb, 1) + b
    return bool(np.all(key[1:] >= key[:-1]))


def _floats(values: Any, what: str) -> np.ndarray:
    try:
        arr = np.asarray(values, dtype=np.float64)
    except (TypeError, ValueError):
        raise InputError(f"{what} must be numbers") from None
    if arr.ndim != 1:
        raise InputError(f"{what} must be one-dimensional, got shape {arr.shape}")
    return arr


def _encode(ids: Any, n: int, what: str, default: str | None) -> tuple[np.ndarray, list[str]]:
    if ids is None:
        if default is not None:
            return np.zeros(n, dtype=np.int64), [default] if n else []
        vocab = sorted(str(i) for i in range(n))
        pos = {v: k for k, v in enumerate(vocab)}
        return np.array([pos[str(i)] for i in range(n)], dtype=np.int64), vocab
    text = [str(x) for x in (ids.tolist() if isinstance(ids, np.ndarray) else list(ids))]
    if len(text) != n:
        raise InputError(f"{what} and ratings have different lengths: {len(text)} and {n}")
    vocab = sorted(set(text))
    pos = {v: k for k, v in enumerate(vocab)}
    return np.array([pos[x] for x in text], dtype=np.int64), vocab
