"""fuse_files (run files chunk by chunk) gives rankmeter.fuse's fused run, bit for bit, for every method,
chunk size and thread count; files not grouped by query or in different query orders are refused by name."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rankmeter import InputError, read_run
from rankmeter.fusion import METHODS, fuse
from rankmeter.fusion.stream import fuse_files

from .test_fuse import PARAMS, WEIGHTS


def _files(tmp_path: Path, seed: int = 0) -> list[str]:
    rng = np.random.default_rng(seed)
    paths = []
    for j in range(3):
        lines = []
        for q in range(20):
            if rng.random() < 0.2:
                continue  # this run has no document for the query
            n = int(rng.integers(1, 9))
            docs = rng.choice(12, size=n, replace=False)
            scores = rng.choice([0.5, 1.0, 1.5, 2.0], size=n)  # ties
            lines += [f"q{q} Q0 d{d} 0 {s} r{j}\n" for d, s in zip(docs, scores, strict=True)]
        p = tmp_path / f"r{j}.run"
        p.write_text("".join(lines))
        paths.append(str(p))
    return paths


@pytest.mark.parametrize("method", [m.name for m in METHODS])
def test_every_method_chunk_by_chunk_equals_in_memory(tmp_path: Path, method: str) -> None:
    paths = _files(tmp_path)
    spec = next(m for m in METHODS if m.name == method)
    kw: dict[str, Any] = {"params": PARAMS.get(method), "weights": WEIGHTS if spec.weighted else None}
    want = fuse(paths, method, **kw)
    for chunk_rows, threads in ((1, 1), (7, 2), (10_000, 2)):
        out = tmp_path / f"fused-{chunk_rows}-{threads}.run"
        summary = fuse_files(paths, method, output=str(out), chunk_rows=chunk_rows, threads=threads, **kw)
        got = read_run(out)
        assert got.to_dict() == want.to_dict(), (chunk_rows, threads)
        assert got.to_lists() == want.to_lists()
        assert summary.rows == len(want) and summary.queries == want.n_queries
        assert [n for n in summary.notes if "has no document" in n] == [n for n in want.notes if "has no doc" in n]


def test_depth_and_norm(tmp_path: Path) -> None:
    paths = _files(tmp_path, 1)
    out = tmp_path / "f.run"
    fuse_files(paths, "mnz(count=nonzero)", output=str(out), norm="zmuv", depth=3, chunk_rows=5)
    assert read_run(out).to_dict() == fuse(paths, "mnz(count=nonzero)", norm="zmuv", depth=3).to_dict()


def test_a_file_not_grouped_by_query_is_refused(tmp_path: Path) -> None:
    a = tmp_path / "a.run"
    a.write_text("q1 Q0 x 1 1 a\nq2 Q0 x 1 1 a\nq1 Q0 y 2 0.5 a\n")
    with pytest.raises(InputError, match="comes back after other queries"):
        fuse_files([str(a), str(a)], "rrf", output=str(tmp_path / "o"), chunk_rows=1)


def test_files_in_different_query_orders_are_refused(tmp_path: Path) -> None:
    a, b = tmp_path / "a.run", tmp_path / "b.run"
    a.write_text("q1 Q0 x 1 1 a\nq2 Q0 x 1 1 a\nq3 Q0 x 1 1 a\n")
    b.write_text("q3 Q0 x 1 1 b\nq1 Q0 x 1 1 b\n")
    with pytest.raises(InputError, match="in another order"):
        fuse_files([str(a), str(b)], "rrf", output=str(tmp_path / "o"), chunk_rows=1)


def test_parquet_files(tmp_path: Path) -> None:
    import pyarrow.parquet as pq

    paths = []
    for j, p in enumerate(_files(tmp_path, 2)):
        table = read_run(p).to_arrow().select(["query", "item", "score"])
        out = tmp_path / f"p{j}.parquet"
        pq.write_table(table, out, row_group_size=7)
        paths.append(str(out))
    fuse_files(paths, "rrf", output=str(tmp_path / "f.run"), chunk_rows=5)
    assert read_run(tmp_path / "f.run").to_dict() == fuse(paths, "rrf").to_dict()


@settings(max_examples=25)
@given(st.lists(st.lists(st.booleans(), min_size=6, max_size=6), min_size=2, max_size=3),
       st.integers(1, 12), st.integers(0, 1000))
def test_any_queries_missing_any_chunk_size(present: list[list[bool]], chunk_rows: int, seed: int) -> None:
    """Files in one query order, each lacking any queries: chunk by chunk equals in memory."""
    import tempfile

    rng = np.random.default_rng(seed)
    d = Path(tempfile.mkdtemp())
    paths = []
    for j, has in enumerate(present):
        lines = [f"q{q} Q0 d{x} 0 {rng.choice([1.0, 2.0, 0.5])} r\n" for q in range(6) if has[q]
                 for x in rng.choice(8, size=int(rng.integers(1, 5)), replace=False)]
        if not lines:
            lines = ["q9 Q0 d0 0 1 r\n"]
        (d / f"r{j}.run").write_text("".join(lines))
        paths.append(str(d / f"r{j}.run"))
    fuse_files(paths, "bordafuse", output=str(d / "f.run"), chunk_rows=chunk_rows)
    assert read_run(d / "f.run").to_dict() == fuse(paths, "bordafuse").to_dict()
