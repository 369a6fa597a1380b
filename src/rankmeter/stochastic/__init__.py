"""Stochastic rankings: a policy that samples a ranking per request, evaluated from its samples by
expected exposure (Diaz et al. 2020) and by every metric averaged over the samples.

>>> import rankmeter.stochastic as st
>>> st.expected_exposure([["a", "b"]], p=0.5)
{'a': 1.0, 'b': 0.5}
"""

from __future__ import annotations

from .evaluate import StochasticResult, evaluate
from .exposure import ee_measures, expected_exposure, target_exposure

__all__ = ["StochasticResult", "ee_measures", "evaluate", "expected_exposure", "target_exposure"]
