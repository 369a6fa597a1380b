"""``--group-by FILE`` on ``evaluate`` and ``compare``, run as a user runs it (a subprocess)."""

from __future__ import annotations

import csv
import io
import json
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

import rankmeter


def run_cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "rankmeter", *args], capture_output=True, text=True, timeout=300)


@pytest.fixture
def files(tmp_path: Path) -> dict[str, Path]:
    q = tmp_path / "qrels.txt"
    q.write_text("".join(f"u{n} 0 i{n} 1\nu{n} 0 j{n} 1\n" for n in range(8)))
    a = tmp_path / "a.txt"
    a.write_text("".join(f"u{n} Q0 {'i' if n % 2 else 'x'}{n} 1 3 a\nu{n} Q0 j{n} 2 2 a\n" for n in range(8)))
    b = tmp_path / "b.txt"
    b.write_text("".join(f"u{n} Q0 x{n} 1 3 b\nu{n} Q0 i{n} 2 2 b\n" for n in range(8)))
    g = tmp_path / "groups.tsv"
    # u7 has no group; u9 is not evaluated
    g.write_text("user\tgroup\n" + "".join(f"u{n}\t{'odd' if n % 2 else 'even'}\n" for n in range(7)) + "u9\todd\n")
    return {"qrels": q, "a": a, "b": b, "groups": g}


def test_evaluate_json_equals_a_pandas_group_by(files) -> None:
    out = run_cli("evaluate", str(files["qrels"]), str(files["a"]), "-m", "rr", "-m", "P@1", "--format", "json",
                  "--group-by", str(files["groups"]))
    assert out.returncode == 0, out.stderr
    doc = json.loads(out.stdout)
    res = rankmeter.evaluate(rankmeter.io.read_qrels(files["qrels"]), rankmeter.io.read_run(files["a"]), ["rr", "P@1"])
    frame = res.per_query
    frame["group"] = [("odd" if int(q[1:]) % 2 else "even") if q != "u7" else None for q in frame.index]
    want = frame.dropna(subset=["group"]).groupby("group")[["rr", "P@1"]].mean()
    for g in ("even", "odd"):
        assert doc["groups"]["groups"][g]["mean"] == pytest.approx(want.loc[g].to_dict())
    assert doc["groups"]["groups"]["odd"]["size"] == 3 and doc["groups"]["ungrouped"] == 1
    assert doc["groups"]["gap"]["rr"]["max_minus_min"] == pytest.approx(want["rr"].max() - want["rr"].min())
    # never silent: the ungrouped query and the header line are said on stderr
    assert "1 query of 8 has no group (e.g. 'u7')" in out.stderr
    assert "1 queries named in --group-by are not in the result" in out.stderr
    assert "read as a header" in out.stderr


def test_evaluate_table_csv_markdown(files) -> None:
    base = [str(files["qrels"]), str(files["a"]), "-m", "rr", "--group-by", str(files["groups"])]
    out = run_cli("evaluate", *base)
    assert out.returncode == 0, out.stderr
    assert "Per group" in out.stdout and "Gap between groups" in out.stdout and "odd" in out.stdout
    out = run_cli("evaluate", *base, "--format", "csv")
    rows = list(csv.reader(io.StringIO(out.stdout)))
    assert rows[0] == ["group", "size", "rr"] and [r[0] for r in rows[1:]] == ["even", "odd"]
    assert float(rows[2][2]) == pytest.approx(1.0) and float(rows[1][2]) == pytest.approx(0.5)
    out = run_cli("evaluate", *base, "--format", "markdown")
    assert "**Per group**" in out.stdout and "| odd | 3 |" in out.stdout


def test_evaluate_group_by_errors(files, tmp_path) -> None:
    out = run_cli("evaluate", str(files["qrels"]), str(files["a"]), "-m", "rr", "--group-by",
                  str(files["groups"]), "--format", "trec")
    assert out.returncode == 2 and "--group-by cannot be written in --format trec" in out.stderr
    bad = tmp_path / "bad.tsv"
    bad.write_text("u1\todd\nu2\n")
    out = run_cli("evaluate", str(files["qrels"]), str(files["a"]), "-m", "rr", "--group-by", str(bad))
    assert out.returncode == 2 and "Traceback" not in out.stderr
    assert "two columns" in out.stderr and "bad.tsv" in out.stderr and "2" in out.stderr
    out = run_cli("evaluate", str(files["qrels"]), str(files["a"]), "-m", "rr", "--group-by", str(tmp_path / "no"))
    assert out.returncode == 2 and "no such file" in out.stderr


def test_compare_group_by_json_csv_and_html(files, tmp_path) -> None:
    html = tmp_path / "report.html"
    args = ["compare", str(files["qrels"]), f"A={files['a']}", f"B={files['b']}", "-m", "rr", "--group-by",
            str(files["groups"])]
    out = run_cli(*args, "--format", "json", "--html", str(html), "--k-max", "2")
    assert out.returncode == 0, out.stderr
    doc = json.loads(out.stdout)
    assert set(doc["groups"]) == {"A", "B"}
    assert doc["groups"]["A"]["groups"]["odd"]["mean"]["rr"] == pytest.approx(1.0)
    assert doc["groups"]["B"]["groups"]["odd"]["mean"]["rr"] == pytest.approx(0.5)
    tests = pd.DataFrame(doc["groups"]["B"]["tests"])  # B against the baseline A, within each group
    assert set(tests.group) == {"even", "odd"} and (tests.other == "A").all()  # the baseline by name
    page = html.read_text()
    assert "<h2>Per group</h2>" in page and 'alt="rr per group"' in page
    out = run_cli(*args, "--format", "csv")
    rows = list(csv.reader(io.StringIO(out.stdout)))
    assert rows[0] == ["run", "group", "size", "rr"] and len(rows) == 5
    out = run_cli(*args)
    assert out.returncode == 0 and "Tests within groups" in out.stdout


def test_a_bad_groups_file_fails_before_the_work(tmp_path) -> None:
    """The --group-by file is read first: its error comes before any note of the evaluation."""
    import subprocess
    import sys

    (tmp_path / "q.txt").write_text("q1 0 a 1\n")
    (tmp_path / "r.txt").write_text("q1 Q0 a 1 1 t\nq9 Q0 a 1 1 t\n")
    (tmp_path / "g.txt").write_text("bad\n")
    for cmd in (["evaluate", str(tmp_path / "q.txt"), str(tmp_path / "r.txt")],
                ["compare", str(tmp_path / "q.txt"), f"a={tmp_path / 'r.txt'}", f"b={tmp_path / 'r.txt'}"]):
        out = subprocess.run([sys.executable, "-m", "rankmeter", *cmd, "-m", "map", "--group-by",
                              str(tmp_path / "g.txt")], capture_output=True, text=True)
        assert out.returncode == 2 and "--group-by" in out.stderr
        assert "note:" not in out.stderr, out.stderr  # nothing was evaluated
