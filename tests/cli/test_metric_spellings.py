"""Issue 24 item 16: two spellings of one metric are computed once and each is printed under its own key."""

from __future__ import annotations

import dataclasses
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import rankmeter
from rankmeter.metrics.registry import parse_metric, parse_metric_list


@pytest.fixture
def files(tmp_path: Path) -> dict[str, Path]:
    q = tmp_path / "qrels.txt"
    q.write_text("1 0 a 1\n1 0 b 0\n2 0 c 1\n")
    r = tmp_path / "run.txt"
    r.write_text("1 Q0 a 1 1.0 r\n1 Q0 b 2 0.5 r\n2 Q0 b 1 2.0 r\n2 Q0 c 2 1.0 r\n")
    return {"qrels": q, "run": r}


def run_cli(*args: str) -> subprocess.CompletedProcess[str]:
    out = subprocess.run([sys.executable, "-m", "rankmeter", *args], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert "internal error" not in out.stderr and "Traceback" not in out.stderr
    return out


def test_json_keys_each_spelling(files: dict[str, Path]) -> None:
    out = run_cli("evaluate", str(files["qrels"]), str(files["run"]), "-m", "hit_rate@10", "-m", "success@10",
                  "-m", "P_1,P@1", "-m", "hit_rate@10", "--format", "json", "-q")
    doc = json.loads(out.stdout)
    assert list(doc["mean"]) == ["hit_rate@10", "success@10", "P_1", "P@1"]
    assert doc["mean"]["hit_rate@10"] == doc["mean"]["success@10"] == 1.0
    assert doc["mean"]["P_1"] == doc["mean"]["P@1"] == 0.5
    assert "metric 'success@10' is the same as 'hit_rate@10' (success@10): computed once, shown under both names" \
        in out.stderr
    assert "metric 'hit_rate@10' given twice: evaluated once" in out.stderr


def test_csv_and_table_columns(files: dict[str, Path]) -> None:
    out = run_cli("evaluate", str(files["qrels"]), str(files["run"]), "-m", "hit_rate@10,success@10", "-q",
                  "--format", "csv")
    assert out.stdout.splitlines()[0] == "query,hit_rate@10,success@10"
    out = run_cli("evaluate", str(files["qrels"]), str(files["run"]), "-m", "hit_rate@10,success@10")
    assert "hit_rate@10" in out.stdout and "success@10" in out.stdout


def test_trec_format_prints_trec_eval_name_once(files: dict[str, Path]) -> None:
    out = run_cli("evaluate", str(files["qrels"]), str(files["run"]), "-m", "hit_rate@10,success@10", "--format",
                  "trec")
    assert [line.split()[0] for line in out.stdout.splitlines()] == ["success_10"]


def test_parse_metric_list_keeps_spellings_only_when_asked() -> None:
    assert [m.text for m in parse_metric_list(["hit_rate@10", "success@10"]).metrics] == ["hit_rate@10"]
    kept = parse_metric_list(["hit_rate@10", "success@10", "success@10"], spellings=True)
    assert [m.text for m in kept.metrics] == ["hit_rate@10", "success@10"]


def test_one_canonical_metric_is_computed_once() -> None:
    calls: list[int] = []
    base = parse_metric("success@10")

    def counting(*args: Any, **kwargs: Any) -> Any:
        calls.append(1)
        return base.spec.kernel(*args, **kwargs)

    spec = dataclasses.replace(base.spec, kernel=counting)
    a = dataclasses.replace(parse_metric("hit_rate@10"), spec=spec)
    b = dataclasses.replace(base, spec=spec)
    res = rankmeter.evaluate({"q": {"a": 1}, "p": {"b": 1}}, {"q": {"a": 1.0}, "p": {"c": 1.0}}, [a, b])
    assert calls == [1]
    assert np.asarray(res.values["hit_rate@10"]).tolist() == np.asarray(res.values["success@10"]).tolist()
