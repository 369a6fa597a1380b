"""Paired significance tests, bootstrap intervals and multiple-testing corrections.

See :mod:`rankmeter.stats.tests` for the conventions, :mod:`rankmeter.stats.resampling`
for the resampling engines and :mod:`rankmeter.compare` for comparing whole runs.
"""

from . import resampling
from .anova import AnovaTable, anova_two_way
from .correction import CORRECTIONS, adjust, benjamini_hochberg, bonferroni, canonical_correction, correction_name, holm
from .power import TopicSetSize, paired_t_power, topic_set_size
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
from .tukey import TukeyHSD, tukey_hsd

__all__ = [
    "AnovaTable",
    "TopicSetSize",
    "TukeyHSD",
    "anova_two_way",
    "paired_t_power",
    "topic_set_size",
    "tukey_hsd",
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
