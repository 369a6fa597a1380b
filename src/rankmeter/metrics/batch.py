"""The input of every ranking kernel: ranked lists joined with their judgments.

A :class:`Batch` covers many queries at once. Row arrays (``grade``, ``judged``,
``score``, ``item``) follow each query's ranking, best first; query ``q`` owns rows
``offsets[q]:offsets[q+1]``. Judgment arrays give each query's judged grades sorted
descending (``qrel_offsets``, ``qrel_grade``), for ideal rankings and recall
denominators, whether or not the run retrieved those items. The optional
``qrel_item`` gives the item code of each of those judgments (in the order of
``qrel_grade``), for kernels that weigh every judged item (SNIPS); it is built only
when some metric reads item codes (``spec.reads_items``), else it is ``None``.

A batch is cut at a cutoff ``k`` by :meth:`Batch.cut`; kernels then see only the
top ``k`` rows and read ``batch.k`` where the cutoff itself matters (``p@k``
divides by k).
"""

from __future__ import annotations

import bisect
import weakref
from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import TYPE_CHECKING, Any, Mapping, cast

import numpy as np

from .._errors import ParameterError
from . import _segments as S

if TYPE_CHECKING:
    from .subtopic_batch import BatchSubtopics

__all__ = ["Batch"]

# the cached properties that depend only on the rows (not on the cutoff k)
_ROW_PROPERTIES = ("lengths", "pos", "matched", "gain")


