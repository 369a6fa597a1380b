"""Hand-worked cases, input kinds, and bad input for the splitters."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import numpy as np
import pandas as pd
import polars as pl
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from rankmeter._errors import InputError, ParameterError, RankmeterError
from rankmeter.io.interactions import read_interactions
from rankmeter.split import Folds, Split, holdout, kfold, leave_k_out, temporal


# a: 5 rows, b: 3 rows (two share ts=20), c: 1 row
TABLE = pa.table(
    {
        "user": ["a", "a", "a", "a", "a", "b", "b", "b", "c"],
        "item": ["i1", "i2", "i3", "i4", "i5", "i1", "i2", "i6", "i1"],
        "ts": [10, 50, 30, 40, 20, 20, 20, 5, 60],
        "rowid": list(range(9)),
    }
)


# --------------------------------------------------------------------------- hand-worked


def test_temporal_last_k_hand() -> None:
    s = temporal(TABLE, per_user=True, k=1)
    # a's latest: ts=50 (row 1); b: rows 5 and 6 tie at 20, the later row (6) is later; c is small
    assert s.test_rows.tolist() == [1, 6]
    assert s.summary.small_users.users == 1 and s.summary.small_users.rows == 1
    assert s.small_users.to_pylist() == ["c"]
    assert s.train_mask[8]  # c stays in train
    s2 = temporal(TABLE, per_user=True, k=2)
    assert s2.test_rows.tolist() == [1, 3, 5, 6]


def test_temporal_per_user_fraction_hand() -> None:
    # a: 0.5 * 5 = 2.5 -> 3 latest (ts 50, 40, 30: rows 1, 3, 2); b: 1.5 -> 2 latest (rows 5, 6)
    s = temporal(TABLE, per_user=True, test_fraction=0.5)
    assert s.test_rows.tolist() == [1, 2, 3, 5, 6]


def test_temporal_global_hand() -> None:
    # 9 rows, 0.3 * 9 = 2.7 -> 3 latest: ts 60 (row 8), 50 (row 1), 40 (row 3)
    s = temporal(TABLE, test_fraction=0.3)
    assert s.test_rows.tolist() == [1, 3, 8]
    # ties at the boundary: 0.6 * 9 = 5.4 -> 5 latest: 60, 50, 40, 30, then one of the
    # three rows at ts=20 (rows 4, 5, 6): the last in the input, row 6
    s = temporal(TABLE, test_fraction=0.6)
    assert s.test_rows.tolist() == [1, 2, 3, 6, 8]
    assert s.summary.params["threshold"] == 20
    s = temporal(TABLE, cutoff=40)
    assert s.test_rows.tolist() == [1, 3, 8]
    # span 5..60, test_span 0.2: cut-off 5 + ceil(55 * 0.8) = 49
    s = temporal(TABLE, test_span=0.2)
    assert s.test_rows.tolist() == [1, 8] and s.summary.params["threshold"] == 49
    assert s.summary.cold.users == 1  # c has no training data


def test_five_months_one_month() -> None:
    # daily interactions over six months (Jan..Jun 2024): train on five, test on the sixth
    days = pd.date_range("2024-01-01", "2024-06-30", freq="D")
    df = pd.DataFrame({"user": np.arange(len(days)) % 7, "item": np.arange(len(days)) % 11, "datetime": days})
    by_date = temporal(df, cutoff="2024-06-01")
    train, test = by_date
    assert isinstance(train, pd.DataFrame)
    assert train["datetime"].max() < pd.Timestamp("2024-06-01") <= test["datetime"].min()
    assert len(test) == 30 and by_date.summary.params["threshold_time"].startswith("2024-06-01")
    # the same with unix seconds and time_unit, and with a datetime object
    secs = df.assign(datetime=(df["datetime"] - pd.Timestamp("1970-01-01")) // pd.Timedelta("1s"))
    assert np.array_equal(temporal(secs, cutoff="2024-06-01", time_unit="s").test_mask, by_date.test_mask)
    assert np.array_equal(temporal(df, cutoff=dt.datetime(2024, 6, 1)).test_mask, by_date.test_mask)
    assert np.array_equal(temporal(df, cutoff=dt.date(2024, 6, 1)).test_mask, by_date.test_mask)
    assert np.array_equal(temporal(df, cutoff=np.datetime64("2024-06-01")).test_mask, by_date.test_mask)
    # a time-zoned cut-off is converted to UTC
    zoned = temporal(df, cutoff="2024-06-01T02:00:00+02:00")
    assert np.array_equal(zoned.test_mask, by_date.test_mask)
    # test_span=1/6 of the span: 181 days * 5/6 = 150 days 20 hours after Jan 1
    by_span = temporal(df, test_span=1 / 6)
    assert by_span.summary.params["threshold_time"].startswith("2024-05-30T20:00:00")
    assert by_span.summary.test.rows == 31  # May 31 .. Jun 30


def test_holdout_per_user_hand() -> None:
    s = holdout(TABLE, test_fraction=0.4, per_user=True, seed=0)
    # a: 0.4 * 5 = 2; b: 0.4 * 3 = 1.2 -> 1; c: small, in train
    assert int(s.test_mask[:5].sum()) == 2 and int(s.test_mask[5:8].sum()) == 1 and not s.test_mask[8]
    assert s.summary.test.users == 2 and s.summary.small_users.rule == "fewer than 2 interactions"


def test_leave_one_out_random_hand() -> None:
    s = leave_k_out(TABLE, by="random", seed=4)
    assert int(s.test_mask[:5].sum()) == 1 and int(s.test_mask[5:8].sum()) == 1
    assert s.summary.params == {**s.summary.params, "k": 1, "by": "random", "seed": 4}


def test_kfold_hand() -> None:
    folds = kfold(TABLE, folds=3, seed=0)
    assert isinstance(folds, Folds) and len(folds) == 3
    assert sorted(np.bincount(folds.fold_of).tolist()) == [3, 3, 3]
    assert folds.summary.to_dict()["folds"][0]["fold"] == 1
    assert [f.summary.fold for f in folds] == [1, 2, 3]
    assert isinstance(folds[0], Split) and len(folds[1:]) == 2


def test_summary_to_dict_is_json_ready() -> None:
    import json

    s = holdout(TABLE, per_user=True, seed=1, min_item_interactions=2)
    d = json.loads(json.dumps(s.summary.to_dict()))
    assert set(d) == {"method", "params", "input", "filtered", "small_users", "train", "test", "cold", "dropped_rows"}
    assert d["filtered"] == {"rows": 4, "users": 0, "items": 4}  # i3, i4, i5, i6 appear once
    assert d["input"] == {"rows": 9, "users": 3, "items": 6}
    f = json.loads(json.dumps(kfold(TABLE, folds=2).summary.to_dict()))
    assert len(f["folds"]) == 2 and "input" in f and "input" not in f["folds"][0]


def test_unpack_and_repr() -> None:
    train, test = holdout(TABLE, seed=0)
    assert train.num_rows + test.num_rows == 9
    assert "holdout" in repr(holdout(TABLE, seed=0)) and "Folds(2" in repr(kfold(TABLE, folds=2))


# --------------------------------------------------------------------------- input kinds


def test_pandas_in_pandas_out_keeps_index_and_columns() -> None:
    df = TABLE.to_pandas()
    df.index = [f"r{i}" for i in range(len(df))]
    s = holdout(df, per_user=True, seed=3)
    train, test = s
    assert isinstance(train, pd.DataFrame) and list(train.columns) == list(df.columns)
    assert train.index.tolist() == [f"r{i}" for i in s.train_rows]
    pd.testing.assert_frame_equal(test, df.iloc[s.test_rows])


def test_polars_in_polars_out() -> None:
    df = pl.from_arrow(TABLE)
    s = temporal(df, per_user=True, k=1)
    assert isinstance(s.train, pl.DataFrame) and s.test["rowid"].to_list() == [1, 6]
    folds = kfold(df, folds=2)
    assert isinstance(folds[0].test, pl.DataFrame)


def test_files_give_arrow(tmp_path: Path) -> None:
    pq.write_table(TABLE, tmp_path / "x.parquet")
    s = temporal(tmp_path / "x.parquet", per_user=True, k=1)
    assert isinstance(s.train, pa.Table) and s.test.column("rowid").to_pylist() == [1, 6]
    (tmp_path / "u.data").write_text("1\t10\t5\t100\n1\t11\t4\t200\n2\t10\t3\t150\n")
    s = leave_k_out(str(tmp_path / "u.data"))
    assert s.test.to_pylist() == [{"user": "1", "item": "11", "rating": 4, "timestamp": 200}]


def test_interactions_object_and_column_names() -> None:
    renamed = TABLE.rename_columns(["who", "what", "when", "rowid"])
    s = leave_k_out(renamed, user="who", item="what", timestamp="when")
    assert s.test_rows.tolist() == [1, 6]
    data = read_interactions(renamed, user="who", item="what", timestamp="when")
    assert leave_k_out(data).test_rows.tolist() == [1, 6]
    s = holdout(data, seed=1)
    assert s.train.column_names == ["who", "what", "when", "rowid"]
    assert sorted(s.train_rows.tolist() + s.test_rows.tolist()) == list(range(9))


def test_timestamp_with_bad_values_does_not_block_random_methods() -> None:
    table = TABLE.set_column(2, "ts", pa.array(["x"] * 9))
    assert holdout(table, seed=0).summary.test.rows == 2
    with pytest.raises(InputError, match="ISO-8601"):
        temporal(table)


# --------------------------------------------------------------------------- bad input


def test_missing_columns() -> None:
    with pytest.raises(InputError, match="no item column"):
        holdout({"user": [1, 2], "thing": [1, 2]})
    with pytest.raises(InputError, match="no column 'nope'"):
        holdout(TABLE, user="nope")


def test_temporal_without_timestamps() -> None:
    no_time = TABLE.drop_columns(["ts"])
    for call in (lambda: temporal(no_time), lambda: leave_k_out(no_time)):
        with pytest.raises(InputError, match="needs a timestamp column"):
            call()
    assert leave_k_out(no_time, by="random").summary.test.rows == 2


@pytest.mark.parametrize("bad", [0, 1, -0.1, 1.5, float("nan"), True, "0.2", None])
def test_fraction_outside_open_interval(bad: object) -> None:
    with pytest.raises(ParameterError, match=r"The 'test_fraction' parameter of holdout must be a float in the open interval \(0, 1\)"):
        holdout(TABLE, test_fraction=bad)  # type: ignore[arg-type]
    with pytest.raises(ParameterError, match="'test_fraction' parameter of temporal"):
        temporal(TABLE, test_fraction=bad if bad is not None else 2)  # type: ignore[arg-type]
    with pytest.raises(ParameterError, match="'test_span' parameter of temporal"):
        temporal(TABLE, test_span=bad if bad is not None else 2)  # type: ignore[arg-type]


def test_k_larger_than_users_have() -> None:
    with pytest.raises(ParameterError) as err:
        leave_k_out(TABLE, k=5)
    msg = str(err.value)
    assert "'k' parameter of leave_k_out" in msg and "largest user has 5" in msg and "Got 5" in msg
    with pytest.raises(ParameterError, match="'k' parameter of temporal"):
        temporal(TABLE, per_user=True, k=9)
    with pytest.raises(ParameterError, match="'k' parameter of leave_k_out must be an int >= 1. Got 0"):
        leave_k_out(TABLE, k=0)
    # k fits some users only: the others are small users, reported
    s = leave_k_out(TABLE, k=3)
    assert s.summary.small_users.users == 2 and s.summary.small_users.rows == 4
    assert s.summary.small_users.rule == "3 or fewer interactions"
    assert sorted(s.small_users.to_pylist()) == ["b", "c"]


def test_folds_larger_than_data() -> None:
    with pytest.raises(ParameterError, match="'folds' parameter of kfold must be at most the number of interactions"):
        kfold(TABLE, folds=10)
    with pytest.raises(ParameterError, match="number of users"):
        kfold(TABLE, folds=4, unit="users")
    with pytest.raises(ParameterError, match="must be an int >= 2"):
        kfold(TABLE, folds=1)


def test_small_users_policies() -> None:
    with pytest.raises(InputError, match="1 of 3 users have fewer than 2 interactions"):
        holdout(TABLE, per_user=True, small_users="error")
    s = holdout(TABLE, per_user=True, small_users="drop")
    assert s.dropped_rows.tolist() == [8] and s.summary.small_users.policy == "drop"
    with pytest.raises(ParameterError, match="'small_users' parameter of holdout must be one of"):
        holdout(TABLE, small_users="keep")  # type: ignore[arg-type]
    singles = pa.table({"user": [1, 2, 3], "item": [1, 2, 3]})
    with pytest.raises(InputError, match="every user has fewer than 2 interactions"):
        holdout(singles, per_user=True)


def test_conflicting_temporal_parameters() -> None:
    with pytest.raises(ParameterError, match="takes one of cutoff, test_span, test_fraction; got cutoff and test_fraction"):
        temporal(TABLE, cutoff=3, test_fraction=0.2)
    with pytest.raises(ParameterError, match="'k' parameter of temporal needs per_user=True"):
        temporal(TABLE, k=2)
    with pytest.raises(ParameterError, match="'cutoff' parameter of temporal needs per_user=False"):
        temporal(TABLE, per_user=True, cutoff=3)
    with pytest.raises(ParameterError, match="holds plain numbers; say what they count with time_unit"):
        temporal(TABLE, cutoff="2024-01-01")
    with pytest.raises(ParameterError, match="ISO-8601"):
        temporal(TABLE, cutoff="next tuesday", time_unit="s")
    dates = TABLE.set_column(2, "ts", pa.array(TABLE.column("ts").to_numpy(), pa.timestamp("s")))
    with pytest.raises(ParameterError, match="is a number"):
        temporal(dates, cutoff=30)
    with pytest.raises(InputError, match="same timestamp"):
        temporal(TABLE.set_column(2, "ts", pa.array([1] * 9)), test_span=0.5)


def test_bad_seed_and_other_parameters() -> None:
    for bad in (-1, 1.5, "1", True):
        with pytest.raises(ParameterError, match="'seed' parameter of holdout"):
            holdout(TABLE, seed=bad)  # type: ignore[arg-type]
    with pytest.raises(ParameterError, match="'by' parameter of leave_k_out"):
        leave_k_out(TABLE, by="latest")  # type: ignore[arg-type]
    with pytest.raises(ParameterError, match="min_user_interactions"):
        holdout(TABLE, min_user_interactions=0)
    with pytest.raises(ParameterError, match="per_user"):
        kfold(TABLE, unit="users", per_user=True)
    with pytest.raises(ParameterError, match="drop_cold_users"):
        kfold(TABLE, unit="users", drop_cold_users=True)


def test_filters_that_remove_everything() -> None:
    with pytest.raises(InputError, match="0 interaction"):
        holdout(TABLE, min_user_interactions=100)


def test_errors_are_rankmeter_errors() -> None:
    assert issubclass(InputError, RankmeterError) and issubclass(ParameterError, RankmeterError)
