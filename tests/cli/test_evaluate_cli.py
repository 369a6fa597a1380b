"""The `rankmeter evaluate` command, run as a user runs it (a subprocess)."""

from __future__ import annotations

import csv
import io
import json
import subprocess
import sys
from pathlib import Path

import pytest


def run_cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "rankmeter", *args], capture_output=True, text=True, timeout=120)


@pytest.fixture
def files(tmp_path: Path) -> tuple[Path, Path]:
    q = tmp_path / "qrels.txt"
    r = tmp_path / "run.txt"
    q.write_text("u1 0 1 1\nu1 0 2 1\nu1 0 4 1\nu2 0 9 1\n")
    r.write_text("u1 Q0 1 1 10 s\nu1 Q0 3 2 8 s\nu1 Q0 2 3 6 s\nu1 Q0 6 4 2 s\nu3 Q0 1 1 1 s\n")
    return q, r


def test_json_shape(files) -> None:
    q, r = files
    out = run_cli("evaluate", str(q), str(r), "-m", "ndcg@2", "-m", "P_2", "--format", "json", "--per-query")
    assert out.returncode == 0, out.stderr
    payload = json.loads(out.stdout)
    assert payload["queries"] == 2
    assert payload["mean"]["P_2"] == pytest.approx((0.5 + 0.0) / 2)
    assert set(payload["per_query"]) == {"u1", "u2"}
    assert payload["per_query"]["u1"]["ndcg@2"] == pytest.approx(0.6131471927654585)
    # u2 is judged but absent from the run (scores 0); u3 has no judgments (left out): both reported
    assert "no ranking in the run" in out.stderr and "no judgments" in out.stderr


def test_without_per_query(files) -> None:
    q, r = files
    payload = json.loads(run_cli("evaluate", str(q), str(r), "-m", "map", "--format", "json").stdout)
    assert "per_query" not in payload and payload["mean"]["map"] == pytest.approx((1 + 2 / 3) / 3 / 2)


def test_trec_format(files) -> None:
    q, r = files
    out = run_cli("evaluate", str(q), str(r), "-m", "P_2", "-m", "num_ret", "--format", "trec", "-q",
                  "--queries", "run")
    lines = [line.split("\t") for line in out.stdout.strip().splitlines()]
    assert [x.strip() for x in lines[0]] == ["P_2", "u1", "0.5000"]
    assert [x.strip() for x in lines[-1]] == ["num_ret", "all", "4"]


def test_csv_and_table(files) -> None:
    q, r = files
    rows = list(csv.reader(io.StringIO(run_cli("evaluate", str(q), str(r), "-m", "rr", "--format", "csv").stdout)))
    assert rows[0] == ["metric", "mean"] and rows[1][0] == "rr"
    table = run_cli("evaluate", str(q), str(r), "-m", "rr")
    assert table.returncode == 0 and "rr" in table.stdout


@pytest.mark.parametrize(
    "args,needle",
    [
        (["-m", "ndgc@10"], "did you mean"),
        (["-m", "ndcg@-1"], "must be an int"),
        (["-m", "mae"], None),
    ],
)
def test_errors_exit_2_without_traceback(files, args, needle) -> None:
    q, r = files
    out = run_cli("evaluate", str(q), str(r), *args)
    if args == ["-m", "mae"] and out.returncode == 0:
        pytest.skip("mae is not registered in this build")
    assert out.returncode == 2
    assert "Traceback" not in out.stderr and out.stderr.count("\n") <= 3
    if needle:
        assert needle in out.stderr


def test_bad_file_names_file_and_line(tmp_path, files) -> None:
    q, _ = files
    bad = tmp_path / "bad.run"
    bad.write_text("u1 Q0 1 1 10 s\nu1 Q0 2 2 ten s\n")
    out = run_cli("evaluate", str(q), str(bad), "-m", "p@1")
    assert out.returncode == 2 and f"{bad}:2:" in out.stderr and "Traceback" not in out.stderr
    out = run_cli("evaluate", str(q), str(tmp_path / "nope.run"), "-m", "p@1")
    assert out.returncode == 2 and "nope.run" in out.stderr


def test_metrics_listing() -> None:
    out = run_cli("metrics")
    assert out.returncode == 0 and "ndcg" in out.stdout
    out = run_cli("metrics", "ndcg")
    assert "Järvelin" in out.stdout or "Jarvelin" in out.stdout
