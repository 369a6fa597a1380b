"""Issue 24 item 17: counts are shown by their sum, labelled, as integers, in every output of evaluate."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

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


# --------------------------------------------------------------------------- compare and --group-by


def cli(*args: str) -> str:
    out = subprocess.run([sys.executable, "-m", "rankmeter", *args], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0 and "Traceback" not in out.stderr, out.stderr
    return out.stdout


@pytest.fixture
def groups(tmp_path: Path) -> Path:
    g = tmp_path / "groups.txt"
    g.write_text("1 g1\n2 g2\n")
    return g


def compare(files: dict[str, Path], *args: str) -> str:
    return cli("compare", str(files["qrels"]), str(files["run"]), str(files["other"]), "-m", "num_ret,map,num_rel_ret",
               "--resamples", "200", *args)


def _cells(text: str, row: str) -> list[str]:
    line = next(line for line in text.splitlines() if line.startswith(f"│ {row}"))
    return [c.strip() for c in line.split("│")[1:-1]]


def test_compare_table_shows_sums_labelled(files: dict[str, Path]) -> None:
    """run: num_ret 2 + 1 = 3, num_rel_ret 1 + 1 = 2; other: 3 + 0 = 3 and 1 + 0 = 1 (q2 missing scores 0)."""
    text = compare(files)
    head = next(line for line in text.splitlines() if "num_ret (sum)" in line)
    assert [c.split()[0] for c in head.split("┃")[1:-1]] == ["run", "num_ret", "map", "num_rel_ret"]
    assert "num_rel_ret (sum)" in head and "map ↑" in head
    run, other = _cells(text, "run"), _cells(text, "other")
    assert run[1].split()[0] == "3" and run[3].split()[0] == "2" and other[1].split()[0] == "3"
    assert other[3].split()[0] == "1" and run[2].split()[0] == "0.7500"  # a mean beside: 4 decimals
    for cell in (run[1], run[3], other[1], other[3]):  # the sum's interval in whole counts
        assert re.fullmatch(r"\d+ \[\d+, \d+\]", cell.rstrip("▲▼ ")), cell
    # tests compare per-query means, and say so for counts
    assert "num_ret (mean)" in text and "num_rel_ret (mean)" in text and "diff = mean(b) - mean(a)" in text
    assert "Counts (num_ret, num_rel_ret) are shown by their sum" in " ".join(text.split())


@pytest.mark.parametrize("fmt", ["markdown", "latex"])
def test_compare_papers_show_sums(files: dict[str, Path], fmt: str) -> None:
    text = compare(files, "--format", fmt)
    label = "num\\_ret (sum)" if fmt == "latex" else "num_ret (sum)"
    assert label in text and "shown by their sum" in text
    if fmt == "markdown":
        row = next(line for line in text.splitlines() if line.startswith("| run (baseline)"))
        assert row.split("|")[2].strip().startswith("**3** [") and "num_ret (mean) |" in text


def test_compare_csv_and_json_give_sums(files: dict[str, Path]) -> None:
    rows = [line.split(",") for line in compare(files, "--format", "csv").splitlines()]
    sums = {(r[1], r[2]): r[5] for r in rows if r[0] == "sum"}
    assert sums == {("num_ret", "run"): "3", ("num_ret", "other"): "3", ("num_rel_ret", "run"): "2",
                    ("num_rel_ret", "other"): "1"}
    means = {(r[1], r[2]): float(r[5]) for r in rows if r[0] == "mean"}
    assert means[("num_ret", "run")] == 1.5  # the mean stays the mean
    doc = json.loads(compare(files, "--format", "json"))
    assert doc["sums"] == {"run": {"num_ret": 3, "num_rel_ret": 2}, "other": {"num_ret": 3, "num_rel_ret": 1}}
    assert doc["means"]["run"]["num_ret"] == 1.5


def test_compare_html_report_shows_sums(files: dict[str, Path], tmp_path: Path, groups: Path) -> None:
    html = tmp_path / "r.html"
    compare(files, "--html", str(html), "--k-max", "2", "--group-by", str(groups))
    text = html.read_text()
    assert "num_ret (sum) &uarr;" in text and "num_ret (mean)" in text and "sum (a count" in text


def test_group_by_tables_show_sums(files: dict[str, Path], groups: Path) -> None:
    text = evaluate(files, "--group-by", str(groups))
    per_group = text.split("Per group")[1].split("Gap between groups")[0]
    assert "num_ret (sum)" in per_group and "num_rel_ret (sum)" in per_group
    assert _cells(per_group, "g1")[2:] == ["2", "1", "1.0000"] and _cells(per_group, "g2")[2:] == ["1", "1", "0.5000"]
    gap = text.split("Gap between groups")[1]
    assert "num_ret (mean)" in gap
    assert _cells(gap, "num_ret (mean)")[3] == "1.0000"  # 2 - 1 of the means, never "1" beside "0.5000"
    doc = json.loads(evaluate(files, "--group-by", str(groups), "--format", "json"))
    assert doc["groups"]["groups"]["g1"]["sum"] == {"num_ret": 2, "num_rel_ret": 1}
    assert doc["groups"]["groups"]["g1"]["mean"]["num_ret"] == 2.0
    csv_lines = evaluate(files, "--group-by", str(groups), "--format", "csv").splitlines()
    assert csv_lines[0] == "group,size,num_ret (sum),num_rel_ret (sum),map" and csv_lines[1] == "g1,1,2,1,1.0"
    for fmt in ("markdown", "html"):
        assert "num_ret (sum)" in evaluate(files, "--group-by", str(groups), "--format", fmt)


def test_compare_group_by_shows_sums(files: dict[str, Path], groups: Path) -> None:
    text = compare(files, "--group-by", str(groups), "--format", "markdown")
    assert "| run | group | size | num_ret (sum) | map | num_rel_ret (sum) |" in text
    assert "| other | g1 | 1 | 3 | 1.0000 | 1 |" in text and "| other | g2 | 1 | 0 | 0.0000 | 0 |" in text
    assert "| other | num_ret (mean) | g1 | run |" in text  # the tests within groups: of the means


@settings(max_examples=25, deadline=None)
@given(st.lists(st.lists(st.sampled_from("abcdef"), min_size=0, max_size=6, unique=True), min_size=2, max_size=6),
       st.lists(st.lists(st.sampled_from("abcdef"), min_size=0, max_size=6, unique=True), min_size=2, max_size=6))
def test_sums_equal_the_per_query_sum(a: list[list[str]], b: list[list[str]]) -> None:
    """Comparison.sums and GroupResult.sums against the obvious reference: adding the per-query values."""
    from rankmeter.compare import compare as compare_api
    from rankmeter.compare.groups import compare_by_group

    n = min(len(a), len(b))
    qrels = {f"q{i}": ["a", "c"] for i in range(n)}
    runs = {"A": {f"q{i}": a[i] for i in range(n)}, "B": {f"q{i}": b[i] for i in range(n)}}
    cmp = compare_api(qrels, runs, ["num_ret", "num_rel_ret", "P@2"], n_resamples=20)
    assert cmp.counts == ("num_ret", "num_rel_ret")
    for r, lists in (("A", a), ("B", b)):
        assert cmp.sums[r] == {"num_ret": sum(len(x) for x in lists[:n]),
                               "num_rel_ret": sum(len(set(x) & {"a", "c"}) for x in lists[:n])}
        lo, hi = cmp.sum_interval(r, "num_ret")
        assert (lo, hi) == (cmp.intervals[r]["num_ret"][0] * n, cmp.intervals[r]["num_ret"][1] * n)
    views = compare_by_group(cmp, {f"q{i}": f"g{i % 2}" for i in range(n)})
    for r, lists in (("A", a), ("B", b)):
        for g in views[r].groups:
            want = sum(len(lists[i]) for i in range(n) if f"g{i % 2}" == g)
            assert views[r].sums[g]["num_ret"] == want


def test_run_experiment_shows_sums(tmp_path: Path) -> None:
    """30 users with 10 recommended items each: num_ret@10 sums to 300; a mean of 1 prints as 1.0000."""
    cfg = tmp_path / "exp.toml"
    cfg.write_text("[data]\ngenerate = { users = 30, items = 40, seed = 0 }\n")
    text = cli("run-experiment", str(cfg), "-m", "hit_rate@10,num_ret@10,ndcg@10", "-r", "popular", "-r", "random",
               "--out", str(tmp_path / "out"), "--no-progress")
    assert _cells(text, "num_ret@10 (sum)")[1:] == ["300", "300"]
    hit = _cells(text, "hit_rate@10")[1:]
    assert all(re.fullmatch(r"\d\.\d{4}( [▲▼])?", c) for c in hit), hit  # never "1" beside "0.9000"
    html = (tmp_path / "out" / "report.html").read_text()
    assert "num_ret@10 (sum)" in html and "300 <span" in html and "num_ret@10 (mean)" in html
    text = cli("run-experiment", str(cfg), "-m", "hit_rate@10,num_ret@10", "-r", "popular", "-r", "random",
               "--split", "kfold", "--folds", "3", "--out", str(tmp_path / "kf"), "--no-progress")
    assert "num_ret@10 (sum per split)" in text


def test_pool_bias_and_judges_label_counts_and_print_integers(files: dict[str, Path], tmp_path: Path) -> None:
    """pool-bias and judges show changes of a count's mean, labelled (mean); ranks and counts print as integers."""
    text = cli("pool-bias", str(files["qrels"]), str(files["run"]), str(files["other"]), "-m", "map,num_rel_ret",
               "--depth", "2")
    rows = [[c.strip() for c in line.split("│")[1:-1]] for line in text.splitlines() if "num_rel_ret (mean)" in line]
    row = next(r for r in rows if r[0] == "run")
    assert len(row) == 9 and all(re.fullmatch(r"\d+", c) for c in row[5:]), row  # ranks and unique items
    assert re.fullmatch(r"-?\d\.\d{4}", row[2]), row  # the mean beside them
    second = tmp_path / "second.txt"
    second.write_text("1 0 a 1\n1 0 b 1\n2 0 c 0\n2 0 d 1\n")
    text = cli("judges", str(files["qrels"]), str(second), str(files["run"]), str(files["other"]), "-m",
               "map,num_rel_ret")
    assert "num_rel_ret (mean)" in text
    confusion = text.split("Confusion")[1].split("Binary")[0]
    assert re.search(r"│ 1 +│ +\d+ │ +\d+ │", confusion), confusion  # counts of pairs: integers, not 1.0000


def test_run_experiment_groups_show_sums(tmp_path: Path) -> None:
    cfg = tmp_path / "exp.toml"
    cfg.write_text("[data]\ngenerate = { users = 30, items = 40, seed = 0 }\n")
    text = cli("run-experiment", str(cfg), "-m", "hit_rate@10,num_rel_ret@10", "-r", "popular", "-r", "random",
               "--group-by", "activity", "--out", str(tmp_path / "out"), "--no-progress", "--verbose")
    per_group = text.split("Per group")[1]
    assert "num_rel_ret@10 (sum)" in per_group and "num_rel_ret@10 (mean)" in per_group.split("Gap between")[1]
    assert "group: num_rel_ret@10 (sum)" in (tmp_path / "out" / "report.html").read_text()
