"""Input forms, the join, coverage counts and one clear error per kind of bad input."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from rankmeter import InputError, MetricNameError, ParameterError, RankmeterError
from rankmeter.metrics import functions as F
from rankmeter.ratings import evaluate_ratings
from rankmeter.metrics.rating_costs import ASYMMETRIC_LIKE_COSTS, CostMatrix

TRUTH = pd.DataFrame({"user": ["u1", "u1", "u2", "u2", "u3"], "item": ["a", "b", "a", "c", "b"],
                      "rating": [4.0, 2.0, 5.0, 3.0, 1.0]})
PREDS = pd.DataFrame({"user": ["u2", "u1", "u2", "u1", "u3", "u9"], "item": ["c", "b", "a", "a", "b", "z"],
                      "prediction": [3.5, 2.0, 4.0, 3.0, 2.0, 1.0]})


def test_two_tables_join_and_extra_predictions() -> None:
    r = evaluate_ratings(TRUTH, PREDS, ["mae", "mae(per=user)"])
    assert r.mean["mae"] == pytest.approx((1 + 0 + 1 + 0.5 + 1) / 5)
    assert r.queries == ["u1", "u2", "u3"]
    assert r.per_query.index.name == "user"
    assert r.per_query["mae"].tolist() == pytest.approx([0.5, 0.75, 1.0])
    assert r.coverage.extra_predictions == 1
    assert r.coverage.pairs == 5 and r.coverage.missing == 0
    assert any("absent from the truth" in n for n in r.notes)


def test_to_dict_shape() -> None:
    r = evaluate_ratings(TRUTH, PREDS, ["mae", "rmse"])
    d = r.to_dict(per_query=False)
    assert d["queries"] == 3 and set(d["mean"]) == {"mae", "rmse"} and "per_query" not in d
    d2 = r.to_dict()
    assert d2["per_query"]["u1"]["mae"] == 0.5
    assert d2["scale"] == {"min": 1.0, "max": 5.0, "source": "data"}
    assert d2["coverage"]["prediction_coverage"] == 1.0


@pytest.mark.parametrize("policy", ["fail", "skip", "fill"])
def test_missing_predictions(policy: str) -> None:
    preds = PREDS[PREDS.item != "c"]  # u2/c has no prediction
    kw = {"fill": 3.0} if policy == "fill" else {}
    if policy == "fail":
        with pytest.raises(InputError, match=r"1 of 5 test pairs have no prediction.*u2/c.*missing='skip'"):
            evaluate_ratings(TRUTH, preds, ["mae"], missing=policy, **kw)
        return
    r = evaluate_ratings(TRUTH, preds, ["mae"], missing=policy, **kw)
    cov = r.coverage
    assert cov.missing == 1 and cov.truth_pairs == 5 and cov.prediction_coverage == pytest.approx(0.8)
    if policy == "skip":
        assert cov.skipped == 1 and cov.pairs == 4
        assert r.mean["mae"] == pytest.approx((1 + 0 + 1 + 1) / 4)
    else:
        assert cov.filled == 1 and cov.pairs == 5
        assert r.mean["mae"] == pytest.approx((1 + 0 + 1 + 0 + 1) / 5)
    assert any("no prediction" in n for n in r.notes)


def test_missing_fill_string_form() -> None:
    preds = PREDS[PREDS.item != "c"]
    a = evaluate_ratings(TRUTH, preds, ["mae"], missing="fill=3")
    b = evaluate_ratings(TRUTH, preds, ["mae"], missing="fill", fill=3)
    assert a.mean == b.mean
    with pytest.raises(ParameterError, match="needs the value"):
        evaluate_ratings(TRUTH, preds, ["mae"], missing="fill")
    with pytest.raises(ParameterError, match="must be one of fail, skip, fill"):
        evaluate_ratings(TRUTH, preds, ["mae"], missing="drop")


def test_nan_predictions_count_as_missing() -> None:
    preds = PREDS.copy()
    preds.loc[preds.item == "c", "prediction"] = np.nan
    with pytest.raises(InputError, match="1 of them null or NaN"):
        evaluate_ratings(TRUTH, preds, ["mae"])
    r = evaluate_ratings(TRUTH, preds, ["mae"], missing="skip")
    assert r.coverage.missing == 1 and r.coverage.missing_nan == 1 and r.coverage.pairs == 4
    # one table and arrays
    t = [3.0, 1.0, 5.0]
    with pytest.raises(InputError, match="no prediction"):
        evaluate_ratings(t, [2.0, np.nan, 4.0], ["mae"])
    r2 = evaluate_ratings(t, [2.0, np.nan, 4.0], ["mae"], missing="skip")
    assert r2.mean["mae"] == 1.0 and r2.coverage.skipped == 1


def test_users_left_out_when_every_pair_is_skipped() -> None:
    preds = PREDS[PREDS.user != "u3"]
    r = evaluate_ratings(TRUTH, preds, ["mae"], missing="skip")
    assert r.queries == ["u1", "u2"] and r.coverage.users_left_out == 1
    assert any("u3" in n and "left out" in n for n in r.notes)


def test_nan_true_rating_is_an_error() -> None:
    truth = TRUTH.copy()
    truth.loc[2, "rating"] = np.nan
    with pytest.raises(InputError, match=r"row 2.*true ratings are missing"):
        evaluate_ratings(truth, PREDS, ["mae"], missing="skip")
    with pytest.raises(InputError, match="not finite"):
        F.mae([1.0, np.nan], [1.0, 2.0])


def test_mismatched_lengths() -> None:
    with pytest.raises(InputError, match="different lengths: 3 and 2"):
        evaluate_ratings([1, 2, 3], [1, 2], ["mae"])
    with pytest.raises(InputError, match="different lengths"):
        F.rmse([1, 2, 3], [1, 2])
    with pytest.raises(InputError, match="different lengths"):
        F.kendall_tau([1, 2, 3], [1, 2])
    with pytest.raises(InputError, match="users and ratings have different lengths"):
        evaluate_ratings([1, 2, 3], [1, 2, 3], ["mae"], users=["a", "b"])


def test_ratings_outside_the_declared_scale() -> None:
    with pytest.raises(InputError, match=r"1 true ratings are outside the declared scale 1:4, e.g. 5"):
        evaluate_ratings(TRUTH, PREDS, ["mae"], scale=(1, 4))
    with pytest.raises(InputError, match="outside the declared scale"):
        F.nmae([1, 6], [1, 2], scale=(1, 5))
    # predictions outside: counted, evaluated as they are, or clipped
    r = evaluate_ratings([1.0, 5.0], [0.0, 6.0], ["mae"], scale=(1, 5))
    assert r.mean["mae"] == 1.0 and r.coverage.outside_scale == 2 and r.coverage.clipped == 0
    r2 = evaluate_ratings([1.0, 5.0], [0.0, 6.0], ["mae"], scale=(1, 5), clip=True)
    assert r2.mean["mae"] == 0.0 and r2.coverage.clipped == 2
    assert any("clipped" in n for n in r2.notes)
    with pytest.raises(ParameterError, match="MIN:MAX"):
        evaluate_ratings([1.0], [1.0], ["mae"], scale="five")
    with pytest.raises(ParameterError, match="MIN < MAX"):
        evaluate_ratings([1.0], [1.0], ["mae"], scale=(5, 1))


def test_duplicate_pairs() -> None:
    truth = pd.concat([TRUTH, TRUTH.iloc[[1]]], ignore_index=True)
    with pytest.raises(InputError, match=r"row 5.*1 duplicate \(user, item\) pairs, e.g. user 'u1' item 'b'"):
        evaluate_ratings(truth, PREDS, ["mae"])
    preds = pd.concat([PREDS, PREDS.iloc[[0]].assign(prediction=1.0)], ignore_index=True)
    with pytest.raises(InputError, match="duplicate"):
        evaluate_ratings(TRUTH, preds, ["mae"])
    first = evaluate_ratings(TRUTH, preds, ["mae"], duplicates="first")
    last = evaluate_ratings(TRUTH, preds, ["mae"], duplicates="last")
    assert first.coverage.duplicates_predictions == 1
    assert first.mean["mae"] == pytest.approx(3.5 / 5)  # u2/c keeps 3.5
    assert last.mean["mae"] == pytest.approx((3.5 - 0.5 + 2) / 5)  # u2/c takes 1.0
    with pytest.raises(InputError, match="duplicate"):
        evaluate_ratings([1, 2], [1, 2], ["mae"], users=["a", "a"], items=["x", "x"])


def test_empty_join() -> None:
    preds = PREDS.assign(user=PREDS.user.str.upper())
    with pytest.raises(InputError, match="empty join: none of the 5 test pairs has a prediction"):
        evaluate_ratings(TRUTH, preds, ["mae"], missing="skip")
    with pytest.raises(InputError, match="empty join"):
        evaluate_ratings(TRUTH, preds, ["mae"], missing="fill", fill=3)
    with pytest.raises(InputError, match="every prediction is missing"):
        evaluate_ratings([1.0, 2.0], [np.nan, np.nan], ["mae"], missing="skip")
    with pytest.raises(InputError, match="no .* pair to evaluate|empty"):
        evaluate_ratings([], [], ["mae"])


def test_ids_are_text_on_both_sides() -> None:
    truth = pd.DataFrame({"user": [1, 1, 2], "item": [10, 20, 10], "rating": [4.0, 3.0, 2.0]})
    preds = pd.DataFrame({"user": ["1", "1", "2"], "item": ["10", "20", "10"], "prediction": [4.0, 2.0, 2.0]})
    r = evaluate_ratings(truth, preds, ["mae"])
    assert r.mean["mae"] == pytest.approx(1 / 3)
    assert r.queries == ["1", "2"]
    # users sorted as text, like query ids elsewhere
    r2 = evaluate_ratings([1.0, 2.0, 3.0], [1.0, 2.0, 3.0], ["mae"], users=[10, 9, 100])
    assert r2.queries == ["10", "100", "9"]


def test_column_names_detected_and_given(tmp_path) -> None:
    df = pd.DataFrame({"UserID": ["u1", "u2"], "movieId": ["m", "m"], "true_rating": [3.0, 4.0],
                       "y_pred": [2.5, 4.0]})
    r = evaluate_ratings(df, None, ["mae"])
    assert r.mean["mae"] == 0.25
    odd = df.rename(columns={"true_rating": "stars", "y_pred": "guess", "UserID": "who", "movieId": "what"})
    with pytest.raises(InputError, match="cannot find the prediction column"):
        evaluate_ratings(odd, None, ["mae"], user="who", item="what")
    r2 = evaluate_ratings(odd, None, ["mae"], user="who", item="what", rating="stars", prediction="guess")
    assert r2.mean == r.mean
    with pytest.raises(InputError, match="no column 'nope'"):
        evaluate_ratings(odd, None, ["mae"], user="who", item="what", rating="nope", prediction="guess")


def test_movielens_files(tmp_path) -> None:
    (tmp_path / "u.data").write_text("196\t242\t3\t881250949\n186\t302\t3\t891717742\n22\t377\t1\t878887116\n")
    (tmp_path / "ratings.dat").write_text("196::242::4::881250949\n186::302::2::891717742\n22::377::1::878887116\n")
    r = evaluate_ratings(tmp_path / "u.data", tmp_path / "ratings.dat", ["mae", "rmse"])
    assert r.mean["mae"] == pytest.approx(2 / 3)
    assert r.queries == ["186", "196", "22"]
    pq.write_table(pa.table({"user": [196, 186, 22], "item": [242, 302, 377], "prediction": [4.0, 2.0, 1.0]}),
                   tmp_path / "p.parquet")
    r2 = evaluate_ratings(tmp_path / "u.data", tmp_path / "p.parquet", ["mae", "rmse"])
    assert r2.mean == r.mean


def test_polars_and_arrow_and_pairs() -> None:
    import polars as pl

    both = TRUTH.merge(PREDS, on=["user", "item"])
    want = evaluate_ratings(both, None, ["mae", "rmse(per=user)"]).mean
    assert evaluate_ratings(pl.from_pandas(both), None, ["mae", "rmse(per=user)"]).mean == want
    assert evaluate_ratings(pa.Table.from_pandas(both), None, ["mae", "rmse(per=user)"]).mean == want
    assert evaluate_ratings(pl.from_pandas(TRUTH), pl.from_pandas(PREDS), ["mae", "rmse(per=user)"]).mean == want
    assert evaluate_ratings(both.rating.tolist(), both.prediction.tolist(), ["mae", "rmse(per=user)"],
                            users=both.user.tolist(), items=both.item.tolist()).mean == want
    pairs = list(zip(both.rating, both.prediction))
    assert evaluate_ratings(pairs, None, "mae").mean["mae"] == want["mae"]
    assert evaluate_ratings(np.array(pairs), None, "mae").mean["mae"] == want["mae"]
    assert evaluate_ratings(pd.Series(both.rating), pd.Series(both.prediction), "mae").mean["mae"] == want["mae"]


def test_inputs_not_modified() -> None:
    t, p = TRUTH.copy(), PREDS.copy()
    evaluate_ratings(t, p, ["mae", "spearman", "mae(per=item)"])
    pd.testing.assert_frame_equal(t, TRUTH)
    pd.testing.assert_frame_equal(p, PREDS)
    arr_t, arr_p = np.array([3.0, 1.0, 2.0]), np.array([2.0, 2.0, 2.0])
    evaluate_ratings(arr_t, arr_p, ["kendall", "roc_auc(rel=2)"])
    assert arr_t.tolist() == [3.0, 1.0, 2.0]


def test_metric_names() -> None:
    with pytest.raises(ParameterError, match="evaluates ranking, not ratings: use rankmeter.evaluate"):
        evaluate_ratings([1.0], [1.0], ["ndcg@10"])
    with pytest.raises(MetricNameError, match="unknown metric 'maee'; did you mean mae"):
        evaluate_ratings([1.0], [1.0], ["maee"])
    with pytest.raises(MetricNameError, match="given twice"):
        evaluate_ratings([1.0], [1.0], ["mae", "mae"])
    with pytest.raises(ParameterError, match="'per' parameter of mae must be one of pair, user, item"):
        evaluate_ratings([1.0], [1.0], ["mae(per=group)"])
    with pytest.raises(MetricNameError, match="takes no cutoff"):
        evaluate_ratings([1.0], [1.0], ["mae@10"])
    # the plain correlation names mean the rating correlations here; their aliases too
    r = evaluate_ratings([1.0, 2.0, 3.0], [1.0, 3.0, 2.0], ["spearman", "kendall_tau", "tau_a", "rating_kendall",
                                                             "kendall_distance(normalize=false)"])
    assert r.mean["kendall_tau"] == r.mean["rating_kendall"] == pytest.approx(1 / 3)
    assert r.mean["tau_a"] == pytest.approx(1 / 3)
    assert r.mean["kendall_distance(normalize=false)"] == 1.0
    import rankmeter

    with pytest.raises(ParameterError, match="evaluates ratings, not rankings"):
        rankmeter.evaluate({"q": {"a": 1}}, {"q": ["a"]}, ["mae"])


def test_nmae_without_range() -> None:
    with pytest.raises(ParameterError, match="every true rating is 3 and no scale was declared"):
        evaluate_ratings([3.0, 3.0], [2.0, 3.0], ["nmae"])
    assert evaluate_ratings([3.0, 3.0], [2.0, 3.0], ["nmae"], scale=(1, 5)).mean["nmae"] == 0.125


def test_cost_errors() -> None:
    with pytest.raises(ParameterError, match="cost needs a cost matrix"):
        evaluate_ratings([1.0], [1.0], ["cost"])
    with pytest.raises(InputError, match=r"not levels of the cost matrix \['1', '2', '3'\], e.g. 2.5.*snap=nearest"):
        evaluate_ratings([1.0, 3.0], [2.5, 3.0], ["cost"], cost=ASYMMETRIC_LIKE_COSTS)
    r = evaluate_ratings([1.0, 3.0], [2.5, 3.0], ["cost(snap=nearest)"], cost=ASYMMETRIC_LIKE_COSTS)
    assert r.mean["cost(snap=nearest)"] == pytest.approx((3 + 0) / 2)  # 2.5 -> 2 (halfway: lower), d(2,1) = 3
    with pytest.raises(InputError, match=r"no cost in the cost matrix: d\(3,1\)"):
        evaluate_ratings([1.0], [3.0], ["cost"], cost={(1, 3): 2})
    with pytest.raises(ParameterError, match="must be 3x3"):
        CostMatrix.from_any(([1, 2, 3], [[0, 1], [1, 0]]))
    with pytest.raises(ParameterError, match="cannot read the cost"):
        CostMatrix.from_any("3-1 is 5")
    with pytest.raises(ParameterError, match=">= 0"):
        CostMatrix.from_any({(1, 2): -1})


def test_cost_matrix_files(tmp_path) -> None:
    (tmp_path / "c.csv").write_text("predicted,true,cost\n3,1,5\n2,1,3\n3,2,3\n1,2,1\n2,3,1\n1,3,2\n")
    (tmp_path / "c.json").write_text('{"3,1": 5, "2,1": 3, "3,2": 3, "1,2": 1, "2,3": 1, "1,3": 2}')
    want = CostMatrix.from_any(ASYMMETRIC_LIKE_COSTS)
    for f in ("c.csv", "c.json"):
        got = CostMatrix.from_any(str(tmp_path / f))
        assert got.levels == want.levels and np.array_equal(got.matrix, want.matrix)
    (tmp_path / "bad.csv").write_text("predicted,true,cost\n3,1\n")
    with pytest.raises(InputError, match=r"bad.csv:2: expected three fields"):
        CostMatrix.from_any(tmp_path / "bad.csv")


def test_errors_are_rankmeter_errors() -> None:
    for call in (lambda: evaluate_ratings([1, 2], [1], ["mae"]), lambda: F.mae([], []),
                 lambda: F.roc_auc([1, 1], [0.2, 0.3]), lambda: F.roc_auc([2, 0], [0.2, 0.3])):
        with pytest.raises(RankmeterError):
            call()


def test_undefined_groups_are_counted() -> None:
    r = evaluate_ratings([1.0, 2.0, 3.0, 4.0], [1.0, 2.0, 3.0, 3.0], ["spearman", "spearman(per=pair)"],
                         users=["a", "a", "b", "c"])
    assert math.isnan(r.per_query.loc["b", "spearman"])
    assert r.mean["spearman"] == 1.0  # user a only
    assert r.undefined == {"spearman": 2, "spearman(per=pair)": 2}
    assert any("2 users have no value" in n for n in r.notes)
