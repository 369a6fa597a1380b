"""Re-export of :mod:`rankmeter.recsys.datasets` (generated interaction data sets)."""

from __future__ import annotations

from .recsys.datasets import (
    GENRES,
    BiasedFeedback,
    SyntheticData,
    biased_feedback,
    movielens100k_like,
    synthetic,
    write_udata,
)

__all__ = ["SyntheticData", "synthetic", "movielens100k_like", "write_udata", "GENRES", "BiasedFeedback",
           "biased_feedback"]
