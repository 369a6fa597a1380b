"""Strong generalisation: disjoint train / validation / test users, each evaluated user's history
split into a fold-in part (given to the recommender) and a held-out part (evaluated).

The protocol of autoencoder and session recommenders (Liang, Krishnan, Hoffman, Jebara
(2018), Variational autoencoders for collaborative filtering, WWW; Marlin (2004);
RecPack's ``StrongGeneralization`` / ``StrongGeneralizationTimed`` scenarios): the
recommender is trained on the train users only, and for each validation or test user it
sees the fold-in part of the history and is scored on the held-out part.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any, Iterator, Literal

import numpy as np
import pyarrow as pa

from .._errors import InputError, ParameterError
from ..io.interactions import to_input_kind
from ._common import (
    Cold,
    Counts,
    Seed,
    SmallUsers,
    Split,
    SplitSummary,
    check_choice,
    check_fraction,
    check_int,
    count_per,
    distinct,
    ids_of,
    load,
    make_rng,
    prepare,
    random_per_user,
    round_count,
)
from .temporal import _cutoff_threshold, latest_per_user, time_values_for

__all__ = ["strong", "StrongSplit", "StrongSummary"]

PARTS = ("train", "validation_fold_in", "validation_heldout", "test_fold_in", "test_heldout")


@dataclass(frozen=True)
class StrongSummary:
    """Counts of a strong-generalisation split. Invariant: ``input.rows`` equals the sum of the
    five parts' rows plus ``dropped_rows`` (filtered rows, and small users' rows under
    ``small_users="drop"``)."""

    method: str
    params: dict[str, Any]
    input: Counts
    filtered: Counts
    small_users: SmallUsers
    users: dict[str, int]
    parts: dict[str, Counts]
    dropped_rows: int

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


class StrongSplit:
    """The five parts of a strong-generalisation split, as boolean masks over the input rows.

    ``train`` (train users' rows, and small users' rows under ``small_users="train"``),
    ``validation_fold_in``, ``validation_heldout``, ``test_fold_in``, ``test_heldout``
    come back in the input's own kind. ``masks[part]`` holds the masks; ``user_group``
    maps each user id to ``"train"``, ``"validation"``, ``"test"`` or ``"dropped"``.
    :meth:`evaluation_split` gives the :class:`~rankmeter.split.Split` an experiment
    evaluates: train users' rows and the test users' fold-in rows as train, the test
    users' held-out rows as test. Unpacks as ``train, fold_in, heldout = split``.
    """

    def __init__(self, data: Any, masks: dict[str, np.ndarray], summary: StrongSummary,
                 user_group: dict[str, str]) -> None:
        self.data = data
        self.masks = masks
        self.summary = summary
        self.user_group = user_group

    def part(self, name: str) -> Any:
        if name not in self.masks:
            raise ParameterError(f"StrongSplit has parts {', '.join(PARTS)}. Got {name!r} instead.")
        mask = self.masks[name]
        table = self.data.table.filter(pa.array(mask))
        return to_input_kind(table, self.data, rows=np.flatnonzero(mask) if self.data.kind == "pandas" else None)

    def table(self, name: str) -> pa.Table:
        return self.data.table.filter(pa.array(self.masks[name]))

    train = property(lambda self: self.part("train"))
    validation_fold_in = property(lambda self: self.part("validation_fold_in"))
    validation_heldout = property(lambda self: self.part("validation_heldout"))
    test_fold_in = property(lambda self: self.part("test_fold_in"))
    test_heldout = property(lambda self: self.part("test_heldout"))

    def __iter__(self) -> Iterator[Any]:
        yield self.train
        yield self.test_fold_in
        yield self.test_heldout

    def evaluation_split(self, validation: bool = False) -> Split:
        """The train/test :class:`Split` of the test users (``validation=True``: of the validation
        users): train = train users' rows + the evaluated users' fold-in rows; test = their held-out
        rows. The other group's rows are counted as dropped."""
        g = "validation" if validation else "test"
        train = self.masks["train"] | self.masks[f"{g}_fold_in"]
        test = self.masks[f"{g}_heldout"]
        users, items = self._codes()
        s = self.summary

        def counts(mask: np.ndarray) -> Counts:
            return Counts(int(mask.sum()), distinct(users, mask, int(users.max(initial=-1)) + 1),
                          distinct(items, mask, int(items.max(initial=-1)) + 1))

        tr, te = counts(train), counts(test)
        train_items = np.zeros(int(items.max(initial=-1)) + 1, dtype=bool)
        train_items[items[train]] = True
        cold_rows = test & ~train_items[items]
        summary = SplitSummary(
            method="strong", params={**s.params, "evaluated": g}, input=s.input, filtered=s.filtered,
            small_users=s.small_users, train=tr, test=te,
            cold=Cold(0, 0, distinct(items, cold_rows, len(train_items)), int(cold_rows.sum()), 0),
            dropped_rows=s.input.rows - tr.rows - te.rows)
        empty = pa.array([], pa.string())
        return Split(self.data, train, test, summary,
                     cold_users=empty, cold_items=ids_of(self.data.table.column(self.data.item),
                                                         np.flatnonzero(cold_rows), items),
                     small_users=empty)

    def _codes(self) -> tuple[np.ndarray, np.ndarray]:
        from ._common import encode_column

        return (encode_column(self.data.table.column(self.data.user))[0],
                encode_column(self.data.table.column(self.data.item))[0])

    def __repr__(self) -> str:
        p = self.summary.parts
        return "StrongSplit(" + ", ".join(f"{k} {p[k].rows} rows" for k in PARTS) + ")"


