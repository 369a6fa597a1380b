"""Rankings: (query, item, score) rows in columnar form, each query's rows in rank order.

The tie rule
------------
A scored run is ranked by score descending; equal scores are broken by item id
descending, comparing the ids' bytes (``strcmp``), which is trec_eval's rule. The
rank column of a TREC file is ignored unless ``order="rank"`` is asked for. An
explicit order (ordered lists, ``order="given"``) is used exactly as given.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ._ids import as_string_array, encode_unsorted, ints, to_numpy
from ._table import Grouped, RowError, duplicate_rows, offsets_from_sorted
from .qrels import _check_no_nulls, _dedupe, _float_column

__all__ = ["Run"]

Order = Literal["score", "rank", "given"]


@dataclass(frozen=True, eq=False)
class Run(Grouped):
    """A ranking per query. Rows of query ``q`` are ``offsets[q]:offsets[q+1]``, best first.

    Query and item codes follow the order of first appearance in the input (no
    vocabulary is sorted: that is what keeps reading large runs fast).

    ``scores`` holds the system's scores in that order; for an explicit order
    without scores it is minus the position (1-based), so higher is still better.
    """

    scores: np.ndarray
    order: str = "score"
    dropped: int = 0  # duplicate rows removed by the chosen duplicates policy

    @classmethod
    def from_columns(
        cls,
        query: object,
        item: object,
        score: object | None = None,
        *,
        rank: object | None = None,
        order: Order = "score",
        duplicates: Literal["error", "max", "first", "last"] = "error",
    ) -> "Run":
        """A run from aligned columns.

        >>> r = Run.from_columns(["q", "q", "q"], ["a", "b", "c"], [1.0, 2.0, 1.0])
        >>> r.to_lists()
        {'q': ['b', 'c', 'a']}
        """
        qarr, iarr = as_string_array(query), as_string_array(item)
        n = len(qarr)
        if len(iarr) != n:
            raise ValueError(f"query and item columns differ in length: {n} and {len(iarr)}")
        _check_no_nulls(qarr, "query")
        _check_no_nulls(iarr, "item")
        if order == "score":
            if score is None:
                raise ValueError("a run ranked by score needs a score column (or order='given')")
            scores = _float_column(score, "score")
        elif order == "rank":
            if rank is None:
                raise ValueError("order='rank' needs a rank column")
            ranks = _float_column(rank, "rank")
            _check_finite(ranks, "rank")
            scores = _float_column(score, "score") if score is not None else -ranks
        elif order == "given":
            scores = _float_column(score, "score") if score is not None else None  # type: ignore[assignment]
        else:
            raise ValueError(f"order must be 'score', 'rank' or 'given', got {order!r}")
        if scores is not None:
            if len(scores) != n:
                raise ValueError(f"score column has {len(scores)} values for {n} rows")
            _check_finite(scores, "score")
        # codes in order of first appearance: a file grouped by query needs no sort by query,
        # and item codes carry no order (ties compare the ids themselves)
        qcodes, qvocab = encode_unsorted(qarr)
        icodes, ivocab = encode_unsorted(iarr)
        keys = qcodes * max(len(ivocab), 1) + icodes
        dups = _duplicates(keys)
        dropped = 0
        if len(dups):
            dropped = len(dups)
            if duplicates == "error":
                r = int(dups[0])
                raise RowError(
                    r,
                    f"item {iarr[r].as_py()!r} appears twice for query {qarr[r].as_py()!r} "
                    f"({len(dups)} duplicate rows in all; choose a policy with "
                    "duplicates='max'|'first'|'last')",
                )
            keep = _dedupe(keys, scores if scores is not None else -np.arange(n, dtype=float), duplicates)
            qcodes, icodes = qcodes[keep], icodes[keep]
            iarr = iarr.take(ints(keep))
            scores = scores[keep] if scores is not None else None
            if order == "rank":
                ranks = ranks[keep]
        if order == "score":
            perm = _rank_order(qcodes, scores, iarr)
        elif order == "rank":
            perm = _rank_order(qcodes, -ranks, iarr)
        else:
            perm = np.argsort(qcodes, kind="stable")
        if perm is not None:
            qcodes, icodes = qcodes[perm], icodes[perm]
            scores = scores[perm] if scores is not None else None
        offsets = offsets_from_sorted(qcodes, len(qvocab))
        if scores is None:
            scores = -_positions(offsets).astype(np.float64)
        return cls(
            query_ids=qvocab,
            item_ids=ivocab,
            offsets=offsets,
            items=np.ascontiguousarray(icodes),
            scores=np.ascontiguousarray(scores, dtype=np.float64),
            order=order,
            dropped=dropped,
        )

    def to_lists(self) -> dict[str, list[str]]:
        """``{query: [items best first]}``."""
        qids, iids = self.query_ids.to_pylist(), self.item_ids.to_pylist()
        return {
            qids[q]: [iids[i] for i in self.items[self.offsets[q] : self.offsets[q + 1]]]
            for q in range(self.n_queries)
        }

    def to_dict(self) -> dict[str, dict[str, float]]:
        """``{query: {item: score}}``."""
        qids, iids = self.query_ids.to_pylist(), self.item_ids.to_pylist()
        out: dict[str, dict[str, float]] = {}
        for q in range(self.n_queries):
            a, b = self.offsets[q], self.offsets[q + 1]
            out[qids[q]] = {iids[i]: float(s) for i, s in zip(self.items[a:b], self.scores[a:b])}
        return out

    def to_arrow(self) -> pa.Table:
        """A ``query, item, score, rank`` table in rank order."""
        return pa.table(
            {
                "query": self.query_ids.take(ints(self.row_queries())),
                "item": self.item_ids.take(ints(self.items)),
                "score": self.scores,
                "rank": _positions(self.offsets),
            }
        )

    def __repr__(self) -> str:
        return f"Run({self.n_queries} queries, {len(self)} rows)"


def _check_finite(values: np.ndarray, name: str) -> None:
    bad = np.flatnonzero(~np.isfinite(values))
    if len(bad):
        raise RowError(int(bad[0]), f"{name} is not a finite number ({values[bad[0]]})")


def _positions(offsets: np.ndarray) -> np.ndarray:
    """1-based position of every row within its query."""
    n = int(offsets[-1]) if len(offsets) else 0
    lengths = np.diff(offsets)
    return np.arange(1, n + 1, dtype=np.int64) - np.repeat(offsets[:-1], lengths)


def _duplicates(keys: np.ndarray) -> np.ndarray:
    """Rows repeating an earlier (query, item) key: one sort to look, a second only to locate."""
    if len(keys) < 2:
        return np.zeros(0, dtype=np.int64)
    sk = np.sort(keys)
    if not bool((sk[1:] == sk[:-1]).any()):
        return np.zeros(0, dtype=np.int64)
    return duplicate_rows(keys)


def _rank_order(qcodes: np.ndarray, value: np.ndarray, items: pa.Array) -> np.ndarray | None:
    """Permutation to (query asc, value desc, item id desc by bytes), or None if already so.

    Sorting numbers is cheap; comparing ids is not. So rows are ordered by (query,
    value) with numpy, and only the rows inside groups of equal (query, value), the
    ties, are ordered by their ids, with pyarrow's string sort.
    """
    n = len(qcodes)
    if n < 2:
        return None
    dq = np.diff(qcodes)
    dv = np.diff(value)
    if bool(((dq > 0) | ((dq == 0) & (dv <= 0))).all()):
        perm = None
        q, v = qcodes, value
    else:
        perm = np.lexsort((-value, qcodes))
        q, v = qcodes[perm], value[perm]
    tie = np.zeros(n, dtype=bool)
    same = (q[1:] == q[:-1]) & (v[1:] == v[:-1])
    tie[1:] |= same
    tie[:-1] |= same
    if not tie.any():
        return perm
    rows = np.flatnonzero(tie)  # positions (in the current order) of tied rows
    group = np.cumsum(np.concatenate(([True], ~same)))[rows]
    src = rows if perm is None else perm[rows]
    sub = pa.table({"g": ints(group), "item": items.take(ints(src))})
    within = to_numpy(pc.sort_indices(sub, sort_keys=[("g", "ascending"), ("item", "descending")]))
    if perm is None:
        perm = np.arange(n)
    # for comparing bytes, the id strings' order is the UTF-8 byte order (Arrow compares bytes)
    new = perm.copy()
    new[rows] = src[within]
    if bool((new == np.arange(n)).all()):
        return None
    return new
