"""One input layer: the same data gives the same ids and values whatever its form (issues #13.1, #12)."""

from __future__ import annotations

import gzip
import os
import subprocess
import sys
import threading
from pathlib import Path

import numpy as np
import pandas as pd
import polars as pl
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import rankmeter
from rankmeter import InputError
from rankmeter.io import as_qrels, as_run, read_qrels, read_run
from rankmeter.io.blocks import open_run_blocks

BOM = "\ufeff"


def write(tmp_path: Path, name: str, text: str | bytes) -> Path:
    p = tmp_path / name
    if isinstance(text, bytes):
        p.write_bytes(text)
    else:
        p.write_bytes(text.encode("utf-8"))
    return p


# --------------------------------------------------------------------------- CSV ids are text


def test_csv_ids_are_text_never_inferred(tmp_path) -> None:
    ids = ["007", "1.0", "1e3", "2024-01-01T10:00:00", "100000000000000000001", "100000000000000000002"]
    text = "query,item,score\n" + "".join(f"q,{d},{len(ids) - i}\n" for i, d in enumerate(ids))
    assert read_run(write(tmp_path, "r.csv", text)).to_lists() == {"q": ids}
    qtext = "query,item,grade\n" + "".join(f"007,{d},1\n" for d in ids)
    assert list(read_qrels(write(tmp_path, "q.csv", qtext)).to_dict()["007"]) == ids


def test_csv_run_against_trec_judgments_keeps_leading_zeros(tmp_path) -> None:
    qrels = write(tmp_path, "qrels.txt", "1 0 007 1\n1 0 010 1\n1 0 3 0\n")
    csv_run = write(tmp_path, "run.csv", "query,item,score\n1,007,3\n1,3,2\n1,010,1\n")
    trec_run = write(tmp_path, "run.txt", "1 Q0 007 1 3 s\n1 Q0 3 2 2 s\n1 Q0 010 3 1 s\n")
    want = rankmeter.evaluate(read_qrels(qrels), read_run(trec_run), ["map"]).mean["map"]
    got = rankmeter.evaluate(read_qrels(qrels), read_run(csv_run), ["map"]).mean["map"]
    assert got == pytest.approx(want) == pytest.approx((1 + 2 / 3) / 2)


def test_split_style_quoted_ids_read_back(tmp_path) -> None:
    # what `split --format csv` writes: quoted text ids
    test = write(tmp_path, "test.csv", '"user","item","timestamp"\n"001","0103",5\n')
    run = write(tmp_path, "run.csv", '"user","item","score"\n"001","0103",1.0\n"001","103",0.5\n')
    res = rankmeter.evaluate(read_qrels(test), read_run(run), ["P@1"])
    assert res.mean["P@1"] == 1.0


def test_csv_number_grammar_is_arrows(tmp_path) -> None:
    with pytest.raises(InputError) as err:
        read_run(write(tmp_path, "r.csv", "query,item,score\nq,a,1\nq,b,1_000\n"))
    assert err.value.line == 3 and "score is not a number ('1_000')" in str(err.value)


# --------------------------------------------------------------------------- one TREC parser


def test_bom_and_seventh_column(tmp_path) -> None:
    plain = "q1 Q0 a 1 2 s\nq1 Q0 b 2 1 s\nq2 Q0 c 1 1 s\n"
    seven = BOM + plain.replace(" s\n", " s extra\n")
    assert read_run(write(tmp_path, "r7.txt", seven)).to_lists() == read_run(write(tmp_path, "r6.txt", plain)).to_lists()
    assert "q1" in read_run(write(tmp_path, "r7b.txt", seven)).to_lists()


def test_mixed_extra_columns(tmp_path) -> None:
    text = "q Q0 a 1 2 s\nq Q0 b 2 1 s x y z\nq Q0 c 3 0 s x\n"
    assert read_run(write(tmp_path, "r.txt", text)).to_lists() == {"q": ["a", "b", "c"]}


