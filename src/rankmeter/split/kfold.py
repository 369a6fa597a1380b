"""k-fold cross-validation over interactions, over users, or user-stratified."""

from __future__ import annotations

from typing import Any, Literal

import numpy as np

from .._errors import InputError, ParameterError
from ._common import (
    Folds,
    FoldsSummary,
    Seed,
    SmallUsers,
    SmallUsersPolicy,
    check_choice,
    check_int,
    check_small_policy,
    finish,
    group_order_random,
    load,
    make_rng,
    prepare,
)
from .validation import with_validation

__all__ = ["kfold"]


@with_validation(lambda a: (False, bool(a["per_user"])))
def kfold(
    interactions: Any,
    *,
    folds: int = 5,
    unit: Literal["interactions", "users"] = "interactions",
    per_user: bool = False,
    seed: Seed = 0,
    min_user_interactions: int = 1,
    min_item_interactions: int = 1,
    iterate_filters: bool = False,
    small_users: SmallUsersPolicy = "train",
    drop_cold_users: bool = False,
    drop_cold_items: bool = False,
    user: str | None = None,
    item: str | None = None,
) -> Folds:
    """k-fold cross-validation: ``folds`` disjoint test folds; fold f trains on the rest.

    * ``unit="interactions"`` (default): the interactions are dealt at random into
      ``folds`` folds whose sizes differ by at most one; each interaction is in exactly
      one test fold.
    * ``per_user=True`` (user-stratified): each user's interactions are spread over the
      folds: in random order, the user's i-th interaction goes to fold
      ``(i + o_u) mod folds`` with a random offset ``o_u``, so the user's count in any two
      folds differs by at most one, and every user with at least 2 interactions keeps a
      training row in every fold. Users with one interaction are *small users*
      (reported; kept in train in every fold by default, or dropped, or refused).
    * ``unit="users"``: the users are dealt into ``folds`` folds (sizes differ by at most
      one user); fold f tests all interactions of its users, so every test user is cold
      (reported as such; ``drop_cold_users`` is refused).

    Returns:
        :class:`~rankmeter.split.Folds`, a sequence of :class:`~rankmeter.split.Split`
        (``folds[0]`` is fold 1); ``.summary`` has the shared and per-fold counts and
        ``.fold_of`` the test fold of every input row (-1: none).

    Raises:
        ParameterError: folds < 2, more folds than interactions (or users), per_user
            with unit="users", drop_cold_users with unit="users".

    >>> data = {"user": list("aaaabbbb"), "item": list(range(8))}
    >>> f = kfold(data, folds=4, per_user=True, seed=3)
    >>> [s.summary.test.rows for s in f], sorted(f.fold_of.tolist())
    ([2, 2, 2, 2], [0, 0, 1, 1, 2, 2, 3, 3])
    """
    func = "kfold"
    folds = check_int(folds, "folds", func, 2)
    check_choice(unit, "unit", func, ("interactions", "users"))
    check_choice(small_users, "small_users", func, ("train", "drop", "error"))
    if per_user and unit == "users":
        raise ParameterError(
            "The 'per_user' parameter of kfold spreads each user's interactions over the folds; "
            "it cannot be combined with unit='users', which puts each user in one fold."
        )
    if drop_cold_users and unit == "users":
        raise ParameterError(
            "The 'drop_cold_users' parameter of kfold cannot be used with unit='users': every "
            "test user is absent from train by design, so the test folds would be empty."
        )
    rng, seed_note = make_rng(seed, func)
    data = load(interactions, user=user, item=item, timestamp=False)
    prep = prepare(
        data, func,
        min_user_interactions=min_user_interactions,
        min_item_interactions=min_item_interactions,
        iterate_filters=iterate_filters,
    )
    n = prep.n_rows
    fold_of = np.full(n, -1, dtype=np.int16 if folds < 2**15 else np.int64)
    small: np.ndarray | None = None
    rule = ""
    params: dict[str, Any] = {"folds": folds, "unit": unit, "per_user": bool(per_user), "seed": seed_note}
    if unit == "users":
        counts = prep.user_counts()
        present = np.flatnonzero(counts > 0)
        if len(present) < folds:
            raise ParameterError(
                f"The 'folds' parameter of kfold must be at most the number of users "
                f"({len(present)}) with unit='users'. Got {folds} instead."
            )
        user_fold = np.full(prep.n_user_codes, -1, dtype=np.int64)
        user_fold[present[rng.permutation(len(present))]] = np.arange(len(present)) % folds
        if prep.active is None:
            fold_of[:] = user_fold[prep.users]
        else:
            rows = np.flatnonzero(prep.active)
            fold_of[rows] = user_fold[prep.users[rows]]
    elif not per_user:
        rows = np.arange(prep.n_rows) if prep.active is None else np.flatnonzero(prep.active)
        if len(rows) < folds:
            raise ParameterError(
                f"The 'folds' parameter of kfold must be at most the number of interactions "
                f"({len(rows)}). Got {folds} instead."
            )
        fold_of[rows[rng.permutation(len(rows))]] = np.arange(len(rows)) % folds
    else:
        counts = prep.user_counts()
        small = (counts > 0) & (counts < 2)
        rule = "fewer than 2 interactions"
        check_small_policy(prep, small, small_users, rule, "a user-stratified fold needs one train row")
        eligible = counts >= 2
        keep = eligible[prep.users]
        if prep.active is not None:
            keep &= prep.active
        order = group_order_random(prep, np.flatnonzero(keep), rng)
        n_u = counts[eligible]
        offsets = rng.integers(0, folds, size=len(n_u))
        starts = np.cumsum(n_u) - n_u
        position = np.arange(len(order), dtype=np.int64) - np.repeat(starts - offsets, n_u)
        fold_of[order] = position % folds
    if prep.n_active() == 0:
        raise InputError("kfold: no interaction left after the filters")
    results = []
    for f in range(folds):
        results.append(
            finish(
                prep, fold_of == f, method=func, params=params, small=small, small_rule=rule,
                small_users=small_users, drop_cold_users=drop_cold_users,
                drop_cold_items=drop_cold_items, fold=f + 1,
            )
        )
    first = results[0].summary
    summary = FoldsSummary(
        method=func,
        params=first.params,
        input=first.input,
        filtered=first.filtered,
        small_users=first.small_users if small is not None else SmallUsers(0, 0, small_users, ""),
        folds=tuple(r.summary for r in results),
    )
    return Folds(results, summary, fold_of)
