"""Issue 24 item 11: error metrics stay finite when the error is representable (scaled before squaring)."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rankmeter
import rankmeter.metrics as M
from rankmeter import ParameterError
from rankmeter.ratings import evaluate_ratings


def test_rmse_of_representable_errors() -> None:
    assert M.rmse([1e200], [-1e200]) == 2e200
    assert M.rmse([1e308, 0.0], [-1e308, 0.0]) == pytest.approx(1e308 * math.sqrt(2), rel=1e-15)
    assert M.mae([1e308, 0.0], [-1e308, 0.0]) == 1e308
    assert M.mae([1e308, 1e308], [0.0, 0.0]) == 1e308  # the sum overflows, the mean does not
    assert M.nrmse([1e200, 0.0], [-1e200, 0.0]) == pytest.approx(math.sqrt(2))


def test_unrepresentable_stays_inf() -> None:
    assert M.mse([1e200], [-1e200]) == math.inf  # 4e400
    assert M.mae([1e308], [-1e308]) == math.inf  # 2e308


def test_per_user_groups_scaled_apart() -> None:
    """A huge error in one group does not wipe out a small one in another (each group has its own scale)."""
    r = evaluate_ratings({"user": ["a", "b", "b"], "item": ["x", "x", "y"], "rating": [1e200, 1.0, 2.0],
                          "prediction": [-1e200, 1.5, 2.5]}, None, ["rmse(per=user)", "mae(per=user)"])
    per = r.per_query
    assert per["rmse(per=user)"].tolist() == pytest.approx([2e200, 0.5], rel=1e-15)
    assert per["mae(per=user)"].tolist() == pytest.approx([2e200, 0.5], rel=1e-15)


small = st.floats(min_value=-1e6, max_value=1e6, allow_nan=False)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(small, small), min_size=1, max_size=8), st.integers(min_value=300, max_value=990))
def test_scaling_by_a_power_of_two_scales_the_value(pairs: list[tuple[float, float]], e: int) -> None:
    """Multiplying every rating and prediction by 2**e is exact, so mae and rmse are multiplied by 2**e
    exactly as far as their value is representable (the obviously correct reference: the unscaled value)."""
    t = [a for a, _ in pairs]
    p = [b for _, b in pairs]
    f = 2.0 ** e if e < 1024 else math.inf
    for name in ("mae", "rmse"):
        plain = getattr(M, name)(t, p)
        big = getattr(M, name)([x * f for x in t], [x * f for x in p])
        want = plain * f
        if math.isinf(want) or plain == 0:
            continue
        assert big == pytest.approx(want, rel=1e-12), (name, plain, big)


@pytest.mark.parametrize("metric", ["f(beta=1e308)@3", "set_f(beta=1e150)", "f(beta=1e200)@3"])
def test_beta_bounded_where_its_square_overflows(metric: str) -> None:
    with pytest.raises(ParameterError, match=r"'beta' parameter of (set_)?f must be a finite number in the "
                                             r"range \(0, 1e\+150\)"):
        rankmeter.evaluate({"q": {"a": 1}}, {"q": {"a": 1.0}}, [metric])


def test_largest_beta_accepted_gives_a_number() -> None:
    res = rankmeter.evaluate({"q": {"a": 1, "b": 1}}, {"q": {"a": 1.0}}, ["f(beta=1e149)@3", "set_f(beta=1e149)"])
    assert res.mean == pytest.approx({"f(beta=1e149)@3": 0.5, "set_f(beta=1e149)": 0.5})
