"""One answer whatever the number of threads: a run file evaluated with 1 and 2 threads, bit for bit."""

from __future__ import annotations

import numpy as np
import pytest

import rankmeter
from rankmeter.engines import memory
from rankmeter.evaluation.threads import resolve_threads
from rankmeter._errors import ParameterError

METRICS = ["ndcg@10", "ap", "rr@100", "P@5", "recall@50", "ndcg_cut.20", "catalog_coverage@10", "gini@10",
           "entropy@10"]


def _write(tmp_path, seed: int = 5):
    rng = np.random.default_rng(seed)
    qlines, rlines = [], []
    for q in range(300):
        n = int(rng.integers(1, 120))
        items = rng.choice(3000, n, replace=False)
        scores = np.round(rng.random(n) * 10, 1)  # ties
        rlines += [f"q{q} Q0 d{i} {r + 1} {s} t\n" for r, (i, s) in enumerate(zip(items, scores))]
        for i in rng.choice(3000, 15, replace=False):
            qlines.append(f"q{q} 0 d{i} {int(rng.integers(-1, 4))}\n")
    for q in range(300, 320):  # judged queries the run lacks
        qlines.append(f"q{q} 0 d1 1\n")
    (tmp_path / "qrels.txt").write_text("".join(qlines))
    (tmp_path / "run.txt").write_text("".join(rlines))
    return tmp_path / "qrels.txt", tmp_path / "run.txt"


CTX = {"catalog": [f"d{i}" for i in range(3000)]}


def _same(a, b) -> None:
    assert a.queries == b.queries
    for m in a.values:
        np.testing.assert_array_equal(a.values[m], b.values[m], err_msg=m)
    assert a.mean == b.mean  # means too, to the last bit
    assert a.corpus == b.corpus
    assert a.notes == b.notes


def test_one_and_two_threads_give_the_same_bits(tmp_path, monkeypatch) -> None:
    qrels, run = _write(tmp_path)
    monkeypatch.setattr(memory, "FILE_CHUNK_ROWS", 700)  # many chunks, so the threads share the work
    one = rankmeter.evaluate(qrels, run, METRICS, threads=1, context=CTX)
    two = rankmeter.evaluate(qrels, run, METRICS, threads=2, context=CTX)
    _same(one, two)
    monkeypatch.setenv("RANKMETER_THREADS", "1")
    _same(one, rankmeter.evaluate(qrels, run, METRICS, context=CTX))


def test_chunked_file_equals_the_run_read_whole(tmp_path, monkeypatch) -> None:
    # the file route (chunks of whole queries) and a Run built first give the same per-query values
    qrels, run = _write(tmp_path, seed=9)
    built = rankmeter.read_run(run)
    monkeypatch.setattr(memory, "FILE_CHUNK_ROWS", 10**9)
    whole = rankmeter.evaluate(qrels, built, METRICS, context=CTX)  # one piece
    monkeypatch.setattr(memory, "FILE_CHUNK_ROWS", 500)
    chunked = rankmeter.evaluate(qrels, run, METRICS, threads=2, context=CTX)
    # a built run is cut into pieces of whole queries too: the same bits with 1 and 2 threads
    _same(rankmeter.evaluate(qrels, built, METRICS, threads=1, context=CTX),
          rankmeter.evaluate(qrels, built, METRICS, threads=2, context=CTX))
    pieces = rankmeter.evaluate(qrels, built, METRICS, threads=2, context=CTX)
    for m in pieces.values:
        np.testing.assert_array_equal(pieces.values[m], whole.values[m], err_msg=m)
    assert chunked.queries == whole.queries
    for m in chunked.values:
        np.testing.assert_array_equal(chunked.values[m], whole.values[m], err_msg=m)
    for m in chunked.corpus:
        assert chunked.corpus[m] == pytest.approx(whole.corpus[m], rel=1e-12, abs=1e-15), m


def test_thread_count_is_checked(monkeypatch) -> None:
    with pytest.raises(ParameterError, match="threads"):
        resolve_threads(0)
    monkeypatch.setenv("RANKMETER_THREADS", "two")
    with pytest.raises(ParameterError, match="RANKMETER_THREADS"):
        resolve_threads()
    monkeypatch.setenv("RANKMETER_THREADS", "1")
    assert resolve_threads() == 1
    assert resolve_threads(3) == 3  # the keyword wins


def test_a_run_file_not_grouped_by_query_is_read_whole_with_the_same_result(tmp_path, monkeypatch) -> None:
    # every query's rows in two places: the chunked reading sees a query come back and reads the file whole
    rng = np.random.default_rng(2)
    lines = [f"q{q} Q0 d{half}_{i} {i + 1} {rng.random():.2f} t\n" for half in range(2) for q in range(50)
             for i in range(20)]
    (tmp_path / "run.txt").write_text("".join(lines))
    (tmp_path / "qrels.txt").write_text("".join(f"q{q} 0 d{q % 2}_{i} {i % 3}\n" for q in range(50) for i in range(5)))
    monkeypatch.setattr(memory, "FILE_CHUNK_ROWS", 100)
    got = rankmeter.evaluate(tmp_path / "qrels.txt", tmp_path / "run.txt", ["ndcg@10", "ap"], threads=2)
    want = rankmeter.evaluate(tmp_path / "qrels.txt", rankmeter.read_run(tmp_path / "run.txt"), ["ndcg@10", "ap"])
    _same(got, want)


@pytest.mark.parametrize("bad, line, line_text, message", [
    # a range read in place: the line is read again for the message (the later of the two rows)
    ("q150 Q0 d2 2 1.5 t\n", 754, "q150 Q0 d2 3 9.0 t", "appears twice"),
    ("q150\tQ0 d8 2 x t\n", 752, "q150\tQ0 d8 2 x t", "not a number"),  # a range that needs the normalising parse
])
def test_an_error_deep_in_a_run_file_names_its_line(tmp_path, monkeypatch, bad, line, line_text, message) -> None:
    lines = [f"q{q} Q0 d{i} {i + 1} {10 - i * 0.5} t\n" for q in range(300) for i in range(5)]
    lines.insert(150 * 5 + 1, bad)  # line 752, inside q150's rows, in a range far from the file's start
    (tmp_path / "run.txt").write_text("".join(lines))
    (tmp_path / "qrels.txt").write_text("".join(f"q{q} 0 d1 1\n" for q in range(300)))
    monkeypatch.setattr(memory, "FILE_CHUNK_ROWS", 20)  # ranges of about 1 KB: dozens of them
    with pytest.raises(rankmeter.InputError) as err:
        rankmeter.evaluate(tmp_path / "qrels.txt", tmp_path / "run.txt", ["ndcg@10"], threads=2)
    assert err.value.line == line and message in str(err.value)
    assert repr(line_text) in str(err.value)
