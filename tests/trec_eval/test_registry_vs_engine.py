"""The registry's trec measures (vectorised kernels) against trec_eval's own walk (the engine)."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rankmeter
from rankmeter.metrics.trec import engine as E

from .test_pytrec_eval import judgments_and_run

O = E.Options()


def _engine(name: str, rr: E.ResRels, k: int | None) -> float:
    if name == "num_q":
        return 1.0
    if name in ("gm_ap",):
        return E.trec_ap(rr)
    if name == "gm_bpref":
        return E.trec_bpref(rr)
    if name == "iprec_at_recall(recall=0.3)":
        return E.trec_iprec_at_recall(rr, [0.3])[0]
    if name == "iprec_at_recall(recall=0,round=9.0.8)":
        return E.trec_iprec_at_recall(rr, [0.0], "9.0.8")[0]
    if name == "iprec_avg":
        return E.trec_11pt_avg(rr, E.measure("11pt_avg").default)
    if name == "iprec_avg(round=9.0.8)":
        return E.trec_11pt_avg(rr, E.measure("11pt_avg").default, "9.0.8")
    if name == "infap":
        return E.trec_infap(rr)
    if name == "bing":
        return E.trec_bing(rr)
    if name == "g":
        return E.trec_g(rr)
    if name == "ndcg_rel":
        return E.trec_ndcg_rel(rr)
    if name == "rndcg":
        return E.trec_rndcg(rr)
    if name == "rprec_mult(mult=1.4)":
        return E.trec_rprec_mult(rr, [1.4])[0]
    if name == "relative_p@3":
        return E.trec_relative_p(rr, [3])[0]
    if name == "relative_p":
        return E.measure("set_relative_P").compute(rr, O)[0]
    if name == "set_map":
        return E.measure("set_map").compute(rr, O)[0]
    if name == "utility(a=2,c=-1)":
        return E.measure("utility").compute(rr, O, (2.0, -1.0, -1.0, 0.0))[0]
    if name == "trec_rbp":
        return E.trec_rbp(rr)
    if name == "trec_rbp(p=0.5,residual=true)":
        return E.trec_rbp_resid(rr, 0.5)
    raise KeyError(name)


NAMES = ["num_q", "gm_ap", "gm_bpref", "iprec_at_recall(recall=0.3)", "iprec_at_recall(recall=0,round=9.0.8)",
         "iprec_avg", "iprec_avg(round=9.0.8)", "infap", "bing", "g", "ndcg_rel", "rndcg", "rprec_mult(mult=1.4)",
         "relative_p@3", "relative_p", "set_map", "utility(a=2,c=-1)", "trec_rbp", "trec_rbp(p=0.5,residual=true)"]


@settings(max_examples=200)
@given(judgments_and_run(), st.sampled_from(NAMES))
def test_kernel_equals_trec_eval(data: tuple, name: str) -> None:
    qrels, run = data
    res = rankmeter.evaluate(qrels, run, [name], queries="qrels")
    got = dict(zip(res.queries, res.values[name].tolist()))
    for q, value in got.items():
        docs = run.get(q, {})
        rr = E.form_res_rels(list(docs), list(docs.values()), qrels[q], O)
        want = _engine(name, rr, None)
        if math.isnan(want):
            want = 0.0  # trec_eval's 0/0 on an empty ranking (iprec at recall 0): the registry gives 0
        assert math.isclose(value, want, rel_tol=1e-9, abs_tol=1e-12), f"{name} query {q}: {value} vs {want}"


def test_gm_aggregate_is_registry_data() -> None:
    from rankmeter.metrics.registry import get_spec

    assert get_spec("gm_map").aggregate == "gmean" and get_spec("gm_bpref").aggregate == "gmean"
    assert get_spec("num_q").count
    assert get_spec("infAP").trec_name == "infAP" and get_spec("gm_map").name == "gm_ap"
