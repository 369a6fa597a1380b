"""Property tests of every splitter on random interaction data, against slow references."""

from __future__ import annotations

import math
from collections import Counter
from fractions import Fraction

import numpy as np
import pyarrow as pa
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from rankmeter._errors import InputError, ParameterError
from rankmeter.split import Folds, holdout, kfold, leave_k_out, round_count, temporal

from .helpers import (
    FRACTIONS,
    SEEDS,
    big_table,
    check_partition,
    filter_ref,
    interactions,
    round_ref,
    rows_by_user,
    time_order,
)

PROPS = settings(max_examples=60, deadline=None)


def _eligible_exists(table: pa.Table, minimum: int) -> bool:
    return any(len(r) >= minimum for r in rows_by_user(table).values())


# --------------------------------------------------------------------------- rounding


@given(st.integers(0, 10_000), FRACTIONS)
def test_round_count_matches_decimal_reference(n: int, f: float) -> None:
    frac = Fraction(repr(f)).limit_denominator(10**6)
    assert int(round_count(np.array([n]), frac)[0]) == round_ref(f, n)


def test_round_count_hand_cases() -> None:
    f = Fraction(1, 5)
    assert round_count(np.array([0, 1, 2, 3, 7, 8, 12, 13]), f).tolist() == [0, 0, 1, 1, 1, 2, 2, 3]
    # halves round up: 0.25 * 10 = 2.5 -> 3; 0.5 * 3 = 1.5 -> 2
    assert round_count(np.array([10]), Fraction(1, 4)).tolist() == [3]
    assert round_count(np.array([3]), Fraction(1, 2)).tolist() == [2]
    # decimal fractions behave as written: 0.15 * 10 = 1.5 -> 2 (binary 0.15 is below 0.15)
    assert round_count(np.array([10]), Fraction("0.15")).tolist() == [2]
    # clamped to [1, n - 1]
    assert round_count(np.array([2, 100]), Fraction(99, 100)).tolist() == [1, 99]


# --------------------------------------------------------------------------- holdout


@PROPS
@given(interactions(min_rows=2), FRACTIONS, SEEDS)
def test_holdout_global(table: pa.Table, f: float, seed: int) -> None:
    s = holdout(table, test_fraction=f, seed=seed)
    check_partition(s, table, expect_no_drop=True)
    assert s.summary.test.rows == round_ref(f, table.num_rows)
    again = holdout(table, test_fraction=f, seed=seed)
    assert np.array_equal(s.test_mask, again.test_mask)


@PROPS
@given(interactions(min_rows=1), FRACTIONS, SEEDS)
def test_holdout_per_user(table: pa.Table, f: float, seed: int) -> None:
    assume(_eligible_exists(table, 2))
    s = holdout(table, test_fraction=f, per_user=True, seed=seed)
    check_partition(s, table, expect_no_drop=True)
    small = 0
    for rows in rows_by_user(table).values():
        n_test = int(s.test_mask[rows].sum())
        if len(rows) < 2:
            small += 1
            assert n_test == 0 and s.train_mask[rows].all()  # kept in train, reported
        else:
            assert n_test == round_ref(f, len(rows))
            assert 1 <= n_test <= len(rows) - 1
    assert s.summary.small_users.users == small
    assert s.summary.cold.users == 0


@PROPS
@given(interactions(min_rows=1), FRACTIONS, SEEDS)
def test_holdout_per_user_drop_small(table: pa.Table, f: float, seed: int) -> None:
    assume(_eligible_exists(table, 2))
    kept = holdout(table, test_fraction=f, per_user=True, seed=seed)
    dropped = holdout(table, test_fraction=f, per_user=True, seed=seed, small_users="drop")
    check_partition(dropped, table)
    small_rows = [r for rows in rows_by_user(table).values() if len(rows) < 2 for r in rows]
    assert sorted(dropped.dropped_rows.tolist()) == sorted(small_rows)
    assert dropped.summary.small_users.rows == len(small_rows)
    # the same rows are drawn for the other users
    assert np.array_equal(kept.test_mask, dropped.test_mask)


