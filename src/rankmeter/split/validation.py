"""A validation part for every split protocol: carved out of the training rows by the protocol's own rule.

``validation_fraction=f`` (any protocol) moves a share ``f`` of the training rows to a
validation part, so that a model can be tuned on train -> validation and evaluated on
train -> test (or retrained on train + validation). The rows are chosen as the protocol
chooses its test rows: the latest ones (by timestamp, then input position) for
``temporal`` and ``leave_k_out(by="time")``, at random (seeded) for ``holdout``,
``leave_k_out(by="random")`` and ``kfold``; within each user for the per-user protocols
(``per_user=True``, ``leave_k_out``), else over all training rows. Counts:
``round(f * n)`` (nearest, halves up, clamped to ``[1, n - 1]``; a user with fewer than 2
training rows keeps them all). ``Split.validation`` holds the rows,
``summary.validation`` their counts; ``input.rows == train + validation + test + dropped``.
The cold-start counts of the summary refer to the training rows before the carving.
"""

from __future__ import annotations

import functools
import inspect
from dataclasses import replace
from typing import Any, Callable, TypeVar

import numpy as np

from ._common import Counts, Folds, Split, check_fraction, distinct, encode_column, round_count

__all__ = ["with_validation", "carve"]


def _rng(seed: Any) -> np.random.Generator:
    if isinstance(seed, np.random.Generator):
        return seed
    return np.random.default_rng([int(seed), 7919])


def carve(split: Split, fraction: Any, *, latest: bool, per_user: bool, seed: Any, func: str) -> Split:
    """The split with ``round(fraction * n)`` of its training rows moved to ``split.validation``."""
    f = check_fraction(fraction, "validation_fraction", func)
    data = split.data
    rows = np.flatnonzero(split.train_mask)
    users, n_u = encode_column(data.table.column(data.user))
    items, n_i = encode_column(data.table.column(data.item))
    if latest:
        t = np.asarray(data.time_values())[rows]
        key = np.lexsort((rows, t))  # ascending (timestamp, input position)
    else:
        key = _rng(seed).permutation(len(rows))
    ordered = rows[key]  # the last ones are taken first (latest, or a random order)
    chosen = np.zeros(len(data.table), dtype=bool)
    if per_user:
        grouped = ordered[np.argsort(users[ordered], kind="stable")]
        counts = np.bincount(users[grouped], minlength=n_u)
        m = np.where(counts >= 2, round_count(np.maximum(counts, 2), f), 0)
        ends = np.cumsum(counts)
        pos = np.arange(len(grouped)) - np.repeat(ends - counts, counts)
        take = pos >= np.repeat(counts - m, counts)
        chosen[grouped[take]] = True
    elif len(rows) >= 2:
        n_valid = int(round_count(len(rows), f))
        chosen[ordered[len(ordered) - n_valid:]] = True
    train = split.train_mask & ~chosen

    def counts_of(mask: np.ndarray) -> Counts:
        return Counts(int(mask.sum()), distinct(users, mask, n_u), distinct(items, mask, n_i))

    summary = replace(split.summary, train=counts_of(train), validation=counts_of(chosen),
                      params={**split.summary.params, "validation_fraction": float(fraction)})
    out = Split(data, train, split.test_mask, summary, cold_users=split.cold_users, cold_items=split.cold_items,
                small_users=split.small_users)
    out.validation_mask = chosen
    return out


# a splitter returns a Split or Folds; the decorator keeps that return type for type checkers (its
# parameters stay unchecked: the added keyword validation_fraction has no static spelling)
SplitT = TypeVar("SplitT", Split, Folds)
Splitter = Callable[..., SplitT]


def with_validation(
    rule: Callable[[dict[str, Any]], tuple[bool, bool]],
) -> Callable[[Splitter[SplitT]], Splitter[SplitT]]:
    """Give a splitter a ``validation_fraction`` keyword; ``rule(kwargs) -> (latest, per_user)``."""

    def deco(func: Splitter[SplitT]) -> Splitter[SplitT]:
        sig = inspect.signature(func)

        @functools.wraps(func)
        def wrapper(*args: Any, validation_fraction: float | None = None, **kwargs: Any) -> SplitT:
            result = func(*args, **kwargs)
            if validation_fraction is None:
                return result
            bound = sig.bind(*args, **kwargs)
            bound.apply_defaults()
            latest, per_user = rule(dict(bound.arguments))
            seed = bound.arguments.get("seed", 0)
            if isinstance(result, Folds):
                folds = [carve(s, validation_fraction, latest=latest, per_user=per_user, seed=seed,
                               func=func.__name__) for s in result]
                return Folds(folds, result.summary, result.fold_of)
            return carve(result, validation_fraction, latest=latest, per_user=per_user, seed=seed, func=func.__name__)

        params = list(sig.parameters.values())
        params.append(inspect.Parameter("validation_fraction", inspect.Parameter.KEYWORD_ONLY, default=None,
                                        annotation="float | None"))
        # functools.wraps result: settable (the ignore below)
        wrapper.__signature__ = sig.replace(parameters=params)  # type: ignore[attr-defined]
        if wrapper.__doc__:
            wrapper.__doc__ += ("\n\n    ``validation_fraction``: also carve a validation part out of the training "
                                "rows by this protocol's rule (see :mod:`rankmeter.split.validation`).\n")
        return wrapper

    return deco
