"""A TREC run file with its rows in any order (not grouped by query) is read whole, and found so at once."""

from __future__ import annotations

import numpy as np

import rankmeter
from rankmeter.engines import memory
from rankmeter.evaluation import Engine


def _files(tmp_path):
    rng = np.random.default_rng(4)
    lines = [f"q{q} Q0 d{i} 0 {rng.integers(0, 20) / 4} t\n" for q in range(60) for i in range(30)]  # ties
    rng.shuffle(lines)  # rows in any order: a query in many places of every range
    (tmp_path / "run.txt").write_text("".join(lines))
    judged = [f"q{q} 0 d{i} {i // 2 % 3}\n" for q in range(60) for i in range(0, 40, 2)]
    (tmp_path / "qrels.txt").write_text("".join(judged))
    return tmp_path / "qrels.txt", tmp_path / "run.txt"


def test_a_shuffled_run_file_is_read_whole_without_evaluating_its_ranges(tmp_path, monkeypatch) -> None:
    qrels, run = _files(tmp_path)
    monkeypatch.setattr(memory, "FILE_CHUNK_ROWS", 100)  # many ranges
    calls = []
    real = Engine.evaluate_table

    def counting(self, table, *args, **kwargs):
        calls.append(table.num_rows)
        return real(self, table, *args, **kwargs)

    monkeypatch.setattr(Engine, "evaluate_table", counting)
    metrics = ["ndcg@10", "ap", "rr", "P@5"]
    got = rankmeter.evaluate(qrels, run, metrics, threads=2)
    assert calls == []  # the first range showed a query in two places: no range was evaluated
    want = rankmeter.evaluate(qrels, rankmeter.read_run(run), metrics, threads=1)
    assert got.queries == want.queries
    for m in metrics:
        np.testing.assert_array_equal(got.values[m], want.values[m], err_msg=m)
    assert got.mean == want.mean
