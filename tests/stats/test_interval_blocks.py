"""Bootstrap intervals a block of columns at a time equal those of one block, bit for bit (thousands of metrics:
bounded temporaries, issue 32 item 5)."""

from __future__ import annotations

import numpy as np
from hypothesis import example, given, settings
from hypothesis import strategies as st

from rankmeter.stats.resampling import bootstrap_sums, column_blocks, diff_sums, intervals


@settings(max_examples=25, deadline=None)
@given(n=st.integers(1, 12), c=st.integers(1, 9), b=st.integers(2, 60), block=st.integers(1, 200),
       method=st.sampled_from(["bca", "percentile"]), seed=st.integers(0, 2**32 - 1))
@example(n=9, c=5, b=25, block=1, method="bca", seed=1)  # (one column alone was summed pairwise: a last-bit change)
def test_intervals_in_blocks_equal_one_block(n: int, c: int, b: int, block: int, method: str, seed: int) -> None:
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 4, (n, c)) / rng.integers(1, 5)  # ties and constant columns as in real metrics
    boot = bootstrap_sums(X, np.zeros(c, dtype=np.int64), n_resamples=b, rng=np.random.default_rng(seed))
    means = X.mean(axis=0)
    whole = intervals(boot, confidence=0.95, method=method, means=means, block_values=1 << 40)
    parts = intervals(boot, confidence=0.95, method=method, means=means, block_values=block)
    assert len(column_blocks(c, b, block)) == -(-c // max(1, block // b))
    for w, p in zip(whole, parts, strict=True):
        np.testing.assert_array_equal(w, p)
    pairs = np.array([(i, j) for i in range(c) for j in range(i + 1, c)], dtype=np.int64).reshape(-1, 2)
    d = diff_sums(boot, pairs)
    for w, p in zip(intervals(d, confidence=0.9, method=method), intervals(d, confidence=0.9, method=method,
                                                                           block_values=block), strict=True):
        np.testing.assert_array_equal(w, p)
