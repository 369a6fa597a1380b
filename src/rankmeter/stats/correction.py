"""Multiple-testing corrections: adjusted p-values for a family of comparisons.

Each function returns adjusted p-values in the input order, equal to
``statsmodels.stats.multitest.multipletests(p, method=...)[1]`` for
``"holm"``, ``"bonferroni"`` and ``"fdr_bh"``. A comparison is significant at
level ``alpha`` when its adjusted p-value is ``<= alpha`` (statsmodels' rule)
-- rankmeter reports ``p_adjusted`` and marks ``p_adjusted < alpha``.
"""

from __future__ import annotations

from typing import Any, cast

import numpy as np

from .._errors import ParameterError

__all__ = ["CORRECTIONS", "adjust", "canonical_correction", "holm", "bonferroni", "benjamini_hochberg",
           "correction_name"]

CORRECTIONS = ("holm", "bonferroni", "bh", "none")

_NAMES = {
    "holm": "Holm",
    "bonferroni": "Bonferroni",
    "bh": "Benjamini-Hochberg",
    "none": "no correction",
}


def correction_name(method: str) -> str:
    """A readable name: ``"holm"`` -> ``"Holm"``."""
    return _NAMES[canonical_correction(method)]


def canonical_correction(method: str) -> str:
    """The canonical key of a correction name or alias: ``"fdr"`` -> ``"bh"``.

    >>> canonical_correction("Holm-Bonferroni"), canonical_correction("fdr_bh")
    ('holm', 'bh')
    """
    m = str(method).lower().replace("_", "-")
    aliases = {"fdr-bh": "bh", "benjamini-hochberg": "bh", "fdr": "bh", "holm-bonferroni": "holm"}
    m = aliases.get(m, m)
    if m not in CORRECTIONS:
        raise ParameterError(f"The 'correction' parameter must be one of {', '.join(CORRECTIONS)}. Got {method!r} "
                             "instead.")
    return m


def _p(p: Any) -> np.ndarray:
    arr = np.asarray(p, dtype=np.float64).ravel()
    if arr.size and (not np.all(np.isfinite(arr)) or arr.min() < 0 or arr.max() > 1):
        raise ParameterError("p-values to correct must be numbers in [0, 1]. Got values outside it or NaN instead.")
    return arr


def bonferroni(p: Any) -> np.ndarray:
    """Bonferroni (1936): ``min(1, m * p_i)`` for ``m`` comparisons.

    >>> bonferroni([0.01, 0.04, 0.3]).tolist()
    [0.03, 0.12, 0.8999999999999999]
    """
    arr = _p(p)
    return cast(np.ndarray, np.minimum(arr * len(arr), 1.0))


def holm(p: Any) -> np.ndarray:
    """Holm (1979) step-down: sorted ascending, ``p_(i) * (m - i + 1)``, made monotone, capped at 1.

    Controls the family-wise error rate under any dependence; uniformly more
    powerful than Bonferroni.

    >>> holm([0.01, 0.04, 0.03]).tolist()
    [0.03, 0.06, 0.06]
    """
    arr = _p(p)
    m = len(arr)
    if m == 0:
        return arr
    order = np.argsort(arr, kind="stable")
    raw = arr[order] * np.arange(m, 0, -1)
    adj = np.minimum(np.maximum.accumulate(raw), 1.0)
    out = np.empty(m)
    out[order] = adj
    return out


def benjamini_hochberg(p: Any) -> np.ndarray:
    """Benjamini & Hochberg (1995) step-up: ``min_{j >= i} p_(j) * m / j``, capped at 1.

    Controls the false discovery rate for independent or positively dependent tests.

    >>> benjamini_hochberg([0.01, 0.04, 0.03]).round(6).tolist()
    [0.03, 0.04, 0.04]
    """
    arr = _p(p)
    m = len(arr)
    if m == 0:
        return arr
    order = np.argsort(arr, kind="stable")
    raw = arr[order] * m / np.arange(1, m + 1)
    adj = np.minimum(np.minimum.accumulate(raw[::-1])[::-1], 1.0)
    out = np.empty(m)
    out[order] = adj
    return out


def adjust(p: Any, method: str = "holm") -> np.ndarray:
    """Adjusted p-values by ``method``: ``"holm"``, ``"bonferroni"``, ``"bh"`` or ``"none"``.

    >>> adjust([0.01, 0.04, 0.03], "bh").round(6).tolist()
    [0.03, 0.04, 0.04]
    """
    m = canonical_correction(method)
    if m == "holm":
        return holm(p)
    if m == "bonferroni":
        return bonferroni(p)
    if m == "bh":
        return benjamini_hochberg(p)
    return _p(p).copy()
