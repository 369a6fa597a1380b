"""The ranges of a run file parsed while the judgments load: one fewer at a time than there are workers
(the main thread codes the judgments on the other core), every worker once the engine is in."""

from __future__ import annotations

import threading
import time

import numpy as np

import rankmeter
from rankmeter.engines import stream
from rankmeter.evaluation import Engine


def _run_file(tmp_path):
    lines = [f"q{q} Q0 d{i} {i + 1} {30 - i} t\n" for q in range(200) for i in range(20)]
    (tmp_path / "run.txt").write_text("".join(lines))
    (tmp_path / "qrels.txt").write_text("".join(f"q{q} 0 d{i} 1\n" for q in range(200) for i in range(0, 20, 3)))
    return tmp_path / "qrels.txt", tmp_path / "run.txt"


class _Busy:
    """Counts the parses under way (each made to last a few ms), before and after the engine is in."""

    def __init__(self, real):
        self.real, self.lock = real, threading.Lock()
        self.now, self.most_before, self.most_after, self.engine_in = 0, 0, 0, False

    def __call__(self, par, start, end):
        with self.lock:
            self.now += 1
            if self.engine_in:
                self.most_after = max(self.most_after, self.now)
            else:
                self.most_before = max(self.most_before, self.now)
        time.sleep(0.01)
        try:
            return self.real(par, start, end)
        finally:
            with self.lock:
                self.now -= 1


def _counted(tmp_path, monkeypatch, threads: int, block_bytes: int):
    """The files, and their ranges being parsed ahead on ``threads`` workers, each parse counted."""
    qrels, run = _run_file(tmp_path)
    busy = _Busy(stream._ParallelText._parse)
    monkeypatch.setattr(stream._ParallelText, "_parse", lambda par, a, b: busy(par, a, b))
    par = stream._ParallelText(stream._open_source(run, "auto", "score", {}), threads=threads, block_bytes=block_bytes)
    return qrels, run, busy, par


def test_while_the_judgments_load_one_worker_fewer_parses(tmp_path, monkeypatch) -> None:
    qrels, run, busy, par = _counted(tmp_path, monkeypatch, threads=3, block_bytes=2048)
    time.sleep(0.1)  # (the judgments "load": the workers parse some ranges ahead meanwhile)
    engine = Engine(rankmeter.read_qrels(qrels), ["ndcg@10", "ap"])
    busy.engine_in = True
    acc = par.run(engine)
    got = acc.result()
    want = rankmeter.evaluate(qrels, rankmeter.read_run(run), ["ndcg@10", "ap"])
    assert got.queries == want.queries
    for m in want.values:
        np.testing.assert_array_equal(got.values[m], want.values[m])
    assert busy.most_before == 2  # threads - 1 while the judgments load
    assert busy.most_after == 3  # every worker once they are in


def test_judgments_that_fail_release_the_waiting_workers(tmp_path, monkeypatch) -> None:
    _, _, busy, par = _counted(tmp_path, monkeypatch, threads=2, block_bytes=1024)
    time.sleep(0.05)
    busy.engine_in = True
    done = threading.Event()
    closer = threading.Thread(target=lambda: (par.close(), done.set()), daemon=True)
    closer.start()
    assert done.wait(10)  # (no worker is left waiting for a turn)
    assert busy.most_before == 1


def test_a_waiting_worker_starts_as_soon_as_the_engine_is_in(tmp_path, monkeypatch) -> None:
    qrels, run = _run_file(tmp_path)
    real, started = stream._ParallelText._parse, []

    def slow_first(par, start, end):
        started.append((start, time.perf_counter()))
        if start == 0:
            time.sleep(1.0)  # (the first range takes long: the other worker waits for its turn)
        return real(par, start, end)

    monkeypatch.setattr(stream._ParallelText, "_parse", slow_first)
    src = stream._open_source(run, "auto", "score", {})
    par = stream._ParallelText(src, threads=2, block_bytes=2048)
    time.sleep(0.1)
    assert len(started) == 1
    t = time.perf_counter()
    par.engine.set_result(Engine(rankmeter.read_qrels(qrels), ["ndcg@10"]))
    time.sleep(0.2)
    assert len(started) > 1 and started[1][1] - t < 0.5  # not after the first range's parse
    par.close()


def test_ranges_parsed_ahead_are_evaluated_before_the_ranges_queued_after_them(tmp_path, monkeypatch) -> None:
    """Their tables are let go of first (their memory then reused), not held until every queued range is in."""
    qrels, run = _run_file(tmp_path)
    log, lock = [], threading.Lock()
    real_parse, real_eval = stream._ParallelText._parse, stream._ParallelText._evaluate

    def parse(par, start, end):
        time.sleep(0.005)  # (a few ranges parsed while the judgments load, most after)
        got = real_parse(par, start, end)
        with lock:
            log.append(("parse", got[0].column("query")[0].as_py()))
        return got

    def evaluate(par, table, parsed):
        with lock:
            log.append(("eval", table.column("query")[0].as_py()))
        return real_eval(par, table, parsed)

    monkeypatch.setattr(stream._ParallelText, "_parse", parse)
    monkeypatch.setattr(stream._ParallelText, "_evaluate", evaluate)
    par = stream._ParallelText(stream._open_source(run, "auto", "score", {}), threads=2, block_bytes=1024)
    time.sleep(0.2)  # (the judgments "load": one worker parses ranges ahead)
    engine = Engine(rankmeter.read_qrels(qrels), ["ndcg@10", "ap"])
    with lock:
        ahead = {first for what, first in log if what == "parse"}
    got = par.run(engine).result()
    want = rankmeter.evaluate(qrels, rankmeter.read_run(run), ["ndcg@10", "ap"])
    assert got.queries == want.queries
    for m in want.values:
        np.testing.assert_array_equal(got.values[m], want.values[m])
    parses = [i for i, (what, _) in enumerate(log) if what == "parse"]
    assert 2 <= len(ahead) and len(ahead) + 10 < len(parses)  # (some ranges parsed ahead, many after)
    last_early = max(i for i, (what, first) in enumerate(log) if what == "eval" and first in ahead)
    # every range parsed ahead is evaluated before the ranges after them are half parsed
    assert last_early < parses[(len(ahead) + len(parses)) // 2]
