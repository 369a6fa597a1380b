"""Join judgments with ranked rows into the :class:`~rankmeter.metrics.batch.Batch` kernels read.

This is rankmeter's ``form_res_rels``: the one place where a run's ranked rows meet
their judgments. :func:`align` joins a whole :class:`~rankmeter.data.Run` with a
:class:`~rankmeter.data.Qrels`; the chunk engine (:mod:`rankmeter.evaluation.core`)
calls it for every chunk that is not on its fast path, and :func:`join_grades` for
those that are.
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

import numpy as np
import pyarrow as pa

from .. import _compute as C
from .._errors import InputError
from ..data import Qrels, Run
from ..data.ids import (
    as_string_array,
    bools,
    extend_vocab,
    ints,
    positions_or_minus1,
    recode,
    string_signature,
    union_vocab,
)
from ..data.table import lookup_keys
from ..metrics.batch import Batch
from ..metrics.subtopic_batch import BatchSubtopics
from ..result import Coverage
from .selection import QueryPolicy, check_queries

__all__ = ["align"]


def _same(a: pa.Array, b: pa.Array) -> bool:
    return len(a) == len(b) and a.equals(b)


def align(
    qrels: Qrels,
    run: Run,
    queries: QueryPolicy | Sequence[str] = "judged",
    context: Mapping[str, Any] | None = None,
    items: bool = True,
) -> tuple[Batch, pa.Array, Coverage]:
    """Join a run with its judgments into a :class:`Batch` over the selected queries.

    The batch holds the run's queries in the run's order, then the selected judged
    queries the run lacks; the query ids are returned in that order.

    With ``items=False`` (no metric reads item codes, ``spec.reads_items``) no item
    vocabulary is built for the run: each row's id is looked up among the judged ids,
    and ``batch.item`` is a read-only array of -1 (no code); ``batch.qrel_item`` is then None.
    """
    # one query vocabulary and one item vocabulary for both sides
    if _same(qrels.query_ids, run.query_ids):
        qvocab = qrels.query_ids
        qmap_q = qmap_r = np.arange(len(qvocab), dtype=np.int64)
    else:
        qvocab = union_vocab(qrels.query_ids, run.query_ids)
        qmap_q, qmap_r = recode(qrels.query_ids, qvocab), recode(run.query_ids, qvocab)
    # items: the run's vocabulary, extended by judged items it never retrieved (hash lookups,
    # no sorting: item codes carry no order)
    if not items:
        ivocab, imap_q = qrels.item_ids, None
    elif _same(qrels.item_ids, run.item_ids):
        ivocab, imap_q = run.item_ids, None
    else:
        ivocab, imap_q = extend_vocab(run.item_ids, qrels.item_ids)
    nq = len(qvocab)

    in_qrels = np.zeros(nq, dtype=bool)
    in_qrels[qmap_q] = True
    run_len = np.zeros(nq, dtype=np.int64)
    run_len[qmap_r] = run.lengths()
    in_run = np.zeros(nq, dtype=bool)
    in_run[qmap_r] = True
    qrel_rowq = qmap_q[qrels.row_queries()]
    positive = np.zeros(nq, dtype=bool)
    positive[qrel_rowq[qrels.grades > 0]] = True

    examples: dict[str, list[str]] = {}

    def sample(mask: np.ndarray, key: str) -> int:
        idx = np.flatnonzero(mask)
        if len(idx):
            examples[key] = C.take(qvocab, ints(idx[:3])).to_pylist()
        return int(len(idx))

    if isinstance(queries, str):
        if queries == "judged":
            selected = in_qrels & positive
        elif queries == "run":
            selected = in_qrels & in_run
        elif queries == "qrels":
            selected = in_qrels.copy()
        else:
            check_queries(queries)
        policy = queries
    else:
        wanted = as_string_array(queries if isinstance(queries, pa.Array) else list(map(str, queries)))
        pos = recode(wanted, qvocab)
        unknown = [str(w) for w, p in zip(wanted.to_pylist(), pos, strict=True) if p < 0]
        if unknown:
            raise InputError(f"{len(unknown)} requested queries are in neither input, e.g. {unknown[:3]}",
                             source="queries")
        selected = np.zeros(nq, dtype=bool)
        selected[pos] = True
        policy = "given"

    coverage = Coverage(
        policy=policy,
        evaluated=int(selected.sum()),
        missing_from_run=sample(selected & ~in_run, "missing_from_run"),
        without_judgments=sample(in_run & ~in_qrels & ~selected, "without_judgments"),
        without_relevant=sample(in_qrels & ~positive & (selected if policy == "given" else True), "without_relevant"),
        without_relevant_kept=policy != "judged",
        not_in_run_left_out=sample(in_qrels & ~in_run & ~selected, "not_in_run") if policy == "run" else 0,
        run_rows=len(run),
        run_rows_used=int(run_len[selected].sum()),
        examples=examples,
    )

    # ranked rows of the selected queries: the run's queries in the run's order (their rows
    # need no moving), then the selected judged queries the run lacks (empty rankings)
    rlen = run.lengths()
    run_sel = np.flatnonzero(selected[qmap_r])
    batch_codes = np.concatenate((qmap_r[run_sel], np.flatnonzero(selected & ~in_run))).astype(np.int64)
    lens = np.zeros(len(batch_codes), dtype=np.int64)
    lens[: len(run_sel)] = rlen[run_sel]
    if len(run_sel) == run.n_queries:
        gather = None
    else:
        starts = run.offsets[:-1][run_sel]
        new_starts = np.concatenate(([0], np.cumsum(rlen[run_sel])[:-1])).astype(np.int64)
        gather = np.arange(int(rlen[run_sel].sum()), dtype=np.int64) + np.repeat(starts - new_starts, rlen[run_sel])
    rq = np.repeat(batch_codes, lens)
    rscore = run.scores if gather is None else run.scores[gather]
    offsets = np.concatenate(([0], np.cumsum(lens))).astype(np.int64)

    # the grade of every ranked row
    if items:
        ritems = run.items if gather is None else run.items[gather]
        matched, grade = _grades_by_code(qrels, imap_q, len(ivocab), qrel_rowq, rq, ritems)
    else:
        matched, grade = _grades_by_id(qrels, run, gather, qrel_rowq, rq)
        ritems = np.broadcast_to(np.int64(-1), (len(rq),))  # no kernel run here reads it
    qsel = selected[qrel_rowq]
    slot = np.zeros(nq, dtype=np.int64)
    slot[batch_codes] = np.arange(len(batch_codes))
    sq, sg = slot[qrel_rowq[qsel]], qrels.grades[qsel]
    order = np.lexsort((-sg, sq))
    qrel_len = np.bincount(sq, minlength=len(batch_codes))
    qrel_offsets = np.concatenate(([0], np.cumsum(qrel_len))).astype(np.int64)
    # the judgments' item codes, for kernels that weigh every judged item (built only with item codes)
    qrel_item = None
    if items:
        qrel_item = (qrels.items if imap_q is None else imap_q[qrels.items])[qsel][order]

    ctx: dict[str, Any] = {
        "max_grade": float(qrels.grades.max()) if len(qrels.grades) else 1.0,
        "item_ids": ivocab,
    }
    if context:
        ctx.update(context)
    ctx["query_ids"] = C.take(qvocab, ints(batch_codes))  # the users of per-user beyond-accuracy metrics
    batch = Batch.build(
        offsets=offsets,
        grade=grade,
        matched=matched,
        score=np.ascontiguousarray(rscore, dtype=np.float64),
        item=ritems,
        qrel_offsets=qrel_offsets,
        qrel_grade=sg[order],
        context=ctx,
        qrel_sorted=True,
        qrel_item=qrel_item,
    )
    if items and qrels.subtopics is not None:  # judgments by subtopic: what the intent-aware metrics read
        batch.subtopics = BatchSubtopics.of(qrels.subtopics, np.where(selected[qmap_q], slot[qmap_q], -1), imap_q,
                                            len(batch_codes))
    return batch, ctx["query_ids"], coverage


def _grades_by_code(qrels: Qrels, imap_q: np.ndarray | None, n_items: int, qrel_rowq: np.ndarray,
                    rq: np.ndarray, ritems: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Matched flags and grades of ranked rows, joining (query, item) codes of one vocabulary."""
    qitems = qrels.items if imap_q is None else imap_q[qrels.items]
    n_items = max(n_items, 1)
    qkeys = qrel_rowq * n_items + qitems
    qgrades = qrels.grades
    if imap_q is not None:  # remapped item codes break the (query, item) order of the qrels rows
        korder = np.argsort(qkeys, kind="stable")
        qkeys, qgrades = qkeys[korder], qgrades[korder]
    matched = np.zeros(len(ritems), dtype=bool)
    grade = np.zeros(len(ritems))
    if len(qkeys):
        rkeys = rq * n_items + ritems
        at = np.minimum(np.searchsorted(qkeys, rkeys), len(qkeys) - 1)
        matched = qkeys[at] == rkeys
        grade = np.where(matched, qgrades[at], 0.0)
    return matched, grade


