"""Serendipity (Ge, Delgado-Battenfeld, Jannach 2010): relevant and unexpected recommendations.

An item is unexpected when a primitive recommender would not have recommended it.
The primitive recommender here is the most-popular list: the ``pm`` most popular
training items (popularity descending, ties by item id descending, the order in which
:class:`rankmeter.recommenders.MostPopular` ranks them).

>>> import rankmeter
>>> ctx = {"popularity": {"a": 0.9, "b": 0.5, "c": 0.1, "d": 0.05}}
>>> # PM@2 = {a, b}; list (c, a): c is relevant and not in PM -> 1 serendipitous item / k=2
>>> rankmeter.evaluate({"u": ["a", "c"]}, {"u": ["c", "a", "d"]}, "serendipity@2", context=ctx).mean
{'serendipity@2': 0.5}
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence, cast

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ..batch import Batch
from ..ranking._common import REL, is_rel
from ..registry import MetricSpec, Param, register
from ._context import HELPER, ContextExample, batch_vocab, item_table, need, positions, ref_values

_CTX = {"popularity": {"a": 0.9, "b": 0.5, "c": 0.1, "d": 0.05, "e": 0.05}}


def primitive_order(ids: pa.Array, pop: np.ndarray) -> np.ndarray:
    """Positions of the ids in the primitive recommender's ranking: popularity descending, ties by
    id descending (position 0 is the most popular item)."""
    id_rank = np.empty(len(ids), dtype=np.int64)
    id_rank[pc.sort_indices(ids).to_numpy()] = np.arange(len(ids))  # byte order of the ids
    order = np.lexsort((-id_rank, -pop))
    out = np.empty(len(ids), dtype=np.int64)
    out[order] = np.arange(len(ids))
    return out


def primitive_list(ids: pa.Array, pop: np.ndarray, n: int) -> pa.Array:
    """The ``n`` most popular ids: popularity descending, ties by id descending."""
    if n <= 0 or len(ids) == 0:
        return pa.array([], type=pa.string())
    order = np.argsort(primitive_order(ids, pop))
    return ids.take(pa.array(order[:n]))


def serendipity_kernel(b: Batch, rel: float, pm: int | None, norm: str) -> np.ndarray:
    ids, pop = item_table(need(b.context, "popularity", "serendipity"), "popularity", "serendipity")
    # rank of every vocabulary item in the primitive list (items without popularity: never in it)
    pos = positions(batch_vocab(b), ids)
    rank = np.where(pos >= 0, primitive_order(ids, pop)[np.maximum(pos, 0)], np.iinfo(np.int64).max)
    if pm is not None:
        n_pm = np.full(len(b.item), pm, dtype=np.int64)
    elif b.k is not None:
        n_pm = np.full(len(b.item), b.k, dtype=np.int64)
    else:  # no cutoff: a primitive list as long as the user's own list
        n_pm = np.repeat(b.lengths, b.lengths)
    in_pm = rank[b.item] < n_pm if len(b.item) else np.zeros(0, dtype=bool)
    flags = b.relevant(rel) & ~in_pm if len(b.item) else np.zeros(0, dtype=bool)
    total = b.seg_sum(flags)
    if norm == "k" and b.k is not None:
        return total / b.k
    n = b.lengths.astype(np.float64)
    return cast(np.ndarray, np.divide(total, n, out=np.zeros_like(total), where=n > 0))


def serendipity_reference(ranking: Sequence[str], qrels: Mapping[str, float], k: int | None, *,
                          context: Mapping[str, Any] | None = None, rel: float = 1.0, pm: int | None = None,
                          norm: str = "k") -> float:
    kept = list(ranking if k is None else ranking[:k])
    pop = ref_values(context, "popularity", "serendipity")
    n_pm = pm if pm is not None else (k if k is not None else len(kept))
    # most popular first; among equal popularity the larger id (byte order) first
    by_id_desc = sorted(pop, key=lambda i: i.encode("utf-8"), reverse=True)
    primitive = set(sorted(by_id_desc, key=lambda i: -float(pop[i]))[:n_pm])
    hits = sum(1 for i in kept if is_rel(qrels, i, rel) and i not in primitive)
    denom = k if (norm == "k" and k is not None) else len(kept)
    return hits / denom if denom else 0.0


register(
    MetricSpec(
        name="serendipity",
        family="beyond",
        summary="Share of the top-k that is relevant and that a most-popular recommender would not have made.",
        formula=r"serendipity@k(u) = \frac{|\{i \in L_u^k \setminus PM : rel_i \ge rel\}|}{k}",
        citation=(
            "Ge, Delgado-Battenfeld, Jannach (2010), Beyond accuracy: evaluating recommender systems by coverage "
            "and serendipity, RecSys, doi:10.1145/1864708.1864761 (evaluation notes); Murakami, Mori, Orihara (2008), "
            "Metrics for evaluating the serendipity of recommendation lists, JSAI (the primitive model)."
        ),
        convention=(
            "PM is the primitive recommender's list: the pm most popular training items (pm defaults to k, "
            "or without a cutoff to the length of the user's list; "
            "popularity from context['popularity'], ties by item id descending), not personalised. "
            "Usefulness is relevance in the judgments (grade >= rel). Divided by k, the list length of Ge et "
            "al. (norm=k), or by the list's actual length (norm=length). An empty list scores 0. "
            f"Needs context['popularity'] (from {HELPER})."
        ),
        kernel=serendipity_kernel,
        reference=serendipity_reference,
        params=(
            REL,
            Param("pm", int, None, "length of the primitive most-popular list (default: k)",
                  low=0),
            Param("norm", str, "k", "divide by k (k) or by the list length (length)", choices=("k", "length")),
        ),
        examples=(
            ContextExample("serendipity@2", {"u": ["b", "c"]}, {"u": ["b", "c"]}, _CTX, 1 / 2,
                           note="PM@2 = {a, b}: only c is relevant and unexpected"),
            ContextExample("serendipity(pm=1)@2", {"u": ["b", "c"]}, {"u": ["b", "c"]}, _CTX, 2 / 2,
                           note="PM = {a}: b and c both count"),
            ContextExample("serendipity@4", {"u": ["d", "c"]}, {"u": ["d"]}, _CTX, 1 / 4,
                           note="PM@4 is every item but d; divided by k = 4"),
            ContextExample("serendipity(norm=length)@4", {"u": ["d", "c"]}, {"u": ["d"]}, _CTX, 1 / 2),
        ),
        higher_is_better=True,
        bounds=(0.0, 1.0),
        properties=frozenset({"beyond", "needs_context", "binary"}),
    )
)
