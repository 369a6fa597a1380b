"""``rankmeter compare``: formats, NAME=PATH, JSON shape, errors, HTML."""

from __future__ import annotations

import csv
import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import rankmeter
from rankmeter.cli._app import main
from rankmeter.compare import compare

from .conftest import make_data


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    d = tmp_path_factory.mktemp("cmp")
    qrels, runs = make_data(n_queries=25, seed=4)
    with open(d / "qrels.txt", "w") as f:
        for q, judged in qrels.items():
            for doc, g in judged.items():
                f.write(f"{q} 0 {doc} {g}\n")
    paths = {}
    for name, run in runs.items():
        p = d / f"{name}.run.txt"
        with open(p, "w") as f:
            for q, scored in run.items():
                if name == "sys2" and q == "q000":
                    continue  # one query missing from one run
                for rank, (doc, s) in enumerate(sorted(scored.items(), key=lambda x: -x[1])):
                    f.write(f"{q} Q0 {doc} {rank + 1} {s:.6f} {name}\n")
        paths[name] = p
    return d, paths, qrels, runs


def run_cli(argv, capsys):
    code = 0
    try:
        main(["compare", *argv])
    except SystemExit as exc:
        code = exc.code or 0
    out = capsys.readouterr()
    return code, out.out, out.err


def test_json_shape_and_values(files, capsys):
    d, paths, qrels, runs = files
    code, out, err = run_cli([str(d / "qrels.txt"), str(paths["sys0"]), f"best={paths['sys1']}", str(paths["sys2"]),
                              "-m", "ndcg@10", "-m", "P@5,ap", "--format", "json", "--test", "randomization",
                              "--resamples", "500", "--pairs", "all"], capsys)
    assert code == 0, err
    j = json.loads(out)
    assert set(j) == {"queries", "means", "intervals", "tests", "rankmeter", "provenance"}
    assert list(j["means"]) == ["sys0.run", "best", "sys2.run"]  # file name without extension; NAME=PATH
    assert j["queries"] == 25
    keys = {"metric", "a", "b", "test", "statistic", "p_value", "p_adjusted", "correction", "diff", "diff_interval"}
    assert len(j["tests"]) == 3 * 3 and all(set(t) == keys for t in j["tests"])
    assert {t["test"] for t in j["tests"]} == {"randomization"} and {t["correction"] for t in j["tests"]} == {"holm"}
    ref = rankmeter.evaluate(str(d / "qrels.txt"), str(paths["sys1"]), ["ndcg@10"])
    assert j["means"]["best"]["ndcg@10"] == ref.mean["ndcg@10"]
    assert "sys2.run" in err and "1 of the 25 queries has no ranking" in err  # notes on stderr


def test_same_as_library(files, capsys):
    d, paths, qrels, _ = files
    code, out, _ = run_cli([str(d / "qrels.txt"), f"a={paths['sys0']}", f"b={paths['sys1']}", "-m", "P@5",
                            "--format", "json", "--test", "wilcoxon", "--correction", "bh", "--seed", "5",
                            "--resamples", "300", "--details"], capsys)
    assert code == 0
    j = json.loads(out)
    lib = compare(str(d / "qrels.txt"), {"a": str(paths["sys0"]), "b": str(paths["sys1"])},
                                    ["P@5"], test="wilcoxon", correction="bh", seed=5, n_resamples=300)
    expected = json.loads(lib.to_json(details=True))
    for doc in (j, expected):  # the record's date is the second each ran in
        doc["provenance"].pop("date")
    assert j == expected


@pytest.mark.parametrize("fmt, marker", [("table", "Means and 95% bootstrap intervals"),
                                         ("markdown", "| run |"), ("latex", r"\toprule"), ("csv", "kind,metric")])
def test_formats(files, capsys, fmt, marker):
    d, paths, _, _ = files
    code, out, err = run_cli([str(d / "qrels.txt"), str(paths["sys0"]), str(paths["sys1"]), "-m", "ndcg@10",
                              "--format", fmt, "--resamples", "200"], capsys)
    assert code == 0, err
    assert marker in out
    if fmt == "csv":
        rows = list(csv.DictReader(io.StringIO(out)))
        assert len(rows) == 2 + 1


def test_html_option(files, capsys, tmp_path):
    pytest.importorskip("matplotlib")
    d, paths, _, _ = files
    html = tmp_path / "r.html"
    code, out, err = run_cli([str(d / "qrels.txt"), str(paths["sys0"]), str(paths["sys1"]), "-m", "P@5",
                              "--resamples", "200", "--html", str(html), "--k-max", "10", "--format", "json"],
                             capsys)
    assert code == 0, err
    text = html.read_text()
    assert "<img" in text and "https://" not in text and "http://" not in text
    assert f"wrote {html}" in err


def test_progress_flag_writes_to_stderr_only(files, capsys):
    d, paths, _, _ = files
    code, out, err = run_cli([str(d / "qrels.txt"), str(paths["sys0"]), str(paths["sys1"]), "-m", "P@5",
                              "--resamples", "300", "--test", "randomization", "--format", "json", "--progress"],
                             capsys)
    assert code == 0
    json.loads(out)  # stdout stays machine-readable
    assert "bootstrap" in err and "randomisation test" in err


@pytest.mark.parametrize("args, message", [
    (["--baseline", "zz"], "baseline"),
    (["--alpha", "2"], "alpha"),
    (["-m", "ndcg@0"], "'k' parameter"),
    (["-m", "nosuchmetric"], "unknown metric"),
])
def test_errors_exit_2_one_line(files, capsys, args, message):
    d, paths, _, _ = files
    argv = [str(d / "qrels.txt"), str(paths["sys0"]), str(paths["sys1"])]
    if "-m" not in args:
        argv += ["-m", "P@5"]
    code, out, err = run_cli(argv + args, capsys)
    assert code == 2
    assert err.count("\n") == 1 and err.startswith("rankmeter: error:") and message in err


def test_missing_file_and_duplicate_names(files, capsys):
    d, paths, _, _ = files
    code, _, err = run_cli([str(d / "qrels.txt"), str(paths["sys0"]), str(d / "nope.txt"), "-m", "P@5"], capsys)
    assert code == 2 and "no such file" in err
    code, _, err = run_cli([str(d / "qrels.txt"), f"x={paths['sys0']}", f"x={paths['sys1']}", "-m", "P@5"], capsys)
    assert code == 2 and "NAME=PATH" in err
    code, _, err = run_cli([str(d / "qrels.txt"), str(paths["sys0"]), "-m", "P@5"], capsys)
    assert code == 2 and "at least 2 runs" in err


def test_entry_point_subprocess(files):
    d, paths, _, _ = files
    exe = Path(sys.executable).parent / "rankmeter"
    if not exe.exists():
        pytest.skip("console script not installed")
    proc = subprocess.run([str(exe), "compare", str(d / "qrels.txt"), str(paths["sys0"]), str(paths["sys1"]),
                           "-m", "P@5", "--format", "json", "--resamples", "100"],
                          capture_output=True, text=True, timeout=120, env={**os.environ, "COLUMNS": "120"})
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["queries"] == 25
