"""The ratio sweep: fractions grid, per-fraction means, spread, seeds, the default evaluator."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest

from rankmeter._errors import ParameterError, RankmeterError
from rankmeter.data import Qrels
from rankmeter.split import DEFAULT_FRACTIONS, fraction_grid, holdout, ratio_sweep

from .helpers import big_table


def count_evaluate(qrels: Qrels, run: Any, metrics: Any) -> dict[str, float]:
    """A stub evaluator: the number of judged rows and the users recommended for."""
    return {"judged": float(len(qrels)), "users": float(len(run))}


def recommend_nothing(train: Any, users: list[Any]) -> dict[Any, list[str]]:
    return {u: [] for u in users}


def test_default_grid() -> None:
    assert DEFAULT_FRACTIONS[0] == 0.2 and DEFAULT_FRACTIONS[-1] == 0.95 and len(DEFAULT_FRACTIONS) == 16
    assert all(round(f, 2) == f for f in DEFAULT_FRACTIONS)
    assert fraction_grid(0.5, 0.9, 0.2) == (0.5, 0.7, 0.9)
    with pytest.raises(ParameterError, match="'step' parameter of fraction_grid"):
        fraction_grid(step=0)
    with pytest.raises(ParameterError, match="open interval"):
        fraction_grid(0.5, 1.0, 0.25)


def test_sweep_with_stub_evaluate_aggregates_over_fractions() -> None:
    table = big_table(n=1000, users=20, items=100)
    fractions = [0.2, 0.5, 0.8]
    result = ratio_sweep(table, recommend_nothing, evaluate=count_evaluate, fractions=fractions, seed=1)
    assert result.fractions == (0.2, 0.5, 0.8) and len(result.points) == 3
    judged = []
    for point in result.points:
        # the qrels are exactly the test rows of the split with the recorded seed (dedup'd pairs)
        split = holdout(table, test_fraction=point.fraction, per_user=True, seed=point.seed)
        test = split.table("test")
        pairs = {(u, i) for u, i in zip(test.column("user").to_pylist(), test.column("item").to_pylist())}
        assert point.metrics["judged"] == len(pairs)
        assert point.metrics["users"] == split.summary.test.users
        assert point.summary.test.rows == split.summary.test.rows
        judged.append(len(pairs))
    assert result.per_fraction[0.5]["judged"] == judged[1]
    assert result.mean["judged"] == pytest.approx(np.mean(judged))
    assert result.std["judged"] == pytest.approx(np.std(judged, ddof=1))
    assert result.min["judged"] == min(judged) and result.max["judged"] == max(judged)
    assert judged[0] < judged[1] < judged[2]
    frame = result.to_pandas()
    assert isinstance(frame, pd.DataFrame) and frame["fraction"].tolist() == fractions
    assert "±" in repr(result) and result.to_dict()["points"][0]["seed"] == result.points[0].seed


def test_sweep_repeats_average_and_seeds_differ() -> None:
    table = big_table(n=600, users=10, items=300)
    seen: list[Any] = []

    def evaluate(qrels: Qrels, run: Any, metrics: Any) -> dict[str, float]:
        seen.append(qrels.to_dict())
        return {"x": float(len(seen))}

    result = ratio_sweep(table, recommend_nothing, evaluate=evaluate, fractions=[0.3, 0.6], repeats=3, seed=0)
    assert len(result.points) == 6 and len({p.seed for p in result.points}) == 6
    assert result.per_fraction[0.3]["x"] == 2.0 and result.per_fraction[0.6]["x"] == 5.0
    assert seen[0] != seen[1]  # repetitions are different splits
    again = ratio_sweep(table, recommend_nothing, evaluate=count_evaluate, fractions=[0.3, 0.6], repeats=3, seed=0)
    assert [p.seed for p in again.points] == [p.seed for p in result.points]


def test_sweep_passes_train_in_input_kind_and_test_users() -> None:
    df = big_table(n=300, users=12, items=40).to_pandas()
    calls: list[tuple[Any, list[Any]]] = []

    def recommend(train: Any, users: list[Any]) -> dict[Any, list[str]]:
        calls.append((train, users))
        return {u: [] for u in users}

    ratio_sweep(df, recommend, evaluate=count_evaluate, fractions=[0.25])
    train, users = calls[0]
    assert isinstance(train, pd.DataFrame) and list(train.columns) == list(df.columns)
    assert sorted(users) == sorted(df["user"].unique().tolist())


def test_sweep_temporal_and_options() -> None:
    table = big_table(n=400, users=8, items=60)
    result = ratio_sweep(
        table, recommend_nothing, evaluate=count_evaluate, fractions=[0.2, 0.4], method="temporal",
        split_options={"drop_cold_items": True, "min_item_interactions": 2},
    )
    assert all(p.seed is None for p in result.points)
    assert all(p.summary.method == "temporal" and p.summary.params["drop_cold_items"] for p in result.points)
    with pytest.raises(ParameterError, match="repeats"):
        ratio_sweep(table, recommend_nothing, evaluate=count_evaluate, method="temporal", repeats=2)


def test_sweep_relevance_from_a_column() -> None:
    table = big_table(n=200, users=5, items=150).append_column("stars", pa.array(np.arange(200) % 5 + 1.0))

    def evaluate(qrels: Qrels, run: Any, metrics: Any) -> dict[str, float]:
        return {"max_grade": float(qrels.grades.max())}

    result = ratio_sweep(table, recommend_nothing, evaluate=evaluate, fractions=[0.5], relevance="stars")
    assert result.mean["max_grade"] == 5.0


def test_sweep_single_fraction_has_nan_std_and_object_results() -> None:
    class Result:
        mean = {"m": 0.5}

    r = ratio_sweep(big_table(n=100), recommend_nothing, evaluate=lambda q, run, m: Result(), fractions=[0.5])
    assert r.mean == {"m": 0.5} and math.isnan(r.std["m"])


def test_sweep_bad_parameters() -> None:
    table = big_table(n=100)
    with pytest.raises(ParameterError, match="'fractions' parameter of ratio_sweep"):
        ratio_sweep(table, recommend_nothing, evaluate=count_evaluate, fractions=[0.2, 1.0])
    with pytest.raises(ParameterError, match="at least one"):
        ratio_sweep(table, recommend_nothing, evaluate=count_evaluate, fractions=[])
    with pytest.raises(ParameterError, match="twice"):
        ratio_sweep(table, recommend_nothing, evaluate=count_evaluate, fractions=[0.2, 0.2])
    with pytest.raises(ParameterError, match="must not set"):
        ratio_sweep(table, recommend_nothing, evaluate=count_evaluate, split_options={"seed": 3})
    with pytest.raises(ParameterError, match="'recommend' parameter"):
        ratio_sweep(table, None, evaluate=count_evaluate)  # type: ignore[arg-type]
    with pytest.raises(ParameterError, match="'metrics' parameter"):
        ratio_sweep(table, recommend_nothing)
    with pytest.raises(RankmeterError, match="expected a mapping"):
        ratio_sweep(table, recommend_nothing, evaluate=lambda q, r, m: 3.0, fractions=[0.5])


def test_sweep_with_rankmeter_evaluate() -> None:
    """Integration with the real evaluator: a popularity recommender on train."""
    rankmeter = pytest.importorskip("rankmeter")
    if not callable(getattr(rankmeter, "evaluate", None)):
        pytest.skip("rankmeter.evaluate is not available yet")
    rng = np.random.default_rng(0)
    n = 2000
    # popular items are popular for everyone, so a popularity ranking beats chance
    items = np.minimum(rng.zipf(1.5, n), 60)
    table = pa.table({"user": rng.integers(0, 40, n), "item": items})

    def most_popular(train: pa.Table, users: list[Any]) -> dict[str, list[str]]:
        counts = pd.Series(train.column("item").to_numpy()).value_counts()
        top = [str(i) for i in counts.index[:10]]
        return {str(u): top for u in users}

    result = ratio_sweep(table, most_popular, ["P@10", "ndcg@10"], fractions=[0.2, 0.5])
    assert set(result.mean) == {"P@10", "ndcg@10"}
    assert 0 < result.mean["ndcg@10"] <= 1 and 0 < result.mean["P@10"] <= 1
    # the sweep's number is the evaluator's number on the recorded split
    p = result.points[0]
    split = holdout(table, test_fraction=p.fraction, per_user=True, seed=p.seed)
    test = split.table("test")
    qrels = Qrels.from_columns(test.column("user"), test.column("item"), np.ones(test.num_rows), duplicates="max")
    direct = rankmeter.evaluate(qrels, most_popular(split.train, sorted(set(test.column("user").to_pylist()))), ["P@10", "ndcg@10"])
    assert direct.mean == pytest.approx(p.metrics)
