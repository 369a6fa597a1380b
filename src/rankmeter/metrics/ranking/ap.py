"""Average precision, with the three normalisations found in the literature."""

from __future__ import annotations

from typing import Mapping, Sequence

import numpy as np

from ..batch import Batch
from ..registry import Example, MetricSpec, Param, TrecName, register
from ._common import REL, is_rel, n_relevant, top


def ap_kernel(b: Batch, rel: float, norm: str) -> np.ndarray:
    rows, query, rank = b.relevant_rows(rel)
    # relevant rows so far in the query, this one included: P@rank at each relevant rank
    found = np.arange(1, len(rows) + 1) - np.searchsorted(rows, b.offsets[:-1])[query]
    total = np.bincount(query, weights=found / rank, minlength=b.n_queries).astype(np.float64, copy=False)
    if norm == "relevant":
        denom = b.n_rel(rel)
    elif norm == "min":
        nrel = b.n_rel(rel)
        denom = nrel if b.k is None else np.minimum(nrel, b.k)
    else:  # retrieved
        denom = np.bincount(query, minlength=b.n_queries).astype(np.float64)
    return np.divide(total, denom, out=np.zeros_like(total), where=denom > 0)


def ap_reference(
    ranking: Sequence[str], qrels: Mapping[str, float], k: int | None, rel: float, norm: str
) -> float:
    kept = top(ranking, k)
    found, total = 0, 0.0
    for i, d in enumerate(kept, start=1):
        if is_rel(qrels, d, rel):
            found += 1
            total += found / i
    if norm == "relevant":
        denom = n_relevant(qrels, rel)
    elif norm == "min":
        denom = n_relevant(qrels, rel) if k is None else min(k, n_relevant(qrels, rel))
    else:
        denom = found
    return total / denom if denom else 0.0


register(
    MetricSpec(
        name="ap",
        family="ranking",
        reads_items=False,
        summary="Average precision: mean of the precision at each relevant rank (map is its mean).",
        formula=r"AP@k = \frac{1}{N} \sum_{i \le k,\, rel_i \ge rel} P@i",
        citation=(
            "trec_eval map / map_cut (norm=relevant); Kaggle apk and the evaluation notes (norm=min); "
            "python-recsys and the ranking-metrics guide (norm=retrieved)."
        ),
        convention=(
            "N is, by norm: relevant = all relevant items of the query, retrieved or not "
            "(default, trec_eval); min = min(k, relevant items) (evaluation notes); retrieved = relevant "
            "items found in the top k (python-recsys, the ranking-metrics guide)."
        ),
        kernel=ap_kernel,
        reference=ap_reference,
        params=(
            REL,
            Param("norm", str, "relevant", "denominator N", choices=("relevant", "min", "retrieved")),
        ),
        aliases={"map": {}, "average_precision": {}},
        examples=(
            Example(("1", "3", "2", "6"), {"1": 1, "2": 1, "4": 1}, (1 + 2 / 3) / 3, note="Hivemall MAP, top-4"),
            Example(("1", "3", "2", "6"), {"1": 1, "2": 1, "4": 1}, 1 / 3, k=2, note="Hivemall MAP, top-2"),
            Example(("1", "3", "2", "6", "4", "5"), {"1": 1, "2": 1, "4": 1}, (1 + 2 / 3 + 3 / 5) / 3,
                    note="Hivemall: ~0.756"),
            Example(("1", "3", "2", "4", "6", "5"), {"1": 1, "2": 1, "4": 1}, (1 + 2 / 3 + 3 / 4) / 3,
                    note="Hivemall: ~0.806"),
            Example(("x", "a", "b", "c", "y"), {"a": 1, "b": 1, "c": 1}, (1 / 2 + 2 / 3 + 3 / 4) / 3, k=5,
                    params={"norm": "min"}, note="evaluation notes: ~0.639", tol=0.0005),
            Example(("a", "x", "y", "b", "c"), {"a": 1, "b": 1, "c": 1}, 0.7, k=5,
                    params={"norm": "min"}, note="evaluation notes: 0.7"),
            Example(("A", "B", "C", "D", "E"), {"A": 1, "C": 1, "D": 1, "G": 1}, (1 + 2 / 3 + 3 / 4) / 3, k=5,
                    params={"norm": "retrieved"}, note="ranking-metrics guide: AP@5 ~0.81", tol=0.005),
            Example(("1", "3", "5"), {str(i): 1 for i in range(1, 6)}, 1.0,
                    params={"norm": "retrieved"}, note="python-recsys: 1.0"),
            Example(("99", "3", "5"), {str(i): 1 for i in range(1, 6)}, (1 / 2 + 2 / 3) / 2,
                    params={"norm": "retrieved"}, note="python-recsys: 0.5833335", tol=1e-6),
        ),
        properties=frozenset({"ranking", "binary"}),
        trec_names=(TrecName("map"), TrecName("map_cut", cutoff=True)),
        sql_name="average_precision",
    )
)
