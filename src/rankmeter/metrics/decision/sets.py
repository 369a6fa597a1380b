"""Confusion counts TP, FP, FN, TN and the set F-measure.

>>> import rankmeter
>>> test = ["classical", "invented", "baroque", "instrumental"]       # python-recsys: recommended
>>> gt = ["classical", "instrumental", "piano", "baroque"]            # relevant
>>> r = rankmeter.evaluate({"u": gt}, {"u": test}, ["set_p", "set_recall", "set_f", "tp", "fp", "fn",
...                                                 "tn(catalog=10)"])
>>> r.mean
{'set_p': 0.75, 'set_recall': 0.75, 'set_f': 0.75, 'tp': 3.0, 'fp': 1.0, 'fn': 1.0, 'tn(catalog=10)': 5.0}
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence, cast

import numpy as np

from ..._errors import ParameterError
from ..._params import check_int
from ..batch import Batch
from ..ranking._common import REL, is_rel, n_relevant, top
from ..registry import Example, MetricSpec, Param, register

_TEST = ("classical", "invented", "baroque", "instrumental")
_GT = {"classical": 1, "instrumental": 1, "piano": 1, "baroque": 1}
_PROPS = frozenset({"ranking", "binary", "count", "order_free"})

CATALOG = Param("catalog", int, None, "number of items that could be recommended (the catalogue size)", low=1)


def _tp(b: Batch, rel: float) -> np.ndarray:
    return b.seg_sum(b.relevant(rel))


def tp_kernel(b: Batch, rel: float) -> np.ndarray:
    return _tp(b, rel)


def fp_kernel(b: Batch, rel: float) -> np.ndarray:
    return cast(np.ndarray, b.lengths - _tp(b, rel))


def fn_kernel(b: Batch, rel: float) -> np.ndarray:
    return cast(np.ndarray, b.n_rel(rel) - _tp(b, rel))


def _catalog_size(catalog: int | None, context: Mapping[str, Any] | None) -> int:
    if catalog is not None:
        return int(catalog)
    ctx = context or {}
    if ctx.get("catalog_size") is not None:
        size = ctx["catalog_size"]
        if isinstance(size, float) and size.is_integer():
            size = int(size)
        return int(check_int("catalog_size", size, func="tn's context", low=1))
    if ctx.get("catalog") is not None:
        return len(ctx["catalog"])
    raise ParameterError(
        "tn needs the catalogue size: tn(catalog=N), or evaluate(..., context={'catalog_size': N}) "
        "or context={'catalog': [item ids]}")


def tn_kernel(b: Batch, rel: float, catalog: int | None) -> np.ndarray:
    size = _catalog_size(catalog, b.context)
    tp = _tp(b, rel)
    seen = tp + (b.lengths - tp) + (b.n_rel(rel) - tp)
    if len(seen) and float(seen.max()) > size:
        q = int(np.argmax(seen))
        raise ParameterError(
            f"The 'catalog' parameter of tn must be at least the number of items recommended or relevant for "
            f"each query. Got {size} instead, but query #{q + 1} has {int(seen[q])}.")
    return cast(np.ndarray, size - seen)


def set_f_kernel(b: Batch, rel: float, beta: float) -> np.ndarray:
    tp = _tp(b, rel)
    n = b.lengths.astype(np.float64)
    nrel = b.n_rel(rel).astype(np.float64)
    p = np.divide(tp, n, out=np.zeros_like(tp), where=n > 0)
    r = np.divide(tp, nrel, out=np.zeros_like(tp), where=nrel > 0)
    b2 = beta * beta
    den = b2 * p + r
    return cast(np.ndarray, np.divide((1 + b2) * p * r, den, out=np.zeros_like(den), where=den > 0))


def _ref_counts(ranking: Sequence[str], qrels: Mapping[str, float], k: int | None, rel: float) -> tuple[int, int, int]:
    kept = set(top(ranking, k))
    relevant = {d for d in qrels if is_rel(qrels, d, rel)}
    tp = len(kept & relevant)
    return tp, len(kept) - tp, n_relevant(qrels, rel) - tp


def tp_reference(ranking: Sequence[str], qrels: Mapping[str, float], k: int | None, rel: float) -> float:
    return float(_ref_counts(ranking, qrels, k, rel)[0])


def fp_reference(ranking: Sequence[str], qrels: Mapping[str, float], k: int | None, rel: float) -> float:
    return float(_ref_counts(ranking, qrels, k, rel)[1])


def fn_reference(ranking: Sequence[str], qrels: Mapping[str, float], k: int | None, rel: float) -> float:
    return float(_ref_counts(ranking, qrels, k, rel)[2])


def tn_reference(ranking: Sequence[str], qrels: Mapping[str, float], k: int | None, rel: float,
                 catalog: int | None, context: Mapping[str, Any] | None = None) -> float:
    return float(_catalog_size(catalog, context) - sum(_ref_counts(ranking, qrels, k, rel)))


def set_f_reference(ranking: Sequence[str], qrels: Mapping[str, float], k: int | None, rel: float,
                    beta: float) -> float:
    tp, fp, fn = _ref_counts(ranking, qrels, k, rel)
    p = tp / (tp + fp) if tp + fp else 0.0
    r = tp / (tp + fn) if tp + fn else 0.0
    b2 = beta * beta
    return (1 + b2) * p * r / (b2 * p + r) if b2 * p + r > 0 else 0.0


_CITE = "python-recsys's decision-based metrics; Herlocker et al., TOIS 22(1) 2004."
_COUNT_NOTE = "Unjudged recommended items count as not relevant (false positives)."

register(MetricSpec(
    name="tp",
    family="decision",
    summary="True positives: recommended items that are relevant.",
    formula=r"TP = |RET \cap REL|",
    citation=_CITE,
    convention="The recommended set is the whole list, or its top k. " + _COUNT_NOTE,
    kernel=tp_kernel,
    reference=tp_reference,
    params=(REL,),
    aliases={"true_positives": {}},
    examples=(Example(_TEST, _GT, 3.0, note="python-recsys: classical, baroque, instrumental"),
              Example(_TEST, _GT, 1.0, k=2)),
    bounds=(0.0, np.inf),
    properties=_PROPS | {"monotone_k"},
    count=True,
))

register(MetricSpec(
    name="fp",
    family="decision",
    summary="False positives: recommended items that are not relevant.",
    formula=r"FP = |RET \setminus REL|",
    citation=_CITE,
    convention=_COUNT_NOTE,
    kernel=fp_kernel,
    reference=fp_reference,
    params=(REL,),
    aliases={"false_positives": {}},
    examples=(Example(_TEST, _GT, 1.0, note="python-recsys: invented"),),
    higher_is_better=False,
    bounds=(0.0, np.inf),
    properties=_PROPS,
    count=True,
))

register(MetricSpec(
    name="fn",
    family="decision",
    summary="False negatives: relevant items that were not recommended.",
    formula=r"FN = |REL \setminus RET|",
    citation=_CITE,
    convention="Relevant = judged with grade >= rel, recommended or not.",
    kernel=fn_kernel,
    reference=fn_reference,
    params=(REL,),
    aliases={"false_negatives": {}},
    examples=(Example(_TEST, _GT, 1.0, note="python-recsys: piano"), Example(_TEST, _GT, 3.0, k=2)),
    higher_is_better=False,
    bounds=(0.0, np.inf),
    properties=_PROPS,
    count=True,
))

register(MetricSpec(
    name="tn",
    family="decision",
    summary="True negatives: catalogue items neither recommended nor relevant.",
    formula=r"TN = N - TP - FP - FN",
    citation=_CITE,
    convention=(
        "N is the catalogue size: tn(catalog=N), or evaluate(context={'catalog_size': N}) or "
        "context={'catalog': [ids]} (the beyond-accuracy metrics' catalogue). A catalogue smaller than a "
        "query's recommended and relevant items together is an error."
    ),
    kernel=tn_kernel,
    reference=tn_reference,
    params=(REL, CATALOG),
    aliases={"true_negatives": {}},
    examples=(Example(_TEST, _GT, 5.0, params={"catalog": 10}, note="python-recsys in a catalogue of 10"),),
    bounds=(0.0, np.inf),
    properties=_PROPS | {"needs_context"},
    count=True,
))

register(MetricSpec(
    name="set_f",
    family="decision",
    reads_items=False,
    summary="F-measure of set precision and set recall (trec_eval's set_F).",
    formula=r"F_\beta = \frac{(1+\beta^2) P R}{\beta^2 P + R},\ P = \frac{TP}{TP+FP},\ R = \frac{TP}{TP+FN}",
    citation="van Rijsbergen, Information Retrieval (1979); trec_eval set_F; python-recsys.",
    convention=(
        "P divides by the items recommended (within k), not by k (that is f@k); 0 when P = R = 0. "
        "set_f1 is beta = 1."
    ),
    kernel=set_f_kernel,
    reference=set_f_reference,
    params=(REL, Param("beta", float, 1.0, "weight of recall", low=0, high=1e150, low_open=True, high_open=True)),
    aliases={"set_f1": {"beta": 1.0}, "set_f_measure": {}},
    examples=(
        Example(_TEST, _GT, 0.75, note="python-recsys: (0.75, 0.75, 0.75)"),
        Example(("a",), {"a": 1, "b": 1}, 2 * 1.0 * 0.5 / 1.5, k=10, note="P = 1 (not 1/10), R = 1/2"),
        Example(_TEST, _GT, 0.75, params={"beta": 2.0}, note="P = R: F_beta = P for any beta"),
    ),
    properties=frozenset({"ranking", "binary", "order_free"}),
    trec_name="set_F",
))
