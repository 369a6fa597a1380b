"""Popularity-based beyond-accuracy metrics: novelty and average recommendation popularity (ARP).

Novelty (Zhou et al. 2010) is the mean self-information of the recommended items,
``-log2 p(i)``, where ``p(i)`` is the item's popularity in the training data. ARP
(Abdollahpouri et al. 2019) is the mean popularity of the recommended items.

>>> import rankmeter
>>> ctx = {"popularity": {"a": 0.5, "b": 0.25, "c": 1.0}, "n_users": 4}
>>> r = rankmeter.evaluate({"u": ["a"]}, {"u": ["a", "b", "c"]}, ["novelty@2", "arp@2"], context=ctx)
>>> r.mean   # novelty: (-log2 .5 - log2 .25)/2 = (1+2)/2; arp: (.5*4 + .25*4)/2 = 1.5 users
{'novelty@2': 1.5, 'arp@2': 1.5}
"""

from __future__ import annotations

import math
from typing import Any, Mapping, Sequence, cast

import numpy as np

from ..._errors import InputError
from ..batch import Batch
from ..registry import MetricSpec, Param, register
from ._context import HELPER, ContextExample, batch_vocab, lookup, missing_error, need, ref_values

# the context of the worked examples: 4 training users; a seen by 2, b by 1, c by all 4
_CTX = {"popularity": {"a": 0.5, "b": 0.25, "c": 1.0}, "n_users": 4}

_POP_KEY = {"users": "popularity", "interactions": "popularity_interactions"}
_N_KEY = {"users": "n_users", "interactions": "n_interactions"}


def _row_popularity(b: Batch, pop: str, cold: str, metric: str) -> np.ndarray:
    """Popularity share of every ranked row; cold items per the ``cold`` rule."""
    key = _POP_KEY[pop]
    vals, _ = lookup(b, key, metric)
    pr = vals[b.item] if len(b.item) else np.zeros(0)
    is_cold = ~(pr > 0)  # not in the table (nan) or never seen (0)
    if is_cold.any():
        if cold == "error":
            raise missing_error(
                metric, key, batch_vocab(b), b.item[is_cold], int(is_cold.sum()),
                fix=f"items without training interactions have no self-information; use {metric}(cold=one) "
                    "to count them as seen by one training user")
        n = float(need(b.context, _N_KEY[pop], f"{metric}(cold=one)"))
        pr = np.where(is_cold, 1.0 / n, pr)
    return pr


def _divide(total: np.ndarray, b: Batch, norm: str) -> np.ndarray:
    if norm == "k" and b.k is not None:
        return total / b.k
    n = b.lengths.astype(np.float64)
    return cast(np.ndarray, np.divide(total, n, out=np.zeros_like(total), where=n > 0))


def novelty_kernel(b: Batch, pop: str, form: str, norm: str, cold: str) -> np.ndarray:
    p = _row_popularity(b, pop, cold, "novelty")
    info = -np.log2(p) if form == "log2" else 1.0 - p
    return _divide(b.seg_sum(info), b, norm)


def _ref_pop(context: Mapping[str, Any] | None, pop: str, cold: str, item: str) -> float:
    table = ref_values(context, _POP_KEY[pop], "novelty")
    p = float(table.get(item, 0.0))
    if p > 0:
        return p
    if cold == "error":
        raise InputError(f"novelty: item {item!r} has no training popularity", source="context")
    return 1.0 / float(need(context, _N_KEY[pop], "novelty"))


def novelty_reference(ranking: Sequence[str], qrels: Mapping[str, float], k: int | None, *,
                      context: Mapping[str, Any] | None = None, pop: str = "users", form: str = "log2",
                      norm: str = "k", cold: str = "error") -> float:
    kept = list(ranking if k is None else ranking[:k])
    total = 0.0
    for item in kept:
        p = _ref_pop(context, pop, cold, item)
        total += -math.log2(p) if form == "log2" else 1.0 - p
    denom = k if (norm == "k" and k is not None) else len(kept)
    return total / denom if denom else 0.0