@pytest.mark.parametrize("char", ["\u00a0", "\u2028", "\u0085", "\u3000"])
def test_non_ascii_spaces_stay_inside_ids(tmp_path, char) -> None:
    # with a 7th column (the old reader's pure-Python path split ids on Unicode whitespace)
    run = write(tmp_path, "r.txt", f"q Q0 a{char}b 1 2 s x\nq Q0 c 2 1 s x\n")
    assert read_run(run).to_lists() == {"q": [f"a{char}b", "c"]}
    qrels = write(tmp_path, "q.txt", f"q 0 a{char}b 1\n")
    assert read_qrels(qrels).to_dict() == {"q": {f"a{char}b": 1.0}}


def test_form_feed_and_vertical_tab_are_blanks_not_line_ends(tmp_path) -> None:
    # trec_eval splits fields with C's isspace: \f and \v separate fields; only \n (\r\n, \r) ends a line
    text = "q\fQ0 a 1 2\vs\nq Q0 b 2 1 s\nq Q0 c 3 x s\n"
    with pytest.raises(InputError) as err:
        read_run(write(tmp_path, "r.txt", text))
    assert err.value.line == 3 and "score is not a number ('x')" in str(err.value)
    good = write(tmp_path, "g.txt", "q\fQ0 a 1 2\vs\nq Q0 b 2 1 s\n")
    assert read_run(good).to_lists() == {"q": ["a", "b"]}


@pytest.mark.parametrize("end", ["\n", "\r\n", "\r"])
def test_line_ends(tmp_path, end) -> None:
    text = end.join(["q Q0 a 1 2 s", "q Q0 b 2 1 s", "q Q0 c 3 y s"]) + end
    with pytest.raises(InputError) as err:
        read_run(write(tmp_path, "r.txt", text))
    assert err.value.line == 3


@pytest.mark.parametrize("value", ["1_000", "0x10", "nan", "inf", "-inf", "1e999"])
def test_trec_scores_and_grades_one_number_grammar(tmp_path, value) -> None:
    with pytest.raises(InputError) as err:
        read_run(write(tmp_path, "r.txt", f"q Q0 a 1 1 s\n\nq Q0 b 2 {value} s\n"))
    assert err.value.line == 3 and "r.txt" in str(err.value)
    with pytest.raises(InputError) as err:
        read_qrels(write(tmp_path, "q.txt", f"q 0 a 1\nq 0 b {value}\n"))
    assert err.value.line == 2


def test_comment_lines_are_skipped_and_counted(tmp_path) -> None:
    text = "#q1 Q0 a 1 3 s\n  # indented comment\nq2 Q0 b 1 2 s\n#q3 Q0 c 1 1 s\n"
    run = read_run(write(tmp_path, "run.txt", text))
    assert run.to_lists() == {"q2": ["b"]}
    assert run.comment_lines == 3
    assert f"3 comment lines (starting with '#') were skipped in {tmp_path / 'run.txt'}" in run.notes
    qrels = read_qrels(write(tmp_path, "q.txt", "# header\nq2 0 b 1\n"))
    assert qrels.comment_lines == 1 and qrels.notes
    res = rankmeter.evaluate(qrels, run, ["P@1"])
    assert res.mean["P@1"] == 1.0


def test_comments_false_reads_hash_lines_as_data(tmp_path) -> None:
    text = "#q1 Q0 a 1 3 s\nq2 Q0 b 1 2 s\n"
    run = read_run(write(tmp_path, "run.txt", text), comments=False)
    assert run.to_lists() == {"#q1": ["a"], "q2": ["b"]} and run.comment_lines == 0
    qrels = read_qrels(write(tmp_path, "q.txt", "#q1 0 a 1\n"), comments=False)
    assert qrels.to_dict() == {"#q1": {"a": 1.0}}


