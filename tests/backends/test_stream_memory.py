"""Streaming memory is set by the chunk and the judgments, not by the number of run queries."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

JOB = r"""
import resource, sys
import rankmeter, rankmeter.stream
base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
r = rankmeter.evaluate_stream({"q1": {"d1": 1}}, sys.argv[1], ["ndcg@10", "map"], chunk_rows=100_000)
assert r.coverage.without_judgments == int(sys.argv[2]) - 1
print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024 - base)
"""


@pytest.mark.slow
def test_two_million_one_row_queries_stream_in_bounded_memory(tmp_path: Path) -> None:
    """2M one-row queries, nearly all without judgments: the run's queries leave no Python object
    behind (8 bytes each); before, 120 bytes a query (240 MB more here) stayed until the end."""
    n = 2_000_000
    path = tmp_path / "onerow.parquet"
    with pq.ParquetWriter(path, pa.schema([("query", pa.string()), ("item", pa.string()),
                                           ("score", pa.float64())])) as w:
        for s in range(0, n, 500_000):
            q = pa.array(np.char.add("q", np.arange(s, s + 500_000).astype(str)).astype(object), pa.string())
            w.write_table(pa.table({"query": q, "item": pa.array(["d1"] * 500_000), "score": np.ones(500_000)}),
                          row_group_size=100_000)
    out = subprocess.run([sys.executable, "-c", JOB, str(path), str(n)], capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr
    grown = float(out.stdout.strip())
    assert grown < 300, f"streaming 2M one-row queries grew the process by {grown:.0f} MB"
