"""The seeds' worked examples for rating metrics, and every RatingsExample of the registry."""

from __future__ import annotations

import math

import numpy as np
import pytest

from rankmeter.metrics import functions as F
from rankmeter.metrics.ratings._common import RatingsExample
from rankmeter.metrics.registry import all_specs
from rankmeter.ratings import evaluate_ratings
from rankmeter.metrics.rating_costs import ASYMMETRIC_LIKE_COSTS

CASES = [
    pytest.param(spec, ex, id=f"{spec.name}-{i}-{ex.note or ex.metric}")
    for spec in all_specs() if spec.input == "ratings"
    for i, ex in enumerate(spec.examples)
    if isinstance(ex, RatingsExample)
]

# seed 002 (python-recsys): DATA_PRED = [(true, predicted), ...]
DATA_PRED = [(3, 2.3), (1, 0.9), (5, 4.9), (2, 0.9), (3, 1.5)]
GROUND_TRUTH = [3.0, 1.0, 5.0, 2.0, 3.0]
TEST = [2.3, 0.9, 4.9, 0.9, 1.5]
# seed 002's explicit rankings: (item, value) pairs
TEST_RANKING = [("classical", 25.0), ("piano", 75.0), ("baroque", 50.0), ("instrumental", 25.0)]
GT_RANKING = [("classical", 50.0), ("piano", 100.0), ("baroque", 25.0), ("instrumental", 25.0)]


@pytest.mark.parametrize("spec,ex", CASES)
def test_registered_example(spec, ex: RatingsExample) -> None:
    res = evaluate_ratings(list(ex.true), list(ex.pred), [ex.metric], scale=ex.scale, cost=ex.cost,
                           users=ex.users, items=ex.items)
    assert res.mean[ex.metric] == pytest.approx(ex.value, abs=ex.tol), ex.note


def test_every_rating_metric_has_an_example() -> None:
    missing = [s.name for s in all_specs() if s.input == "ratings" and not s.examples]
    assert not missing


def test_seed_002_prediction_metrics() -> None:
    # MAE(DATA_PRED) = 0.7; RMSE(DATA_PRED) = 0.891067; the same through load_ground_truth/load_test
    r = evaluate_ratings(DATA_PRED, None, ["mae", "rmse"])
    assert r.mean["mae"] == pytest.approx(0.7, abs=1e-12)
    assert round(r.mean["rmse"], 6) == 0.891067
    r2 = evaluate_ratings(GROUND_TRUTH, TEST, ["mae", "rmse"])
    assert r2.mean == r.mean
    assert F.mae(GROUND_TRUTH, TEST) == pytest.approx(0.7, abs=1e-12)
    assert round(F.rmse(GROUND_TRUTH, TEST), 6) == 0.891067
    # MAE().compute(4.0, 3.2) and RMSE().compute(4.0, 3.2) return 0.8
    assert F.mae([4.0], [3.2]) == pytest.approx(0.8, abs=1e-12)
    assert F.rmse([4.0], [3.2]) == pytest.approx(0.8, abs=1e-12)


def test_seed_002_rank_metrics_ratings() -> None:
    r = evaluate_ratings(DATA_PRED, None, ["spearman", "kendall"])
    assert round(r.mean["spearman"], 6) == 0.947368
    assert round(r.mean["kendall"], 6) == 0.888889
    assert round(F.spearman_rho(GROUND_TRUTH, TEST), 6) == 0.947368
    assert round(F.kendall_tau(GROUND_TRUTH, TEST), 6) == 0.888889


def _explicit(gt, test):
    """python-recsys's _compute: sort both lists by item, compare the values."""
    gt, test = sorted(gt), sorted(test)
    assert [i for i, _ in gt] == [i for i, _ in test]
    return [v for _, v in gt], [v for _, v in test]


def test_seed_002_rank_metrics_explicit() -> None:
    g, t = _explicit(GT_RANKING, TEST_RANKING)
    assert F.spearman_rho(g, t) == pytest.approx(0.5, abs=1e-12)
    assert F.kendall_tau(g, t) == pytest.approx(0.4, abs=1e-12)
    # the same as one user's true and predicted ratings of four items
    r = evaluate_ratings({"u": dict(GT_RANKING)}, {"u": dict(TEST_RANKING)}, ["spearman", "kendall"])
    assert r.mean["spearman"] == pytest.approx(0.5, abs=1e-12)
    assert r.mean["kendall"] == pytest.approx(0.4, abs=1e-12)


def test_seed_002_variants_named() -> None:
    """Only tau-b reproduces 0.4 and 0.888889; the d^2 shortcut of Spearman gives 0.55, not 0.5."""
    g, t = _explicit(GT_RANKING, TEST_RANKING)
    assert F.kendall_tau(g, t, variant="a") == pytest.approx(1 / 3)
    assert F.kendall_tau(GROUND_TRUTH, TEST, variant="a") == pytest.approx(0.8)
    assert F.kendall_tau(g, t, variant="c") == pytest.approx(0.375)
    from rankmeter.metrics.rankstats import average_ranks

    rg, rt = average_ranks(np.array([0, 4]), np.array(g)), average_ranks(np.array([0, 4]), np.array(t))
    shortcut = 1 - 6 * float(((rg - rt) ** 2).sum()) / (4 * (16 - 1))
    assert shortcut == pytest.approx(0.55)


