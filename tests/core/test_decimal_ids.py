"""decimal_int_text (which judged ids are an integer's decimal text) equals the regular expression it replaced."""

from __future__ import annotations

import re

import numpy as np
import pyarrow as pa
from hypothesis import given, settings
from hypothesis import strategies as st

from rankmeter.evaluation.core import decimal_int_text

PATTERN = re.compile(r"(0|-?[1-9][0-9]{0,17})")

ids = st.one_of(
    st.integers(-10**19, 10**19).map(str),
    st.text(alphabet="0123456789-+ e.x\u00e9\u0661", max_size=21),
    st.text(max_size=5),
)


@settings(max_examples=200)
@given(st.lists(ids, max_size=30), st.integers(0, 3))
def test_decimal_int_text_equals_the_regex(values: list[str], cut: int) -> None:
    arr = pa.array(values, type=pa.string())
    arr = arr.slice(min(cut, len(arr)))  # slices too (offsets that do not start at 0)
    want = [PATTERN.fullmatch(v) is not None for v in arr.to_pylist()]
    np.testing.assert_array_equal(decimal_int_text(arr), np.array(want, dtype=bool))


def test_nulls_and_large_strings() -> None:
    assert decimal_int_text(pa.array(["12", None, "x"])).tolist() == [True, False, False]
    assert decimal_int_text(pa.array(["12", "012"], type=pa.large_string())).tolist() == [True, False]
