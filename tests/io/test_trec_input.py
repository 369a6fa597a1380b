"""TREC text and other inputs: what is accepted, and one clear error naming file:line otherwise."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest

import rankmeter
from rankmeter import InputError, Qrels, Run


def write(tmp_path: Path, name: str, text: str) -> Path:
    p = tmp_path / name
    p.write_text(text)
    return p


def test_whitespace_comments_extra_columns_and_hash_in_ids(tmp_path) -> None:
    run = write(tmp_path, "r.txt", "# a comment\nq1\tQ0\td#1\t1\t  2.5\tsys junk after\n\n q1  Q0 d2 2 1.5 sys\n")
    r = rankmeter.read_run(run)
    assert r.to_lists() == {"q1": ["d#1", "d2"]}


def test_rank_column_ignored_unless_asked(tmp_path) -> None:
    run = write(tmp_path, "r.txt", "q Q0 a 1 1.0 s\nq Q0 b 2 2.0 s\n")
    assert rankmeter.read_run(run).to_lists() == {"q": ["b", "a"]}
    assert rankmeter.read_run(run, order="rank").to_lists() == {"q": ["a", "b"]}


def test_ties_broken_by_item_id_descending() -> None:
    r = Run.from_columns(["q"] * 4, ["b", "a", "c", "B"], [1.0, 1.0, 1.0, 2.0])
    assert r.to_lists() == {"q": ["B", "c", "b", "a"]}


@pytest.mark.parametrize(
    "name,text,line,needle",
    [
        ("r1.txt", "q Q0 a 1 1.0 s\nq Q0 b 2 x s\n", 2, "score is not a number"),
        ("r2.txt", "q Q0 a 1 1.0 s\nq Q0 b 2 nan s\n", 2, "not a finite number"),
        ("r3.txt", "q Q0 a 1 1.0 s\n# c\nq Q0 b 2 inf s\n", 3, "not a finite number"),
        ("r4.txt", "q Q0 a 1 1.0 s\nq Q0 b 2\n", 2, "expected 6"),
        ("r5.txt", "q Q0 a 1 1.0 s\n\nq Q0 a 2 0.5 s\n", 3, "appears twice"),
    ],
)
def test_bad_run_lines(tmp_path, name, text, line, needle) -> None:
    with pytest.raises(InputError) as err:
        rankmeter.read_run(write(tmp_path, name, text))
    assert err.value.line == line and needle in str(err.value) and name in str(err.value)


@pytest.mark.parametrize(
    "text,line,needle",
    [
        ("q 0 a 1\nq 0 b high\n", 2, "relevance grade is not a number"),
        ("q 0 a 1\nq 0 b\n", 2, "expected 4"),
        ("q 0 a 1\nq 0 a 2\n", 2, "duplicate judgment"),
        ("q 0 a 1\nq 0 b nan\n", 2, "not a finite number"),
    ],
)
def test_bad_qrels_lines(tmp_path, text, line, needle) -> None:
    with pytest.raises(InputError) as err:
        rankmeter.read_qrels(write(tmp_path, "q.txt", text))
    assert err.value.line == line and needle in str(err.value)


def test_empty_and_comment_only_files(tmp_path) -> None:
    with pytest.raises(InputError, match="empty"):
        rankmeter.read_run(write(tmp_path, "e.txt", ""))
    with pytest.raises(InputError, match="no run lines"):
        rankmeter.read_run(write(tmp_path, "c.txt", "# nothing\n"))
    with pytest.raises(InputError, match="no such file"):
        rankmeter.read_qrels(tmp_path / "missing.txt")


def test_duplicate_policies_are_counted() -> None:
    r = Run.from_columns(["q", "q", "q"], ["a", "a", "b"], [1.0, 3.0, 2.0], duplicates="max")
    assert r.to_dict() == {"q": {"a": 3.0, "b": 2.0}} and r.dropped == 1
    r = Run.from_columns(["q", "q", "q"], ["a", "a", "b"], [1.0, 3.0, 2.0], duplicates="first")
    assert r.to_dict()["q"]["a"] == 1.0
    res = rankmeter.evaluate({"q": {"a": 1}}, r, "p@1")
    assert res.n_queries == 1


def test_negative_and_float_grades() -> None:
    q = Qrels.from_columns(["q", "q", "q"], ["a", "b", "c"], [-1, 0.5, 2])
    res = rankmeter.evaluate(q, {"q": ["a", "b", "c"]}, ["ndcg", "p@3", "p(rel=0.5)@3"])
    # gains: a -> 0 (negative), b -> 0.5, c -> 2; relevant at rel=1: c only
    assert res.mean["p@3"] == pytest.approx(1 / 3)
    assert res.mean["p(rel=0.5)@3"] == pytest.approx(2 / 3)


def test_csv_tsv_parquet_and_frames(tmp_path) -> None:
    df = pd.DataFrame({"qid": ["1", "1"], "docno": ["a", "b"], "score": [0.2, 0.9]})
    qdf = pd.DataFrame({"user_id": [1, 1], "item_id": ["a", "c"], "rating": [1, 1]})
    df.to_csv(tmp_path / "r.csv", index=False)
    df.to_csv(tmp_path / "r.tsv", index=False, sep="\t")
    df.to_parquet(tmp_path / "r.parquet")
    want = {"1": ["b", "a"]}
    for src in (tmp_path / "r.csv", tmp_path / "r.tsv", tmp_path / "r.parquet", df, pa.Table.from_pandas(df)):
        assert rankmeter.io.as_run(src).to_lists() == want
    assert rankmeter.io.as_qrels(qdf).to_dict() == {"1": {"a": 1.0, "c": 1.0}}


def test_csv_missing_column_names_the_columns(tmp_path) -> None:
    pd.DataFrame({"a": [1], "b": [2]}).to_csv(tmp_path / "x.csv", index=False)
    with pytest.raises(InputError, match="cannot find the query column: no query column among 'a', 'b'"):
        rankmeter.read_run(tmp_path / "x.csv")


def test_csv_bad_score_names_the_line(tmp_path) -> None:
    (tmp_path / "r.csv").write_text("query,item,score\nq,a,1\nq,b,nan\n")
    with pytest.raises(InputError) as err:
        rankmeter.read_run(tmp_path / "r.csv")
    assert err.value.line == 3


def test_hivemall_list_forms() -> None:
    res = rankmeter.evaluate({"u": [1, 2, 4]}, {"u": [1, 3, 2, 6]}, ["recall@2"])
    assert res.mean["recall@2"] == pytest.approx(1 / 3)


def test_ids_compared_exactly_not_hashed() -> None:
    # ids that a float hash would merge stay distinct
    ids = [str(2**53), str(2**53 + 1)]
    res = rankmeter.evaluate({"q": {ids[1]: 1}}, {"q": {ids[0]: 2.0, ids[1]: 1.0}}, ["rr"])
    assert res.mean["rr"] == 0.5


def test_inputs_are_not_modified() -> None:
    df = pd.DataFrame({"query": ["q", "q"], "item": ["a", "b"], "score": [1.0, 1.0]})
    before = df.copy()
    rankmeter.evaluate({"q": {"a": 1}}, df, ["p@1"])
    pd.testing.assert_frame_equal(df, before)


def test_large_ids_and_many_queries_fast_path(tmp_path) -> None:
    rng = np.random.default_rng(0)
    lines = [f"q{q} Q0 doc{d} 0 {rng.random():.6f} s" for q in range(200) for d in rng.choice(1000, 50, replace=False)]
    p = write(tmp_path, "big.txt", "\n".join(lines) + "\n")
    r = rankmeter.read_run(p)
    assert len(r) == 200 * 50 and r.n_queries == 200


@pytest.mark.parametrize(
    "text",
    [
        "#q Q0 x 1 9.0 s\nq Q0 a 1 1.0 s\nq Q0 b 2 2.0 s\n",  # a comment line of exactly six fields
        "q Q0 a 1 1.0 s\nq\tQ0 b 2 2.0 s t u\n",  # a tab the one-blank split would keep inside an id
        "q Q0 a 1 1.0 s\nq Q0 b 2 2.0 s\r\n",  # a CRLF line end
    ],
)
def test_lines_the_fast_parse_would_misread_go_the_tolerant_way(tmp_path, text) -> None:
    assert rankmeter.read_run(write(tmp_path, "r.txt", text)).to_lists() == {"q": ["b", "a"]}


def test_non_ascii_ids_take_the_fast_path_and_stay_exact(tmp_path) -> None:
    run = write(tmp_path, "r.txt", "q Q0 é 1 1.0 s\nq Q0 e 2 1.0 s\nq Q0 文書 3 0.5 s\n")
    assert rankmeter.read_run(run).to_lists() == {"q": ["é", "e", "文書"]}  # ties: bytes descending


def test_long_ids_with_equal_signatures_are_not_duplicates() -> None:
    # same length, first and last 8 bytes: equal 64-bit signatures, different ids
    a, b = "http://x.org/" + "a" * 10 + "/index.html", "http://x.org/" + "b" * 10 + "/index.html"
    from rankmeter.data.ids import string_signature

    assert string_signature(pa.array([a]))[0] == string_signature(pa.array([b]))[0]
    r = Run.from_columns(["q", "q"], [a, b], [2.0, 1.0])
    assert r.to_lists() == {"q": [a, b]} and r.dropped == 0
    res = rankmeter.evaluate({"q": {b: 1}}, r, ["rr", "p@1"])
    assert res.mean == {"rr": 0.5, "p@1": 0.0}
    with pytest.raises(ValueError, match="appears twice"):
        Run.from_columns(["q", "q", "q"], [a, b, b], [3.0, 2.0, 1.0])


@pytest.mark.parametrize("width", [3, 40])
def test_judgments_found_by_id_equal_those_found_by_code(width) -> None:
    # the join by id (no item codes) and the join by code give the same batch;
    # wide ids share signatures, so the exact fallback is exercised too
    from rankmeter.evaluate import align

    rng = np.random.default_rng(width)
    pad = "p" * width
    ids = [f"{pad}{i:04d}{pad}{i % 7}" if width > 16 else f"d{i}" for i in range(300)]
    qrels = Qrels.from_columns(
        [f"q{q}" for q in range(20) for _ in range(15)],
        [ids[i] for q in range(20) for i in rng.choice(300, 15, replace=False)],
        rng.integers(-1, 4, size=300))
    run = Run.from_columns(
        [f"q{q}" for q in range(25) for _ in range(30)],
        [ids[i] for q in range(25) for i in rng.choice(300, 30, replace=False)],
        rng.integers(0, 5, size=750).astype(float))
    by_code, _, _ = align(qrels, run, "qrels", items=True)
    by_id, _, _ = align(qrels, run, "qrels", items=False)
    assert by_id.judged.sum() > 0
    np.testing.assert_array_equal(by_id.grade, by_code.grade)
    np.testing.assert_array_equal(by_id.judged, by_code.judged)
    np.testing.assert_array_equal(by_id.offsets, by_code.offsets)


def test_rank_ties_move_their_scores_along() -> None:
    r = Run.from_columns(["q"] * 3, ["a", "b", "c"], [1.0, 2.0, 3.0], rank=[1, 1, 2], order="rank")
    assert r.to_lists() == {"q": ["b", "a", "c"]}
    assert r.scores.tolist() == [2.0, 1.0, 3.0]
    s = Run.from_columns(["q"] * 4, ["a", "c", "b", "d"], [2.0, 1.0, 1.0, 0.5])
    assert s.to_lists() == {"q": ["a", "c", "b", "d"]} and s.scores.tolist() == [2.0, 1.0, 1.0, 0.5]
    t = Run.from_columns(["q"] * 4, ["a", "b", "c", "d"], [2.0, 1.0, 1.0, 0.5])
    assert t.to_lists() == {"q": ["a", "c", "b", "d"]} and t.scores.tolist() == [2.0, 1.0, 1.0, 0.5]
    assert t.items_at(np.array([1, 2])).to_pylist() == ["c", "b"]
