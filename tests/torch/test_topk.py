"""rankmeter.torch.topk: full ranking from embeddings in blocks, equal to the explicit matrix's top k."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

torch = pytest.importorskip("torch")

import rankmeter  # noqa: E402
import rankmeter.torch as rmt  # noqa: E402
from rankmeter.torch import _topk  # noqa: E402


def _lists(scores: Any, excluded: Any, ids: list[str], k: int) -> dict[str, list[str]]:
    """The explicit matrix's top k, in plain Python (score, then id bytes, descending)."""
    out = {}
    s = scores.double().numpy()
    for u in range(s.shape[0]):
        cand = [j for j in range(s.shape[1]) if excluded is None or not excluded[u, j]]
        cand.sort(key=lambda j: (s[u, j], ids[j].encode()), reverse=True)
        if cand[:k]:
            out[str(u)] = [ids[j] for j in cand[:k]]
    return out


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 12), st.integers(1, 15), st.integers(1, 4), st.integers(1, 18), st.integers(1, 5),
       st.booleans(), st.integers(0, 2**31))
def test_integer_embeddings_equal_the_explicit_matrix(n: int, m: int, d: int, k: int, block: int, named: bool,
                                                      seed: int) -> None:
    """Small integer embeddings: every dot product is exact in float32, with many ties."""
    g = torch.Generator().manual_seed(seed)
    u = torch.randint(-2, 3, (n, d), generator=g).float()
    it = torch.randint(-2, 3, (m, d), generator=g).float()
    excluded = torch.rand((n, m), generator=g) < 0.25
    ids = [f"i{(j * 7) % 13}-{j}" for j in range(m)] if named else [str(j) for j in range(m)]
    run = rmt.topk(u, it, k, exclude=excluded, item_ids=ids if named else None, batch_users=block)
    assert run.to_lists() == _lists(u @ it.T, excluded.numpy(), ids, k)


def test_random_embeddings_equal_the_same_blocked_computation() -> None:
    g = torch.Generator().manual_seed(3)
    u, it = torch.randn((50, 16), generator=g), torch.randn((70, 16), generator=g)
    for sim in ("dot", "cosine"):
        run = rmt.topk(u, it, 10, batch_users=8, similarity=sim)
        uu, ii = (u, it) if sim == "dot" else (torch.nn.functional.normalize(u, dim=1),
                                                torch.nn.functional.normalize(it, dim=1))
        want: dict[str, list[str]] = {}
        for a in range(0, 50, 8):
            want.update({str(a + int(r)): lst for r, lst in
                         _lists(uu[a:a + 8] @ ii.T, None, [str(j) for j in range(70)], 10).items()})
        assert run.to_lists() == want
        # the run evaluates like any other, with the scores it was ranked by
        assert np.all(np.diff(run.scores[run.offsets[0]:run.offsets[1]]) <= 0)


def test_block_size_adapts_to_memory(monkeypatch: pytest.MonkeyPatch) -> None:
    """The users per block follow the free memory and max_bytes; any block size gives the same run."""
    calls: list[int] = []
    real = getattr(_topk, "select_topk")  # noqa: B009 (not exported: the name the module calls)

    def spy(s: Any, *args: Any, **kwargs: Any) -> Any:
        calls.append(int(s.shape[0]))
        return real(s, *args, **kwargs)

    monkeypatch.setattr(_topk, "select_topk", spy)
    g = torch.Generator().manual_seed(1)
    u, it = torch.randint(-3, 4, (40, 4), generator=g).float(), torch.randint(-3, 4, (30, 4), generator=g).float()
    whole = rmt.topk(u, it, 5)
    assert calls == [40]
    calls.clear()
    capped = rmt.topk(u, it, 5, max_bytes=30 * 24 * 7)  # 7 users' rows of scores and keys
    assert calls == [7, 7, 7, 7, 7, 5] and capped.to_lists() == whole.to_lists()
    calls.clear()
    monkeypatch.setattr(_topk, "free_bytes", lambda device: 4 * 30 * 24 * 9)  # a quarter of it: 9 users
    assert rmt.topk(u, it, 5).to_lists() == whole.to_lists() and calls == [9, 9, 9, 9, 4]
    assert _topk.block_users(30, torch.device("cpu"), 1) == 1


def test_topk_run_evaluates_as_the_scores_do() -> None:
    """topk's run through rankmeter.evaluate gives rankmeter.torch.evaluate's numbers on the explicit matrix."""
    g = torch.Generator().manual_seed(7)
    u, it = torch.randint(-2, 3, (20, 3), generator=g).float(), torch.randint(-2, 3, (25, 3), generator=g).float()
    grades = (torch.rand((20, 25), generator=g) < 0.2).long()
    seen = torch.rand((20, 25), generator=g) < 0.2
    run = rmt.topk(u, it, 10, exclude=seen)
    qrels = {str(r): {str(c): 1 for c in range(25) if grades[r, c] and not seen[r, c]} for r in range(20)}
    qrels = {q: j for q, j in qrels.items() if j}
    metrics = ["ndcg@10", "recall@5"]
    offline = rankmeter.evaluate(qrels, run, metrics)
    online = rmt.evaluate(u @ it.T, (*torch.nonzero(grades, as_tuple=True),), metrics, exclude=seen)
    assert offline.queries == online.queries
    for m in metrics:
        np.testing.assert_array_equal(offline.values[m], online.values[m])


def test_cosine_zero_vectors_are_counted() -> None:
    run = rmt.topk(torch.tensor([[0.0, 0.0], [1.0, 0.0]]), torch.tensor([[1.0, 1.0], [2.0, 0.0]]), 1,
                   similarity="cosine")
    assert any("1 embeddings are zero vectors" in n for n in run.notes)
    assert run.to_lists() == {"0": ["1"], "1": ["1"]}
