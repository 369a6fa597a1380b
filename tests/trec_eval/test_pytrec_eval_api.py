"""`rankmeter.pytrec_eval` as a drop-in: pytrec_eval's own unit tests, rewritten from their expectations (no code
taken from pytrec_eval), and its API where it is easy to get wrong (issue 24, item 3).

pytrec_eval's tests are: nDCG, nDCG cut and measure-parameter cases on two small queries, the measure sets of its
nicknames, the empty cases (empty run, empty measure set, empty judgments) and the aggregated values of trec_eval's
regression outputs (9.0.8's ``out.test`` and ``out.test.aql``). The installed ``pytrec-eval-terrier`` is compared
where it is there (``real``); the rest runs without it.
"""

from __future__ import annotations

import math
import warnings
from typing import Any

import pytest

import rankmeter.pytrec_eval as ours

from ..conftest import shared_file

QREL = {"q1": {"d1": 0, "d2": 1, "d3": 0}, "q2": {"d2": 1, "d3": 1}}
RUN = {"q1": {"d1": 1.0, "d2": 0.0, "d3": 1.5}, "q2": {}}


def _real() -> Any:
    return pytest.importorskip("pytrec_eval")


# --- pytrec_eval's unit tests ------------------------------------------------------------------------------------

def test_ndcg_cases() -> None:
    qrel = {**QREL, "q10": {}}  # a query without judgments is never evaluated
    ev = ours.RelevanceEvaluator(qrel, {"map", "ndcg"})
    # d2, the one relevant document of q1, at rank 3 (1 / log2(4)), rank 1 and rank 2 (1 / log2(3))
    assert ev.evaluate({"q1": {"d1": 1.0, "d2": 0.0, "d3": 1.5}, "q2": {}})["q1"]["ndcg"] == pytest.approx(0.5)
    assert ev.evaluate({"q1": {"d1": 1.0, "d2": 2.0, "d3": 1.5}, "q2": {}})["q1"]["ndcg"] == pytest.approx(1.0)
    assert ev.evaluate({"q1": {"d1": 1.0, "d2": 2.0, "d3": 1.5}})["q1"]["ndcg"] == pytest.approx(1.0)
    assert ev.evaluate({"q1": {"d1": 4.0, "d2": 2.0, "d3": 1.5}, "q2": {}})["q1"]["ndcg"] == pytest.approx(
        0.6309297535714575)
    # q2: d3 (relevant) first, d1 (unjudged) second, d2 (relevant) third: (1 + 1/2) / (1 + 1/log2(3))
    got = ev.evaluate({"q1": {}, "q2": {"d1": 1.0, "d2": 0.0, "d3": 1.5}})["q2"]["ndcg"]
    assert got == pytest.approx(0.9197207891481876)
    judged = ours.RelevanceEvaluator(qrel, {"map", "ndcg"}, judged_docs_only_flag=True)
    assert judged.evaluate({"q1": {}, "q2": {"d1": 1.0, "d2": 0.0, "d3": 1.5}})["q2"]["ndcg"] == pytest.approx(1.0)
    assert "q10" not in judged.evaluate({"q1": {}, "q2": {"d1": 1.0, "d2": 0.0, "d3": 1.5}, "q10": {"d1": 1.0}})


def test_ndcg_cut_cases() -> None:
    run = {"q1": {"d1": 1.0, "d2": 0.0, "d3": 1.5}, "q2": {}}
    assert ours.RelevanceEvaluator(QREL, {"ndcg_cut.3"}).evaluate(run)["q1"]["ndcg_cut_3"] == pytest.approx(0.5)
    top = {"q1": {"d1": 1.0, "d2": 2.0, "d3": 1.5}, "q2": {}}
    assert ours.RelevanceEvaluator(QREL, {"ndcg_cut.1"}).evaluate(top)["q1"]["ndcg_cut_1"] == pytest.approx(1.0)
    ev = ours.RelevanceEvaluator(QREL, {"ndcg_cut.1,2,3,1000"})
    for _ in range(2):  # the same values again on a second call
        got = ev.evaluate(run)["q1"]
        assert got == pytest.approx({"ndcg_cut_1": 0.0, "ndcg_cut_2": 0.0, "ndcg_cut_3": 0.5, "ndcg_cut_1000": 0.5})


