"""``rankmeter evaluate-ratings``: formats, options, errors on stderr with exit code 2."""

from __future__ import annotations

import csv
import io
import json
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from rankmeter.cli._app import group

BOTH = "user,item,rating,prediction\n1,10,3,2.3\n1,11,1,0.9\n2,10,5,4.9\n2,12,2,0.9\n3,11,3,1.5\n"
UDATA = "1\t10\t3\t881250949\n1\t11\t1\t881250949\n2\t10\t5\t881250949\n2\t12\t2\t881250949\n3\t11\t3\t0\n3\t13\t4\t0\n"
PREDS = "user,item,prediction\n1,10,2.3\n1,11,0.9\n2,10,4.9\n2,12,0.9\n3,11,1.5\n9,9,3\n"


@pytest.fixture()
def files(tmp_path: Path) -> dict[str, Path]:
    out = {"both": tmp_path / "both.csv", "udata": tmp_path / "u.data", "preds": tmp_path / "preds.csv"}
    out["both"].write_text(BOTH)
    out["udata"].write_text(UDATA)
    out["preds"].write_text(PREDS)
    return out


def run(*args: str) -> tuple[int, str, str]:
    res = CliRunner().invoke(group, list(args))
    return res.exit_code, res.stdout, res.stderr


def test_json_one_table(files) -> None:
    code, out, _ = run("evaluate-ratings", str(files["both"]), "-m", "mae", "-m", "rmse", "--format", "json")
    assert code == 0
    data = json.loads(out)
    assert data["queries"] == 3 and "per_query" not in data
    assert data["mean"]["mae"] == pytest.approx(0.7)
    assert round(data["mean"]["rmse"], 6) == 0.891067


def test_json_per_query_and_null_for_undefined(files) -> None:
    code, out, _ = run("evaluate-ratings", str(files["both"]), "-m", "spearman", "--format", "json", "--per-query")
    assert code == 0
    data = json.loads(out)  # valid JSON: NaN is written as null
    assert data["per_query"]["3"]["spearman"] is None
    assert set(data["per_query"]) == {"1", "2", "3"}


def test_two_files_missing_policies(files) -> None:
    proc = subprocess.run([sys.executable, "-m", "rankmeter", "evaluate-ratings", str(files["udata"]),
                           str(files["preds"]), "-m", "mae"], capture_output=True, text=True)
    assert proc.returncode == 2
    assert proc.stderr.startswith("rankmeter: error: 1 of 6 test pairs have no prediction")
    assert len(proc.stderr.strip().splitlines()) == 1
    proc = subprocess.run([sys.executable, "-m", "rankmeter", "evaluate-ratings", str(files["udata"]),
                           str(files["preds"]), "-m", "mae", "--missing", "skip", "--format", "csv"],
                          capture_output=True, text=True)
    assert proc.returncode == 0
    rows = list(csv.reader(io.StringIO(proc.stdout)))
    assert rows[0] == ["metric", "mean"] and rows[1][0] == "mae" and float(rows[1][1]) == pytest.approx(0.7)
    assert "left out (--missing skip)" in proc.stderr and "absent from the truth" in proc.stderr
    proc = subprocess.run([sys.executable, "-m", "rankmeter", "evaluate-ratings", str(files["udata"]),
                           str(files["preds"]), "-m", "mae", "--missing", "fill=3", "--format", "csv",
                           "--per-query"], capture_output=True, text=True)
    rows = list(csv.reader(io.StringIO(proc.stdout)))
    assert rows[0] == ["user", "mae"] and [r[0] for r in rows[1:]] == ["1", "2", "3", "all"]
    assert float(rows[3][1]) == pytest.approx((1.5 + 1) / 2)


def test_table_and_scale_and_cost(files, tmp_path) -> None:
    code, out, _ = run("evaluate-ratings", str(files["both"]), "-m", "nmae", "--scale", "1:5")
    assert code == 0 and "nmae" in out and "0.1750" in out
    c = tmp_path / "c.csv"
    c.write_text("user,item,rating,prediction\nu,a,1,3\nu,b,3,1\n")
    code, out, _ = run("evaluate-ratings", str(c), "-m", "cost", "--cost", "3,1=5;2,1=3;3,2=3;1,2=1;2,3=1;1,3=2",
                       "--format", "json")
    assert code == 0 and json.loads(out)["mean"]["cost"] == 3.5


def test_column_options(tmp_path) -> None:
    f = tmp_path / "odd.csv"
    f.write_text("who,what,stars,guess\na,x,4,3\nb,x,2,2\n")
    code, out, _ = run("evaluate-ratings", str(f), "--user-column", "who", "--item-column", "what",
                       "--rating-column", "stars", "--prediction-column", "guess", "--format", "json")
    assert code == 0 and json.loads(out)["mean"] == {"mae": 0.5, "rmse": pytest.approx(0.5 ** 0.5)}


def test_errors_exit_2(files) -> None:
    for args in (["-m", "ndcg@10"], ["-m", "nope"], ["--scale", "5:1"], ["--scale", "1:4"]):
        proc = subprocess.run([sys.executable, "-m", "rankmeter", "evaluate-ratings", str(files["both"]), *args],
                              capture_output=True, text=True)
        assert proc.returncode == 2, args
        assert proc.stderr.startswith("rankmeter: error:") and "Traceback" not in proc.stderr
