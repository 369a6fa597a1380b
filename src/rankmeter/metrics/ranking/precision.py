"""Set-based measures of a ranked list: precision, recall, F, hits, success, counts, R-precision."""

from __future__ import annotations

from typing import Mapping, Sequence, cast

import numpy as np

from ..batch import Batch
from ..registry import Example, MetricSpec, Param, TrecName, register
from ..ties import TieView, hypergeom_none
from ._common import REL, is_rel, n_relevant, top

_H = ("ranking", "binary")

# Apache Hivemall's documentation: rec = [1, 3, 2, 6], truth = {1, 2, 4}
_HIVEMALL_REC = ("1", "3", "2", "6")
_HIVEMALL_TRUTH = {"1": 1.0, "2": 1.0, "4": 1.0}
# The ranking-metrics guide: 7 documents A..G, relevant A, C, F, G; top 5 holds A, C, G.
_S3_RANK = ("A", "B", "C", "D", "G", "E", "F")
_S3_REL = {"A": 1.0, "C": 1.0, "F": 1.0, "G": 1.0}


# Tie rules (rankmeter.metrics.ties): every metric here is monotone in the grade at each position
_ORDERED = frozenset({"optimistic", "pessimistic"})
_ALL_TIES = frozenset({"average", "optimistic", "pessimistic"})


def _hits(b: Batch, rel: float) -> np.ndarray:
    _rows, query, _rank = b.relevant_rows(rel)
    return np.bincount(query, minlength=b.n_queries).astype(np.float64)


def _safe_div(a: np.ndarray, d: np.ndarray) -> np.ndarray:
    d = np.asarray(d, dtype=np.float64)
    return cast(np.ndarray, np.divide(a, d, out=np.zeros(np.broadcast(a, d).shape), where=d > 0))


MEAN = Param("mean", str, "queries", "how the per-query values combine: the mean over queries (queries), or the "
             "pooled ratio sum of numerators / sum of denominators (pooled: implicit's precision_at_k)",
             choices=("queries", "pooled"))


def _p_denominator(b: Batch, rel: float, norm: str) -> np.ndarray:
    """Per query, what precision divides its hits by."""
    if norm == "min":  # min(k, R): R-capped precision (implicit's precision_at_k per user)
        nrel = b.n_rel(rel)
        return (nrel if b.k is None else np.minimum(nrel, b.k)).astype(np.float64)
    if b.k is None or norm == "retrieved":
        return b.lengths.astype(np.float64)
    return np.full(b.n_queries, float(b.k))


def _precision(b: Batch, rel: float, norm: str) -> np.ndarray:
    hits = _hits(b, rel)
    if b.k is None or norm in ("retrieved", "min"):
        return _safe_div(hits, _p_denominator(b, rel, norm))
    return hits / b.k


def p_kernel(b: Batch, rel: float, norm: str, mean: str = "queries") -> np.ndarray:
    return _precision(b, rel, norm)


def p_weight(b: Batch, rel: float, norm: str, mean: str = "queries") -> np.ndarray:
    """``mean=pooled``: each query weighs its precision by its denominator, so the mean is sum of hits
    over sum of denominators."""
    return _p_denominator(b, rel, norm)


def _e_hits(v: TieView, rel: float) -> np.ndarray:
    """Expected hits within the cutoff under ``ties="average"``: each position holds, on average, its
    tied group's share of relevant items (McSherry and Najork 2008, eq. for precision at k)."""
    return v.expected_sum(v.full.relevant(rel))


def _e_precision(v: TieView, rel: float, norm: str) -> np.ndarray:
    h, b = _e_hits(v, rel), v.b
    if b.k is None or norm in ("retrieved", "min"):
        return _safe_div(h, _p_denominator(b, rel, norm))
    return h / b.k


def p_average(v: TieView, rel: float, norm: str, mean: str = "queries") -> np.ndarray:
    """E[P@k] = E[hits@k] / k (McSherry and Najork 2008, section 3: precision at k)."""
    return _e_precision(v, rel, norm)


def p_reference(ranking: Sequence[str], qrels: Mapping[str, float], k: int | None, rel: float, norm: str,
                mean: str = "queries") -> float:
    kept = top(ranking, k)
    hits = sum(is_rel(qrels, d, rel) for d in kept)
    if norm == "min":
        nrel = n_relevant(qrels, rel)
        denom = nrel if k is None else min(k, nrel)
    else:
        denom = len(kept) if (k is None or norm == "retrieved") else k
    return hits / denom if denom else 0.0


