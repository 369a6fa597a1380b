"""Evaluator.compute() with torch.distributed: two processes (gloo, CPU) give one call's result."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import numpy as np
import pytest

torch = pytest.importorskip("torch")
dist = pytest.importorskip("torch.distributed")

import rankmeter.torch as rmt  # noqa: E402

METRICS = ["ndcg@5", "recall@10", "catalog_coverage@5"]


def _data() -> tuple[Any, Any, Any]:
    g = torch.Generator().manual_seed(11)
    scores = torch.randint(0, 5, (23, 17), generator=g).float()
    grades = torch.randint(0, 3, (23, 17), generator=g) * (torch.rand((23, 17), generator=g) < 0.3)
    excluded = torch.rand((23, 17), generator=g) < 0.2
    return scores, grades, excluded


def _worker(rank: int, world: int, store: str, out: str) -> None:
    torch.set_num_threads(1)  # (a forked child: no OpenMP pool of the parent's)
    dist.init_process_group("gloo", init_method=f"file://{store}", rank=rank, world_size=world)
    try:
        scores, grades, excluded = _data()
        ctx = {"catalog": [str(j) for j in range(17)]}
        ev = rmt.Evaluator(METRICS, context=ctx)
        rows = [(0, 5), (5, 13)] if rank == 0 else [(13, 14), (14, 23)]  # uneven shares, several batches each
        for a, b in rows:
            ev.update(scores[a:b], grades[a:b], exclude=excluded[a:b])
        r = ev.compute()
        Path(out, f"{rank}.json").write_text(json.dumps(
            {"queries": list(r.queries), "values": {k: v.tolist() for k, v in r.values.items()}, "corpus": r.corpus,
             "notes": r.notes}))
    finally:
        dist.destroy_process_group()


@pytest.mark.slow
@pytest.mark.skipif(not dist.is_available(), reason="torch.distributed is not available")
def test_two_gloo_processes_equal_one_call(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import torch.multiprocessing as mp

    monkeypatch.setenv("GLOO_SOCKET_IFNAME", os.environ.get("GLOO_SOCKET_IFNAME", "lo"))
    # fork: the children start with torch and rankmeter already imported (spawn would import them again, ~10 s)
    start = getattr(mp, "start_processes")  # noqa: B009 (untyped in torch's stubs)
    start(_worker, args=(2, str(tmp_path / "store"), str(tmp_path)), nprocs=2, join=True,
          start_method="fork")
    scores, grades, excluded = _data()
    one = rmt.evaluate(scores, grades, METRICS, exclude=excluded, context={"catalog": [str(j) for j in range(17)]})
    for rank in (0, 1):
        got = json.loads((tmp_path / f"{rank}.json").read_text())
        assert got["queries"] == one.queries and got["notes"] == one.notes and got["corpus"] == one.corpus
        for k, v in one.values.items():
            np.testing.assert_array_equal(np.array(got["values"][k]), v)
