"""Utility measures from recommender evaluation: Breese's half-life rank score and the lift index."""

from __future__ import annotations

from typing import Mapping, Sequence, cast

import numpy as np

from ..batch import Batch
from ..registry import Example, MetricSpec, Param, register
from ._common import REL, is_rel, n_relevant, top

# The evaluation notes' example: 5 recommendations, hits at ranks 2, 3 and 4, |T| = 3.
_S4_RUN = ("x", "a", "b", "c", "y")
_S4_REL = {"a": 1.0, "b": 1.0, "c": 1.0}


def rank_score_kernel(b: Batch, rel: float, alpha: float) -> np.ndarray:
    w = np.exp2(-(b.pos - 1.0) / alpha)
    got = b.seg_sum(np.where(b.relevant(rel), w, 0.0))
    n_best = b.n_rel(rel) if b.k is None else np.minimum(b.n_rel(rel), b.k)
    # best = sum_{i=1}^{n} 2^{-(i-1)/alpha}: a geometric series, summed term by term
    width = int(n_best.max()) if len(n_best) else 0
    terms = np.exp2(-np.arange(width) / alpha)
    csum = np.concatenate(([0.0], np.cumsum(terms)))
    best = csum[n_best.astype(np.int64)]
    return cast(np.ndarray, np.divide(got, best, out=np.zeros_like(got), where=best > 0))


def rank_score_reference(
    ranking: Sequence[str], qrels: Mapping[str, float], k: int | None, rel: float, alpha: float
) -> float:
    got = sum(2 ** (-(i - 1) / alpha) for i, d in enumerate(top(ranking, k), start=1) if is_rel(qrels, d, rel))
    n = n_relevant(qrels, rel) if k is None else min(k, n_relevant(qrels, rel))
    best = sum(2 ** (-(i - 1) / alpha) for i in range(1, n + 1))
    return got / best if best > 0 else 0.0


register(
    MetricSpec(
        name="rank_score",
        family="ranking",
        reads_items=False,
        summary="Breese's half-life utility, normalised by its best value (rank score).",
        formula=r"rankscore = \frac{\sum_{i \in hits} 2^{-(i-1)/\alpha}}{\sum_{i=1}^{|T|} 2^{-(i-1)/\alpha}}",
        citation="Breese, Heckerman & Kadie, UAI 1998, arXiv:1301.7363; evaluation notes.",
        convention="|T| is the number of relevant items, capped at k when a cutoff is given.",
        kernel=rank_score_kernel,
        reference=rank_score_reference,
        params=(REL, Param("alpha", float, 2.0, "half-life: the rank with a 50% chance of being seen",
                           low=0, low_open=True)),
        aliases={"half_life_utility": {}, "rankscore": {}},
        examples=(Example(_S4_RUN, _S4_REL, 0.71, params={"alpha": 2.0}, note="evaluation notes: 1.56 / 2.21 ~ 0.71",
                          tol=0.005),),
        properties=frozenset({"ranking", "binary"}),  # not monotone in k: the normaliser grows with k
    )
)


def lift_index_kernel(b: Batch, rel: float) -> np.ndarray:
    flags = b.relevant(rel)
    n = np.repeat(b.lengths, b.lengths).astype(np.float64)
    decile = np.floor(10.0 * (b.pos - 1) / np.maximum(n, 1.0))
    weight = 1.0 - 0.1 * decile
    hits = b.seg_sum(flags)
    total = b.seg_sum(np.where(flags, weight, 0.0))
    return cast(np.ndarray, np.divide(total, hits, out=np.zeros_like(total), where=hits > 0))


def lift_index_reference(ranking: Sequence[str], qrels: Mapping[str, float], k: int | None, rel: float) -> float:
    kept = top(ranking, k)
    n = len(kept)
    ws = [1 - 0.1 * ((10 * (r - 1)) // n) for r, d in enumerate(kept, start=1) if is_rel(qrels, d, rel)]
    return sum(ws) / len(ws) if ws else 0.0


register(
    MetricSpec(
        name="lift_index",
        family="ranking",
        reads_items=False,
        summary="Lift index: hits weighted by the decile of the list they fall in, averaged over hits.",
        formula=r"lift = \frac{1}{|h|} \sum_{r \in hits} \left(1 - 0.1 \lfloor 10 (r-1)/n \rfloor\right)",
        citation="Ling & Li, KDD 1998; evaluation notes.",
        convention="n is the length of the (cut) list; 0 without hits.",
        kernel=lift_index_kernel,
        reference=lift_index_reference,
        params=(REL,),
        aliases={"liftindex": {}},
        examples=(Example(_S4_RUN, _S4_REL, 0.6, note="evaluation notes: (0.8 + 0.6 + 0.4) / 3"),),
        properties=frozenset({"ranking", "binary"}),
    )
)
