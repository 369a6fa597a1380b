"""Paired significance tests, bootstrap intervals and multiple-testing corrections.

See :mod:`rankmeter.stats.tests` for the conventions and :mod:`rankmeter.compare`
for comparing whole runs.
"""

from .correction import adjust, benjamini_hochberg, bonferroni, holm
from .tests import (
    PairedTest,
    bootstrap_interval,
    bootstrap_test,
    effect_size,
    paired_t,
    randomization_test,
    wilcoxon,
)

__all__ = [
    "PairedTest",
    "adjust",
    "benjamini_hochberg",
    "bonferroni",
    "bootstrap_interval",
    "bootstrap_test",
    "effect_size",
    "holm",
    "paired_t",
    "randomization_test",
    "wilcoxon",
]
