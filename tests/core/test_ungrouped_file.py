"""A TREC run file with its rows in any order (not grouped by query): found so at once, its rows put in query
order in memory and evaluated in chunks of whole queries, with the result of the run read whole."""

from __future__ import annotations

import numpy as np
import pytest

import rankmeter
from rankmeter._errors import InputError
from rankmeter.engines import memory
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
    assert got.mean == want.mean
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


def test_a_repeated_item_in_a_shuffled_file_names_its_line(tmp_path) -> None:
    rng = np.random.default_rng(5)
    lines = [f"q{q} Q0 d{i} 0 {rng.random():.3f} t\n" for q in range(40) for i in range(20)]
    rng.shuffle(lines)
    lines.insert(700, "q3 Q0 d7 0 0.5 t\n")  # q3's d7 twice: line 701 is the repeat
    (tmp_path / "run.txt").write_text("".join(lines))
    (tmp_path / "qrels.txt").write_text("".join(f"q{q} 0 d1 1\n" for q in range(40)))
    first = 1 + next(i for i, line in enumerate(lines) if line.startswith("q3 Q0 d7 "))
    second = 1 + max(i for i, line in enumerate(lines) if line.startswith("q3 Q0 d7 "))
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
