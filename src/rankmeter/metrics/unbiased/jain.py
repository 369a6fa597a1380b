"""Jain et al.'s (KDD 2016) propensity-scored precision and nDCG (psP@k, psnDCG@k).

Propensities follow Jain et al.'s empirical model of missing labels,
``p_l = 1 / (1 + C (N_l + B)^{-A})`` with ``C = (ln N - 1)(B + 1)^A``: ``N_l`` is the number of
training users who interacted with item ``l`` (``popularity * n_users`` from the
context) and ``N`` the number of training users.

>>> import rankmeter
>>> ctx = {"popularity": {"a": 0.5, "b": 0.01}, "n_users": 100}
>>> r = rankmeter.evaluate({"u": {"a": 1, "b": 1}}, {"u": ["b", "a"]}, ["psp@1"], context=ctx)
>>> round(r.mean["psp@1"], 4)   # b, seen by 1 of 100 users: 1/p = 1 + C (1 + 1.5)^-0.55 = ln 100
4.6052
"""

from __future__ import annotations

import math
from typing import Any, Mapping, Sequence, cast

import numpy as np

from ..batch import Batch
from ..registry import MetricSpec, Param, register
from ._common import CLIP, REL1, UnbiasedExample, _need, jain_propensity, ref_propensity, row_propensity
from .ips import _idcg, _nrel

_A = Param("a", float, 0.55, "Jain et al.'s A (0.55 for most data sets)", low=0, low_open=True)
_B = Param("b", float, 1.5, "Jain et al.'s B (1.5 for most data sets)", low=0)
_CTX = {"popularity": {"a": 0.5, "b": 0.01, "c": 0.2}, "n_users": 100}


