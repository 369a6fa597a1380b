"""The shared interaction loader: files, in-memory kinds, column detection, bad input."""

from __future__ import annotations

import gzip
from pathlib import Path

import numpy as np
import pandas as pd
import polars as pl
import pyarrow as pa
import pyarrow.feather as feather
import pyarrow.parquet as pq
import pytest

from rankmeter._errors import InputError
from rankmeter.io.interactions import ALIASES, Interactions, read_interactions, to_input_kind


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


# --------------------------------------------------------------------------- files


def test_movielens_udata_headerless_tab(tmp_path: Path) -> None:
    path = write(tmp_path, "u.data", "196\t242\t3\t881250949\n186\t302\t3\t891717742\n22\t377\t1\t878887116\n")
    data = read_interactions(path)
    assert (data.user, data.item, data.rating, data.timestamp) == ("user", "item", "rating", "timestamp")
    assert data.kind == "path" and data.source == str(path)
    assert data.table.column("user").to_pylist() == ["196", "186", "22"]  # ids stay text
    assert data.table.column("rating").to_pylist() == [3, 3, 1]
    assert data.time_values().tolist() == [881250949, 891717742, 878887116]
    assert data.time_unit is None


def test_movielens_1m_double_colon(tmp_path: Path) -> None:
    path = write(tmp_path, "ratings.dat", "1::1193::5::978300760\n1::661::3::978302109\n2::1357::5::978298709\n")
    data = read_interactions(path)
    assert data.table.column_names == ["user", "item", "rating", "timestamp"]
    assert data.table.column("item").to_pylist() == ["1193", "661", "1357"]
    assert data.table.column("rating").to_pylist() == [5, 3, 5]


def test_double_colon_field_with_colon_is_an_error(tmp_path: Path) -> None:
    path = write(tmp_path, "ratings.dat", "1::1193::5::978300760\n1::6:61::3::978302109\n")
    with pytest.raises(InputError) as err:
        read_interactions(path)
    assert err.value.line is not None


def test_csv_with_header_and_aliases(tmp_path: Path) -> None:
    # MovieLens "latest" style names: userId, movieId
    path = write(tmp_path, "ratings.csv", "userId,movieId,rating,timestamp\n1,1,4.0,964982703\n1,3,4.0,964981247\n")
    data = read_interactions(path)
    assert (data.user, data.item, data.rating, data.timestamp) == ("userId", "movieId", "rating", "timestamp")
    assert data.table.num_rows == 2


def test_tsv_and_semicolon_and_explicit_sep(tmp_path: Path) -> None:
    tsv = write(tmp_path, "x.tsv", "uid\tdocid\tscore\nq1\td1\t2\n")
    data = read_interactions(tsv)
    assert (data.user, data.item, data.rating) == ("uid", "docid", "score")
    semi = write(tmp_path, "x.txt", "user;item\na;b\n")
    assert read_interactions(semi).table.column("item").to_pylist() == ["b"]
    pipe = write(tmp_path, "x.dat", "user|item\na|b\n")
    assert read_interactions(pipe, sep="|").table.num_rows == 1


def test_ids_from_text_are_kept_exactly(tmp_path: Path) -> None:
    path = write(tmp_path, "x.csv", "user,item\n007,1\n7,1\n")
    data = read_interactions(path)
    assert data.table.column("user").to_pylist() == ["007", "7"]


def test_gzip_csv(tmp_path: Path) -> None:
    path = tmp_path / "x.csv.gz"
    with gzip.open(path, "wt") as fh:
        fh.write("user,item,ts\na,b,1\nc,d,2\n")
    data = read_interactions(path)
    assert data.table.num_rows == 2 and data.timestamp == "ts"


def test_parquet_and_feather_keep_types_and_columns(tmp_path: Path) -> None:
    table = pa.table({"user_id": [1, 2], "item_id": ["a", "b"], "extra": [0.5, 1.5],
                      "ts": pa.array([10, 20], pa.timestamp("ms"))})
    pq.write_table(table, tmp_path / "x.parquet")
    feather.write_feather(table, tmp_path / "x.feather")
    for name in ("x.parquet", "x.feather"):
        data = read_interactions(tmp_path / name)
        assert data.table.equals(table)
        assert (data.user, data.item, data.timestamp) == ("user_id", "item_id", "ts")
        assert data.time_unit == "ms"  # Parquet has no second resolution
        assert data.time_values().tolist() == [10, 20]


