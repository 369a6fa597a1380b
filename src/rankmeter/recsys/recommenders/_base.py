"""The shared machinery of the reference recommenders: coding, masking, top-k with a fixed tie rule.

A recommender is fitted on training interactions and returns, for the users asked
for, a table ``user, item, score`` with at most ``k`` rows per user, best first. The
tie rule is the one :class:`rankmeter.Run` applies when it orders a scored run: score
descending, then item id descending (byte order). The top-k set is chosen with the
same rule, so a list is exactly the first ``k`` items of the full ranking.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterable, Mapping

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ..._errors import ParameterError, RankmeterError
from ...data.ids import as_string_array, encode, recode, union_vocab

__all__ = ["Recommender", "MatrixRecommender", "topk_rows", "check_k", "as_user_ids", "coded_candidates",
           "empty_recommendations"]

_BLOCK = 4_000_000  # score-matrix cells per chunk of users


class Recommender:
    """Interface: ``fit(train)`` then ``recommend(users, k)`` -> Arrow table ``user, item, score``."""

    name: str = "recommender"

    def fit(self, train: Any, *, user: str | None = None, item: str | None = None) -> "Recommender":
        return self

    def recommend(self, users: Iterable[Any], k: int = 10, *, exclude_seen: bool = True,
                  candidates: Any = None) -> pa.Table:
        raise NotImplementedError

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"


def check_k(k: Any, func: str) -> int:
    """``k`` as an int >= 1 that fits in 64 bits (the declared range of every cutoff), else a ParameterError."""
    from ..._params import check_int

    return int(check_int("k", k, func=func, low=1))


def as_user_ids(users: Iterable[Any]) -> pa.Array:
    """Requested users as unique text ids, in the order first given."""
    if isinstance(users, (str, bytes)):
        raise ParameterError(f"users must be a collection of user ids, not one id ({users!r})")
    arr = as_string_array(users if isinstance(users, (pa.Array, pa.ChunkedArray, np.ndarray)) else list(users))
    return pc.unique(arr)


def index_or_minus_one(values: pa.Array, vocab: pa.Array) -> np.ndarray:
    """Position of each value in ``vocab``, -1 where absent."""
    if len(values) == 0:
        return np.zeros(0, dtype=np.int64)
    idx = pc.index_in(values, value_set=vocab)
    return np.asarray(pc.fill_null(idx, -1).to_numpy(zero_copy_only=False), dtype=np.int64)


def empty_recommendations() -> pa.Table:
    return pa.table({"user": pa.array([], pa.string()), "item": pa.array([], pa.string()),
                     "score": pa.array([], pa.float64())})


def topk_rows(scores: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Top ``k`` of every row of a score matrix: ``(row, column, score)``, rows in order, best first.

    The tie rule is :mod:`rankmeter.data.order`'s, with the columns standing for the item
    ids: the item vocabulary is sorted by bytes, so a larger column is a larger id
    (tests/recommenders/test_tie_rule.py checks this selection against ``rank_order``).

    Cells at ``-inf`` are not allowed. Ties: larger column (= larger item id) first, so
    columns must be in item-id order. Exact, vectorised (no sort of whole rows).

    >>> r, c, s = topk_rows(np.array([[1.0, 3.0, 3.0, -np.inf], [0.0, 0.0, 0.0, 0.0]]), 2)
    >>> r.tolist(), c.tolist(), s.tolist()
    ([0, 0, 1, 1], [2, 1, 3, 2], [3.0, 3.0, 0.0, 0.0])
    """
    n, m = scores.shape
    kk = min(k, m)
    if n == 0 or kk == 0:
        e = np.zeros(0, dtype=np.int64)
        return e, e, np.zeros(0)
    allowed = scores > -np.inf
    if kk < m:
        kth = np.argpartition(-scores, kk - 1, axis=1)[:, kk - 1]
        t = scores[np.arange(n), kth]
    else:
        t = np.full(n, -np.inf)
    t = t[:, None]
    above = scores > t
    tie = scores == t
    need = kk - above.sum(axis=1, keepdims=True)
    from_right = np.cumsum(tie[:, ::-1], axis=1)[:, ::-1]
    sel = (above | (tie & (from_right <= need))) & allowed
    r, c = np.nonzero(sel)
    s = scores[r, c]
    order = np.lexsort((-c, -s, r))
    return r[order], c[order], s[order]


@dataclass(frozen=True)
class _Coded:
    users: pa.Array  # sorted training user ids
    items: pa.Array  # sorted training item ids
    matrix: Any  # scipy.sparse csr (users x items), 1.0 where the user interacted
    users_per_item: np.ndarray


def coded_candidates(candidates: Any, users: pa.Array) -> tuple[pa.Array, np.ndarray, np.ndarray]:
    """Candidate lists per requested user as ``(item vocabulary, row, column)`` cells."""
    if hasattr(candidates, "to_mapping"):
        candidates = candidates.to_mapping()
    if not isinstance(candidates, Mapping):
        raise ParameterError("candidates must be a mapping user -> item ids or a rankmeter.sampled.Candidates. "
                             f"Got {type(candidates).__name__} instead.")
    cand = {str(u): v for u, v in candidates.items()}
    uids = users.to_pylist()
    missing = [u for u in uids if u not in cand]
    if missing:
        raise ParameterError(f"candidates has no list for {len(missing)} requested users, e.g. {missing[:3]}")
    rows, items = [], []
    for r, u in enumerate(uids):
        lst = [str(i) for i in cand[u]]
        rows.append(np.full(len(lst), r, dtype=np.int64))
        items += lst
    iarr = as_string_array(pa.array(items, pa.string()))
    codes, vocab = encode(iarr) if len(iarr) else (np.zeros(0, dtype=np.int64), pa.array([], pa.string()))
    return vocab, (np.concatenate(rows) if rows else np.zeros(0, dtype=np.int64)), codes


