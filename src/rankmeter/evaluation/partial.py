"""What a chunk of a run contributes, and how the contributions of all chunks combine.

This is the contract between the evaluation core and the engines: an engine cuts a
run into chunks of whole queries, the core (:class:`~rankmeter.evaluation.core.Engine`)
turns each chunk into a :class:`ChunkOut`, and an :class:`Accumulator` adds them up
into the :class:`~rankmeter.result.Result`, whatever the order in which the chunks
arrive and wherever they were computed. Per-query values are concatenated (a
query's value depends only on its own rows), corpus-level states are merged with
``spec.merge``, and the coverage counts add up to what one pass over the whole run
would count.
"""

from __future__ import annotations

import heapq
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Iterable, Mapping

import numpy as np
import pyarrow as pa

from .. import _compute as C
from .._errors import InputError
from ..data.ids import ints, to_numpy
from ..result import Coverage, QueryIds, Result
from .compute import finalize

if TYPE_CHECKING:
    from .core import Engine

__all__ = ["ChunkOut", "Accumulator", "duplicate_notes", "smallest", "tie_notes", "unjudged_notes"]


def smallest(ids: Iterable[str], n: int = 3) -> list[str]:
    """The n smallest ids in byte order (the order of rankmeter's sorted vocabularies)."""
    return [s.decode("utf-8", "surrogatepass") for s in heapq.nsmallest(n, (i.encode("utf-8", "surrogatepass")
                                                                           for i in ids))]


def duplicate_notes(qrels_dropped: int, run_dropped: int) -> list[str]:
    """Say how many duplicate rows a duplicates policy removed."""
    out = []
    if run_dropped:
        out.append(f"{run_dropped} duplicate (query, item) run rows were removed by the duplicates policy")
    if qrels_dropped:
        out.append(f"{qrels_dropped} duplicate (query, item) judgments were removed by the duplicates policy")
    return out


def unjudged_notes(values: Mapping[str, np.ndarray],
                   bounds: Mapping[str, tuple[np.ndarray, np.ndarray]]) -> list[str]:
    """What ``unjudged="bounds"`` found, in the words of the tie notes: per metric, how many queries
    have a value that depends on their unjudged items, and the interval of the mean.

    >>> unjudged_notes({"p@2": np.array([0.5, 1.0])}, {"p@2": (np.array([0.5, 1.0]), np.array([1.0, 1.0]))})[1]
    'unjudged=bounds: p@2 depends on the unjudged items in 1 of 2 queries (mean between 0.75 and 1; as judged 0.75)'
    """
    out = ["unjudged=bounds: each metric's smallest and largest value over every completion of the judgments "
           "(each retrieved unjudged item not relevant or relevant at grade g), in result.bounds; items neither "
           "retrieved nor judged are outside their scope"]
    for m, (lo, hi) in bounds.items():
        n = int(np.sum(hi - lo > 1e-12))
        if n:
            out.append(f"unjudged=bounds: {m} depends on the unjudged items in {n} of {len(lo)} "
                       f"{'query' if len(lo) == 1 else 'queries'} (mean between {float(np.mean(lo)):.4g} and "
                       f"{float(np.mean(hi)):.4g}; as judged {float(np.mean(values[m])):.4g})")
    return out


def tie_notes(ties: str, values: Mapping[str, np.ndarray],
              bounds: Mapping[str, tuple[np.ndarray, np.ndarray]]) -> list[str]:
    """What the tie rule did, in the result's notes: the rule, and under ``bounds`` how many queries
    have a value that depends on the order of their tied scores, per metric.

    >>> tie_notes("bounds", {"p@2": np.array([0.5, 1.0])}, {"p@2": (np.array([0.5, 0.5]), np.array([0.5, 1.0]))})[1]
    'ties=bounds: p@2 depends on the order of tied scores in 1 of 2 queries (mean between 0.5 and 0.75; id rule 0.75)'
    """
    rule = {"average": "the expected value over the orders of each group of tied scores (McSherry and Najork 2008)",
            "optimistic": "each group of tied scores ordered best grade first",
            "pessimistic": "each group of tied scores ordered worst grade first",
            "bounds": "values by the id rule (score, then item id), with result.tie_bounds giving the pessimistic "
                      "and optimistic values"}[ties]
    out = [f"ties={ties}: {rule}"]
    for m, (lo, hi) in bounds.items():
        n = int(np.count_nonzero(lo != hi))
        mean = float(values[m].mean()) if len(values[m]) else float("nan")
        out.append(f"ties=bounds: {m} depends on the order of tied scores in {n} of {len(lo)} "
                   f"{'query' if len(lo) == 1 else 'queries'} (mean between {float(lo.mean()) if len(lo) else 0:.4g} "
                   f"and {float(hi.mean()) if len(hi) else 0:.4g}; id rule {mean:.4g})")
    return out


