"""Parameter ranges, derived from the registry: every declared parameter refuses what its declaration excludes.

The cases are built from each ``Param``'s declaration (type, choices, low/high, open or
closed, excluded values), so a parameter added to any metric is covered without
touching this file.
"""

from __future__ import annotations

import math

import pytest

from rankmeter import ParameterError
from rankmeter._params import INT64_MAX, Range, check_choice, check_int, check_number
from rankmeter.metrics.registry import Param, all_specs, parse_metric

SPECS = all_specs()


def _fmt(v: float) -> str:
    return str(int(v)) if float(v).is_integer() else repr(float(v))


def bad_values(p: Param) -> list[str]:
    """Texts the declaration of ``p`` refuses."""
    if p.choices is not None:
        return ["nosuchvalue", "'nosuchvalue'"]
    if p.type is bool:
        return ["maybe", "2"]
    if p.type is str:
        return []
    out = ["nan", "inf", "-inf", "1e999", "1_0", "\uff11", "x"]
    if p.type is int:
        out += ["1e1", "2.5", str(INT64_MAX + 1), str(-(2**64))]
    step = 1 if p.type is int else 0.5
    if p.low is not None:
        out.append(_fmt(p.low) if p.low_open else _fmt(p.low - step))
    if p.high is not None:
        out.append(_fmt(p.high) if p.high_open else _fmt(p.high + step))
    out += [_fmt(v) for v in p.exclude]
    return out


def good_value(p: Param) -> str | None:
    """A text inside the declared range (the default when it has one)."""
    if p.default is None:
        return None
    return str(p.default).lower() if isinstance(p.default, bool) else str(p.default)


CASES = [(s, p, v) for s in SPECS for p in s.params for v in bad_values(p)]


def test_every_numeric_param_has_cases() -> None:
    numeric = [(s.name, p.name) for s in SPECS for p in s.params if p.type in (int, float)]
    covered = {(s.name, p.name) for s, p, _ in CASES}
    assert numeric and set(numeric) <= covered


@pytest.mark.parametrize("spec,param,value", CASES, ids=[f"{s.name}({p.name}={v})" for s, p, v in CASES])
def test_out_of_range_refused_with_the_standard_message(spec, param, value) -> None:
    text = f"{spec.name}({param.name}={value})"
    with pytest.raises(ParameterError) as exc:
        parse_metric(text)
    msg = str(exc.value)
    if "unbalanced" in msg:
        return
    assert msg.startswith(f"The {param.name!r} parameter of {spec.name} must be {param.expected}"), msg
    assert msg.endswith(" instead."), msg


@pytest.mark.parametrize("spec,param", [(s, p) for s in SPECS for p in s.params if good_value(p) is not None],
                         ids=[f"{s.name}.{p.name}" for s in SPECS for p in s.params if good_value(p) is not None])
def test_default_is_accepted(spec, param) -> None:
    m = parse_metric(f"{spec.name}({param.name}={good_value(param)})")
    assert m.params[param.name] == param.default


CUTOFF_BAD = ["0", "-1", "inf", "nan", "1e1", "1_0", "\uff11\uff10", "10.0", "0x10", str(INT64_MAX + 1)]


@pytest.mark.parametrize("spec", [s for s in SPECS if s.cutoff], ids=lambda s: s.name)
def test_cutoff_refused_with_the_standard_message(spec) -> None:
    for k in CUTOFF_BAD:
        with pytest.raises(ParameterError) as exc:
            parse_metric(f"{spec.name}@{k}")
        assert str(exc.value).startswith(f"The 'k' parameter of {spec.name} must be an int >= 1"), str(exc.value)
    assert parse_metric(f"{spec.name}@{INT64_MAX}").k == INT64_MAX


def test_python_values_checked_alike() -> None:
    """metric(..., p=...) takes Python values: the same ranges apply."""
    from rankmeter.metrics.functions import metric

    with pytest.raises(ParameterError, match=r"The 'p' parameter of rbp must be a finite number in the range \(0, 1\)"):
        metric("rbp", ["a"], {"a": 1}, p=math.inf)
    with pytest.raises(ParameterError, match="The 'rel' parameter of p must be a finite number. Got nan"):
        metric("p", ["a"], {"a": 1}, rel=math.nan)
    with pytest.raises(ParameterError, match="The 'catalog' parameter of tn must be an int >= 1"):
        metric("tn", ["a"], {"a": 1}, catalog=True)


def test_helpers_for_other_functions() -> None:
    assert check_int("n", 3, func="split", low=1) == 3
    with pytest.raises(ParameterError, match=r"^The 'n' parameter of split must be an int >= 1. Got 0 instead.$"):
        check_int("n", 0, func="split", low=1)
    with pytest.raises(ParameterError, match="must be an int in the range \\[1, 5\\]. Got True instead"):
        check_int("n", True, func="split", low=1, high=5)
    with pytest.raises(ParameterError, match="must be a finite number in the range \\(0, 1\\). Got 1 instead"):
        check_number("alpha", 1, func="compare", low=0, high=1, low_open=True, high_open=True)
    with pytest.raises(ParameterError, match="must be one of a, b. Got 'c' instead"):
        check_choice("how", "c", ("a", "b"), func="x")
    with pytest.raises(ParameterError, match="one of true, false"):
        check_choice("flag", 1, (True, False), func="x")
    assert check_int("seed", None, allow_none=True) is None
    assert Range(0, 1, high_open=True).describe() == "in the range [0, 1)"


# ----------------------------------------------------------------------------- round trip of declared values

from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402


def _inside(p: Param) -> st.SearchStrategy:
    if p.choices is not None:
        return st.sampled_from(p.choices)
    if p.type is bool:
        return st.booleans()
    if p.type is int:
        lo = int(p.low) + (1 if p.low_open else 0) if p.low is not None else -(2**63)
        hi = int(p.high) - (1 if p.high_open else 0) if p.high is not None else 2**63 - 1
        return st.integers(lo, hi).filter(lambda v: v not in p.exclude)
    return st.floats(min_value=p.low, max_value=p.high, exclude_min=p.low_open, exclude_max=p.high_open,
                     allow_nan=False, allow_infinity=False).filter(lambda v: v not in p.exclude)


DECLARED = [(s, p) for s in SPECS for p in s.params if p.type in (int, float, bool, str) and
            (p.type is not str or p.choices is not None)]


@settings(max_examples=300)
@given(data=st.data())
def test_any_declared_value_round_trips_through_the_canonical_name(data) -> None:
    spec, p = data.draw(st.sampled_from(DECLARED))
    value = data.draw(_inside(p))
    shown = str(value).lower() if isinstance(value, bool) else repr(value) if isinstance(value, float) else str(value)
    m = parse_metric(f"{spec.name}({p.name}={shown})")
    assert m.params[p.name] == value
    again = parse_metric(m.canonical)
    assert again == m and again.params == m.params
