"""Self-normalised inverse propensity scoring (SNIPS) of recall, precision, nDCG and RBP.

IPS (:mod:`~rankmeter.metrics.unbiased.ips`) weights each observed relevant item ``i``
of user ``u`` by ``w_i = 1 / max(p_i, clip)``, but keeps dividing by the *observed*
count ``|S_u|`` of relevant items, which under-counts the relevant items the user has:
its recall is biased upwards and has a high variance. SNIPS self-normalises the weights
(Swaminathan & Joachims 2015): the number of relevant items is estimated by the sum of
the weights of the user's observed relevant items, retrieved or not,
``n_u = sum_{i in S_u} w_i``, and every estimate is divided by the mean weight
``s_u = n_u / |S_u|`` (the IPS estimate of the constant 1) instead of trusting it to be 1:

* ``snips_recall@k = sum_{hits} w_i / n_u`` (the weighted share of the relevant items found);
* ``snips_precision@k = ips_precision@k / s_u``; ``snips_rbp = ips_rbp / s_u``;
* ``snips_ndcg@k = sum_{hits} w_i / log2(rank_i + 1) / IDCG(min(k, n_u))``, the ideal DCG of
  the estimated number of relevant items (a fractional count interpolates linearly
  between whole counts).

The normaliser of ``snips_*`` is **per user** (a sum over the query's own judged
relevant items): a ranking metric is a mean over users of per-user values (Yang et al.
2018 write IPS and SNIPS per user), which keeps per-user values for paired tests and makes
every chunk of a run independent. ``snips_*_corpus`` use **the corpus'** normaliser, one
mean weight ``s = sum_u n_u / sum_u |S_u|`` for all users, as Schnabel et al. (2016)
normalise over the whole matrix: corpus-level metrics whose chunk states (per-user sums,
:class:`SnipsState`) merge across chunks and add up exactly.

Precision and RBP count relevant items found, not a share of them: self-normalised, they
estimate the metric at the scale of the observed judgments (the full-information value
times the user's observed share of relevant items, the same factor for every recommender);
``ips_precision`` and ``ips_rbp`` estimate the full-information value.

Propensities come from the training popularity (Yang et al.'s power law) or from
``context['propensity']``, per item or per (user, item). Every judged relevant item
needs one, retrieved or not (the position-based model gives none to an item that was not
ranked, so it is not offered). References: Swaminathan & Joachims (2015), The
self-normalized estimator for counterfactual learning, NeurIPS; Schnabel et al. (2016),
ICML; Yang et al. (2018), RecSys.

>>> import rankmeter
>>> ctx = {"propensity": {"a": 0.5, "b": 0.25, "c": 1.0}}
>>> r = rankmeter.evaluate({"u": {"a": 1, "b": 1}}, {"u": ["a", "c", "b"]},
...                        ["snips_recall(propensity=given)@2", "ips_recall(propensity=given)@2"], context=ctx)
>>> r.mean   # a found (w 2), b missed (w 4): SNIPS 2 / (2 + 4); IPS 2 / 2 observed
{'snips_recall(propensity=given)@2': 0.3333333333333333, 'ips_recall(propensity=given)@2': 1.0}
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Iterable, Mapping, Sequence, cast

import numpy as np

from ..._errors import InputError, ParameterError
from ..batch import Batch
from ..registry import MetricSpec, Param, register
from ._common import CLIP, EXPONENT, HELP, REL1, UnbiasedExample, item_propensity, ref_propensity
from .ips import _ref_hits, _weighted_rows

__all__ = ["snips", "ideal_dcg", "SnipsState", "merge_states", "corpus_reference"]

PROPENSITY = Param("propensity", str, "popularity",
                   "where propensities come from: the power-law model of training popularity (popularity), or "
                   "context['propensity'] per item or per (user, item) (given)",
                   choices=("popularity", "given"))
_P = (PROPENSITY, EXPONENT, CLIP, REL1)
_PROPS = frozenset({"needs_context", "unbiased", "binary"})

_CTX = {"popularity": {"a": 0.25, "b": 0.04, "c": 1.0, "d": 0.01, "e": 0.16},
        "propensity": {"a": 0.5, "b": 0.25, "c": 1.0, "d": 0.1, "e": 0.2}}
_PAIRS = {"propensity": {("u", "a"): 0.5, ("u", "b"): 0.5, ("u", "e"): 1.0, ("v", "d"): 0.8}}
_RUN = {"u": ["a", "c", "b", "d"], "v": ["c", "d"]}
_QRELS = {"u": {"a": 1, "b": 1, "e": 1}, "v": {"d": 2}}
_LABEL = ("Labelled by its name and parameters in every output: a SNIPS value estimates the metric over all "
          "relevant items (observed or not) with self-normalised weights; it is neither the plain metric nor IPS. ")
_MISSING = ("Every judged relevant item needs a propensity, retrieved or not: one without is an InputError "
            "counting them (with examples); a propensity of 0 after clipping is an InputError naming clip. "
            + HELP + ".")
_NORM = ("The normaliser is per user: n_u = sum of w_i over the user's judged relevant items (grade >= rel), "
         "retrieved or not, s_u = n_u / |S_u|; a user without one gets 0. ")
_CITE = ("Swaminathan & Joachims (2015), The self-normalized estimator for counterfactual learning, NeurIPS; "
         "Yang, Cui, Gao, Xiang, Zhu, Estrin (2018), Unbiased offline recommender evaluation for "
         "missing-not-at-random implicit feedback, RecSys, doi:10.1145/3240323.3240355; Schnabel, Swaminathan, "
         "Singh, Chandak, Joachims (2016), Recommendations as treatments, ICML, arXiv:1602.05352.")


def _normaliser(b: Batch, propensity: str, exponent: float, clip: float, rel: float,
                metric: str) -> tuple[np.ndarray, np.ndarray]:
    """Per query: the sum of the weights of the judged relevant items (n_u) and their number (|S_u|)."""
    if b.qrel_item is None:
        raise ParameterError(f"{metric} needs the judged items' codes (batch.qrel_item), which this batch was "
                             "built without; evaluate it with rankmeter.evaluate or an engine")
    rows, q = b.judged_relevant(rel)
    w = 1.0 / item_propensity(b, q, b.qrel_item[rows], propensity, exponent, clip, metric,
                              what="judged relevant items")
    return (np.bincount(q, weights=w, minlength=b.n_queries),
            np.bincount(q, minlength=b.n_queries).astype(np.float64))


def _parts(b: Batch, propensity: str, exponent: float, clip: float, rel: float,
           metric: str) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The normaliser (n_u, |S_u|) and the weighted relevant rows (weights, queries, ranks) of a batch."""
    n, count = _normaliser(b, propensity, exponent, clip, rel, metric)
    w, q, rank = _weighted_rows(b, rel, propensity, exponent, clip, metric)
    return n, count, w, q, rank


