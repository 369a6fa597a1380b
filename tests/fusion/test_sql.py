"""RRF and the weighted sum as SQL (DuckDB, Spark SQL) equal in-process fusion: bit for bit with two runs."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from rankmeter import ParameterError
from rankmeter.fusion import fuse
from rankmeter.fusion.sql import fuse_duckdb, fuse_spark, fusion_sql

from ..backends.conftest import spark  # noqa: F401 (the session fixture)

pytest.importorskip("duckdb")


def _runs(seed: int, n_runs: int) -> list[dict[str, dict[str, float]]]:
    rng = np.random.default_rng(seed)
    runs = []
    for _ in range(n_runs):
        run = {}
        for q in range(8):
            if rng.random() < 0.15:
                continue
            n = int(rng.integers(1, 10))
            docs = rng.choice(15, size=n, replace=False)
            scores = rng.choice([0.25, 1.0, 1.7, 3.3, -2.0], size=n) * rng.uniform(0.5, 2)  # ties within a run
            run[f"q{q}"] = {f"d{d}": float(s) for d, s in zip(docs, scores, strict=True)}
        runs.append(run)
    return runs


CASES: list[tuple[str, dict[str, Any]]] = [
    ("rrf", {}), ("rrf", {"k": 10, "depth": 3}), ("wsum", {"weights": [0.3, 0.7]}),
    ("wsum", {"weights": [0.3, 0.7], "norm": None}), ("wsum", {"weights": [1.0, 2.5], "depth": 4}),
]


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize(("method", "kw"), CASES)
def test_duckdb_equals_in_process_bit_for_bit(method: str, kw: dict[str, Any], seed: int) -> None:
    runs = _runs(seed, 2)
    got, want = fuse_duckdb(runs, method, **kw), fuse(runs, method, **kw)
    assert got.to_dict() == want.to_dict()
    assert got.to_lists() == want.to_lists()


def test_three_runs_agree_to_the_last_bits() -> None:
    runs = _runs(5, 3)
    got = fuse_duckdb(runs, "wsum", weights=[0.2, 0.3, 0.5]).to_dict()
    want = fuse(runs, "wsum", weights=[0.2, 0.3, 0.5]).to_dict()
    assert got.keys() == want.keys()
    for q in want:
        assert got[q] == pytest.approx(want[q], rel=1e-14, abs=1e-15)


def test_errors() -> None:
    with pytest.raises(ParameterError, match="'method' parameter of fusion_sql must be one of rrf, wsum"):
        fusion_sql(["a"], "mnz")
    with pytest.raises(ParameterError, match="'norm' parameter of fusion_sql"):
        fusion_sql(["a"], "wsum", norm="zmuv")
    with pytest.raises(ParameterError, match="one finite number per table"):
        fusion_sql(["a", "b"], "wsum", weights=[1])


@pytest.mark.spark
@pytest.mark.slow
def test_spark_sql_equals_in_process(spark: Any) -> None:  # noqa: F811
    runs = _runs(3, 2)
    frames = [spark.createDataFrame([(q, d, s) for q, scored in r.items() for d, s in scored.items()],
                                    "query string, item string, score double") for r in runs]
    for method, kw in CASES:
        rows = fuse_spark(spark, frames, method, **kw).collect()
        got: dict[str, dict[str, float]] = {}
        for row in sorted(rows, key=lambda r: (r["query"], r["rank"])):
            got.setdefault(row["query"], {})[row["item"]] = row["score"]
        want = fuse(runs, method, **kw)
        assert got == want.to_dict(), method
        assert {q: list(v) for q, v in got.items()} == want.to_lists()
