"""User-model measures: rank-biased precision (with residual) and expected reciprocal rank."""

from __future__ import annotations

from typing import Mapping, Sequence, cast

import numpy as np

from ..._errors import ParameterError
from .. import _segments as S
from ..batch import Batch
from ..registry import Example, MetricSpec, Param, register
from ..ties import TieView
from ._common import REL, is_rel, top

PERSISTENCE = Param("p", float, 0.8, "persistence: probability of looking at the next item",
                    low=0, high=1, low_open=True, high_open=True)


def rbp_kernel(b: Batch, rel: float, p: float, residual: bool, gain: str = "binary") -> np.ndarray:
    w = (1.0 - p) * np.power(p, b.pos - 1.0)
    if not residual:
        return b.seg_sum(w * _rbp_gain(b, rel, gain))
    # weight of unjudged items in the list plus everything below its depth
    depth = b.lengths if b.k is None else np.full(b.n_queries, b.k)
    return b.seg_sum(np.where(b.judged, 0.0, w)) + np.power(p, depth.astype(np.float64))


def _rbp_gain(b: Batch, rel: float, gain: str) -> np.ndarray:
    """Each row's gain: 1 when relevant (binary), or its grade, negatives and unjudged at 0 (grade)."""
    if gain == "grade":
        return np.where(b.judged, b.gain, 0.0)
    return b.relevant(rel).astype(np.float64)


def rbp_average(v: TieView, rel: float, p: float, residual: bool, gain: str = "binary") -> np.ndarray:
    """``ties="average"``: E[RBP], each position's weight (1 - p) p^(i-1) times its tied group's share
    of relevant (or, for the residual, unjudged) rows: linearity of expectation, as McSherry and
    Najork (2008) use for DCG."""
    full = v.full
    w = (1.0 - p) * np.power(p, full.pos - 1.0)
    if not residual:
        return v.expected_sum(_rbp_gain(full, rel, gain), w)
    b = v.b
    depth = b.lengths if b.k is None else np.full(b.n_queries, b.k)
    return v.expected_sum(~full.judged, w) + np.power(p, depth.astype(np.float64))


def rbp_reference(
    ranking: Sequence[str], qrels: Mapping[str, float], k: int | None, rel: float, p: float, residual: bool,
    gain: str = "binary",
) -> float:
    kept = top(ranking, k)
    if not residual and gain == "grade":
        return sum((1 - p) * p**i * max(qrels.get(d, 0.0), 0.0) for i, d in enumerate(kept))
    if not residual:
        return sum((1 - p) * p**i for i, d in enumerate(kept) if is_rel(qrels, d, rel))
    depth = len(kept) if k is None else k
    unjudged = sum((1 - p) * p**i for i, d in enumerate(kept) if qrels.get(d, -1.0) < 0)
    return unjudged + p**depth


register(
    MetricSpec(
        name="rbp",
        unjudged_bounds=True,
        unjudged_except={"residual": (True,)},
        family="ranking",
        reads_items=False,
        summary="Rank-biased precision: expected rate of relevant items seen by a user of persistence p.",
        formula=r"RBP = (1-p) \sum_i [rel_i \ge rel]\, p^{i-1};\ residual = (1-p)\sum_{i\ unjudged} p^{i-1} + p^{d}",
        citation="Moffat & Zobel, TOIS 27(1) 2008, doi:10.1145/1416950.1416952.",
        convention=(
            "Binary relevance (grade >= rel). residual=true gives the residual instead: the weight "
            "of unjudged items in the list and of all ranks below its depth d (the list length, or k), "
            "so RBP lies in [rbp, rbp + residual] whatever the unjudged items are. gain=grade weighs each "
            "item by its grade instead (ranx's rbp on graded judgments, ranx/metrics/rank_biased_precision.py); "
            "the residual is the same for both gains."
        ),
        kernel=rbp_kernel,
        ties=frozenset({"average", "optimistic", "pessimistic"}), tie_average=rbp_average,
        ties_except={"optimistic": {"residual": (True,)}, "pessimistic": {"residual": (True,)}},
        reference=rbp_reference,
        params=(REL, PERSISTENCE, Param("residual", bool, False, "return the residual instead of RBP"),
                Param("gain", str, "binary", "gain of an item: binary = 1 when its grade is >= rel; grade = its "
                      "grade (negatives 0), as ranx computes RBP on graded judgments", choices=("binary", "grade"))),
        aliases={"rank_biased_precision": {}},
        examples=(
            Example(("a", "b", "c"), {"a": 1, "c": 1}, 0.2 * (1 + 0.8**2), params={"p": 0.8}),
            Example(("a", "u", "c"), {"a": 1, "c": 1}, 0.2 * 0.8 + 0.8**3, params={"p": 0.8, "residual": True},
                    note="u unjudged: its weight plus p^3 beyond the list"),
            Example(("a", "b", "c"), {"a": 2, "c": 3}, 0.2 * (2 + 3 * 0.8**2), params={"p": 0.8, "gain": "grade"},
                    note="ranx rbp on grades 2 and 3: (1 - p)(2 + 3 p^2)"),
        ),
        properties=frozenset({"ranking", "binary"}),
    )
)


