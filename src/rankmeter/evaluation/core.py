"""The evaluation core: judgments, metrics and options prepared once, evaluated chunk by chunk.

Every engine is a driver of :class:`Engine`: the in-process evaluator hands it a whole
:class:`~rankmeter.data.Run` (:meth:`Engine.evaluate_run`); streaming, DuckDB and
Spark hand it tables of whole queries (:meth:`Engine.evaluate_table`) and add the
:class:`~rankmeter.evaluation.partial.ChunkOut` s up in an
:class:`~rankmeter.evaluation.partial.Accumulator`. So the tie rule
(:mod:`rankmeter.data.order`), the judgment join (:mod:`~rankmeter.evaluation.prepare`),
the query policy (:mod:`~rankmeter.evaluation.selection`), ``depth``, ``judged_only``
and the coverage counts are written once and hold in every engine.

Two ways to build a chunk's batch
---------------------------------
*exact*: ``Run.from_columns`` + :func:`~rankmeter.evaluation.prepare.align` on the
chunk (used for order="rank", for kernels that read item codes or the item
vocabulary, and for any chunk with a duplicate (query, item) row).

*fast* (order="score", query-level kernels declared with ``reads_items=False``): no
item vocabulary is built. The rows are put in rank order by
:func:`~rankmeter.data.order.rank_order`; duplicate (query, item) rows are found with
a 64-bit signature of the item bytes, every candidate confirmed on the ids, and such
a chunk goes the exact way; grades come from a hash join of (query, item) with the
chunk's judgments, every match confirmed on the ids. The kernels then receive the
same arrays as on the exact path, hence the same values to the last bit
(tests/backends/test_agreement.py checks this for every registered metric).
"""

from __future__ import annotations

from dataclasses import replace
from functools import cached_property
from typing import Any, Callable, Mapping, Sequence, cast

import numpy as np
import pyarrow as pa

from .. import _compute as C
from .._compute import pc_on_first_use as pc
from .._errors import InputError, ParameterError
from ..data import Qrels, Run
from ..data.ids import (
    as_string_array,
    bools,
    distinct,
    ints,
    is_int_id_type,
    positions_or_minus1,
    string_buffers,
    string_signature,
    take_rows,
    to_numpy,
)
from ..data.order import grade_order, rank_order
from ..data.qrels import numeric_type
from ..data.table import RowError, lookup_keys, may_repeat, positions, row_segments
from ..data.words import short_id_words, words_text
from ..metrics.batch import Batch
from ..metrics.registry import Metric, parse_metric, parse_metrics
from ..metrics.ties import TIE_MODES, check_ties
from ..metrics.unjudged import check_unjudged
from .compute import check_ranking_metrics, compute
from .partial import Accumulator, ChunkOut, smallest
from .prepare import align
from .selection import requested_ids

__all__ = ["Engine", "check_options", "is_int_id_type"]

_DUPLICATES = ("error", "max", "first", "last")
_ORDERS = ("score", "rank", "given")


def _np(arr: pa.Array | pa.ChunkedArray) -> np.ndarray:
    """An Arrow column as numpy, without the pandas import of ``to_numpy`` where it can."""
    if pa.types.is_boolean(arr.type) and not arr.null_count:
        return bools(arr)
    return to_numpy(arr)


def fractional_grades_note(grades: np.ndarray) -> tuple[str, ...]:
    """A note when judgments have grades that are not whole numbers: binary metrics count an item as
    relevant from grade ``rel`` (default 1), while a query counts as having a relevant item from any
    grade above 0, and trec_eval would truncate such grades to whole numbers.

    >>> fractional_grades_note(np.array([1.0, 0.5]))[0][:59]
    '1 judgment has a grade that is not a whole number (e.g. 0.5'
    """
    frac = grades[np.isfinite(grades) & (grades != np.floor(grades))]
    if not len(frac):
        return ()
    n = len(frac)
    return (f"{n} {'judgment has a grade' if n == 1 else 'judgments have grades'} that {'is' if n == 1 else 'are'} "
            f"not a whole number (e.g. {float(frac[0]):g}): graded metrics use {'it' if n == 1 else 'them'} as "
            "given, binary metrics count an item as relevant from grade rel (default 1), and trec_eval would "
            "truncate such grades to whole numbers",)


def _first_ids(ids: pa.Array, rows: np.ndarray, n: int = 3) -> list[str]:
    """The n smallest ids (byte order) among ``ids[rows]``, sorted in Arrow (no Python object per id)."""
    if not len(rows):
        return []
    some = C.take(ids, ints(rows))
    return cast("list[str]", C.take(some, C.sort_indices(some)).slice(0, n).to_pylist())


def check_options(*, order: Any = "score", duplicates: Any = "error", depth: Any = None, judged_only: Any = False,
                  context: Any = None, func: str = "evaluate", ties: Any = "id") -> None:
    """Validate the evaluation keywords up front, with the usual messages.

    >>> check_options(depth=0)
    Traceback (most recent call last):
    ...
    rankmeter._errors.ParameterError: The 'depth' parameter of evaluate must be an int >= 1 or None. Got 0 instead.
    """
    if order not in _ORDERS:
        raise ParameterError(f"The 'order' parameter of {func} must be 'score', 'rank' or 'given'. Got {order!r} "
                             "instead.")
    if duplicates not in _DUPLICATES:
        raise ParameterError(f"The 'duplicates' parameter of {func} must be 'error', 'max', 'first' or 'last'. "
                             f"Got {duplicates!r} instead.")
    if depth is not None and (isinstance(depth, bool) or not isinstance(depth, (int, np.integer)) or depth < 1
                              or depth > 2**62):
        raise ParameterError(f"The 'depth' parameter of {func} must be an int >= 1 or None. Got {depth!r} instead.")
    if not isinstance(judged_only, (bool, np.bool_)):
        raise ParameterError(f"The 'judged_only' parameter of {func} must be True or False. Got {judged_only!r} "
                             "instead.")
    if not isinstance(ties, str) or ties not in TIE_MODES:
        raise ParameterError(f"The 'ties' parameter of {func} must be one of {', '.join(map(repr, TIE_MODES))}. "
                             f"Got {ties!r} instead.")
    if context is not None and not isinstance(context, Mapping):
        raise ParameterError(f"The 'context' parameter of {func} must be a mapping (a dict of name -> value) or None. "
                             f"Got {type(context).__name__} instead.")