def ideal_dcg(n: np.ndarray, k: int | None) -> np.ndarray:
    """Ideal DCG (binary gains, log2(rank+1) discount) of ``min(k, n)`` relevant items, ``n`` possibly
    fractional: linear between whole counts.

    >>> ideal_dcg(np.array([0.0, 1.0, 1.5, 5.0]), 2).round(4).tolist()
    [0.0, 1.0, 1.3155, 1.6309]
    """
    m = np.asarray(n, dtype=np.float64) if k is None else np.minimum(np.asarray(n, dtype=np.float64), k)
    whole = np.floor(m).astype(np.int64)
    top = int(whole.max()) if len(whole) else 0
    disc = 1.0 / np.log2(np.arange(2, top + 3, dtype=np.float64))
    cum = np.concatenate(([0.0], np.cumsum(disc)))
    return cast(np.ndarray, cum[whole] + (m - whole) * disc[whole])


def _ref_normaliser(qrels: Mapping[str, float], rel: float, context: Mapping[str, Any] | None, propensity: str,
                    exponent: float, clip: float, metric: str, query: str | None) -> tuple[float, int]:
    rel_items = [d for d, g in qrels.items() if g >= rel and g >= 0]
    n = sum(1.0 / ref_propensity(context, d, propensity, exponent, clip, metric, 1, query) for d in rel_items)
    return n, len(rel_items)


# ----------------------------------------------------------------------------- recall

