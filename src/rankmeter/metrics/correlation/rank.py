"""Spearman's rho, Kendall's tau and the Kendall distance between a ranking and graded judgments.

Which items count: those both ranked (within the cutoff k) and judged (grade >= 0).
Unjudged ranked items and judged items the system did not rank (or ranked below k)
are left out: a correlation compares two orders of the same items (python-recsys
refuses lists that differ; here the common items are used). The system's order is
its rank order (a run's tied scores are already ordered by the evaluator's tie rule,
score descending then item id descending), so the system side has no ties; the
judgments' side ties items of equal grade, which tau-b and the average ranks of
Spearman's rho correct for.

A query with fewer than two common items, or whose common items all have the same
grade, has no defined correlation; it scores 0 (no evidence of agreement) so that a
mean over queries stays defined, and distance 0.

>>> import rankmeter
>>> qrels = {"q": {"a": 3, "b": 2, "c": 1, "z": 2}}
>>> run = {"q": ["a", "c", "x", "b"]}          # x unjudged, z not ranked: a, c, b count
>>> r = rankmeter.evaluate(qrels, run, ["kendall", "spearman", "kendall_distance(normalize=false)"])
>>> {k: round(v, 6) for k, v in r.mean.items()}
{'kendall': 0.333333, 'spearman': 0.5, 'kendall_distance(normalize=false)': 1.0}
"""

from __future__ import annotations

import math
from typing import Mapping, Sequence, cast

import numpy as np

from .. import _segments as S
from .. import rankstats as RS
from ..batch import Batch
from ..ranking._common import top
from ..ratings.correlation import (
    kendall_distance_reference as _kd_ref,
)
from ..ratings.correlation import (
    kendall_reference as _k_ref,
)
from ..ratings.correlation import (
    spearman_reference as _s_ref,
)
from ..registry import Example, MetricSpec, Param, register

VARIANT = Param("variant", str, "b", "a: no tie correction; b: tie-corrected (scipy's default); c: Stuart's tau-c",
                choices=("a", "b", "c"))
NORMALIZE = Param("normalize", bool, True, "divide by n(n-1)/2 (to [0, 1]); false gives the number of pairs")


