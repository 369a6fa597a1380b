"""`rankmeter fuse`, run as a user runs it (a subprocess): the output equals rankmeter.fuse, errors are one line."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from rankmeter import read_run
from rankmeter.fusion import fuse


def run_cli(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "rankmeter", "fuse", *args], capture_output=True, text=True,
                          timeout=120, cwd=cwd)


@pytest.fixture
def files(tmp_path: Path) -> Path:
    (tmp_path / "bm25.run").write_text("q1 Q0 d1 1 12 b\nq1 Q0 d2 2 9.5 b\nq1 Q0 d3 3 7 b\nq2 Q0 d1 1 3 b\n"
                                       "q2 Q0 d5 2 2 b\nq3 Q0 d2 1 1 b\n")
    (tmp_path / "dense.run").write_text("q1 Q0 d3 1 0.91 d\nq1 Q0 d4 2 0.88 d\nq1 Q0 d1 3 0.52 d\n"
                                        "q2 Q0 d5 1 0.7 d\nq3 Q0 d9 1 0.2 d\nq3 Q0 d2 2 0.1 d\n")
    (tmp_path / "qrels.txt").write_text("q1 0 d3 1\nq1 0 d1 0\nq2 0 d5 1\nq3 0 d2 1\n")
    return tmp_path


@pytest.mark.parametrize("args", [
    ["-m", "rrf"], ["-m", "wsum", "-w", "0.3,0.7"], ["-m", "wsum", "-w", "dense=0.7,bm25=0.3"],
    ["-m", "mnz(count=nonzero)", "--norm", "zmuv"], ["-m", "gmnz", "-p", "gamma=0.5", "--depth", "2"],
    ["-m", "rrf", "-k", "10"], ["-m", "condorcet", "--norm", "none"],
])
def test_the_output_is_rankmeter_fuse_written_as_a_trec_run(files: Path, args: list[str]) -> None:
    out = run_cli("bm25.run", "dense.run", *args, "-o", "fused.run", cwd=files)
    assert out.returncode == 0, out.stderr
    got = read_run(files / "fused.run")
    kw: dict[str, object] = {}
    if "-w" in args:
        kw["weights"] = [0.3, 0.7]
    if "-p" in args:
        kw["params"] = {"gamma": 0.5}
    if "--depth" in args:
        kw["depth"] = 2
    if "-k" in args:
        kw["k"] = 10
    norm = args[args.index("--norm") + 1] if "--norm" in args else "min-max"
    want = fuse({"bm25": str(files / "bm25.run"), "dense": str(files / "dense.run")}, args[1],
                norm=None if norm == "none" else norm, **kw)  # type: ignore[arg-type]
    assert got.to_dict() == want.to_dict()
    assert got.to_lists() == want.to_lists()


def test_stdout_and_notes(files: Path) -> None:
    out = run_cli("bm25.run", "dense.run", "-m", "wsum", cwd=files)
    assert out.returncode == 0
    assert out.stdout.splitlines()[0] == "q1 Q0 d3 1 1.0 wsum"
    assert "no weights given, each run weighs 1" in out.stderr


def test_optimize_saves_params_that_fuse_reads_back(files: Path) -> None:
    out = run_cli("bm25.run", "dense.run", "-m", "probfuse", "--optimize", "qrels.txt", "--folds", "3", "--metric",
                  "P@1", "--save-params", "p.json", "-o", "tuned.run", cwd=files)
    assert out.returncode == 0, out.stderr
    assert "held out (3-fold cross-validation)" in out.stderr and "tuned on all queries" in out.stderr
    saved = json.loads((files / "p.json").read_text())
    assert saved["method"] == "probfuse" and len(saved["params"]["probs"]) == 2
    again = run_cli("bm25.run", "dense.run", "-m", "probfuse", "--params", "p.json", cwd=files)
    assert again.returncode == 0, again.stderr
    assert again.stdout == (files / "tuned.run").read_text()


@pytest.mark.parametrize(("args", "message"), [
    (["-m", "probfuse"], "supervised method"),
    (["-m", "nope"], "--method option must be one of rrf"),
    (["-m", "wsum", "-w", "1"], "-w/--weights option must be one finite number per run (2 runs)"),
    (["--norm", "foo"], "--norm option must be one of"),
    (["-p", "gamma"], "-p/--param is NAME=VALUE"),
    (["-m", "wsum", "--optimize", "qrels.txt", "-w", "1,2"], "leave -w/--weights and -k out"),
])
def test_errors_are_one_line_and_exit_2(files: Path, args: list[str], message: str) -> None:
    out = run_cli("bm25.run", "dense.run", *args, cwd=files)
    assert out.returncode == 2
    assert message in out.stderr and "Traceback" not in out.stderr and len(out.stderr.strip().splitlines()) == 1


def test_chunk_rows_gives_the_same_run(files: Path) -> None:
    whole = run_cli("bm25.run", "dense.run", "-m", "wsum", "-w", "0.3,0.7", "--norm", "zmuv", cwd=files)
    chunked = run_cli("bm25.run", "dense.run", "-m", "wsum", "-w", "0.3,0.7", "--norm", "zmuv", "--chunk-rows", "2",
                      "--threads", "2", cwd=files)
    assert whole.returncode == 0 and chunked.returncode == 0, chunked.stderr
    assert chunked.stdout == whole.stdout