def test_seed_004_normalised_errors() -> None:
    # NMAE = MAE / (r_max - r_min), NRMSE = RMSE / (r_max - r_min)
    r = evaluate_ratings(GROUND_TRUTH, TEST, ["mae", "rmse", "nmae", "nrmse"], scale=(1, 5))
    assert r.mean["nmae"] == pytest.approx(r.mean["mae"] / 4)
    assert r.mean["nrmse"] == pytest.approx(r.mean["rmse"] / 4)
    assert r.scale is not None and r.scale.source == "declared"
    r2 = evaluate_ratings(GROUND_TRUTH, TEST, ["nmae"])
    assert r2.scale is not None and (r2.scale.min, r2.scale.max, r2.scale.source) == (1.0, 5.0, "data")
    r3 = evaluate_ratings(GROUND_TRUTH, TEST, ["nmae"], scale="0:10")
    assert r3.mean["nmae"] == pytest.approx(0.07)
    assert F.nmae(GROUND_TRUTH, TEST, scale=(1, 5)) == pytest.approx(0.175)
    assert F.nrmse(GROUND_TRUTH, TEST, scale="1:5") == pytest.approx(math.sqrt(3.97 / 5) / 4)


def test_rmse_versus_mae_remark_of_evaluation_notes() -> None:
    """Seed 004 (after Gunawardana & Shani) contrasts errors (2, 2, 2, 0) with (3, 0, 0, 0).

    Computed, both MAE and RMSE prefer the second system; the contrast the text means
    (RMSE penalising one large error more than MAE does) shows with (1, 1, 1, 0): equal MAE,
    and RMSE prefers it.
    """
    truth = [3, 3, 3, 3]
    a, b, c = [5, 5, 5, 3], [6, 3, 3, 3], [4, 4, 4, 3]
    assert F.mae(truth, a) == 1.5 and F.mae(truth, b) == 0.75
    assert F.rmse(truth, a) == pytest.approx(math.sqrt(3)) and F.rmse(truth, b) == pytest.approx(1.5)
    assert F.mae(truth, c) == F.mae(truth, b)
    assert F.rmse(truth, c) < F.rmse(truth, b)


def test_seed_004_average_mae_rmse() -> None:
    """Per-user and per-item averages for unbalanced test sets, next to the global values."""
    truth = {"heavy": {f"i{j}": 4.0 for j in range(8)}, "light": {"i0": 1.0}}
    preds = {"heavy": {f"i{j}": 4.5 for j in range(8)}, "light": {"i0": 5.0}}
    r = evaluate_ratings(truth, preds, ["mae", "mae(per=user)", "mae(per=item)", "rmse", "rmse(per=user)",
                                        "rmse(per=item)"])
    assert r.mean["mae"] == pytest.approx((8 * 0.5 + 4) / 9)
    assert r.mean["mae(per=user)"] == pytest.approx((0.5 + 4) / 2)
    # item i0: (0.5 + 4) / 2; items i1..i7: 0.5
    assert r.mean["mae(per=item)"] == pytest.approx(((0.5 + 4) / 2 + 7 * 0.5) / 8)
    assert r.mean["rmse"] == pytest.approx(math.sqrt((8 * 0.25 + 16) / 9))
    assert r.mean["rmse(per=user)"] == pytest.approx((0.5 + 4) / 2)
    assert r.mean["rmse(per=item)"] == pytest.approx((math.sqrt((0.25 + 16) / 2) + 7 * 0.5) / 8)
    assert r.per_query.loc["light", "mae"] == 4.0
    assert r.per_item.loc["i0", "mae(per=item)"] == pytest.approx(2.25)
    assert list(r.per_item.columns) == ["mae(per=item)", "rmse(per=item)"]


def test_seed_004_cost_matrix() -> None:
    """like = 3, neutral = 2, dislike = 1; d(predicted, true): recommending a disliked item (d(3,1) = 5)
    costs more than missing a liked one (d(1,3) = 2)."""
    assert F.mean_cost([1], [3], ASYMMETRIC_LIKE_COSTS) == 5.0   # predicted like, truly disliked
    assert F.mean_cost([3], [1], ASYMMETRIC_LIKE_COSTS) == 2.0   # predicted dislike, truly liked
    expected = {(3, 1): 5, (2, 1): 3, (3, 2): 3, (1, 2): 1, (2, 3): 1, (1, 3): 2}
    for (p, t), c in expected.items():
        assert F.mean_cost([t], [p], ASYMMETRIC_LIKE_COSTS) == c
        assert F.mean_cost([t], [p], "3,1=5; 2,1=3; 3,2=3; 1,2=1; 2,3=1; 1,3=2") == c
        assert F.mean_cost([t], [p], "d(3,1)=5 ; d(2,1)=3; d(3,2)=3; d(1,2)=1; d(2,3)=1; d(1,3)=2") == c
    for v in (1, 2, 3):
        assert F.mean_cost([v], [v], ASYMMETRIC_LIKE_COSTS) == 0.0
    truth, pred = [1, 3, 2, 3, 1], [3, 1, 2, 2, 2]
    r = evaluate_ratings(truth, pred, ["cost", "mae"], cost=ASYMMETRIC_LIKE_COSTS)
    assert r.mean["cost"] == pytest.approx((5 + 2 + 0 + 1 + 3) / 5)
    assert r.mean["mae"] == pytest.approx(6 / 5)
    # the matrix form: rows = predicted, columns = true, levels ascending
    matrix = [[0, 1, 2], [3, 0, 1], [5, 3, 0]]
    r2 = evaluate_ratings(truth, pred, ["cost"], cost=([1, 2, 3], matrix))
    assert r2.mean["cost"] == r.mean["cost"]
    r3 = evaluate_ratings(truth, pred, ["cost"], cost={"levels": [3, 2, 1], "matrix": [[0, 3, 5], [1, 0, 3],
                                                                                      [2, 1, 0]]})
    assert r3.mean["cost"] == r.mean["cost"]
