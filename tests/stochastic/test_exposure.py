"""Expected exposure (Diaz et al. 2020) and metrics over sampled rankings: a hand-worked example,
random cases against a plain-Python reading of the formulas, one sample = the deterministic exposure,
and the table form equal to the list form."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rankmeter
import rankmeter.stochastic as sto
from rankmeter import InputError, ParameterError


def test_worked_example() -> None:
    # a (grade 2), b (grade 1), c (not relevant); two samples; p = 0.5
    # e = {a: (1 + .5)/2, b: (.5 + 1)/2, c: .25}; target a: (1 - .5)/.5 = 1, b: (.5 - .25)/.5 = .5
    # EE-L = .25^2 + .25^2 + .25^2 = .1875; EE-D = 2 * .5625 + .0625 = 1.1875; EE-R = .75 + .375 = 1.125
    qrels = {"q": {"a": 2, "b": 1, "c": 0}}
    res = sto.evaluate(qrels, [{"q": ["a", "b", "c"]}, {"q": ["b", "a", "c"]}], p=0.5)
    assert res.mean == pytest.approx({"EE-L": 0.1875, "EE-D": 1.1875, "EE-R": 1.125}, abs=1e-15)
    e = res.exposure.set_index("item")
    assert e.loc["a", "exposure"] == 0.75 and e.loc["c", "exposure"] == 0.25
    assert e.loc["a", "target"] == 1.0 and e.loc["b", "target"] == 0.5 and e.loc["c", "target"] == 0.0
    # the identity EE-L = EE-D - 2 EE-R + e*.e*
    assert res.mean["EE-L"] == pytest.approx(res.mean["EE-D"] - 2 * res.mean["EE-R"] + 1.0 + 0.25)


@st.composite
def policy(draw: st.DrawFn) -> tuple[dict, list[dict]]:
    items = [f"d{i}" for i in range(draw(st.integers(1, 7)))]
    queries = [f"q{i}" for i in range(draw(st.integers(1, 3)))]
    qrels = {q: {d: draw(st.sampled_from([0, 1, 2, 3, 0.5])) for d in draw(st.lists(st.sampled_from(items),
                                                                                   min_size=1, unique=True))}
             for q in queries}
    samples = []
    for _ in range(draw(st.integers(1, 4))):
        run = {}
        for q in queries:
            ranking = draw(st.permutations(items))[: draw(st.integers(0, len(items)))]
            if ranking:
                run[q] = list(ranking)
        samples.append(run)
    return qrels, samples


@settings(max_examples=80, deadline=None)
@given(policy(), st.sampled_from([0.5, 0.8, 0.95]))
def test_random_cases_equal_the_plain_reading(case: tuple[dict, list[dict]], p: float) -> None:
    qrels, samples = case
    counted = [q for q in qrels if any(g > 0 for g in qrels[q].values())]
    if not counted or not any(samples):
        return
    res = sto.evaluate(qrels, samples, p=p)
    assert list(res.queries) == sorted(counted, key=list(qrels).index)
    for i, q in enumerate(res.queries):
        e = sto.expected_exposure([s.get(q, []) for s in samples], p=p)
        ref = sto.ee_measures(e, sto.target_exposure(qrels[q], p=p))
        for m in ("EE-L", "EE-D", "EE-R"):
            assert res.values[m][i] == pytest.approx(ref[m], rel=1e-12, abs=1e-15), (q, m)


def test_one_sample_gives_the_deterministic_exposure_and_metrics() -> None:
    qrels = {"q1": {"a": 1, "b": 0}, "q2": {"c": 2}}
    run = {"q1": {"a": 0.2, "b": 0.9, "x": 0.5}, "q2": {"c": 1.0}}
    res = sto.evaluate(qrels, [run], ["ndcg@10", "rr"], p=0.8)
    direct = rankmeter.evaluate(qrels, run, ["ndcg@10", "rr"])
    assert res.mean["ndcg@10"] == direct.mean["ndcg@10"] and res.mean["rr"] == direct.mean["rr"]
    assert res.spread["ndcg@10"].tolist() == [0.0, 0.0]
    e = res.exposure[res.exposure["query"] == "q1"].set_index("item")["exposure"].to_dict()
    assert e == {"b": 1.0, "x": 0.8, "a": pytest.approx(0.64)}  # ranked b, x, a by score


def test_metrics_average_over_samples_with_their_spread() -> None:
    qrels = {"q": {"a": 1}}
    samples = [{"q": ["a", "b"]}, {"q": ["b", "a"]}, {"q": ["b", "c", "a"]}]
    res = sto.evaluate(qrels, samples, ["rr"])
    per = [1.0, 0.5, 1 / 3]
    assert res.values["rr"][0] == pytest.approx(np.mean(per))
    assert res.spread["rr"][0] == pytest.approx(np.std(per))
    assert res.mean["rr"] == pytest.approx(np.mean(per))
    assert "rr sd" in res.per_query.columns


def test_a_table_with_a_sample_column_equals_the_list(tmp_path) -> None:
    qrels = {"q": {"a": 1, "b": 2}}
    samples = [{"q": {"a": 2.0, "b": 1.0}}, {"q": {"b": 2.0, "a": 1.0}}]
    rows = [(s, q, d, v) for s, run in enumerate(samples) for q, items in run.items() for d, v in items.items()]
    df = pd.DataFrame(rows, columns=["sample", "query", "item", "score"])
    a = sto.evaluate(qrels, samples, ["ndcg@2"])
    b = sto.evaluate(qrels, df, ["ndcg@2"], sample="sample")
    df.to_csv(tmp_path / "samples.csv", index=False)
    c = sto.evaluate(qrels, tmp_path / "samples.csv", ["ndcg@2"], sample="sample")
    assert a.mean == b.mean == c.mean
    with pytest.raises(InputError, match="sample column 'draw'"):
        sto.evaluate(qrels, df, sample="draw")
    with pytest.raises(ParameterError, match="'p' parameter"):
        sto.evaluate(qrels, samples, p=1.0)


def test_ids_in_a_sample_file_stay_text(tmp_path) -> None:
    """'007' and '7' are two items (a file goes through the one table reader, ids as written)."""
    (tmp_path / "s.csv").write_text("sample,query,item,score\n0,q,007,2\n0,q,7,1\n1,q,7,2\n1,q,007,1\n")
    res = sto.evaluate({"q": {"007": 1}}, tmp_path / "s.csv", ["rr"], sample="sample")
    assert res.values["rr"].tolist() == [0.75]
    assert set(res.exposure["item"]) == {"007", "7"}
