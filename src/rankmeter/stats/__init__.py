"""Paired significance tests, bootstrap intervals and multiple-testing corrections.

See :mod:`rankmeter.stats.tests` for the conventions, :mod:`rankmeter.stats.resampling`
for the resampling engines and :mod:`rankmeter.compare` for comparing whole runs.
"""

from . import resampling
from .correction import CORRECTIONS, adjust, benjamini_hochberg, bonferroni, canonical_correction, correction_name, holm
from .tests import (
    TEST_NAMES,
    TESTS,
    PairedTest,
    bootstrap_interval,
    bootstrap_test,
    effect_size,
    paired_t,
    randomization_test,
    wilcoxon,
)

__all__ = [
    "CORRECTIONS",
    "PairedTest",
    "TESTS",
    "TEST_NAMES",
    "adjust",
    "benjamini_hochberg",
    "bonferroni",
    "bootstrap_interval",
    "bootstrap_test",
    "canonical_correction",
    "correction_name",
    "effect_size",
    "holm",
    "paired_t",
    "randomization_test",
    "resampling",
    "wilcoxon",
]
