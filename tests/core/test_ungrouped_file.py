"""A TREC run file with its rows in any order (not grouped by query): found so at once, its rows put in query
order in memory and evaluated in chunks of whole queries, with the result of the run read whole."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import rankmeter
from rankmeter._errors import InputError
from rankmeter.engines import memory, regroup, stream
from rankmeter.evaluation import Engine

METRICS = ["ndcg@10", "ap", "rr", "P@5", "catalog_coverage@10"]
CTX = {"catalog": [f"d{i}" for i in range(40)]}


def _files(tmp_path, extra: str = ""):
    rng = np.random.default_rng(4)
    lines = [f"q{q} Q0 d{i} 0 {rng.integers(0, 20) / 4} t\n" for q in range(60) for i in range(30)]  # ties
    rng.shuffle(lines)  # rows in any order: a query in many places of every range
    (tmp_path / "run.txt").write_text("".join(lines[:900]) + extra + "".join(lines[900:]))
    judged = [f"q{q} 0 d{i} {i // 2 % 3}\n" for q in range(60) for i in range(0, 40, 2)]
    (tmp_path / "qrels.txt").write_text("".join(judged))
    return tmp_path / "qrels.txt", tmp_path / "run.txt"


def _same(got, want) -> None:
    assert got.queries == want.queries
    for m in want.values:
        np.testing.assert_array_equal(got.values[m], want.values[m], err_msg=m)
    np.testing.assert_equal(got.mean, want.mean)  # (nan where no query counts)
    assert got.corpus == want.corpus
    assert got.notes == want.notes


@pytest.mark.parametrize("threads", [1, 2])
def test_a_shuffled_run_file_equals_the_run_read_whole(tmp_path, monkeypatch, threads) -> None:
    qrels, run = _files(tmp_path, extra="# a comment line\n")
    monkeypatch.setattr(memory, "FILE_CHUNK_ROWS", 100)  # many ranges and chunks
    tables = []
    real = Engine.evaluate_table

    def spy(self, table, *args, **kwargs):
        q = table.column("query").to_pylist()
        tables.append(q)
        return real(self, table, *args, **kwargs)

    monkeypatch.setattr(Engine, "evaluate_table", spy)
    got = rankmeter.evaluate(qrels, run, METRICS, threads=threads, context=CTX)
    # no range was evaluated as read: every table the engine saw holds whole queries, each in one piece
    assert len(tables) > 1
    seen = [q for t in tables for q in dict.fromkeys(t)]
    assert len(seen) == len(set(seen)) == 60
    assert all(t == sorted(t, key=lambda x: t.index(x)) for t in tables)  # grouped within the table
    monkeypatch.setattr(Engine, "evaluate_table", real)
    want = rankmeter.evaluate(qrels, rankmeter.read_run(run), METRICS, threads=1, context=CTX)
    _same(got, want)
    assert any("comment" in n for n in got.notes)


@pytest.mark.parametrize("doc", ["d", "document-number-"])  # short ids (laid out as words), long ones (text)
def test_a_repeated_item_in_a_shuffled_file_names_its_line(tmp_path, doc) -> None:
    rng = np.random.default_rng(5)
    lines = [f"q{q} Q0 {doc}{i} 0 {rng.random():.3f} t\n" for q in range(40) for i in range(20)]
    rng.shuffle(lines)
    lines.insert(700, f"q3 Q0 {doc}7 0 0.5 t\n")  # q3's 7th item twice: line 701 is the repeat
    (tmp_path / "run.txt").write_text("".join(lines))
    (tmp_path / "qrels.txt").write_text("".join(f"q{q} 0 {doc}1 1\n" for q in range(40)))
    first = 1 + next(i for i, line in enumerate(lines) if line.startswith(f"q3 Q0 {doc}7 "))
    second = 1 + max(i for i, line in enumerate(lines) if line.startswith(f"q3 Q0 {doc}7 "))
    with pytest.raises(InputError) as info:
        rankmeter.evaluate(tmp_path / "qrels.txt", tmp_path / "run.txt", ["ndcg@10"], threads=2)
    text = str(info.value)
    assert "appears twice" in text and f":{second}" in text, (text, first, second)


@pytest.mark.parametrize("duplicates", ["max", "first", "last"])
def test_a_duplicates_policy_on_a_shuffled_file(tmp_path, duplicates) -> None:
    rng = np.random.default_rng(6)
    lines = [f"q{q} Q0 d{i % 15} 0 {rng.random():.3f} t\n" for q in range(30) for i in range(20)]  # repeats
    rng.shuffle(lines)
    (tmp_path / "run.txt").write_text("".join(lines))
    (tmp_path / "qrels.txt").write_text("".join(f"q{q} 0 d{i} 1\n" for q in range(30) for i in range(0, 15, 4)))
    got = rankmeter.evaluate(tmp_path / "qrels.txt", tmp_path / "run.txt", ["ndcg@10", "ap"], threads=2,
                             duplicates=duplicates)
    built = rankmeter.read_run(tmp_path / "run.txt", duplicates=duplicates)
    want = rankmeter.evaluate(tmp_path / "qrels.txt", built, ["ndcg@10", "ap"], threads=1, duplicates=duplicates)
    assert got.queries == want.queries
    for m in want.values:
        np.testing.assert_array_equal(got.values[m], want.values[m], err_msg=m)


QIDS = ["q", "q1", "q10", "q2", "Q1", "é", "1", "10"]  # prefixes of each other
DIDS = ["d", "d1", "d10", "d100", "d2", "D", "1", "é"]
LONG = ["a-query-of-many-bytes", "12345678", "123456789"]  # ids of 8 bytes and more: not laid out as words


def _write(path, lines: list[str]) -> None:
    path.write_text("".join(lines))


def _small_pieces(monkeypatch, chunk_rows: int) -> None:
    """Byte ranges of a few KB and chunks of ``chunk_rows`` rows: many of each in a small file."""
    monkeypatch.setattr(memory, "FILE_CHUNK_ROWS", chunk_rows)
    monkeypatch.setattr(stream, "_RANGE_BYTES", 512)


@st.composite
def _runs(draw: st.DrawFn) -> tuple[list[str], list[str]]:
    """Run lines in any order (ties, one-row queries, ids that are prefixes of each other) and judgments
    (some queries of the run without any, or without a relevant one; a judged query not in the run)."""
    long = draw(st.booleans())  # some ids of more than 8 bytes: the text route, or a range laid out as text again
    queries = draw(st.lists(st.sampled_from(QIDS + LONG if long else QIDS), min_size=1, max_size=len(QIDS),
                            unique=True))
    lines, judged = [], ["q99 0 d 1\n"]
    for q in queries:
        items = draw(st.lists(st.sampled_from(DIDS + LONG if long else DIDS), min_size=1, max_size=len(DIDS),
                              unique=True))
        for d in items:
            score = draw(st.sampled_from([0.0, -0.0, 1.0, 2.5, -3.0]) | st.floats(-1e6, 1e6, width=32))
            lines.append(f"{q} Q0 {d} 0 {score!r} t\n")
        if draw(st.booleans()):
            for d in draw(st.lists(st.sampled_from(DIDS), max_size=4, unique=True)):
                judged.append(f"{q} 0 {d} {draw(st.integers(0, 3))}\n")
    shape = draw(st.sampled_from(["shuffled", "tail", "grouped"]))
    if shape == "shuffled":
        lines = draw(st.permutations(lines))
    elif shape == "tail" and len(lines) > 2:  # grouped, but for one row moved to the end (seen late)
        at = draw(st.integers(0, len(lines) - 2))
        lines = lines[:at] + lines[at + 1:] + [lines[at]]
    return lines, judged


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(run=_runs(), threads=st.sampled_from([1, 2]), chunk=st.sampled_from([2, 15, 50]),
       policy=st.sampled_from(["judged", "run", "qrels"]))
def test_a_run_in_any_order_equals_the_run_read_whole(tmp_path, run, threads, chunk, policy) -> None:
    lines, judged = run
    _write(tmp_path / "run.txt", lines)
    _write(tmp_path / "qrels.txt", judged)
    metrics = ["ndcg@10", "ap", "rr", "P@2", "recall@3"]
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(memory, "FILE_CHUNK_ROWS", chunk)  # chunks of a few queries
        mp.setattr(stream, "_RANGE_BYTES", 16)  # ranges of a few lines: many of them
        got = rankmeter.evaluate(tmp_path / "qrels.txt", tmp_path / "run.txt", metrics, threads=threads,
                                 queries=policy)
    want = rankmeter.evaluate(tmp_path / "qrels.txt", rankmeter.read_run(tmp_path / "run.txt"), metrics, threads=1,
                              queries=policy)
    _same(got, want)
    assert got.coverage == want.coverage


@pytest.mark.parametrize("route", ["words", "joined", "ranges"])
def test_a_query_seen_again_after_ranges_were_evaluated(tmp_path, monkeypatch, route) -> None:
    # the first ranges are grouped (checked, evaluated), a later one repeats a query: the ranges evaluated
    # already are parsed again, the ones parsed are not, and the result is the one of the run read whole
    # (short ids laid out as words; longer ones: the item ids joined into one array, or, as when they hold
    # 2 GB, left in the ranges' arrays)
    if route == "ranges":
        monkeypatch.setattr(regroup, "_JOINED_IDS_BYTES", 0)
    doc = "d" if route == "words" else "document-"
    rng = np.random.default_rng(7)
    lines = [f"q{q} Q0 {doc}{i} 0 {rng.integers(0, 9) / 2} t\n" for q in range(80) for i in range(12)]
    lines.append(f"q3 Q0 {doc}99 0 0.25 t\n")
    _write(tmp_path / "run.txt", lines)
    _write(tmp_path / "qrels.txt", [f"q{q} 0 {doc}{i} {1 + i % 4}\n" for q in range(80) for i in range(0, 12, 3)])
    _small_pieces(monkeypatch, chunk_rows=40)
    parses = []
    real = stream._ParallelText._parse

    def spy(self, start, end):
        parses.append(start)
        return real(self, start, end)

    monkeypatch.setattr(stream._ParallelText, "_parse", spy)
    routes = _spy_routes(monkeypatch)
    got = rankmeter.evaluate(tmp_path / "qrels.txt", tmp_path / "run.txt", METRICS[:4], threads=2)
    want = rankmeter.evaluate(tmp_path / "qrels.txt", rankmeter.read_run(tmp_path / "run.txt"), METRICS[:4])
    _same(got, want)
    assert len(parses) > len(set(parses))  # some ranges (the ones evaluated) parsed twice
    assert len(set(parses)) >= 8  # (ranges of about 2 KB)
    assert routes == ["_evaluate_laid" if route == "words" else "_evaluate_coded"]


@pytest.mark.parametrize("policy", ["error", "first"])
def test_ranges_laid_out_out_of_file_order(tmp_path, monkeypatch, policy) -> None:
    # the first range is laid out last (its query words after the others'): the rows of each query still
    # come in file order (a repeated item names its second line, a duplicates policy keeps the first), and
    # the result is the one of the run read whole
    import time

    rng = np.random.default_rng(5)
    lines = [f"q{q} Q0 d{i} 0 {rng.integers(0, 9) / 2} t\n" for q in range(40) for i in range(15)]
    rng.shuffle(lines)
    lines.insert(3, "q5 Q0 d3 0 7.5 t\n")  # (q5's d3 twice: early and late in the file, two scores)
    _write(tmp_path / "run.txt", lines)
    _write(tmp_path / "qrels.txt", [f"q{q} 0 d{i} {i % 3}\n" for q in range(40) for i in range(0, 15, 2)])
    _small_pieces(monkeypatch, chunk_rows=50)
    laid = []
    real = regroup._Slots.lay_out

    def slow_first(self, start, end, table, info):
        if start == 0:
            time.sleep(0.3)  # (the other worker lays the later ranges out meanwhile)
        got = real(self, start, end, table, info)
        laid.append(got)
        return got

    monkeypatch.setattr(regroup._Slots, "lay_out", slow_first)
    routes = _spy_routes(monkeypatch)
    if policy == "error":
        second = 1 + max(n for n, line in enumerate(lines) if line.startswith("q5 Q0 d3 "))
        with pytest.raises(InputError, match=rf"run\.txt:{second}: item 'd3' appears twice for query 'q5'"):
            rankmeter.evaluate(tmp_path / "qrels.txt", tmp_path / "run.txt", METRICS[:4], threads=2)
    else:
        got = rankmeter.evaluate(tmp_path / "qrels.txt", tmp_path / "run.txt", METRICS[:4], threads=2,
                                 duplicates=policy)
        want = rankmeter.evaluate(tmp_path / "qrels.txt", rankmeter.read_run(tmp_path / "run.txt", duplicates=policy),
                                  METRICS[:4], duplicates=policy)
        _same(got, want)
    assert routes == ["_evaluate_laid"]
    first = next(r for r in laid if isinstance(r, regroup._Laid) and r.base == 0)
    assert first.at > 0 and len(laid) >= 4  # (laid out after the others: its query words last; 5 ranges)


def test_ranges_are_laid_out_as_they_are_parsed(tmp_path, monkeypatch) -> None:
    # once the first range shows the file is not grouped, the workers lay each range out as soon as they
    # have parsed it (no range's text is held until the regrouping starts), with the run read whole's result
    qrels, run = _files(tmp_path)
    _small_pieces(monkeypatch, chunk_rows=100)
    late = []
    real = stream._ParallelText.parse_all

    def spy(self, convert=None):
        def counted(*args):
            late.append(args[0])
            return convert(*args)

        return real(self, None if convert is None else counted)

    monkeypatch.setattr(stream._ParallelText, "parse_all", spy)
    laid = []
    real_lay_out = regroup._Slots.lay_out
    monkeypatch.setattr(regroup._Slots, "lay_out", lambda self, *a: laid.append(a[0]) or real_lay_out(self, *a))
    got = rankmeter.evaluate(qrels, run, METRICS, threads=2, context=CTX)
    _same(got, rankmeter.evaluate(qrels, rankmeter.read_run(run), METRICS, threads=1, context=CTX))
    assert len(laid) >= 6 and len(set(laid)) == len(laid)  # (each range laid out once; ranges of ~4.7 KB)
    assert len(set(laid) - set(late)) >= len(laid) // 2  # (most of them by the worker that parsed them)


def _spy_routes(monkeypatch) -> list[str]:
    """The names of the regrouping routes taken, in a list filled as they are."""
    taken: list[str] = []
    for name in ("_evaluate_laid", "_evaluate_coded", "_evaluate_taken"):
        real = getattr(regroup, name)

        def spy(*args, _real=real, _name=name, **kwargs):
            taken.append(_name)
            return _real(*args, **kwargs)

        monkeypatch.setattr(regroup, name, spy)
    return taken


@pytest.mark.parametrize("why", ["a long id late", "no room"])
def test_ranges_laid_out_as_words_are_tables_again_when_one_cannot_be(tmp_path, monkeypatch, why) -> None:
    # every range but a late one has short ids (laid out as words by its worker); the late one holds an id of
    # more than 8 bytes (or no range has room for its rows): the ranges laid out become tables again (exact),
    # and the rows take the text route, with the result of the run read whole
    rng = np.random.default_rng(11)
    lines = [f"q{q} Q0 d{i} 0 {rng.integers(0, 9) / 2} t\n" for q in range(50) for i in range(16)]
    rng.shuffle(lines)
    if why == "a long id late":
        lines.insert(760, "q7 Q0 a-document-of-many-bytes 0 1.5 t\n")
    else:
        monkeypatch.setattr(regroup, "_LINE_BYTES", 1 << 20)
    _write(tmp_path / "run.txt", lines)
    _write(tmp_path / "qrels.txt", [f"q{q} 0 d{i} {i % 3}\n" for q in range(50) for i in range(0, 16, 3)]
           + ["q7 0 a-document-of-many-bytes 2\n"])
    _small_pieces(monkeypatch, chunk_rows=60)
    made = []
    real = regroup._Slots.table
    monkeypatch.setattr(regroup._Slots, "table", lambda self, laid: made.append(laid) or real(self, laid))
    routes = _spy_routes(monkeypatch)
    got = rankmeter.evaluate(tmp_path / "qrels.txt", tmp_path / "run.txt", METRICS, threads=2, context=CTX)
    want = rankmeter.evaluate(tmp_path / "qrels.txt", rankmeter.read_run(tmp_path / "run.txt"), METRICS, context=CTX)
    _same(got, want)
    assert routes == ["_evaluate_coded"]
    assert (len(made) >= 3) if why == "a long id late" else not made  # (ranges of about 3 KB: 5 of them)


def test_a_rank_column_in_a_shuffled_file(tmp_path, monkeypatch) -> None:
    # order="rank": the ranges keep their rank column, so the rows are taken as tables
    rng = np.random.default_rng(8)
    lines = [f"q{q} Q0 d{i} {i + 1} {rng.random():.3f} t\n" for q in range(40) for i in range(10)]
    rng.shuffle(lines)
    _write(tmp_path / "run.txt", lines)
    _write(tmp_path / "qrels.txt", [f"q{q} 0 d{i} 1\n" for q in range(40) for i in range(0, 10, 4)])
    _small_pieces(monkeypatch, chunk_rows=30)
    got = rankmeter.evaluate(tmp_path / "qrels.txt", tmp_path / "run.txt", ["ndcg@10", "ap"], threads=2, order="rank")
    want = rankmeter.evaluate(tmp_path / "qrels.txt", rankmeter.read_run(tmp_path / "run.txt", order="rank"),
                              ["ndcg@10", "ap"], order="rank")
    _same(got, want)


@pytest.mark.parametrize("bad, message", [("q7 Q0 d3 0 x t\n", "not a number"), ("q7 Q0 d3 0 t\n", "")])
def test_a_malformed_line_late_in_a_shuffled_file_names_its_line(tmp_path, monkeypatch, bad, message) -> None:
    rng = np.random.default_rng(9)
    lines = [f"q{q} Q0 d{i} 0 {rng.random():.3f} t\n" for q in range(40) for i in range(20)]
    rng.shuffle(lines)
    lines.insert(650, bad)  # line 651, in a range parsed after the file was found not grouped
    _write(tmp_path / "run.txt", lines)
    _write(tmp_path / "qrels.txt", [f"q{q} 0 d1 1\n" for q in range(40)])
    _small_pieces(monkeypatch, chunk_rows=40)
    with pytest.raises(InputError) as info:
        rankmeter.evaluate(tmp_path / "qrels.txt", tmp_path / "run.txt", ["ndcg@10"], threads=2)
    assert info.value.line == 651 and message in str(info.value), str(info.value)


def test_a_long_line_in_a_shuffled_file_names_its_line(tmp_path, monkeypatch) -> None:
    # the line-length limit holds on the route of a file in any order (checked over the file before any range)
    rng = np.random.default_rng(10)
    lines = [f"q{q} Q0 d{i} 0 {rng.random():.3f} t\n" for q in range(40) for i in range(20)]
    rng.shuffle(lines)
    lines.insert(700, "q3 Q0 d" + "9" * 300 + " 0 0.5 t\n")  # line 701
    _write(tmp_path / "run.txt", lines)
    _write(tmp_path / "qrels.txt", [f"q{q} 0 d1 1\n" for q in range(40)])
    monkeypatch.setenv("RANKMETER_MAX_LINE_BYTES", "200")
    _small_pieces(monkeypatch, chunk_rows=40)
    with pytest.raises(InputError) as info:
        rankmeter.evaluate(tmp_path / "qrels.txt", tmp_path / "run.txt", ["ndcg@10"], threads=2)
    assert info.value.line == 701 and "longer than 200 bytes" in str(info.value), str(info.value)
