"""Sorting packed keys (``rankmeter.data.keysort``): every way gives numpy's sorted array."""

from __future__ import annotations

from unittest import mock

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rankmeter.data import keysort
from rankmeter.data.keysort import nearly_sorted, radix_order, sort_keys, zen4_avx512

codes = st.lists(st.integers(0, 3) | st.integers(0, 70_000) | st.integers(0, 2**33), max_size=80)


def _packed(codes: list[int], rows: str, seed: int) -> tuple[np.ndarray, int]:
    n = len(codes)
    shift = max(n - 1, 1).bit_length() + 3
    numbers = np.arange(n, dtype=np.int64) * 3  # (rows with gaps between them, as laid-out ranges have)
    if rows == "shuffled":  # (rows not ascending within a code: the radix alone would keep them so)
        numbers = np.random.default_rng(seed).permutation(numbers)
    return (np.array(codes, dtype=np.int64) << shift) | numbers, shift


@settings(max_examples=300, deadline=None)
@given(codes=codes, rows=st.sampled_from(["ascending", "shuffled"]), radix=st.sampled_from([True, False, None]),
       block=st.sampled_from([1, 2, 5, 1 << 19]), seed=st.integers(0, 9))
def test_sort_keys_gives_the_sorted_array(codes, rows, radix, block, seed) -> None:
    key, shift = _packed(codes, rows, seed)
    want = np.sort(key)
    with mock.patch.object(keysort, "RADIX_ROWS", block):  # (small blocks: several runs merged)
        sort_keys(key, shift, radix=radix)
    assert key.tolist() == want.tolist()


@settings(max_examples=300, deadline=None)
@given(codes=st.lists(st.integers(0, 3) | st.integers(0, 2**32 - 1) | st.sampled_from([65535, 65536, 65537]),
                      max_size=80))
def test_radix_order_is_a_stable_argsort(codes) -> None:
    arr = np.array(codes, dtype=np.int64)
    got = radix_order(arr, int(arr.max()) if len(arr) else 0)
    assert got.tolist() == np.argsort(arr, kind="stable").tolist()


@pytest.mark.parametrize("radix", [True, False])
@pytest.mark.parametrize("shape", ["query order, grades in any order", "no order", "two runs side by side"])
def test_sort_keys_on_large_arrays(shape, radix) -> None:
    rng = np.random.default_rng(7)
    n = 3 * keysort.RADIX_ROWS // 2  # (more than one radix block)
    if shape == "no order":
        c = rng.integers(0, 100_000, n)
    elif shape == "two runs side by side":
        c = np.concatenate([np.sort(rng.integers(0, 100_000, n // 2)), np.sort(rng.integers(0, 100_000, n - n // 2))])
    else:
        c = np.repeat(np.arange(n // 10 + 1), 10)[:n] * 4 + rng.integers(0, 4, n)
    shift = n.bit_length()
    key = (c.astype(np.int64) << shift) | np.arange(n, dtype=np.int64)
    assert nearly_sorted(key) == (shape != "no order")
    want = np.sort(key)
    sort_keys(key, shift, radix=radix)
    assert np.array_equal(key, want)


ZEN4 = ("processor\t: 0\nvendor_id\t: AuthenticAMD\ncpu family\t: 25\nmodel\t\t: 17\n"
        "flags\t\t: fpu avx2 avx512f avx512bw\n\n")


@pytest.mark.parametrize(("cpuinfo", "disabled", "slow"), [
    (ZEN4, "", True),
    (ZEN4 + ZEN4.replace("processor\t: 0", "processor\t: 1"), "", True),
    (ZEN4, "X86_V4 AVX512_ICL", False),  # numpy told not to use AVX-512
    (ZEN4.replace(" avx512f avx512bw", ""), "", False),  # Zen 3: family 25, no AVX-512
    (ZEN4.replace("cpu family\t: 25", "cpu family\t: 26"), "", False),  # Zen 5: compress-stores are fast
    (ZEN4.replace("AuthenticAMD", "GenuineIntel").replace(": 25", ": 6"), "", False),
    ("", "", False),
])
def test_zen4_avx512(cpuinfo, disabled, slow) -> None:
    assert zen4_avx512(cpuinfo, disabled) is slow
