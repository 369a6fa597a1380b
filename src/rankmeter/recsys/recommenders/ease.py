"""EASE: an embarrassingly shallow autoencoder, a closed-form linear item-item model.

Model (Steck 2019, "Embarrassingly Shallow Autoencoders for Sparse Data", WWW,
doi:10.1145/3308558.3313710): with the binary user-item matrix ``X`` and the Gram matrix
``G = X^T X + lambda I``, ``P = G^-1`` and the item-item weights

    B = I - P diag(1 / diag(P)),   so that diag(B) = 0,

the closed-form minimiser of ``||X - X B||^2 + lambda ||B||^2`` subject to ``diag(B) = 0``. A
user's score for item ``i`` is ``(x_u B)_i``. Default ``l2 = 500`` (Steck's value for
MovieLens-20M is 500; the paper finds the results flat over a wide range).

Memory: ``B`` is dense, ``n_items^2`` floats, so EASE is for catalogues of up to some tens of
thousands of items; a larger one is refused up front with its size.
"""

from __future__ import annotations

import numpy as np

from ..._errors import ParameterError
from ._base import MatrixRecommender

__all__ = ["EASE"]

#: the largest dense item-item matrix EASE builds (bytes): 20k items
MAX_BYTES = 20_000 * 20_000 * 8


class EASE(MatrixRecommender):
    """EASE with L2 regularisation ``l2``.

    >>> train = {"user": ["u1", "u1", "u2", "u2", "u3"], "item": ["a", "b", "a", "b", "a"]}
    >>> EASE(l2=1.0).fit(train).recommend(["u3"], k=1).to_pydict()
    {'user': ['u3'], 'item': ['b'], 'score': [0.5]}
    """

    name = "ease"

    def __init__(self, l2: float = 500.0) -> None:
        super().__init__()
        if isinstance(l2, bool) or not isinstance(l2, (int, float, np.floating)) or not np.isfinite(l2) or l2 <= 0:
            raise ParameterError(f"The 'l2' parameter of EASE must be a float > 0. Got {l2!r} instead.")
        self.l2 = float(l2)
        self.weights: np.ndarray | None = None

    def _fit_model(self) -> None:
        x = self.data.matrix
        m = x.shape[1]
        if m * m * 8 > MAX_BYTES:
            raise ParameterError(f"EASE builds a dense {m} x {m} item-item matrix ({m * m * 8 / 1e9:.1f} GB); "
                                 f"at most {int(np.sqrt(MAX_BYTES / 8))} items are supported: use itemknn or als")
        g = (x.T @ x).toarray().astype(np.float64)
        g[np.diag_indices(m)] += self.l2
        p = np.linalg.inv(g)
        b = -p / np.diag(p)[None, :]
        b[np.diag_indices(m)] = 0.0
        self.weights = b

    def _score_block(self, user_codes: np.ndarray, user_ids: list[str]) -> np.ndarray:
        assert self.weights is not None  # fitted (data would have raised otherwise)
        out = np.zeros((len(user_codes), self.weights.shape[0]))
        known = user_codes >= 0
        if known.any():
            out[known] = self.data.matrix[user_codes[known]] @ self.weights
        return out

    def __repr__(self) -> str:
        return f"EASE(l2={self.l2:g})"