class MatrixRecommender(Recommender):
    """A recommender that scores every (user, item) cell; subclasses give ``_score_block``."""

    def __init__(self) -> None:
        self._data: _Coded | None = None

    # -- fitting -----------------------------------------------------------------
    def fit(self, train: Any, *, user: str | None = None, item: str | None = None) -> "MatrixRecommender":
        from scipy import sparse

        from ..beyond import user_item_ids

        users, items = user_item_ids(train, user, item)
        if len(users) == 0:
            raise ParameterError(f"{self.name}.fit needs at least one training interaction. Got none.")
        ucodes, uvocab = encode(users)
        icodes, ivocab = encode(items)
        x = sparse.csr_matrix((np.ones(len(ucodes)), (ucodes, icodes)), shape=(len(uvocab), len(ivocab)))
        x.sum_duplicates()
        x.data[:] = 1.0
        self._data = _Coded(uvocab, ivocab, x, np.asarray((x > 0).sum(axis=0)).ravel().astype(np.float64))
        self._fit_model()
        return self

    def _fit_model(self) -> None:
        """Subclasses build their model from ``self._data`` here."""

    @property
    def data(self) -> _Coded:
        if self._data is None:
            raise RankmeterError(f"{self.name} is not fitted: call .fit(train) first")
        return self._data

    @property
    def items(self) -> pa.Array:
        """The training items (the ones this recommender can score)."""
        return self.data.items

    # -- scoring -----------------------------------------------------------------
    def _score_block(self, user_codes: np.ndarray, user_ids: list[str]) -> np.ndarray:
        """Scores (len(user_codes), n training items); ``user_codes`` is -1 for a user unseen in training."""
        raise NotImplementedError

    def _extra_item_scores(self, user_ids: list[str], n_extra: int) -> np.ndarray:
        """Scores of candidate items absent from training (default 0: nothing is known about them)."""
        return np.zeros((len(user_ids), n_extra))

    def recommend(self, users: Iterable[Any], k: int = 10, *, exclude_seen: bool = True,
                  candidates: Any = None) -> pa.Table:
        """Top-``k`` lists of ``users`` as an Arrow table ``user, item, score`` (best first per user).

        ``exclude_seen`` leaves out each user's training items. ``candidates`` (a mapping
        user -> item ids, or :class:`rankmeter.sampled.Candidates`) restricts each user's
        list to those items (sampled evaluation); the candidate sets decide alone then
        (``exclude_seen`` is not applied), and candidate items unseen in training score
        as the recommender scores unknown items.
        """
        k = check_k(k, f"{self.name}.recommend")
        d = self.data
        uids = as_user_ids(users)
        ucodes = index_or_minus_one(uids, d.users)  # -1: a user unseen in training
        if candidates is not None:
            cvocab, crow, ccol_local = coded_candidates(candidates, uids)
            space = union_vocab(d.items, cvocab)
            train_cols = recode(d.items, space)
            cand_cols = recode(cvocab, space)[ccol_local] if len(ccol_local) else ccol_local
            extra = np.setdiff1d(np.arange(len(space)), train_cols)
        else:
            space, train_cols, extra = d.items, None, None
        n_space = len(space)
        if n_space == 0 or len(uids) == 0:
            return empty_recommendations()
        step = max(1, _BLOCK // n_space)
        out_u, out_i, out_s = [], [], []
        uid_list = uids.to_pylist()
        for a in range(0, len(uids), step):
            b = min(a + step, len(uids))
            codes = ucodes[a:b]
            block = self._score_block(codes, uid_list[a:b]).astype(np.float64, copy=False)
            if candidates is not None:
                full = np.empty((b - a, n_space))
                full[:, train_cols] = block
                if extra is not None and len(extra):
                    full[:, extra] = self._extra_item_scores(uid_list[a:b], len(extra))
                allowed = np.zeros((b - a, n_space), dtype=bool)
                in_chunk = (crow >= a) & (crow < b)
                allowed[crow[in_chunk] - a, cand_cols[in_chunk]] = True
                full[~allowed] = -np.inf
                block = full
            elif exclude_seen:
                known = codes >= 0
                if known.any():
                    sub = d.matrix[codes[known]].tocoo()
                    rows_local = np.flatnonzero(known)[sub.row]
                    block = block.copy() if not block.flags.writeable else block
                    block[rows_local, sub.col] = -np.inf
            r, c, s = topk_rows(block, k)
            out_u.append(r + a)
            out_i.append(c)
            out_s.append(s)
        rows = np.concatenate(out_u)
        return pa.table({
            "user": uids.take(pa.array(rows, pa.int64())),
            "item": space.take(pa.array(np.concatenate(out_i), pa.int64())),
            "score": np.concatenate(out_s),
        })

    def __repr__(self) -> str:
        state = "fitted" if self._data is not None else "not fitted"
        return f"{type(self).__name__}({state})"
