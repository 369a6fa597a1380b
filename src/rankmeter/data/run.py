"""Rankings: (query, item, score) rows in columnar form, each query's rows in rank order.

The tie rule is :mod:`rankmeter.data.order`'s (score descending, ties by item id
descending, comparing bytes, as trec_eval). The rank column of a TREC file is ignored
unless ``order="rank"`` is asked for. An explicit order (ordered lists,
``order="given"``) is used exactly as given.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import cached_property
from typing import Literal, cast

import numpy as np
import pyarrow as pa

from .. import _compute as C
from .ids import (
    as_string_column,
    encode_grouped,
    encode_unsorted,
    ints,
    string_signature,
    take_rows,
    to_numpy,
)
from .order import rank_order
from .qrels import _check_no_nulls, _dedupe, _float_column
from .table import Grouped, RowError, duplicate_rows, may_repeat, positions

__all__ = ["Run", "rank_values"]

Order = Literal["score", "rank", "given"]


@dataclass(frozen=True, eq=False)
class Run(Grouped):
    """A ranking per query. Rows of query ``q`` are ``offsets[q]:offsets[q+1]``, best first.

    Query codes follow the order of first appearance in the input. The item ids stay
    as text, in input order (``item_input``); ``row_order`` gives the input row of
    each ranked row (None when the input was in rank order already), ``item_rows``
    the ids in rank order and :meth:`items_at` those of some ranked rows. Integer
    item codes (``items``, into the vocabulary ``item_ids``) are built only when
    something asks for them, because evaluating with the ranking metrics never does:
    judgments are looked up by the ids themselves. That is what keeps reading large
    runs fast.

    ``scores`` holds the system's scores in rank order; for an explicit order
    without scores it is minus the position (1-based), so higher is still better.
    """

    item_input: pa.Array | pa.ChunkedArray
    row_order: np.ndarray | None
    scores: np.ndarray
    order: str = "score"
    dropped: int = 0  # duplicate rows removed by the chosen duplicates policy
    comment_lines: int = 0  # comment lines the reader skipped (TREC text)
    notes: tuple[str, ...] = ()  # what the reader inferred or skipped, in the user's words

    @cached_property
    def item_rows(self) -> pa.Array | pa.ChunkedArray:
        """Each ranked row's item id, in rank order."""
        if self.row_order is None:
            return self.item_input
        items = self.item_input
        return C.take(items.combine_chunks() if isinstance(items, pa.ChunkedArray) else items, ints(self.row_order))

    def items_at(self, rows: np.ndarray) -> pa.Array | pa.ChunkedArray:
        """The item ids of the ranked rows ``rows`` (positions in rank order)."""
        return take_rows(self.item_input, rows if self.row_order is None else self.row_order[rows])

    @cached_property
    def _coded(self) -> tuple[np.ndarray, pa.Array]:
        return encode_unsorted(self.item_rows)

    @property
    def items(self) -> np.ndarray:
        """Each row's item code, a position in :attr:`item_ids` (built on first use)."""
        return self._coded[0]

    @property
    def item_ids(self) -> pa.Array:
        """The distinct item ids, in order of first appearance in rank order."""
        return self._coded[1]

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
        qarr, iarr = as_string_column(query), as_string_column(item)
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
            ranks = rank_values(rank)
            _check_finite(ranks, "rank")
            scores = _float_column(score, "score") if score is not None else -ranks.astype(np.float64)
        elif order == "given":
            # None only without scores (the ignore below)
            scores = _float_column(score, "score") if score is not None else None  # type: ignore[assignment]
        else:
            raise ValueError(f"order must be 'score', 'rank' or 'given', got {order!r}")
        if scores is not None:
            if len(scores) != n:
                raise ValueError(f"score column has {len(scores)} values for {n} rows")
            _check_finite(scores, "score")
        # query codes in order of first appearance: a file grouped by query needs no sort
        qcodes, qvocab = encode_grouped(qarr)
        moved = None  # when only tied rows were reordered: their positions
        if order == "score":
            perm, moved = rank_order(qcodes, scores, iarr)
        elif order == "rank":  # integer ranks by their exact order (1e20 and 1e20 + 1 never tie)
            perm, moved = rank_order(qcodes, -_exact_order(ranks), iarr)
        else:
            perm = None if bool((np.diff(qcodes) >= 0).all()) else np.argsort(qcodes, kind="stable")
        offsets = np.zeros(len(qvocab) + 1, dtype=np.int64)
        np.cumsum(np.bincount(qcodes, minlength=len(qvocab)), out=offsets[1:])
        signatures = string_signature(iarr)
        if moved is not None:
            signatures[moved] = signatures[cast(np.ndarray, perm)[moved]]  # (rows moved: a permutation)
        elif perm is not None:
            signatures = signatures[perm]
        if may_repeat(offsets, signatures):
            # perhaps a repeated (query, item): code the ids exactly, in input order
            icodes, ivocab = encode_unsorted(iarr)
            keys = qcodes * max(len(ivocab), 1) + icodes
            dups = _duplicates(keys)
            if len(dups):
                return cls._without_repeats(qarr, iarr, scores, ranks if order == "rank" else None,
                                            order, duplicates, keys, dups)
        if scores is None:
            scores = -positions(offsets).astype(np.float64)
        elif perm is not None and (moved is None or order != "score"):
            scores = scores[perm]  # (rows tied on their score need not move it)
        run = cls(
            query_ids=qvocab,
            offsets=offsets,
            item_input=iarr,
            row_order=perm,
            scores=np.ascontiguousarray(scores, dtype=np.float64),
            order=order,
        )
        run.__dict__["item_signatures"] = signatures  # computed already (a cached property)
        return run

    @classmethod
    def _without_repeats(cls, qarr: pa.Array, iarr: pa.Array, scores: np.ndarray | None, ranks: np.ndarray | None,
                         order: Order, duplicates: str, keys: np.ndarray, dups: np.ndarray) -> "Run":
        """Report the first repeated row, or apply the duplicates policy and build the run again."""
        if duplicates == "error":
            r = int(dups[0])
            raise RowError(
                r,
                f"item {iarr[r].as_py()!r} appears twice for query {qarr[r].as_py()!r} "
                f"({len(dups)} duplicate rows in all; choose a policy with "
                "duplicates='max'|'first'|'last')",
            )
        keep = _dedupe(keys, scores if scores is not None else -np.arange(len(keys), dtype=float), duplicates)
        k = ints(keep)
        run = cls.from_columns(C.take(qarr, k), C.take(iarr, k), None if scores is None else scores[keep],
                               rank=None if ranks is None else ranks[keep], order=order)
        return replace(run, dropped=len(dups))

    @cached_property
    def item_signatures(self) -> np.ndarray:
        """A 64-bit signature of every row's item id (:func:`~rankmeter.data.ids.string_signature`)."""
        return string_signature(self.item_rows)

    def to_lists(self) -> dict[str, list[str]]:
        """``{query: [items best first]}``."""
        qids, items = self.query_ids.to_pylist(), self.item_rows.to_pylist()
        return {qids[q]: items[self.offsets[q] : self.offsets[q + 1]] for q in range(self.n_queries)}

    def to_dict(self) -> dict[str, dict[str, float]]:
        """``{query: {item: score}}``."""
        qids, items = self.query_ids.to_pylist(), self.item_rows.to_pylist()
        out: dict[str, dict[str, float]] = {}
        for q in range(self.n_queries):
            a, b = self.offsets[q], self.offsets[q + 1]
            out[qids[q]] = {i: float(s) for i, s in zip(items[a:b], self.scores[a:b], strict=True)}
        return out

    def to_arrow(self) -> pa.Table:
        """A ``query, item, score, rank`` table in rank order."""
        return pa.table(
            {
                "query": C.take(self.query_ids, ints(self.row_queries())),
                "item": self.item_rows,
                "score": self.scores,
                "rank": positions(self.offsets),
            }
        )

    def __repr__(self) -> str:
        return f"Run({self.n_queries} queries, {len(self)} rows)"

    def _repr_html_(self) -> str:
        """The counts, the first items of the first queries and the notes (Jupyter's rich display; fused runs too)."""
        from .display import run_html

        return run_html(self)