def decimal_int_text(ids: pa.Array) -> np.ndarray:
    """Which ids are the canonical decimal text of an integer of at most 18 digits: ``0`` or ``-?[1-9][0-9]*``
    (the text an integer id has), read from the string bytes with numpy (no regex: pyarrow.compute costs
    0.1 s to import at start-up).

    >>> decimal_int_text(pa.array(["0", "12", "-7", "007", "-0", "", "1e3", "x", "123456789012345678",
    ...                            "1234567890123456789"])).tolist()
    [True, True, True, False, False, False, False, False, True, False]
    """
    n = len(ids)
    if not n:
        return np.zeros(0, dtype=bool)
    if not pa.types.is_string(ids.type) or ids.null_count:
        ids = as_string_array(ids)
        if ids.null_count:
            return bools(pc.match_substring_regex(ids, r"^(0|-?[1-9][0-9]{0,17})$").fill_null(False))
    offsets, data = string_buffers(ids)
    start, end = offsets[:-1].astype(np.int64), offsets[1:].astype(np.int64)
    length = end - start
    other = np.concatenate(([0], np.cumsum((data < 48) | (data > 57), dtype=np.int64)))
    last = max(len(data) - 1, 0)
    neg = (length > 0) & (data[np.minimum(start, last)] == 45) if len(data) else np.zeros(n, dtype=bool)
    digits = length - neg
    first = data[np.minimum(start + neg, last)] if len(data) else np.zeros(n, dtype=np.uint8)
    ok: np.ndarray = (length > 0) & (other[end] - other[start] == neg) & (digits >= 1) & (digits <= 18) & \
        ((first != 48) | ((digits == 1) & ~neg))
    return ok


