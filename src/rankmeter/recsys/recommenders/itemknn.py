"""Item-based k-nearest-neighbour recommender (cosine on the binary user-item matrix).

Model (Deshpande & Karypis 2004, "Item-based top-N recommendation algorithms", ACM
TOIS 22(1), doi:10.1145/963770.963776): the similarity of items ``j`` and ``i`` is the
cosine of their columns of the binary user-item matrix ``X``,
``sim(j, i) = |U_j ∩ U_i| / sqrt(|U_j| |U_i|)``. Each item keeps its ``neighbors`` most
similar items (ties: item id descending), giving a sparse matrix ``W``; a user's score
for item ``i`` is ``sum_{j in I_u} W[j, i]``.
"""

from __future__ import annotations

import numpy as np

from ..._errors import ParameterError
from ._base import MatrixRecommender, topk_rows

__all__ = ["ItemKNN"]

_BLOCK = 4_000_000


class ItemKNN(MatrixRecommender):
    """Item-kNN with cosine similarity, sparse, top-``neighbors`` per item.

    Items with equal scores (including a score of 0, when a user's items have no
    neighbour among the candidates) are ordered by item id descending.

    >>> train = {"user": ["u1", "u1", "u2", "u2", "u3"], "item": ["a", "b", "a", "b", "c"]}
    >>> rec = ItemKNN(neighbors=1).fit(train)
    >>> rec.recommend(["u4", "u1"], k=1).to_pydict()   # u4 is unknown: all scores 0, tie -> largest id
    {'user': ['u4', 'u1'], 'item': ['c', 'c'], 'score': [0.0, 0.0]}
    >>> ItemKNN().fit({"user": ["u1", "u1", "u2"], "item": ["a", "b", "a"]}).recommend(["u2"], k=1).to_pydict()
    {'user': ['u2'], 'item': ['b'], 'score': [0.7071067811865475]}
    """

    name = "itemknn"

    def __init__(self, neighbors: int = 50) -> None:
        super().__init__()
        if isinstance(neighbors, bool) or not isinstance(neighbors, (int, np.integer)) or neighbors < 1:
            raise ParameterError(f"The 'neighbors' parameter of ItemKNN must be an int >= 1. Got {neighbors!r} "
                                 "instead.")
        self.neighbors = int(neighbors)
        self.weights = None

    def _fit_model(self) -> None:
        from scipy import sparse

        # similarity = co-occurrence count / sqrt(|U_j| |U_i|), computed in that form (an integer
        # count over one square root) so that equal cosines are equal floats and ties stay ties
        x = self.data.matrix.tocsc().astype(np.float64)
        counts = np.asarray(self.data.users_per_item, dtype=np.float64)
        xt = x.T.tocsr()
        m = x.shape[1]
        step = max(1, _BLOCK // max(m, 1))
        rows, cols, vals = [], [], []
        for a in range(0, m, step):
            b = min(a + step, m)
            co = (xt[a:b] @ x).toarray()
            denom = np.sqrt(np.outer(counts[a:b], counts))
            sim = np.divide(co, denom, out=np.zeros_like(co), where=denom > 0)
            sim[np.arange(b - a), np.arange(a, b)] = -np.inf  # an item is not its own neighbour
            sim[sim <= 0] = -np.inf  # only items that share users
            r, c, s = topk_rows(sim, self.neighbors)
            rows.append(r + a)
            cols.append(c)
            vals.append(s)
        w = sparse.csr_matrix((np.concatenate(vals), (np.concatenate(rows), np.concatenate(cols))), shape=(m, m))
        self.weights = w

    def _score_block(self, user_codes: np.ndarray, user_ids: list[str]) -> np.ndarray:
        m = len(self.data.items)
        out = np.zeros((len(user_codes), m))
        known = user_codes >= 0
        if known.any():
            out[known] = (self.data.matrix[user_codes[known]] @ self.weights).toarray()
        return out

    def __repr__(self) -> str:
        return f"ItemKNN(neighbors={self.neighbors})"
