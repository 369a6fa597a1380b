"""Discounted cumulative gain and its normalised form, with named gain and discount variants."""

from __future__ import annotations

import math
from typing import Mapping, Sequence, cast

import numpy as np

from ..._errors import InputError, ParameterError
from .. import _segments as S
from ..batch import Batch
from ..registry import Example, MetricSpec, Param, TrecName, register
from ..ties import TieView
from ._common import top

GAIN = Param("gain", str, "linear", "gain of a grade g: linear = g, exp = 2^g - 1 (ndcg: any grade; dcg: "
             "grades up to 1023)", choices=("linear", "exp"))
DISCOUNT = Param(
    "discount",
    str,
    "log2",
    "log2 = 1/log2(i+1); jarvelin = 1 at rank 1, 1/log2(i) from rank 2; reciprocal = 1/i (Cornac's NCRR)",
    choices=("log2", "jarvelin", "reciprocal"),
)
IDEAL = Param("ideal", str, "judged", "the ideal ranking: judged = every judged item by grade, cut at k; k = k items "
              "of the query's top grade (k relevant items on binary judgments: RecTools' NDCG; without a cutoff, "
              "as many as were retrieved)", choices=("judged", "k"))
_IDEAL_K_MAX = 10_000_000  # ideal=k adds up k discounts
_DCG_ALIASES = {"dcg": {"log2": {"gain": "linear"}, "exp-log2": {"gain": "exp"}}}


# Exponential gains 2^g - 1 pass float64's largest value from g = 1024. A query whose top
# judged grade G is above _EXP_SAFE gets all its gains scaled by 2^-(G - _EXP_SAFE): the
# ratio nDCG is unchanged (both DCG and the ideal DCG carry the same factor), and no gain
# overflows. DCG itself is not a ratio: a DCG beyond float64 is refused with the grade.
_EXP_SAFE = 512.0


def _gain(g: np.ndarray, gain: str, shift: np.ndarray | float = 0.0) -> np.ndarray:
    """linear: g; exp: (2^g - 1) * 2^-shift, computed as 2^(g - shift) - 2^-shift (no overflow)."""
    g = np.maximum(g, 0.0)
    if gain != "exp":
        return g
    with np.errstate(over="ignore", under="ignore"):
        return np.exp2(g - shift) - np.exp2(-np.asarray(shift, dtype=np.float64))


def _shift(b: Batch, gain: str) -> np.ndarray:
    """Per-query scale exponent of exponential gains (0 unless the top judged grade is above 512)."""
    if gain != "exp":
        return np.zeros(b.n_queries)
    key = ("exp_shift",)
    if key not in b._cache:
        top = -S.seg_min(-np.asarray(b.qrel_grade, dtype=np.float64), b.qrel_offsets, empty=0.0)
        b._cache[key] = np.maximum(top - _EXP_SAFE, 0.0)
    return b._cache[key]  # type: ignore[no-any-return]  # the cache holds Any


def _discount(pos: np.ndarray, discount: str) -> np.ndarray:
    pos = pos.astype(np.float64)
    if discount == "reciprocal":
        return 1.0 / pos
    if discount == "jarvelin":
        return 1.0 / np.where(pos < 2, 1.0, np.log2(np.maximum(pos, 2.0)))
    return 1.0 / np.log2(pos + 1.0)


def _dcg(b: Batch, gain: str, discount: str, shift: np.ndarray | None = None) -> np.ndarray:
    row_shift = 0.0 if shift is None else np.repeat(shift, b.lengths)
    g = np.where(b.judged, _gain(b.grade, gain, row_shift), 0.0)
    with np.errstate(over="ignore", invalid="ignore"):
        return b.seg_sum(g * _discount(b.pos, discount))


def _idcg(b: Batch, gain: str, discount: str, shift: np.ndarray | None = None) -> np.ndarray:
    """DCG of the ideal ranking: all judged items by grade, cut at k."""
    off = b.qrel_offsets
    pos = S.positions(off)
    keep = pos <= b.k if b.k is not None else np.ones(len(pos), dtype=bool)
    row_shift = 0.0 if shift is None else np.repeat(shift, np.diff(off))
    g = _gain(b.qrel_grade, gain, row_shift) * _discount(pos, discount)
    with np.errstate(over="ignore", invalid="ignore"):
        return S.seg_sum(np.where(keep, g, 0.0), off)


