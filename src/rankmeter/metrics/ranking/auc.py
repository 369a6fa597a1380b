"""Ranking AUC: share of correctly ordered (relevant, non-relevant) pairs within the top k."""

from __future__ import annotations

from typing import Mapping, Sequence, cast

import numpy as np

from .. import _segments as S
from ..batch import Batch
from ..registry import Example, MetricSpec, Param, register
from ..ties import tie_groups
from ._common import REL, is_rel, top

MISSING = Param("missing_class", float, 0.5, "value when the top k holds only relevant or only non-relevant items "
                "(0: torchmetrics' RetrievalAUROC)", low=0, high=1)
TIED = Param("tied_pairs", str, "order", "a (relevant, non-relevant) pair with equal scores: order = ranked by the "
             "tie rule like every pair; zero = counts 0 (Cornac's AUC); half = counts 1/2 (average ranks, "
             "scikit-learn's roc_auc_score)", choices=("order", "zero", "half"))


def _correct_pairs(b: Batch, rel: float, tied_pairs: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per query: correctly ordered (relevant, non-relevant) pairs, relevant rows, non-relevant rows."""
    flags = b.relevant(rel)
    cum = S.seg_count_cumsum(flags, b.offsets)
    n_pos = b.seg_sum(flags)
    n_neg = b.lengths - n_pos
    neg_total = np.repeat(n_neg, b.lengths)
    neg_above = b.pos - cum  # for a relevant row: the non-relevant rows above it
    below = np.where(flags, neg_total - neg_above, 0).astype(np.float64)
    if tied_pairs != "order":
        # non-relevant rows tied with a relevant one (same score) are not below it by score: a pair
        # counts 0 (zero) or 1/2 (half) whichever way the tie rule put it
        g = tie_groups(b)
        neg_cum = S.seg_count_cumsum(~flags, b.offsets)
        first = g.start[g.gid]  # each row's group's first row
        neg_before_group = neg_cum[first] - (~flags[first]).astype(np.int64)
        neg_in_group = g.count(~flags)[g.gid]
        tied_after = neg_in_group - (neg_above - neg_before_group)
        strict = below - tied_after
        below = np.where(flags, strict + (0.5 * neg_in_group if tied_pairs == "half" else 0.0), 0.0)
    return b.seg_sum(below), n_pos, n_neg


def auc_kernel(b: Batch, rel: float, missing_class: float = 0.5, tied_pairs: str = "order") -> np.ndarray:
    correct, n_pos, n_neg = _correct_pairs(b, rel, tied_pairs)
    pairs = n_pos * n_neg
    return cast(np.ndarray, np.divide(correct, pairs, out=np.full(len(pairs), float(missing_class)),
                                      where=pairs > 0))


def auc_reference(ranking: Sequence[str], qrels: Mapping[str, float], k: int | None, rel: float,
                  missing_class: float = 0.5, tied_pairs: str = "order",
                  scores: Sequence[float] | None = None) -> float:
    kept = top(ranking, k)
    pos = [i for i, d in enumerate(kept) if is_rel(qrels, d, rel)]
    neg = [i for i, d in enumerate(kept) if not is_rel(qrels, d, rel)]
    if not pos or not neg:
        return missing_class
    if tied_pairs == "order" or scores is None:
        return sum(1 for p in pos for n in neg if p < n) / (len(pos) * len(neg))
    tie = 0.0 if tied_pairs == "zero" else 0.5
    return sum(1.0 if scores[p] > scores[n] else (tie if scores[p] == scores[n] else 0.0)
               for p in pos for n in neg) / (len(pos) * len(neg))


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
            "non-relevant; 0.5 when either side is empty (missing_class=0: 0, torchmetrics' "
            "RetrievalAUROC, torchmetrics/functional/retrieval/auroc.py). A pair of equal scores is "
            "ordered by the tie rule like any pair (tied_pairs=order); tied_pairs=zero counts it 0 "
            "(Cornac's AUC, cornac/metrics/ranking.py), tied_pairs=half counts it 1/2 (average ranks)."
        ),
        kernel=auc_kernel,
        reference=auc_reference,
        params=(REL, MISSING, TIED),
        aliases={"ranking_auc": {}},
        examples=(
            Example(("1", "3", "2", "6"), {"1": 1, "2": 1, "4": 1}, 0.75, note="Hivemall AUC, top-4"),
            Example(("1", "3", "2", "6"), {"1": 1, "2": 1, "4": 1}, 1.0, k=2, note="Hivemall AUC, top-2"),
            Example(("1", "3"), {"1": 1, "3": 1}, 0.0, params={"missing_class": 0.0},
                    note="torchmetrics: no non-relevant item in the top k gives 0"),
        ),
        properties=frozenset({"ranking", "binary", "empty_half"}),
        sql_name="auc",
    )
)


def gauc_kernel(b: Batch, rel: float, tied_pairs: str) -> np.ndarray:
    """The state of GAUC: per query with both classes, (positives x AUC, positives)."""
    correct, n_pos, n_neg = _correct_pairs(b, rel, tied_pairs)
    both = (n_pos > 0) & (n_neg > 0)
    return np.stack((n_pos[both] * (correct[both] / (n_pos[both] * n_neg[both])), n_pos[both]), axis=1)


def gauc_merge(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return np.concatenate((a, b))


def gauc_finalize(state: np.ndarray, *, context: Mapping[str, object], rel: float, tied_pairs: str) -> float:
    """Sum of positives x AUC over the sum of positives; the terms are added in sorted order, so any
    chunking of the run gives the same bits. nan without a query that has both classes.

    >>> round(gauc_finalize(np.array([[1.0, 2.0], [1.0, 1.0]]), context={}, rel=1.0, tied_pairs="order"), 6)
    0.666667
    """
    if not len(state):
        return float("nan")
    return float(np.sum(np.sort(state[:, 0])) / np.sum(state[:, 1]))


register(
    MetricSpec(
        name="gauc",
        family="ranking",
        reads_items=False,
        summary="Group AUC: the queries' AUCs averaged with their numbers of relevant items as weights.",
        formula=r"GAUC = \sum_u |I^+_u|\, AUC_u \big/ \sum_u |I^+_u|",
        citation=("Zhou et al., Deep Interest Network, KDD 2018, doi:10.1145/3219819.3219823; RecBole's GAUC "
                  "(recbole/evaluator/metrics.py)."),
        convention=(
            "Each query's AUC as auc's (pairs within the top k; unjudged items non-relevant); queries with "
            "only one class are left out, as RecBole does. RecBole ranks ties by average rank: "
            "gauc(tied_pairs=half)."
        ),
        kernel=gauc_kernel,
        params=(REL, TIED),
        examples=(
            Example(("a", "x", "b"), {"a": 1, "b": 1}, 0.5, note="one query: its AUC (a above x; b below it)"),
        ),
        properties=frozenset({"ranking", "binary", "corpus"}),
        level="corpus",
        merge=gauc_merge,
        finalize=gauc_finalize,
    )
)
