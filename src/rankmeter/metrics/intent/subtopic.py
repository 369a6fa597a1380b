"""P-IA, MAP-IA and subtopic recall: set- and rank-based measures averaged over a query's subtopics.

With J(d, s) = [grade of d for subtopic s >= rel] and S the query's actual subtopics:

- ``p_ia@k`` = (1/|S|) sum_s (1/k) sum_{r<=k} J(d_r, s): precision averaged over the
  subtopics with uniform weights (Agrawal et al., WSDM 2009), ndeval's P-IA;
- ``ap_ia`` = (1/|S|) sum_s AP_s, AP_s = (1/R_s) sum_{r : J(d_r, s)} c_s(r)/r with R_s the
  items relevant to s: ndeval's MAP-IA for one query;
- ``strec@k`` = |{s : some d_r, r <= k, has J(d_r, s)}| / |S|: subtopic recall (Zhai,
  Cohen & Lafferty, SIGIR 2003), ndeval's strec.

References: Agrawal, Gollapudi, Halverson & Ieong, WSDM 2009, doi:10.1145/1498759.1498766
(P-IA, MAP-IA); Zhai, Cohen & Lafferty, SIGIR 2003, doi:10.1145/860435.860440 (subtopic
recall); conventions of NIST's ndeval (docs/intent.md).

Worked example (ndeval's documentation example: a = {A}, b = {B, D}, c = {C}; ranking A, D, E, B):

>>> from rankmeter.metrics.intent import intent_batch
>>> b = intent_batch([["A", "D", "E", "B"]], [{"a": {"A": 1}, "b": {"B": 1, "D": 1}, "c": {"C": 1}}])
>>> float(p_ia_kernel(b.cut(5), rel=1.0)[0])  # 3 (item, subtopic) hits / (5 * 3)
0.2
>>> float(ap_ia_kernel(b, rel=1.0)[0])  # (1 + (1/2 + 2/4) / 2 + 0) / 3
0.5
>>> round(float(strec_kernel(b.cut(5), rel=1.0)[0]), 4)  # a and b of 3
0.6667
"""

from __future__ import annotations

import numpy as np

from ..batch import Batch
from ..registry import MetricSpec, register
from ._common import (
    BINARY,
    EXAMPLE_JUDGMENTS,
    EXAMPLE_RANKING,
    NDEVAL,
    REL,
    IntentExample,
    depth_of,
    matched,
    ratio,
    relevant,
)

__all__ = ["p_ia_kernel", "ap_ia_kernel", "strec_kernel"]

_GRADES = BINARY + "; a query without any gets 0. "


def _per_query(b: Batch, rows: np.ndarray, weights: np.ndarray | None = None) -> np.ndarray:
    return b.seg_sum(np.bincount(rows, weights=weights, minlength=len(b.grade)))


def p_ia_kernel(b: Batch, rel: float) -> np.ndarray:
    """P-IA@k per query."""
    m = matched(b, rel)
    hits = _per_query(b, m.row)
    return ratio(hits, depth_of(b) * relevant(b, rel).n_sub)


def ap_ia_kernel(b: Batch, rel: float) -> np.ndarray:
    """AP-IA per query (the mean over queries is MAP-IA)."""
    m = matched(b, rel)
    r = relevant(b, rel)
    prec = (m.seen + 1.0) / b.pos[m.row] / r.n_rel_sub[m.sid]
    return ratio(_per_query(b, m.row, prec), r.n_sub)


def strec_kernel(b: Batch, rel: float) -> np.ndarray:
    """Subtopic recall per query."""
    m = matched(b, rel)
    first = m.row[m.seen == 0]
    return ratio(_per_query(b, first), relevant(b, rel).n_sub)


register(
    MetricSpec(
        name="p_ia",
        family="intent",
        summary="P-IA: intent-aware precision, precision at k averaged over the query's subtopics.",
        formula=r"P\text{-}IA@k = \frac{1}{|S|} \sum_{s \in S} \frac{1}{k} \sum_{r \le k} J(d_r, s)",
        citation="Agrawal, Gollapudi, Halverson & Ieong, Diversifying search results, WSDM 2009, "
                 "doi:10.1145/1498759.1498766" + NDEVAL,
        convention=(_GRADES + "Subtopics weigh the same (ndeval's choice; Agrawal et al. allow a distribution). "
                    "Divides by k even when the ranking is shorter; without a cutoff, k is the length of the ranking."),
        kernel=p_ia_kernel,
        params=(REL,),
        aliases={"p-ia": {}, "precision_ia": {}, "precision-ia": {}},
        examples=(IntentExample("P-IA@5", EXAMPLE_RANKING, EXAMPLE_JUDGMENTS, 3 / 15, note="ndeval's example"),),
        properties=frozenset({"ranking", "subtopics", "k_scaled"}),
    )
)

register(
    MetricSpec(
        name="ap_ia",
        family="intent",
        summary="AP-IA: average precision averaged over the query's subtopics (its mean is MAP-IA).",
        formula=(r"AP\text{-}IA = \frac{1}{|S|} \sum_{s \in S} \frac{1}{R_s} \sum_{r : J(d_r, s)} "
                 r"\frac{c_s(r)}{r}"),
        citation="Agrawal, Gollapudi, Halverson & Ieong, Diversifying search results, WSDM 2009, "
                 "doi:10.1145/1498759.1498766" + NDEVAL,
        convention=(_GRADES + "R_s counts the judged items relevant to subtopic s, retrieved or not. Over the whole "
                    "ranking (ndeval has no cutoff for it); with @k, the first k ranks (as trec_eval's map_cut)."),
        kernel=ap_ia_kernel,
        params=(REL,),
        aliases={"map-ia": {}, "map_ia": {}, "ap-ia": {}},
        examples=(IntentExample("MAP-IA", EXAMPLE_RANKING, EXAMPLE_JUDGMENTS, (1 + (1 / 2 + 2 / 4) / 2 + 0) / 3,
                                note="ndeval's example"),),
        properties=frozenset({"ranking", "subtopics", "monotone_k"}),
    )
)

register(
    MetricSpec(
        name="strec",
        family="intent",
        summary="Subtopic recall: the share of the query's subtopics covered by the top k items.",
        formula=r"S\text{-}recall@k = \frac{|\{s \in S : \exists r \le k,\ J(d_r, s)\}|}{|S|}",
        citation="Zhai, Cohen & Lafferty, Beyond independent relevance: methods and evaluation metrics for "
                 "subtopic retrieval, SIGIR 2003, doi:10.1145/860435.860440" + NDEVAL,
        convention=_GRADES + "Without a cutoff, the whole ranking.",
        kernel=strec_kernel,
        params=(REL,),
        aliases={"strecall": {}, "st_recall": {}, "s-recall": {}, "subtopic_recall": {}},
        examples=(IntentExample("strec@5", EXAMPLE_RANKING, EXAMPLE_JUDGMENTS, 2 / 3,
                                note="ndeval's example: a and b of 3"),),
        properties=frozenset({"ranking", "subtopics", "monotone_k"}),
    )
)