def _ideal_k(b: Batch, gain: str, discount: str, shift: np.ndarray) -> np.ndarray:
    """``ideal=k``: DCG of k items of the query's top judged grade (k: the cutoff, or the number
    retrieved without one); 0 for a query without a positive grade."""
    top = -S.seg_min(-np.asarray(b.qrel_grade, dtype=np.float64), b.qrel_offsets, empty=0.0)
    n = np.full(b.n_queries, b.k, dtype=np.int64) if b.k is not None else b.lengths.astype(np.int64)
    most = int(n.max(initial=0))
    if most > _IDEAL_K_MAX:
        raise ParameterError(f"ndcg(ideal=k) adds up k discounts: k must be at most {_IDEAL_K_MAX}. Got {most} "
                             "instead.")
    sums = np.concatenate(([0.0], np.cumsum(_discount(np.arange(1, most + 1), discount))))
    return _gain(np.maximum(top, 0.0), gain, shift) * sums[n]


def _ideal(b: Batch, gain: str, discount: str, ideal: str, shift: np.ndarray) -> np.ndarray:
    key = ("idcg", gain, discount, ideal, b.k)
    out = b._cache.get(key)
    if out is None:
        made = _idcg(b, gain, discount, shift) if ideal == "judged" else _ideal_k(b, gain, discount, shift)
        out = b._cache[key] = _refuse_overflow(made, b, "ndcg", gain)
    return out


def _refuse_overflow(values: np.ndarray, b: Batch, metric: str, gain: str) -> np.ndarray:
    """An error naming the grade when a sum of gains passed float64's range; else the values."""
    bad = ~np.isfinite(values)
    if bad.any():
        q = int(np.flatnonzero(bad)[0])
        grades = b.qrel_grade[b.qrel_offsets[q]:b.qrel_offsets[q + 1]]
        top = float(np.max(grades)) if len(grades) else float(np.max(b.grade[b.offsets[q]:b.offsets[q + 1]]))
        detail = (f"a grade of {top:g} gives a gain 2^{top:g} - 1" if gain == "exp"
                  else f"grades up to {top:g} give a sum of gains")
        raise InputError(
            f"{metric}: {detail} beyond the largest float (about 1.8e308); "
            + ("use ndcg (a ratio, computed without overflow) or gain=linear" if metric == "dcg" and gain == "exp"
               else "rescale the grades"))
    return values


def dcg_kernel(b: Batch, gain: str, discount: str) -> np.ndarray:
    return _refuse_overflow(_dcg(b, gain, discount), b, "dcg", gain)


def ndcg_kernel(b: Batch, gain: str, discount: str, ideal: str = "judged") -> np.ndarray:
    shift = _shift(b, gain)
    best = _ideal(b, gain, discount, ideal, shift)
    d = _dcg(b, gain, discount, shift)
    return cast(np.ndarray, np.divide(d, best, out=np.zeros_like(d), where=best > 0))


def _e_dcg(v: TieView, gain: str, discount: str, shift: np.ndarray | None = None) -> np.ndarray:
    """E[DCG@k] over the orders of the tied groups: each position's discount times the mean gain of
    its group (McSherry and Najork 2008, section 3, DCG; scikit-learn's ``_tie_averaged_dcg``)."""
    full = v.full
    row_shift = 0.0 if shift is None else np.repeat(shift, full.lengths)
    g = np.where(full.judged, _gain(full.grade, gain, row_shift), 0.0)
    return v.expected_sum(g, _discount(full.pos, discount))


def dcg_average(v: TieView, gain: str, discount: str) -> np.ndarray:
    """``ties="average"``: E[DCG@k] (McSherry and Najork 2008, section 3)."""
    return _refuse_overflow(_e_dcg(v, gain, discount), v.b, "dcg", gain)


