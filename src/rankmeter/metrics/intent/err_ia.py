"""ERR-IA and nERR-IA: intent-aware expected reciprocal rank, in NIST ndeval's form.

ndeval's ERR-IA is Chapelle et al.'s ERR averaged over the subtopics with binary
judgments and stopping probability alpha; alpha cancels out in the normalised forms,
leaving the gain G(r) of :mod:`rankmeter.metrics.intent._common` discounted by 1/r:

- ``err_ia@k`` = sum_{r<=k} G(r)/r divided by |S| sum_{r<=k} (1-alpha)^{r-1}/r
  (collection-independent, "ideal ideal" normalisation);
- ``nerr_ia@k`` = sum_{r<=k} G(r)/r divided by the same sum over ndeval's greedy
  ideal ranking.

Reference: Chapelle, Metzler, Zhang & Grinspan, CIKM 2009, doi:10.1145/1645953.1646033; the
intent-aware average of Agrawal et al., WSDM 2009; conventions of NIST's ndeval (docs/intent.md).

Worked example (ndeval's documentation example, gains 1, 1, 0, 1/2; ideal 1, 1, 1, 1/2):

>>> from rankmeter.metrics.intent import intent_batch
>>> b = intent_batch([["A", "D", "E", "B"]], [{"a": {"A": 1}, "b": {"B": 1, "D": 1}, "c": {"C": 1}}])
>>> raw = 1 + 1 / 2 + 0.5 / 4
>>> bool(np.isclose(nerr_ia_kernel(b.cut(5), rel=1.0, alpha=0.5)[0], raw / (1 + 1 / 2 + 1 / 3 + 0.5 / 4)))
True
>>> round(float(err_ia_kernel(b.cut(5), rel=1.0, alpha=0.5)[0]), 4)
0.3933
"""

from __future__ import annotations

import math

import numpy as np

from ..batch import Batch
from ..registry import MetricSpec, register
from ._common import (
    ALPHA,
    BINARY,
    EXAMPLE_JUDGMENTS,
    EXAMPLE_RANKING,
    NDEVAL,
    REL,
    IntentExample,
    discounted,
    ideal_ideal,
    ideal_sum,
    ratio,
)

__all__ = ["err_ia_kernel", "nerr_ia_kernel"]

_CITATION = ("Chapelle, Metzler, Zhang & Grinspan, Expected reciprocal rank for graded relevance, CIKM 2009, "
             "doi:10.1145/1645953.1646033; intent-aware as in Agrawal et al., WSDM 2009" + NDEVAL)
_GRADES = BINARY + "; a query without any gets 0. "


def err_ia_kernel(b: Batch, rel: float, alpha: float) -> np.ndarray:
    """ERR-IA@k per query, ndeval's collection-independent normalisation."""
    return ratio(discounted(b, rel, alpha, "reciprocal"), ideal_ideal(b, rel, alpha, "reciprocal"))


def nerr_ia_kernel(b: Batch, rel: float, alpha: float) -> np.ndarray:
    """nERR-IA@k per query: over the same sum for ndeval's greedy ideal ranking."""
    return ratio(discounted(b, rel, alpha, "reciprocal"), ideal_sum(b, rel, alpha, "reciprocal"))


register(
    MetricSpec(
        name="err_ia",
        family="intent",
        summary="ERR-IA: intent-aware expected reciprocal rank, ndeval's collection-independent normalisation.",
        formula=(r"ERR\text{-}IA@k = \frac{\sum_{r \le k} G(r) / r}{|S| \sum_{r \le k} (1-\alpha)^{r-1} / r},"
                 r"\ G(r) = \sum_{s \in S} J(d_r, s) (1-\alpha)^{c_s(r-1)}"),
        citation=_CITATION,
        convention=(_GRADES + "Normalised at every k, k = 1 included (ndeval leaves ERR-IA@1 undivided, so its "
                    "value there is |S| times rankmeter's). Without a cutoff, k is the length of the ranking. "
                    "alpha is ndeval's (ir_measures fixes it at 0.5)."),
        kernel=err_ia_kernel,
        params=(REL, ALPHA),
        aliases={"err-ia": {}},
        examples=(IntentExample("ERR-IA@5", EXAMPLE_RANKING, EXAMPLE_JUDGMENTS,
                                (1 + 1 / 2 + 0.5 / 4) / (3 * sum(0.5**i / (i + 1) for i in range(5))),
                                note="ndeval's example: |S| = 3 subtopics"),),
        properties=frozenset({"ranking", "subtopics", "k_scaled"}),
    )
)

register(
    MetricSpec(
        name="nerr_ia",
        family="intent",
        bounds=(0.0, math.inf),  # ndeval's greedy ideal is not always the best ranking: a run can beat it
        summary="nERR-IA: ERR-IA over the ideal ranking's (ndeval's greedy ideal).",
        formula=r"nERR\text{-}IA@k = \frac{\sum_{r \le k} G(r) / r}{\sum_{r \le k} G^*(r) / r}",
        citation=_CITATION,
        convention=(_GRADES + "G* is ndeval's greedy ideal ranking (ties to the larger item id); greedy is not always "
                    "optimal, so a ranking can score above 1, as in ndeval. Without a cutoff, the whole ranking "
                    "against the whole ideal ranking."),
        kernel=nerr_ia_kernel,
        params=(REL, ALPHA),
        aliases={"nerr-ia": {}},
        examples=(IntentExample("nERR-IA@5", EXAMPLE_RANKING, EXAMPLE_JUDGMENTS,
                                (1 + 1 / 2 + 0.5 / 4) / (1 + 1 / 2 + 1 / 3 + 0.5 / 4),
                                note="ndeval's example: ideal D, C, A, B"),),
        properties=frozenset({"ranking", "subtopics"}),
    )
)