def test_nickname_measure_sets() -> None:
    run = {"q1": {}, "q2": {}}
    official = {"runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec", "bpref",
                "recip_rank", *(f"iprec_at_recall_{x / 10:.2f}" for x in range(11)),
                *(f"P_{k}" for k in (5, 10, 15, 20, 30, 100, 200, 500, 1000))}
    settish = {"runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "utility", "set_P", "set_recall",
               "set_relative_P", "set_map", "set_F"}
    cuts = (5, 10, 15, 20, 30, 100, 200, 500, 1000)
    all_trec = official | settish | {"11pt_avg", "binG", "G", "gm_bpref", "infAP", "ndcg", "ndcg_rel", "Rndcg",
                                     "num_nonrel_judged_ret", "relstring", "success_1", "success_5", "success_10",
                                     *(f"Rprec_mult_{x / 10:.2f}" for x in range(2, 21, 2)),
                                     *(f"{m}_{k}" for m in ("map_cut", "ndcg_cut", "recall", "relative_P")
                                       for k in cuts)}
    for nick, want in (("all_trec", all_trec), ("set", settish), ("official", official)):
        assert set(ours.RelevanceEvaluator(QREL, {nick}).evaluate(run)["q1"]) == want, nick
    assert set(ours.RelevanceEvaluator(QREL, {"official", "set", "ndcg"}).evaluate(run)["q1"]) == (
        official | settish | {"ndcg"})


def test_measure_parameter_spellings_pool() -> None:
    ev = ours.RelevanceEvaluator(QREL, ["ndcg_cut", "ndcg_cut.1,4", "ndcg_cut_20,4", "ndcg_cut_15", "recall.1000", "P"])
    assert set(ev.evaluate(RUN)["q1"]) == {"ndcg_cut_1", "ndcg_cut_4", "ndcg_cut_15", "ndcg_cut_20", "recall_1000",
                                           *(f"P_{k}" for k in (5, 10, 15, 20, 30, 100, 200, 500, 1000))}


def test_empty_cases() -> None:
    assert ours.RelevanceEvaluator(QREL, {"map", "ndcg"}).evaluate({}) == {}  # empty run
    assert ours.RelevanceEvaluator(QREL, set()).evaluate(RUN) == {"q1": {}, "q2": {}}  # no measure
    assert ours.RelevanceEvaluator({}, {"map", "ndcg"}).evaluate(RUN) == {}  # no judgments
    assert ours.RelevanceEvaluator({}, {"map", "ndcg"}).evaluate({}) == {}
    assert ours.RelevanceEvaluator(QREL, set()).evaluate({}) == {}
    assert ours.RelevanceEvaluator({}, set()).evaluate(RUN) == {}
    assert ours.RelevanceEvaluator({}, {}).evaluate({}) == {}  # (measures given as an empty dict)


def _trec_eval_output(path: Any) -> dict[str, dict[str, float]]:
    """trec_eval's printed values, {query or 'all': {name: value}} (the run id and relstrings left out)."""
    out: dict[str, dict[str, float]] = {}
    for line in path.read_text().splitlines():
        name, qid, value = (f.strip() for f in line.split("\t"))
        if name not in ("runid",) and not name.startswith("relstring"):
            out.setdefault(qid, {})[name] = float(value)
    return out


def _base(name: str) -> str:
    """The supported measure a printed name stands for (P_5 -> P, iprec_at_recall_0.10 -> iprec_at_recall)."""
    if name in ours.supported_measures:
        return name
    return max((m for m in ours.supported_measures if name.startswith(m + "_")), key=len)


@pytest.mark.parametrize(("results", "qrels", "expected", "level"), [
    ("results.test", "qrels.test", "out.test", 1),
    ("results.test", "qrels.rel_level", "out.test.aql", 2),
])
def test_trec_eval_908_regression_outputs(results: str, qrels: str, expected: str, level: int) -> None:
    want = _trec_eval_output(shared_file("data", "trec_eval", "v9.0.8", expected))
    with shared_file("data", "trec_eval", qrels).open() as f:
        qrel = ours.parse_qrel(f)
    with shared_file("data", "trec_eval", results).open() as f:
        run = ours.parse_run(f)
    measures = {_base(name) for name in want["all"]}
    got = ours.RelevanceEvaluator(qrel, measures, relevance_level=level).evaluate(run)
    assert len(want["all"]) > 20
    for name, value in want["all"].items():
        mean = ours.compute_aggregated_measure(name, [v[name] for v in got.values()])
        assert abs(mean - value) < 5e-5 + 1e-12, name  # trec_eval prints 4 decimals
    for qid, values in want.items():  # out.test.aql has every query's values too: the same 4 decimals
        if qid == "all":
            continue
        for name, value in values.items():
            assert f"{got[qid][name]:.4f}" == f"{value:.4f}", (qid, name)


# --- the API where pytrec_eval defines it ------------------------------------------------------------------------

