"""explain_diff: b - a per query split into one part per convention switch, adding up exactly."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rankmeter
from rankmeter._errors import ParameterError

from ..strategies import qrels_and_run

PAIRS = [
    ("ndcg@5", "sklearn:ndcg@5"),
    ("ndcg@10", "rectools:ndcg@3"),
    ("ap@10", "rectools:map_divide_by_k@5"),
    ("ap", "implicit:map@3"),
    ("p@5", "implicit:precision@3"),
    ("ndcg(gain=exp)@5", "cornac:ncrr@10"),
    ("rbp(p=0.5)", "ranx:rbp(p=0.8)"),
    ("rr@3", "torchmetrics:mrr@5"),
]


@settings(max_examples=40, deadline=None)
@given(data=qrels_and_run(), pair=st.sampled_from(PAIRS), ties=st.sampled_from(["id", "average", "pessimistic"]))
def test_parts_add_up_to_the_difference(data, pair, ties) -> None:
    qrels, run = data
    a, b = pair
    d = rankmeter.explain_diff(qrels, run, a, b, ties=ties)
    frame = d.by_query
    want_a = rankmeter.evaluate(qrels, run, a, ties=ties if parse_ties(a) is None else "id")
    want_b = rankmeter.evaluate(qrels, run, b, ties=ties if parse_ties(b) is None else "id")
    assert list(frame.index) == list(want_a.queries)
    np.testing.assert_array_equal(frame["a"].to_numpy(), want_a.values[a])
    np.testing.assert_array_equal(frame["b"].to_numpy(), want_b.values[b])
    parts = frame.drop(columns=["a", "b", "total"])
    assert list(parts.columns) == [r for r, _ in d.steps]
    np.testing.assert_allclose(parts.sum(axis=1).to_numpy(), frame["total"].to_numpy(), rtol=0, atol=1e-12)
    np.testing.assert_allclose(d.reasons.to_numpy(), parts.mean().to_numpy(), rtol=0, atol=0)


def parse_ties(text: str) -> str | None:
    return rankmeter.parse_metric(text).ties


def test_reasons_are_named_and_ordered() -> None:
    qrels = {"q1": {"a": 1, "b": 0, "c": 2, "d": 1}, "q2": {"x": 1, "y": 1}}
    run = {"q1": {"a": 1.0, "b": 1.0, "c": 1.0, "d": 0.5, "e": 1.0}, "q2": {"x": 1.0, "z": 1.0, "y": 0.5}}
    d = rankmeter.explain_diff(qrels, run, "ap@3", "rectools:map_divide_by_k@2")
    assert [r for r, _ in d.steps] == ["cutoff: 3 -> 2", "norm: relevant -> k"]
    assert [m for _, m in d.steps] == ["ap@2", "ap(norm=k)@2"]
    d = rankmeter.explain_diff(qrels, run, "ndcg@2", "sklearn:ndcg@2")
    assert [r for r, _ in d.steps] == ["ties: id -> average"]
    assert "sklearn:ndcg@2 - ndcg@2 over 2 queries" in str(d)
    same = rankmeter.explain_diff(qrels, run, "ndcg@2", "ndcg_cut_2")
    assert list(same.by_query.columns) == ["a", "b", "total"] and (same.by_query["total"] == 0).all()
    with pytest.raises(ParameterError, match="two specifications of one metric"):
        rankmeter.explain_diff(qrels, run, "ndcg@2", "ap@2")


def test_cli(tmp_path: Path) -> None:
    q, r = tmp_path / "qrels.txt", tmp_path / "run.txt"
    q.write_text("q1 0 a 1\nq1 0 b 0\nq1 0 c 2\nq1 0 d 1\nq2 0 x 1\n")
    r.write_text("q1 Q0 a 1 1.0 s\nq1 Q0 b 2 1.0 s\nq1 Q0 c 3 1.0 s\nq1 Q0 d 4 0.5 s\nq1 Q0 e 5 1.0 s\n"
                 "q2 Q0 x 1 2 s\nq2 Q0 y 2 2 s\n")
    out = subprocess.run([sys.executable, "-m", "rankmeter", "explain-diff", str(q), str(r), "-a", "ndcg@2", "-b",
                          "sklearn:ndcg@2", "--format", "json", "--per-query"], capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 0, out.stderr
    payload = json.loads(out.stdout)
    assert payload["steps"] == [{"reason": "ties: id -> average", "metric": "ndcg@2 with ties=average"}]
    for row in payload["per_query"].values():
        assert abs(row["b"] - row["a"] - row["ties: id -> average"]) <= 1e-12
    bad = subprocess.run([sys.executable, "-m", "rankmeter", "explain-diff", str(q), str(r), "-a", "ndcg@2", "-b",
                          "ap@2"], capture_output=True, text=True, timeout=120)
    assert bad.returncode == 2 and "Traceback" not in bad.stderr and bad.stderr.strip().count("\n") == 0