def recall_kernel(b: Batch, propensity: str, exponent: float, clip: float, rel: float) -> np.ndarray:
    n, _, w, q, _r = _parts(b, propensity, exponent, clip, rel, "snips_recall")
    num = np.bincount(q, weights=w, minlength=b.n_queries)
    return cast(np.ndarray, np.divide(num, n, out=np.zeros(b.n_queries), where=n > 0))


def recall_reference(ranking: Sequence[str], qrels: Mapping[str, float], k: int | None, *,
                     context: Mapping[str, Any] | None = None, propensity: str = "popularity",
                     exponent: float = 0.5, clip: float = 0.0, rel: float = 1.0,
                     query: str | None = None) -> float:
    n, _ = _ref_normaliser(qrels, rel, context, propensity, exponent, clip, "snips_recall", query)
    hits = _ref_hits(ranking, qrels, k, rel, context, propensity, exponent, clip, "snips_recall", query)
    return sum(w for _, w in hits) / n if n else 0.0


register(MetricSpec(
    name="snips_recall",
    family="unbiased",
    summary="SNIPS recall at k: the weights (1/propensity) of the relevant items found in the top k, over the "
            "weights of all the user's observed relevant items.",
    formula=r"SNIPS\text{-}R@k(u) = \frac{\sum_{i \in S_u,\ rank_i \le k} w_i}{\sum_{i \in S_u} w_i},"
            r"\quad w_i = \frac{1}{\max(p_{u,i}, c)}",
    citation=_CITE,
    convention=(_LABEL + _NORM + "Equals ips_recall divided by s_u. Propensities: popularity(i)**exponent "
                "(propensity=popularity) or context['propensity'] per item or per (user, item) (propensity=given). "
                + _MISSING),
    kernel=recall_kernel,
    reference=recall_reference,
    params=_P,
    aliases={"snipsrecall": {}},
    examples=(
        UnbiasedExample("snips_recall(propensity=given)@3", {"u": _RUN["u"]}, {"u": _QRELS["u"]}, _CTX,
                        (2 + 4) / (2 + 4 + 5), note="a (w 2) and b (w 4) found; e (w 5) not"),
        UnbiasedExample("snips_recall(propensity=given)@3", _RUN, _QRELS, _PAIRS, ((2 + 2) / 5 + 1.0) / 2,
                        note="per-(user, item) propensities: u finds a, b (w 2 each) of a, b, e (w 1); v its d"),
        UnbiasedExample("snips_recall@2", {"u": _RUN["u"]}, {"u": _QRELS["u"]}, _CTX, 2 / (2 + 5 + 1 / 0.4),
                        note="popularity model p = pop**0.5: a .5, b .2, e .4"),
    ),
    bounds=(0.0, 1.0),
    properties=_PROPS | {"monotone_k"},
))


# ----------------------------------------------------------------------------- precision

def precision_kernel(b: Batch, propensity: str, exponent: float, clip: float, rel: float) -> np.ndarray:
    n, count, w, q, _r = _parts(b, propensity, exponent, clip, rel, "snips_precision")
    num = np.bincount(q, weights=w, minlength=b.n_queries)
    d = (b.lengths.astype(np.float64) if b.k is None else np.full(b.n_queries, float(b.k))) * n
    return cast(np.ndarray, np.divide(num * count, d, out=np.zeros(b.n_queries), where=d > 0))


def precision_reference(ranking: Sequence[str], qrels: Mapping[str, float], k: int | None, *,
                        context: Mapping[str, Any] | None = None, propensity: str = "popularity",
                        exponent: float = 0.5, clip: float = 0.0, rel: float = 1.0,
                        query: str | None = None) -> float:
    n, count = _ref_normaliser(qrels, rel, context, propensity, exponent, clip, "snips_precision", query)
    hits = _ref_hits(ranking, qrels, k, rel, context, propensity, exponent, clip, "snips_precision", query)
    denom = k if k is not None else len(ranking)
    return sum(w for _, w in hits) / denom / (n / count) if denom and n else 0.0