register(
    MetricSpec(
        name="p",
        unjudged_bounds=True,
        family="ranking",
        reads_items=False,
        summary="Precision at k: share of the top k that is relevant.",
        formula=r"P@k = |\{i \le k : rel_i \ge rel\}| / k",
        citation="trec_eval's P; Manning, Raghavan & Schütze, Introduction to IR (2008), ch. 8.",
        convention=(
            "Divides by k even when fewer than k items were retrieved (trec_eval). "
            "norm=retrieved divides by the number retrieved within k (Hivemall's precision); norm=min by "
            "min(k, relevant items) (implicit's per-user precision_at_k). mean=pooled gives the ratio of the "
            "sums over queries, sum of hits / sum of denominators, instead of the mean of the ratios "
            "(implicit/evaluation.pyx precision_at_k). "
            "Without a cutoff: relevant retrieved / retrieved."
        ),
        kernel=p_kernel,
        ties=_ALL_TIES, tie_average=p_average,
        reference=p_reference,
        params=(REL, Param("norm", str, "k", "denominator: k, retrieved, or min(k, relevant items) (implicit)",
                           choices=("k", "retrieved", "min")), MEAN),
        pooled_weight=p_weight,
        aliases={"precision": {}, "set_p": {"norm": "retrieved"}},
        examples=(
            Example(_HIVEMALL_REC, _HIVEMALL_TRUTH, 0.5, k=None, note="Hivemall, top-4 (max_k)"),
            Example(_HIVEMALL_REC, _HIVEMALL_TRUTH, 0.5, k=2, note="Hivemall, top-2"),
            Example(_S3_RANK, _S3_REL, 3 / 5, k=5, note="ranking-metrics guide: precision@5 = 3/5"),
            Example(("a",), {"a": 1.0}, 0.1, k=10, note="divides by k, like trec_eval"),
            Example(("a",), {"a": 1.0}, 1.0, k=10, params={"norm": "retrieved"}),
            Example(("a", "x", "b"), {"a": 1.0, "b": 1.0}, 2 / 2, k=3, params={"norm": "min"},
                    note="implicit: 2 hits over min(3, 2 relevant)"),
        ),
        properties=frozenset(set(_H) | {"k_scaled"}),
        trec_names=(TrecName("P", cutoff=True), TrecName("set_P", {"norm": "retrieved"})),
        sql_name="precision",
        sql_aliases=("precision_at",),
    )
)


def r_kernel(b: Batch, rel: float, mean: str = "queries") -> np.ndarray:
    return _safe_div(_hits(b, rel), b.n_rel(rel))


def r_weight(b: Batch, rel: float, mean: str = "queries") -> np.ndarray:
    """``mean=pooled``: the number of relevant items (sum of hits over sum of relevant items)."""
    return b.n_rel(rel).astype(np.float64)


def r_average(v: TieView, rel: float, mean: str = "queries") -> np.ndarray:
    """E[R@k] = E[hits@k] / R (McSherry and Najork 2008, section 3: recall at k)."""
    return _safe_div(_e_hits(v, rel), v.b.n_rel(rel))


def r_reference(ranking: Sequence[str], qrels: Mapping[str, float], k: int | None, rel: float,
                mean: str = "queries") -> float:
    nrel = n_relevant(qrels, rel)
    return sum(is_rel(qrels, d, rel) for d in top(ranking, k)) / nrel if nrel else 0.0


register(
    MetricSpec(
        name="r",
        unjudged_bounds=True,
        family="ranking",
        reads_items=False,
        summary="Recall at k: share of all relevant items found in the top k.",
        formula=r"R@k = |\{i \le k : rel_i \ge rel\}| / |\{d : rel_d \ge rel\}|",
        citation="trec_eval's recall; Apache Hivemall's Recall@k.",
        convention="0 for a query without relevant items.",
        kernel=r_kernel,
        ties=_ALL_TIES, tie_average=r_average,
        reference=r_reference,
        params=(REL, MEAN),
        pooled_weight=r_weight,
        aliases={"recall": {}},
        examples=(
            Example(_HIVEMALL_REC, _HIVEMALL_TRUTH, 2 / 3, note="Hivemall, top-4"),
            Example(_HIVEMALL_REC, _HIVEMALL_TRUTH, 1 / 3, k=2, note="Hivemall, top-2"),
            Example(_S3_RANK, _S3_REL, 3 / 4, k=5, note="ranking-metrics guide: recall@5 = 3/4"),
        ),
        properties=frozenset(set(_H) | {"monotone_k"}),
        trec_names=(TrecName("recall", cutoff=True), TrecName("set_recall")),
        sql_name="recall",
        sql_aliases=("recall_at",),
    )
)