def _weights(b: Batch, rel: float, a: float, bb: float, clip: float,
             metric: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    rows, q, rank = b.relevant_rows(rel)
    share = row_propensity(b, rows, "popularity", 1.0, 0.0, metric)
    n = float(_need(b.context, "n_users", metric))
    p = np.maximum(jain_propensity(share * n, n, a, bb), clip)
    return 1.0 / p, q, rank


def _ref_weights(ranking: Sequence[str], qrels: Mapping[str, float], k: int | None, rel: float,
                 context: Mapping[str, Any] | None, a: float, bb: float, clip: float,
                 metric: str) -> list[tuple[int, float]]:
    n = float(_need(context, "n_users", metric))
    out = []
    for r, d in enumerate(list(ranking if k is None else ranking[:k]), start=1):
        if d in qrels and qrels[d] >= rel and qrels[d] >= 0:
            share = ref_propensity(context, d, "popularity", 1.0, 0.0, metric)
            c = (math.log(n) - 1.0) * (bb + 1.0) ** a
            p = max(1.0 / (1.0 + c * (share * n + bb) ** (-a)), clip)
            out.append((r, 1.0 / p))
    return out


def psp_kernel(batch: Batch, /, a: float, b: float, clip: float, rel: float) -> np.ndarray:
    w, q, _ = _weights(batch, rel, a, b, clip, "psp")
    num = np.bincount(q, weights=w, minlength=batch.n_queries)
    if batch.k is None:
        d = batch.lengths.astype(np.float64)
        return np.divide(num, d, out=np.zeros(batch.n_queries), where=d > 0)
    return num / batch.k


def psp_reference(ranking: Sequence[str], qrels: Mapping[str, float], k: int | None, *,
                  context: Mapping[str, Any] | None = None, a: float = 0.55, b: float = 1.5, clip: float = 0.0,
                  rel: float = 1.0) -> float:
    hits = _ref_weights(ranking, qrels, k, rel, context, a, b, clip, "psp")
    denom = k if k is not None else len(ranking)
    return sum(w for _, w in hits) / denom if denom else 0.0


_CITE = ("Jain, Prabhu, Varma (2016), Extreme multi-label loss functions for recommendation, tagging, ranking "
         "& other missing label applications, KDD, doi:10.1145/2939672.2939756.")
_CONV = ("Labelled by its name and parameters in every output. N_l = popularity(l) * n_users (training users "
         "who interacted with l), N = n_users; binary labels (grade >= rel); propensities below clip are raised "
         "to clip. A relevant recommended item absent from context['popularity'] is an InputError. ")

register(MetricSpec(
    name="psp",
    family="unbiased",
    summary="Propensity-scored precision at k (Jain et al.): relevant items in the top k weighted by "
            "1/propensity, over k.",
    formula=r"psP@k = \frac{1}{k} \sum_{l \in top_k,\ y_l = 1} \frac{1}{p_l},\quad "
            r"p_l = \frac{1}{1 + C (N_l + B)^{-A}},\ C = (\ln N - 1)(B + 1)^A",
    citation=_CITE,
    convention=_CONV + "Divides by k (by the number retrieved without a cutoff), as Jain et al.'s psP@k.",
    kernel=psp_kernel,
    reference=psp_reference,
    params=(_A, _B, CLIP, REL1),
    aliases={"psprecision": {}},
    examples=(
        UnbiasedExample("psp@1", {"u": ["b", "a"]}, {"u": {"a": 1, "b": 1}}, _CTX,
                        1 + (math.log(100) - 1) * 2.5 ** 0.55 * (1 + 1.5) ** -0.55,
                        note="b seen by 1 of 100 users: 1/p = 1 + C (1 + 1.5)^-0.55"),
        UnbiasedExample("psp@2", {"u": ["c", "x"]}, {"u": {"c": 1}}, _CTX,
                        (1 + (math.log(100) - 1) * 2.5 ** 0.55 * (20 + 1.5) ** -0.55) / 2,
                        note="c seen by 20 users; x not relevant"),
    ),
    bounds=(0.0, float("inf")),
    properties=frozenset({"needs_context", "unbiased", "binary", "k_scaled"}),
))


def psndcg_kernel(batch: Batch, /, a: float, b: float, clip: float, rel: float) -> np.ndarray:
    w, q, rank = _weights(batch, rel, a, b, clip, "psndcg")
    dcg = np.bincount(q, weights=w / np.log2(rank + 1.0), minlength=batch.n_queries)
    ideal = _idcg(batch.n_rel(rel), batch.k)
    return cast(np.ndarray, np.divide(dcg, ideal, out=np.zeros(batch.n_queries), where=ideal > 0))


def psndcg_reference(ranking: Sequence[str], qrels: Mapping[str, float], k: int | None, *,
                     context: Mapping[str, Any] | None = None, a: float = 0.55, b: float = 1.5,
                     clip: float = 0.0, rel: float = 1.0) -> float:
    hits = _ref_weights(ranking, qrels, k, rel, context, a, b, clip, "psndcg")
    n = _nrel(qrels, rel)
    m = n if k is None else min(n, k)
    ideal = sum(1 / math.log2(r + 1) for r in range(1, m + 1))
    return sum(w / math.log2(r + 1) for r, w in hits) / ideal if ideal else 0.0


register(MetricSpec(
    name="psndcg",
    family="unbiased",
    summary="Propensity-scored nDCG at k (Jain et al.): DCG with each relevant item weighted by 1/propensity, "
            "over the unweighted ideal DCG.",
    formula=r"psnDCG@k = \frac{\sum_{l \in top_k, y_l=1} \frac{1}{p_l \log_2(rank_l + 1)}}"
            r"{\sum_{j=1}^{\min(k, \|y\|_0)} 1/\log_2(j+1)}",
    citation=_CITE,
    convention=_CONV + ("Normalised, as in Jain et al.'s definition, by the plain ideal DCG of min(k, number of "
                        "relevant items) (not by the best propensity-scored DCG, which some toolkits use), so "
                        "values may exceed 1."),
    kernel=psndcg_kernel,
    reference=psndcg_reference,
    params=(_A, _B, CLIP, REL1),
    aliases={"ps_ndcg": {}},
    examples=(
        UnbiasedExample("psndcg@2", {"u": ["x", "c"]}, {"u": {"c": 1}}, _CTX,
                        (1 + (math.log(100) - 1) * 2.5 ** 0.55 * (20 + 1.5) ** -0.55) / math.log2(3),
                        note="c at rank 2; one relevant item: ideal DCG 1"),
        UnbiasedExample("psndcg(clip=0.9)@2", {"u": ["x", "c"]}, {"u": {"c": 1}}, _CTX, (1 / 0.9) / math.log2(3),
                        note="c's propensity (~0.48) raised to the clip 0.9"),
    ),
    bounds=(0.0, float("inf")),
    properties=frozenset({"needs_context", "unbiased", "binary"}),
))
