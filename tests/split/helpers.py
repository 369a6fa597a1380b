"""Random interaction data and slow, obviously correct references for the splitters."""

from __future__ import annotations

from collections import Counter, defaultdict
from decimal import Decimal
from typing import Any

import numpy as np
import pyarrow as pa
from hypothesis import strategies as st

from rankmeter.split import Split

# fractions with at most 4 decimals: the exact value the splitters read
FRACTIONS = st.integers(1, 9999).map(lambda i: i / 10000)
SEEDS = st.integers(0, 2**32 - 1)


@st.composite
def interactions(draw: Any, min_rows: int = 0, max_rows: int = 60, max_users: int = 8) -> pa.Table:
    """user, item, ts (small range: many ties), rating and a unique rowid column."""
    n = draw(st.integers(min_rows, max_rows))
    n_users = draw(st.integers(1, max_users))
    n_items = draw(st.integers(1, 12))
    users = draw(st.lists(st.integers(0, n_users - 1), min_size=n, max_size=n))
    items = draw(st.lists(st.integers(0, n_items - 1), min_size=n, max_size=n))
    ts = draw(st.lists(st.integers(0, 12), min_size=n, max_size=n))
    text_ids = draw(st.booleans())
    user_col: Any = [f"u{u}" for u in users] if text_ids else pa.array(users, pa.int64())
    return pa.table(
        {
            "user": user_col,
            "item": pa.array(items, pa.int64()),
            "ts": pa.array(ts, pa.int64()),
            "rating": pa.array([float((u + i) % 5 + 1) for u, i in zip(users, items)]),
            "rowid": pa.array(np.arange(n, dtype=np.int64)),
        },
    )


def big_table(seed: int = 0, n: int = 3000, users: int = 60, items: int = 200) -> pa.Table:
    rng = np.random.default_rng(seed)
    return pa.table(
        {
            "user": rng.integers(0, users, n),
            "item": rng.integers(0, items, n),
            "ts": rng.integers(0, 500, n),
            "rowid": np.arange(n),
        }
    )


def round_ref(fraction: float, n: int) -> int:
    """Nearest integer of fraction * n, halves up, clamped to [1, n - 1]; 0 when n < 2."""
    if n < 2:
        return 0
    m = int(Decimal(repr(fraction)) * n + Decimal("0.5"))
    return min(max(m, 1), n - 1)


def rows_by_user(table: pa.Table, rows: Any = None) -> dict[Any, list[int]]:
    users = table.column("user").to_pylist()
    out: dict[Any, list[int]] = defaultdict(list)
    for r in range(table.num_rows) if rows is None else rows:
        out[users[r]].append(r)
    return dict(out)


def time_order(table: pa.Table, rows: list[int]) -> list[int]:
    """Rows by (timestamp, input position): the tie rule."""
    ts = table.column("ts").to_pylist()
    return sorted(rows, key=lambda r: (ts[r], r))


def check_partition(split: Split, table: pa.Table, *, expect_no_drop: bool = False) -> None:
    """Disjoint parts; the output tables hold exactly the masked rows, in input order,
    with every column; every input row is in train, test or dropped, once; counts agree."""
    n = table.num_rows
    train, test = split.train_mask, split.test_mask
    assert train.shape == test.shape == (n,)
    assert not np.any(train & test)
    train_table, test_table = split.table("train"), split.table("test")
    assert train_table.column_names == table.column_names == test_table.column_names
    train_ids = train_table.column("rowid").to_pylist()
    test_ids = test_table.column("rowid").to_pylist()
    assert train_ids == np.flatnonzero(train).tolist()
    assert test_ids == np.flatnonzero(test).tolist()
    dropped = split.dropped_rows.tolist()
    everything = sorted(train_ids + test_ids + dropped)
    assert everything == list(range(n))  # none lost, none duplicated
    assert train_table.to_pylist() == table.take(pa.array(train_ids, pa.int64())).to_pylist()
    assert test_table.to_pylist() == table.take(pa.array(test_ids, pa.int64())).to_pylist()
    if expect_no_drop:
        assert dropped == []
    s = split.summary
    assert s.input.rows == n == s.train.rows + s.test.rows + s.dropped_rows
    assert s.train.rows == len(train_ids) and s.test.rows == len(test_ids)
    users = table.column("user").to_pylist()
    items = table.column("item").to_pylist()
    assert s.train.users == len({users[r] for r in train_ids})
    assert s.test.items == len({items[r] for r in test_ids})
    assert s.input.users == len(set(users)) and s.input.items == len(set(items))
    extra = s.small_users.rows if s.small_users.policy == "drop" else 0
    assert s.dropped_rows == s.filtered.rows + s.cold.dropped_rows + extra
    # cold report against sets (when nothing was dropped from test; dropping is
    # checked against the same split without dropping)
    if not (s.params["drop_cold_users"] or s.params["drop_cold_items"]):
        train_users = {users[r] for r in train_ids}
        train_items = {items[r] for r in train_ids}
        cold_u = {users[r] for r in test_ids if users[r] not in train_users}
        cold_i = {items[r] for r in test_ids if items[r] not in train_items}
        assert s.cold.users == len(cold_u) and s.cold.items == len(cold_i)
        assert set(split.cold_users.to_pylist()) == cold_u
        assert set(split.cold_items.to_pylist()) == cold_i
        assert s.cold.user_rows == sum(1 for r in test_ids if users[r] in cold_u)
        assert s.cold.item_rows == sum(1 for r in test_ids if items[r] in cold_i)
        assert s.cold.dropped_rows == 0


def filter_ref(table: pa.Table, min_user: int, min_item: int, iterate: bool) -> set[int]:
    """Rows kept by the minimum-interaction filters (one pass on input counts, or to a fixpoint)."""
    users = table.column("user").to_pylist()
    items = table.column("item").to_pylist()
    kept = set(range(table.num_rows))
    while True:
        uc = Counter(users[r] for r in kept)
        ic = Counter(items[r] for r in kept)
        new = {r for r in kept if uc[users[r]] >= min_user and ic[items[r]] >= min_item}
        if not iterate or new == kept:
            return new
        kept = new
