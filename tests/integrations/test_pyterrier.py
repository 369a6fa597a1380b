"""rankmeter.pyterrier.Experiment equals pt.Experiment (its shapes and its numbers) on PyTerrier's DataFrames,
and rankmeter.evaluate; no Java is started."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
import pytest

pt = pytest.importorskip("pyterrier")
ir_measures = pytest.importorskip("ir_measures")
pytest.importorskip("statsmodels")

import rankmeter  # noqa: E402
from rankmeter._errors import InputError, ParameterError  # noqa: E402
from rankmeter.pyterrier import Experiment  # noqa: E402

MEASURES: list[Any] = ["map", "ndcg_cut_10", "P_5", "recip_rank", "recall_100", "Rprec", "bpref",
                       ir_measures.nDCG @ 5, ir_measures.AP(rel=2)]


@pytest.fixture(scope="module")
def data() -> tuple[pd.DataFrame, pd.DataFrame, dict[str, pd.DataFrame]]:
    rng = np.random.default_rng(11)
    qids = [str(i) for i in range(25)]
    topics = pd.DataFrame({"qid": qids, "query": "text"})
    qrels = pd.DataFrame([(q, f"d{j}", int(rng.integers(0, 3)))
                          for q in qids for j in rng.choice(40, 8, replace=False)], columns=["qid", "docno", "label"])

    def run(ties: bool) -> pd.DataFrame:
        return pd.DataFrame([(q, f"d{j}", float(rng.integers(0, 3)) if ties else float(rng.random()))
                             for q in qids[:-2] for j in rng.choice(40, 20, replace=False)],
                            columns=["qid", "docno", "score"])

    return topics, qrels, {"bm25": run(False), "dense": run(False), "tied": run(True)}


@pytest.mark.slow  # pt.Experiment's first call loads PyTerrier's machinery (~10 s)
@pytest.mark.parametrize("options", [{}, {"baseline": "bm25"}, {"baseline": "dense", "correction": "holm"},
                                     {"baseline": "bm25", "test": "wilcoxon"}, {"round": 3}])
def test_means_and_tests_equal_pt_experiment(data: Any, options: dict[str, Any]) -> None:
    topics, qrels, runs = data
    theirs = pt.Experiment(runs, topics, qrels, MEASURES, **options)
    ours = Experiment(runs, topics, qrels, MEASURES, **options)
    assert set(ours.columns) == set(theirs.columns)
    ours = ours[theirs.columns].reset_index(drop=True)
    theirs = theirs.reset_index(drop=True)
    if options.get("test") == "wilcoxon":
        # nDCG's per-query values agree to ~1e-16, not bit for bit (pytrec_eval sums in another order); the
        # Wilcoxon test ranks |differences| with ties, so a difference of 1e-17 instead of 0 moves its p-value
        # slightly: p-values within 1e-3 there, every other column exact
        pcols = [c for c in theirs.columns if c.endswith("p-value")]
        pd.testing.assert_frame_equal(ours[pcols], theirs[pcols], check_dtype=False, atol=1e-3, rtol=0)
        ours, theirs = ours.drop(columns=pcols), theirs.drop(columns=pcols)
    pd.testing.assert_frame_equal(ours, theirs, check_dtype=False, atol=1e-12, rtol=0)


@pytest.mark.slow
def test_per_query_and_dicts_equal_pt_experiment(data: Any) -> None:
    topics, qrels, runs = data
    key = ["name", "qid", "measure"]
    theirs = pt.Experiment(runs, topics, qrels, MEASURES[:5], perquery=True).sort_values(key).reset_index(drop=True)
    ours = Experiment(runs, topics, qrels, MEASURES[:5], perquery=True)
    assert list(ours.columns) == ["name", "qid", "measure", "value"]
    pd.testing.assert_frame_equal(ours.sort_values(key).reset_index(drop=True), theirs, check_dtype=False,
                                  atol=1e-12, rtol=0)
    listed = list(runs.values())
    d_theirs = pt.Experiment(listed, topics, qrels, ["map", "P_5"], names=["a", "b", "c"], dataframe=False)
    d_ours = Experiment(listed, topics, qrels, ["map", "P_5"], names=["a", "b", "c"], dataframe=False)
    assert d_ours.keys() == d_theirs.keys()
    for n in d_ours:
        assert d_ours[n] == pytest.approx(d_theirs[n], abs=1e-12)
    both = Experiment(listed, topics, qrels, ["map"], names=["a", "b", "c"], perquery="both")
    assert list(both.averages.columns) == ["name", "map"] and len(both.perquery) == 3 * 25


def test_equals_rankmeter_evaluate(data: Any) -> None:
    topics, qrels, runs = data
    table = Experiment(runs, topics, qrels, ["map", "ndcg_cut_10"])
    for name, run in runs.items():
        res = rankmeter.evaluate(qrels, run, ["map", "ndcg_cut_10"], queries="qrels")
        row = table[table["name"] == name].iloc[0]
        assert row["map"] == pytest.approx(res.mean["map"], abs=1e-15)
        assert row["ndcg_cut_10"] == pytest.approx(res.mean["ndcg_cut_10"], abs=1e-15)


@pytest.mark.slow
def test_topics_without_judgments_have_no_value(data: Any) -> None:
    topics, qrels, runs = data
    more = pd.concat([topics, pd.DataFrame({"qid": ["new"], "query": ["x"]})], ignore_index=True)
    with pytest.warns(UserWarning):
        theirs = pt.Experiment(runs, more, qrels, ["map"], perquery=True)
    ours = Experiment(runs, more, qrels, ["map"], perquery=True)
    assert ours[ours["qid"] == "new"]["value"].isna().all() and theirs[theirs["qid"] == "new"]["value"].isna().all()
    assert Experiment(runs, more, qrels, ["map"], filter_by_qrels=True, perquery=True)["qid"].nunique() == 25


def test_errors(data: Any) -> None:
    topics, qrels, runs = data
    with pytest.raises(ParameterError, match="baseline"):
        Experiment(runs, topics, qrels, ["map"], baseline="nope")
    with pytest.raises(ParameterError, match="correction needs a baseline"):
        Experiment(runs, topics, qrels, ["map"], correction="holm")
    with pytest.raises(InputError, match="no label"):
        Experiment(runs, topics, qrels.drop(columns="label"), ["map"])
    with pytest.raises(ParameterError, match="unknown keyword"):
        Experiment(runs, topics, qrels, ["map"], colour=True)
