"""User-based k-nearest-neighbour recommender (cosine on the binary user-item matrix).

Model (Herlocker, Konstan, Borchers and Riedl 1999, "An algorithmic framework for performing
collaborative filtering", SIGIR, doi:10.1145/312624.312682; binary form): the similarity of users
``u`` and ``v`` is ``|I_u ∩ I_v| / sqrt(|I_u| |I_v|)``; each user keeps its ``neighbors`` most
similar other users (ties: the one first in training order), and its score for item ``i`` is
``sum_{v in N(u)} sim(u, v) x_vi``. A user unseen in training has no neighbours: every score 0.
"""

from __future__ import annotations

import numpy as np

from ..._errors import ParameterError
from ._base import MatrixRecommender, topk_rows

__all__ = ["UserKNN"]


class UserKNN(MatrixRecommender):
    """User-kNN with cosine similarity, top-``neighbors`` per user.

    >>> train = {"user": ["u1", "u1", "u2", "u2", "u3"], "item": ["a", "b", "a", "c", "a"]}
    >>> UserKNN(neighbors=2).fit(train).recommend(["u1"], k=1).to_pydict()
    {'user': ['u1'], 'item': ['c'], 'score': [0.5]}
    """

    name = "userknn"

    def __init__(self, neighbors: int = 50) -> None:
        super().__init__()
        if isinstance(neighbors, bool) or not isinstance(neighbors, (int, np.integer)) or neighbors < 1:
            raise ParameterError(f"The 'neighbors' parameter of UserKNN must be an int >= 1. Got {neighbors!r} "
                                 "instead.")
        self.neighbors = int(neighbors)

    def _score_block(self, user_codes: np.ndarray, user_ids: list[str]) -> np.ndarray:
        x = self.data.matrix
        out = np.zeros((len(user_codes), x.shape[1]))
        known = np.flatnonzero(user_codes >= 0)
        if not len(known):
            return out
        sizes = np.asarray(x.sum(axis=1)).ravel()
        codes = user_codes[known]
        co = (x[codes] @ x.T).toarray()
        denom = np.sqrt(np.outer(sizes[codes], sizes))
        sim = np.divide(co, denom, out=np.zeros_like(co), where=denom > 0)
        sim[np.arange(len(codes)), codes] = -np.inf  # a user is not its own neighbour
        sim[sim <= 0] = -np.inf
        r, c, s = topk_rows(sim, self.neighbors)
        from scipy import sparse

        w = sparse.csr_matrix((s, (r, c)), shape=(len(codes), x.shape[0]))
        out[known] = (w @ x).toarray()
        return out

    def __repr__(self) -> str:
        return f"UserKNN(neighbors={self.neighbors})"