def f_kernel(b: Batch, rel: float, beta: float) -> np.ndarray:
    p = _precision(b, rel, "k")
    r = r_kernel(b, rel)
    b2 = beta * beta
    return _safe_div((1 + b2) * p * r, b2 * p + r)


def f_average(v: TieView, rel: float, beta: float) -> np.ndarray:
    """E[F@k]: F = (1 + beta^2) hits / (beta^2 R + k) is linear in hits, so its expectation is F of the
    expected hits (McSherry and Najork 2008, section 3: F-measure)."""
    p = _e_precision(v, rel, "k")
    r = r_average(v, rel)
    b2 = beta * beta
    return _safe_div((1 + b2) * p * r, b2 * p + r)


def f_reference(ranking: Sequence[str], qrels: Mapping[str, float], k: int | None, rel: float, beta: float) -> float:
    p = p_reference(ranking, qrels, k, rel, "k")
    r = r_reference(ranking, qrels, k, rel)
    b2 = beta * beta
    return (1 + b2) * p * r / (b2 * p + r) if (b2 * p + r) > 0 else 0.0


register(
    MetricSpec(
        name="f",
        unjudged_bounds=True,
        family="ranking",
        reads_items=False,
        summary="F-measure at k: weighted harmonic mean of P@k and R@k.",
        formula=r"F_\beta@k = (1+\beta^2) P R / (\beta^2 P + R)",
        citation="van Rijsbergen, Information Retrieval (1979); python-recsys.",
        convention="Uses P@k (divides by k) and R@k; 0 when both are 0. f1 is beta=1.",
        kernel=f_kernel,
        ties=_ALL_TIES, tie_average=f_average,
        reference=f_reference,
        params=(REL, Param("beta", float, 1.0, "weight of recall", low=0, high=1e150, low_open=True, high_open=True)),
        aliases={"f1": {"beta": 1.0}, "f_measure": {}},
        examples=(
            Example(("classical", "invented", "baroque", "instrumental"),
                    {"classical": 1, "instrumental": 1, "piano": 1, "baroque": 1}, 0.75, k=4,
                    note="python-recsys: P = R = F1 = 0.75"),
            Example(_HIVEMALL_REC, _HIVEMALL_TRUTH, 2 * 0.5 * (1 / 3) / (0.5 + 1 / 3), k=2),
        ),
        properties=frozenset(set(_H) | {"k_scaled"}),
    )
)


def hits_kernel(b: Batch, rel: float) -> np.ndarray:
    return _hits(b, rel)


def hits_average(v: TieView, rel: float) -> np.ndarray:
    """E[hits@k] (linearity of expectation, as for precision in McSherry and Najork 2008)."""
    return _e_hits(v, rel)


def hits_reference(ranking: Sequence[str], qrels: Mapping[str, float], k: int | None, rel: float) -> float:
    return float(sum(is_rel(qrels, d, rel) for d in top(ranking, k)))


register(
    MetricSpec(
        name="hits",
        unjudged_bounds=True,
        family="ranking",
        reads_items=False,
        summary="Number of relevant items in the top k.",
        formula=r"hits@k = |\{i \le k : rel_i \ge rel\}|",
        citation="ranx hits.",
        kernel=hits_kernel,
        ties=_ALL_TIES, tie_average=hits_average,
        reference=hits_reference,
        params=(REL,),
        aliases={},
        bounds=(0.0, np.inf),
        examples=(Example(_HIVEMALL_REC, _HIVEMALL_TRUTH, 2.0), Example(_HIVEMALL_REC, _HIVEMALL_TRUTH, 1.0, k=2)),
        properties=frozenset(set(_H) | {"count", "monotone_k"}),
        count=True,
    )
)


register(
    MetricSpec(
        name="num_rel_ret",
        family="ranking",
        reads_items=False,
        summary="Number of relevant items retrieved (trec_eval's num_rel_ret); hits without a cutoff.",
        formula=r"num\_rel\_ret = |\{i : rel_i \ge rel\}|",
        citation="trec_eval num_rel_ret.",
        kernel=hits_kernel,
        ties=_ALL_TIES, tie_average=hits_average,
        reference=hits_reference,
        params=(REL,),
        bounds=(0.0, np.inf),
        examples=(Example(_HIVEMALL_REC, _HIVEMALL_TRUTH, 2.0),),
        properties=frozenset(set(_H) | {"count", "monotone_k"}),
        trec_name="num_rel_ret",
        count=True,
    )
)


