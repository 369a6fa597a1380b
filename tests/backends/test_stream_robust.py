"""Streaming under hostile conditions: SIGTERM mid-run, a low open-files limit, a missing tmp_dir."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

import rankmeter
from rankmeter._errors import ParameterError


def _ungrouped_trec(path: Path, queries: int, per_query: int) -> None:
    with open(path, "w") as fh:
        for r in range(per_query):
            for q in range(queries):
                fh.write(f"q{q} Q0 d{r} {r + 1} {per_query - r} t\n")


@pytest.mark.skipif(not hasattr(signal, "SIGTERM") or not hasattr(os, "mkfifo"), reason="POSIX signals and FIFOs")
def test_sigterm_removes_the_partitions(tmp_path: Path) -> None:
    """The run comes through a FIFO that the test keeps open, so SIGTERM surely arrives mid-partitioning."""
    fifo = tmp_path / "run.fifo"
    os.mkfifo(fifo)
    parts = tmp_path / "tmp"
    parts.mkdir()
    code = ("import sys, rankmeter\n"
            "rankmeter.evaluate_stream({'q1': {'d1': 1}}, sys.argv[1], ['ndcg@10'], chunk_rows=2000, grouped=False, "
            "tmp_dir=sys.argv[2], workers=1)\n")
    proc = subprocess.Popen([sys.executable, "-c", code, str(fifo), str(parts)], stderr=subprocess.PIPE, text=True)
    writer = open(fifo, "w")  # blocks until the evaluator opens the FIFO
    try:
        for r in range(40):  # ungrouped: every query comes back on each pass
            writer.write("".join(f"q{q} Q0 d{r} {r + 1} {40 - r} t\n" for q in range(5000)))
            writer.flush()
            if any(parts.iterdir()):
                break
        deadline = time.time() + 60
        while time.time() < deadline and not any(parts.iterdir()):
            time.sleep(0.05)
        assert any(parts.iterdir()), "the run never started partitioning"
        proc.send_signal(signal.SIGTERM)  # the evaluator waits for more input: it is mid-partitioning
    finally:
        try:  # end the input too: a reader thread blocked on the FIFO must not keep the process alive
            writer.close()
        except BrokenPipeError:
            pass
    proc.wait(timeout=120)
    assert proc.returncode == 128 + signal.SIGTERM
    assert list(parts.iterdir()) == [], "partition files were left behind"
    assert "internal error" not in (proc.stderr.read() if proc.stderr else "")


@pytest.mark.skipif(sys.platform == "win32", reason="ulimit")
def test_partitioning_under_a_low_open_files_limit(tmp_path: Path) -> None:
    run = tmp_path / "run.txt"
    _ungrouped_trec(run, 3_000, 5)
    code = ("import resource, sys, rankmeter\n"
            "resource.setrlimit(resource.RLIMIT_NOFILE, (128, 128))\n"
            "r = rankmeter.evaluate_stream({'q1': {'d0': 1}}, sys.argv[1], ['P@1'], chunk_rows=2, grouped=False)\n"
            "print(r.mean['P@1'])\n")
    out = subprocess.run([sys.executable, "-c", code, str(run)], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    assert float(out.stdout) == 1.0


def test_missing_tmp_dir_is_a_parameter_error(tmp_path: Path) -> None:
    run = tmp_path / "run.txt"
    _ungrouped_trec(run, 3, 2)
    with pytest.raises(ParameterError, match="tmp_dir"):
        rankmeter.evaluate_stream({"q1": {"d0": 1}}, run, ["P@1"], grouped=False, tmp_dir=tmp_path / "nope")