def test_seven_columns_as_fast_as_six(tmp_path) -> None:
    # the 7th column used to take a pure-Python path; now the same parse (a loose bound: the same order)
    import time

    lines = "".join(f"q{i // 100} Q0 d{i} {i % 100} {i * 0.5} s\n" for i in range(100_000))
    six = write(tmp_path, "r6.txt", lines)
    seven = write(tmp_path, "r7.txt", lines.replace(" s\n", " s x\n"))
    read_run(six), read_run(seven)
    t0 = time.perf_counter(); read_run(six); t6 = time.perf_counter() - t0
    t0 = time.perf_counter(); read_run(seven); t7 = time.perf_counter() - t0
    assert t7 < 3 * t6 + 0.05


# --------------------------------------------------------------------------- swapped arguments


def test_trec_run_given_as_qrels_says_qrels_first(tmp_path) -> None:
    run = write(tmp_path, "run.txt", "q Q0 a 1 2 s\nq Q0 b 2 1 s\n")
    with pytest.raises(InputError, match="looks like a TREC run.*QRELS comes first"):
        read_qrels(run)
    qrels = write(tmp_path, "qrels.txt", "q 0 a 1\nq 0 b 0\n")
    with pytest.raises(InputError, match="looks like TREC judgments.*QRELS comes first"):
        read_run(qrels)


def test_csv_run_given_as_qrels_says_qrels_first(tmp_path) -> None:
    run = write(tmp_path, "run.csv", "query,item,score\nq,a,0.5\nq,b,0.25\n")
    with pytest.raises(InputError, match="'score'.*looks like a run.*QRELS comes first"):
        read_qrels(run)
    qrels = write(tmp_path, "q.csv", "query,item,relevance\nq,a,1\n")
    with pytest.raises(InputError, match="'relevance' looks like relevance grades.*QRELS comes first"):
        read_run(qrels)


# --------------------------------------------------------------------------- the grade column


def test_unrecognised_numeric_column_in_judgments_is_an_error(tmp_path) -> None:
    with pytest.raises(InputError, match="'foo'"):
        read_qrels(write(tmp_path, "q.csv", "query,item,foo\nq,a,3\n"))
    with pytest.raises(InputError, match="'score'"):
        as_qrels(pd.DataFrame({"query": ["q"], "item": ["a"], "score": [2]}))


def test_two_columns_mean_all_relevant_with_a_note(tmp_path) -> None:
    q = read_qrels(write(tmp_path, "q.csv", "query,item\nq,a\nq,b\n"))
    assert q.to_dict() == {"q": {"a": 1.0, "b": 1.0}}
    assert any("every judgment counts as relevant (grade 1)" in n for n in q.notes)


def test_grade_from_a_rating_column_is_noted(tmp_path) -> None:
    q = read_qrels(write(tmp_path, "q.csv", "user,item,rating\nu,a,4\n"))
    assert q.to_dict() == {"u": {"a": 4.0}}
    assert "grade from column 'rating'" in q.notes
    assert not read_qrels(write(tmp_path, "g.csv", "query,item,grade\nq,a,1\n")).notes


# --------------------------------------------------------------------------- columns


@pytest.mark.parametrize("header", ["query,Query,item,score", "user,user_id,item,score"])
def test_two_candidate_columns_are_an_error(tmp_path, header) -> None:
    a, b = header.split(",")[:2]
    p = write(tmp_path, "r.csv", header + "\nq,q,a,1\n")
    with pytest.raises(InputError, match=f"'{a}', '{b}' could each be the query column"):
        read_run(p)
    assert read_run(p, query=b).to_lists() == {"q": ["a"]}


def test_duplicate_column_names(tmp_path) -> None:
    p = write(tmp_path, "r.csv", "query,item,item,score\nq,a,b,1\n")
    with pytest.raises(InputError, match="column 'item' appears twice"):
        read_run(p)
    with pytest.raises(InputError, match="column 'item' appears twice"):
        list(open_run_blocks(p).blocks(10))
    df = pd.DataFrame([["q", "a", "b", 1.0]], columns=["query", "item", "item", "score"])
    with pytest.raises(InputError, match="column 'item' appears twice"):
        as_run(df)


# --------------------------------------------------------------------------- typed sources