register(MetricSpec(
    name="snips_precision",
    family="unbiased",
    summary="SNIPS precision at k: IPS precision divided by the mean weight of the user's observed relevant items.",
    formula=r"SNIPS\text{-}P@k(u) = \frac{1}{k} \sum_{i \in S_u,\ rank_i \le k} w_i \Big/ "
            r"\frac{1}{|S_u|}\sum_{i \in S_u} w_i",
    citation=_CITE,
    convention=(_LABEL + _NORM + "Precision counts the relevant items found, not a share of the relevant items: "
                "self-normalised, it is on the scale of the observed judgments (the full-information precision "
                "times the observed share of relevant items, which is the same for every recommender), while "
                "ips_precision estimates the full-information precision itself. Divides by k (by the number "
                "retrieved without a cutoff), as p@k. " + _MISSING),
    kernel=precision_kernel,
    reference=precision_reference,
    params=_P,
    aliases={"snipsprecision": {}},
    examples=(
        UnbiasedExample("snips_precision(propensity=given)@4", {"u": _RUN["u"]}, {"u": _QRELS["u"]}, _CTX,
                        (2 + 4) / 4 / ((2 + 4 + 5) / 3), note="ips_precision 6/4 over the mean weight 11/3"),
        UnbiasedExample("snips_precision(propensity=given)@2", _RUN, _QRELS, _PAIRS,
                        (2 / 2 / (5 / 3) + 1.25 / 2 / 1.25) / 2, note="per-(user, item) propensities"),
    ),
    bounds=(0.0, float("inf")),
    properties=_PROPS | {"k_scaled"},
))


# ----------------------------------------------------------------------------- nDCG

def ndcg_kernel(b: Batch, propensity: str, exponent: float, clip: float, rel: float) -> np.ndarray:
    n, _, w, q, rank = _parts(b, propensity, exponent, clip, rel, "snips_ndcg")
    dcg = np.bincount(q, weights=w / np.log2(rank + 1.0), minlength=b.n_queries)
    ideal = ideal_dcg(n, b.k)
    return cast(np.ndarray, np.divide(dcg, ideal, out=np.zeros(b.n_queries), where=ideal > 0))


def ndcg_reference(ranking: Sequence[str], qrels: Mapping[str, float], k: int | None, *,
                   context: Mapping[str, Any] | None = None, propensity: str = "popularity",
                   exponent: float = 0.5, clip: float = 0.0, rel: float = 1.0,
                   query: str | None = None) -> float:
    n, _ = _ref_normaliser(qrels, rel, context, propensity, exponent, clip, "snips_ndcg", query)
    hits = _ref_hits(ranking, qrels, k, rel, context, propensity, exponent, clip, "snips_ndcg", query)
    ideal = _ideal(n, k)
    return sum(w / math.log2(r + 1) for r, w in hits) / ideal if ideal else 0.0


register(MetricSpec(
    name="snips_ndcg",
    family="unbiased",
    summary="SNIPS nDCG at k (binary gains): the IPS-weighted DCG over the ideal DCG of the estimated number of "
            "relevant items (the sum of the weights).",
    formula=r"SNIPS\text{-}nDCG@k(u) = \frac{\sum_{i \in S_u, rank_i \le k} w_i / \log_2(rank_i+1)}"
            r"{IDCG(\min(k, \sum_{i \in S_u} w_i))}",
    citation=_CITE + " Järvelin & Kekäläinen (2002), TOIS.",
    convention=(_LABEL + _NORM + "The ideal DCG is that of min(k, n_u) relevant items; a fractional count "
                "adds its fraction of the next rank's discount (linear between whole counts). Binary gains "
                "(grade >= rel), log2(rank+1) discount; values may exceed 1. " + _MISSING),
    kernel=ndcg_kernel,
    reference=ndcg_reference,
    params=_P,
    aliases={"snipsndcg": {}},
    examples=(
        UnbiasedExample("snips_ndcg(propensity=given)@3", {"u": _RUN["u"]}, {"u": _QRELS["u"]}, _CTX,
                        (2 / 1 + 4 / 2) / (1 + 1 / math.log2(3) + 1 / 2),
                        note="a at rank 1 (w 2), b at rank 3 (w 4); n = 11 relevant estimated, cut at 3"),
        UnbiasedExample("snips_ndcg(propensity=given)@5", {"v": _RUN["v"]}, {"v": _QRELS["v"]}, _PAIRS,
                        (1.25 / math.log2(3)) / (1 + 0.25 / math.log2(3)),
                        note="d (p .8 for v, w 1.25) at rank 2; ideal DCG of 1.25 items: 1 + .25 / log2(3)"),
    ),
    bounds=(0.0, float("inf")),
    properties=_PROPS,
))


