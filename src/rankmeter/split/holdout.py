"""Random hold-out: a test fraction of all interactions, or of each user's interactions."""

from __future__ import annotations

from typing import Any

import numpy as np

from .._errors import InputError
from ._common import (
    Seed,
    SmallUsersPolicy,
    Split,
    check_choice,
    check_fraction,
    check_small_policy,
    finish,
    load,
    make_rng,
    prepare,
    random_per_user,
    round_count,
)
from .validation import with_validation

__all__ = ["holdout"]


@with_validation(lambda a: (False, bool(a["per_user"])))
def holdout(
    interactions: Any,
    *,
    test_fraction: float = 0.2,
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
) -> Split:
    """Random hold-out: put a fraction of the interactions in test, uniformly at random.

    Global (``per_user=False``): ``m = round(test_fraction * N)`` of the ``N``
    interactions (after the filters) go to test, every ``m``-subset equally likely.
    Per user (``per_user=True``): each user with ``n >= 2`` interactions gets
    ``m = round(test_fraction * n)`` test rows chosen uniformly among theirs, so every
    such user keeps at least one row in train and one in test. Users with one
    interaction are *small users*: reported and, by default, kept entirely in train
    (``small_users="drop"`` leaves them out, ``"error"`` refuses).

    The rounding rule: nearest integer, halves rounded up, clamped to ``[1, n - 1]``
    (computed exactly: the fraction is read as the nearest p/q with q <= 10**6).

    Randomness comes only from ``seed`` (an int, or a ``numpy.random.Generator``):
    the same seed and input give the same split.

    Args:
        interactions: anything :func:`rankmeter.io.interactions.read_interactions` takes.
        test_fraction: in (0, 1).
        per_user: fraction within each user instead of over all interactions.
        seed: int >= 0 or numpy Generator.
        min_user_interactions, min_item_interactions: keep only rows whose user and
            item have at least this many rows (counted on the input, before splitting);
            removed rows are counted in ``summary.filtered``.
        iterate_filters: repeat the filters until they hold on the kept rows (k-core).
        small_users: ``"train"``, ``"drop"`` or ``"error"``.
        drop_cold_users, drop_cold_items: remove from test the rows whose user / item
            has no training row (they are counted either way).
        user, item: column names (detected when None).

    Returns:
        A :class:`~rankmeter.split.Split` (``train, test = holdout(...)``).

    >>> data = {"user": ["a"] * 5 + ["b"] * 5 + ["c"], "item": list(range(11))}
    >>> s = holdout(data, test_fraction=0.2, per_user=True, seed=1)
    >>> s.summary.test.rows, s.summary.train.rows, s.summary.small_users.users
    (2, 9, 1)
    """
    func = "holdout"
    fraction = check_fraction(test_fraction, "test_fraction", func)
    check_choice(small_users, "small_users", func, ("train", "drop", "error"))
    rng, seed_note = make_rng(seed, func)
    data = load(interactions, user=user, item=item, timestamp=False)
    prep = prepare(
        data, func,
        min_user_interactions=min_user_interactions,
        min_item_interactions=min_item_interactions,
        iterate_filters=iterate_filters,
    )
    n = prep.n_rows
    test = np.zeros(n, dtype=bool)
    params: dict[str, Any] = {"test_fraction": float(test_fraction), "per_user": bool(per_user), "seed": seed_note}
    if not per_user:
        rows = None if prep.active is None else np.flatnonzero(prep.active)
        total = prep.n_active()
        if total < 2:
            raise InputError(f"holdout: {total} interaction(s) after the filters; a hold-out needs at least 2")
        m = int(round_count(total, fraction))
        chosen = rng.permutation(total)[:m]
        test[chosen if rows is None else rows[chosen]] = True
        del chosen
        return finish(
            prep, test, method=func, params=params, small=None, small_rule="",
            small_users=small_users, drop_cold_users=drop_cold_users, drop_cold_items=drop_cold_items,
        )
    counts = prep.user_counts()
    small = (counts > 0) & (counts < 2)
    rule = "fewer than 2 interactions"
    check_small_policy(prep, small, small_users, rule, "a per-user hold-out needs one train and one test row")
    eligible = counts >= 2
    n_test = np.where(eligible, round_count(counts, fraction), 0)
    test = random_per_user(prep, eligible, n_test, rng)
    return finish(
        prep, test, method=func, params=params, small=small, small_rule=rule,
        small_users=small_users, drop_cold_users=drop_cold_users, drop_cold_items=drop_cold_items,
    )