def test_holdout_seeds() -> None:
    table = big_table()
    for per_user in (False, True):
        a = holdout(table, per_user=per_user, seed=1)
        b = holdout(table, per_user=per_user, seed=1)
        c = holdout(table, per_user=per_user, seed=2)
        assert np.array_equal(a.test_mask, b.test_mask)
        assert not np.array_equal(a.test_mask, c.test_mask)
        g = holdout(table, per_user=per_user, seed=np.random.default_rng(1))
        assert np.array_equal(g.test_mask, holdout(table, per_user=per_user, seed=np.random.default_rng(1)).test_mask)


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(0, 2**32 - 1))
def test_different_seeds_give_different_splits(s1: int, s2: int) -> None:
    assume(s1 != s2)
    table = big_table(n=400, users=10, items=50)
    for split in (
        lambda s: holdout(table, seed=s).test_mask,
        lambda s: holdout(table, per_user=True, seed=s).test_mask,
        lambda s: leave_k_out(table, k=2, by="random", seed=s).test_mask,
        lambda s: kfold(table, folds=3, seed=s).fold_of,
        lambda s: kfold(table, folds=3, per_user=True, seed=s).fold_of,
        lambda s: kfold(table, folds=3, unit="users", seed=s).fold_of,
    ):
        assert not np.array_equal(split(s1), split(s2))


def test_holdout_per_user_is_uniform() -> None:
    # each of a user's 4 rows is in test (1 of 4) with probability 1/4
    table = pa.table({"user": ["a"] * 4, "item": [1, 2, 3, 4], "rowid": [0, 1, 2, 3]})
    hits = np.zeros(4)
    for seed in range(2000):
        hits += holdout(table, test_fraction=0.25, per_user=True, seed=seed).test_mask
    assert np.all(np.abs(hits / 2000 - 0.25) < 0.04)


# --------------------------------------------------------------------------- temporal


@PROPS
@given(interactions(min_rows=1), st.integers(1, 4))
def test_temporal_per_user_last_k(table: pa.Table, k: int) -> None:
    assume(_eligible_exists(table, k + 1))
    s = temporal(table, per_user=True, k=k)
    check_partition(s, table, expect_no_drop=True)
    ts = table.column("ts").to_pylist()
    for rows in rows_by_user(table).values():
        ordered = time_order(table, rows)
        test = [r for r in ordered if s.test_mask[r]]
        if len(rows) <= k:
            assert test == []
        else:
            assert test == ordered[-k:]  # the latest k, ties by input position
            train = [r for r in rows if s.train_mask[r]]
            assert max((ts[r], r) for r in train) < min((ts[r], r) for r in test)
    # leave-k-out by time is the same protocol
    assert np.array_equal(leave_k_out(table, k=k).test_mask, s.test_mask)


@PROPS
@given(interactions(min_rows=1), st.integers(1, 3), st.sampled_from(["float", "wide", "negative"]))
def test_temporal_per_user_other_time_types(table: pa.Table, k: int, kind: str) -> None:
    """Floats and integer ranges too wide to pack take another code path: same answer."""
    assume(_eligible_exists(table, k + 1))
    ts = table.column("ts").to_pylist()
    if kind == "float":
        new = pa.array([t / 3.0 for t in ts])
    elif kind == "wide":
        new = pa.array([t * 2**59 - 2**62 for t in ts], pa.int64())  # order kept, range ~2**62
    else:
        new = pa.array([t - 1000 for t in ts], pa.int64())
    other = table.set_column(2, "ts", new)
    expected = temporal(table, per_user=True, k=k)
    got = temporal(other, per_user=True, k=k)
    assert np.array_equal(got.test_mask, expected.test_mask)
    assert np.array_equal(
        temporal(other, per_user=True, test_fraction=0.5).test_mask,
        temporal(table, per_user=True, test_fraction=0.5).test_mask,
    )


@PROPS
@given(interactions(min_rows=1), FRACTIONS)
def test_temporal_per_user_fraction(table: pa.Table, f: float) -> None:
    assume(_eligible_exists(table, 2))
    s = temporal(table, per_user=True, test_fraction=f)
    check_partition(s, table, expect_no_drop=True)
    for rows in rows_by_user(table).values():
        m = round_ref(f, len(rows))
        ordered = time_order(table, rows)
        assert [r for r in ordered if s.test_mask[r]] == (ordered[-m:] if m else [])


@PROPS
@given(interactions(min_rows=2), FRACTIONS)
def test_temporal_global_fraction(table: pa.Table, f: float) -> None:
    s = temporal(table, test_fraction=f)
    check_partition(s, table, expect_no_drop=True)
    ordered = time_order(table, list(range(table.num_rows)))
    m = round_ref(f, table.num_rows)
    assert np.flatnonzero(s.test_mask).tolist() == sorted(ordered[-m:])