def test_parquet_without_suffix_by_magic(tmp_path: Path) -> None:
    pq.write_table(pa.table({"user": [1], "item": [2]}), tmp_path / "data.bin")
    assert read_interactions(tmp_path / "data.bin").table.num_rows == 1


def test_headerless_with_text_ids_needs_header_false(tmp_path: Path) -> None:
    path = write(tmp_path, "x.tsv", "u1\ti1\t5\nu2\ti2\t3\n")
    with pytest.raises(InputError, match="no user column"):
        read_interactions(path)
    data = read_interactions(path, header=False)
    assert data.table.column("user").to_pylist() == ["u1", "u2"]


# --------------------------------------------------------------------------- bad files


def test_missing_file() -> None:
    with pytest.raises(InputError, match="no such file"):
        read_interactions("/nonexistent/ratings.csv")


def test_empty_file(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="empty"):
        read_interactions(write(tmp_path, "x.csv", ""))


def test_wrong_field_count_names_file_and_line(tmp_path: Path) -> None:
    path = write(tmp_path, "x.csv", "user,item\n1,2\n1,3\n2\n")
    with pytest.raises(InputError) as err:
        read_interactions(path)
    assert err.value.source == str(path) and err.value.line == 4 and err.value.text == "2"


def test_bad_rating_names_line_after_blank_line(tmp_path: Path) -> None:
    path = write(tmp_path, "x.csv", "user,item,rating\na,b,4\n\nc,d,x\n")
    with pytest.raises(InputError) as err:
        read_interactions(path)
    assert err.value.line == 4 and "rating is not a number" in str(err.value)
    # rating=False: no rating column, the column is kept as it is
    data = read_interactions(path, rating=False)
    assert data.rating is None and data.table.column("rating").to_pylist() == ["4", "x"]


def test_empty_id_names_line(tmp_path: Path) -> None:
    path = write(tmp_path, "x.csv", "user,item\na,b\nc,\n")
    with pytest.raises(InputError) as err:
        read_interactions(path)
    assert err.value.line == 3 and "item id is empty" in str(err.value)


def test_missing_timestamp_names_line(tmp_path: Path) -> None:
    path = write(tmp_path, "x.csv", "user,item,time\na,b,1\nc,d,\n")
    with pytest.raises(InputError) as err:
        read_interactions(path)
    assert err.value.line == 3 and "timestamp is missing" in str(err.value)


def test_headerless_too_many_fields(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="2 to 4 fields"):
        read_interactions(write(tmp_path, "x.data", "1\t2\t3\t4\t5\n"))


def test_not_parquet(tmp_path: Path) -> None:
    path = tmp_path / "x.parquet"
    path.write_bytes(b"not parquet at all")
    with pytest.raises(InputError, match="Parquet"):
        read_interactions(path)


# --------------------------------------------------------------------------- in memory


def test_pandas_in_pandas_out_with_index() -> None:
    df = pd.DataFrame({"User": ["a", "b", "c"], "ITEM": [1, 2, 3], "r": [1.0, 2.0, 3.0]}, index=[10, 20, 30])
    data = read_interactions(df)
    assert (data.user, data.item, data.rating, data.kind) == ("User", "ITEM", None, "pandas")
    back = to_input_kind(data.table.take([0, 2]), data, rows=np.array([0, 2]))
    assert isinstance(back, pd.DataFrame)
    assert back.index.tolist() == [10, 30]
    assert back["ITEM"].tolist() == [1, 3]
    assert to_input_kind(data.table, "pandas").index.tolist() == [0, 1, 2]


def test_pandas_categorical_and_nullable_roundtrip() -> None:
    df = pd.DataFrame({"user": pd.Categorical(["a", "b"]), "item": pd.array([1, 2], dtype="Int64")})
    data = read_interactions(df)
    back = to_input_kind(data.table, data, rows=np.arange(2))
    assert back.dtypes.to_dict() == df.dtypes.to_dict()


def test_polars_in_polars_out() -> None:
    df = pl.DataFrame({"user_id": ["a", "b"], "item_id": [1, 2], "timestamp": [5, 6]})
    data = read_interactions(df)
    assert data.kind == "polars" and data.timestamp == "timestamp"
    back = to_input_kind(data.table, data)
    assert isinstance(back, pl.DataFrame) and back.equals(df)
    assert read_interactions(df.lazy()).kind == "polars"


def test_arrow_table_batch_and_mapping() -> None:
    t = pa.table({"qid": ["q1"], "doc": ["d1"], "grade": [2]})
    data = read_interactions(t)
    assert (data.user, data.item, data.rating, data.kind) == ("qid", "doc", "grade", "arrow")
    assert to_input_kind(t, data) is t
    assert read_interactions(t.to_batches()[0]).table.num_rows == 1
    assert read_interactions({"user": [1], "item": [2]}).kind == "arrow"