_POP = Param("pop", str, "users", "popularity: share of training users (users) or of training interactions "
             "(interactions)", choices=("users", "interactions"))
_NORM = Param("norm", str, "k", "divide the sum by the cutoff k (k) or by the list length (length)",
              choices=("k", "length"))

register(
    MetricSpec(
        name="novelty",
        family="beyond",
        summary="Mean self-information -log2 p(i) of the recommended items (popular items are not novel).",
        formula=r"novelty@k(u) = \frac{1}{k} \sum_{i \in L_u^k} -\log_2 p(i),\quad p(i) = "
                r"\frac{|\{v : i \in train(v)\}|}{|U_{train}|}",
        citation=(
            "Zhou, Kuscsik, Liu, Medo, Wakeling, Zhang (2010), Solving the apparent diversity-accuracy dilemma "
            "of recommender systems, PNAS 107(10), doi:10.1073/pnas.1000488107 (self-information, recmetrics' "
            "novelty); Vargas & Castells (2011), Rank and relevance in novelty and diversity metrics for "
            "recommender systems, RecSys, doi:10.1145/2043932.2043955 (form=complement: 1 - p(i))."
        ),
        convention=(
            "p(i) is the share of training users who interacted with i (pop=users, Zhou et al., recmetrics); "
            "pop=interactions uses the share of training interactions instead. form=log2 is the "
            "self-information -log2 p(i); form=complement is 1 - p(i) (Vargas & Castells' popularity "
            "complement). The sum is divided by k (norm=k: a list shorter than k scores less, as recmetrics "
            "divides by N) or by the list length (norm=length). An item never seen in training has no "
            "self-information: cold=error (default) raises with a count; cold=one counts it as seen by one "
            "training user (p = 1/|U_train|, the largest finite value). An empty list scores 0. "
            f"Needs context['popularity'] (from {HELPER})."
        ),
        kernel=novelty_kernel,
        reference=novelty_reference,
        params=(
            _POP,
            Param("form", str, "log2", "self-information (log2) or popularity complement (complement)",
                  choices=("log2", "complement")),
            _NORM,
            Param("cold", str, "error", "items without training popularity: error, or count as seen by one "
                  "user (one)", choices=("error", "one")),
        ),
        aliases={"self_information": {}, "epc": {"form": "complement"}},
        examples=(
            ContextExample("novelty@2", {"u": ["a", "b", "c"]}, {"u": ["a"]}, _CTX, (1 + 2) / 2,
                           note="-log2 .5 = 1, -log2 .25 = 2; c is past the cutoff"),
            ContextExample("novelty(form=complement)@2", {"u": ["a", "b", "c"]}, {"u": ["a"]}, _CTX,
                           ((1 - .5) + (1 - .25)) / 2, note="EPC-style popularity complement"),
            ContextExample("novelty@5", {"u": ["a", "b"]}, {"u": ["a"]}, _CTX, (1 + 2) / 5,
                           note="norm=k: a 2-item list divided by k=5"),
            ContextExample("novelty(norm=length)@5", {"u": ["a", "b"]}, {"u": ["a"]}, _CTX, (1 + 2) / 2),
            ContextExample("novelty(cold=one)@2", {"u": ["a", "z"]}, {"u": ["a"]}, _CTX, (1 + 2) / 2,
                           note="z never seen in training: p = 1/n_users = 1/4, -log2 = 2"),
        ),
        higher_is_better=True,
        bounds=(0.0, float("inf")),
        properties=frozenset({"beyond", "needs_context", "judgment_free"}),
    )
)


# arp's pop: (the context's share table, the total it scales by: None for a share)
_ARP_POP = {"count": ("popularity", "n_users"), "share": ("popularity", None),
            "interactions": ("popularity_interactions", "n_interactions"),
            "interaction_share": ("popularity_interactions", None)}


