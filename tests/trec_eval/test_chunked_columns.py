"""trec_eval's measures computed in chunks of whole queries on two threads give the bits of one pass."""

from __future__ import annotations

import numpy as np

from rankmeter import pytrec_eval
from rankmeter.engines import memory


def _data(seed: int = 3):
    rng = np.random.default_rng(seed)
    qrels, run = {}, {}
    for q in range(120):
        docs = [f"d{i}" for i in rng.choice(400, 60, replace=False)]
        qrels[f"q{q}"] = {d: int(rng.integers(-1, 3)) for d in docs[:25]}
        run[f"q{q}"] = {d: float(np.round(rng.random(), 1)) for d in docs[10:]}  # ties, unjudged items
    return qrels, run


def test_chunks_on_two_threads_equal_one_pass(monkeypatch) -> None:
    qrels, run = _data()
    measures = pytrec_eval.supported_measures
    monkeypatch.setattr(memory, "FILE_CHUNK_ROWS", 10**9)
    whole = pytrec_eval.RelevanceEvaluator(qrels, measures).evaluate(run)
    monkeypatch.setattr(memory, "FILE_CHUNK_ROWS", 300)  # about 25 chunks
    monkeypatch.setenv("RANKMETER_THREADS", "2")
    chunked = pytrec_eval.RelevanceEvaluator(qrels, measures).evaluate(run)
    assert chunked == whole
