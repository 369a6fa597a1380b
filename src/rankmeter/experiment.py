"""Re-export of :mod:`rankmeter.recsys.experiment` (the recommender experiment), so that
``from rankmeter.experiment import experiment, ExperimentResult`` keeps working."""

from __future__ import annotations

from .recsys.experiment import (
    FULL_RANKING,
    ExperimentResult,
    Validation,
    config_to_arguments,
    default_metrics,
    experiment,
    read_categories,
    read_config,
    read_item_features,
    validate_recommendations,
)

__all__ = ["experiment", "ExperimentResult", "Validation", "validate_recommendations", "default_metrics",
           "FULL_RANKING", "read_config", "config_to_arguments", "read_item_features", "read_categories"]
