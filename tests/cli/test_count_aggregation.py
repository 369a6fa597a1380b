"""Issue 24 item 17: counts are shown by their sum, labelled, as integers, in every output of evaluate."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

import rankmeter


@pytest.fixture
def files(tmp_path: Path) -> dict[str, Path]:
    q = tmp_path / "qrels.txt"
    q.write_text("1 0 a 1\n1 0 b 0\n2 0 c 1\n2 0 d 1\n")
    r = tmp_path / "run.txt"
    r.write_text("1 Q0 a 1 1.0 r\n1 Q0 b 2 0.5 r\n2 Q0 c 1 2.0 r\n")
    s = tmp_path / "other.txt"
    s.write_text("1 Q0 a 1 1.0 s\n1 Q0 x 2 0.5 s\n1 Q0 y 3 0.4 s\n")
    return {"qrels": q, "run": r, "other": s}


def evaluate(files: dict[str, Path], *args: str) -> str:
    out = subprocess.run([sys.executable, "-m", "rankmeter", "evaluate", str(files["qrels"]), str(files["run"]),
                          "-m", "num_ret,num_rel_ret,map", *args], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0 and "Traceback" not in out.stderr, out.stderr
    return out.stdout


def test_python_sums_and_means() -> None:
    r = rankmeter.evaluate({"q1": ["a"], "q2": ["c"]}, {"q1": ["a", "b"], "q2": ["c"]}, ["num_ret", "map"])
    assert r.mean["num_ret"] == 1.5 and r.sums["num_ret"] == 3 and isinstance(r.sums["num_ret"], int)
    assert r.counts == ("num_ret",)
    assert r.to_dict(per_query=False)["sum"] == {"num_ret": 3}


def test_table(files: dict[str, Path]) -> None:
    text = evaluate(files)
    assert "num_ret (sum)" in text and "num_rel_ret (sum)" in text and "map " in text
    row = next(line for line in text.splitlines() if "num_ret (sum)" in line)
    assert row.split()[-2] == "3"  # an integer, not 1.5000


def test_per_query_table_counts_are_integers(files: dict[str, Path]) -> None:
    text = evaluate(files, "-q")
    rows = [line.split("│") for line in text.splitlines() if line.startswith("│ 1 ") or line.startswith("│ 2 ")]
    assert [[c.strip() for c in row[1:4]] for row in rows[:2]] == [["1", "2", "1"], ["2", "1", "1"]]


def test_json(files: dict[str, Path]) -> None:
    doc = json.loads(evaluate(files, "--format", "json"))
    assert doc["mean"]["num_ret"] == 1.5 and doc["sum"] == {"num_ret": 3, "num_rel_ret": 2}


def test_csv(files: dict[str, Path]) -> None:
    assert evaluate(files, "--format", "csv").splitlines() == ["metric,mean", "num_ret (sum),3",
                                                                "num_rel_ret (sum),2", "map,0.75"]
    lines = evaluate(files, "--format", "csv", "-q").splitlines()
    assert lines[0] == "query,num_ret (all: sum),num_rel_ret (all: sum),map"
    assert lines[1:] == ["1,2,1,1.0", "2,1,1,0.5", "all,3,2,0.75"]


def test_trec(files: dict[str, Path]) -> None:
    lines = [line.split() for line in evaluate(files, "--format", "trec").splitlines()]
    assert lines == [["num_ret", "all", "3"], ["num_rel_ret", "all", "2"], ["map", "all", "0.7500"]]


@pytest.mark.parametrize("fmt", ["markdown", "latex", "html"])
def test_papers(files: dict[str, Path], fmt: str) -> None:
    text = evaluate(files, "--format", fmt)
    assert ("num\\_ret (sum)" if fmt == "latex" else "num_ret (sum)") in text and "summed over the queries" in text


def test_several_runs(files: dict[str, Path]) -> None:
    """Runs as rows (as in markdown), counts labelled in the header and summed per run."""
    text = evaluate(files, str(files["other"]))
    head = next(line for line in text.splitlines() if "num_ret (sum)" in line)
    assert [c.strip() for c in head.split("┃")[1:-1]] == ["run", "queries", "num_ret (sum)", "num_rel_ret (sum)",
                                                         "map"]
    rows = {c[1].strip(): [x.strip() for x in c[2:-1]] for c in (line.split("│") for line in text.splitlines()
                                                                  if line.startswith("│"))}
    assert rows["run"][:3] == ["2", "3", "2"] and rows["other"][:3] == ["2", "3", "1"]
