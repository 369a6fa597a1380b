"""Inverse-propensity-scored (IPS) recall, precision, nDCG and RBP.

Each observed relevant item ``i`` of user ``u`` (judged with grade >= rel) counts with
the weight ``w_i = 1 / max(p_i, clip)`` instead of 1, ``p_i`` its observation
propensity (Schnabel et al. 2016; Yang et al. 2018). With the true propensities the
weighted sum over the observed relevant items is an unbiased estimate of the sum over
every item the user would find relevant, observed or not.

>>> import rankmeter
>>> ctx = {"propensity": {"a": 0.5, "b": 0.25, "c": 1.0}}
>>> r = rankmeter.evaluate({"u": {"a": 1, "b": 1}}, {"u": ["a", "c", "b"]},
...                        ["ips_recall(propensity=given)@2", "ips_precision(propensity=given)@2"], context=ctx)
>>> r.mean   # a found at rank 1 (weight 1/0.5 = 2), b missed: recall 2 / 2 relevant, precision 2 / k
{'ips_recall(propensity=given)@2': 1.0, 'ips_precision(propensity=given)@2': 1.0}
"""

from __future__ import annotations

import math
from typing import Any, Mapping, Sequence, cast

import numpy as np

from ..batch import Batch
from ..registry import MetricSpec, Param, register
from ._common import CLIP, EXPONENT, HELP, PROPENSITY, REL1, UnbiasedExample, ref_propensity, row_propensity

_CTX = {"popularity": {"a": 0.25, "b": 0.04, "c": 1.0, "d": 0.01}, "n_users": 100,
        "propensity": {"a": 0.5, "b": 0.25, "c": 1.0, "d": 0.1}}
_RUN = {"u": ["a", "c", "b", "d"], "v": ["c", "d"]}
_QRELS = {"u": {"a": 1, "b": 1, "e": 1}, "v": {"d": 2}}

_PROPS = frozenset({"needs_context", "unbiased", "binary"})
_LABEL = ("Labelled by its name and parameters in every output: an IPS value is an estimate of the "
          "metric over all relevant items (observed or not), not the plain metric. ")
_MISSING = ("A relevant recommended item without a propensity is an InputError (with a count); a propensity "
            "of 0 after clipping is an InputError naming clip. " + HELP + ".")


