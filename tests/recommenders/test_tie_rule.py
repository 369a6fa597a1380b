"""The recommenders' top-k selection follows the one tie rule (rankmeter.data.order)."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
from hypothesis import given, settings
from hypothesis import strategies as st

from rankmeter.data.order import rank_order
from rankmeter.recsys.recommenders._base import topk_rows


@settings(max_examples=200)
@given(rows=st.integers(1, 4), cols=st.integers(1, 7), k=st.integers(1, 8), seed=st.integers(0, 10_000))
def test_topk_rows_is_rank_order_cut_at_k(rows, cols, k, seed) -> None:
    rng = np.random.default_rng(seed)
    scores = rng.choice([0.0, 0.5, 1.0, 2.0], size=(rows, cols))
    ids = sorted((f"i{rng.integers(0, 10**6)}-{c}" for c in range(cols)), key=str.encode)  # byte order
    r, c, s = topk_rows(scores, k)
    qcodes = np.repeat(np.arange(rows), cols)
    items = pa.array([ids[j] for _ in range(rows) for j in range(cols)])
    perm, _ = rank_order(qcodes, scores.ravel(), items)
    order = np.arange(rows * cols) if perm is None else perm
    want = [(int(q), int(j)) for q, j in zip(qcodes[order], order % cols)]
    want = [p for n, p in enumerate(want) if sum(1 for x in want[:n] if x[0] == p[0]) < k]
    assert list(zip(r.tolist(), c.tolist())) == want
