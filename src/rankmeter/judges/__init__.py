"""Judgments you cannot fully trust: how far judges agree, and whether the systems' order survives a
change of judge.

>>> import rankmeter.judges as judges
>>> judges.agreement({"q": {"a": 1, "b": 0}}, {"q": {"a": 1, "b": 1}}).pairs
{'both': 2, 'only_a': 0, 'only_b': 0}
"""

from __future__ import annotations

from .agreement import Agreement, agreement, cohen_kappa, krippendorff_alpha
from .pool import Pool, PoolBias, pool, pool_bias
from .systems import JudgeComparison, compare_judges

__all__ = [
    "Agreement", "JudgeComparison", "Pool", "PoolBias", "agreement", "cohen_kappa", "compare_judges",
    "krippendorff_alpha", "pool", "pool_bias",
]
