"""Average precision, with the three normalisations found in the literature."""

from __future__ import annotations

from typing import Mapping, Sequence, cast

import numpy as np

from ..batch import Batch
from ..registry import Example, MetricSpec, Param, TrecName, register
from ..ties import TieView
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
    elif norm == "k":  # k, or the number retrieved without a cutoff
        denom = (np.full(b.n_queries, b.k) if b.k is not None else b.lengths).astype(np.float64)
    else:  # retrieved
        denom = np.bincount(query, minlength=b.n_queries).astype(np.float64)
    return cast(np.ndarray, np.divide(total, denom, out=np.zeros_like(total), where=denom > 0))


def ap_average(v: TieView, rel: float, norm: str) -> np.ndarray:
    """``ties="average"``: E[AP@k] in closed form (McSherry and Najork 2008, section 3, average
    precision). At position j, t-th of a tied group of n rows holding r relevant ones, with R'
    relevant rows in the groups above, the row is relevant with probability r/n and then the
    expected number of relevant rows up to j is R' + 1 + (t - 1)(r - 1)/(n - 1); AP sums
    P(relevant at j) E[relevant up to j | relevant at j] / j. ``norm=retrieved`` divides by a
    random count and is not offered.
    """
    full, g = v.full, v.groups
    r = g.count(full.relevant(rel))
    above = v.before_in_query(r)[g.gid]
    n_row, r_row = g.size[g.gid].astype(np.float64), r[g.gid]
    t = (full.pos - g.before[g.gid]).astype(np.float64)
    rest = np.divide((t - 1) * np.maximum(r_row - 1, 0), n_row - 1, out=np.zeros(len(t)), where=n_row > 1)
    terms = (r_row / n_row) * (above + 1 + rest) / full.pos
    total = full.seg_sum(np.where(v.in_top() & (r_row > 0), terms, 0.0))
    b = v.b
    nrel = b.n_rel(rel)
    if norm == "k":
        denom = (np.full(b.n_queries, b.k) if b.k is not None else b.lengths).astype(np.float64)
    else:
        denom = nrel if (norm == "relevant" or b.k is None) else np.minimum(nrel, b.k)
    out: np.ndarray = np.divide(total, denom, out=np.zeros_like(total), where=denom > 0)
    return out


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
    elif norm == "k":
        denom = len(kept) if k is None else k
    else:
        denom = found
    return total / denom if denom else 0.0


register(
    MetricSpec(
        name="ap",
        unjudged_bounds=True,
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
            "items found in the top k (python-recsys, the ranking-metrics guide); k = the cutoff k, or the "
            "number retrieved without one (RecTools' MAP(divide_by_k=True), rectools/metrics/ranking.py)."
        ),
        kernel=ap_kernel,
        ties=frozenset({"average", "optimistic", "pessimistic"}), tie_average=ap_average,
        ties_except={mode: {"norm": ("retrieved",)} for mode in ("average", "optimistic", "pessimistic")},
        reference=ap_reference,
        params=(
            REL,
            Param("norm", str, "relevant", "denominator N", choices=("relevant", "min", "retrieved", "k")),
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
            Example(("a", "x", "b"), {"a": 1, "b": 1, "c": 1}, (1 + 2 / 3) / 5, k=5, params={"norm": "k"},
                    note="RecTools MAP@5(divide_by_k=True): (1 + 2/3) / 5"),
        ),
        properties=frozenset({"ranking", "binary"}),
        trec_names=(TrecName("map"), TrecName("map_cut", cutoff=True)),
        sql_name="average_precision",
    )
)