def rank_values(rank: object) -> np.ndarray:
    """Ranks as numbers that order exactly: int64 where they are integers (an integer column, or text of
    integers), else float64.

    Integers past 64 bits (text) are given as their dense ordinal (0 for the smallest), which orders them
    exactly, where float64 would tie 1e20 and 1e20 + 1.

    >>> rank_values(pa.array(["100000000000000000001", "100000000000000000000", "7"])).tolist()
    [2, 1, 0]
    >>> rank_values(pa.array(["9007199254740993", "9007199254740992"])).tolist()
    [9007199254740993, 9007199254740992]
    >>> rank_values(pa.array(["1.5", "2"])).tolist()
    [1.5, 2.0]
    """
    if isinstance(rank, pa.ChunkedArray):
        rank = rank.combine_chunks()
    if isinstance(rank, pa.Array):
        t = rank.type
        if (pa.types.is_string(t) or pa.types.is_large_string(t)) and not rank.null_count:
            try:
                return np.asarray(to_numpy(C.cast(rank, pa.int64())), dtype=np.int64)
            except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
                pass
            big = _big_integer_order(rank)
            if big is not None:
                return big
            try:
                return np.asarray(to_numpy(C.cast(rank, pa.float64())), dtype=np.float64)
            except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
                raise ValueError("rank column holds values that are not numbers") from None
        if pa.types.is_integer(t) and not rank.null_count and not pa.types.is_uint64(t):
            return np.asarray(to_numpy(rank), dtype=np.int64)
    elif isinstance(rank, np.ndarray) and rank.dtype.kind == "i":
        return rank.astype(np.int64, copy=False)
    return _float_column(rank, "rank")