@PROPS
@given(interactions(min_rows=1), st.integers(-1, 14))
def test_temporal_cutoff(table: pa.Table, cutoff: int) -> None:
    s = temporal(table, cutoff=cutoff)
    check_partition(s, table, expect_no_drop=True)
    ts = np.array(table.column("ts").to_pylist())
    assert np.array_equal(s.test_mask, ts >= cutoff)
    assert s.summary.params["threshold"] == cutoff


@PROPS
@given(interactions(min_rows=2), FRACTIONS)
def test_temporal_span(table: pa.Table, span: float) -> None:
    ts = table.column("ts").to_pylist()
    assume(min(ts) < max(ts))
    s = temporal(table, test_span=span)
    check_partition(s, table, expect_no_drop=True)
    lo, hi = min(ts), max(ts)
    c = lo + math.ceil((hi - lo) * (1 - Fraction(repr(span))))
    assert s.test_mask.tolist() == [t >= c for t in ts]
    train_t = [t for t, m in zip(ts, s.train_mask) if m]
    test_t = [t for t, m in zip(ts, s.test_mask) if m]
    assert test_t and train_t and max(train_t) < min(test_t)


# --------------------------------------------------------------------------- leave-k-out


@PROPS
@given(interactions(min_rows=1), st.integers(1, 4), SEEDS)
def test_leave_k_out_random(table: pa.Table, k: int, seed: int) -> None:
    assume(_eligible_exists(table, k + 1))
    s = leave_k_out(table, k=k, by="random", seed=seed)
    check_partition(s, table, expect_no_drop=True)
    eligible = small = 0
    for rows in rows_by_user(table).values():
        n_test = int(s.test_mask[rows].sum())
        if len(rows) > k:
            eligible += 1
            assert n_test == k  # exactly k per eligible user
        else:
            small += 1
            assert n_test == 0
    assert s.summary.small_users.users == small
    assert s.summary.test.users == eligible


# --------------------------------------------------------------------------- k-fold


@PROPS
@given(interactions(min_rows=2), st.integers(2, 6), SEEDS)
def test_kfold_interactions(table: pa.Table, folds: int, seed: int) -> None:
    assume(table.num_rows >= folds)
    result = kfold(table, folds=folds, seed=seed)
    assert len(result) == folds
    times_in_test = np.zeros(table.num_rows, dtype=int)
    sizes = []
    for i, split in enumerate(result):
        check_partition(split, table, expect_no_drop=True)
        assert split.summary.fold == i + 1
        times_in_test += split.test_mask
        sizes.append(split.summary.test.rows)
        assert np.array_equal(split.test_mask, result.fold_of == i)
    assert np.all(times_in_test == 1)  # every row in exactly one test fold
    assert max(sizes) - min(sizes) <= 1


@PROPS
@given(interactions(min_rows=2), st.integers(2, 5), SEEDS)
def test_kfold_user_stratified(table: pa.Table, folds: int, seed: int) -> None:
    assume(_eligible_exists(table, 2))
    result = kfold(table, folds=folds, per_user=True, seed=seed)
    times_in_test = np.zeros(table.num_rows, dtype=int)
    for split in result:
        check_partition(split, table, expect_no_drop=True)
        times_in_test += split.test_mask
    for rows in rows_by_user(table).values():
        if len(rows) < 2:
            assert np.all(times_in_test[rows] == 0)
            assert all(split.train_mask[rows].all() for split in result)
            continue
        assert np.all(times_in_test[rows] == 1)
        per_fold = [int(split.test_mask[rows].sum()) for split in result]
        assert max(per_fold) - min(per_fold) <= 1  # spread over the folds
        assert all(split.train_mask[rows].any() for split in result)  # never without training data


