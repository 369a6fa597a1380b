"""alpha-nDCG and alpha-DCG: discounted cumulative gain where a subtopic's gain decays each time it is seen.

With the gain G(r) = sum_s J(d_r, s) (1 - alpha)^{c_s(r-1)} (see
:mod:`rankmeter.metrics.intent._common`) and the discount 1 / log2(r + 1):

- ``alpha_ndcg@k`` = sum_{r<=k} G(r) / log2(r+1) divided by the same sum over ndeval's
  greedy ideal ranking of the judged items (collection-dependent normalisation);
- ``alpha_dcg@k`` = the same sum divided by |S| sum_{r<=k} (1-alpha)^{r-1} / log2(r+1),
  ndeval's "ideal ideal" (collection-independent) normalisation: the value if every
  item covered every subtopic.

Reference: Clarke, Kolla, Cormack, Vechtomova, Ashkan, Büttcher & MacKinnon, Novelty and
diversity in information retrieval evaluation, SIGIR 2008, doi:10.1145/1390334.1390446;
conventions of NIST's ndeval (docs/intent.md).

Worked example (ndeval's documentation example): subtopics a = {A}, b = {B, D},
c = {C}; the ranking A, D, E, B gains 1, 1, 0, 1/2; the greedy ideal D, C, A, B gains
1, 1, 1, 1/2.

>>> from rankmeter.metrics.intent import intent_batch
>>> b = intent_batch([["A", "D", "E", "B"]], [{"a": {"A": 1}, "b": {"B": 1, "D": 1}, "c": {"C": 1}}])
>>> dcg = 1 + 1 / np.log2(3) + 0.5 / np.log2(5)
>>> ideal = 1 + 1 / np.log2(3) + 1 / np.log2(4) + 0.5 / np.log2(5)
>>> bool(np.isclose(alpha_ndcg_kernel(b.cut(5), rel=1.0, alpha=0.5)[0], dcg / ideal))
True
>>> (round(float(alpha_ndcg_kernel(b.cut(5), rel=1.0, alpha=0.5)[0]), 4),
...  round(float(alpha_dcg_kernel(b.cut(5), rel=1.0, alpha=0.5)[0]), 4))
(0.7869, 0.4053)
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

__all__ = ["alpha_ndcg_kernel", "alpha_dcg_kernel"]

_CITATION = ("Clarke, Kolla, Cormack, Vechtomova, Ashkan, Büttcher & MacKinnon, Novelty and diversity in "
             "information retrieval evaluation, SIGIR 2008, doi:10.1145/1390334.1390446" + NDEVAL)
_GRADES = BINARY + "; a query without any gets 0. "


def alpha_ndcg_kernel(b: Batch, rel: float, alpha: float) -> np.ndarray:
    """alpha-nDCG@k per query: alpha-DCG over the ideal ranking's (ndeval's greedy one)."""
    return ratio(discounted(b, rel, alpha, "log2"), ideal_sum(b, rel, alpha, "log2"))


def alpha_dcg_kernel(b: Batch, rel: float, alpha: float) -> np.ndarray:
    """alpha-DCG@k per query with ndeval's collection-independent ("ideal ideal") normalisation."""
    return ratio(discounted(b, rel, alpha, "log2"), ideal_ideal(b, rel, alpha, "log2"))


register(
    MetricSpec(
        name="alpha_ndcg",
        family="intent",
        bounds=(0.0, math.inf),  # ndeval's greedy ideal is not always the best ranking: a run can beat it
        summary="alpha-nDCG: DCG whose subtopic gains decay by 1 - alpha at each repeat, over the ideal ranking's.",
        formula=(r"\alpha\text{-}nDCG@k = \frac{\sum_{r \le k} G(r) / \log_2(r+1)}{\sum_{r \le k} G^*(r) / "
                 r"\log_2(r+1)},"
                 r"\ G(r) = \sum_{s \in S} J(d_r, s) (1-\alpha)^{c_s(r-1)}"),
        citation=_CITATION,
        convention=(_GRADES + "The ideal ranking G* is ndeval's greedy one over the judged items: at each rank the "
                    "item of largest gain given those above, ties to the larger item id (UTF-8 bytes). Greedy is not "
                    "always optimal, so a ranking can score above 1, as in ndeval. Without a cutoff, the whole "
                    "ranking against the whole ideal ranking."),
        kernel=alpha_ndcg_kernel,
        params=(REL, ALPHA),
        aliases={"alpha-ndcg": {}, "a-ndcg": {}},
        examples=(IntentExample("alpha-nDCG@5", EXAMPLE_RANKING, EXAMPLE_JUDGMENTS,
                                (1 + 1 / np.log2(3) + 0.5 / np.log2(5))
                                / (1 + 1 / np.log2(3) + 1 / np.log2(4) + 0.5 / np.log2(5)),
                                note="ndeval's example: gains 1, 1, 0, 1/2; ideal D, C, A, B gains 1, 1, 1, 1/2"),),
        properties=frozenset({"ranking", "subtopics"}),
    )
)

register(
    MetricSpec(
        name="alpha_dcg",
        family="intent",
        summary=("alpha-DCG with ndeval's collection-independent normalisation (as if every item covered every "
                 "subtopic)."),
        formula=(r"\alpha\text{-}DCG@k = \frac{\sum_{r \le k} G(r) / \log_2(r+1)}"
                 r"{|S| \sum_{r \le k} (1-\alpha)^{r-1} / \log_2(r+1)}"),
        citation=_CITATION,
        convention=(_GRADES + "Normalised at every k, k = 1 included (ndeval leaves alpha-DCG@1 undivided, so its "
                    "value there is |S| times rankmeter's). Without a cutoff, k is the length of the ranking."),
        kernel=alpha_dcg_kernel,
        params=(REL, ALPHA),
        aliases={"alpha-dcg": {}},
        examples=(IntentExample("alpha-DCG@5", EXAMPLE_RANKING, EXAMPLE_JUDGMENTS,
                                (1 + 1 / np.log2(3) + 0.5 / np.log2(5))
                                / (3 * sum(0.5**i / np.log2(i + 2) for i in range(5))),
                                note="ndeval's example: |S| = 3 subtopics"),),
        properties=frozenset({"ranking", "subtopics", "k_scaled"}),
    )
)
