"""Re-export of :mod:`rankmeter.recsys.experiment` (the recommender experiment), so that
``from rankmeter.experiment import experiment, ExperimentResult`` keeps working."""

from __future__ import annotations

from typing import Any

from .recsys.pipeline import default_metrics, experiment

__all__ = ["experiment", "ExperimentResult", "Validation", "validate_recommendations", "default_metrics",
           "FULL_RANKING", "read_config", "config_to_arguments", "read_item_features", "read_categories"]


def __getattr__(name: str) -> Any:
    """The other names load on first use (``import rankmeter`` needs only :func:`experiment`)."""
    if name in __all__:
        from .recsys import experiment as full

        value = getattr(full, name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
