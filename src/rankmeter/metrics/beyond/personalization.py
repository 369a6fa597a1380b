"""Personalization: 1 - the mean pairwise overlap between users' top-k lists.

All pairs of users are never materialised. With ``c_i`` the number of lists that
contain item ``i``, the overlaps of all ordered pairs of distinct lists add up to
``sum_u sum_{v != u} |L_u ∩ L_v| = sum_i c_i (c_i - 1)``: each item shared by ``c_i``
lists is shared by ``c_i (c_i - 1)`` ordered pairs. So, over the ``U`` non-empty lists,

    mean overlap = sum_i c_i (c_i - 1) / (U (U - 1) k)

exact in integers, and mergeable: the ``c_i`` of two batches add (keyed by item id).
The cosine convention (recmetrics: cosine similarity of the binary user-item
vectors, ``|L_u ∩ L_v| / sqrt(|L_u| |L_v|)``) decomposes the same way with weights
``a_u = 1 / sqrt(|L_u|)``: ``sum_{u != v} cos = sum_i (S_i^2 - Q_i)`` where
``S_i = sum_{u ∋ i} a_u`` and ``Q_i = sum_{u ∋ i} a_u^2``.

>>> import rankmeter
>>> run = {"u1": ["a", "b"], "u2": ["a", "c"], "u3": ["d", "e"]}
>>> # overlaps: (u1,u2)=1, (u1,u3)=0, (u2,u3)=0 -> mean 1/3 of k=2 -> 1 - 1/6
>>> rankmeter.evaluate(run, run, "personalization@2").mean
{'personalization@2': 0.8333333333333334}
"""

from __future__ import annotations

from typing import Any, Mapping

import numpy as np

from ..batch import Batch
from ..registry import MetricSpec, Param, register
from ._context import ContextExample
from ._state import ItemState, merge_states

_EQUAL = {"u1": ["a", "b"], "u2": ["a", "c"], "u3": ["d", "e"]}
_UNEQUAL = {"u1": ["a", "b"], "u2": ["a"], "u3": ["c"]}


def personalization_kernel(b: Batch, norm: str) -> ItemState:
    n = b.lengths.astype(np.float64)
    weights = None
    if norm == "cosine":
        per_row = np.repeat(n, b.lengths)
        a = 1.0 / np.sqrt(per_row)  # rows exist only in non-empty lists
        weights = {"s": a, "q": a * a}
    return ItemState.from_batch(b, weights=weights, totals={"lists": float((n > 0).sum())})


def personalization_finalize(state: ItemState, *, context: Mapping[str, Any], norm: str) -> float:
    u = state.totals["lists"]
    if u < 2:
        return float("nan")
    pairs = u * (u - 1)
    if norm == "cosine":
        s, q = state.sums["s"], state.sums["q"]
        mean_sim = float(np.sum(s * s - q)) / pairs
    else:
        c = state.sums["count"].astype(np.int64)
        shared = int(np.sum(c * (c - 1)))  # exact
        k = state.k if state.k is not None else state.max_len
        mean_sim = shared / (pairs * k)
    return 1.0 - mean_sim


register(
    MetricSpec(
        name="personalization",
        family="beyond",
        summary="1 - mean overlap between the top-k lists of two users (0: everyone gets the same list).",
        formula=r"pers@k = 1 - \frac{1}{U(U-1)} \sum_{u \ne v} \frac{|L_u^k \cap L_v^k|}{k} = 1 - "
                r"\frac{\sum_i c_i (c_i - 1)}{U (U-1) k}",
        citation=(
            "Zhou, Kuscsik, Liu, Medo, Wakeling, Zhang (2010), PNAS 107(10), doi:10.1073/pnas.1000488107 "
            "(personalization as the mean inter-list Hamming distance 1 - q_uv/L); recmetrics' personalization "
            "(norm=cosine)."
        ),
        convention=(
            "Over the U users with a non-empty list (fewer than two: nan). norm=k (default, Zhou et al.): the "
            "overlap of two lists is |L_u ∩ L_v| / k, so a list shorter than k counts its empty slots as "
            "different; without a cutoff k is the longest list. norm=cosine (recmetrics): |L_u ∩ L_v| / "
            "sqrt(|L_u| |L_v|), the cosine of the binary vectors. Both agree when every list has k items."
        ),
        kernel=personalization_kernel,
        params=(Param("norm", str, "k", "overlap divided by k (k) or cosine of the binary lists (cosine)",
                      choices=("k", "cosine")),),
        examples=(
            ContextExample("personalization@2", _EQUAL, _EQUAL, {}, 1 - (2 * 1) / (3 * 2 * 2),
                           note="a is in 2 lists: c(c-1) = 2 ordered pairs share it; U=3, k=2"),
            ContextExample("personalization(norm=cosine)@2", _EQUAL, _EQUAL, {}, 1 - (2 * 1) / (3 * 2 * 2),
                           note="equal lengths: cosine = overlap / k"),
            ContextExample("personalization@2", _UNEQUAL, _UNEQUAL, {}, 1 - 2 / (3 * 2 * 2),
                           note="overlap(u1,u2) = 1, divided by k = 2"),
            ContextExample("personalization(norm=cosine)@2", _UNEQUAL, _UNEQUAL, {}, 1 - 2 * 2 ** -0.5 / 6,
                           note="cos(u1,u2) = 1/sqrt(2*1); 6 ordered pairs"),
        ),
        higher_is_better=True,
        bounds=(0.0, 1.0),
        properties=frozenset({"beyond", "judgment_free", "corpus"}),
        level="corpus",
        merge=merge_states,
        finalize=personalization_finalize,
    )
)
