"""``rankmeter._files.json_text`` writes what ``json.dumps(obj, indent=2, allow_nan=False)`` writes (issue 32).

The results files (``results.json``, ``--format json``) hold thousands of metrics' values;
json_text encodes each list or map of plain values with json's C encoder. The text must be
the same, character for character, for every JSON value: nested, empty, with keys that
json converts (numbers, booleans, null), tuples, non-ASCII text, floats of every size.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rankmeter._files import json_text

plain = st.none() | st.booleans() | st.integers(-(10**20), 10**20) | st.floats(allow_nan=False, allow_infinity=False) \
    | st.text(max_size=6)
keys = st.text(max_size=4) | st.integers(-5, 5) | st.booleans() | st.none() | st.floats(-2, 2, allow_nan=False)
values = st.recursive(plain, lambda inner: st.lists(inner, max_size=4) | st.lists(inner, max_size=3).map(tuple)
                      | st.dictionaries(st.text(max_size=4), inner, max_size=4)
                      | st.dictionaries(keys, inner, max_size=3), max_leaves=20)


@settings(max_examples=300)
@given(values, st.sampled_from([1, 2, 4]))
def test_json_text_is_json_dumps(obj: Any, indent: int) -> None:
    assert json_text(obj, indent) == json.dumps(obj, indent=indent, allow_nan=False)


def test_refusals_are_jsons() -> None:
    for bad in ({"a": [1.0, float("nan")]}, [{"b": float("inf")}], {"c": {1, 2}}):
        with pytest.raises((ValueError, TypeError)) as ours:
            json_text(bad)
        with pytest.raises(type(ours.value)):
            json.dumps(bad, indent=2, allow_nan=False)
