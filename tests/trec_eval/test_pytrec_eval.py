"""`rankmeter.pytrec_eval` against the real pytrec_eval, query by query, on every measure."""

from __future__ import annotations

import math
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rankmeter.pytrec_eval as ours

real = pytest.importorskip("pytrec_eval")

ITEMS = [f"d{i}" for i in range(14)] + ["7", "07", "D1", "a#1", "x", "10"]
QUERIES = ["q1", "2", "10", "q10", "Q2b"]
SCORES = st.sampled_from([0.0, 0.5, 1.0, 1.0, 1.0, 2.0, 3.5, -1.0, 1e-3])
GRADES = st.integers(min_value=-2, max_value=4)


@st.composite
def judgments_and_run(draw: Any) -> tuple[dict[str, dict[str, int]], dict[str, dict[str, float]]]:
    qs = draw(st.lists(st.sampled_from(QUERIES), min_size=1, max_size=5, unique=True))
    qrels: dict[str, dict[str, int]] = {}
    run: dict[str, dict[str, float]] = {}
    for q in qs:
        side = draw(st.sampled_from(["both", "both", "both", "qrels", "run"]))
        if side in ("both", "qrels"):
            judged = draw(st.dictionaries(st.sampled_from(ITEMS), GRADES, min_size=1, max_size=12))
            if all(g < 0 for g in judged.values()):
                judged[draw(st.sampled_from(ITEMS))] = draw(st.integers(0, 4))  # pytrec_eval crashes otherwise
            qrels[q] = judged
        if side in ("both", "run"):
            run[q] = draw(st.dictionaries(st.sampled_from(ITEMS), SCORES, min_size=1, max_size=16))
    return qrels, run


def _same(a: float, b: float) -> bool:
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    return abs(a - b) <= 1e-9


def _compare(qrels: dict, run: dict, measures: Any, **kw: Any) -> None:
    want = real.RelevanceEvaluator(qrels, measures, **kw).evaluate(run)
    for path in ("auto", "engine"):  # the registry's vectorised kernels, and trec_eval's walk
        ev = ours.RelevanceEvaluator(qrels, measures, **kw)
        ev._path = path
        got = ev.evaluate(run)
        assert set(got) == set(want)
        for q in want:
            assert list(got[q]) == list(want[q]), q
            for name, v in want[q].items():
                assert _same(got[q][name], v), f"{path}: {name} query {q}: rankmeter {got[q][name]} vs {v}"


@settings(max_examples=150)
@given(judgments_and_run(), st.integers(min_value=1, max_value=3), st.booleans())
def test_every_supported_measure_matches_pytrec_eval(data: tuple, level: int, judged_only: bool) -> None:
    qrels, run = data
    _compare(qrels, run, real.supported_measures, relevance_level=level, judged_docs_only_flag=judged_only)


@settings(max_examples=40)
@given(judgments_and_run())
def test_measure_parameters_match_pytrec_eval(data: tuple) -> None:
    qrels, run = data
    _compare(qrels, run, {"P.1,3", "P_7", "ndcg_cut.2,5", "recall_4", "map_cut.3", "success.2",
                          "iprec_at_recall.0.25,0.5", "Rprec_mult.0.5,1.5", "relative_P.2", "11pt_avg.0.2,0.8"})


def test_nicknames_and_names() -> None:
    assert ours.supported_measures == frozenset(real.supported_measures)
    for nick in ("official", "all_trec", "set"):
        assert ours.supported_nicknames[nick] == frozenset(real.supported_nicknames[nick])
    with pytest.raises(ValueError, match="unsupported measure"):
        ours.RelevanceEvaluator({"q": {"d": 1}}, {"nope"})


def test_query_judged_only_negatively_is_evaluated() -> None:
    # pytrec_eval crashes here; rankmeter evaluates the query: nothing is relevant
    got = ours.RelevanceEvaluator({"q": {"a": -1}}, {"map", "ndcg_cut.5", "num_rel", "P.5"}).evaluate(
        {"q": {"a": 1.0, "b": 0.5}})
    assert got == {"q": {"num_rel": 0.0, "map": 0.0, "P_5": 0.0, "ndcg_cut_5": 0.0}}


def test_relevance_level_must_be_positive() -> None:
    with pytest.raises(ValueError, match="'relevance_level'.*>= 1.*Got 0"):
        ours.RelevanceEvaluator({"q": {"d": 1}}, {"map"}, relevance_level=0)


def test_query_with_an_empty_ranking_is_evaluated() -> None:
    # pytrec_eval crashes on an empty ranking with several measures together; trec_eval's
    # definitions give num_ret 0, zeros, and 0/0 (nan) for iprec_at_recall_0.00 and 11pt_avg
    got = ours.RelevanceEvaluator({"q": {"a": 1, "b": 0}}, {"num_ret", "map", "P.5", "iprec_at_recall.0",
                                                             "11pt_avg"}).evaluate({"q": {}})["q"]
    assert (got["num_ret"], got["map"], got["P_5"]) == (0.0, 0.0, 0.0)
    assert math.isnan(got["iprec_at_recall_0.00"]) and math.isnan(got["11pt_avg"])


def test_ids_must_be_strings() -> None:
    with pytest.raises(ValueError, match="must be strings"):
        ours.RelevanceEvaluator({"q": {1: 1}}, {"map"})
    ev = ours.RelevanceEvaluator({"q": {"1": 1}}, {"map"})
    with pytest.raises(ValueError, match="must be strings"):
        ev.evaluate({"q": {1: 1.0}})
    with pytest.raises(ValueError, match="must be an int"):
        ours.RelevanceEvaluator({"q": {"d": 1.5}}, {"map"})


def test_the_vectorised_path_is_taken() -> None:
    ev = ours.RelevanceEvaluator({"q": {"a": 1, "b": 0}}, {"map", "P.5", "ndcg_cut.10", "num_nonrel_judged_ret"})
    got = ev.evaluate({"q": {"a": 1.0, "b": 2.0}})
    from rankmeter.metrics.registry import all_specs

    walked = [] if "num_nonrel_judged_ret" in {s.name for s in all_specs()} else ["num_nonrel_judged_ret"]
    assert ev._texts is not None and [m.name for m, _, _ in ev._walk] == walked
    assert got == {"q": {"map": 0.5, "P_5": 0.2, "ndcg_cut_10": 1 / math.log2(3), "num_nonrel_judged_ret": 1.0}}
