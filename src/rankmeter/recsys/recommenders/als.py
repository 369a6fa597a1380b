"""Implicit-feedback matrix factorisation by alternating least squares.

Model (Hu, Koren and Volinsky 2008, "Collaborative Filtering for Implicit Feedback Datasets",
ICDM, doi:10.1109/ICDM.2008.22): preferences ``p_ui = 1`` for observed pairs (else 0) with
confidence ``c_ui = 1 + alpha`` (else 1); user and item factors minimise

    sum_ui c_ui (p_ui - x_u . y_i)^2 + l2 (sum_u ||x_u||^2 + sum_i ||y_i||^2),

each side solved exactly in turn: ``x_u = (Y^T Y + alpha Y_u^T Y_u + l2 I)^-1 (1 + alpha) Y_u^T 1``
(the ``Y^T Y`` trick of the paper). Factors start from a normal draw of scale 0.01 seeded by
``seed``, so the model is deterministic; pure numpy, no threads of its own beyond BLAS.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ..._errors import ParameterError
from ._base import MatrixRecommender

if TYPE_CHECKING:
    from scipy import sparse

__all__ = ["ALS"]

_BLOCK_FLOATS = 8_000_000  # floats of one block of rows' normal equations (64 MB)


def _solve_side(fixed: np.ndarray, x: "sparse.csr_matrix", alpha: float, l2: float) -> np.ndarray:
    """One ALS half-step: the factors of every row of the binary matrix ``x`` given the other side's
    ``fixed`` factors. ``sum_{i in row} y_i y_i^T`` of every row comes from one sparse product with the
    outer products ``y_i (x) y_i``, in blocks of rows of at most ``_BLOCK_FLOATS`` floats."""
    n, f = x.shape[0], fixed.shape[1]
    gram = fixed.T @ fixed + l2 * np.eye(f)
    outer = (fixed[:, :, None] * fixed[:, None, :]).reshape(len(fixed), f * f)
    out = np.zeros((n, f))
    step = max(1, _BLOCK_FLOATS // (f * f))
    for a in range(0, n, step):
        b = min(a + step, n)
        part = x[a:b]
        has = np.diff(part.indptr) > 0
        if not has.any():
            continue
        lhs = gram[None, :, :] + alpha * np.asarray(part @ outer).reshape(b - a, f, f)
        rhs = (1.0 + alpha) * np.asarray(part @ fixed)
        out[a:b][has] = np.linalg.solve(lhs[has], rhs[has][:, :, None])[:, :, 0]
    return out


class ALS(MatrixRecommender):
    """Implicit ALS with ``factors`` dimensions, confidence weight ``alpha``, L2 ``l2``, ``iterations``.

    >>> train = {"user": ["u1", "u1", "u2", "u2", "u3"], "item": ["a", "b", "a", "b", "a"]}
    >>> ALS(factors=2, iterations=10).fit(train).recommend(["u3"], k=1).column("item").to_pylist()
    ['b']
    """

    name = "als"

    def __init__(self, factors: int = 32, alpha: float = 10.0, l2: float = 0.1, iterations: int = 10,
                 seed: int = 0) -> None:
        super().__init__()
        for pname, v, lo in (("factors", factors, 1), ("iterations", iterations, 1), ("seed", seed, 0)):
            if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < lo:
                raise ParameterError(f"The '{pname}' parameter of ALS must be an int >= {lo}. Got {v!r} instead.")
        for pname, x in (("alpha", alpha), ("l2", l2)):
            if isinstance(x, bool) or not isinstance(x, (int, float, np.floating)) or not np.isfinite(x) or x < 0:
                raise ParameterError(f"The '{pname}' parameter of ALS must be a float >= 0. Got {x!r} instead.")
        self.factors, self.alpha, self.l2 = int(factors), float(alpha), float(l2)
        self.iterations, self.seed = int(iterations), int(seed)
        self.user_factors: np.ndarray | None = None
        self.item_factors: np.ndarray | None = None

    def _fit_model(self) -> None:
        x = self.data.matrix.tocsr()
        xt = x.T.tocsr()
        rng = np.random.default_rng(self.seed)
        users = rng.normal(0.0, 0.01, (x.shape[0], self.factors))
        items = rng.normal(0.0, 0.01, (x.shape[1], self.factors))
        for _ in range(self.iterations):
            users = _solve_side(items, x, self.alpha, self.l2)
            items = _solve_side(users, xt, self.alpha, self.l2)
        self.user_factors, self.item_factors = users, items

    def _score_block(self, user_codes: np.ndarray, user_ids: list[str]) -> np.ndarray:
        assert self.user_factors is not None and self.item_factors is not None  # fitted
        out = np.zeros((len(user_codes), self.item_factors.shape[0]))
        known = user_codes >= 0
        if known.any():
            out[known] = self.user_factors[user_codes[known]] @ self.item_factors.T
        return out

    def __repr__(self) -> str:
        return (f"ALS(factors={self.factors}, alpha={self.alpha:g}, l2={self.l2:g}, iterations={self.iterations}, "
                f"seed={self.seed})")
