"""The most-popular recommender: the items most training users interacted with."""

from __future__ import annotations

import numpy as np

from ._base import MatrixRecommender

__all__ = ["MostPopular"]


class MostPopular(MatrixRecommender):
    """Recommends the items with the most distinct training users, to everyone.

    Score of an item: the number of training users who interacted with it (repeated
    interactions count once). Ties: item id descending. Each user's own training items
    are left out unless ``exclude_seen=False``. Users unseen in training get the same
    list. Deterministic, no parameters.

    >>> rec = MostPopular().fit({"user": ["u1", "u1", "u2", "u3"], "item": ["a", "b", "a", "c"]})
    >>> rec.recommend(["u2", "new"], k=2).to_pydict()
    {'user': ['u2', 'u2', 'new', 'new'], 'item': ['c', 'b', 'a', 'c'], 'score': [1.0, 1.0, 2.0, 1.0]}
    """

    name = "popular"

    def _score_block(self, user_codes: np.ndarray, user_ids: list[str]) -> np.ndarray:
        return np.broadcast_to(self.data.users_per_item, (len(user_codes), len(self.data.users_per_item))).copy()
