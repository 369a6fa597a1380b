"""Reciprocal rank of the first relevant item (mrr is its mean)."""

from __future__ import annotations

from typing import Mapping, Sequence

import numpy as np

from ..batch import Batch
from ..registry import Example, MetricSpec, register
from ..ties import TieView, first_hit_reciprocal
from ._common import REL, is_rel, top


def rr_kernel(b: Batch, rel: float) -> np.ndarray:
    rows, query, rank = b.relevant_rows(rel)
    out = np.zeros(b.n_queries)
    lead = np.ones(len(rows), dtype=bool)  # the first relevant row of its query
    lead[1:] = query[1:] != query[:-1]
    out[query[lead]] = 1.0 / rank[lead]
    return out


def rr_average(v: TieView, rel: float) -> np.ndarray:
    """``ties="average"``: E[RR@k] (McSherry and Najork 2008, section 3, reciprocal rank). Only the
    first tied group holding a relevant row matters: with b rows above it, n rows and r relevant
    ones, its first relevant row is its j-th with probability C(n - j, r - 1) / C(n, r), so
    E[RR@k] = sum over j with b + j <= k of that probability / (b + j)."""
    g = v.groups
    r = g.count(v.full.relevant(rel)).astype(np.int64)
    has = r > 0
    first = has & (v.before_in_query(has.astype(np.float64)) == 0)
    out = np.zeros(v.n_queries)
    out[g.query[first]] = first_hit_reciprocal(g.before[first], g.size[first], r[first], v.group_top()[first])
    return out


def rr_reference(ranking: Sequence[str], qrels: Mapping[str, float], k: int | None, rel: float) -> float:
    for i, d in enumerate(top(ranking, k), start=1):
        if is_rel(qrels, d, rel):
            return 1.0 / i
    return 0.0


register(
    MetricSpec(
        name="rr",
        unjudged_bounds=True,
        family="ranking",
        reads_items=False,
        summary="Reciprocal rank: 1 / rank of the first relevant item, 0 if none (mrr is its mean).",
        formula=r"RR@k = 1 / \min\{i \le k : rel_i \ge rel\}",
        citation="Voorhees, TREC-8 QA track (1999); trec_eval recip_rank.",
        kernel=rr_kernel,
        ties=frozenset({"average", "optimistic", "pessimistic"}), tie_average=rr_average,
        reference=rr_reference,
        params=(REL,),
        aliases={"mrr": {}, "recip_rank": {}, "reciprocal_rank": {}},
        examples=(
            Example(("1", "3", "2", "6"), {"1": 1, "2": 1, "4": 1}, 1.0, note="Hivemall MRR"),
            Example(("classical", "instrumental", "piano", "baroque"), {"instrumental": 1}, 0.5,
                    note="python-recsys: found at rank 2"),
            Example(("a", "b", "c"), {"c": 1}, 0.0, k=2),
        ),
        properties=frozenset({"ranking", "binary", "monotone_k"}),
        trec_name="recip_rank",
        sql_name="mrr",
    )
)