def success_kernel(b: Batch, rel: float) -> np.ndarray:
    return (_hits(b, rel) > 0).astype(np.float64)


def success_average(v: TieView, rel: float) -> np.ndarray:
    """E[success@k] = 1 - P(no relevant item in the top k): of each tied group the cutoff keeps m of
    its n positions, and m rows drawn from n holding r relevant miss them all with probability
    C(n - r, m) / C(n, m) (hypergeometric; the groups' orders are independent).
    Derived here in the manner of McSherry and Najork (2008), who treat precision, recall, F,
    AP, RR and DCG."""
    g = v.groups
    none = hypergeom_none(g.size, g.count(v.full.relevant(rel)).astype(np.int64), v.group_top())
    miss = np.ones(v.n_queries)
    np.multiply.at(miss, g.query, none)
    return 1.0 - miss


def success_reference(ranking: Sequence[str], qrels: Mapping[str, float], k: int | None, rel: float) -> float:
    return 1.0 if any(is_rel(qrels, d, rel) for d in top(ranking, k)) else 0.0


register(
    MetricSpec(
        name="success",
        unjudged_bounds=True,
        family="ranking",
        reads_items=False,
        summary="Success at k (hit rate): 1 if any of the top k is relevant, else 0.",
        formula=r"success@k = [\exists i \le k : rel_i \ge rel]",
        citation="trec_eval success; ranx hit_rate.",
        kernel=success_kernel,
        ties=_ALL_TIES, tie_average=success_average,
        reference=success_reference,
        params=(REL,),
        aliases={"hit_rate": {}, "hitrate": {}},
        examples=(Example(_HIVEMALL_REC, _HIVEMALL_TRUTH, 1.0, k=1), Example(("3", "6"), _HIVEMALL_TRUTH, 0.0, k=2)),
        properties=frozenset(set(_H) | {"monotone_k"}),
        trec_names=(TrecName("success", cutoff=True),),
        sql_name="hit_rate",
        sql_aliases=("hitrate",),
    )
)


def num_ret_kernel(b: Batch) -> np.ndarray:
    return b.lengths.astype(np.float64)


def num_ret_reference(ranking: Sequence[str], qrels: Mapping[str, float], k: int | None) -> float:
    return float(len(top(ranking, k)))


register(
    MetricSpec(
        name="num_ret",
        family="ranking",
        reads_items=False,
        summary="Number of items retrieved (within the cutoff).",
        formula=r"num\_ret = |ranking|",
        citation="trec_eval num_ret.",
        kernel=num_ret_kernel,
        reference=num_ret_reference,
        bounds=(0.0, np.inf),
        examples=(Example(_HIVEMALL_REC, _HIVEMALL_TRUTH, 4.0), Example(_HIVEMALL_REC, _HIVEMALL_TRUTH, 2.0, k=2)),
        properties=frozenset({"ranking", "count", "monotone_k", "judgment_free"}),
        trec_name="num_ret",
        count=True,
    )
)


def num_rel_kernel(b: Batch, rel: float) -> np.ndarray:
    return b.n_rel(rel).astype(np.float64)


def num_rel_reference(ranking: Sequence[str], qrels: Mapping[str, float], k: int | None, rel: float) -> float:
    return float(n_relevant(qrels, rel))


register(
    MetricSpec(
        name="num_rel",
        family="ranking",
        reads_items=False,
        summary="Number of relevant items judged for the query (whatever was retrieved).",
        formula=r"num\_rel = |\{d : rel_d \ge rel\}|",
        citation="trec_eval num_rel.",
        kernel=num_rel_kernel,
        reference=num_rel_reference,
        params=(REL,),
        cutoff=False,
        bounds=(0.0, np.inf),
        examples=(Example(_HIVEMALL_REC, _HIVEMALL_TRUTH, 3.0),),
        properties=frozenset({"ranking", "binary", "count", "ranking_free"}),
        trec_name="num_rel",
        count=True,
    )
)


def num_nonrel_judged_ret_kernel(b: Batch, rel: float) -> np.ndarray:
    return b.seg_sum(b.judged & (b.grade >= 0) & (b.grade < rel)).astype(np.float64)


def num_nonrel_judged_ret_reference(ranking: Sequence[str], qrels: Mapping[str, float], k: int | None,
                                    rel: float) -> float:
    return float(sum(1 for d in top(ranking, k) if d in qrels and 0 <= qrels[d] < rel))


