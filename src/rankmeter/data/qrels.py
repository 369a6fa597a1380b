"""Relevance judgments: (query, item, grade) rows in columnar, query-grouped form."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

import numpy as np
import pyarrow as pa

from .. import _compute as C
from .ids import (
    as_string_array,
    encode,
    encode_integer_ids,
    encode_with_signatures,
    integer_ids,
    ints,
    string_signature,
    to_numpy,
)
from .order import sort_codes
from .table import Grouped, RowError, duplicate_rows, offsets_from_sorted

if TYPE_CHECKING:
    from .subtopics import SubtopicJudgments

__all__ = ["Qrels"]

DuplicatePolicy = Literal["error", "max", "first", "last"]


@dataclass(frozen=True, eq=False)
class Qrels(Grouped):
    """Judgments. Rows of a query are contiguous, in the order of their item codes.

    Grades are float64; integer and fractional grades both work. A negative grade
    means "judged, never relevant": its gain is 0, and the judgment-based measures
    (bpref) treat it as unjudged, as trec_eval does.

    Build one with :meth:`from_columns`, or from any input through
    :func:`rankmeter.read_qrels` and the loaders.
    """

    item_ids: pa.Array  # the judged item ids, in order of first appearance
    items: np.ndarray  # each row's item code (a position in item_ids)
    grades: np.ndarray
    dropped: int = 0  # duplicate judgments removed by the chosen duplicates policy
    comment_lines: int = 0  # comment lines the reader skipped (TREC text)
    notes: tuple[str, ...] = ()  # what the reader inferred or skipped, in the user's words
    # judgments by subtopic (ndeval's qrels), for the intent-aware metrics; the rows above then hold
    # each item's highest grade over its subtopics (rankmeter.data.subtopics)
    subtopics: "SubtopicJudgments | None" = None

    @classmethod
    def from_columns(
        cls,
        query: object,
        item: object,
        grade: object,
        *,
        duplicates: DuplicatePolicy = "error",
    ) -> "Qrels":
        """Qrels from three aligned columns (sequences, numpy or pyarrow arrays).

        >>> q = Qrels.from_columns(["q1", "q1", "q2"], ["d2", "d1", "d1"], [1, 0, 2])
        >>> q.n_queries, len(q), q.to_dict()
        (2, 3, {'q1': {'d2': 1.0, 'd1': 0.0}, 'q2': {'d1': 2.0}})
        """
        qarr = as_string_array(query)
        item_ints = integer_ids(item)  # integer ids: coded as numbers, only the distinct ones written as text
        iarr = as_string_array(item) if item_ints is None else ints(item_ints)
        grades = _float_column(grade, "grade")
        if not (len(qarr) == len(iarr) == len(grades)):
            raise ValueError(
                f"query, item and grade columns differ in length: {len(qarr)}, {len(iarr)}, {len(grades)}"
            )
        _check_no_nulls(qarr, "query")
        _check_no_nulls(iarr, "item")
        bad = np.flatnonzero(~np.isfinite(grades))
        if len(bad):
            raise RowError(int(bad[0]), f"relevance grade is not a finite number ({grades[bad[0]]})")
        qcodes, qvocab = encode(qarr)
        if item_ints is None:
            icodes, ivocab, isig = encode_with_signatures(iarr)
            ivals = None
        else:
            icodes, ivocab, isig, ivals = encode_integer_ids(item_ints)
        keys = qcodes * max(len(ivocab), 1)
        keys += icodes
        sk, order = sort_codes(keys)  # (the stable order: equal keys, duplicates, keep their rows' order)
        repeated = bool((sk[1:] == sk[:-1]).any())
        del sk  # (each temporary let go of as soon as it is read: 2M judgments held seven of 16 MB at once)
        dups = duplicate_rows(keys) if repeated else np.zeros(0, dtype=np.int64)
        dropped = len(dups)
        if not len(dups):
            del keys
        else:
            if duplicates == "error":
                raise RowError(
                    int(dups[0]),
                    f"duplicate judgment for query {qarr[int(dups[0])].as_py()!r}, item "
                    f"{str(iarr[int(dups[0])].as_py())!r} ({len(dups)} duplicate rows in all; "
                    "choose a policy with duplicates='max'|'first'|'last')",
                )
            keep = _dedupe(keys, grades, duplicates)
            qcodes, icodes, grades = qcodes[keep], icodes[keep], grades[keep]
            order = np.argsort(keys[keep], kind="stable")
        qcodes = qcodes[order]
        offsets = offsets_from_sorted(qcodes, len(qvocab))
        del qcodes
        icodes = icodes[order]
        grades = np.ascontiguousarray(grades[order], dtype=np.float64)
        del order
        out = cls(
            query_ids=qvocab,
            item_ids=ivocab,
            offsets=offsets,
            items=icodes,
            grades=grades,
            dropped=dropped,
        )
        object.__setattr__(out, "_item_sig", isig)  # (found while coding the ids)
        if ivals is not None:
            object.__setattr__(out, "_item_int", ivals)
        return out

    @classmethod
    def from_subtopic_columns(cls, query: object, subtopic: object, item: object, grade: object, *,
                              duplicates: DuplicatePolicy = "error") -> "Qrels":
        """Qrels from ``query, subtopic, item, grade`` columns (ndeval's judgments by subtopic): see
        :func:`rankmeter.data.subtopics.qrels_from_subtopics`."""
        from .subtopics import qrels_from_subtopics

        return qrels_from_subtopics(query, subtopic, item, grade, duplicates=duplicates)

    def item_signatures(self) -> np.ndarray:
        """The 64-bit :func:`~rankmeter.data.ids.string_signature` of every judged item id, computed once."""
        sig = self.__dict__.get("_item_sig")
        if sig is None or len(sig) != len(self.item_ids):
            sig = string_signature(self.item_ids)
            object.__setattr__(self, "_item_sig", sig)
        return sig

    def annotated(self, **fields: Any) -> "Qrels":
        """These judgments with reader fields changed (``notes``, ``comment_lines``), keeping what was found
        while coding the ids (their signatures, their integers), which ``dataclasses.replace`` would drop."""
        from dataclasses import replace

        out = replace(self, **fields)
        for key in ("_item_sig", "_item_int"):
            if key in self.__dict__:
                object.__setattr__(out, key, self.__dict__[key])
        return out

    def item_integers(self) -> np.ndarray | None:
        """The judged item ids as int64, when they were given as integers (each id is then the decimal text
        of its integer), else None: lets an engine match integer run ids without reading the text back.

        >>> Qrels.from_columns(["q"], np.array([7]), [1]).item_integers().tolist()
        [7]
        """
        vals = self.__dict__.get("_item_int")
        return vals if vals is not None and len(vals) == len(self.item_ids) else None

    def to_dict(self) -> dict[str, dict[str, float]]:
        """``{query: {item: grade}}`` (for small data and tests)."""
        qids, iids = self.query_ids.to_pylist(), self.item_ids.to_pylist()
        out: dict[str, dict[str, float]] = {}
        for q in range(self.n_queries):
            a, b = self.offsets[q], self.offsets[q + 1]
            out[qids[q]] = {iids[i]: float(g) for i, g in zip(self.items[a:b], self.grades[a:b], strict=True)}
        return out

    def to_arrow(self) -> pa.Table:
        """A ``query, item, grade`` table."""
        return pa.table(
            {
                "query": C.take(self.query_ids, ints(self.row_queries())),
                "item": C.take(self.item_ids, ints(self.items)),
                "grade": self.grades,
            }
        )

    def __repr__(self) -> str:
        return f"Qrels({self.n_queries} queries, {len(self)} judgments)"


def numeric_type(t: pa.DataType) -> bool:
    """Whether a column of this type can be a score or a grade (decimals are read as float64, as SQL engines cast)."""
    return bool(pa.types.is_integer(t) or pa.types.is_floating(t) or pa.types.is_boolean(t) or pa.types.is_decimal(t))


def _float_column(values: Any, name: str) -> np.ndarray:
    if isinstance(values, (pa.Array, pa.ChunkedArray)):
        if isinstance(values, pa.ChunkedArray):
            values = values.combine_chunks()  # ChunkedArray.to_numpy would import pandas
        if values.null_count:
            arr = values.combine_chunks() if isinstance(values, pa.ChunkedArray) else values
            row = int(np.flatnonzero(arr.is_null().to_numpy(zero_copy_only=False))[0])
            raise RowError(row, f"{name} is missing")
        if not numeric_type(values.type):
            raise ValueError(f"{name} column must be numeric, found {values.type}")
        if pa.types.is_decimal(values.type):
            values = C.cast(values, pa.float64())
        return np.asarray(to_numpy(values), dtype=np.float64)
    try:
        return np.asarray(values, dtype=np.float64)
    except (TypeError, ValueError):
        seq = list(values)
        for i, v in enumerate(seq):
            try:
                float(v)
            except (TypeError, ValueError):
                raise RowError(i, f"{name} is not a number ({v!r})") from None
        raise


def _check_no_nulls(arr: pa.Array, name: str) -> None:
    if arr.null_count:
        row = int(np.flatnonzero(arr.is_null().to_numpy(zero_copy_only=False))[0])
        raise RowError(row, f"{name} id is missing")


def _dedupe(keys: np.ndarray, values: np.ndarray, policy: str) -> np.ndarray:
    """Indices (input order) that survive a duplicate policy."""
    if policy not in ("max", "first", "last"):
        raise ValueError(f"duplicates must be 'error', 'max', 'first' or 'last', got {policy!r}")
    n = len(keys)
    idx = np.arange(n)
    if policy == "first":
        order = np.lexsort((idx, keys))
    elif policy == "last":
        order = np.lexsort((-idx, keys))
    else:
        order = np.lexsort((idx, -values, keys))
    sk = keys[order]
    first = np.ones(n, dtype=bool)
    first[1:] = sk[1:] != sk[:-1]
    return np.sort(order[first])
