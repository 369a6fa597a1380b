"""Sampled-negative evaluation: rank each user's test items among N sampled non-interacted items.

Many papers score a recommender by ranking each test user's held-out items against
``N`` (often 100) items drawn at random among those the user never interacted with,
instead of against the whole catalogue. This is cheaper, but **it inflates the
scores** compared with full ranking, and can even change which of two recommenders
looks better (Krichene & Rendle 2020, "On sampled metrics for item recommendation",
KDD, doi:10.1145/3394486.3403226). rankmeter supports it to reproduce such papers,
and labels every result computed this way with :func:`label`:
``"sampled (N=100, seed=0): inflates scores vs full ranking"``.

Sampling: for each user, ``N`` distinct items uniformly from the catalogue minus
every item the user interacted with (train and test), from a generator seeded with
``(seed, crc32(user id))``: a user's negatives depend only on the seed, the user, the
catalogue and the user's items, not on the other users. A user with fewer than ``N``
such items gets all of them (counted in ``Candidates.short_users``).

>>> c = sample_negatives({"user": ["u1", "u1", "u2"], "item": ["a", "b", "c"]}, n=2, seed=0,
...                      interactions={"user": ["u1", "u1", "u2", "u1"], "item": ["a", "b", "c", "d"]},
...                      catalog=["a", "b", "c", "d", "e", "f"])
>>> sorted(c.to_mapping()["u1"]), c.n_negatives, c.label  # a, b tested; 2 of c, e, f (d is known)
(['a', 'b', 'e', 'f'], 2, 'sampled (N=2, seed=0): inflates scores vs full ranking')
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass
from typing import Any, Iterable

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from .._errors import ParameterError
from ..data._ids import as_string_array, encode, union_vocab

__all__ = ["Candidates", "sample_negatives", "label", "restrict"]


def label(n: int, seed: int) -> str:
    """The label every sampled-mode output carries."""
    return f"sampled (N={n}, seed={seed}): inflates scores vs full ranking"


@dataclass(frozen=True, eq=False)
class Candidates:
    """Per-user candidate items: the user's test items plus the sampled negatives.

    ``users`` (text ids), ``offsets`` (CSR: user ``u`` owns ``items[offsets[u]:offsets[u+1]]``),
    ``items`` (text ids), ``negatives`` (how many of each user's candidates are sampled),
    ``short_users`` (users who had fewer than ``n_negatives`` items to sample from).
    """

    users: pa.Array
    offsets: np.ndarray
    items: pa.Array
    negatives: np.ndarray
    n_negatives: int
    seed: int
    short_users: int = 0

    @property
    def label(self) -> str:
        return label(self.n_negatives, self.seed)

    def to_mapping(self) -> dict[str, list[str]]:
        ids = self.items.to_pylist()
        return {u: ids[self.offsets[n]:self.offsets[n + 1]] for n, u in enumerate(self.users.to_pylist())}

    def pair_mask(self, users: pa.Array, items: pa.Array) -> np.ndarray:
        """For rows ``(users[r], items[r])``: is the item a candidate of that user?"""
        if len(users) == 0:
            return np.zeros(0, dtype=bool)
        key_c = pc.binary_join_element_wise(self.users.take(pa.array(
            np.repeat(np.arange(len(self.users)), np.diff(self.offsets)))), self.items, "\x00")
        key_r = pc.binary_join_element_wise(as_string_array(users), as_string_array(items), "\x00")
        return np.asarray(pc.is_in(key_r, value_set=key_c).to_numpy(zero_copy_only=False), dtype=bool)

    def __repr__(self) -> str:
        return f"Candidates({len(self.users)} users, {len(self.items)} items; {self.label})"


def _pairs(data: Any) -> tuple[pa.Array, pa.Array]:
    from .beyond import user_item_ids

    return user_item_ids(data)


def _check_n(n: Any) -> int:
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1:
        raise ParameterError(f"The 'n' parameter of sample_negatives must be an int >= 1. Got {n!r} instead.")
    return int(n)


def sample_negatives(test: Any, *, n: int = 100, seed: int = 0, interactions: Any = None,
                     catalog: Iterable[Any] | None = None) -> Candidates:
    """Candidates for sampled evaluation: each test user's test items plus ``n`` sampled negatives.

    ``test``: the test interactions (anything ``read_interactions`` reads, or a Qrels).
    ``interactions``: everything known about the users (train and test; default: ``test``);
    negatives avoid all of it. ``catalog``: the items to sample from (default: every
    item of ``interactions`` and ``test``).
    """
    n = _check_n(n)
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ParameterError(f"The 'seed' parameter of sample_negatives must be an int >= 0. Got {seed!r} instead.")
    tu, ti = _pairs(test)
    ku, ki = _pairs(interactions) if interactions is not None else (tu, ti)
    ku, ki = pa.concat_arrays([ku, tu]), pa.concat_arrays([ki, ti])
    if catalog is None:
        cat = union_vocab(ki)
    else:
        cat = union_vocab(as_string_array(list(catalog) if not isinstance(catalog, (pa.Array, np.ndarray))
                                          else catalog))
    return sample_candidates(tu, ti, ku, ki, cat, n, int(seed))


def sample_candidates(tu: pa.Array, ti: pa.Array, ku: pa.Array, ki: pa.Array, cat: pa.Array, n: int, seed: int) -> Candidates:
    users = union_vocab(tu)
    nu, m = len(users), len(cat)
    # each user's known items, as sorted catalogue positions
    kuc = np.asarray(pc.fill_null(pc.index_in(ku, value_set=users), -1).to_numpy(zero_copy_only=False))
    kic = np.asarray(pc.fill_null(pc.index_in(ki, value_set=cat), -1).to_numpy(zero_copy_only=False))
    keep = (kuc >= 0) & (kic >= 0)
    keys = np.unique(kuc[keep].astype(np.int64) * max(m, 1) + kic[keep])
    known_user = keys // max(m, 1)
    known_item = keys % max(m, 1)
    known_off = np.searchsorted(known_user, np.arange(nu + 1))
    # each user's test items (text, any item: test items may be outside the catalogue)
    tuc, _ = encode(tu) if len(tu) else (np.zeros(0, dtype=np.int64), users)
    tcodes, tvocab = encode(ti) if len(ti) else (np.zeros(0, dtype=np.int64), pa.array([], pa.string()))
    tkeys = np.unique(tuc * max(len(tvocab), 1) + tcodes)
    t_user = tkeys // max(len(tvocab), 1)
    t_item = tkeys % max(len(tvocab), 1)
    t_off = np.searchsorted(t_user, np.arange(nu + 1))
    out_items: list[pa.Array] = []
    offsets = [0]
    negs = np.zeros(nu, dtype=np.int64)
    short = 0
    uids = users.to_pylist()
    for u in range(nu):
        seen = known_item[known_off[u]:known_off[u + 1]]  # sorted, unique
        free = m - len(seen)
        take = min(n, free)
        if take < n:
            short += 1
        rng = np.random.default_rng([seed, zlib.crc32(uids[u].encode("utf-8"))])
        j = np.sort(rng.choice(free, size=take, replace=False)) if take > 0 else np.zeros(0, dtype=np.int64)
        # the j-th catalogue position not in `seen`
        shift = np.searchsorted(seen - np.arange(len(seen)), j, side="right")
        neg = j + shift
        pos_items = tvocab.take(pa.array(t_item[t_off[u]:t_off[u + 1]]))
        out_items.append(pos_items)
        out_items.append(cat.take(pa.array(neg, pa.int64())))
        negs[u] = take
        offsets.append(offsets[-1] + len(pos_items) + take)
    items = pa.concat_arrays(out_items) if out_items else pa.array([], pa.string())
    return Candidates(users=users, offsets=np.asarray(offsets, dtype=np.int64), items=items, negatives=negs,
                      n_negatives=n, seed=seed, short_users=short)


def restrict(table: pa.Table, candidates: Candidates) -> tuple[pa.Table, int]:
    """Keep the rows of a ``user, item, score`` table whose item is a candidate of its user.

    Returns the kept rows and the number of rows left out (for lists computed without
    the candidates, e.g. a file of top-k lists).
    """
    mask = candidates.pair_mask(table.column("user").combine_chunks(), table.column("item").combine_chunks())
    return table.filter(pa.array(mask)), int((~mask).sum())