def test_integer_ids_are_decimal_text_everywhere(tmp_path) -> None:
    df = pd.DataFrame({"query": [1, 1], "item": [7, 10], "score": [1.0, 2.0]})
    want = {"1": ["10", "7"]}
    df.to_parquet(tmp_path / "r.parquet")
    for src in (df, pl.from_pandas(df), pa.Table.from_pandas(df), tmp_path / "r.parquet", {1: {7: 1.0, 10: 2.0}}):
        assert as_run(src).to_lists() == want
    blocks = list(open_run_blocks(tmp_path / "r.parquet").blocks(1))
    assert [b.table.column("item").to_pylist() for b in blocks] == [["7"], ["10"]]


def test_float_ids_are_refused(tmp_path) -> None:
    df = pd.DataFrame({"query": [1.0], "item": ["a"], "score": [1.0]})
    with pytest.raises(InputError, match="query column 'query' holds floating-point numbers"):
        as_run(df)
    with pytest.raises(InputError, match="ids must be text or integers"):
        as_run({1.5: {"a": 1.0}})


@pytest.mark.parametrize("values,kind", [
    (pa.array([{"x": 1}]), "struct"),
    (pa.array([[1, 2]]), "list"),
])
def test_nested_ids_name_column_and_type(tmp_path, values, kind) -> None:
    table = pa.table({"query": ["q"], "item": values, "score": [1.0]})
    with pytest.raises(InputError, match=f"item column 'item' has type {kind}"):
        as_run(table)
    pq.write_table(table, tmp_path / "r.parquet")
    with pytest.raises(InputError, match=f"item column 'item' has type {kind}"):
        read_run(tmp_path / "r.parquet")
    with pytest.raises(InputError, match=f"item column 'item' has type {kind}"):
        list(open_run_blocks(tmp_path / "r.parquet").blocks(10))


def test_binary_ids_that_are_not_utf8(tmp_path) -> None:
    table = pa.table({"query": ["q"], "item": pa.array([b"\xff\xfe"], pa.binary()), "score": [1.0]})
    pq.write_table(table, tmp_path / "r.parquet")
    with pytest.raises(InputError, match="item column 'item' has type binary and holds bytes that are not UTF-8"):
        list(open_run_blocks(tmp_path / "r.parquet").blocks(10))
    ok = pa.table({"query": ["q"], "item": pa.array([b"d1"], pa.binary()), "score": [1.0]})
    assert as_run(ok).to_lists() == {"q": ["d1"]}


def test_dict_score_too_large_names_query_and_item() -> None:
    with pytest.raises(InputError, match="query 'q', item 'a': score is too large"):
        as_run({"q": {"a": 10**400, "b": 1.0}})
    with pytest.raises(InputError, match="query 'q', item 'b': relevance grade is not a finite number"):
        as_qrels({"q": {"a": 1, "b": float("nan")}})


# --------------------------------------------------------------------------- rank order


def test_non_numeric_rank_names_the_line(tmp_path) -> None:
    p = write(tmp_path, "r.txt", "q Q0 a 1 1 s\nq Q0 b x 2 s\n")
    with pytest.raises(InputError) as err:
        read_run(p, order="rank")
    assert str(err.value).startswith(f"{p}:2: rank is not a number ('x')")
    with pytest.raises(InputError) as err:
        list(open_run_blocks(p, order="rank").blocks(1))
    assert str(err.value).startswith(f"{p}:2: rank is not a number ('x')")
    c = write(tmp_path, "r.csv", "query,item,rank\nq,a,1\nq,b,two\n")
    with pytest.raises(InputError) as err:
        read_run(c, order="rank")
    assert str(err.value).startswith(f"{c}:3: rank is not a number ('two')")


# --------------------------------------------------------------------------- pipes, stdin, gzip


