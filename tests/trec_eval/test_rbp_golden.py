"""trec_eval's rbp and rbp_resid (registry: trec_rbp) against trec_eval 10.0's outputs, graded and binary."""

from __future__ import annotations

import pytest

import rankmeter

from ..conftest import shared_file


def _golden(name: str, measure: str) -> dict[str, float]:
    out = {}
    for line in shared_file("data", "trec_eval", name).read_text().splitlines():
        m, q, v = line.split("\t")
        if m.strip() == measure and q != "all":
            out[q] = float(v)
    return out


@pytest.mark.parametrize("golden,qrels", [("out.test.aq", "qrels.test"), ("out.test.aql", "qrels.rel_level")])
def test_trec_rbp_equals_trec_eval(golden: str, qrels: str) -> None:
    q = shared_file("data", "trec_eval", qrels)
    r = shared_file("data", "trec_eval", "results.test")
    res = rankmeter.evaluate(q, r, ["trec_rbp", "trec_rbp(residual=true)"], queries="run")
    for metric, measure in (("trec_rbp", "rbp"), ("trec_rbp(residual=true)", "rbp_resid")):
        want = _golden(golden, measure)
        got = dict(zip(res.queries, res.values[metric].tolist()))
        assert set(want) <= set(got)
        for query, v in want.items():
            assert abs(got[query] - v) <= 0.5e-4 + 1e-12, f"{measure} {query}: {got[query]} vs {v}"


def test_residual_is_zero_without_unjudged_items() -> None:
    qrels = {"q": {"a": 2, "b": 0, "c": 1}}
    res = rankmeter.evaluate(qrels, {"q": ["a", "b", "c"]}, ["trec_rbp(residual=true)", "trec_rbp"])
    assert res.values["trec_rbp(residual=true)"][0] == 0.0
    assert res.values["trec_rbp"][0] == pytest.approx(0.1 * (1.0 + 0.81 * 0.5))
