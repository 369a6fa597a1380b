"""rankmeter.ir_measures.Provider gives ir_measures' own numbers (its default pipeline: pytrec_eval and the
others) on the measures both support, per query and aggregated, ties included; register() puts it first."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

ir_measures = pytest.importorskip("ir_measures")
pytest.importorskip("pytrec_eval")

import rankmeter  # noqa: E402
from rankmeter.ir_measures import Provider, register, unregister  # noqa: E402

M = ir_measures
MEASURES = [M.P @ 5, M.P(rel=2) @ 3, M.RR, M.RR(rel=2), M.AP, M.AP @ 10, M.nDCG, M.nDCG @ 5, M.R @ 10, M.Rprec,
            M.Bpref, M.Success @ 3]


def _data(seed: int, ties: bool) -> tuple[list[Any], list[Any]]:
    rng = np.random.default_rng(seed)
    qrels = [M.Qrel(f"q{q}", f"d{d}", int(rng.integers(0, 3))) for q in range(8)
             for d in rng.choice(30, int(rng.integers(1, 10)), replace=False)]
    run = [M.ScoredDoc(f"q{q}", f"d{d}", float(rng.integers(0, 4) if ties else rng.random()))
           for q in range(1, 10) for d in rng.choice(30, int(rng.integers(1, 15)), replace=False)]
    return qrels, run


@pytest.mark.slow
@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), ties=st.booleans())
def test_equals_ir_measures_default_pipeline(seed: int, ties: bool) -> None:
    _check_equal(seed, ties)


@pytest.mark.parametrize("seed, ties", [(1, True), (2, False)])
def test_equals_ir_measures_on_fixed_cases(seed: int, ties: bool) -> None:
    _check_equal(seed, ties)


def _check_equal(seed: int, ties: bool) -> None:
    qrels, run = _data(seed, ties)
    ours = Provider().calc_aggregate(MEASURES, qrels, run)
    theirs = M.calc_aggregate(MEASURES, qrels, run)
    assert set(ours) == set(theirs)
    for m in MEASURES:
        assert ours[m] == pytest.approx(theirs[m], abs=1e-9), str(m)
    per_ours = {(x.query_id, str(x.measure)): x.value for x in Provider().iter_calc(MEASURES, qrels, run)}
    per_theirs = {(x.query_id, str(x.measure)): x.value for x in M.iter_calc(MEASURES, qrels, run)}
    assert per_ours.keys() == per_theirs.keys()
    for key, v in per_theirs.items():
        assert per_ours[key] == pytest.approx(v, abs=1e-9), key


def test_equals_rankmeter_evaluate() -> None:
    qrels, run = _data(7, True)
    names = [str(m) for m in MEASURES]
    res = rankmeter.evaluate(
        _as_dict(qrels), {q: {d: s for (qq, d, s) in run if qq == q} for q in {r.query_id for r in run}}, names,
        queries="qrels")
    agg = Provider().calc_aggregate(MEASURES, qrels, run)
    for m in MEASURES:
        assert agg[m] == pytest.approx(res.mean[str(m)], abs=1e-12)


def _as_dict(qrels: list[Any]) -> dict[str, dict[str, int]]:
    out: dict[str, dict[str, int]] = {}
    for q in qrels:
        out.setdefault(q.query_id, {})[q.doc_id] = q.relevance
    return out


def test_supports_only_what_it_computes_as_ir_measures() -> None:
    p = Provider()
    assert all(p.supports(m) for m in MEASURES)
    assert not p.supports(M.nDCG(dcg="exp-log2") @ 10) and not p.supports(M.ERR @ 10)
    # ir_measures' Judged orders tied scores by docno ascending (trec_eval's rule is descending): left to it
    assert not p.supports(M.Judged @ 5)


def test_register_puts_it_first_and_unregister_takes_it_out() -> None:
    qrels, run = _data(3, True)
    before = M.calc_aggregate(MEASURES, qrels, run)
    try:
        provider = register()
        assert register() is provider and M.DefaultPipeline.providers[0] is provider
        calls: list[int] = []
        original = provider._evaluator

        def counting(measures: Any, q: Any) -> Any:
            calls.append(1)
            return original(measures, q)

        provider._evaluator = counting
        after = M.calc_aggregate(MEASURES, qrels, run)
        assert calls, "the default pipeline did not use the registered provider"
        assert all(after[m] == pytest.approx(before[m], abs=1e-9) for m in MEASURES)
    finally:
        unregister()
    assert all(not isinstance(p, Provider) for p in M.DefaultPipeline.providers)
