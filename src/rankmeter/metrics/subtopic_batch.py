"""What the intent-aware kernels read besides a :class:`~rankmeter.metrics.batch.Batch`: judgments by subtopic.

:class:`BatchSubtopics` holds the (item, subtopic, grade) judgments of each query of a
batch, with items in the batch's own item coding (``batch.item``), so a kernel joins
ranked rows with their subtopics on (query, item code). The judgment join
(:func:`rankmeter.evaluation.prepare.align`) attaches it as ``batch.subtopics`` when the
judgments were read by subtopic (``read_qrels(..., subtopics=True)``); it does not
depend on cuts, ``depth`` or ``judged_only``, which only shorten the rankings.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence

import numpy as np

from ..data.subtopics import SubtopicJudgments

__all__ = ["BatchSubtopics"]


@dataclass(frozen=True, eq=False)
class BatchSubtopics:
    """Judgments by subtopic of a batch's queries.

    Rows of batch query ``q`` are ``offsets[q]:offsets[q+1]``, ordered by item id
    descending (UTF-8 bytes), then subtopic: ndeval's tie order for its greedy ideal
    ranking. ``item`` holds codes of the batch's item coding, ``subtopic`` codes that
    are equal for one subtopic of one query, ``grade`` the judged grade.
    ``cache`` keeps what kernels derive from the judgments alone (ideal rankings),
    shared by every cut of the batch.
    """

    offsets: np.ndarray
    item: np.ndarray
    subtopic: np.ndarray
    grade: np.ndarray
    cache: dict[Any, Any] = field(default_factory=dict, repr=False)

    @classmethod
    def of(cls, judgments: SubtopicJudgments, slot: np.ndarray, item_map: np.ndarray | None,
           n_queries: int) -> "BatchSubtopics":
        """The rows of ``judgments`` whose query has a batch slot (``slot[query code]``, -1: none),
        items mapped by ``item_map`` (None: the batch codes items as the qrels do).

        >>> from rankmeter.data.subtopics import qrels_from_subtopics
        >>> q = qrels_from_subtopics(["a", "b", "b"], ["1", "1", "2"], ["x", "y", "x"], [1, 1, 0])
        >>> s = BatchSubtopics.of(q.subtopics, np.array([-1, 0]), None, 1)
        >>> s.offsets.tolist(), s.item.tolist(), s.grade.tolist()
        ([0, 2], [1, 0], [1.0, 0.0])
        """
        rowq = judgments.row_queries()
        where = slot[rowq] if len(rowq) else np.zeros(0, dtype=np.int64)
        keep = np.flatnonzero(where >= 0)
        # stable: the within-query order (item id descending) is kept
        order = keep[np.argsort(where[keep], kind="stable")]
        items = judgments.items[order]
        if item_map is not None:
            items = item_map[items]
        offsets = np.concatenate(([0], np.cumsum(np.bincount(where[order], minlength=n_queries)))).astype(np.int64)
        return cls(offsets=offsets, item=np.asarray(items, dtype=np.int64),
                   subtopic=judgments.subtopics[order].astype(np.int64), grade=judgments.grades[order])

    @classmethod
    def from_dicts(cls, judgments: Sequence[Mapping[str, Mapping[str, float]]],
                   item_ids: Sequence[str]) -> "BatchSubtopics":
        """From one ``{subtopic: {item: grade}}`` per query, items coded by their position in ``item_ids``
        (for tests and single lists: :func:`rankmeter.metrics.intent.intent_batch`)."""
        code = {v: n for n, v in enumerate(item_ids)}
        offsets, items, subs, grades = [0], [], [], []
        for per in judgments:
            sub_code = {s: n for n, s in enumerate(sorted(per))}
            rows = sorted(((i, s, float(g)) for s, js in per.items() for i, g in js.items()),
                          key=lambda r: (_neg_bytes(r[0]), r[1]))
            for i, s, g in rows:
                items.append(code[i])
                subs.append(sub_code[s])
                grades.append(g)
            offsets.append(len(items))
        return cls(offsets=np.array(offsets, dtype=np.int64), item=np.array(items, dtype=np.int64),
                   subtopic=np.array(subs, dtype=np.int64), grade=np.array(grades, dtype=np.float64))


def _neg_bytes(text: str) -> tuple[int, ...]:
    """A sort key putting ids in descending UTF-8 byte order."""
    return tuple(-b for b in text.encode("utf-8")) + (1,)