@dataclass(eq=False)
class Batch:
    offsets: np.ndarray
    grade: np.ndarray
    judged: np.ndarray
    score: np.ndarray
    item: np.ndarray
    qrel_offsets: np.ndarray
    qrel_grade: np.ndarray
    k: int | None = None
    context: Mapping[str, Any] = field(default_factory=dict)
    # item code (in context["item_ids"]) of each judgment, aligned with qrel_grade; None when not built
    qrel_item: np.ndarray | None = None
    _cuts: dict[int, "Batch"] = field(default_factory=dict, repr=False)
    _cache: dict[Any, Any] = field(default_factory=dict, repr=False)
    _source: Any = field(default=None, repr=False)  # a weak reference to the batch this one is a cut of
    # judgments by subtopic of the batch's queries, when the qrels have them (intent-aware metrics);
    # independent of cuts and restrictions, so cut() and restrict() carry it as it is
    subtopics: "BatchSubtopics | None" = None

    @property
    def n_queries(self) -> int:
        return len(self.offsets) - 1

    @cached_property
    def lengths(self) -> np.ndarray:
        """Number of ranked rows per query (the retrieved count, after any cut)."""
        return np.diff(self.offsets)

    @cached_property
    def pos(self) -> np.ndarray:
        """1-based rank of each row."""
        return S.positions(self.offsets)

    @cached_property
    def matched(self) -> np.ndarray:
        """Row flags: the item has a judgment of any grade, negative ones included (only a
        judged row can carry a negative grade, so this is ``judged | (grade < 0)``)."""
        return self.judged | (self.grade < 0)

    @cached_property
    def gain(self) -> np.ndarray:
        """Grade clipped at 0: negative and unjudged rows gain nothing."""
        return cast(np.ndarray, np.maximum(self.grade, 0.0))

    def relevant(self, rel: float) -> np.ndarray:
        """Row flags: judged with grade >= rel."""
        key = ("relevant", rel)
        if key not in self._cache:
            self._cache[key] = self.judged & (self.grade >= rel)
        return self._cache[key]  # type: ignore[no-any-return]  # the cache holds Any

    def relevant_rows(self, rel: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The relevant rows (judged, grade >= rel): their positions, their query, their 1-based rank.

        Kernels that only add up over relevant rows (a small share of a long run) work
        on these instead of on every row.
        """
        key = ("relevant_rows", rel)
        if key not in self._cache:
            known = self._relevant_from_larger(key)
            if known is not None:  # a cut of a ranking whose relevant rows are known: keep those in the top k
                _rows, query, rank = known
                top = rank <= self.k
                q, r = query[top], rank[top]
                self._cache[key] = (self.offsets[q] + r - 1, q, r)
            else:
                rows = np.flatnonzero(self.relevant(rel))
                query = np.searchsorted(self.offsets, rows, side="right") - 1
                self._cache[key] = (rows, query, rows - self.offsets[query] + 1)
            self._known_in_source(key)
        return self._cache[key]  # type: ignore[no-any-return]  # the cache holds Any

    def _known_in_source(self, key: Any) -> None:
        """Tell the ranking this cut was taken from that this cut knows ``key``: the cutoffs that know it, as
        -k in ascending order (cuts made from the largest down append at the end)."""
        src = self._source() if self._source is not None else None
        if src is None or self.k is None:
            return
        negs = src._cache.setdefault(("cuts knowing", key), [])
        if not negs or -self.k > negs[-1]:
            negs.append(-self.k)
        else:
            i = bisect.bisect_left(negs, -self.k)
            if i == len(negs) or negs[i] != -self.k:
                negs.insert(i, -self.k)

    def _relevant_from_larger(self, key: Any) -> Any:
        """``relevant_rows`` already known for the ranking this cut was taken from, or for the smallest larger cut
        of it (found by bisection: a scan of every cut per cut made thousands of cutoffs quadratic, issue 32)."""
        src = self._source() if self._source is not None else None
        if src is None or self.k is None:
            return None
        if key in src._cache:
            return src._cache[key]
        negs = src._cache.get(("cuts knowing", key), [])
        i = bisect.bisect_left(negs, -self.k) - 1  # the largest -kk below -k: the smallest kk above k
        return src._cuts[-negs[i]]._cache[key] if i >= 0 else None

    def n_rel(self, rel: float) -> np.ndarray:
        """Judged items with grade >= rel, per query (retrieved or not)."""
        key = ("n_rel", rel)
        if key not in self._cache:
            # qrel_grade is sorted descending within each query
            flags = self.qrel_grade >= rel
            self._cache[key] = S.seg_sum(flags, self.qrel_offsets)
        return self._cache[key]  # type: ignore[no-any-return]  # the cache holds Any

    def judged_relevant(self, rel: float) -> tuple[np.ndarray, np.ndarray]:
        """The judgments with grade >= rel (and >= 0: judged), retrieved or not: their positions in
        ``qrel_grade`` (and ``qrel_item``) and their query.

        >>> b = Batch.from_lists([["a"], []], [{"a": 1, "b": 0, "c": 2}, {"d": 1}])
        >>> [x.tolist() for x in b.judged_relevant(1.0)]
        [[0, 1, 3], [0, 0, 1]]
        """
        key = ("judged_relevant", rel)
        if key not in self._cache:
            rows = np.flatnonzero((self.qrel_grade >= rel) & (self.qrel_grade >= 0))
            self._cache[key] = (rows, np.searchsorted(self.qrel_offsets, rows, side="right") - 1)
        return self._cache[key]  # type: ignore[no-any-return]  # the cache holds Any

    def n_judged_nonrel(self, rel: float) -> np.ndarray:
        """Judged items with 0 <= grade < rel, per query (trec_eval's judged non-relevant)."""
        key = ("n_nonrel", rel)
        if key not in self._cache:
            flags = (self.qrel_grade >= 0) & (self.qrel_grade < rel)
            self._cache[key] = S.seg_sum(flags, self.qrel_offsets)
        return self._cache[key]  # type: ignore[no-any-return]  # the cache holds Any

    def cut(self, k: int | None) -> "Batch":
        """The batch restricted to the top ``k`` rows of each query (cached)."""
        if k is None:
            return self
        if k not in self._cuts:
            kept = np.minimum(self.lengths, k)
            if bool((kept == self.lengths).all()):
                sub = replace(self, k=k, _cuts={}, _cache={}, _source=weakref.ref(self))
                # the same rows: what was derived from them alone holds (each cutoff past every ranking's
                # length, thousands of them with thousands of -m options, recomputed them)
                sub.__dict__.update({name: self.__dict__[name] for name in _ROW_PROPERTIES if name in self.__dict__})
                sub.__dict__["pos"] = self.pos  # (every kernel reads it: made once, here, for every such cut)
            else:
                offsets = np.concatenate(([0], np.cumsum(kept))).astype(np.int64)
                keep = np.arange(int(offsets[-1]), dtype=np.int64) + np.repeat(self.offsets[:-1] - offsets[:-1], kept)
                sub = replace(
                    self, k=k, _cuts={}, _cache={}, offsets=offsets,
                    grade=self.grade[keep], judged=self.judged[keep], score=self.score[keep], item=self.item[keep],
                )
                # the relevant rows of a top k follow from a larger ranking's (a weak link: no cycle to collect)
                sub._source = weakref.ref(self)
            # counts over the judgments do not depend on the cut
            sub._cache.update({key: v for key, v in self._cache.items()
                               if key[0] in ("n_rel", "n_nonrel", "judged_relevant")})
            self._cuts[k] = sub
        return self._cuts[k]

    @classmethod
    def build(
        cls,
        *,
        offsets: np.ndarray,
        grade: np.ndarray,
        matched: np.ndarray,
        score: np.ndarray,
        item: np.ndarray,
        qrel_offsets: np.ndarray,
        qrel_grade: np.ndarray,
        context: Mapping[str, Any],
        qrel_sorted: bool = False,
        qrel_item: np.ndarray | None = None,
    ) -> "Batch":
        """The one way a batch is made from joined rows: ``judged`` is a judgment of grade
        >= 0 (a negative grade is pooled but unjudged, as in trec_eval), and each query's
        judged grades are sorted descending unless ``qrel_sorted`` (``qrel_item``, the
        judgments' item codes when given, in the same order).

        >>> b = Batch.build(offsets=np.array([0, 2]), grade=np.array([2.0, -1.0]), matched=np.array([True, True]),
        ...                 score=np.array([2.0, 1.0]), item=np.zeros(2, dtype=np.int64),
        ...                 qrel_offsets=np.array([0, 3]), qrel_grade=np.array([-1.0, 2.0, 1.0]), context={})
        >>> b.judged.tolist(), b.qrel_grade.tolist()
        ([True, False], [2.0, 1.0, -1.0])
        """
        grade = np.ascontiguousarray(grade, dtype=np.float64)
        qrel_grade = np.ascontiguousarray(qrel_grade, dtype=np.float64)
        if not qrel_sorted and len(qrel_grade) > 1:
            seg = np.repeat(np.arange(len(qrel_offsets) - 1, dtype=np.int64), np.diff(qrel_offsets))
            order = np.lexsort((-qrel_grade, seg))
            qrel_grade = qrel_grade[order]
            if qrel_item is not None:
                qrel_item = qrel_item[order]
        return cls(offsets=offsets, grade=grade, judged=matched & (grade >= 0), score=score, item=item,
                   qrel_offsets=qrel_offsets, qrel_grade=qrel_grade, context=context, qrel_item=qrel_item)

    def restrict(self, depth: int | None = None, judged_only: bool = False) -> "Batch":
        """Each ranking cut to its first ``depth`` rows, then (``judged_only``) stripped of the
        rows without a judgment of grade >= 0: trec_eval's ``-M`` and ``-J``, in its order
        (``form_res_rels.c``). Judgments, and so the number of relevant items and ideal
        rankings, are untouched.

        >>> b = Batch.from_lists([["a", "x", "b"]], [{"a": 1, "b": 0}])
        >>> b.restrict(depth=2).offsets.tolist(), b.restrict(judged_only=True).grade.tolist()
        ([0, 2], [1.0, 0.0])
        """
        if depth is None and not judged_only:
            return self
        keep = np.ones(len(self.grade), dtype=bool) if not judged_only else self.judged.copy()
        if depth is not None:
            keep &= self.pos <= depth
        if bool(keep.all()):
            return self
        counts = S.seg_sum(keep, self.offsets).astype(np.int64)
        offsets = np.concatenate(([0], np.cumsum(counts))).astype(np.int64)
        return replace(self, _cuts={}, _cache={}, _source=None, offsets=offsets, grade=self.grade[keep],
                       judged=self.judged[keep], score=self.score[keep], item=self.item[keep])

    def seg_sum(self, values: np.ndarray) -> np.ndarray:
        return S.seg_sum(values, self.offsets)

    @classmethod
    def from_lists(
        cls,
        rankings: list[list[str]],
        judgments: list[Mapping[str, float]],
        scores: list[list[float]] | None = None,
        context: Mapping[str, Any] | None = None,
    ) -> "Batch":
        """A batch from Python lists (one ranking and one judgment dict per query).

        For single lists and tests; the evaluator builds batches from columnar data.
        """
        if len(judgments) != len(rankings):
            raise ParameterError(f"Batch.from_lists needs one judgment mapping per ranking. Got {len(rankings)} "
                                 f"rankings and {len(judgments)} judgment mappings instead.")
        if scores is not None:
            if len(scores) != len(rankings):
                raise ParameterError(f"Batch.from_lists needs one score list per ranking. Got {len(rankings)} "
                                     f"rankings and {len(scores)} score lists instead.")
            for q, (r, s) in enumerate(zip(rankings, scores, strict=True)):
                if len(s) != len(r):
                    raise ParameterError(f"Batch.from_lists needs one score per ranked item. Ranking {q} has "
                                         f"{len(r)} items and {len(s)} scores.")
        vocab = sorted({i for r in rankings for i in r} | {i for j in judgments for i in j})
        code = {v: n for n, v in enumerate(vocab)}
        offsets = np.concatenate(([0], np.cumsum([len(r) for r in rankings]))).astype(np.int64)
        grade, judged, items, sc = [], [], [], []
        for qi, (r, j) in enumerate(zip(rankings, judgments, strict=True)):
            for n, i in enumerate(r):
                g = j.get(i)
                judged.append(g is not None and g >= 0)
                grade.append(0.0 if g is None else float(g))
                items.append(code[i])
                sc.append(scores[qi][n] if scores is not None else -(n + 1.0))
        qrel_offsets = np.concatenate(([0], np.cumsum([len(j) for j in judgments]))).astype(np.int64)
        ordered = [sorted(j.items(), key=lambda kv: -float(kv[1])) for j in judgments]
        qrel_grade = np.array([float(g) for j in ordered for _, g in j], dtype=np.float64)
        qrel_item = np.array([code[i] for j in ordered for i, _ in j], dtype=np.int64)
        return cls(
            offsets=offsets,
            grade=np.array(grade, dtype=np.float64),
            judged=np.array(judged, dtype=bool),
            score=np.array(sc, dtype=np.float64),
            item=np.array(items, dtype=np.int64),
            qrel_offsets=qrel_offsets,
            qrel_grade=qrel_grade,
            context=dict(context or {}, item_ids=vocab),
            qrel_item=qrel_item,
        )