def test_gzip_by_magic_bytes(tmp_path) -> None:
    csv = b"query,item,score\nq,007,1\nq,8,2\n"
    (tmp_path / "r.csv.gz").write_bytes(gzip.compress(csv))
    (tmp_path / "r.data").write_bytes(gzip.compress(csv))
    (tmp_path / "run.txt.gz").write_bytes(gzip.compress(b"q Q0 007 1 1 s\nq Q0 8 2 2 s\n"))
    for name in ("r.csv.gz", "r.data", "run.txt.gz"):
        assert read_run(tmp_path / name).to_lists() == {"q": ["8", "007"]}, name
        assert [b.table.column("item").to_pylist() for b in open_run_blocks(tmp_path / name).blocks(10)] == \
            [["007", "8"]], name


def test_fifo_is_read_as_a_stream(tmp_path) -> None:
    if not hasattr(os, "mkfifo"):
        pytest.skip("no FIFOs here")
    fifo = tmp_path / "run.fifo"
    os.mkfifo(fifo)

    def feed() -> None:
        with open(fifo, "wb") as fh:
            fh.write(gzip.compress(b"q Q0 a 1 1 s\nq Q0 b 2 2 s\n"))

    t = threading.Thread(target=feed)
    t.start()
    try:
        assert read_run(fifo).to_lists() == {"q": ["b", "a"]}
    finally:
        t.join(timeout=10)


def _cli(*args: str, stdin: bytes | None = None) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run([sys.executable, "-m", "rankmeter", *args], input=stdin, capture_output=True, timeout=120)


def test_cli_reads_the_run_from_stdin(tmp_path) -> None:
    qrels = write(tmp_path, "qrels.txt", "q 0 b 1\n")
    out = _cli("evaluate", str(qrels), "-", "-m", "P@1", "--format", "csv", stdin=b"q Q0 a 1 1 s\nq Q0 b 2 2 s\n")
    assert out.returncode == 0, out.stderr
    assert b"1.0" in out.stdout
    out = _cli("evaluate", str(qrels), "-", "-m", "P@1", "--format", "csv",
               stdin=gzip.compress(b"query,item,score\nq,b,2\nq,a,1\n"))
    assert out.returncode == 0, out.stderr


def test_cli_reads_judgments_from_dev_stdin(tmp_path) -> None:
    if not Path("/dev/stdin").exists():
        pytest.skip("no /dev/stdin")
    run = write(tmp_path, "run.txt", "q Q0 a 1 1 s\nq Q0 b 2 2 s\n")
    out = _cli("evaluate", "/dev/stdin", str(run), "-m", "P@1", "--format", "csv", stdin=b"q 0 b 1\n")
    assert out.returncode == 0, out.stderr
    out = _cli("evaluate", "/dev/stdin", str(run), "-m", "P@1", stdin=b"")
    assert out.returncode == 2 and b"empty" in out.stderr


def test_block_reader_stdin_stream(tmp_path) -> None:
    code = ("import sys; from rankmeter.io.blocks import open_run_blocks; s = open_run_blocks('-');"
            "print(sum(b.table.num_rows for b in s.blocks(2)), s.comment_lines, s.restartable)")
    out = subprocess.run([sys.executable, "-c", code], input=b"# c\nq Q0 a 1 1 s\nq Q0 b 2 2 s\nr Q0 a 1 1 s\n",
                         capture_output=True, timeout=120)
    assert out.stdout.split() == [b"3", b"1", b"False"], out.stderr


# --------------------------------------------------------------------------- block readers


def test_blocks_give_the_in_process_rows(tmp_path) -> None:
    rng = np.random.default_rng(3)
    rows = [(f"0{q}", f"{d:03d}", float(rng.integers(0, 4))) for q in range(30) for d in rng.choice(500, 20, False)]
    csv = "query,item,score\n" + "".join(f"{q},{d},{s}\n" for q, d, s in rows)
    trec = BOM + "# a comment\n" + "".join(f"{q}\tQ0 {d} 0 {s} t x\n" for q, d, s in rows)
    for name, text in (("r.csv", csv), ("r.txt", trec)):
        p = write(tmp_path, name, text)
        whole = read_run(p).to_arrow()
        blocks = list(open_run_blocks(p).blocks(7, block_bytes=300))
        assert len(blocks) > 3
        t = pa.concat_tables([b.table for b in blocks])
        assert t.column("query").to_pylist() == [r[0] for r in rows]
        assert t.column("item").to_pylist() == [r[1] for r in rows]
        assert sorted(whole.column("item").to_pylist()) == sorted(t.column("item").to_pylist())
        lines = np.concatenate([b.lines for b in blocks])
        first = 2
        assert lines.tolist() == list(range(first, first + len(rows)))


