"""Depth pooling and the leave-one-run-out test of pool bias: a hand computation, and a run built to
find many relevant items no other run finds."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

import rankmeter
from rankmeter import ParameterError
from rankmeter.judges import pool, pool_bias

RUNS = {
    "x": {"q1": {"a": 3.0, "b": 2.0, "c": 1.0}, "q2": {"e": 2.0, "f": 1.0}},
    "y": {"q1": {"a": 3.0, "d": 2.0, "b": 1.0}, "q2": {"e": 1.0, "g": 1.0}},
}
QRELS = {"q1": {"a": 1, "b": 0, "c": 1, "d": 0}, "q2": {"e": 0, "f": 1, "g": 1}}


def test_pool_is_the_union_of_each_runs_first_items() -> None:
    p = pool(RUNS, depth=2)
    # y's q2 ties e and g at 1.0: the tie rule (id descending) ranks g first
    assert p.items == {"q1": {"a": ["x", "y"], "b": ["x"], "d": ["y"]}, "q2": {"e": ["x", "y"], "f": ["x"], "g": ["y"]}}
    assert p.size == 6
    assert p.to_qrels_text().splitlines()[:3] == ["q1 0 a", "q1 0 b", "q1 0 d"]
    with pytest.raises(ParameterError, match="depth"):
        pool(RUNS, depth=0)
    with pytest.raises(ParameterError):
        pool(RUNS, method="no-such-fusion")
    with pytest.raises(ParameterError, match="no fusion arguments"):
        pool(RUNS, k=60)


def test_a_fused_pool_is_the_fused_runs_first_items() -> None:
    from rankmeter.fusion import fuse

    for method in ("rrf", "sum", "mnz"):
        p = pool(RUNS, depth=2, method=method)
        fused = fuse(RUNS, method).to_lists()
        for q, ranked in fused.items():
            assert set(p.items[q]) == set(ranked[:2])
            for d, rs in p.items[q].items():
                assert rs == [n for n in RUNS if d in RUNS[n].get(q, {})]


def test_leave_one_run_out_by_hand() -> None:
    res = pool_bias(QRELS, RUNS, ["P@2"], depth=2)
    by = res.by_run.set_index("run")
    # x pooled b (q1) and f (q2) alone; f is relevant. Without it, x's P@2 on q2 drops from 1/2 to 0.
    # full: x = mean(P@2 q1 = 1/2 (a), q2 = 1/2 (f)) = 0.5; reduced: (1/2 + 0) / 2 = 0.25
    assert by.loc["x", "full"] == pytest.approx(0.5) and by.loc["x", "reduced"] == pytest.approx(0.25)
    assert by.loc["x", "unique"] == 2 and by.loc["x", "unique_relevant"] == 1
    # y pooled d (q1) and g (q2) alone; g is relevant: y full = (1/2 + 1/2)/2, reduced = (1/2 + 0)/2
    assert by.loc["y", "full"] == pytest.approx(0.5) and by.loc["y", "reduced"] == pytest.approx(0.25)
    assert by.loc["y", "rank_full"] == 1 and by.loc["y", "rank_reduced"] == 2
    direct = rankmeter.evaluate({"q1": {"a": 1, "c": 1, "b": 0}, "q2": {"e": 0, "g": 1}}, RUNS["x"], ["P@2"],
                                queries=["q1", "q2"])
    assert by.loc["x", "reduced"] == pytest.approx(direct.mean["P@2"])
    assert res.summary.loc["P@2", "max_rank_drop"] == 1


def test_a_run_with_many_unique_relevant_items_is_penalised() -> None:
    qrels: dict[str, dict[str, int]] = {}
    runs: dict[str, dict[str, dict[str, float]]] = {"common1": {}, "common2": {}, "explorer": {}}
    for q in range(10):
        shared = {f"s{i}": 1 if i < 3 else 0 for i in range(10)}
        unique = {f"u{i}": 1 for i in range(5)}  # relevant items only the explorer finds
        qrels[f"q{q}"] = {**shared, **unique}
        for name in ("common1", "common2"):
            runs[name][f"q{q}"] = {d: float(10 - i) for i, d in enumerate(shared)}
        runs["explorer"][f"q{q}"] = {**{d: float(20 - i) for i, d in enumerate(unique)},
                                     **{d: float(10 - i) for i, d in enumerate(shared)}}
    res = pool_bias(qrels, runs, ["P@10", "map"], depth=10).by_run.set_index(["run", "metric"])
    assert res.loc[("explorer", "P@10"), "change"] == pytest.approx(-0.5)  # 8 of 10 relevant -> 3 of 10
    assert res.loc[("explorer", "P@10"), "unique_relevant"] == 50
    assert res.loc[("common1", "P@10"), "change"] == 0.0  # pooled nothing alone
    assert res.loc[("explorer", "map"), "rank_full"] == 1


def _write(tmp: Path) -> list[Path]:
    (tmp / "qrels").write_text("".join(f"{q} 0 {d} {g}\n" for q, it in QRELS.items() for d, g in it.items()))
    out = [tmp / "qrels"]
    for name, run in RUNS.items():
        (tmp / f"{name}.run").write_text("".join(f"{q} Q0 {d} 0 {s} {name}\n" for q, it in run.items()
                                                 for d, s in it.items()))
        out.append(tmp / f"{name}.run")
    return out


def _cli(*args: object) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "rankmeter", *map(str, args)], capture_output=True, text=True,
                          timeout=120)


def test_cli(tmp_path: Path) -> None:
    qrels, x, y = _write(tmp_path)
    out = _cli("pool", x, y, "--depth", "2")
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines() == ["q1 0 a", "q1 0 b", "q1 0 d", "q2 0 e", "q2 0 f", "q2 0 g"]
    out = _cli("pool", x, y, "--depth", "2", "--format", "csv")
    assert out.returncode == 0 and "q1,a,2,x;y" in out.stdout
    out = _cli("pool-bias", qrels, x, y, "-m", "P@2", "--depth", "2", "--format", "json")
    assert out.returncode == 0, out.stderr
    doc = json.loads(out.stdout)
    assert {r["run"]: r["reduced"] for r in doc["by_run"]} == {"x": 0.25, "y": 0.25}
    out = _cli("pool-bias", qrels, x, "-m", "P@2")
    assert out.returncode == 2 and "Traceback" not in out.stderr


def test_an_id_with_a_blank_cannot_be_a_qrels_field() -> None:
    p = pool({"x": {"q 1": ["a\tb", "c"]}}, depth=2)
    with pytest.raises(rankmeter.InputError, match="cannot be written as a TREC qrels field"):
        p.to_qrels_text()
    assert p.rows()[0][:2] == ("q 1", "a\tb")  # the CSV form keeps them