def _weighted_rows(b: Batch, rel: float, propensity: str, exponent: float, clip: float,
                   metric: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    rows, query, rank = b.relevant_rows(rel)
    w = 1.0 / row_propensity(b, rows, propensity, exponent, clip, metric, rank, query)
    return w, query, rank


def _ref_hits(ranking: Sequence[str], qrels: Mapping[str, float], k: int | None, rel: float,
              context: Mapping[str, Any] | None, propensity: str, exponent: float, clip: float, metric: str,
              query: str | None = None) -> list[tuple[int, float]]:
    kept = list(ranking if k is None else ranking[:k])
    out = []
    for r, d in enumerate(kept, start=1):
        if d in qrels and qrels[d] >= rel and qrels[d] >= 0:
            out.append((r, 1.0 / ref_propensity(context, d, propensity, exponent, clip, metric, r, query)))
    return out


def _nrel(qrels: Mapping[str, float], rel: float) -> int:
    return sum(1 for g in qrels.values() if g >= rel and g >= 0)


_P = (PROPENSITY, EXPONENT, CLIP, REL1)


# ----------------------------------------------------------------------------- recall

def recall_kernel(b: Batch, propensity: str, exponent: float, clip: float, rel: float) -> np.ndarray:
    w, q, _ = _weighted_rows(b, rel, propensity, exponent, clip, "ips_recall")
    num = np.bincount(q, weights=w, minlength=b.n_queries)
    n = b.n_rel(rel).astype(np.float64)
    return np.divide(num, n, out=np.zeros(b.n_queries), where=n > 0)


def recall_reference(ranking: Sequence[str], qrels: Mapping[str, float], k: int | None, *,
                     context: Mapping[str, Any] | None = None, propensity: str = "popularity",
                     exponent: float = 0.5, clip: float = 0.0, rel: float = 1.0,
                     query: str | None = None) -> float:
    n = _nrel(qrels, rel)
    hits = _ref_hits(ranking, qrels, k, rel, context, propensity, exponent, clip, "ips_recall", query)
    return sum(w for _, w in hits) / n if n else 0.0


register(MetricSpec(
    name="ips_recall",
    family="unbiased",
    summary="IPS recall at k: relevant items found in the top k, each weighted by 1/propensity, over the "
            "number of observed relevant items.",
    formula=r"IPS\text{-}R@k(u) = \frac{1}{|S_u|} \sum_{i \in S_u,\ rank_i \le k} \frac{1}{\max(p_{u,i}, c)}",
    citation=("Yang, Cui, Gao, Xiang, Zhu, Estrin (2018), Unbiased offline recommender evaluation for "
              "missing-not-at-random implicit feedback, RecSys, doi:10.1145/3240323.3240355 (the per-user "
              "1/|S_u| form and the power-law popularity model); Schnabel, Swaminathan, Singh, Chandak, "
              "Joachims (2016), Recommendations as treatments, ICML, arXiv:1602.05352."),
    convention=(_LABEL + "S_u are the observed relevant items (grade >= rel); p_{u,i} = popularity(i)**exponent "
                "(propensity=popularity, Yang et al.'s power law on the share of training users; exponent "
                "(gamma+1)/2 in their notation), context['propensity'][i] (propensity=given), or rank_i**-exponent "
                "(propensity=position: the position-based click model of Joachims, Swaminathan & Schnabel (2017), "
                "Unbiased learning-to-rank with biased feedback, WSDM; valid when the evaluated ranking is the one "
                "the clicks were logged on); c = clip. "
                "Values may exceed 1. 0 for a user without relevant items. " + _MISSING),
    kernel=recall_kernel,
    reference=recall_reference,
    params=_P,
    aliases={"ipsrecall": {}},
    examples=(
        UnbiasedExample("ips_recall(propensity=given)@2", _RUN, _QRELS, _CTX, ((1 / 0.5) / 3 + (1 / 0.1) / 1) / 2,
                        note="u: a (p=.5) found among 3 relevant; v: d (p=.1) found, its only relevant"),
        UnbiasedExample("ips_recall@3", {"u": _RUN["u"]}, {"u": _QRELS["u"]}, _CTX, (1 / 0.5 + 1 / 0.2) / 3,
                        note="popularity model: p = pop**0.5: a .25 -> .5, b .04 -> .2"),
        UnbiasedExample("ips_recall(propensity=given,clip=0.3)@3", {"u": _RUN["u"]}, {"u": _QRELS["u"]}, _CTX,
                        (1 / 0.5 + 1 / 0.3) / 3, note="b's propensity .25 clipped to .3"),
        UnbiasedExample("ips_recall(propensity=position,exponent=1)@3", {"u": _RUN["u"]}, {"u": _QRELS["u"]}, _CTX,
                        (1 + 3) / 3, note="position model: a at rank 1 (p 1), b at rank 3 (p 1/3)"),
    ),
    bounds=(0.0, float("inf")),
    properties=_PROPS | {"monotone_k"},
))


# ----------------------------------------------------------------------------- precision

def precision_kernel(b: Batch, propensity: str, exponent: float, clip: float, rel: float) -> np.ndarray:
    w, q, _ = _weighted_rows(b, rel, propensity, exponent, clip, "ips_precision")
    num = np.bincount(q, weights=w, minlength=b.n_queries)
    if b.k is None:
        d = b.lengths.astype(np.float64)
        return np.divide(num, d, out=np.zeros(b.n_queries), where=d > 0)
    return num / b.k


def precision_reference(ranking: Sequence[str], qrels: Mapping[str, float], k: int | None, *,
                        context: Mapping[str, Any] | None = None, propensity: str = "popularity",
                        exponent: float = 0.5, clip: float = 0.0, rel: float = 1.0,
                        query: str | None = None) -> float:
    hits = _ref_hits(ranking, qrels, k, rel, context, propensity, exponent, clip, "ips_precision", query)
    denom = k if k is not None else len(ranking)
    return sum(w for _, w in hits) / denom if denom else 0.0


register(MetricSpec(
    name="ips_precision",
    family="unbiased",
    summary="IPS precision at k: relevant items in the top k, each weighted by 1/propensity, over k.",
    formula=r"IPS\text{-}P@k(u) = \frac{1}{k} \sum_{i \in S_u,\ rank_i \le k} \frac{1}{\max(p_{u,i}, c)}",
    citation=("Yang et al. (2018), RecSys, doi:10.1145/3240323.3240355; Schnabel et al. (2016), ICML, "
              "arXiv:1602.05352."),
    convention=(_LABEL + "Divides by k even when fewer than k items were retrieved (as p@k); without a cutoff "
                "by the number retrieved. Propensities as ips_recall. " + _MISSING),
    kernel=precision_kernel,
    reference=precision_reference,
    params=_P,
    aliases={"ipsprecision": {}},
    examples=(
        UnbiasedExample("ips_precision(propensity=given)@2", _RUN, _QRELS, _CTX, ((1 / 0.5) / 2 + (1 / 0.1) / 2) / 2),
        UnbiasedExample("ips_precision(propensity=given)@4", {"u": _RUN["u"]}, {"u": _QRELS["u"]}, _CTX,
                        (2 + 4) / 4, note="a (1/.5) and b (1/.25) in the top 4"),
    ),
    bounds=(0.0, float("inf")),
    properties=_PROPS | {"k_scaled"},
))


# ----------------------------------------------------------------------------- nDCG

def _idcg(n: np.ndarray, k: int | None) -> np.ndarray:
    m = n if k is None else np.minimum(n, k)
    top = int(m.max()) if len(m) else 0
    cum = np.concatenate(([0.0], np.cumsum(1.0 / np.log2(np.arange(2, top + 2, dtype=np.float64)))))
    return cum[m.astype(np.int64)]


def ndcg_kernel(b: Batch, propensity: str, exponent: float, clip: float, rel: float) -> np.ndarray:
    w, q, rank = _weighted_rows(b, rel, propensity, exponent, clip, "ips_ndcg")
    dcg = np.bincount(q, weights=w / np.log2(rank + 1.0), minlength=b.n_queries)
    ideal = _idcg(b.n_rel(rel), b.k)
    return cast(np.ndarray, np.divide(dcg, ideal, out=np.zeros(b.n_queries), where=ideal > 0))


def ndcg_reference(ranking: Sequence[str], qrels: Mapping[str, float], k: int | None, *,
                   context: Mapping[str, Any] | None = None, propensity: str = "popularity",
                   exponent: float = 0.5, clip: float = 0.0, rel: float = 1.0,
                   query: str | None = None) -> float:
    hits = _ref_hits(ranking, qrels, k, rel, context, propensity, exponent, clip, "ips_ndcg", query)
    n = _nrel(qrels, rel)
    m = n if k is None else min(n, k)
    ideal = sum(1 / math.log2(r + 1) for r in range(1, m + 1))
    return sum(w / math.log2(r + 1) for r, w in hits) / ideal if ideal else 0.0


register(MetricSpec(
    name="ips_ndcg",
    family="unbiased",
    summary="IPS nDCG at k (binary gains): each relevant item's discounted gain weighted by 1/propensity, "
            "over the ideal DCG of the observed relevant items.",
    formula=r"IPS\text{-}nDCG@k(u) = \frac{\sum_{i \in S_u, rank_i \le k} \frac{1}{\max(p_{u,i},c)\,"
            r"\log_2(rank_i+1)}}{\sum_{j=1}^{\min(k,|S_u|)} 1/\log_2(j+1)}",
    citation=("Yang et al. (2018), RecSys, doi:10.1145/3240323.3240355 (IPS DCG); Järvelin & Kekäläinen "
              "(2002), Cumulated gain-based evaluation of IR techniques, TOIS."),
    convention=(_LABEL + "Binary gains (grade >= rel), log2(rank+1) discount; the normaliser is the unweighted "
                "ideal DCG of the observed relevant items, so values may exceed 1. Propensities as ips_recall. "
                + _MISSING),
    kernel=ndcg_kernel,
    reference=ndcg_reference,
    params=_P,
    aliases={"ipsndcg": {}},
    examples=(
        UnbiasedExample("ips_ndcg(propensity=given)@3", {"u": _RUN["u"]}, {"u": _QRELS["u"]}, _CTX,
                        (2 / 1 + 4 / 2) / (1 + 1 / math.log2(3) + 1 / 2),
                        note="a at rank 1 (w 2), b at rank 3 (w 4, discount 1/2); 3 relevant"),
        UnbiasedExample("ips_ndcg(propensity=given)@2", {"v": _RUN["v"]}, {"v": _QRELS["v"]}, _CTX,
                        (10 / math.log2(3)) / 1, note="d at rank 2, p = .1"),
    ),
    bounds=(0.0, float("inf")),
    properties=_PROPS,
))


# ----------------------------------------------------------------------------- RBP

def rbp_kernel(b: Batch, p: float, propensity: str, exponent: float, clip: float, rel: float) -> np.ndarray:
    w, q, rank = _weighted_rows(b, rel, propensity, exponent, clip, "ips_rbp")
    return (1 - p) * np.bincount(q, weights=w * np.power(p, rank - 1.0), minlength=b.n_queries)


def rbp_reference(ranking: Sequence[str], qrels: Mapping[str, float], k: int | None, *,
                  context: Mapping[str, Any] | None = None, p: float = 0.8, propensity: str = "popularity",
                  exponent: float = 0.5, clip: float = 0.0, rel: float = 1.0,
                  query: str | None = None) -> float:
    hits = _ref_hits(ranking, qrels, k, rel, context, propensity, exponent, clip, "ips_rbp", query)
    return (1 - p) * sum(w * p ** (r - 1) for r, w in hits)


register(MetricSpec(
    name="ips_rbp",
    family="unbiased",
    summary="IPS rank-biased precision: RBP with each relevant item weighted by 1/propensity.",
    formula=r"IPS\text{-}RBP(u) = (1-p) \sum_{i \in S_u} \frac{p^{rank_i - 1}}{\max(p_{u,i}, c)}",
    citation=("Moffat & Zobel (2008), Rank-biased precision, TOIS 27(1); LensKit's IPS-weighted RBP; "
              "Yang et al. (2018), RecSys, doi:10.1145/3240323.3240355."),
    convention=(_LABEL + "p is the persistence (0.8 by default); binary gains; no residual. Values may exceed "
                "1. Propensities as ips_recall. " + _MISSING),
    kernel=rbp_kernel,
    reference=rbp_reference,
    params=(Param("p", float, 0.8, "persistence", low=0, high=1, low_open=True, high_open=True),) + _P,
    aliases={"ipsrbp": {}},
    examples=(
        UnbiasedExample("ips_rbp(propensity=given)", {"u": _RUN["u"]}, {"u": _QRELS["u"]}, _CTX,
                        0.2 * (2 + 4 * 0.8 ** 2), note="a at rank 1 (w 2), b at rank 3 (w 4)"),
        UnbiasedExample("ips_rbp(propensity=given,p=0.5)@2", _RUN, _QRELS, _CTX, (0.5 * 2 + 0.5 * 10 * 0.5) / 2),
    ),
    bounds=(0.0, float("inf")),
    properties=_PROPS | {"monotone_k"},
))