def _common(b: Batch) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(offsets, system score, grade) of the ranked rows that are judged, per query."""
    key = ("corr_rows",)
    if key not in b._cache:
        keep = b.judged
        counts = S.seg_sum(keep, b.offsets).astype(np.int64)
        offsets = np.concatenate(([0], np.cumsum(counts))).astype(np.int64)
        # the system's preference: earlier rank = larger value
        b._cache[key] = (offsets, -b.pos[keep].astype(np.float64), b.grade[keep])
    return b._cache[key]  # type: ignore[no-any-return]  # the cache holds Any


def _counts(b: Batch) -> RS.KendallCounts:
    key = ("corr_kendall",)
    if key not in b._cache:
        off, x, y = _common(b)
        b._cache[key] = RS.kendall_counts(off, x, y)
    return b._cache[key]  # type: ignore[no-any-return]  # the cache holds Any


def spearman_kernel(b: Batch) -> np.ndarray:
    off, x, y = _common(b)
    return cast(np.ndarray, np.nan_to_num(RS.spearman_rho(off, x, y), nan=0.0))


def kendall_kernel(b: Batch, variant: str) -> np.ndarray:
    return cast(np.ndarray, np.nan_to_num(RS.kendall_tau(_counts(b), variant), nan=0.0))


def kendall_distance_kernel(b: Batch, normalize: bool) -> np.ndarray:
    c = _counts(b)
    d = c.discordant.astype(np.float64)
    if not normalize:
        return d
    pairs = c.pairs.astype(np.float64)
    return np.divide(d, pairs, out=np.zeros_like(d), where=pairs > 0)


def _pairs(ranking: Sequence[str], qrels: Mapping[str, float], k: int | None) -> tuple[list[float], list[float]]:
    kept = [d for d in top(ranking, k) if qrels.get(d) is not None and qrels[d] >= 0]
    return [-float(i) for i in range(len(kept))], [float(qrels[d]) for d in kept]


def spearman_reference(ranking: Sequence[str], qrels: Mapping[str, float], k: int | None) -> float:
    x, y = _pairs(ranking, qrels, k)
    v = _s_ref(x, y)
    return 0.0 if math.isnan(v) else v


def kendall_reference(ranking: Sequence[str], qrels: Mapping[str, float], k: int | None, variant: str) -> float:
    x, y = _pairs(ranking, qrels, k)
    v = _k_ref(x, y, variant=variant)
    return 0.0 if math.isnan(v) else v


def kendall_distance_reference(ranking: Sequence[str], qrels: Mapping[str, float], k: int | None,
                               normalize: bool) -> float:
    x, y = _pairs(ranking, qrels, k)
    return _kd_ref(x, y, normalize=normalize)


_RULE = (
    "Only items both ranked (within k) and judged (grade >= 0) count; the system's order is its rank order "
    "(no ties), the ideal order ties equal grades. Fewer than two such items, or all of one grade: 0."
)
_G = {"a": 3, "b": 2, "c": 1}
# python-recsys's explicit example as a run: TEST scores rank piano 75, baroque 50, then classical and
# instrumental tied at 25 (the tie rule puts instrumental first); GT scores are the grades.
_S002_RUN = ("piano", "baroque", "instrumental", "classical")
_S002_GT = {"classical": 50, "piano": 100, "baroque": 25, "instrumental": 25}
_PROPS = frozenset({"ranking", "graded", "uses_scores", "correlation"})

register(MetricSpec(
    name="spearman",
    family="correlation",
    summary="Spearman's rho between the system's ranking and the order of the judged grades.",
    formula=r"\rho = corr(\mathrm{rank}_{system}, \mathrm{rank}_{grade})\ \text{(average ranks for ties)}",
    citation="Spearman, Am. J. Psychol. 15(1) 1904, doi:10.2307/1412159; python-recsys.",
    convention=_RULE + " Pearson's r of average ranks (scipy.stats.spearmanr).",
    kernel=spearman_kernel,
    reference=spearman_reference,
    aliases={"spearman_rho": {}, "rho": {}},
    examples=(
        Example(("a", "b", "c"), _G, 1.0, note="ideal order"),
        Example(("c", "b", "a"), _G, -1.0, note="reversed"),
        Example(("a", "x", "b", "c"), {"a": 2, "b": 1, "c": 0}, 1.0, note="unjudged x left out"),
        Example(_S002_RUN, _S002_GT, 1.5 / math.sqrt(22.5), note="python-recsys's lists as a ranking: 0.316228"),
        Example(("a",), _G, 0.0, note="one common item: undefined, 0"),
    ),
    bounds=(-1.0, 1.0),
    properties=_PROPS,
))

register(MetricSpec(
    name="kendall",
    family="correlation",
    summary="Kendall's tau (tau-b by default) between the system's ranking and the order of the grades.",
    formula=r"\tau_b = \frac{C - D}{\sqrt{(n_0 - n_1)(n_0 - n_2)}}",
    citation="Kendall, Biometrika 30 1938, doi:10.1093/biomet/30.1-2.81; Kendall, Biometrika 33 1945.",
    convention=_RULE + " C, D: concordant and discordant pairs; n_1, n_2: pairs tied on each side. O(n log n).",
    kernel=kendall_kernel,
    reference=kendall_reference,
    params=(VARIANT,),
    aliases={"kendall_tau": {}, "tau_a": {"variant": "a"}, "tau_b": {"variant": "b"}},
    examples=(
        Example(("a", "b", "c"), _G, 1.0, note="ideal order"),
        Example(("c", "b", "a"), _G, -1.0, note="reversed"),
        Example(("c", "a", "b"), _G, -1.0, k=2, note="top 2: c above a"),
        Example(_S002_RUN, _S002_GT, 1 / math.sqrt(30), note="C = 3, D = 2, one grade tie: 0.182574"),
        Example(_S002_RUN, _S002_GT, 1 / 6, params={"variant": "a"}, note="tau-a: (3 - 2) / 6"),
    ),
    bounds=(-1.0, 1.0),
    properties=_PROPS,
))

register(MetricSpec(
    name="kendall_distance",
    family="correlation",
    summary="Kendall distance: judged item pairs the ranking puts in the wrong order.",
    formula=r"K = |\{(i, j) : i \text{ ranked above } j,\ g_i < g_j\}| \;/\; (n(n-1)/2)",
    citation="Kendall (1938); Fagin, Kumar & Sivakumar, SIAM J. Discrete Math. 17(1) 2003 (p = 0).",
    convention=_RULE.replace("; 0.", "; distance 0.") + " Pairs of equal grade are never discordant. "
    "normalize=true (default) divides by n(n-1)/2 of the common items; false gives the count.",
    kernel=kendall_distance_kernel,
    reference=kendall_distance_reference,
    params=(NORMALIZE,),
    aliases={},
    examples=(
        Example(("a", "b", "c"), _G, 0.0, note="ideal order"),
        Example(("c", "b", "a"), _G, 1.0, note="reversed: every pair"),
        Example(("c", "b", "a"), _G, 3.0, params={"normalize": False}),
        Example(_S002_RUN, _S002_GT, 2.0, params={"normalize": False}, note="baroque and instrumental above classical"),
    ),
    higher_is_better=False,
    bounds=(0.0, math.inf),
    properties=frozenset({"ranking", "graded", "uses_scores", "correlation", "nonnegative"}),
))
