"""bpref: preference-based measure robust to incomplete judgments (trec_eval's definition)."""

from __future__ import annotations

from typing import Mapping, Sequence, cast

import numpy as np

from .. import _segments as S
from ..batch import Batch
from ..registry import Example, MetricSpec, register
from ._common import REL, top


def bpref_kernel(b: Batch, rel: float) -> np.ndarray:
    flags = b.relevant(rel)
    nonrel = b.judged & (b.grade < rel)
    nonrel_above = S.seg_count_cumsum(nonrel, b.offsets) - nonrel
    R = b.n_rel(rel)
    N = b.n_judged_nonrel(rel)
    R_row = np.repeat(R, b.lengths)
    denom = np.repeat(np.minimum(R, N), b.lengths)
    penalty = np.divide(np.minimum(nonrel_above, R_row), denom, out=np.zeros(len(denom)), where=denom > 0)
    total = b.seg_sum(np.where(flags, 1.0 - penalty, 0.0))
    return cast(np.ndarray, np.divide(total, R, out=np.zeros_like(total), where=R > 0))


def bpref_reference(ranking: Sequence[str], qrels: Mapping[str, float], k: int | None, rel: float) -> float:
    R = sum(1 for g in qrels.values() if g >= rel and g >= 0)
    N = sum(1 for g in qrels.values() if 0 <= g < rel)
    if R == 0:
        return 0.0
    total, nonrel_seen = 0.0, 0
    for d in top(ranking, k):
        g = qrels.get(d)
        if g is None or g < 0:
            continue  # unjudged (negative grades count as unjudged)
        if g >= rel:
            total += 1.0 - (min(nonrel_seen, R) / min(R, N) if min(R, N) > 0 else 0.0)
        else:
            nonrel_seen += 1
    return total / R


register(
    MetricSpec(
        name="bpref",
        unjudged_bounds=True,
        family="ranking",
        reads_items=False,
        summary="Binary preference: relevant items penalised by judged non-relevant items above them.",
        formula=r"bpref = \frac{1}{R} \sum_{r\ relevant} \left(1 - \frac{\min(|n\ above\ r|, R)}{\min(R, N)}\right)",
        citation="Buckley & Voorhees, SIGIR 2004, doi:10.1145/1008992.1009000; trec_eval bpref.",
        convention=(
            "Only judged items count: unjudged items and negative grades are skipped; N counts "
            "judged items with 0 <= grade < rel (trec_eval)."
        ),
        kernel=bpref_kernel,
        reference=bpref_reference,
        params=(REL,),
        examples=(
            Example(("a", "n1", "b", "u", "n2"), {"a": 1, "b": 1, "c": 1, "n1": 0, "n2": 0}, (1 + (1 - 1 / 2)) / 3,
                    note="R = 3, N = 2: b has one judged non-relevant item above it"),
        ),
        properties=frozenset({"ranking", "binary"}),
        trec_name="bpref",
    )
)