def ndcg_average(v: TieView, gain: str, discount: str, ideal: str = "judged") -> np.ndarray:
    """``ties="average"``: E[DCG@k] / IDCG@k, the ideal not depending on the order (McSherry and
    Najork 2008, section 3; scikit-learn's ``ndcg_score`` with ``ignore_ties=False``)."""
    b = v.b
    shift = _shift(b, gain)
    best = _ideal(b, gain, discount, ideal, shift)
    d = _e_dcg(v, gain, discount, shift)
    out: np.ndarray = np.divide(d, best, out=np.zeros_like(d), where=best > 0)
    return out


def _ref_gain(g: float, gain: str) -> float:
    g = max(g, 0.0)
    return 2.0**g - 1.0 if gain == "exp" else g


def _ref_disc(i: int, discount: str) -> float:
    if discount == "reciprocal":
        return 1.0 / i
    if discount == "jarvelin":
        return 1.0 if i < 2 else 1.0 / math.log2(i)
    return 1.0 / math.log2(i + 1)


def _ref_dcg(grades: Sequence[float], gain: str, discount: str) -> float:
    return sum(_ref_gain(g, gain) * _ref_disc(i, discount) for i, g in enumerate(grades, start=1))


def dcg_reference(ranking: Sequence[str], qrels: Mapping[str, float], k: int | None, gain: str, discount: str) -> float:
    return _ref_dcg([qrels.get(d, 0.0) for d in top(ranking, k)], gain, discount)


def ndcg_reference(ranking: Sequence[str], qrels: Mapping[str, float], k: int | None, gain: str,
                   discount: str, ideal: str = "judged") -> float:
    if ideal == "k":  # k items of the top grade (as many as retrieved without a cutoff)
        best = max([g for g in qrels.values()], default=0.0)
        n = len(top(ranking, k)) if k is None else k
        ideal_dcg = _ref_dcg([best] * n, gain, discount)
        return dcg_reference(ranking, qrels, k, gain, discount) / ideal_dcg if ideal_dcg > 0 else 0.0
    # top() keeps the grades' type (the ignore below)
    ideal_dcg = _ref_dcg(top(sorted(qrels.values(), reverse=True), k), gain, discount)  # type: ignore[arg-type]
    return dcg_reference(ranking, qrels, k, gain, discount) / ideal_dcg if ideal_dcg > 0 else 0.0


_SEED001 = {f"d{i}": g for i, g in enumerate([5, 3, 3, 3, 3, 3, 0, 0, 0, 0])}
_S001_B = ("d1", "d2", "d3", "d4", "d5", "d6", "d7", "d8", "d9", "d0")  # 3 3 3 3 3 0 0 0 0 5
_S001_C = ("d0", "d9", "d8", "d7", "d6", "d5", "d4", "d3", "d2", "d1")  # 5 0 0 0 0 3 3 3 3 3
_GRADED = {"1": 5, "3": 2, "2": 4, "6": 1, "4": 3}  # Hivemall, graded example
_GRADED_RUN = ("1", "3", "2", "6", "4")

register(
    MetricSpec(
        name="dcg",
        unjudged_bounds=True,
        family="ranking",
        reads_items=False,
        summary="Discounted cumulative gain of the top k.",
        formula=r"DCG@k = \sum_{i \le k} gain(g_i) \cdot disc(i)",
        citation="Järvelin & Kekäläinen, TOIS 20(4) 2002, doi:10.1145/582415.582418; Burges et al., ICML 2005.",
        convention="Linear gain and 1/log2(i+1) by default (trec_eval); negative and unjudged grades gain 0.",
        kernel=dcg_kernel,
        ties=frozenset({"average", "optimistic", "pessimistic"}), tie_average=dcg_average,
        reference=dcg_reference,
        params=(GAIN, DISCOUNT),
        aliases={"dcg_burges": {"gain": "exp"}, "dcg_jarvelin": {"discount": "jarvelin"}},
        param_aliases=_DCG_ALIASES,
        bounds=(0.0, np.inf),
        examples=(
            Example(("x", "a", "b", "c", "y"), {"a": 1, "b": 1, "c": 1},
                    1 / math.log2(2) + 1 / math.log2(3) + 1 / math.log2(4), k=5,
                    params={"discount": "jarvelin"}, note="evaluation notes: DCG5 = 2.13"),
        ),
        properties=frozenset({"ranking", "graded", "monotone_k"}),
    )
)

