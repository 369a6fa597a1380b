"""rankmeter.metrics functions: the evaluator's kernels on one list; light import; argument checks."""

from __future__ import annotations

import subprocess
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rankmeter
import rankmeter.metrics as M
from rankmeter import InputError, ParameterError
from rankmeter.metrics import functions as F

ITEMS = [f"d{i}" for i in range(10)]
FUNCS = {
    "precision": "p", "recall": "r", "f_score": "f", "average_precision": "ap", "reciprocal_rank": "rr",
    "dcg": "dcg", "ndcg": "ndcg", "rbp": "rbp", "err": "err", "rank_score": "rank_score",
    "lift_index": "lift_index", "bpref": "bpref", "ranking_auc": "auc", "r_precision": "rprec", "hits": "hits",
    "success": "success", "ranking_spearman": "spearman", "ranking_kendall": "kendall",
}


def test_exports() -> None:
    from rankmeter.metrics import agreement

    assert set(M.__all__) == set(F.__all__) | (set(agreement.__all__) - {"RBO_TIES"})
    for name in M.__all__:
        assert callable(getattr(M, name)), name
    with pytest.raises(AttributeError):
        M.nope  # noqa: B018


def test_import_is_light() -> None:
    code = "import sys, rankmeter.metrics as m; m.mae([1], [2]); m.ndcg(['a'], ['a']); print('pandas' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "False"


@settings(max_examples=60)
@given(ranking=st.lists(st.sampled_from(ITEMS), unique=True, max_size=8),
       qrels=st.dictionaries(st.sampled_from(ITEMS), st.sampled_from([0, 1, 2, 3]), min_size=1, max_size=8),
       k=st.sampled_from([None, 1, 3]))
def test_equal_to_evaluate(ranking, qrels, k) -> None:
    if not any(g > 0 for g in qrels.values()):
        qrels = dict(qrels, **{ITEMS[0]: 1})
    for fname, spec in FUNCS.items():
        text = spec + (f"@{k}" if k else "")
        want = rankmeter.evaluate({"q": qrels}, {"q": ranking}, [text]).mean[text]
        got = getattr(M, fname)(ranking, qrels, k=k)
        assert got == want, (fname, got, want)


def test_relevance_forms_and_params() -> None:
    assert M.precision(["a", "b"], {"a", "c"}) == M.precision(["a", "b"], {"a": 1, "c": 1}) == 0.5
    assert M.precision(["a", "b"], ["a"], k=4) == 0.25
    assert M.precision(["a", "b"], ["a"], k=4, norm="retrieved") == 0.5
    assert M.ndcg(["a", "b"], {"a": 1, "b": 2}, gain="exp") == M.metric("ndcg(gain=exp)", ["a", "b"], {"a": 1, "b": 2})
    assert M.average_precision(["x", "a"], ["a", "b"], norm="retrieved") == 0.5
    with pytest.raises(ParameterError, match="'k' parameter of ndcg must be an int >= 1"):
        M.ndcg(["a"], ["a"], k=0)
    with pytest.raises(ParameterError, match="has no parameter 'gain'"):
        M.precision(["a"], ["a"], gain="exp")
    with pytest.raises(ParameterError, match="must be one of"):
        M.ndcg(["a"], ["a"], gain="cubic")
    with pytest.raises(InputError, match="appears twice"):
        M.ndcg(["a", "a"], ["a"])
    with pytest.raises(InputError, match="not a string"):
        M.ndcg("abc", ["a"])
    with pytest.raises(ParameterError, match="not a ranking"):
        M.metric("mae", ["a"], ["a"])


def test_rating_functions() -> None:
    assert M.mse([1, 2], [2, 4]) == 2.5
    assert M.rmse([1, 2], [2, 4]) == pytest.approx(2.5 ** 0.5)
    assert M.nmae([1, 5], [2, 5]) == 0.125
    assert M.nrmse([1, 5], [3, 5], scale=(0, 10)) == pytest.approx(2 ** 0.5 / 10)
    assert M.mean_cost([1, 3, 1], [3, 1, 1], {(3, 1): 5, (1, 3): 2}) == pytest.approx(7 / 3)
    with pytest.raises(InputError, match="one-dimensional"):
        M.mae([[1, 2]], [[1, 2]])
    with pytest.raises(ParameterError, match="'variant' parameter of rating_kendall must be one of a, b, c"):
        M.kendall_tau([1, 2], [1, 2], variant="d")