@dataclass
class ChunkOut:
    """What one chunk contributes: per-query values of its selected queries, states, counts."""

    queries: list[str] | pa.Array  # the evaluated queries, in the order of the values
    values: dict[str, np.ndarray]
    states: dict[str, Any]
    run_rows: int = 0
    run_rows_used: int = 0
    seen_codes: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))  # judged queries met
    without_judgments: int = 0
    without_judgments_examples: list[str] = field(default_factory=list)
    extra_seen: list[str] = field(default_factory=list)  # requested ids without judgments that were met
    path: str = "fast"
    dropped: int = 0  # duplicate rows removed by the duplicates policy
    other_queries: list[str] = field(default_factory=list)  # run queries met but not evaluated
    heads: pa.Array | None = None  # every query id of the chunk, once each (set by Engine.evaluate_table)




class Accumulator:
    """Collects chunk outputs and builds the :class:`Result` (queries in id order)."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self.queries: list[list[str]] = []
        self.values: dict[str, list[np.ndarray]] = {m.text: [] for m in engine.all_metrics if m.spec.level == "query"}
        self.states: dict[str, Any] = {}
        self.run_rows = 0
        self.run_rows_used = 0
        self.seen = np.zeros(engine.qrels.n_queries, dtype=bool)

        self.without_judgments = 0
        self.nojudg_examples: list[str] = []
        self.extra_seen: set[str] = set()
        self.paths: dict[str, int] = {"fast": 0, "exact": 0}
        self.dropped = 0
        self.chunks = 0
        self.comment_lines = 0  # skipped by the run's reader (set by the driver)
        self.reader_notes: list[str] = []  # the run reader's notes (set by the driver)

    def add(self, out: ChunkOut) -> None:
        self.chunks += 1
        self.paths[out.path] = self.paths.get(out.path, 0) + 1
        self.queries.append(out.queries)
        for k in self.values:
            self.values[k].append(out.values[k])
        self._merge(out.states)
        self.run_rows += out.run_rows
        self.run_rows_used += out.run_rows_used
        self.seen[out.seen_codes] = True
        self.without_judgments += out.without_judgments
        self.nojudg_examples = smallest(self.nojudg_examples + out.without_judgments_examples)
        self.extra_seen.update(out.extra_seen)
        self.dropped += out.dropped
        if len(self.seen) >= C.MILLIONS:  # millions of judged queries: the chunk's freed temporaries given back,
            C.release_memory()  # so the next chunks' outputs do not pile up between their holes (a few ms)

    def _merge(self, states: Mapping[str, Any]) -> None:
        for m in self.engine.corpus_metrics:
            if m.text not in states:
                continue
            if m.text in self.states:
                merge = m.spec.merge
                if merge is None:
                    raise RuntimeError(f"corpus-level metric {m.name} has no merge")
                self.states[m.text] = merge(self.states[m.text], states[m.text])
            else:
                self.states[m.text] = states[m.text]

    def result(self) -> Result:
        """The :class:`Result` of the chunks added; called once (their parts are let go of as it is built)."""
        e = self.engine
        in_run = self.seen
        policy = e.policy
        missing_codes = np.flatnonzero(e.selectable & ~in_run) if policy != "run" else np.zeros(0, dtype=np.int64)
        if e.wanted is not None:
            known = set(e.judged_ids) | self.extra_seen
            unknown = sorted(w for w in e.wanted if w not in known)
            if unknown:
                raise InputError(f"{len(unknown)} requested queries are in neither input, e.g. {unknown[:3]}",
                                 source="queries")
        if len(missing_codes) or e.corpus_metrics:
            qids, values, states = e.missing_batch(missing_codes)
            self.queries.append(qids)
            for k in self.values:
                self.values[k].append(values[k])
            self._merge(states)
        # query ids stay Arrow arrays where the chunks gave them so (pa.array of a list imports pandas)
        parts = [p if isinstance(p, pa.Array) else pa.array(list(p), type=pa.string()) for p in self.queries if len(p)]
        qarr = pa.concat_arrays(parts) if parts else pa.nulls(0, pa.string())
        del parts
        self.queries = []  # (the chunks' ids, joined: let go of)
        perm = to_numpy(C.sort_indices(qarr)) if len(qarr) else np.zeros(0, dtype=np.int64)
        values = {}
        for k, v in self.values.items():  # each metric's chunks let go of once joined
            values[k] = np.concatenate(v)[perm] if v else np.zeros(0)
            v.clear()
        # (Python strings only when the ids are read: 2M queries take ~130 MB as a list)
        queries = QueryIds(C.take(qarr, ints(perm)) if len(qarr) else pa.nulls(0, pa.string()))
        corpus = finalize(e.metrics, self.states, e.context)
        judged_share = values.pop(e.coverage_metric.text)
        bounds = {m: (values.pop(lo), values.pop(hi)) for m, (lo, hi) in e.tie_bounds.items()}
        weights = {m: values.pop(w) for m, w in e.pooled.items()}
        unjudged = {m: (values.pop(lo), values.pop(hi)) for m, (lo, hi, _) in e.unjudged_bounds.items()}
        condensed = {m: values.pop(c) for m, (_, _, c) in e.unjudged_bounds.items()}

        # coverage, exactly as align() counts it over the whole run
        positive = e.positive
        examples: dict[str, list[str]] = {}

        def sample(mask: np.ndarray, key: str) -> int:
            idx = np.flatnonzero(mask)
            if len(idx):
                examples[key] = C.take(e.qrels.query_ids, ints(idx[:3])).to_pylist()
            return int(len(idx))

        missing = sample(np.isin(np.arange(e.qrels.n_queries), missing_codes), "missing_from_run")
        if self.without_judgments:
            examples["without_judgments"] = list(self.nojudg_examples)
        # as align(): for a list of queries, only the requested ones are counted
        without_relevant = sample(~positive & (e.selectable if policy == "given" else True), "without_relevant")
        not_in_run = sample(~in_run, "not_in_run") if policy == "run" else 0
        coverage = Coverage(
            policy=policy,
            evaluated=len(queries),
            missing_from_run=missing,
            without_judgments=self.without_judgments,
            without_relevant=without_relevant,
            without_relevant_kept=policy in ("run", "qrels", "given"),
            not_in_run_left_out=not_in_run,
            run_rows=self.run_rows,
            run_rows_used=self.run_rows_used,
            examples=examples,
            judged_k=e.coverage_metric.k,
            judged=float(judged_share.mean()) if len(judged_share) else None,
            depth=e.depth,
            judged_only=e.judged_only,
            comment_lines={"qrels": e.qrels.comment_lines, "run": self.comment_lines},
        )
        notes = list(e.reader_notes) + list(self.reader_notes) + coverage.notes()
        notes += duplicate_notes(e.qrels.dropped, self.dropped)
        if e.ties != "id":
            notes += tie_notes(e.ties, values, bounds)
        for m in weights:
            notes.append(f"{m}: pooled over the queries (sum of numerators / sum of denominators), not the mean of "
                         "the per-query values")
        if unjudged:
            notes += unjudged_notes(values, unjudged)
        return Result(queries=queries, values=values, metrics=e.metrics, coverage=coverage,
                      notes=notes, corpus=corpus, tie_values=bounds, weights=weights, unjudged_values=unjudged,
                      condensed=condensed)