def test_interactions_pass_through_and_reresolve() -> None:
    data = read_interactions({"user": [1], "item": [2], "a": [3], "b": [4]})
    assert read_interactions(data) is data
    again = read_interactions(data, rating="a", timestamp="b")
    assert (again.rating, again.timestamp) == ("a", "b")


def test_unsupported_object() -> None:
    with pytest.raises(InputError, match="must be a path"):
        read_interactions(42)


# --------------------------------------------------------------------------- columns


def test_alias_priority_and_normalisation() -> None:
    # "query" and "user" could both be the user column: an error naming both, never a guess;
    # "Movie-ID" normalises to movie_id
    with pytest.raises(InputError, match="columns 'query', 'user' could each be the user column"):
        read_interactions({"query": [1], "user": [2], "Movie-ID": [3]})
    data = read_interactions({"query": [1], "user": [2], "Movie-ID": [3]}, user="user")
    assert (data.user, data.item) == ("user", "Movie-ID")
    for role, names in ALIASES.items():
        assert len(set(names)) == len(names), role


def test_explicit_names_case_insensitive_and_missing() -> None:
    table = {"A": [1], "B": [2], "C": [3]}
    data = read_interactions(table, user="a", item="B", timestamp="c")
    assert (data.user, data.item, data.timestamp) == ("A", "B", "C")
    with pytest.raises(InputError, match="no column 'zz'.*found columns 'A', 'B', 'C'"):
        read_interactions(table, user="zz", item="B")


def test_missing_columns_error_lists_columns() -> None:
    with pytest.raises(InputError) as err:
        read_interactions({"who": [1], "what": [2]})
    msg = str(err.value)
    assert "no user column" in msg and "'who', 'what'" in msg


def test_ambiguous_columns() -> None:
    with pytest.raises(InputError, match="could each be the user column"):
        read_interactions({"user_id": [1], "UserID": [1], "item": [2]})


def test_rating_and_timestamp_false() -> None:
    data = read_interactions({"user": [1], "item": [2], "rating": ["x"], "time": ["?"]}, rating=False, timestamp=False)
    assert data.rating is None and data.timestamp is None
    with pytest.raises(InputError, match="no timestamp column"):
        data.time_values()


def test_null_id_names_row_and_pandas_label() -> None:
    df = pd.DataFrame({"user": ["a", None], "item": [1, 2]}, index=["r1", "r2"])
    with pytest.raises(InputError, match=r"row 1 \(index 'r2'\).*user id is missing"):
        read_interactions(df)
    with pytest.raises(InputError, match="item id is NaN|item id is missing"):
        read_interactions({"user": [1, 2], "item": [1.0, float("nan")]})


def test_time_values_types() -> None:
    base = {"user": [1, 2, 3], "item": [1, 1, 1]}
    iso = read_interactions({**base, "ts": ["2024-01-02", "2024-01-01T12:00:00", "2024-01-03 00:00:01"]})
    assert iso.time_unit == "ns"
    v = iso.time_values()
    assert v[1] < v[0] < v[2]
    assert v[0] == np.datetime64("2024-01-02", "ns").astype(np.int64)
    zoned = read_interactions({**base, "ts": ["2024-01-01T00:00:00Z", "2024-01-01T01:00:00+02:00", "2024-01-01T00:30:00Z"]})
    z = zoned.time_values()
    assert z[1] < z[0] < z[2]
    dates = read_interactions({**base, "date": pa.array([3, 1, 2], pa.date32())})
    assert dates.time_unit == "D" and dates.time_values().tolist() == [3, 1, 2]
    floats = read_interactions({**base, "time": [0.5, 0.25, 1.0]})
    assert floats.time_values().dtype == np.float64
    with pytest.raises(InputError, match="not an ISO-8601"):
        read_interactions({**base, "ts": ["2024-01-01", "yesterday", "2024-01-02"]})
    with pytest.raises(InputError, match="timestamp is NaN"):
        read_interactions({**base, "time": [0.5, float("nan"), 1.0]})


def test_interactions_is_small_and_documented() -> None:
    # the API other engineers rely on
    fields = {f for f in Interactions.__dataclass_fields__}
    assert {"table", "user", "item", "rating", "timestamp", "kind", "source"} <= fields
    assert Interactions.__doc__ and read_interactions.__doc__ and to_input_kind.__doc__
