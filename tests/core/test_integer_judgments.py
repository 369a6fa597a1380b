"""Judgments whose item ids are integers are coded as numbers (only the distinct ids written as text), with
exactly the vocabulary, codes, signatures and values of the same ids given as text."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rankmeter
from rankmeter.data import Qrels

INT64 = st.integers(-(2**63), 2**63 - 1)


@settings(max_examples=80, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 5), st.one_of(st.integers(-30, 30), INT64), st.integers(0, 3)),
                max_size=40, unique_by=lambda r: (r[0], r[1])))
def test_integer_item_ids_code_as_their_text_does(rows: list[tuple[int, int, int]]) -> None:
    q = [f"q{r[0]}" for r in rows]
    items = np.array([r[1] for r in rows], dtype=np.int64)
    g = [r[2] for r in rows]
    as_int = Qrels.from_columns(q, pa.array(items), g)
    as_text = Qrels.from_columns(q, [str(int(i)) for i in items], g)
    assert as_int.item_ids.equals(as_text.item_ids)
    assert np.array_equal(as_int.items, as_text.items) and np.array_equal(as_int.grades, as_text.grades)
    assert np.array_equal(as_int.item_signatures(), as_text.item_signatures())
    values = as_int.item_integers()
    assert values is not None and as_text.item_integers() is None
    assert [str(v) for v in values.tolist()] == as_int.item_ids.to_pylist()


def test_a_duplicate_integer_judgment_names_the_id_as_text() -> None:
    with pytest.raises(Exception, match=r"item '7'"):
        Qrels.from_columns(["q", "q"], np.array([7, 7]), [1, 0])


@pytest.mark.parametrize("big", [False, True])
def test_integer_ids_from_parquet_evaluate_as_text_ids_do(tmp_path: Path, big: bool) -> None:
    # ids of 19 digits are matched as text by the engine: both ways must give the same values
    base = 10**18 + 5 if big else 5
    rng = np.random.default_rng(3)
    users = np.repeat(np.arange(50, dtype=np.int64), 20)
    items = base + rng.permutation(np.tile(np.arange(40, dtype=np.int64), 25))[: len(users)]
    keep = np.unique(users * 1000 + (items - base), return_index=True)[1]
    users, items = users[keep], items[keep]
    scores = rng.random(len(users))
    judged = rng.random(len(users)) < 0.4
    grades = rng.integers(0, 3, int(judged.sum()))
    for kind in ("int", "text"):
        def conv(a: np.ndarray, kind: str = kind) -> pa.Array:
            return pa.array(a) if kind == "int" else pa.array([str(v) for v in a.tolist()])

        pq.write_table(pa.table({"query": conv(users), "item": conv(items), "score": scores}),
                       tmp_path / f"r-{kind}.parquet")
        pq.write_table(pa.table({"query": conv(users[judged]), "item": conv(items[judged]), "grade": grades}),
                       tmp_path / f"q-{kind}.parquet")
    qi, qt = rankmeter.read_qrels(tmp_path / "q-int.parquet"), rankmeter.read_qrels(tmp_path / "q-text.parquet")
    assert qi.item_integers() is not None and qi.to_dict() == qt.to_dict()
    metrics = ["ndcg@10", "map", "P@5", "recall@20"]
    a = rankmeter.evaluate(qi, tmp_path / "r-int.parquet", metrics)
    b = rankmeter.evaluate(qt, tmp_path / "r-text.parquet", metrics)
    c = rankmeter.evaluate(qi, tmp_path / "r-text.parquet", metrics)
    assert a.values.keys() == b.values.keys()
    for m in metrics:
        assert np.array_equal(np.asarray(a.values[m]), np.asarray(b.values[m]))
        assert np.array_equal(np.asarray(a.values[m]), np.asarray(c.values[m]))


def test_integer_ids_coded_by_a_sort_when_the_hash_rounds_run_out(monkeypatch) -> None:
    """encode_integer_ids' fallback (numpy's unique, numbered by first appearance) gives what the hash gives."""
    import numpy as np

    from rankmeter.data import ids

    values = np.array([10, 7, 10, -3, 7, 2**40, 0, 10], dtype=np.int64)
    want = ids.encode_integer_ids(values)
    monkeypatch.setattr(ids, "_codes_by_key", lambda key, rounds=12: None)  # (the rounds ran out)
    got = ids.encode_integer_ids(values)
    assert got[0].tolist() == want[0].tolist() == [0, 1, 0, 2, 1, 3, 4, 0]
    assert got[1].to_pylist() == want[1].to_pylist() == ["10", "7", "-3", str(2**40), "0"]
    assert got[2].tolist() == want[2].tolist() and got[3].tolist() == want[3].tolist()