def _cumprod_before(values: np.ndarray, offsets: np.ndarray, pos: np.ndarray) -> np.ndarray:
    """For each row, the product of ``values`` of the rows above it in its segment."""
    n_q = len(offsets) - 1
    lengths = np.diff(offsets)
    width = int(lengths.max()) if n_q and len(values) else 0
    out = np.ones(len(values))
    if width == 0:
        return out
    if n_q * width <= 4 * len(values) + 1_000_000:
        grid = np.ones((n_q, width + 1))
        seg = S.row_segments(offsets)
        grid[seg, pos] = values  # column j holds the value at rank j; column 0 stays 1
        prod = np.cumprod(grid, axis=1)
        return cast(np.ndarray, prod[seg, pos - 1])
    for q in range(n_q):  # very uneven lengths: segment by segment
        a, b = offsets[q], offsets[q + 1]
        if b > a:
            out[a:b] = np.concatenate(([1.0], np.cumprod(values[a : b - 1])))
    return out


def _err_top(b: Batch, max_grade: float | None) -> float:
    """g_max of ERR: the max_grade parameter, checked against the judgments, or the context's top grade."""
    gmax = float(b.context.get("max_grade", 1.0)) if max_grade is None else float(max_grade)
    grades = np.asarray(b.qrel_grade, dtype=np.float64)
    top = float(grades.max()) if len(grades) else -np.inf
    if top > gmax:
        if max_grade is None:
            raise ParameterError(
                f"err: context['max_grade'] ({gmax:g}) is below a judged grade ({top:g}); the top of the grade "
                "scale must be at least every judged grade")
        raise ParameterError(
            f"The 'max_grade' parameter of err must be at least the top judged grade ({top:g}), the top of "
            f"the grade scale. Got {max_grade:g} instead.")
    return gmax


def err_kernel(b: Batch, max_grade: float | None) -> np.ndarray:
    gmax = _err_top(b, max_grade)
    g = np.where(b.judged, np.maximum(b.grade, 0.0), 0.0)
    # R = (2^g - 1) / 2^gmax, written 2^(g - gmax) - 2^-gmax: no overflow at large grades
    with np.errstate(under="ignore"):
        r = np.exp2(g - gmax) - np.exp2(-gmax)
    before = _cumprod_before(1.0 - r, b.offsets, b.pos)
    return b.seg_sum(r * before / b.pos)


def err_reference(
    ranking: Sequence[str], qrels: Mapping[str, float], k: int | None, max_grade: float | None,
    *, context: Mapping[str, float] | None = None,
) -> float:
    gmax = max_grade if max_grade is not None else (context or {}).get("max_grade", 1.0)
    total, stay = 0.0, 1.0
    for i, d in enumerate(top(ranking, k), start=1):
        g = qrels.get(d, 0.0)
        r = (2.0 ** max(g, 0.0) - 1.0) / 2.0**gmax
        total += stay * r / i
        stay *= 1.0 - r
    return total


register(
    MetricSpec(
        name="err",
        unjudged_bounds=True,
        family="ranking",
        reads_items=False,
        summary="Expected reciprocal rank: the cascade user stops at item i with probability R_i.",
        formula=r"ERR@k = \sum_{i \le k} \frac{R_i}{i} \prod_{j<i} (1 - R_j),\ R = (2^g - 1) / 2^{g_{max}}",
        citation="Chapelle, Metzler, Zhang & Grinspan, CIKM 2009, doi:10.1145/1645953.1646033.",
        convention=(
            "g_max is the top grade of the scale: the max_grade parameter, by default the highest "
            "grade in the judgments being evaluated (all queries); a max_grade below a judged grade is "
            "an error (it would make R above 1). R is computed as 2^(g - g_max) - 2^-g_max, so "
            "grades of 1024 and more do not overflow."
        ),
        kernel=err_kernel,
        ties=frozenset({"optimistic", "pessimistic"}),  # a better grade moved up never lowers ERR
        reference=err_reference,
        params=(Param("max_grade", float, None, "top grade of the scale, at least the highest judged grade "
                      "(default: the highest judged grade)", low=0),),
        aliases={"expected_reciprocal_rank": {}},
        examples=(
            Example(("a", "b"), {"a": 1, "b": 2}, (1 / 4) + (1 - 1 / 4) * (3 / 4) / 2, params={"max_grade": 2.0}),
        ),
        properties=frozenset({"ranking", "graded", "monotone_k"}),
    )
)
