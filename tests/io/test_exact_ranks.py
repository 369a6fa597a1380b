"""--order rank reads integer ranks exactly (issue 32, item 6a): 1e20 and 1e20 + 1 never tie, in every route."""

from __future__ import annotations

import subprocess
import sys

import pyarrow as pa
import pyarrow.parquet as pq
from hypothesis import given, settings
from hypothesis import strategies as st

from rankmeter.data.run import rank_values
from rankmeter.io import read_run
from rankmeter.io.blocks import open_run_blocks


def _cli(*args: str, stdin: bytes | None = None) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run([sys.executable, "-m", "rankmeter", *args], input=stdin, capture_output=True, timeout=120)


CASES = [(10**20, 10**20 + 1), (2**53, 2**53 + 1), (2**63 - 2, 2**63 - 1), (-(2**60) - 1, -(2**60))]


def test_big_integer_ranks_never_tie_in_the_readers(tmp_path) -> None:
    for lo, hi in CASES:
        # 'a' has the smaller rank, so it comes first, whatever the tie rule would say ('b' > 'a')
        (tmp_path / "run.txt").write_text(f"q Q0 a {lo} 1 t\nq Q0 b {hi} 1 t\n")
        (tmp_path / "run.csv").write_text(f"query,item,rank\nq,a,{lo}\nq,b,{hi}\n")
        for name in ("run.txt", "run.csv"):
            assert read_run(tmp_path / name, order="rank").to_lists() == {"q": ["a", "b"]}, (name, lo)
        if hi < 2**63:
            pq.write_table(pa.table({"query": ["q", "q"], "item": ["a", "b"], "rank": pa.array([lo, hi], pa.int64())}),
                           tmp_path / "run.parquet")
            assert read_run(tmp_path / "run.parquet", order="rank").to_lists() == {"q": ["a", "b"]}


def test_big_integer_ranks_in_every_cli_route(tmp_path) -> None:
    (tmp_path / "qrels").write_text("q 0 b 1\n")
    for lo, hi in CASES[:2]:
        run = tmp_path / "run.txt"
        run.write_text(f"q Q0 a {lo} 1 t\nq Q0 b {hi} 1 t\n")
        for extra, stdin in (([str(run)], None), ([str(run), "--chunk-rows", "1"], None),
                             (["-"], run.read_bytes())):
            out = _cli("evaluate", str(tmp_path / "qrels"), *extra, "-m", "P@1", "--order", "rank", "--format", "csv",
                       stdin=stdin)
            assert out.returncode == 0, out.stderr
            assert out.stdout.decode().splitlines()[-1] == "P@1,0.0", (extra, lo)


def test_block_reader_keeps_one_rank_type_whatever_the_values(tmp_path) -> None:
    # text ranks stay text in the blocks (checked): blocks of integer and fractional ranks concatenate
    (tmp_path / "run.txt").write_text("q Q0 a 1 1 t\nq Q0 b 2 1 t\nr Q0 c 1.5 1 t\n")
    blocks = list(open_run_blocks(tmp_path / "run.txt", order="rank").blocks(1, block_bytes=12))
    assert len({b.table.schema for b in blocks}) == 1


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(-(2**70), 2**70), min_size=1, max_size=12))
def test_rank_values_order_as_the_integers_do(values: list[int]) -> None:
    got = rank_values(pa.array([str(v) for v in values]))
    # a slow, obviously right reference: Python's integers compared pairwise
    for i, a in enumerate(values):
        for j, b in enumerate(values):
            assert (a < b) == bool(got[i] < got[j]) and (a == b) == bool(got[i] == got[j])
