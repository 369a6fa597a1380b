"""Ranking AUC: share of correctly ordered (relevant, non-relevant) pairs within the top k."""

from __future__ import annotations

from typing import Mapping, Sequence, cast

import numpy as np

from .. import _segments as S
from ..batch import Batch
from ..registry import Example, MetricSpec, register
from ._common import REL, is_rel, top


def auc_kernel(b: Batch, rel: float) -> np.ndarray:
    flags = b.relevant(rel)
    cum = S.seg_count_cumsum(flags, b.offsets)
    n_pos = b.seg_sum(flags)
    n_neg = b.lengths - n_pos
    neg_total = np.repeat(n_neg, b.lengths)
    # for a relevant row: non-relevant rows above it = pos - cum
    below = np.where(flags, neg_total - (b.pos - cum), 0)
    correct = b.seg_sum(below)
    pairs = n_pos * n_neg
    return cast(np.ndarray, np.divide(correct, pairs, out=np.full(len(pairs), 0.5), where=pairs > 0))


def auc_reference(ranking: Sequence[str], qrels: Mapping[str, float], k: int | None, rel: float) -> float:
    kept = top(ranking, k)
    pos = [i for i, d in enumerate(kept) if is_rel(qrels, d, rel)]
    neg = [i for i, d in enumerate(kept) if not is_rel(qrels, d, rel)]
    if not pos or not neg:
        return 0.5
    return sum(1 for p in pos for n in neg if p < n) / (len(pos) * len(neg))


register(
    MetricSpec(
        name="auc",
        family="ranking",
        reads_items=False,
        summary="Ranking AUC within the top k: correctly ordered (relevant, non-relevant) pairs.",
        formula=r"AUC@k = \frac{|\{(i,j) : i<j \le k,\ i \in I^+,\ j \in I^-\}|}{|I^+_k|\,|I^-_k|}",
        citation="Apache Hivemall's ranking-measures documentation.",
        convention=(
            "Pairs are formed among the top k retrieved items only; unjudged items count as "
            "non-relevant; 0.5 when either side is empty."
        ),
        kernel=auc_kernel,
        reference=auc_reference,
        params=(REL,),
        aliases={"ranking_auc": {}},
        examples=(
            Example(("1", "3", "2", "6"), {"1": 1, "2": 1, "4": 1}, 0.75, note="Hivemall AUC, top-4"),
            Example(("1", "3", "2", "6"), {"1": 1, "2": 1, "4": 1}, 1.0, k=2, note="Hivemall AUC, top-2"),
        ),
        properties=frozenset({"ranking", "binary", "empty_half"}),
        sql_name="auc",
    )
)
