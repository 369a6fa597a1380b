"""Micro and macro averages against a pandas group-by written in the test, on random data."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rankmeter.ratings import evaluate_ratings

RATING = st.sampled_from([1.0, 2.0, 3.0, 4.0, 5.0, 0.5])


@st.composite
def frames(draw) -> pd.DataFrame:
    n_users = draw(st.integers(1, 5))
    rows = []
    for u in range(n_users):
        items = draw(st.lists(st.sampled_from([f"i{j}" for j in range(6)]), min_size=1, max_size=6, unique=True))
        for it in items:
            rows.append((f"u{u}", it, draw(RATING), draw(st.floats(0, 6, allow_nan=False).map(lambda v: round(v, 1)))))
    return pd.DataFrame(rows, columns=["user", "item", "rating", "prediction"])


def _slow(frame: pd.DataFrame, metric: str, by: str | None) -> float:
    err = frame.prediction - frame.rating

    def value(e: pd.Series) -> float:
        return float(e.abs().mean()) if metric == "mae" else float(math.sqrt((e ** 2).mean()))

    if by is None:
        return value(err)
    return float(np.mean([value(err[idx]) for idx in frame.groupby(by).groups.values()]))


@settings(max_examples=80)
@given(frame=frames())
def test_micro_and_macro(frame: pd.DataFrame) -> None:
    names = ["mae", "rmse", "mae(per=user)", "rmse(per=user)", "mae(per=item)", "rmse(per=item)", "mse"]
    r = evaluate_ratings(frame, None, names)
    for name in names:
        base = name.split("(")[0]
        by = "user" if "user" in name else "item" if "item" in name else None
        if base == "mse":
            want = float(((frame.prediction - frame.rating) ** 2).mean())
        else:
            want = _slow(frame, base, by)
        assert r.mean[name] == pytest.approx(want, rel=1e-12, abs=1e-12), name
    # the per-user table holds each user's own value, whatever the aggregation
    for u, g in frame.groupby("user"):
        assert r.per_query.loc[u, "mae(per=item)"] == pytest.approx(float((g.prediction - g.rating).abs().mean()))
    items = sorted(frame.item.unique())
    assert list(r.per_item.index) == items