# ----------------------------------------------------------------------------- RBP

def rbp_kernel(b: Batch, p: float, propensity: str, exponent: float, clip: float, rel: float) -> np.ndarray:
    n, count, w, q, rank = _parts(b, propensity, exponent, clip, rel, "snips_rbp")
    num = (1 - p) * np.bincount(q, weights=w * np.power(p, rank - 1.0), minlength=b.n_queries)
    return cast(np.ndarray, np.divide(num * count, n, out=np.zeros(b.n_queries), where=n > 0))


def rbp_reference(ranking: Sequence[str], qrels: Mapping[str, float], k: int | None, *,
                  context: Mapping[str, Any] | None = None, p: float = 0.8, propensity: str = "popularity",
                  exponent: float = 0.5, clip: float = 0.0, rel: float = 1.0, query: str | None = None) -> float:
    n, count = _ref_normaliser(qrels, rel, context, propensity, exponent, clip, "snips_rbp", query)
    hits = _ref_hits(ranking, qrels, k, rel, context, propensity, exponent, clip, "snips_rbp", query)
    return (1 - p) * sum(w * p ** (r - 1) for r, w in hits) / (n / count) if n else 0.0


register(MetricSpec(
    name="snips_rbp",
    family="unbiased",
    summary="SNIPS rank-biased precision: IPS RBP divided by the mean weight of the user's observed relevant items.",
    formula=r"SNIPS\text{-}RBP(u) = (1-p) \sum_{i \in S_u} w_i\, p^{rank_i - 1} \Big/ "
            r"\frac{1}{|S_u|}\sum_{i \in S_u} w_i",
    citation=_CITE + " Moffat & Zobel (2008), Rank-biased precision, TOIS 27(1).",
    convention=(_LABEL + _NORM + "Like precision, RBP counts relevant items found: self-normalised, it is on the "
                "scale of the observed judgments (ips_rbp estimates the full-information value). p is the "
                "persistence (0.8 by default); binary gains; no residual. " + _MISSING),
    kernel=rbp_kernel,
    reference=rbp_reference,
    params=(Param("p", float, 0.8, "persistence", low=0, high=1, low_open=True, high_open=True),) + _P,
    aliases={"snipsrbp": {}},
    examples=(
        UnbiasedExample("snips_rbp(propensity=given)", {"u": _RUN["u"]}, {"u": _QRELS["u"]}, _CTX,
                        0.2 * (2 + 4 * 0.8 ** 2) / (11 / 3), note="ips_rbp over the mean weight 11/3"),
        UnbiasedExample("snips_rbp(propensity=given,p=0.5)@2", _RUN, _QRELS, _PAIRS,
                        (0.5 * 2 / (5 / 3) + 0.5 * 1.25 * 0.5 / 1.25) / 2, note="per-(user, item) propensities"),
    ),
    bounds=(0.0, float("inf")),
    properties=_PROPS | {"monotone_k"},
))


_CORPUS_EXAMPLE2 = {  # one user (u, top 2: a at rank 1, w 2): the corpus' s is u's own, 11 / 3
    "recall": 2 / 11, "precision": 2 / 2 / (11 / 3), "ndcg": 2 / (1 + 1 / math.log2(3)),
    "rbp": 0.5 * 2 / (11 / 3)}


# ----------------------------------------------------------------------------- corpus normaliser

@dataclass(frozen=True)
class SnipsState:
    """What a chunk of users contributes to a corpus-normalised SNIPS value: per user, the IPS value (the
    weighted DCG for nDCG), the number of observed relevant items and the sum of their weights.

    States merge by concatenation; :func:`math.fsum` (exactly rounded) then adds them up, so
    the value does not depend on how the users were cut into chunks, nor on their order.
    """

    k: int | None
    value: np.ndarray
    count: np.ndarray
    weight: np.ndarray


