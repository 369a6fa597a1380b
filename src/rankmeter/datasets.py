"""Re-export of :mod:`rankmeter.recsys.datasets` (generated interaction data sets)."""

from __future__ import annotations

from .recsys.datasets import (
    GENRES,
    ML100K_GENRES,
    BiasedFeedback,
    SyntheticData,
    biased_feedback,
    movielens100k_like,
    read_movielens_genres,
    synthetic,
    write_udata,
    write_uitem,
)

__all__ = ["SyntheticData", "synthetic", "movielens100k_like", "write_udata", "GENRES", "BiasedFeedback",
           "biased_feedback", "ML100K_GENRES", "read_movielens_genres", "write_uitem"]