class Engine:
    """Judgments, metrics, query policy and context, prepared once for many chunks.

    ``evaluate_table`` evaluates a table of whole queries (columns ``query``, ``item``,
    ``score`` and, for order="rank", ``rank``); ``accumulator()`` collects the chunks'
    outputs into a :class:`~rankmeter.result.Result` equal to ``rankmeter.evaluate``'s.
    """

    def __init__(
        self,
        qrels: Qrels,
        metrics: Any,
        *,
        queries: str | Sequence[str] = "judged",
        context: Mapping[str, Any] | None = None,
        order: str = "score",
        duplicates: str = "error",
        source: str = "<run>",
        depth: int | None = None,
        judged_only: bool = False,
        ties: str = "id",
        unjudged: str = "ignore",
        unjudged_grade: float | None = None,
    ) -> None:
        self.qrels = qrels
        self.metrics: list[Metric] = parse_metrics(metrics)
        check_ranking_metrics(self.metrics)
        check_options(order=order, duplicates=duplicates, depth=depth, judged_only=judged_only, context=context,
                      ties=ties)
        # a tool's convention (sklearn:ndcg@10) brings its own tie rule; the others take the evaluation's
        check_ties([m for m in self.metrics if m.ties is None], ties, order=order, depth=depth,
                   judged_only=judged_only)
        for m in self.metrics:
            if m.ties is not None:
                check_ties([m], m.ties, order=order, depth=depth, judged_only=judged_only)
        self.ties = ties
        self.order = order
        self.duplicates = duplicates
        self.source = source
        self.depth = None if depth is None else int(depth)
        self.judged_only = bool(judged_only)
        wanted = requested_ids(queries)
        self.policy = "given" if wanted is not None else str(queries)
        self.wanted: set[str] | None = None if wanted is None else set(wanted)
        self._wanted_ids = None if self.wanted is None else as_string_array(sorted(self.wanted))
        ctx: dict[str, Any] = {"max_grade": float(qrels.grades.max()) if len(qrels.grades) else 1.0}
        if context:
            ctx.update(context)
        self.context = ctx
        # judgment coverage as deep as the metrics read: the largest cutoff, or the whole ranking when a
        # metric has none (ndcg, map); computed with the metrics and reported in result.coverage
        ks = [m.k for m in self.metrics]
        cutoffs = [k for k in ks if k is not None]
        cover = parse_metric(f"judged@{max(cutoffs)}" if ks and len(cutoffs) == len(ks) else "judged")
        self.coverage_metric = Metric(spec=cover.spec, params=cover.params, k=cover.k, text="\0judged")
        # the tie rule of each metric (rankmeter.metrics.ties); ties="bounds" adds, per metric, its
        # pessimistic and optimistic values as two hidden metrics (result.tie_bounds)
        self.tie_bounds: dict[str, tuple[str, str]] = {}
        self.tie_rule: dict[str, str] = {}
        extra: list[Metric] = []
        own = {m.text: m.ties for m in self.metrics if m.ties is not None and m.ties != "id"}
        if ties == "bounds":
            for m in (m for m in self.metrics if m.ties is None):
                low, high = f"\0tie-low\0{m.text}", f"\0tie-high\0{m.text}"
                self.tie_bounds[m.text] = (low, high)
                self.tie_rule.update({low: "pessimistic", high: "optimistic"})
                extra += [Metric(spec=m.spec, params=m.params, k=m.k, text=low),
                          Metric(spec=m.spec, params=m.params, k=m.k, text=high)]
        elif ties != "id":
            self.tie_rule.update({m.text: ties for m in self.metrics if m.ties is None})
        self.tie_rule.update(own)
        # mean=pooled: each query's denominator as a hidden metric (result.weights), the summary a ratio of sums
        self.pooled: dict[str, str] = {}
        for m in self.metrics:
            if m.params.get("mean") == "pooled" and m.spec.pooled_weight is not None:
                hidden = f"\0weight\0{m.text}"
                self.pooled[m.text] = hidden
                extra.append(Metric(spec=replace(m.spec, kernel=m.spec.pooled_weight), params=m.params, k=m.k,
                                    text=hidden))
        # unjudged="bounds": per metric, its smallest and largest value over every completion of the
        # judgments as two hidden metrics (result.bounds; rankmeter.metrics.unjudged)
        check_unjudged(self.metrics, unjudged, unjudged_grade, ties=ties)
        self.unjudged = unjudged
        self.unjudged_bounds: dict[str, tuple[str, str, str]] = {}
        top = float(qrels.grades.max()) if len(qrels.grades) else 1.0
        self.unjudged_grades: tuple[float | None, float] = (unjudged_grade, top)
        if unjudged == "bounds":
            for m in self.metrics:
                low, high, cond = f"\0unj-low\0{m.text}", f"\0unj-high\0{m.text}", f"\0unj-cond\0{m.text}"
                self.unjudged_bounds[m.text] = (low, high, cond)
                self.tie_rule.update({low: "unjudged-low", high: "unjudged-high", cond: "unjudged-condensed"})
                extra += [Metric(spec=m.spec, params=m.params, k=m.k, text=t) for t in (low, high, cond)]
        self.all_metrics: list[Metric] = self.metrics + extra + [self.coverage_metric]
        self.reader_notes: tuple[str, ...] = (tuple(qrels.notes) + fractional_grades_note(qrels.grades)
                                              + tuple(dict.fromkeys(n for m in self.metrics for n in m.notes)))
        # whether some kernel reads item codes: if none does, no item vocabulary is built for the run
        self.reads_items = any(m.spec.reads_items for m in self.all_metrics)
        self.fast = order == "score" and all(
            m.spec.level == "query" and not m.spec.reads_items
            for m in self.metrics)
        self.corpus_metrics = [m for m in self.metrics if m.spec.level == "corpus"]
        self._item_ints: tuple[np.ndarray, np.ndarray] | None = None
        self._item_words: tuple[np.ndarray, np.ndarray] | None = None
        self._qsig: tuple[Any, Any] | None = None  # judged query ids' signatures, sorted (built on first use)

        nq = qrels.n_queries
        rowq = qrels.row_queries()
        # judgments by query, grade descending: None where they are so already (a query's grades never rise,
        # as with one judgment a query), and the grades themselves (2M judged queries: 32 MB fewer)
        self._qorder: np.ndarray | None = None
        self._grade_desc = qrels.grades
        g = qrels.grades
        if len(g) > 1:
            rising = g[1:] > g[:-1]
            rising[qrels.offsets[1:-1][(qrels.offsets[1:-1] > 0) & (qrels.offsets[1:-1] < len(g))] - 1] = False
            if rising.any():
                self._qorder = grade_order(rowq, g)
                self._grade_desc = np.ascontiguousarray(g[self._qorder])
            del rising
        self.positive = np.zeros(nq, dtype=bool)
        self.positive[rowq[qrels.grades > 0]] = True
        if self.policy == "judged":
            self.selectable = self.positive
        else:
            self.selectable = np.ones(nq, dtype=bool)
        if self.wanted is not None:
            self.selectable = np.array([q in self.wanted for q in self.judged_ids], dtype=bool)

    # -- building blocks -------------------------------------------------------------
    @cached_property
    def judged_ids(self) -> list[str]:
        """The judged query ids as Python strings (built on first use: the fast path never needs them)."""
        return self.qrels.query_ids.to_pylist()  # type: ignore[no-any-return]  # pyarrow/torch values are untyped

    @cached_property
    def _index(self) -> dict[str, int]:
        return {q: i for i, q in enumerate(self.judged_ids)}

    def codes(self, ids: Sequence[str] | pa.Array) -> np.ndarray:
        """Each id's code among the judged queries, -1 when it has none (an Arrow string array: vectorised
        lookups of 256k ids at a time, no dict of every judged id: the temporaries of 2M ids at once came to
        about 130 MB)."""
        if isinstance(ids, pa.Array):
            block = 1 << 18
            if len(ids) <= block:
                return self._query_codes(ids)
            out = np.empty(len(ids), dtype=np.int64)
            for i in range(0, len(ids), block):
                out[i:i + block] = self._query_codes(ids.slice(i, block))
            return out
        get = self._index.get
        return np.fromiter((get(q, -1) for q in ids), dtype=np.int64, count=len(ids))

    def select(self, ids: Sequence[str], codes: np.ndarray) -> np.ndarray:
        """Which of these run queries are evaluated under the policy."""
        inq = codes >= 0
        sel = np.zeros(len(ids), dtype=bool)
        sel[inq] = self.selectable[codes[inq]]
        if self.wanted is not None:
            out = ~inq
            if out.any():
                sel[out] = [ids[int(i)] in self.wanted for i in np.flatnonzero(out)]
        return sel

    def _query_codes(self, heads: pa.Array) -> np.ndarray:
        """Each query id's code among the judged queries, -1 when it has no judgment.

        Looked up by 64-bit signature in a table built once (not a hash set per chunk),
        every hit confirmed on the ids themselves; ids that are not text, or judged ids
        sharing a signature, take Arrow's exact lookup.
        """
        return self._head_codes(heads)[0]

    def _head_codes(self, heads: pa.Array) -> tuple[np.ndarray, bool | None]:
        """:meth:`_query_codes`, and whether an id comes twice in ``heads`` (None: not known, ask Arrow).

        The chunk's signatures are sorted once: the search then walks the judged signatures in
        order (2M one-item queries: a third of the time of searching them as they come, which
        missed the cache at nearly every step), and equal neighbours are the only ids that may
        repeat, each pair confirmed on the ids themselves (no hash set of the chunk's ids).
        """
        if self._qsig is None:
            sig = string_signature(self.qrels.query_ids)
            by_sig = np.argsort(sig)  # (no two alike, or not used: any order; numpy's stable sort took 5x as long)
            sig = sig[by_sig]  # (sorted once: 2M judged queries made three sorted copies of 16 MB)
            ok = len(sig) < 2 or not bool((sig[1:] == sig[:-1]).any())
            self._qsig = (sig, by_sig) if ok else (None, None)
        qsig: tuple[Any, Any] = self._qsig  # (the sorted signatures, their order), or (None, None)
        sorted_sig, order = qsig
        if sorted_sig is None or not len(sorted_sig) or not pa.types.is_string(heads.type):
            return positions_or_minus1(C.index_in(heads, self.qrels.query_ids)), None
        sig = string_signature(heads)
        by = np.argsort(sig)
        sig = sig[by]  # the chunk's signatures, ascending
        at = np.searchsorted(sorted_sig, sig)
        np.minimum(at, len(sorted_sig) - 1, out=at)
        found = sorted_sig[at] == sig
        codes = np.full(len(sig), -1, dtype=np.int64)
        codes[by[found]] = order[at[found]]
        del at, found
        repeated: bool | None = False
        pairs = np.flatnonzero(sig[1:] == sig[:-1])
        if len(pairs):  # equal signatures: the same id twice, or (rarely) two ids alike in 64 bits
            same = bools(C.equal(C.take(heads, ints(by[pairs])), C.take(heads, ints(by[pairs + 1]))))
            repeated = True if bool(same.any()) else None  # (a run of 3 alike may hide a repeat: Arrow decides)
        del sig, by, pairs
        hit = np.flatnonzero(codes >= 0)
        if len(hit):
            same = bools(C.equal(C.take(heads, ints(hit)), C.take(self.qrels.query_ids, ints(codes[hit]))))
            codes[hit[~same]] = -1  # equal signatures of different ids
        return codes, repeated

    def _select_heads(self, heads: pa.Array, codes: np.ndarray) -> np.ndarray:
        """:meth:`select` for query ids given as an Arrow array (codes from a vectorised lookup)."""
        inq = codes >= 0
        sel = np.zeros(len(heads), dtype=bool)
        sel[inq] = self.selectable[codes[inq]]
        if self.wanted is not None and not inq.all():
            out = np.flatnonzero(~inq)
            found = positions_or_minus1(C.index_in(C.take(heads, ints(out)), self._wanted_ids))
            sel[out] = found >= 0
        return sel

    def _judgment_rows(self, codes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Rows of the judgments of these queries (-1: none), in grade-descending order, and offsets."""
        offs = self.qrels.offsets
        valid = codes >= 0
        c = np.where(valid, codes, 0)
        lens = np.where(valid, offs[c + 1] - offs[c], 0)
        out_offsets = np.concatenate(([0], np.cumsum(lens))).astype(np.int64)
        total = int(out_offsets[-1])
        rows = np.arange(total, dtype=np.int64) - np.repeat(out_offsets[:-1] - offs[c], lens)
        return rows, out_offsets

    def sub_qrels(self, codes: np.ndarray) -> Qrels:
        """The judgments of some queries (codes ascending) as a compact :class:`Qrels`."""
        q = self.qrels
        codes = np.asarray(codes, dtype=np.int64)
        lens = q.offsets[codes + 1] - q.offsets[codes]
        offsets = np.concatenate(([0], np.cumsum(lens))).astype(np.int64)
        rows = np.arange(int(offsets[-1]), dtype=np.int64) - np.repeat(offsets[:-1] - q.offsets[codes], lens)
        items = q.items[rows]
        used = distinct(items)
        return Qrels(
            query_ids=C.take(q.query_ids, ints(codes)),
            item_ids=C.take(q.item_ids, ints(used)),
            offsets=offsets,
            items=np.searchsorted(used, items).astype(np.int64),
            grades=np.ascontiguousarray(q.grades[rows]),
            subtopics=None if q.subtopics is None else q.subtopics.subset(codes, used),
        )

    # -- one chunk -------------------------------------------------------------------
    def evaluate_table(self, table: pa.Table, row_index: np.ndarray | None = None, first_row: int = 0,
                       force_exact: bool = False) -> ChunkOut:
        """Evaluate a table of whole queries (every row of each of its queries is in it).

        Rows of a query need not be contiguous nor in rank order. ``row_index`` (or
        ``first_row``) gives each row's position in the whole run, for error messages
        (raised as :class:`~rankmeter.data.table.RowError` with that position).
        """
        n = table.num_rows
        if row_index is None:
            row_index = np.arange(first_row, first_row + n, dtype=np.int64)
        if n == 0:
            return ChunkOut(queries=[], values=self._no_values(), states={})
        qcol = _combine(table.column("query"))
        for name in ("query", "item"):
            col = table.column(name)
            if col.null_count:
                r = int(np.flatnonzero(_np(col.is_null()))[0])
                raise RowError(int(row_index[r]), f"{name} id is missing")
        if not is_int_id_type(qcol.type):
            qcol = as_string_array(qcol)
        if self.duplicates != "error":
            return self._dedupe_chunk(table, row_index)
        # group the rows by query (a stable regroup when the table is not grouped)
        change = np.flatnonzero(_np(C.not_equal(qcol.slice(1), qcol.slice(0, n - 1)))) + 1
        starts = np.concatenate(([0], change)).astype(np.int64)
        heads = as_string_array(C.take(qcol, ints(starts)))  # each query's id, once (Arrow: no Python objects)
        codes, repeated = self._head_codes(heads)
        if repeated is None:
            repeated = len(C.unique(heads)) != len(heads)
        if repeated:
            enc = C.dictionary_encode(qcol)
            perm = np.argsort(_np(enc.indices), kind="stable")
            table = C.take(table, ints(perm))
            row_index = row_index[perm]
            return self.evaluate_table(table, row_index, force_exact=force_exact)
        lengths = np.diff(np.concatenate((starts, [n])))
        sel = self._select_heads(heads, codes)
        out_base = self._chunk_counts(heads, lengths, codes, sel)
        if not sel.any():
            return ChunkOut(queries=[], values=self._no_values(), states={}, **out_base)
        if not sel.all():
            mask = np.repeat(sel, lengths)
            table = C.take(table, ints(np.flatnonzero(mask)))  # (pa.array would import pyarrow.compute)
            row_index = row_index[mask]
        sel_ids = C.take(heads, ints(np.flatnonzero(sel)))  # Arrow: no Python strings for 10^5 queries
        sel_codes = codes[sel]
        sel_lengths = lengths[sel]
        if self.fast and not force_exact:
            got = self._fast(table, row_index, sel_ids, sel_codes, sel_lengths)
            if got is not None:
                values, states = got
                return ChunkOut(queries=sel_ids, values=values, states=states, path="fast",
                                **out_base)
        values, states, qids = self._exact(table, row_index, sel_ids, sel_codes)
        return ChunkOut(queries=qids, values=values, states=states, path="exact", **out_base)

    def _chunk_counts(self, heads: pa.Array, lengths: np.ndarray, codes: np.ndarray, sel: np.ndarray) -> dict[str, Any]:
        """What a chunk's output says of its queries besides their values (rows, judged, evaluated or not)."""
        nojudg = np.flatnonzero((codes < 0) & ~sel)  # requested ids count as evaluated
        return dict(
            heads=heads,
            run_rows=int(lengths.sum()),
            run_rows_used=int(lengths[sel].sum()),
            seen_codes=codes[codes >= 0],
            without_judgments=len(nojudg),
            without_judgments_examples=_first_ids(heads, nojudg),
            extra_seen=C.take(heads, ints(np.flatnonzero(sel & (codes < 0)))).to_pylist() if self.wanted else [],
            other_queries=C.take(heads, ints(np.flatnonzero(~sel))),
        )

    def evaluate_columns(self, heads: pa.Array, lengths: np.ndarray, score: np.ndarray,
                         items: pa.Array | pa.ChunkedArray | np.ndarray, rows: np.ndarray,
                         signatures: np.ndarray | None = None) -> ChunkOut:
        """:meth:`evaluate_table` of whole queries given as columns, the route of a run put in query order in
        memory (only numbers are gathered, never the rows' text).

        ``heads``: each query's id once (text, no two alike), in order; ``lengths``: its number of rows.
        Then the rows, query after query: ``score`` (float64), ``rows`` (each row's position in the run,
        for errors) and the item ids: either ``items`` as text that ``rows`` index, with ``signatures``, the
        :func:`~rankmeter.data.ids.string_signature` of each row's item id, or, where every item id is
        short (:func:`~rankmeter.data.words.short_ids`), ``items`` as the rows' words (numpy, one per
        row, :func:`~rankmeter.data.words.id_words`): exact, so that no text is kept and no match needs
        confirming. The output equals :meth:`evaluate_table`'s for the table of these rows (query, item,
        score; ``row_index=rows``), which is what the metrics that read item ids, a duplicates policy, and
        the exact path are given.
        """
        if not len(score):
            return ChunkOut(queries=[], values=self._no_values(), states={})
        words = items if isinstance(items, np.ndarray) else None

        def table() -> pa.Table:
            query = C.take(heads, ints(np.repeat(np.arange(len(heads), dtype=np.int64), lengths)))
            scores = pa.Array.from_buffers(pa.float64(), len(score), [None, pa.py_buffer(np.ascontiguousarray(score))])
            item = words_text(words) if words is not None else take_rows(cast(pa.Array, items), rows)
            return pa.table({"query": query, "item": item, "score": scores})  # (no pandas import)

        if not self.fast or self.duplicates != "error":
            return self.evaluate_table(table(), rows)
        codes = self._query_codes(heads)
        sel = self._select_heads(heads, codes)
        out_base = self._chunk_counts(heads, lengths, codes, sel)
        if not sel.any():
            return ChunkOut(queries=[], values=self._no_values(), states={}, **out_base)
        sel_score, sel_rows, sel_sig, sel_words = score, rows, signatures, words
        if not sel.all():
            keep = np.flatnonzero(np.repeat(sel, lengths))
            sel_score, sel_rows = score[keep], rows[keep]
            sel_sig = None if signatures is None else signatures[keep]
            sel_words = None if words is None else words[keep]
        sel_ids = C.take(heads, ints(np.flatnonzero(sel)))
        if sel_words is None:
            got = self._fast_rows(cast(pa.Array, items), sel_rows, None, sel_score, sel_rows, codes[sel],
                                  lengths[sel], sel_sig)
        else:
            got = self._fast_rows(None, None, None, sel_score, sel_rows, codes[sel], lengths[sel], words=sel_words)
        if got is None:  # a repeated item: the exact path applies the duplicates policy (or reports the row)
            return self.evaluate_table(table(), rows, force_exact=True)
        values, states = got
        return ChunkOut(queries=sel_ids, values=values, states=states, path="fast", **out_base)

    def _dedupe_chunk(self, table: pa.Table, row_index: np.ndarray) -> ChunkOut:
        """A chunk under a duplicates policy: build the (deduplicated) run first, count its rows."""
        run = self._run(table, row_index)
        ids = run.query_ids.to_pylist()
        codes = self.codes(ids)
        sel = self.select(ids, codes)
        lengths = run.lengths()
        nojudg = [ids[i] for i in np.flatnonzero((codes < 0) & ~sel)]  # requested ids count as evaluated
        sel_ids = [ids[i] for i in np.flatnonzero(sel)]
        if sel_ids:
            sub = self.sub_qrels(np.sort(codes[sel & (codes >= 0)]))
            values, states, qarr = self._compute_run(sub, run, sel_ids)
            queries = qarr.to_pylist()
        else:
            values, states, queries = self._no_values(), {}, []
        return ChunkOut(queries=queries, values=values, states=states, run_rows=len(run),
                        run_rows_used=int(lengths[sel].sum()), seen_codes=codes[codes >= 0],
                        without_judgments=len(nojudg), without_judgments_examples=smallest(nojudg),
                        extra_seen=[ids[i] for i in np.flatnonzero(sel & (codes < 0))], path="exact",
                        dropped=int(getattr(run, "dropped", 0)), other_queries=[ids[i] for i in np.flatnonzero(~sel)],
                        heads=run.query_ids)

    def _run(self, table: pa.Table, row_index: np.ndarray) -> Run:
        rank = table.column("rank") if self.order == "rank" else None
        score = table.column("score") if "score" in table.column_names else None
        try:
            return Run.from_columns(table.column("query"), table.column("item"), score, rank=rank,
                                    # order and duplicates: checked against the Literal values (the ignore below)
                                    order=self.order, duplicates=self.duplicates)  # type: ignore[arg-type]
        except RowError as exc:
            raise RowError(int(row_index[exc.row]), exc.message) from None
        except ValueError as exc:
            raise InputError(str(exc), source=self.source) from None

    def _exact(self, table: pa.Table, row_index: np.ndarray, sel_ids: pa.Array,
               sel_codes: np.ndarray) -> tuple[dict[str, np.ndarray], dict[str, Any], pa.Array]:
        run = self._run(table, row_index)
        judged = np.sort(sel_codes[sel_codes >= 0])
        values, states, qids = self._compute_run(self.sub_qrels(judged), run, sel_ids)
        return values, states, qids

    def _compute_run(self, sub: Qrels, run: Run,
                     sel_ids: list[str] | pa.Array) -> tuple[dict[str, np.ndarray], dict[str, Any], pa.Array]:
        """Join a built run with the judgments of its selected queries, then run the kernels."""
        run_order = getattr(run, "order", "score")
        if run_order == "rank" and any(not r.startswith("unjudged-") for r in self.tie_rule.values()):
            raise ParameterError(f"ties={self.ties!r} applies to runs ranked by score; this run is ranked by its rank "
                                 "column (order='rank'), where there are no tied scores to break")
        batch, qids, _ = align(sub, run, sel_ids, self.context, items=self.reads_items)
        values, states = compute(batch, self.all_metrics, self.depth, self.judged_only, self.tie_rule,
                                 unjudged=self.unjudged_grades, scored=run_order == "score")
        return values, states, qids

    def _no_values(self) -> dict[str, np.ndarray]:
        return {m.text: np.zeros(0) for m in self.all_metrics if m.spec.level == "query"}

    def evaluate_run(self, run: Run) -> ChunkOut:
        """Evaluate a built :class:`Run` (the in-process engine's one chunk): its order is kept."""
        ids = run.query_ids.to_pylist()
        codes = self.codes(ids)
        sel = self.select(ids, codes)
        lengths = run.lengths()
        nojudg = [ids[i] for i in np.flatnonzero((codes < 0) & ~sel)]
        if sel.any():  # the selected ids as an Arrow array (pa.array of a list would import pandas)
            # the whole judgments: align keeps only the selected queries (a compact copy costs a unique of the items)
            selected = C.take(run.query_ids, ints(np.flatnonzero(sel)))
            values, states, queries = self._compute_run(self.qrels, run, selected)
        else:
            values, states, queries = self._no_values(), {}, []
        return ChunkOut(queries=queries, values=values, states=states, run_rows=len(run),
                        run_rows_used=int(lengths[sel].sum()), seen_codes=codes[codes >= 0],
                        without_judgments=len(nojudg), without_judgments_examples=smallest(nojudg),
                        extra_seen=[ids[i] for i in np.flatnonzero(sel & (codes < 0))], path="exact",
                        dropped=int(run.dropped))

    def _fast(self, table: pa.Table, row_index: np.ndarray, sel_ids: pa.Array, sel_codes: np.ndarray,
              lengths: np.ndarray) -> tuple[dict[str, np.ndarray], dict[str, Any]] | None:
        icol = _combine(table.column("item"))
        int_ids: np.ndarray | None = None
        if is_int_id_type(icol.type):
            int_ids = np.asarray(_np(icol), dtype=np.int64)
            if len(int_ids) and (int_ids.max() >= _INT_LIMIT or int_ids.min() <= -_INT_LIMIT):
                int_ids = None  # ids of 19+ digits: compare them as text
        items = as_string_array(icol) if int_ids is None else icol
        scol = table.column("score")
        if scol.null_count:
            bad_row = int(np.flatnonzero(_np(scol.is_null()))[0])
            raise RowError(int(row_index[bad_row]), "score is missing")
        if not numeric_type(scol.type):
            raise InputError(f"score column must be numeric, found {scol.type}", source=self.source)
        if pa.types.is_decimal(scol.type):
            scol = C.cast(scol, pa.float64())
        score = np.ascontiguousarray(_np(scol), dtype=np.float64)
        return self._fast_rows(items, None, int_ids, score, row_index, sel_codes, lengths)

    def _fast_rows(self, items: pa.Array | pa.ChunkedArray | None, item_rows: np.ndarray | None,
                   int_ids: np.ndarray | None, score: np.ndarray, row_index: np.ndarray, sel_codes: np.ndarray,
                   lengths: np.ndarray, sig: np.ndarray | None = None,
                   words: np.ndarray | None = None) -> tuple[dict[str, np.ndarray], dict[str, Any]] | None:
        """:meth:`_fast` of the rows' columns: row i's item id is ``items[item_rows[i]]`` (``items[i]`` when
        ``item_rows`` is None; ``int_ids``: those ids as integers), its item signature ``sig[i]`` (computed
        here when None); or, without ``items``, the id whose word is ``words[i]`` (short ids: exact)."""
        n = len(score)
        bad = ~np.isfinite(score)
        if bad.any():
            bad_row = int(np.flatnonzero(bad)[0])
            raise RowError(int(row_index[bad_row]), f"score is not a finite number ({score[bad_row]})")
        nq = len(lengths)
        offsets = np.concatenate(([0], np.cumsum(lengths))).astype(np.int64)
        qi, pos = row_segments(offsets), positions(offsets)

        # rank order: the tie rule (rankmeter.data.order)
        perm, moved = rank_order(qi, score, cast(pa.Array, items) if words is None else words, item_rows,
                                 query_starts=offsets[:-1])
        # the ids stay in table order (no copy of the strings): ``ids(rows)`` takes ranked rows' ids from it.
        # Integer ids and short ids' words are exact numbers: they are their own signatures (their bits, so that
        # they can be read back from the ranked ``sig``), and a match is confirmed on them
        exact = int_ids if int_ids is not None else words
        own_sig = sig is None or int_ids is not None  # (made here: written in place; a caller's is copied first)
        if exact is not None:  # (the words as they are: a caller's array, copied only when ties move in place)
            sig = exact.astype(np.uint64, copy=words is None)
        elif sig is None:
            sig = string_signature(cast(pa.Array, items))
        if perm is not None:  # (``row_index`` stays in table order: no error is raised after this point)
            if moved is None:
                score, sig = score[perm], sig[perm]
            else:  # in rank order but for some ties: only the tied rows move
                score, sig = _move_tied(moved, perm[moved], score, sig if own_sig else sig.copy())
        if exact is not None:  # (ranked, as ``sig``)
            exact = sig if words is not None else sig.view(np.int64)
            int_ids = None if int_ids is None else exact

        def ids(rows: np.ndarray) -> pa.Array:
            """The item ids (as text) of ranked rows."""
            if words is not None:
                return words_text(cast(np.ndarray, exact)[rows])
            rows = rows if perm is None else perm[rows]
            got = take_rows(cast(pa.Array, items), rows if item_rows is None else item_rows[rows])
            return got if int_ids is None else as_string_array(got)

        # duplicate (query, item) rows: 64-bit signatures, candidates confirmed exactly
        with np.errstate(over="ignore"):
            key = sig * np.uint64(0x9E3779B97F4A7C15)
            key += qi.view(np.uint64)
        cand = may_repeat(offsets, key)
        if cand and self._has_duplicates(qi, key, ids):
            return None  # the exact path applies the duplicates policy (or reports the row)

        # grades: join (query, item) with the judgments of these queries
        jrows, qrel_offsets = self._judgment_rows(sel_codes)
        grade = np.zeros(n, dtype=np.float64)
        matched = np.zeros(n, dtype=bool)
        if len(jrows):
            qrow = jrows if self._qorder is None else self._qorder[jrows]
            sub_q = np.repeat(np.arange(nq, dtype=np.int64), np.diff(qrel_offsets))
            sub_g = self._grade_desc[jrows]
            icodes = self.qrels.items[qrow]
            if exact is None:
                sub_items = None  # the judged ids themselves, taken only if needed
                sub_sig = self.qrels.item_signatures()[icodes]
            else:
                # judged ids that are the decimal text of an integer (or short: their words); no other can equal
                # an integer id (a short one)
                as_num, ok = self._qrels_item_ints() if words is None else self._qrels_item_words()
                keep = ok[icodes]
                sub_q, sub_g, icodes = sub_q[keep], sub_g[keep], icodes[keep]
                sub_items = as_num[icodes]
                sub_sig = sub_items.astype(np.uint64)
            with np.errstate(over="ignore"):
                sub_key = sub_sig * np.uint64(0x9E3779B97F4A7C15) + sub_q.astype(np.uint64)
            hit = lookup_keys(key, sub_key)
            if hit is None:  # two judgments share a key: a plain hash join
                if sub_items is None:
                    sub_items = C.take(self.qrels.item_ids, ints(icodes))
                ranked = ids(np.arange(n, dtype=np.int64)) if exact is None else exact
                probe = pa.table({"q": qi, "i": ranked, "r": np.arange(n, dtype=np.int64)})
                j = probe.join(pa.table({"q": sub_q, "i": sub_items, "s": np.arange(len(sub_q), dtype=np.int64)}),
                               ["q", "i"], join_type="inner", use_threads=True)
                r, sr = _np(j.column("r")), _np(j.column("s"))
            else:
                r, sr = hit
                # confirm every match on the ids themselves (equal keys of different ids are possible)
                same = qi[r] == sub_q[sr]
                if exact is None:
                    same &= _np(C.equal(ids(r),
                                         C.take(self.qrels.item_ids, ints(icodes[sr])))).astype(bool)
                else:
                    same &= exact[r] == cast(np.ndarray, sub_items)[sr]  # (numbers: as_num's)
                r, sr = r[same], sr[same]
            grade[r] = sub_g[sr]
            matched[r] = True
            del qrow, sub_q, sub_g, icodes, sub_items, sub_sig, sub_key, hit, r, sr
        qrel_grade = self._grade_desc[jrows] if len(jrows) else np.zeros(0)
        # the join's row arrays let go of before the kernels make theirs (a chunk of 100k one-item queries: its
        # rows' keys, signatures and positions came to about 10 MB beside the kernels')
        del qi, sig, key, row_index, jrows, ids
        exact = None  # (the ranked ids, when numbers)
        batch = Batch.build(
            offsets=offsets,
            grade=grade,
            matched=matched,
            score=score,
            item=np.zeros(n, dtype=np.int64),  # unused: fast-path kernels do not read items (spec.reads_items)
            qrel_offsets=qrel_offsets,
            qrel_grade=qrel_grade,
            context=self.context,
            qrel_sorted=True,
        )
        batch.pos = pos  # the cached positions, computed above
        batch.lengths = lengths
        return compute(batch, self.all_metrics, self.depth, self.judged_only, self.tie_rule,
                       unjudged=self.unjudged_grades)

    def _qrels_item_words(self) -> tuple[np.ndarray, np.ndarray]:
        """Judged item ids as words (:mod:`rankmeter.data.words`), where an id is short."""
        if self._item_words is None:
            self._item_words = short_id_words(self.qrels.item_ids)
        return self._item_words

    def _qrels_item_ints(self) -> tuple[np.ndarray, np.ndarray]:
        """Judged item ids as integers, where an id is the canonical decimal text of one."""
        if self._item_ints is None and (given := self.qrels.item_integers()) is not None:
            # judged as integers: each id is the decimal text of its integer (of at most 18 digits: as below)
            self._item_ints = (given, (given > -_INT_LIMIT) & (given < _INT_LIMIT))
        if self._item_ints is None:
            vocab = self.qrels.item_ids
            ok = decimal_int_text(vocab)
            vals = np.zeros(len(vocab), dtype=np.int64)
            if ok.any():
                idx = np.flatnonzero(ok)
                vals[idx] = _np(C.cast(C.take(vocab, ints(idx)), pa.int64()))
            self._item_ints = (vals, ok)
        return self._item_ints

    @staticmethod
    def _has_duplicates(qi: np.ndarray, key: np.ndarray, ids: Callable[[np.ndarray], pa.Array]) -> bool:
        """Whether two ranked rows of one query hold the same id (``ids(rows)``: the ids of ranked rows)."""
        order = np.argsort(key, kind="stable")
        ks = key[order]
        eq = np.flatnonzero(ks[1:] == ks[:-1])
        if not len(eq):
            return False
        a, b = order[eq], order[eq + 1]
        same_q = qi[a] == qi[b]
        if not same_q.any():
            return False
        ia = ids(a[same_q])
        ib = ids(b[same_q])
        # equal signatures of different strings are possible; any run of equal keys
        # holds a duplicate iff some adjacent pair in key order is truly equal, unless
        # the run mixes several distinct strings: check those runs exhaustively
        if bool(bools(C.equal(ia, ib)).any()):
            return True
        keys = np.unique(ks[eq][same_q])
        for kv in keys:
            rows = order[np.searchsorted(ks, kv, "left"):np.searchsorted(ks, kv, "right")]
            pairs = list(zip(qi[rows].tolist(), ids(rows).to_pylist(), strict=True))
            if len(set(pairs)) != len(pairs):
                return True
        return False

    # -- the end -------------------------------------------------------------------
    def accumulator(self) -> "Accumulator":
        return Accumulator(self)

    def missing_batch(self, codes: np.ndarray,
                      extra_ids: Sequence[str] = ()) -> tuple[pa.Array, dict[str, np.ndarray], dict[str, Any]]:
        """Evaluate judged queries that never appeared in the run, as empty rankings."""
        codes = np.sort(np.asarray(codes, dtype=np.int64))
        sub = self.sub_qrels(codes)
        empty = pa.nulls(0, pa.string())  # (pa.array of a list would import pandas)
        run = Run.from_columns(empty, empty, np.zeros(0))
        ids: Any = C.take(self.qrels.query_ids, ints(codes))
        if extra_ids:
            ids = ids.to_pylist() + list(extra_ids)
        batch, qids, _ = align(sub, run, ids if len(ids) else "qrels", self.context, items=self.reads_items)
        values, states = compute(batch, self.all_metrics, self.depth, self.judged_only, self.tie_rule,
                       unjudged=self.unjudged_grades)
        return qids, values, states


def _move_tied(moved: np.ndarray, src: np.ndarray, score: np.ndarray,
               sig: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Rows ``moved`` take the values of rows ``src`` (a permutation that moves tied rows only): ``sig``
    written in place; ``score`` only where a tied score differs in its bits (-0.0 beside +0.0), in a copy
    (the caller's is not written).

    >>> score = np.array([1.0, 0.0, -0.0]); sig = np.array([7, 8, 9], dtype=np.uint64)
    >>> s, g = _move_tied(np.array([1, 2]), np.array([2, 1]), score, sig)
    >>> s.tolist(), g.tolist(), score.tolist()
    ([1.0, -0.0, 0.0], [7, 9, 8], [1.0, 0.0, -0.0])
    """
    sig[moved] = sig[src]
    before, after = score[moved], score[src]
    if bool((before.view(np.uint64) != after.view(np.uint64)).any()):
        score = score.copy()
        score[moved] = after
    return score, sig


_INT_LIMIT = 10**18


def _combine(col: pa.Array | pa.ChunkedArray) -> pa.Array:
    if isinstance(col, pa.ChunkedArray):
        return col.combine_chunks() if col.num_chunks != 1 else col.chunk(0)
    return col
