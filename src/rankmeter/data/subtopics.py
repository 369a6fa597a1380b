"""Judgments by subtopic (``query subtopic item grade``), the input of the intent-aware metrics.

The TREC Web and diversity tracks judge each document once per subtopic (intent,
aspect) of a query; NIST's ``ndeval`` reads such files. :func:`qrels_from_subtopics`
turns four aligned columns into a :class:`~rankmeter.data.Qrels` that keeps both views:

- ``qrels.subtopics`` (a :class:`SubtopicJudgments`): every (query, subtopic, item,
  grade) row, for the intent-aware metrics (:mod:`rankmeter.metrics.intent`);
- the per-item judgments every other metric reads: an item's grade is the
  **highest grade over its subtopics** (an item relevant to any subtopic is relevant
  to the query, as ndeval's own non-intent-aware MAP assumes).

Nothing is silent: the reader's notes say how many rows, items and subtopics were
read and how many items were judged under several subtopics (their grades were
combined by the maximum). A repeated (query, subtopic, item) follows the usual
``duplicates`` policy (an error by default).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

import numpy as np
import pyarrow as pa

from .. import _compute as C
from .ids import as_string_array, encode, ints, positions_or_minus1, to_numpy
from .table import RowError, duplicate_rows, offsets_from_sorted

if TYPE_CHECKING:
    from .qrels import DuplicatePolicy, Qrels

__all__ = ["SubtopicJudgments", "qrels_from_subtopics"]


@dataclass(frozen=True, eq=False)
class SubtopicJudgments:
    """Judgments by subtopic, grouped like the :class:`~rankmeter.data.Qrels` they belong to.

    Rows of query ``q`` (a code of ``qrels.query_ids``) are ``offsets[q]:offsets[q+1]``,
    ordered by item id **descending** (UTF-8 bytes), then by subtopic: the order in which
    ndeval's greedy ideal ranking breaks ties (the larger document id first). ``items``
    are codes of ``qrels.item_ids``; ``subtopics`` are codes of ``subtopic_ids`` (sorted).
    """

    offsets: np.ndarray
    items: np.ndarray
    subtopics: np.ndarray
    grades: np.ndarray
    subtopic_ids: pa.Array

    def __len__(self) -> int:
        return int(self.offsets[-1]) if len(self.offsets) else 0

    def row_queries(self) -> np.ndarray:
        """The query code of every row."""
        return np.repeat(np.arange(len(self.offsets) - 1, dtype=np.int64), np.diff(self.offsets))

    def subset(self, codes: np.ndarray, used_items: np.ndarray) -> "SubtopicJudgments":
        """The rows of some queries (``codes``, ascending), items recoded to positions in ``used_items``
        (the sorted item codes a compact :class:`Qrels` keeps), in the same order."""
        codes = np.asarray(codes, dtype=np.int64)
        lens = self.offsets[codes + 1] - self.offsets[codes]
        offsets = np.concatenate(([0], np.cumsum(lens))).astype(np.int64)
        rows = np.arange(int(offsets[-1]), dtype=np.int64) - np.repeat(offsets[:-1] - self.offsets[codes], lens)
        return replace(self, offsets=offsets, items=np.searchsorted(used_items, self.items[rows]).astype(np.int64),
                       subtopics=self.subtopics[rows], grades=self.grades[rows])

    def to_dict(self, qrels: "Qrels") -> dict[str, dict[str, dict[str, float]]]:
        """``{query: {subtopic: {item: grade}}}`` (for small data and tests), ids from ``qrels``.

        >>> q = qrels_from_subtopics(["q1", "q1", "q1"], ["1", "2", "2"], ["a", "a", "b"], [1, 0, 2])
        >>> q.subtopics.to_dict(q)
        {'q1': {'1': {'a': 1.0}, '2': {'b': 2.0, 'a': 0.0}}}
        """
        qids, iids, sids = qrels.query_ids.to_pylist(), qrels.item_ids.to_pylist(), self.subtopic_ids.to_pylist()
        out: dict[str, dict[str, dict[str, float]]] = {}
        for q in range(len(self.offsets) - 1):
            per: dict[str, dict[str, float]] = {}
            for r in range(int(self.offsets[q]), int(self.offsets[q + 1])):
                per.setdefault(sids[self.subtopics[r]], {})[iids[self.items[r]]] = float(self.grades[r])
            out[qids[q]] = {s: per[s] for s in sorted(per)}
        return out

    def to_arrow(self, qrels: "Qrels") -> pa.Table:
        """A ``query, subtopic, item, grade`` table."""
        return pa.table({
            "query": C.take(qrels.query_ids, ints(self.row_queries())),
            "subtopic": C.take(self.subtopic_ids, ints(self.subtopics)),
            "item": C.take(qrels.item_ids, ints(self.items)),
            "grade": self.grades,
        })


def qrels_from_subtopics(query: object, subtopic: object, item: object, grade: object, *,
                         duplicates: "DuplicatePolicy" = "error") -> "Qrels":
    """Qrels from four aligned columns ``query, subtopic, item, grade`` (ndeval's qrels).

    Every metric that is not intent-aware sees one judgment per (query, item): the
    highest grade over the item's subtopics. A repeated (query, subtopic, item) row
    follows ``duplicates`` ('error', 'max', 'first', 'last'), as plain judgments do.

    >>> q = qrels_from_subtopics(["q1"] * 4, ["1", "2", "1", "3"], ["a", "a", "b", "c"], [1, 2, 0, 0])
    >>> q.to_dict(), len(q.subtopics)
    ({'q1': {'a': 2.0, 'b': 0.0, 'c': 0.0}}, 4)
    >>> print(q.notes[0])  # doctest: +NORMALIZE_WHITESPACE
    judgments by subtopic: 4 rows, 3 (query, item) pairs, 3 (query, subtopic) pairs; metrics that are not intent-aware
    see each item's highest grade over its subtopics (1 item judged under several subtopics)
    """
    from .qrels import Qrels, _check_no_nulls, _dedupe, _float_column

    qarr, sarr, iarr = as_string_array(query), as_string_array(subtopic), as_string_array(item)
    grades = _float_column(grade, "grade")
    if not (len(qarr) == len(sarr) == len(iarr) == len(grades)):
        raise ValueError(f"query, subtopic, item and grade columns differ in length: {len(qarr)}, {len(sarr)}, "
                         f"{len(iarr)}, {len(grades)}")
    _check_no_nulls(qarr, "query")
    _check_no_nulls(sarr, "subtopic")
    _check_no_nulls(iarr, "item")
    bad = np.flatnonzero(~np.isfinite(grades))
    if len(bad):
        raise RowError(int(bad[0]), f"relevance grade is not a finite number ({grades[bad[0]]})")
    qc, _ = encode(qarr)
    sc, svocab = encode(sarr)
    ic, ivocab = encode(iarr)
    keys = (qc * max(len(svocab), 1) + sc) * max(len(ivocab), 1) + ic
    dups = duplicate_rows(keys)
    dropped = len(dups)
    if dropped:
        if duplicates == "error":
            r = int(dups[0])
            raise RowError(r, f"duplicate judgment for query {qarr[r].as_py()!r}, subtopic {sarr[r].as_py()!r}, item "
                              f"{iarr[r].as_py()!r} ({dropped} duplicate rows in all; choose a policy with "
                              "duplicates='max'|'first'|'last')")
        keep = _dedupe(keys, grades, duplicates)
        qarr, sarr, iarr = C.take(qarr, ints(keep)), C.take(sarr, ints(keep)), C.take(iarr, ints(keep))
        grades, qc, sc, ic = grades[keep], qc[keep], sc[keep], ic[keep]
    # the per-item judgments: the highest grade over the item's subtopics (the max policy of Qrels)
    per_item = Qrels.from_columns(qarr, iarr, grades, duplicates="max")
    pair = qc * max(len(ivocab), 1) + ic
    uniq_pairs, counts = np.unique(pair, return_counts=True)
    n_multi = int((counts > 1).sum())
    # rows in the Qrels' codes, ordered by query, item id descending (bytes), subtopic
    qcode = positions_or_minus1(C.index_in(qarr, per_item.query_ids))
    icode = positions_or_minus1(C.index_in(iarr, per_item.item_ids))
    byte_rank = np.empty(len(per_item.item_ids), dtype=np.int64)
    byte_rank[to_numpy(C.sort_indices(per_item.item_ids))] = np.arange(len(per_item.item_ids), dtype=np.int64)
    order = np.lexsort((sc, -byte_rank[icode], qcode))
    subs = SubtopicJudgments(
        offsets=offsets_from_sorted(qcode[order], per_item.n_queries),
        items=icode[order].astype(np.int64),
        subtopics=sc[order].astype(np.int64),
        grades=np.ascontiguousarray(grades[order], dtype=np.float64),
        subtopic_ids=svocab,
    )
    nsub = len(np.unique(qc * max(len(svocab), 1) + sc))
    notes = [f"judgments by subtopic: {_n(len(grades), 'row')}, {_n(len(uniq_pairs), '(query, item) pair')}, "
             f"{_n(nsub, '(query, subtopic) pair')}; metrics that are not intent-aware see each item's highest "
             f"grade over its subtopics ({_n(n_multi, 'item')} judged under several subtopics)"]
    per_query = np.unique(qc * max(len(svocab), 1) + sc) // max(len(svocab), 1)
    if len(per_query) and len(np.unique(per_query)) == len(per_query):
        notes.append("every query has a single subtopic: intent-aware metrics then reduce to their one-intent "
                     "forms; is the second column really the subtopic?")
    return replace(per_item, subtopics=subs, dropped=dropped, notes=per_item.notes + tuple(notes))


def _n(n: int, what: str) -> str:
    return f"{n} {what}{'' if n == 1 else 's'}"
