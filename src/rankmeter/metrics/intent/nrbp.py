"""NRBP and nNRBP: novelty- and rank-biased precision (Clarke, Kolla & Vechtomova, ICTIR 2009).

A user of patience beta reads rank r with probability beta^{r-1}; a subtopic's gain
decays by 1 - alpha at each repeat. With G(r) of :mod:`rankmeter.metrics.intent._common`:

- ``nrbp`` = (1 - (1-alpha) beta) / |S| * sum_r beta^{r-1} G(r), which is 1 for a ranking
  whose every item covers every subtopic;
- ``nnrbp`` = sum_r beta^{r-1} G(r) over the same sum for ndeval's greedy ideal ranking.

Both run over the whole ranking (ndeval gives them no cutoff; with @k, the first k ranks
and, for nnrbp, the first k ideal ranks).

Reference: Clarke, Kolla & Vechtomova, ICTIR 2009, doi:10.1007/978-3-642-04417-5_17;
conventions of NIST's ndeval (docs/intent.md).

Worked example (ndeval's documentation example, gains 1, 1, 0, 1/2; ideal 1, 1, 1, 1/2):

>>> from rankmeter.metrics.intent import intent_batch
>>> b = intent_batch([["A", "D", "E", "B"]], [{"a": {"A": 1}, "b": {"B": 1, "D": 1}, "c": {"C": 1}}])
>>> float(nrbp_kernel(b, rel=1.0, alpha=0.5, beta=0.5)[0])  # (1 - 1/4) / 3 * (1 + 1/2 + 0 + 1/16)
0.390625
>>> round(float(nnrbp_kernel(b, rel=1.0, alpha=0.5, beta=0.5)[0]), 6)  # 1.5625 / (1 + 1/2 + 1/4 + 1/16)
0.862069
"""

from __future__ import annotations

import math

import numpy as np

from ..batch import Batch
from ..registry import MetricSpec, register
from ._common import (
    ALPHA,
    BETA,
    BINARY,
    EXAMPLE_JUDGMENTS,
    EXAMPLE_RANKING,
    NDEVAL,
    REL,
    IntentExample,
    ideal_sum,
    ratio,
    relevant,
    row_gain,
)

__all__ = ["nrbp_kernel", "nnrbp_kernel"]

_CITATION = ("Clarke, Kolla & Vechtomova, An effectiveness measure for ambiguous and underspecified queries, "
             "ICTIR 2009, doi:10.1007/978-3-642-04417-5_17" + NDEVAL)
_GRADES = BINARY + ". "


def _sum(b: Batch, rel: float, alpha: float, beta: float) -> np.ndarray:
    with np.errstate(under="ignore"):
        return b.seg_sum(row_gain(b, rel, alpha) * np.power(beta, b.pos - 1.0))


def nrbp_kernel(b: Batch, rel: float, alpha: float, beta: float) -> np.ndarray:
    """NRBP per query."""
    return ratio((1.0 - (1.0 - alpha) * beta) * _sum(b, rel, alpha, beta), relevant(b, rel).n_sub)


def nnrbp_kernel(b: Batch, rel: float, alpha: float, beta: float) -> np.ndarray:
    """nNRBP per query: NRBP over the ideal ranking's."""
    return ratio(_sum(b, rel, alpha, beta), ideal_sum(b, rel, alpha, "", beta=beta))


register(
    MetricSpec(
        name="nrbp",
        family="intent",
        summary="NRBP: novelty- and rank-biased precision (a patient user, redundancy penalised).",
        formula=(r"NRBP = \frac{1 - (1-\alpha)\beta}{|S|} \sum_r \beta^{r-1} G(r),"
                 r"\ G(r) = \sum_{s \in S} J(d_r, s) (1-\alpha)^{c_s(r-1)}"),
        citation=_CITATION,
        convention=_GRADES + "A query without any actual subtopic gets 0. Over the whole ranking unless @k is given.",
        kernel=nrbp_kernel,
        params=(REL, ALPHA, BETA),
        examples=(IntentExample("NRBP", EXAMPLE_RANKING, EXAMPLE_JUDGMENTS, 0.75 / 3 * (1 + 0.5 + 0.5 * 0.125),
                                note="ndeval's example"),),
        properties=frozenset({"ranking", "subtopics", "monotone_k"}),
    )
)

register(
    MetricSpec(
        name="nnrbp",
        family="intent",
        bounds=(0.0, math.inf),  # ndeval's greedy ideal is not always the best ranking: a run can beat it
        summary="nNRBP: NRBP over the ideal ranking's (ndeval's greedy ideal).",
        formula=r"nNRBP = \frac{\sum_r \beta^{r-1} G(r)}{\sum_r \beta^{r-1} G^*(r)}",
        citation=_CITATION,
        convention=(_GRADES + "G* is ndeval's greedy ideal ranking over all judged items (not always optimal: a "
                    "ranking can score above 1, as in ndeval). A query without any "
                    "actual subtopic gets 0 (ndeval divides 0 by 0 there and prints nan)."),
        kernel=nnrbp_kernel,
        params=(REL, ALPHA, BETA),
        examples=(IntentExample("nNRBP", EXAMPLE_RANKING, EXAMPLE_JUDGMENTS,
                                (1 + 0.5 + 0.5 * 0.125) / (1 + 0.5 + 0.25 + 0.5 * 0.125),
                                note="ndeval's example: ideal D, C, A, B"),),
        properties=frozenset({"ranking", "subtopics"}),
    )
)
