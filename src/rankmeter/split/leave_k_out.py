"""Leave-k-out (leave-one-out for k=1): each user's k latest, or k random, interactions."""

from __future__ import annotations

from typing import Any, Literal

import numpy as np

from .._errors import ParameterError
from ._common import (
    Seed,
    SmallUsersPolicy,
    Split,
    check_choice,
    check_int,
    check_small_policy,
    finish,
    load,
    make_rng,
    prepare,
    random_per_user,
)
from .temporal import last_per_user, time_values_for
from .validation import with_validation

__all__ = ["leave_k_out"]


@with_validation(lambda a: (a["by"] == "time", True))
def leave_k_out(
    interactions: Any,
    *,
    k: int = 1,
    by: Literal["time", "random"] = "time",
    seed: Seed = 0,
    min_user_interactions: int = 1,
    min_item_interactions: int = 1,
    iterate_filters: bool = False,
    small_users: SmallUsersPolicy = "train",
    drop_cold_users: bool = False,
    drop_cold_items: bool = False,
    user: str | None = None,
    item: str | None = None,
    timestamp: str | None = None,
) -> Split:
    """Leave-k-out: exactly ``k`` test interactions per user, the rest in train.

    ``by="time"`` takes each user's ``k`` latest interactions (ties: the later row of
    the input is later; see :mod:`rankmeter.split.temporal`); ``by="random"`` takes ``k``
    uniformly at random (seeded). Every user with more than ``k`` interactions is
    *eligible* and gets exactly ``k`` test rows and at least one train row. Users with
    ``k`` or fewer are *small users*: reported, and kept in train (``small_users="train"``),
    left out (``"drop"``) or refused (``"error"``). ``k=1`` is leave-one-out.

    Raises:
        ParameterError: k < 1, or k >= the interactions of every user (nobody eligible).
        InputError: ``by="time"`` without a timestamp column.

    >>> data = {"user": ["a", "a", "a", "b"], "item": [1, 2, 3, 1], "time": [1, 3, 2, 9]}
    >>> s = leave_k_out(data, k=1)
    >>> s.test_rows.tolist(), s.summary.small_users.users
    ([1], 1)
    """
    func = "leave_k_out"
    k = check_int(k, "k", func, 1)
    check_choice(by, "by", func, ("time", "random"))
    check_choice(small_users, "small_users", func, ("train", "drop", "error"))
    rng, seed_note = make_rng(seed, func)
    data = load(interactions, user=user, item=item, timestamp=timestamp if by == "time" else (timestamp or False))
    t = time_values_for(data, func) if by == "time" else None
    prep = prepare(
        data, func,
        min_user_interactions=min_user_interactions,
        min_item_interactions=min_item_interactions,
        iterate_filters=iterate_filters,
    )
    params: dict[str, Any] = {"k": k, "by": by}
    if by == "time":
        params["tie_rule"] = "timestamp, then input position"
        # by='time' has timestamps (the ignore below)
        test, small, rule = last_per_user(prep, t, func, k=k, fraction=None, small_users=small_users)  # type: ignore[arg-type]
    else:
        params["seed"] = seed_note
        counts = prep.user_counts()
        if counts.max(initial=0) <= k:
            raise ParameterError(
                f"The 'k' parameter of {func} must be smaller than the number of interactions of "
                f"at least one user (the largest user has {int(counts.max(initial=0))}), so that the user "
                f"keeps one in train. Got {k} instead."
            )
        small = (counts > 0) & (counts <= k)
        rule = f"{k} or fewer interactions" if k > 1 else "only 1 interaction"
        check_small_policy(prep, small, small_users, rule, f"k={k} test rows and one train row are needed")
        eligible = counts > k
        test = random_per_user(prep, eligible, np.where(eligible, k, 0), rng)
    return finish(
        prep, test, method=func, params=params, small=small, small_rule=rule,
        small_users=small_users, drop_cold_users=drop_cold_users, drop_cold_items=drop_cold_items,
    )
