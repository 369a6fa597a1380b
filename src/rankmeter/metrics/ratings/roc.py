"""ROC AUC of predicted ratings (or scores) against binary relevance, per user or pooled (evaluation notes).

A pair is positive when its true rating is >= ``rel``. The area under the ROC curve
is the probability that a random positive is scored above a random negative, a tie
counting one half: the Mann-Whitney U statistic over P N.

>>> from rankmeter.ratings import evaluate_ratings
>>> r = evaluate_ratings([(1, 0.9), (0, 0.4), (1, 0.4), (0, 0.1)], None, "roc_auc")
>>> r.mean   # pairs (pos, neg): (0.9, 0.4) 1, (0.9, 0.1) 1, (0.4, 0.4) 1/2, (0.4, 0.1) 1
{'roc_auc': 0.875}
"""

from __future__ import annotations

import math
from typing import Any, Mapping, Sequence

import numpy as np

from .. import rankstats as RS
from ..rating_batch import RatingsBatch
from ..registry import MetricSpec, Param, register
from ._common import RatingsExample, per_param

REL = Param("rel", float, 1.0, "true ratings >= rel are positives (labels 0/1 work as they are)")


def roc_auc_kernel(b: RatingsBatch, per: str = "user", rel: float = 1.0) -> np.ndarray:
    off, t, p = b.segments()
    return RS.roc_auc(off, t >= rel, p)


def roc_auc_reference(true: Sequence[float], pred: Sequence[float], context: Mapping[str, Any] | None = None,
                      per: str = "user", rel: float = 1.0) -> float:
    pos = [p for t, p in zip(true, pred, strict=True) if t >= rel]
    neg = [p for t, p in zip(true, pred, strict=True) if t < rel]
    if not pos or not neg:
        return math.nan
    wins = sum(1.0 if a > b else 0.5 if a == b else 0.0 for a in pos for b in neg)
    return wins / (len(pos) * len(neg))


register(MetricSpec(
    name="roc_auc",
    family="ratings",
    summary="Area under the ROC curve of the predictions against binary relevance (true rating >= rel).",
    formula=(r"AUC = \frac{1}{P N} \sum_{i \in pos} \sum_{j \in neg} "
             r"\left([\hat r_i > \hat r_j] + \tfrac12 [\hat r_i = \hat r_j]\right)"),
    citation="Hanley & McNeil, Radiology 143(1) 1982, doi:10.1148/radiology.143.1.7063747; Herlocker et al. "
             "TOIS 2004; evaluation notes.",
    convention=(
        "Tied scores count one half (the Mann-Whitney statistic; sklearn.metrics.roc_auc_score). per=user "
        "(default) averages the users' AUCs; per=pair is the pooled AUC over all pairs. A group without both a "
        "positive and a negative has no AUC (NaN): left out of the mean and counted in the notes. The curve "
        "itself: rankmeter.ratings.roc_curves(...) or rankmeter.metrics.roc_curve(labels, scores)."
    ),
    kernel=roc_auc_kernel,
    reference=roc_auc_reference,
    params=(per_param("user"), REL),
    aliases={"auroc": {}},
    examples=(
        RatingsExample("roc_auc", (1, 0, 1, 0), (0.9, 0.4, 0.4, 0.1), 0.875, note="one tie counts 1/2"),
        RatingsExample("roc_auc(rel=4)", (5, 4, 2, 1, 3), (4.5, 3.0, 3.5, 1.0, 2.0), 5 / 6,
                       note="positives 4.5, 3.0 against negatives 3.5, 1.0, 2.0: 5 of 6 pairs"),
        RatingsExample("roc_auc(per=pair)", (1, 0, 1, 0), (0.9, 0.1, 0.2, 0.3), 0.75, users=("a", "a", "b", "b"),
                       note="pooled: pairs (0.9,0.1) (0.9,0.3) (0.2,0.1) win, (0.2,0.3) loses"),
        RatingsExample("roc_auc(per=user)", (1, 0, 1, 0), (0.9, 0.1, 0.2, 0.3), 0.5, users=("a", "a", "b", "b"),
                       note="user a: 1, user b: 0"),
    ),
    cutoff=False,
    bounds=(0.0, 1.0),
    properties=frozenset({"ratings", "undefined_nan", "binary"}),
    input="ratings",
))
