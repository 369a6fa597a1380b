"""Runs under two judges (means equal evaluate's, orderings, flips) and the `rankmeter judges` command."""

from __future__ import annotations

import csv
import io
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import rankmeter
from rankmeter import ParameterError
from rankmeter.judges import compare_judges

RNG = np.random.default_rng(7)


def _data() -> tuple[dict, dict, dict]:
    """12 queries x 30 items; judge b flips a fifth of judge a's binary grades; three runs of growing skill."""
    a: dict[str, dict[str, int]] = {}
    b: dict[str, dict[str, int]] = {}
    runs: dict[str, dict[str, dict[str, float]]] = {"weak": {}, "mid": {}, "good": {}}
    for q in range(12):
        qa, qb = {}, {}
        for d in range(30):
            g = int(RNG.random() < 0.3)
            qa[f"d{d}"] = g
            qb[f"d{d}"] = 1 - g if RNG.random() < 0.2 else g
        a[f"q{q}"], b[f"q{q}"] = qa, qb
        for skill, name in ((0.0, "weak"), (1.0, "mid"), (3.0, "good")):
            runs[name][f"q{q}"] = {d: float(skill * g + RNG.random()) for d, g in qa.items()}
    return a, b, runs


def test_means_equal_evaluate_under_each_judge_and_orderings() -> None:
    a, b, runs = _data()
    jc = compare_judges(a, b, runs, ["ndcg@10", "P@5"], names=("human", "llm"))
    for name, run in runs.items():
        ea, eb = rankmeter.evaluate(a, run, ["ndcg@10", "P@5"]), rankmeter.evaluate(b, run, ["ndcg@10", "P@5"])
        for m in ("ndcg@10", "P@5"):
            assert jc.means[m][name] == (pytest.approx(ea.mean[m], abs=1e-12), pytest.approx(eb.mean[m], abs=1e-12))
    # the runs were built on judge a: their order there is weak < mid < good
    swaps = {r: (i, j) for r, i, j in jc.swaps["ndcg@10"]}
    assert swaps["good"][0] == 1 and swaps["weak"][0] == 3
    assert -1.0 <= jc.tau["ndcg@10"] <= 1.0
    assert jc.decisions == 2 * 3  # 3 pairs x 2 metrics, one test
    d = jc.to_dict()
    assert d["judges"] == ["human", "llm"] and set(d["metrics"]) == {"ndcg@10", "P@5"}


def test_a_flip_is_found() -> None:
    # judge b reverses every judgment: what was significantly better becomes significantly worse
    a, _, runs = _data()
    b = {q: {d: 1 - g for d, g in items.items()} for q, items in a.items()}
    jc = compare_judges(a, b, {"weak": runs["weak"], "good": runs["good"]}, ["P@5"])
    assert jc.tau["P@5"] == -1.0
    assert len(jc.flips) == 1
    f = jc.flips[0]
    assert {f.better_first, f.better_second} == {"good", "weak"}


def test_compare_judges_refuses_pairs_and_one_run() -> None:
    a, b, runs = _data()
    with pytest.raises(ParameterError, match="pairs"):
        compare_judges(a, b, runs, ["P@5"], pairs="baseline")
    with pytest.raises(ParameterError, match="two different names"):
        compare_judges(a, b, runs, ["P@5"], names=("x", "x"))


def _write(tmp: Path) -> tuple[Path, Path, list[Path]]:
    a, b, runs = _data()
    pa_, pb = tmp / "human.qrels", tmp / "llm.qrels"
    pa_.write_text("".join(f"{q} 0 {d} {g}\n" for q, it in a.items() for d, g in it.items()))
    pb.write_text("".join(f"{q} 0 {d} {g}\n" for q, it in b.items() for d, g in it.items()))
    paths = []
    for name, run in runs.items():
        p = tmp / f"{name}.run"
        p.write_text("".join(f"{q} Q0 {d} 0 {s!r} {name}\n" for q, it in run.items() for d, s in it.items()))
        paths.append(p)
    return pa_, pb, paths


def _cli(*args: object) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "rankmeter", "judges", *map(str, args)], capture_output=True,
                          text=True, timeout=120)


def test_cli_formats(tmp_path: Path) -> None:
    a, b, runs = _write(tmp_path)
    out = _cli(a, b, *runs, "-m", "ndcg@10", "--format", "json")
    assert out.returncode == 0, out.stderr
    doc = json.loads(out.stdout)
    assert doc["agreement"]["judges"] == ["human", "llm"]
    assert set(doc["runs"]["metrics"]["ndcg@10"]["means"]) == {"weak", "mid", "good"}
    out = _cli(a, b, *runs, "--format", "csv")
    assert out.returncode == 0, out.stderr
    rows = list(csv.reader(io.StringIO(out.stdout)))
    assert rows[0] == ["section", "key", "column", "value"]
    assert any(r[0] == "Runs under both judges" and r[1] == "ndcg@10 / good" for r in rows)
    out = _cli(a, b, "--format", "markdown")
    assert out.returncode == 0 and "| kappa |" in out.stdout and "**Agreement**" in out.stdout
    out = _cli(a, b, "--names", "x,y")
    assert out.returncode == 0 and "kappa" in out.stdout


def test_cli_errors_exit_2(tmp_path: Path) -> None:
    a, b, runs = _write(tmp_path)
    for args in ([a, b, runs[0]], [a, b, "-m", "ndcg@10"], [a, b, "--names", "x"], [a, tmp_path / "missing"]):
        out = _cli(*args)
        assert out.returncode == 2, (args, out.stderr)
        assert "Traceback" not in out.stderr and "internal error" not in out.stderr