def merge_states(a: SnipsState, b: SnipsState) -> SnipsState:
    """Two chunks' states as one (the users of both).

    >>> one = SnipsState(5, np.array([0.5]), np.array([2.0]), np.array([3.0]))
    >>> merge_states(one, one).count.tolist()
    [2.0, 2.0]
    """
    if a.k != b.k:
        raise ValueError("SNIPS states of different cutoffs")
    return SnipsState(a.k, np.concatenate((a.value, b.value)), np.concatenate((a.count, b.count)),
                      np.concatenate((a.weight, b.weight)))


def _corpus_scale(state: SnipsState) -> float | None:
    """The corpus' mean weight s = sum of weights / number of observed relevant items (None: no user, nan)."""
    total = math.fsum(state.count.tolist())
    return math.fsum(state.weight.tolist()) / total if total > 0 else None


def _finalize_scaled(state: SnipsState, *, context: Mapping[str, Any], **params: Any) -> float:
    if not len(state.value):
        return float("nan")
    s = _corpus_scale(state)
    return math.fsum(state.value.tolist()) / len(state.value) / s if s else 0.0


def _finalize_ndcg(state: SnipsState, *, context: Mapping[str, Any], **params: Any) -> float:
    if not len(state.value):
        return float("nan")
    s = _corpus_scale(state)
    if not s:
        return 0.0
    ideal = ideal_dcg(state.count * s, state.k)
    per_user = np.divide(state.value, ideal, out=np.zeros(len(ideal)), where=ideal > 0)
    return math.fsum(per_user.tolist()) / len(per_user)


def _state(b: Batch, value: np.ndarray, count: np.ndarray, weight: np.ndarray) -> SnipsState:
    return SnipsState(b.k, np.asarray(value, dtype=np.float64), count, weight)


def corpus_recall_kernel(b: Batch, propensity: str, exponent: float, clip: float, rel: float) -> SnipsState:
    n, count, w, q, _r = _parts(b, propensity, exponent, clip, rel, "snips_recall_corpus")
    hits = np.bincount(q, weights=w, minlength=b.n_queries)
    return _state(b, np.divide(hits, count, out=np.zeros(b.n_queries), where=count > 0), count, n)


def corpus_precision_kernel(b: Batch, propensity: str, exponent: float, clip: float, rel: float) -> SnipsState:
    n, count, w, q, _r = _parts(b, propensity, exponent, clip, rel, "snips_precision_corpus")
    hits = np.bincount(q, weights=w, minlength=b.n_queries)
    d = b.lengths.astype(np.float64) if b.k is None else np.full(b.n_queries, float(b.k))
    return _state(b, np.divide(hits, d, out=np.zeros(b.n_queries), where=d > 0), count, n)


def corpus_ndcg_kernel(b: Batch, propensity: str, exponent: float, clip: float, rel: float) -> SnipsState:
    n, count, w, q, rank = _parts(b, propensity, exponent, clip, rel, "snips_ndcg_corpus")
    return _state(b, np.bincount(q, weights=w / np.log2(rank + 1.0), minlength=b.n_queries), count, n)


def corpus_rbp_kernel(b: Batch, p: float, propensity: str, exponent: float, clip: float, rel: float) -> SnipsState:
    n, count, w, q, rank = _parts(b, propensity, exponent, clip, rel, "snips_rbp_corpus")
    return _state(b, (1 - p) * np.bincount(q, weights=w * np.power(p, rank - 1.0), minlength=b.n_queries), count, n)


def corpus_reference(measure: str, rankings: Mapping[str, Sequence[str]], qrels: Mapping[str, Mapping[str, float]],
                     k: int | None, *, context: Mapping[str, Any] | None = None, propensity: str = "popularity",
                     exponent: float = 0.5, clip: float = 0.0, rel: float = 1.0, p: float = 0.8) -> float:
    """Slow reference of ``snips_<measure>_corpus`` over users' rankings (user -> ranked items) and
    judgments (user -> item -> grade), every user of ``qrels`` counted, read from the formula."""
    metric = f"snips_{measure}_corpus"
    values, counts, weights = [], [], []
    for user, judged in qrels.items():
        ranking = list(rankings.get(user, []))
        hits = _ref_hits(ranking, judged, k, rel, context, propensity, exponent, clip, metric, user)
        n, count = _ref_normaliser(judged, rel, context, propensity, exponent, clip, metric, user)
        if measure == "recall":
            values.append(sum(w for _, w in hits) / count if count else 0.0)
        elif measure == "precision":
            denom = k if k is not None else len(ranking)
            values.append(sum(w for _, w in hits) / denom if denom else 0.0)
        elif measure == "ndcg":
            values.append(sum(w / math.log2(r + 1) for r, w in hits))
        else:
            values.append((1 - p) * sum(w * p ** (r - 1) for r, w in hits))
        counts.append(count)
        weights.append(n)
    if not values:
        return float("nan")
    if not sum(counts):
        return 0.0
    s = sum(weights) / sum(counts)
    if measure != "ndcg":
        return sum(values) / len(values) / s
    out = []
    for v, c in zip(values, counts, strict=True):
        ideal = _ideal(c * s, k)
        out.append(v / ideal if ideal else 0.0)
    return sum(out) / len(out)


