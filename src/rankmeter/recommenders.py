"""Re-export of :mod:`rankmeter.recsys.recommenders` (reference and user-supplied recommenders)."""

from __future__ import annotations

from .recsys.recommenders import (
    ALS,
    EASE,
    REFERENCE,
    CallableRecommender,
    ItemKNN,
    MatrixRecommender,
    MostPopular,
    Random,
    Recommender,
    TopKLists,
    UserKNN,
    as_recommendation_table,
    check_k,
    is_callable_ref,
    load_callable,
    make_recommender,
    read_topk_lists,
    topk_rows,
)

__all__ = [
    "Recommender", "MatrixRecommender", "Random", "MostPopular", "ItemKNN", "UserKNN", "EASE", "ALS", "TopKLists",
    "CallableRecommender", "make_recommender", "read_topk_lists", "as_recommendation_table", "topk_rows", "check_k",
    "is_callable_ref", "load_callable", "REFERENCE",
]