def _big_integer_order(text: pa.Array) -> np.ndarray | None:
    """The dense ordinal of integers written as text, some past 64 bits (None: not all integers)."""
    import re

    whole = re.compile(r"[+-]?[0-9]+")
    texts = text.to_pylist()
    if not all(whole.fullmatch(t) for t in texts):
        return None
    values = [int(t) for t in texts]
    ordinal = {v: i for i, v in enumerate(sorted(set(values)))}
    return np.array([ordinal[v] for v in values], dtype=np.int64)


def _exact_order(ranks: np.ndarray) -> np.ndarray:
    """Order-preserving float64 values of ranks: integer ranks by their dense ordinal (exact for every int64;
    as floats, integers past 2**53 would tie), float ranks as they are."""
    if ranks.dtype.kind != "i" or not len(ranks):
        return ranks
    if -(1 << 53) <= int(ranks.min()) and int(ranks.max()) <= 1 << 53:
        return ranks.astype(np.float64)
    return np.unique(ranks, return_inverse=True)[1].reshape(-1).astype(np.float64)


def _check_finite(values: np.ndarray, name: str) -> None:
    bad = np.flatnonzero(~np.isfinite(values))
    if len(bad):
        raise RowError(int(bad[0]), f"{name} is not a finite number ({values[bad[0]]})")


def _duplicates(keys: np.ndarray) -> np.ndarray:
    """Rows repeating an earlier (query, item) key: one sort to look, a second only to locate."""
    if len(keys) < 2:
        return np.zeros(0, dtype=np.int64)
    sk = np.sort(keys)
    if not bool((sk[1:] == sk[:-1]).any()):
        return np.zeros(0, dtype=np.int64)
    return duplicate_rows(keys)
