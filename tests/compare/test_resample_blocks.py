"""The bootstrap a block of metrics at a time (thousands of metrics, issue 32 item 5) gives the numbers of one
pass: the same resamples from the same generator state, so equal intervals, tests and p-values."""

from __future__ import annotations

import numpy as np
import pytest

import rankmeter as rm
from rankmeter.compare import stages
from rankmeter.result import Result

METRICS = ["m1", "m2", "m3", "m4", "m5"]


def _results(seed: int) -> dict[str, Result]:
    rng = np.random.default_rng(seed)
    queries = [f"q{i}" for i in range(15)]
    out = {}
    for run in ("a", "b", "c"):
        values = {m: np.round(rng.random(len(queries)), 2) for m in METRICS}
        values["m3"][rng.integers(0, len(queries), 3)] = np.nan  # missing values: their own resamples too
        out[run] = Result(queries=queries, values=values)
    return out


@pytest.mark.parametrize("seed", [0, 1])
def test_metrics_resampled_in_blocks_equal_one_pass(monkeypatch: pytest.MonkeyPatch, seed: int) -> None:
    runs = _results(seed)
    kw = dict(test=("t", "bootstrap"), n_resamples=300, seed=seed, pairs="all")
    whole = rm.compare(None, runs, METRICS, **kw)
    monkeypatch.setattr(stages, "SUMS_VALUES", 300 * 3 * 2)  # two metrics a block: three blocks
    blocks = rm.compare(None, runs, METRICS, **kw)
    assert whole.equals(blocks)
    monkeypatch.setattr(stages, "SUMS_VALUES", 1)  # one metric a block
    assert whole.equals(rm.compare(None, runs, METRICS, **kw))