_CORPUS_NORM = ("The normaliser is the corpus': s = (sum over every evaluated user of the weights of their judged "
                "relevant items) / (the number of those items), Schnabel et al.'s global self-normalisation, one "
                "mean weight for all users instead of each user's own (snips_* without _corpus). One value for "
                "all users (no per-user values); chunk states hold per-user sums and merge exactly (math.fsum), "
                "so every engine gives the same value. ")
_CORPUS = (
    ("recall", corpus_recall_kernel, _finalize_scaled,
     "SNIPS recall at k with the corpus' normaliser: the mean IPS recall over the corpus' mean weight.",
     r"SNIPS_c\text{-}R@k = \frac{1}{s}\,\frac{1}{|U|}\sum_u \frac{1}{|S_u|}\sum_{i \in S_u, rank_i \le k} w_i,"
     r"\quad s = \frac{\sum_u \sum_{i \in S_u} w_i}{\sum_u |S_u|}",
     (2 / 3 + 0.0) / 2 / ((2 + 4 + 5 + 10) / 4),
     "u finds a, b (w 2, 4) of a, b, e (w 5); v (d, w 10) finds nothing in its top 1; s = 21 / 4"),
    ("precision", corpus_precision_kernel, _finalize_scaled,
     "SNIPS precision at k with the corpus' normaliser: the mean IPS precision over the corpus' mean weight.",
     r"SNIPS_c\text{-}P@k = \frac{1}{s}\,\frac{1}{|U|}\sum_u \frac{1}{k}\sum_{i \in S_u, rank_i \le k} w_i",
     (2 / 1 + 0.0) / 2 / (21 / 4), "u: a (w 2) at rank 1; v: c, not relevant; s = 21 / 4"),
    ("ndcg", corpus_ndcg_kernel, _finalize_ndcg,
     "SNIPS nDCG at k with the corpus' normaliser: the IPS-weighted DCG over the ideal DCG of |S_u| s items.",
     r"SNIPS_c\text{-}nDCG@k = \frac{1}{|U|}\sum_u \frac{\sum_{i \in S_u, rank_i \le k} w_i / \log_2(rank_i+1)}"
     r"{IDCG(\min(k, |S_u|\, s))}",
     (2 / 1 / 1.0 + 0.0) / 2, "top 1: u's a (w 2) over the ideal DCG of min(1, 3 s) = 1 item; v nothing"),
    ("rbp", corpus_rbp_kernel, _finalize_scaled,
     "SNIPS rank-biased precision with the corpus' normaliser: the mean IPS RBP over the corpus' mean weight.",
     r"SNIPS_c\text{-}RBP = \frac{1}{s}\,\frac{1}{|U|}\sum_u (1-p) \sum_{i \in S_u} w_i\, p^{rank_i-1}",
     (0.5 * 2 + 0.0) / 2 / (21 / 4), "p = 0.5, top 1: u's a (w 2); v nothing"),
)