@PROPS
@given(interactions(min_rows=2), st.integers(2, 4), SEEDS)
def test_kfold_users(table: pa.Table, folds: int, seed: int) -> None:
    by_user = rows_by_user(table)
    assume(len(by_user) >= folds)
    result = kfold(table, folds=folds, unit="users", seed=seed)
    users_per_fold = []
    fold_of_user: dict = {}
    for i, split in enumerate(result):
        check_partition(split, table, expect_no_drop=True)
        test_users = {u for u, rows in by_user.items() if split.test_mask[rows].any()}
        users_per_fold.append(len(test_users))
        for u in test_users:
            assert u not in fold_of_user
            fold_of_user[u] = i
            assert split.test_mask[by_user[u]].all()  # all of the user's rows
        assert split.summary.cold.users == len(test_users)  # every test user is cold
    assert set(fold_of_user) == set(by_user)
    assert max(users_per_fold) - min(users_per_fold) <= 1


# --------------------------------------------------------------------------- filters and cold start


@PROPS
@given(interactions(min_rows=2), st.integers(1, 4), st.integers(1, 4), st.booleans(), SEEDS)
def test_filters_match_reference(table: pa.Table, mu: int, mi: int, iterate: bool, seed: int) -> None:
    kept = filter_ref(table, mu, mi, iterate)
    assume(len(kept) >= 2)
    s = holdout(table, seed=seed, min_user_interactions=mu, min_item_interactions=mi, iterate_filters=iterate)
    check_partition(s, table)
    assert set(np.flatnonzero(s.train_mask | s.test_mask).tolist()) == kept
    f = s.summary.filtered
    assert f.rows == table.num_rows - len(kept)
    users = table.column("user").to_pylist()
    items = table.column("item").to_pylist()
    assert f.users == len(set(users)) - len({users[r] for r in kept})
    assert f.items == len(set(items)) - len({items[r] for r in kept})
    if iterate:
        uc = Counter(users[r] for r in kept)
        ic = Counter(items[r] for r in kept)
        assert all(uc[users[r]] >= mu and ic[items[r]] >= mi for r in kept)


@PROPS
@given(interactions(min_rows=2), FRACTIONS, SEEDS, st.booleans(), st.booleans())
def test_drop_cold_removes_exactly_the_cold_rows(table: pa.Table, f: float, seed: int, du: bool, di: bool) -> None:
    plain = holdout(table, test_fraction=f, seed=seed)
    dropped = holdout(table, test_fraction=f, seed=seed, drop_cold_users=du, drop_cold_items=di)
    check_partition(dropped, table)
    assert np.array_equal(plain.train_mask, dropped.train_mask)
    users = table.column("user").to_pylist()
    items = table.column("item").to_pylist()
    cold_u, cold_i = set(plain.cold_users.to_pylist()), set(plain.cold_items.to_pylist())
    expected = [
        r for r in plain.test_rows.tolist()
        if not ((du and users[r] in cold_u) or (di and items[r] in cold_i))
    ]
    assert dropped.test_rows.tolist() == expected
    assert dropped.summary.cold.dropped_rows == plain.summary.test.rows - len(expected)
    # the report counts the cold ids before dropping
    assert dropped.summary.cold.users == plain.summary.cold.users
    assert dropped.summary.cold.items == plain.summary.cold.items


# --------------------------------------------------------------------------- robustness


@PROPS
@given(interactions(min_rows=0, max_rows=3))
def test_tiny_inputs_either_split_or_raise_a_rankmeter_error(table: pa.Table) -> None:
    for call in (
        lambda: holdout(table),
        lambda: holdout(table, per_user=True),
        lambda: temporal(table),
        lambda: temporal(table, per_user=True, k=1),
        lambda: leave_k_out(table, by="random"),
        lambda: kfold(table, folds=2),
        lambda: kfold(table, folds=2, per_user=True),
        lambda: kfold(table, folds=2, unit="users"),
    ):
        try:
            split = call()
        except (InputError, ParameterError):
            continue
        for s in split if isinstance(split, Folds) else [split]:
            check_partition(s, table)


@pytest.mark.parametrize("chunks", [1, 3])
def test_chunked_and_dictionary_inputs(chunks: int) -> None:
    table = big_table(n=300)
    pieces = [table.slice(i * 100, 100) for i in range(3)] if chunks == 3 else [table]
    chunked = pa.concat_tables(pieces)
    as_dict = chunked.set_column(0, "user", pa.chunked_array(
        [c.cast(pa.string()).dictionary_encode() for c in chunked.column("user").chunks]))
    a = holdout(table, per_user=True, seed=5)
    for variant in (chunked, as_dict):
        b = holdout(variant, per_user=True, seed=5)
        check_partition(b, variant)
        assert b.summary.test.rows == a.summary.test.rows
