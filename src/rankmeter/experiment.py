"""Re-export of :mod:`rankmeter.recsys.experiment` (the recommender experiment), so that
``from rankmeter.experiment import experiment, ExperimentResult`` keeps working."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ._lazy import lazy_names
from .recsys.pipeline import default_metrics, experiment

if TYPE_CHECKING:  # the names loaded on first use, as type checkers see them
    from .recsys.experiment import (
        FULL_RANKING,
        ExperimentResult,
        RepeatedResult,
        Validation,
        config_to_arguments,
        read_categories,
        read_config,
        read_item_features,
        validate_recommendations,
    )

__all__ = ["experiment", "ExperimentResult", "RepeatedResult", "Validation", "validate_recommendations",
           "default_metrics", "FULL_RANKING", "read_config", "config_to_arguments", "read_item_features",
           "read_categories"]

# the other names load on first use (``import rankmeter`` needs only :func:`experiment`)
__getattr__ = lazy_names(__name__, {name: ".recsys.experiment" for name in __all__}, anchor=__package__)
