"""Run the kernels over a batch and turn corpus-level states into values."""

from __future__ import annotations

from typing import Any, Iterable, Mapping

import numpy as np

from .._errors import ParameterError
from ..metrics.batch import Batch
from ..metrics.registry import Metric
from ..metrics.ties import TieGroups, TieView, reorder, tie_groups
from ..metrics.unjudged import query_grades, unjudged_extremes

__all__ = ["check_ranking_metrics", "compute", "finalize"]


def check_ranking_metrics(metrics: Iterable[Metric]) -> None:
    for m in metrics:
        if m.spec.input != "ranking":
            raise ParameterError(
                f"metric {m.text!r} evaluates {m.spec.input}, not rankings: use "
                f"rankmeter.evaluate_{m.spec.input}(...) (CLI: rankmeter evaluate-{m.spec.input})")


def compute(batch: Batch, metrics: Iterable[Metric], depth: int | None = None,
            judged_only: bool = False, ties: Mapping[str, str] | None = None,
            scored: bool = True, unjudged: tuple[float | None, float] | None = None
            ) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
    """Per-query values of the query-level metrics, and the states of the corpus-level ones.

    ``depth`` and ``judged_only`` restrict every ranking first (:meth:`Batch.restrict`:
    trec_eval's ``-M`` and ``-J``), for every metric and every engine alike.
    ``ties`` maps a metric's text to its tie rule (:mod:`rankmeter.metrics.ties`; absent:
    ``"id"``, the order the batch is in): ``optimistic`` / ``pessimistic`` reorder each tied
    group before the restriction, ``average`` calls the metric's closed form.
    ``scored=False``: the rankings were given in an explicit order, with no tied scores.
    The rules ``unjudged-low`` / ``unjudged-high`` give the smallest / largest value over every
    completion of the judgments (:mod:`rankmeter.metrics.unjudged`), with ``unjudged`` =
    (the grade of the items made relevant or None for each query's highest, the judgments' highest).
    """
    base = batch
    batch = base.restrict(depth, judged_only)
    metrics = list(metrics)
    values: dict[str, np.ndarray] = {m.text: np.zeros(0) for m in metrics if m.spec.level != "corpus"}
    states: dict[str, Any] = {}
    variants: dict[str, Batch] = {"id": batch}
    averaged: list[tuple[Batch, TieGroups]] = []

    def source(mode: str) -> Batch:
        if mode not in variants:  # optimistic / pessimistic: reorder the tied groups, then restrict
            variants[mode] = reorder(base, mode, scored).restrict(depth, judged_only)
        return variants[mode]

    def whole() -> tuple[Batch, TieGroups]:
        if not averaged:  # average: the whole rankings (judged_only applied) and their tied groups
            full = base.restrict(None, judged_only)
            averaged.append((full, tie_groups(full, scored)))
        return averaged[0]

    # two spellings of one metric (hit_rate@10, success@10) are computed once, each keeps its own key
    # (keyed with the kernel too: mean=pooled's hidden weights share their metric's canonical name)
    done: dict[tuple[str, str, Any], Any] = {}
    # whole rankings first, then cutoffs from the largest down: a cut reuses what a larger one found
    for m in sorted(metrics, key=lambda m: -(m.k if m.k is not None else 1 << 62)):
        mode = ties.get(m.text, "id") if ties else "id"
        key = (m.canonical, mode, m.spec.kernel)
        if key in done:
            out = done[key]
        elif mode == "unjudged-condensed":  # beside the bounds: the condensed list (trec_eval -J)
            out = m.spec.kernel(batch.restrict(None, True).cut(m.k), **m.params)
        elif mode in ("unjudged-low", "unjudged-high"):
            g, top = unjudged if unjudged is not None else (None, 1.0)
            both = done.get((m.canonical, "unjudged", m.spec.kernel))
            if both is None:
                both = unjudged_extremes(batch, m, query_grades(batch, g, top))
                done[(m.canonical, "unjudged", m.spec.kernel)] = both
            out = both[0] if mode == "unjudged-low" else both[1]
        elif mode == "average":
            full, groups = whole()
            limit = m.k if depth is None else (depth if m.k is None else min(m.k, depth))
            view = TieView(batch.cut(m.k), full, groups, limit)
            out = m.spec.tie_average(view, **m.params)  # type: ignore[misc]  # the registry checked tie_average is set
        else:
            out = m.spec.kernel(source(mode).cut(m.k), **m.params)
        done[key] = out
        if m.spec.level == "corpus":
            states[m.text] = out
            continue
        arr = np.asarray(out, dtype=np.float64)
        if arr.shape != (batch.n_queries,):
            raise RuntimeError(f"kernel of {m.name} returned shape {arr.shape} for {batch.n_queries} queries")
        values[m.text] = arr
    return values, states


def finalize(metrics: Iterable[Metric], states: Mapping[str, Any], context: Mapping[str, Any]) -> dict[str, float]:
    """Values of the corpus-level metrics from their (merged) states."""
    out: dict[str, float] = {}
    for m in metrics:
        if m.spec.level == "corpus":
            if m.spec.finalize is None:
                raise RuntimeError(f"corpus-level metric {m.name} has no finalize")
            out[m.text] = float(m.spec.finalize(states[m.text], context=context, **m.params))
    return out
