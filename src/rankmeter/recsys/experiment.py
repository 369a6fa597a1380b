"""The recommender experiment: one import for the pipeline, its result, its checks and its configuration.

>>> from rankmeter.recsys.experiment import experiment, ExperimentResult
>>> experiment.__module__
'rankmeter.recsys.pipeline'
"""

from __future__ import annotations

from .config import config_to_arguments, read_config
from .loading import read_categories, read_item_features
from .pipeline import default_metrics, experiment
from .repeated import RepeatedResult
from .result import FULL_RANKING, ExperimentResult
from .validation import Validation, validate_recommendations

__all__ = ["experiment", "ExperimentResult", "RepeatedResult", "Validation", "validate_recommendations",
           "default_metrics", "FULL_RANKING", "read_config", "config_to_arguments", "read_item_features",
           "read_categories"]