register(
    MetricSpec(
        name="num_nonrel_judged_ret",
        family="ranking",
        reads_items=False,
        summary="Number of retrieved items judged not relevant (0 <= grade < rel); unjudged ones are not counted.",
        formula=r"num\_nonrel\_judged\_ret = |\{i : 0 \le rel_i < rel\}|",
        citation="trec_eval num_nonrel_judged_ret (m_num_nonrel_judged_ret.c).",
        convention=(
            "As trec_eval: a negative grade means pooled but not judged, so such items count neither "
            "here nor in num_rel_ret; num_ret = num_rel_ret + num_nonrel_judged_ret + the unjudged "
            "retrieved items."
        ),
        kernel=num_nonrel_judged_ret_kernel,
        reference=num_nonrel_judged_ret_reference,
        params=(REL,),
        bounds=(0.0, np.inf),
        examples=(
            # 1 and 2 relevant, 3 judged 0, 6 judged -1 (pooled, unjudged), 5 not in the judgments
            Example(("1", "3", "2", "6", "5"), {"1": 1, "2": 2, "3": 0, "6": -1}, 1.0),
            Example(("1", "3", "2", "6", "5"), {"1": 1, "2": 2, "3": 0, "6": -1}, 2.0, params={"rel": 2.0},
                    note="rel=2: the item of grade 1 is judged not relevant"),
            Example(("1", "3", "2", "6", "5"), {"1": 1, "2": 2, "3": 0, "6": -1}, 0.0, k=1),
        ),
        properties=frozenset(set(_H) | {"count", "monotone_k"}),
        trec_name="num_nonrel_judged_ret",
        count=True,
    )
)


def rprec_kernel(b: Batch, rel: float, skip_no_hit: bool = False) -> np.ndarray:
    """R-precision per query; ``skip_no_hit``: nan (no value, left out of the mean) where the top R holds
    no relevant item, as MS Recommenders' ``r_precision_at_k`` averages only the users with a hit.

    >>> import rankmeter
    >>> qrels, run = {"u1": {"1": 1, "2": 1}, "u2": {"9": 1}}, {"u1": ["3", "1", "6"], "u2": ["8"]}
    >>> rankmeter.evaluate(qrels, run, ["rprec", "rprec(skip_no_hit=true)"]).mean
    {'rprec': 0.25, 'rprec(skip_no_hit=true)': 0.5}
    """
    nrel = b.n_rel(rel)
    limit = np.repeat(nrel, b.lengths)
    hits = b.seg_sum(b.relevant(rel) & (b.pos <= limit))
    out = _safe_div(hits, nrel)
    if skip_no_hit:  # no value (left out of the mean) without a relevant item in the top R
        out[hits == 0] = np.nan
    return out


def rprec_reference(ranking: Sequence[str], qrels: Mapping[str, float], k: int | None, rel: float,
                    skip_no_hit: bool = False) -> float:
    nrel = n_relevant(qrels, rel)
    hits = sum(is_rel(qrels, d, rel) for d in top(ranking, k)[:nrel]) if nrel else 0
    if not hits:
        return float("nan") if skip_no_hit else 0.0
    return hits / nrel


register(
    MetricSpec(
        name="rprec",
        unjudged_bounds=True,
        family="ranking",
        reads_items=False,
        summary="R-precision: precision at rank R, R the number of relevant items.",
        formula=r"Rprec = |\{i \le R : rel_i \ge rel\}| / R",
        citation="trec_eval Rprec; Buckley & Voorhees (2000).",
        kernel=rprec_kernel,
        ties=_ORDERED,
        reference=rprec_reference,
        params=(REL, Param("skip_no_hit", bool, False, "no value for a query without a relevant item in its "
                           "top R, so the mean leaves it out (MS Recommenders' r_precision_at_k)")),
        ties_except={"optimistic": {"skip_no_hit": (True,)}, "pessimistic": {"skip_no_hit": (True,)}},
        aliases={"r-precision": {}, "r_precision": {}},
        examples=(Example(_HIVEMALL_REC, _HIVEMALL_TRUTH, 2 / 3, note="R = 3: items 1 and 2 in the top 3"),
                  Example(("3", "1", "6"), {"1": 1, "2": 1}, 0.5, params={"skip_no_hit": True},
                          note="R = 2, one hit in the top 2 (with none, no value: left out of the mean)")),
        properties=frozenset(set(_H) | {"may_leave_out"}),  # skip_no_hit: nan, left out of the mean
        trec_name="Rprec",
    )
)