def strong(
    interactions: Any,
    *,
    test_users: float = 0.2,
    validation_users: float = 0.0,
    heldout: Literal["fraction", "last", "time"] = "fraction",
    heldout_fraction: float = 0.2,
    heldout_n: int = 1,
    cutoff: Any = None,
    time_unit: str | None = None,
    seed: Seed = 0,
    min_user_interactions: int = 1,
    min_item_interactions: int = 1,
    iterate_filters: bool = False,
    small_users: Literal["train", "drop", "error"] = "train",
    user: str | None = None,
    item: str | None = None,
    timestamp: str | None = None,
) -> StrongSplit:
    """Strong generalisation: split the users, then each evaluated user's history into fold-in and held-out.

    Users who can be split by the held-out rule (*eligible*) are dealt at random (seeded)
    into test (``round(test_users * n)``), validation (``round(validation_users * n)``,
    none when 0) and train (the rest, at least one user). Each validation and test
    user's rows are then split by ``heldout``:

    * ``"fraction"``: ``round(heldout_fraction * n_u)`` rows at random (clamped to
      ``[1, n_u - 1]``) are held out; users with fewer than 2 rows are small;
    * ``"last"``: the ``heldout_n`` latest rows (timestamp, then input position) are held
      out; users with ``heldout_n`` rows or fewer are small;
    * ``"time"``: rows with ``timestamp >= cutoff`` are held out (RecPack's timed
      scenario); users without rows on both sides of the cut-off are small.

    Small users are never evaluated: their rows go to train (``small_users="train"``),
    nowhere (``"drop"``), or the call is refused (``"error"``). Rounding is to the nearest
    integer, halves up (see :func:`rankmeter.split.round_count`).

    Guarantees: the five parts are disjoint and, with the dropped rows, cover the input;
    each user is in exactly one group; the same seed and input give the same split.

    >>> data = {"user": list("aaabbbcccddd"), "item": [1, 2, 3] * 4}
    >>> s = strong(data, test_users=0.25, heldout="fraction", heldout_fraction=0.34, seed=0)
    >>> {k: c.rows for k, c in s.summary.parts.items()}
    {'train': 9, 'validation_fold_in': 0, 'validation_heldout': 0, 'test_fold_in': 2, 'test_heldout': 1}
    """
    func = "strong"
    check_choice(heldout, "heldout", func, ("fraction", "last", "time"))
    check_choice(small_users, "small_users", func, ("train", "drop", "error"))
    f_test = check_fraction(test_users, "test_users", func)
    f_val = check_fraction(validation_users, "validation_users", func) if validation_users else None
    rng, seed_note = make_rng(seed, func)
    needs_time = heldout in ("last", "time")
    data = load(interactions, user=user, item=item, timestamp=timestamp if needs_time else (timestamp or False))
    t = time_values_for(data, func) if needs_time else None
    prep = prepare(data, func, min_user_interactions=min_user_interactions,
                   min_item_interactions=min_item_interactions, iterate_filters=iterate_filters)
    counts = prep.user_counts()
    present = counts > 0
    params: dict[str, Any] = {"test_users": float(test_users), "validation_users": float(validation_users or 0.0),
                              "heldout": heldout, "seed": seed_note}
    active = np.ones(prep.n_rows, dtype=bool) if prep.active is None else prep.active
    after: np.ndarray | None = None
    if heldout == "fraction":
        frac = check_fraction(heldout_fraction, "heldout_fraction", func)
        params["heldout_fraction"] = float(heldout_fraction)
        small = present & (counts < 2)
        rule = "fewer than 2 interactions"
        m = np.where(present & ~small, round_count(np.maximum(counts, 2), frac), 0)
    elif heldout == "last":
        n_out = check_int(heldout_n, "heldout_n", func, 1)
        params["heldout_n"] = n_out
        small = present & (counts <= n_out)
        rule = f"{n_out} or fewer interactions"
        m = np.where(present & ~small, n_out, 0)
    else:
        if cutoff is None:
            raise ParameterError("strong(heldout='time') needs a cutoff: rows at or after it are held out")
        assert t is not None
        threshold = _cutoff_threshold(cutoff, data, t, time_unit)
        params["cutoff"] = str(cutoff)
        after = (t >= threshold) & active
        n_after = count_per(prep.users, after, prep.n_user_codes)
        small = present & ((n_after == 0) | (n_after == counts))
        rule = "no interaction on one side of the cut-off"
        m = n_after
    eligible = present & ~small
    n_el = int(eligible.sum())
    n_small = int(small.sum())
    if n_el < 2:
        raise InputError(f"strong: {n_el} user(s) can be split by the held-out rule ({rule} makes a user small); "
                         "strong generalisation needs at least one train and one test user")
    if n_small and small_users == "error":
        raise InputError(f"strong: {n_small} of {int(present.sum())} users have {rule}; choose small_users='train' "
                         "to put them in train or 'drop' to leave them out")
    n_test = int(round_count(n_el, f_test))
    n_val = int(round_count(n_el, f_val)) if f_val is not None else 0
    if n_test + n_val > n_el - 1:
        raise ParameterError(f"The 'test_users' and 'validation_users' parameters of strong leave no train user: "
                             f"{n_test} test + {n_val} validation of {n_el} eligible users. Lower them.")
    el_codes = np.flatnonzero(eligible)
    dealt = el_codes[rng.permutation(n_el)]
    group = np.zeros(prep.n_user_codes, dtype=np.int8)  # 0 train, 1 validation, 2 test, 3 dropped
    group[dealt[:n_test]] = 2
    group[dealt[n_test:n_test + n_val]] = 1
    if small_users == "drop":
        group[small] = 3
    evaluated = group >= 1
    evaluated &= group <= 2
    if heldout == "fraction":
        held = random_per_user(prep, evaluated, np.where(evaluated, m, 0), rng)
    elif heldout == "last":
        assert t is not None
        held = latest_per_user(prep, t, evaluated, np.where(evaluated, m, 0))
    else:
        assert after is not None
        held = after & evaluated[prep.users]
    row_group = group[prep.users]
    masks = {
        "train": active & (row_group == 0),
        "validation_fold_in": active & (row_group == 1) & ~held,
        "validation_heldout": active & (row_group == 1) & held,
        "test_fold_in": active & (row_group == 2) & ~held,
        "test_heldout": active & (row_group == 2) & held,
    }
    users, items = prep.users, prep.items
    parts = {k: Counts(int(v.sum()), distinct(users, v, prep.n_user_codes), distinct(items, v, prep.n_item_codes))
             for k, v in masks.items()}
    small_rows = int(counts[small].sum())
    uid = data.table.column(data.user)
    names = {0: "train", 1: "validation", 2: "test", 3: "dropped"}
    codes, first = np.unique(users, return_index=True)
    keep = present[codes]
    codes, first = codes[keep], first[keep]
    ids = uid.take(pa.array(first)).to_pylist()
    user_group = {str(u): names[int(g)] for u, g in zip(ids, group[codes], strict=True)}
    summary = StrongSummary(
        method=func, params={**params, **prep.filter_params, "small_users": small_users},
        input=prep.input, filtered=prep.filtered,
        small_users=SmallUsers(n_small, small_rows, small_users, rule),
        users={"train": int(((group == 0) & present).sum()), "validation": n_val, "test": n_test,
               "small": n_small},
        parts=parts,
        dropped_rows=prep.n_rows - sum(c.rows for c in parts.values()),
    )
    return StrongSplit(data, masks, summary, user_group)