def test_blocks_error_lines_far_into_the_file(tmp_path) -> None:
    text = "".join(f"q{i} Q0 d 1 1 s\n" for i in range(5000)) + "q Q0 d 1 oops s\n"
    p = write(tmp_path, "r.txt", text)
    with pytest.raises(InputError) as err:
        list(open_run_blocks(p).blocks(100))
    assert err.value.line == 5001
    src = open_run_blocks(write(tmp_path, "ok.txt", text[: -len("q Q0 d 1 oops s\n")]))
    for _ in src.blocks(100):
        pass
    assert src.line_of(10) == (11, "q10 Q0 d 1 1 s")  # re-read: an early block is gone from memory


# --------------------------------------------------------------------------- interactions through the same opening


def test_interactions_from_gzip_under_any_name_and_fifo(tmp_path) -> None:
    from rankmeter.io.interactions import read_interactions

    data = b"user,item,rating\n007,1.0,4\n8,x,oops\n"
    p = write(tmp_path, "ratings.data", gzip.compress(data))
    with pytest.raises(InputError) as err:
        read_interactions(p)
    assert err.value.line == 3 and "ratings.data" in str(err.value)
    good = write(tmp_path, "ok.bin", gzip.compress(b"user,item,rating\n007,1.0,4\n"))
    got = read_interactions(good)
    assert got.table.column("user").to_pylist() == ["007"] and got.table.column("item").to_pylist() == ["1.0"]
    if hasattr(os, "mkfifo"):
        fifo = tmp_path / "in.fifo"
        os.mkfifo(fifo)
        t = threading.Thread(target=lambda: fifo.write_bytes(b"user\titem\n007\t1.0\n"))
        t.start()
        try:
            assert read_interactions(fifo).table.column("item").to_pylist() == ["1.0"]
        finally:
            t.join(timeout=10)


def test_interactions_from_stdin() -> None:
    code = ("from rankmeter.io.interactions import read_interactions; d = read_interactions('-');"
            "print(d.table.column(d.user).to_pylist(), d.source)")
    out = subprocess.run([sys.executable, "-c", code], input=b"user,item\n007,a\n", capture_output=True, timeout=120)
    assert out.stdout.strip() == b"['007'] <stdin>", out.stderr


def test_stdin_twice_says_so(tmp_path) -> None:
    out = _cli("evaluate", "-", "-", "-m", "P@1", stdin=b"q 0 b 1\n")
    assert out.returncode == 2 and b"standard input was read already" in out.stderr, out.stderr


def test_empty_csv_id_names_the_line(tmp_path) -> None:
    with pytest.raises(InputError) as err:
        read_run(write(tmp_path, "r.csv", "query,item,score\nq,a,1\nq,,2\n"))
    assert err.value.line == 3 and "item id is empty" in str(err.value)


def test_read_trec_table_keeps_rows_and_duplicates(tmp_path) -> None:
    from rankmeter.io.trec import read_trec_table

    t = read_trec_table(write(tmp_path, "r.txt", "# c\nu Q0 007 1 2 s x\nu Q0 007 2 1 s\n"))
    assert t.to_pydict() == {"query": ["u", "u"], "item": ["007", "007"], "score": [2.0, 1.0]}


