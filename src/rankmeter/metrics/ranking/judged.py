"""Judgment coverage of a ranking: how much of it the judgments can say anything about."""

from __future__ import annotations

from typing import Mapping, Sequence, cast

import numpy as np

from ..batch import Batch
from ..registry import Example, MetricSpec, TrecName, register
from ._common import top


def judged_kernel(b: Batch) -> np.ndarray:
    judged = b.seg_sum(b.matched)
    return cast(np.ndarray, np.divide(judged, b.lengths, out=np.zeros(b.n_queries), where=b.lengths > 0))


def judged_reference(ranking: Sequence[str], qrels: Mapping[str, float], k: int | None) -> float:
    shown = top(ranking, k)
    return sum(d in qrels for d in shown) / len(shown) if shown else 0.0


def unj_kernel(b: Batch) -> np.ndarray:
    unjudged = b.seg_sum(~b.judged)
    return unjudged / (b.k if b.k is not None else np.maximum(b.lengths, 1))


def unj_reference(ranking: Sequence[str], qrels: Mapping[str, float], k: int | None) -> float:
    shown = top(ranking, k)
    unjudged = sum(d not in qrels or qrels[d] < 0 for d in shown)
    return unjudged / (k if k is not None else max(len(shown), 1))


register(
    MetricSpec(
        name="judged",
        family="ranking",
        reads_items=False,
        summary="Share of the top k that has a judgment of any grade (ir_measures' Judged).",
        formula=r"Judged@k = |\{i \le \min(k, n) : d_i \text{ judged}\}| / \min(k, n)",
        citation="ir_measures Judged@k (MacAvaney et al., ECIR 2022); Sakai and Kando, Inf. Retr. 2008.",
        convention="Divides by the number of items shown, min(k, n), so a short list is not penalised; an "
                   "empty ranking scores 0. A judgment of any grade counts, negative ones included. Every "
                   "evaluation reports its mean at the largest cutoff in result.coverage.",
        kernel=judged_kernel,
        reference=judged_reference,
        aliases={"judged_share": {}},
        examples=(
            Example(("a", "x", "b", "y"), {"a": 1, "b": 0}, 0.5, note="2 of 4 judged"),
            Example(("a", "x", "b", "y"), {"a": 1, "b": -1}, 1.0, k=1),
            Example(("a", "x"), {"a": 1}, 0.5, k=10, note="divides by the 2 shown, not by 10"),
        ),
        properties=frozenset({"ranking", "coverage"}),
    )
)

register(
    MetricSpec(
        name="unj",
        family="ranking",
        reads_items=False,
        summary="Share of the top k that is unjudged (no judgment, or a negative grade), over k: trec_eval's unj.",
        formula=r"unj@k = |\{i \le \min(k, n) : d_i \text{ unjudged or } g_i < 0\}| / k",
        citation="trec_eval 10.0 unj (Soboroff, 2023).",
        convention="As trec_eval: divides by k, so positions beyond the list count as judged non-relevant; "
                   "an item judged with a negative grade is pooled but unjudged. Without a cutoff, divides "
                   "by the list's length.",
        kernel=unj_kernel,
        reference=unj_reference,
        examples=(
            Example(("a", "x", "b", "y"), {"a": 1, "b": 0}, 0.5, k=4),
            Example(("a", "x", "b"), {"a": 1, "b": -1}, 0.1, k=20, note="2 unjudged of 20"),
        ),
        bounds=(0.0, 1.0),
        higher_is_better=False,
        properties=frozenset({"ranking", "coverage", "k_scaled"}),
        trec_names=(TrecName("unj", cutoff=True),),
    )
)