register(
    MetricSpec(
        name="ndcg",
        unjudged_bounds=True,
        family="ranking",
        reads_items=False,
        summary="Normalised DCG: DCG@k over the DCG@k of the ideal ranking of all judged items.",
        formula=r"nDCG@k = DCG@k / IDCG@k",
        citation=(
            "Järvelin & Kekäläinen, TOIS 20(4) 2002, doi:10.1145/582415.582418 (discount=jarvelin); "
            "Burges et al., ICML 2005, doi:10.1145/1102351.1102363 (gain=exp); trec_eval ndcg, ndcg_cut."
        ),
        convention=(
            "Default linear gain and 1/log2(i+1) (trec_eval's ndcg and ndcg_cut). gain=exp is "
            "2^g - 1 (Burges, alias ndcg_burges); discount=jarvelin leaves rank 1 undiscounted and "
            "divides by log2(i) from rank 2 (alias ndcg_jarvelin, the NDCG article's NDCG1); "
            "discount=reciprocal is 1/i (Cornac's NCRR). The ideal "
            "ranking is built from all judged items, retrieved or not; 0 when it has no gain. ideal=k: "
            "the ideal is k items of the query's top grade, as if k relevant items existed (RecTools' "
            "NDCG default, divide_by_achievable=False, rectools/metrics/ranking.py)."
        ),
        kernel=ndcg_kernel,
        ties=frozenset({"average", "optimistic", "pessimistic"}), tie_average=ndcg_average,
        reference=ndcg_reference,
        params=(GAIN, DISCOUNT, IDEAL),
        aliases={"ndcg_burges": {"gain": "exp"}, "ndcg_jarvelin": {"discount": "jarvelin"}, "ndcg_cut": {}},
        param_aliases=_DCG_ALIASES,
        examples=(
            Example(("1", "3", "2", "6"), {"1": 1, "2": 1, "4": 1}, 0.7039180890341349, note="Hivemall, top-4"),
            Example(("1", "3", "2", "6"), {"1": 1, "2": 1, "4": 1}, 0.6131471927654585, k=2, note="Hivemall, top-2"),
            Example(_GRADED_RUN, _GRADED, 0.8128912838590544, k=2, params={"gain": "exp"},
                    note="Hivemall graded, top-2"),
            Example(_GRADED_RUN, _GRADED, 0.9187707805346093, k=3, params={"gain": "exp"},
                    note="Hivemall graded, top-3"),
            Example(_S001_B, _SEED001, 0.88, params={"discount": "jarvelin"}, note="NDCG article NDCG1 ~0.88",
                    tol=0.005),
            Example(_S001_B, _SEED001, 0.63, params={"gain": "exp"}, note="NDCG article NDCG2 ~0.63", tol=0.005),
            Example(_S001_C, _SEED001, 0.73, params={"discount": "jarvelin"}, note="NDCG article NDCG1 ~0.73",
                    tol=0.005),
            Example(_S001_C, _SEED001, 0.89, params={"gain": "exp"}, note="NDCG article NDCG2 ~0.89", tol=0.005),
            Example(("x", "a", "b", "c", "y"), {"a": 1, "b": 1, "c": 1}, 0.81, k=5,
                    params={"discount": "jarvelin"}, note="evaluation notes: NDCG ~0.81", tol=0.005),
            Example(("a", "x", "b"), {"a": 1, "b": 1}, 1.5 / sum(1 / math.log2(i + 1) for i in range(1, 6)), k=5,
                    params={"ideal": "k"},
                    note="RecTools NDCG@5: DCG 1 + 1/log2(4) = 1.5 over an ideal of 5 relevant items"),
            Example(("x", "a", "b"), {"a": 1, "b": 1}, (1 / 2 + 1 / 3) / (1 + 1 / 2), params={"discount": "reciprocal"},
                    note="Cornac NCRR: (1/2 + 1/3) / (1 + 1/2)"),
        ),
        properties=frozenset({"ranking", "graded"}),
        trec_names=(TrecName("ndcg"), TrecName("ndcg_cut", cutoff=True)),
        sql_name="ndcg",
    )
)