def arp_kernel(b: Batch, pop: str, norm: str) -> np.ndarray:
    key, total = _ARP_POP[pop]
    vals, _ = lookup(b, key, "arp")
    pr = np.nan_to_num(vals[b.item], nan=0.0) if len(b.item) else np.zeros(0)
    if total is not None:
        pr = pr * float(need(b.context, total, f"arp(pop={pop})"))
    return _divide(b.seg_sum(pr), b, norm)


def arp_reference(ranking: Sequence[str], qrels: Mapping[str, float], k: int | None, *,
                  context: Mapping[str, Any] | None = None, pop: str = "count", norm: str = "length") -> float:
    kept = list(ranking if k is None else ranking[:k])
    key, total = _ARP_POP[pop]
    table = ref_values(context, key, "arp")
    scale = float(need(context, total, "arp")) if total is not None else 1.0
    popularity = sum(float(table.get(i, 0.0)) * scale for i in kept)
    denom = k if (norm == "k" and k is not None) else len(kept)
    return popularity / denom if denom else 0.0


register(
    MetricSpec(
        name="arp",
        family="beyond",
        summary="Average recommendation popularity: mean training popularity of the recommended items.",
        formula=r"ARP@k(u) = \frac{1}{|L_u^k|} \sum_{i \in L_u^k} \phi(i),\quad \phi(i) = "
                r"|\{v : i \in train(v)\}|",
        citation=(
            "Abdollahpouri, Mansoury, Burke, Mobasher (2019), The unfairness of popularity bias in recommendation, "
            "RMSE workshop at RecSys, arXiv:1907.13286; Yin, Cui, Li, Yao, Chen (2012), Challenging the long "
            "tail recommendation, VLDB."
        ),
        convention=(
            "phi(i) is the number of training users who interacted with i (pop=count, Abdollahpouri et al.'s "
            "number of ratings for implicit, de-duplicated feedback); pop=share uses the share of training "
            "users. The mean is over the list's items (norm=length, Abdollahpouri et al.) or divides by k "
            "(norm=k). pop=interactions counts training rows instead of users (repeated (user, item) pairs "
            "count again: RecTools' AvgRecPopularity and RecBole's AveragePopularity, rectools/metrics/"
            "popularity.py, recbole/evaluator/metrics.py), pop=interaction_share their share. "
            "An item absent from the popularity table has popularity 0 (it was not seen in "
            f"training). An empty list scores 0. Needs context['popularity'] and context['n_users'] (from {HELPER})."
        ),
        kernel=arp_kernel,
        reference=arp_reference,
        params=(
            Param("pop", str, "count", "popularity as a number of training users (count) or a share (share); "
                  "as a number of training rows (interactions) or a share of them (interaction_share)",
                  choices=("count", "share", "interactions", "interaction_share")),
            Param("norm", str, "length", "divide by the list length (length) or by k (k)", choices=("length", "k")),
        ),
        aliases={"average_recommendation_popularity": {}, "avg_pop": {}},
        examples=(
            ContextExample("arp@2", {"u": ["a", "b", "c"]}, {"u": ["a"]}, _CTX, (0.5 * 4 + 0.25 * 4) / 2,
                           note="2 and 1 of the 4 training users"),
            ContextExample("arp(pop=share)@3", {"u": ["a", "b", "c"]}, {"u": ["a"]}, _CTX, (0.5 + 0.25 + 1) / 3),
            ContextExample("arp(pop=interactions)@2", {"u": ["a", "b", "c"]}, {"u": ["a"]},
                           {"popularity_interactions": {"a": 0.5, "b": 0.1, "c": 0.4}, "n_interactions": 10},
                           (5 + 1) / 2, note="a in 5 of the 10 training rows (a pair repeated counts again), b in 1"),
            ContextExample("arp@3", {"u": ["a", "z"], "v": ["c"]}, {"u": ["a"], "v": ["c"]}, _CTX,
                           ((2 + 0) / 2 + 4 / 1) / 2, note="z unseen in training: popularity 0; mean of users"),
        ),
        higher_is_better=False,
        bounds=(0.0, float("inf")),
        properties=frozenset({"beyond", "needs_context", "judgment_free"}),
    )
)