def _grades_by_id(qrels: Qrels, run: Run, gather: np.ndarray | None, qrel_rowq: np.ndarray,
                  rq: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Matched flags and grades of ranked rows, without run item codes.

    Rows and judgments meet on a 64-bit key of the query and the id's signature;
    every match is then confirmed on the ids themselves, so the join is exact.
    """
    n = len(rq)
    matched = np.zeros(n, dtype=bool)
    grade = np.zeros(n)
    rsig = run.item_signatures if gather is None else run.item_signatures[gather]
    qsig = string_signature(qrels.item_ids)[qrels.items]
    mix = np.uint64(0xC2B2AE3D27D4EB4F)
    with np.errstate(over="ignore"):
        rkey = rq.astype(np.uint64)
        rkey *= mix
        rkey += rsig
        found = lookup_keys(rkey, qsig + qrel_rowq.astype(np.uint64) * mix)
    del rkey
    if found is None:  # two judgments share a key (long ids): look the ids up exactly
        ids = run.item_rows if gather is None else run.items_at(gather)
        pos = positions_or_minus1(C.index_in(ids, qrels.item_ids))
        look = np.flatnonzero(pos >= 0)
        found = lookup_keys((rq[look] * max(len(qrels.item_ids), 1) + pos[look]).astype(np.uint64),
                            (qrel_rowq * max(len(qrels.item_ids), 1) + qrels.items).astype(np.uint64))
        assert found is not None  # (query, item) pairs of judgments are unique
        r, j = look[found[0]], found[1]
    else:
        r, j = found
        rows = r if gather is None else gather[r]
        same = rq[r] == qrel_rowq[j]
        same &= bools(C.equal(run.items_at(rows), C.take(qrels.item_ids, ints(qrels.items[j]))))
        r, j = r[same], j[same]
    matched[r] = True
    grade[r] = qrels.grades[j]
    return matched, grade


