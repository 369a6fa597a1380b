"""Per-query agreement of two runs: the API (compare.overlap) and the `rankmeter overlap` command."""

from __future__ import annotations

import csv
import io
import json
import math
import subprocess
import sys

import numpy as np
import pytest

from rankmeter import MetricNameError, ParameterError
from rankmeter.compare.overlap import overlap_runs, parse_overlap_measure
from rankmeter.metrics import kendall_tau_rankings, rbo, tau_ap

A = {"q1": {"d1": 3.0, "d2": 2.0, "d3": 1.0, "d7": 0.5}, "q2": {"d4": 1.0, "d5": 1.0}, "q4": {"d1": 1.0}}
B = {"q1": {"d2": 3.0, "d1": 2.0, "d3": 1.0, "d8": 0.1}, "q2": {"d5": 1.0, "d4": 0.5}, "q3": {"d9": 1.0},
     "q4": {"d1": 1.0}}


def write_run(path, run, tag):
    with open(path, "w") as f:
        for q, items in run.items():
            for r, (d, s) in enumerate(sorted(items.items(), key=lambda x: -x[1]), 1):
                f.write(f"{q} Q0 {d} {r} {s} {tag}\n")


def test_per_query_values_equal_the_functions():
    res = overlap_runs(A, B, ["rbo(p=0.8)", "rbo_res(p=0.8)", "tau_ap", "kendall", "rbo(p=0.8)@2"])
    assert res.queries == ["q1", "q2", "q4"]
    i = res.queries.index("q1")
    la, lb = ["d1", "d2", "d3", "d7"], ["d2", "d1", "d3", "d8"]
    assert res.values["rbo(p=0.8)"][i] == rbo(la, lb, p=0.8).ext
    assert res.values["rbo_res(p=0.8)"][i] == rbo(la, lb, p=0.8).res
    assert res.values["rbo(p=0.8)@2"][i] == rbo(la[:2], lb[:2], p=0.8).ext
    # tau_AP and Kendall on the common items, each list in its own order
    assert res.values["tau_ap"][i] == tau_ap(["d1", "d2", "d3"], ["d2", "d1", "d3"])
    assert res.values["kendall"][i] == pytest.approx(kendall_tau_rankings(["d1", "d2", "d3"], ["d2", "d1", "d3"]))
    assert res.common.tolist() == [3, 2, 1]
    # q4 has a single common item: tau_AP undefined, counted, left out of the mean
    assert math.isnan(res.values["tau_ap"][2]) and res.defined("tau_ap") == 2
    assert res.mean["tau_ap"] == pytest.approx(np.nanmean(res.values["tau_ap"]))
    assert any("tau_ap: undefined on 1 query" in n for n in res.notes)
    assert res.only_b == ["q3"] and any("only in run B (q3)" in n for n in res.notes)


def test_ties_option_reads_equal_scores_as_ties():
    res = overlap_runs(A, B, ["rbo(p=0.9)", "rbo(p=0.9, ties=a)"])
    i = res.queries.index("q2")
    # tie rule: d5 before d4 in A (item id descending), as in B
    assert res.values["rbo(p=0.9)"][i] == pytest.approx(1.0)
    assert res.values["rbo(p=0.9, ties=a)"][i] == rbo([("d4", "d5")], ["d5", "d4"], p=0.9, ties="a").ext < 1


@pytest.mark.parametrize("text,err,match", [
    ("rbx", MetricNameError, "unknown agreement measure"),
    ("rbo(q=1)", ParameterError, "rbo has no parameter 'q'"),
    ("rbo(p=1)", ParameterError, "'p' parameter of rbo"),
    ("rbo(ties=z)", ParameterError, "'ties' parameter of rbo"),
    ("tau_ap(symmetric=maybe)", ParameterError, "'symmetric' parameter of tau_ap"),
    ("rbo@0", ParameterError, "'k' parameter of rbo"),
])
def test_measure_errors(text, err, match):
    with pytest.raises(err, match=match):
        parse_overlap_measure(text)


def test_parse_defaults():
    m = parse_overlap_measure("rbo@10")
    assert m.params == {"p": 0.9} and m.k == 10


# ------------------------------------------------------------------ the command, in a subprocess


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    d = tmp_path_factory.mktemp("ov")
    write_run(d / "a.run", A, "a")
    write_run(d / "b.run", B, "b")
    return d


def cli(*args, cwd=None):
    return subprocess.run([sys.executable, "-m", "rankmeter", "overlap", *map(str, args)], capture_output=True,
                          text=True, cwd=cwd)


def test_cli_json_matches_api(runs):
    p = cli(runs / "a.run", runs / "b.run", "-m", "rbo(p=0.8),tau_ap", "-m", "rbo(p=0.8, ties=a)",
            "--format", "json", "--per-query")
    assert p.returncode == 0, p.stderr
    out = json.loads(p.stdout)
    api = overlap_runs(A, B, ["rbo(p=0.8)", "tau_ap", "rbo(p=0.8, ties=a)"])
    assert out["mean"]["rbo(p=0.8)"] == pytest.approx(api.mean["rbo(p=0.8)"], abs=1e-15)
    assert out["per_query"]["q4"]["tau_ap"] is None and out["defined"]["tau_ap"] == 2
    assert out["only_b"] == 1 and "1 query only in b (q3)" in p.stderr


def test_cli_csv_and_table(runs):
    p = cli(runs / "a.run", runs / "b.run", "-m", "rbo", "--format", "csv", "--per-query")
    rows = list(csv.reader(io.StringIO(p.stdout)))
    assert rows[0] == ["query", "rbo", "common"] and rows[-1][0] == "all"
    t = cli(runs / "a.run", runs / "b.run", "-m", "rbo", "-m", "tau_ap")
    assert t.returncode == 0 and "tau_ap" in t.stdout and "3 queries in both runs" in t.stdout


def test_cli_errors_are_one_line(runs):
    p = cli(runs / "a.run", runs / "b.run", "-m", "rbo(p=1.5)")
    assert p.returncode == 2 and p.stderr.strip().count("\n") == 0 and "Traceback" not in p.stderr
    assert "'p' parameter of rbo" in p.stderr
    q = cli(runs / "a.run", runs / "missing.run", "-m", "rbo")
    assert q.returncode == 2 and "Traceback" not in q.stderr


def test_cli_listed_in_help():
    p = subprocess.run([sys.executable, "-m", "rankmeter", "--help"], capture_output=True, text=True)
    assert "overlap" in p.stdout