@pytest.mark.parametrize("make", [
    lambda m: m.RelevanceEvaluator(QREL, {"map"}).evaluate([("q1", {"d1": 1.0})]),  # a run given as a list
    lambda m: m.RelevanceEvaluator(QREL, {"map"}).evaluate({"q1": [("d1", 1.0)]}),
    lambda m: m.RelevanceEvaluator({"q": {"d": 1.5}}, {"map"}),  # a float grade
    lambda m: m.RelevanceEvaluator({"q": {"d": "1"}}, {"map"}),  # a grade as text
    lambda m: m.RelevanceEvaluator({"q": {1: 1}}, {"map"}),  # an int document id
    lambda m: m.RelevanceEvaluator({1: {"d": 1}}, {"map"}),  # an int query id
    lambda m: m.RelevanceEvaluator(QREL, {"map"}).evaluate({1: {"d1": 1.0}}),
    lambda m: m.RelevanceEvaluator(QREL, {"map"}).evaluate({"q1": {1: 1.0}}),
    lambda m: m.RelevanceEvaluator(QREL, {"map"}).evaluate({"q1": {"d1": "1.5"}}),  # a score as text
    lambda m: m.RelevanceEvaluator(QREL, {"map"}).evaluate({"q1": {"d1": None}}),
    lambda m: m.RelevanceEvaluator(QREL, {"map"}).evaluate({"q9": {1: 1.0}}),  # (a query without judgments too)
    lambda m: m.RelevanceEvaluator(QREL, {"map"}).evaluate({"q9": {"d1": "x"}}),
    lambda m: m.RelevanceEvaluator(QREL, {"map"}, relevance_level=0),
    lambda m: m.RelevanceEvaluator(QREL, {"map"}, relevance_level=1.0),
    lambda m: m.RelevanceEvaluator(QREL, {"map"}, relevance_level=2**40),
])
def test_type_errors_as_pytrec_eval(make: Any) -> None:
    # pytrec_eval raises TypeError; rankmeter's error is also a rankmeter.InputError / ParameterError (a ValueError)
    with pytest.raises(TypeError) as err:
        make(ours)
    assert isinstance(err.value, ValueError)
    with pytest.raises(TypeError):
        make(_real())


def test_infinite_scores_are_ranked_as_pytrec_eval() -> None:
    qrels = {"1": {"a": 1, "b": 0, "c": 2}, "2": {"a": 1, "b": 0}}
    run = {"1": {"a": -math.inf, "b": math.inf, "c": 1.0, "x": -math.inf}, "2": {"a": 0.5, "b": 0.25}}
    measures = {"map", "P.1,2", "ndcg", "recip_rank", "num_ret"}
    got = ours.RelevanceEvaluator(qrels, measures).evaluate(run)
    # query 1: b (inf), c, then the two -inf by docno descending: x before a
    assert got["1"]["recip_rank"] == 0.5 and got["1"]["P_2"] == 0.5 and got["1"]["map"] == pytest.approx(
        (1 / 2 + 2 / 4) / 2)
    assert got["2"]["map"] == 1.0  # the other query keeps the vectorised path
    assert got == _real().RelevanceEvaluator(qrels, measures).evaluate(run)


def test_nan_scores_are_refused() -> None:
    # trec_eval's order of nan scores depends on its sort routine (a comparison with nan is false both ways)
    with pytest.raises(ValueError, match="is nan"):
        ours.RelevanceEvaluator({"1": {"a": 1}}, {"map"}).evaluate({"1": {"a": math.nan, "b": 1.0}})


def test_relevance_level_minus_one_as_pytrec_eval() -> None:
    # pytrec_eval stores the C int -1 in the low half of a long holding 1: the level is 2**32 - 1, nothing relevant
    qrels = {"1": {"a": 1, "b": 0, "c": 2, "e": -1}, "2": {"a": 3, "z": 1}}
    run = {"1": {"a": 1.0, "b": 2.0, "c": 3.0, "x": 7.0, "e": 0.1}, "2": {"a": 1.0, "b": 2.0}}
    measures = {"num_rel", "num_rel_ret", "map", "P.2", "num_nonrel_judged_ret", "ndcg", "infAP", "Rprec"}
    got = ours.RelevanceEvaluator(qrels, measures, relevance_level=-1).evaluate(run)
    assert got["1"]["num_rel"] == 0.0 and got["1"]["num_nonrel_judged_ret"] == 3.0 and got["1"]["ndcg"] > 0
    # (bpref and gm_bpref crash pytrec_eval here; the rest agrees)
    assert got == _real().RelevanceEvaluator(qrels, measures, relevance_level=-1).evaluate(run)


@pytest.mark.parametrize("measure", ["utility.3,2,1,0", "utility_3,2,1,0", "utility.2,-1,0,0", "utility.2",
                                     "utility.1,1,1,1", "utility"])
def test_utility_parameters_as_pytrec_eval(measure: str) -> None:
    qrels = {"1": {"a": 1, "b": 0, "c": 2}, "2": {"a": 1}}
    run = {"1": {"a": 1.0, "b": 2.0, "c": 3.0, "x": 7.0}, "2": {"b": 1.0}}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        got = ours.RelevanceEvaluator(qrels, {measure}).evaluate(run)
    wrong_count = measure in ("utility.2,-1,0,0", "utility.2", "utility.1,1,1,1")  # pytrec_eval's set of texts
    assert bool(caught) == wrong_count  # said, where pytrec_eval prints a message per query
    if wrong_count:
        assert got == {"1": {"utility": 0.0}, "2": {"utility": 0.0}}
    assert got == _real().RelevanceEvaluator(qrels, {measure}).evaluate(run)