for _measure, _kernel, _final, _summary, _formula, _value, _note in _CORPUS:
    _text = f"snips_{_measure}_corpus(propensity=given" + (",p=0.5)@1" if _measure == "rbp" else ")@1")
    register(MetricSpec(
        name=f"snips_{_measure}_corpus",
        family="unbiased",
        summary=_summary,
        formula=_formula,
        citation=_CITE,
        convention=(_LABEL + _CORPUS_NORM + f"Otherwise as snips_{_measure}. " + _MISSING),
        kernel=_kernel,
        params=((Param("p", float, 0.8, "persistence", low=0, high=1, low_open=True, high_open=True),) + _P
                if _measure == "rbp" else _P),
        aliases={f"snips{_measure}corpus": {}},
        examples=(
            UnbiasedExample(_text, _RUN, _QRELS, _CTX, _value, note=_note),
            UnbiasedExample(_text.replace("@1", "@2"), {"u": _RUN["u"]}, {"u": _QRELS["u"]}, _CTX,
                            float(_CORPUS_EXAMPLE2[_measure]), note="one user: the corpus normaliser is the user's"),
        ),
        bounds=(0.0, float("inf")),
        properties=_PROPS | {"corpus"},
        level="corpus",
        merge=merge_states,
        finalize=_final,
    ))


# ----------------------------------------------------------------------------- from mappings

def snips(relevant: Mapping[Any, Iterable[Any]], run: Mapping[Any, Sequence[Any]], propensity: Mapping[Any, float],
          metric: str = "recall@10", estimator: str = "snips", clip: float = 0.0) -> dict[Any, float]:
    """Per-user SNIPS (or IPS, or plain) estimate of ``recall@k`` or ``ndcg@k`` from plain mappings.

    ``relevant``: user -> observed relevant items; ``run``: user -> ranked items;
    ``propensity``: item -> p. Users of ``relevant`` with at least one relevant item, in its
    order (a user missing from ``run`` has an empty list). ``estimator="snips"`` gives the
    registry's ``snips_recall`` / ``snips_ndcg`` (``propensity=given``), ``"ips"`` its
    ``ips_recall`` / ``ips_ndcg``, ``"plain"`` the unweighted metric.

    >>> est = snips({"u": {"a", "b"}}, {"u": ["a", "c", "b"]}, {"a": 0.5, "b": 0.25, "c": 1.0}, "recall@2")
    >>> est["u"]   # a found (w 2), b missed (w 4)
    0.3333333333333333
    """
    name, _, cut = metric.partition("@")
    if name not in ("recall", "ndcg") or not cut.isdigit() or int(cut) < 1:
        raise ParameterError(f"The 'metric' parameter of snips must be recall@k or ndcg@k. Got {metric!r} instead.")
    if estimator not in ("snips", "ips", "plain"):
        raise ParameterError(f"The 'estimator' parameter of snips must be snips, ips or plain. Got {estimator!r}.")
    if not 0.0 <= clip <= 1.0:
        raise ParameterError(f"The 'clip' parameter of snips must be in [0, 1]. Got {clip!r} instead.")
    k = int(cut)
    out: dict[Any, float] = {}
    for user, items in relevant.items():
        rel = set(items)
        if not rel:
            continue
        w: dict[Any, float] = {}
        for i in rel:
            if estimator == "plain":
                w[i] = 1.0
                continue
            if i not in propensity:
                raise InputError(f"snips: relevant item {i!r} of user {user!r} has no propensity", source="propensity")
            p = max(float(propensity[i]), clip)
            if p <= 0:
                raise InputError(f"snips: relevant item {i!r} has propensity 0; set clip > 0", source="propensity")
            w[i] = 1.0 / p
        top = list(run.get(user, ()))[:k]
        total = sum(w.values())
        scale = len(rel) / total if estimator == "snips" else 1.0
        if name == "recall":
            out[user] = sum(w[i] for i in top if i in rel) * scale / len(rel)
        else:
            dcg = sum(w[i] / math.log2(r + 2) for r, i in enumerate(top) if i in rel)
            # snips: the number of relevant items is estimated by the sum of the weights (the weighted
            # DCG over the ideal DCG of that many items); ips and plain: the observed count
            n_rel = total if estimator == "snips" else float(len(rel))
            ideal = _ideal(n_rel, k)
            out[user] = dcg / ideal
    return out


def _ideal(n: float, k: int | None) -> float:
    """Ideal DCG of ``n`` relevant items at cut-off ``k``; a fractional ``n`` interpolates linearly."""
    m = float(n) if k is None else min(float(n), float(k))
    whole = int(math.floor(m))
    value = sum(1 / math.log2(j + 2) for j in range(whole))
    if m > whole:
        value += (m - whole) / math.log2(whole + 2)
    return value