def test_split_csv_output_evaluates_with_its_ids(tmp_path) -> None:
    # the project's own chain: `split --format csv` writes "001","0104"; `evaluate` must read them as text
    inter = write(tmp_path, "inter.csv", "user,item,timestamp\n001,0103,1\n001,0104,2\n002,0103,1\n002,0105,3\n")
    out = _cli("split", str(inter), "--method", "leave-k-out", "--out", str(tmp_path / "sp"), "--format", "csv")
    assert out.returncode == 0, out.stderr
    run = write(tmp_path, "run.csv", "user,item,score\n001,0104,2\n001,104,1\n002,0105,2\n002,105,1\n")
    out = _cli("evaluate", str(tmp_path / "sp" / "test.csv"), str(run), "-m", "P@1", "--format", "json")
    assert out.returncode == 0, out.stderr
    import json

    assert json.loads(out.stdout)["mean"]["P@1"] == 1.0


TRICKY_RUNS = [
    "q Q0 d 1 2 \nq Q0 e 2 1 t\n",  # a missing tag hidden by a trailing blank: an error
    "q Q0 d 1 2 t \nq Q0 e 2 1 t \n",  # trailing blanks everywhere: fine
    "q  Q0 d 1 2 t\n",  # a doubled blank would shift the columns
    "q Q0\vz d 1 2 t\n",  # \v separates fields: the item is z
    "q Q0 d 1\vx 2 t\n",  # \v inside the rank: the score is x
    "q\tQ0 d 1 2 t\n",
    " q Q0 d 1 2 t\n",
    "#q Q0 d 1 2 t\nq Q0 e 1 1 t\n",
    "\ufeffq Q0 d 1 2 t\r\nq Q0 e 2 1 t\r\n",
    "q Q0 d 1 2 t x\nq Q0 e 2 1 t x\n",
    "q Q0 d 1 nan t\n",
    "q Q0 d 1 2 t\nq Q0 d 2 1 t\n",  # a duplicate: its line
    "\nq Q0 d 1 2 t\n\n\nq Q0 e 2 x t\n",
]


@pytest.mark.parametrize("text", TRICKY_RUNS)
def test_direct_file_read_agrees_with_the_full_parse(tmp_path, text) -> None:
    # a plain file may be parsed by pyarrow from its path; it must give what the byte parser gives
    from rankmeter.io.trec import parse_trec_run_bytes

    p = write(tmp_path, "r.txt", text)
    try:
        want = ("ok", parse_trec_run_bytes(text.encode(), str(p)).to_lists())
    except InputError as exc:
        want = ("error", str(exc))
    try:
        got = ("ok", read_run(p).to_lists())
    except InputError as exc:
        got = ("error", str(exc))
    assert got == want


@pytest.mark.parametrize("text", ["q 0 d 1\nq  0 e 1\n", "q\t0 d 1\n", "q 0\vz d 1\n", "q 0 d 1 \n", "q 0 d nan\n"])
def test_direct_qrels_read_agrees_with_the_full_parse(tmp_path, text) -> None:
    from rankmeter.io.trec import parse_trec_qrels_bytes

    p = write(tmp_path, "q.txt", text)
    try:
        want = ("ok", parse_trec_qrels_bytes(text.encode(), str(p)).to_dict())
    except InputError as exc:
        want = ("error", str(exc))
    try:
        got = ("ok", read_qrels(p).to_dict())
    except InputError as exc:
        got = ("error", str(exc))
    assert got == want


def test_cli_reads_a_gzip_run_in_process_and_streaming(tmp_path) -> None:
    # the in-process route once asserted that the run was a plain file (issue 24, item 5)
    qrels = write(tmp_path, "qrels.txt", "q 0 b 1\nr 0 a 1\n")
    (tmp_path / "run.txt.gz").write_bytes(gzip.compress(b"q Q0 a 1 1 s\nq Q0 b 2 2 s\nr Q0 a 1 1 s\n" * 1))
    for extra in ([], ["--chunk-rows", "1"]):
        out = _cli("evaluate", str(qrels), str(tmp_path / "run.txt.gz"), "-m", "P@1", "--format", "csv", *extra)
        assert out.returncode == 0, out.stderr
        assert b"1.0" in out.stdout
