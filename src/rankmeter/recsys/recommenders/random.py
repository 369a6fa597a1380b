"""The random recommender: the floor any recommender should clear."""

from __future__ import annotations

import zlib

import numpy as np

from ..._errors import ParameterError
from ._base import MatrixRecommender

__all__ = ["Random"]


class Random(MatrixRecommender):
    """Recommends training items in a random order, a different one per user.

    Each user's scores are uniform draws from a generator seeded with ``(seed,
    crc32(user id))``, so a user's list depends only on the seed, the user and the item
    set, not on which other users are asked for or in what order.

    >>> rec = Random(seed=1).fit({"user": ["u1", "u2", "u2"], "item": ["a", "b", "c"]})
    >>> t = rec.recommend(["u1", "u2"], k=5)
    >>> t.column("user").to_pylist(), sorted(t.column("item").to_pylist()[:2])
    (['u1', 'u1', 'u2'], ['b', 'c'])
    >>> rec.recommend(["u1"], k=5).equals(Random(seed=1).fit({"user": ["u1", "u2", "u2"],
    ...     "item": ["a", "b", "c"]}).recommend(["u1"], k=5))
    True
    """

    name = "random"

    def __init__(self, seed: int = 0) -> None:
        super().__init__()
        if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
            raise ParameterError(f"The 'seed' parameter of Random must be an int >= 0. Got {seed!r} instead.")
        self.seed = int(seed)

    def _draws(self, user_ids: list[str], n: int, salt: int) -> np.ndarray:
        out = np.empty((len(user_ids), n))
        for r, u in enumerate(user_ids):
            out[r] = np.random.default_rng([self.seed, zlib.crc32(u.encode("utf-8")), salt]).random(n)
        return out

    def _score_block(self, user_codes: np.ndarray, user_ids: list[str]) -> np.ndarray:
        return self._draws(user_ids, len(self.data.items), 0)

    def _extra_item_scores(self, user_ids: list[str], n_extra: int) -> np.ndarray:
        return self._draws(user_ids, n_extra, 1)

    def __repr__(self) -> str:
        return f"Random(seed={self.seed})"
