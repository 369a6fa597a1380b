"""rankmeter.torch.evaluate equals rankmeter.evaluate on the same data as a run (issue 25).

The reference selects each user's top k in plain Python (sorted by (score, id bytes),
descending: the tie rule as trec_eval writes it) and hands it, with every judged cell,
to rankmeter.evaluate; the full ranking of every user goes to rankmeter.evaluate too.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

torch = pytest.importorskip("torch")

import rankmeter  # noqa: E402
import rankmeter.torch as rmt  # noqa: E402
from rankmeter.torch._inputs import Exclusion  # noqa: E402
from rankmeter.torch._select import item_rank, select_topk  # noqa: E402

DTYPES = {"float32": torch.float32, "float64": torch.float64, "bfloat16": torch.bfloat16, "float16": torch.float16}
# item ids that sort differently as bytes and as numbers, with a non-ASCII one
ID_POOL = ["9", "10", "a", "B", "b", "é", "aa", "Z9", "100", "1", "x y", "_"]


def metrics_at(k: int) -> list[str]:
    """Every metric of issue 25's item 2, at cutoff k (and a smaller one)."""
    j = max(1, k // 2)
    return [f"ndcg@{k}", f"ndcg(gain=exp)@{k}", f"ndcg(discount=jarvelin)@{j}", f"dcg@{k}", f"dcg(gain=exp)@{j}",
            f"recall@{k}", f"P@{k}", f"p(norm=retrieved)@{j}", f"ap@{k}", f"ap(norm=min)@{k}",
            f"ap(norm=retrieved)@{j}", f"rr@{k}", f"success@{j}", f"hits@{k}", f"rbp@{k}", f"err@{k}",
            f"auc@{k}", f"judged@{k}", f"catalog_coverage@{k}", f"gini@{k}", f"entropy@{k}", f"arp@{k}",
            f"f@{j}", f"num_ret@{k}", f"num_rel_ret@{k}"]


@st.composite
def cases(draw: Any) -> dict[str, Any]:
    n = draw(st.integers(1, 6))
    m = draw(st.integers(1, 9))
    dtype = draw(st.sampled_from(sorted(DTYPES)))
    # few distinct values: many ties, -0.0 beside 0.0
    values = draw(st.lists(st.sampled_from([0.0, -0.0, 0.5, 1.0, 1.0, -1.5, 2.25, 3.0]), min_size=n * m,
                           max_size=n * m))
    scores = torch.tensor(values, dtype=torch.float64).reshape(n, m).to(DTYPES[dtype])
    grades = np.array(draw(st.lists(st.sampled_from([0, 0, 0, 1, 2, 3, 4, -1]), min_size=n * m, max_size=n * m)),
                      dtype=np.int64).reshape(n, m)
    excluded = np.array(draw(st.lists(st.booleans(), min_size=n * m, max_size=n * m))).reshape(n, m)
    if draw(st.booleans()):
        excluded[draw(st.integers(0, n - 1))] = True  # a user with every item hidden
    named = draw(st.booleans())
    item_ids = draw(st.permutations(ID_POOL))[:m] if named and m <= len(ID_POOL) else None
    return dict(scores=scores, grades=grades, excluded=excluded, item_ids=item_ids, k=draw(st.integers(1, 11)),
                rel_form=draw(st.sampled_from(["dense", "pairs", "lists", "coo", "csr"])),
                ex_form=draw(st.sampled_from(["mask", "lists", "pairs", "coo", "csr", "none"])),
                queries=draw(st.sampled_from(["judged", "judged", "qrels", "run"])),
                judged_extra=np.array(draw(st.lists(st.booleans(), min_size=n * m, max_size=n * m))).reshape(n, m))


def exclude_arg(form: str, excluded: np.ndarray) -> Any:
    rows, cols = np.nonzero(excluded)
    if form == "mask":
        return torch.from_numpy(excluded)
    if form == "lists":
        return [np.flatnonzero(row).tolist() for row in excluded]
    if form == "pairs":
        return torch.from_numpy(rows), torch.from_numpy(cols)
    dense = torch.from_numpy(excluded.astype(np.float32))
    return dense.to_sparse_coo() if form == "coo" else dense.to_sparse_csr()


def relevant_arg(form: str, grades: np.ndarray, judged: np.ndarray) -> Any:
    """The judgments in a form, and the mask of the cells it judges."""
    if form == "dense":
        return torch.from_numpy(grades), np.ones_like(judged)
    if form == "lists":  # binary: the relevant columns of each user
        return [np.flatnonzero(row > 0).tolist() for row in grades], grades > 0
    mask = judged | (grades != 0)
    rows, cols = np.nonzero(mask)
    if form == "pairs":
        return (torch.from_numpy(rows), torch.from_numpy(cols), torch.from_numpy(grades[rows, cols])), mask
    t = torch.sparse_coo_tensor(torch.from_numpy(np.stack([rows, cols])), torch.from_numpy(grades[rows, cols]),
                                grades.shape)
    return (t if form == "coo" else t.to_sparse_csr()), mask


def names(item_ids: list[str] | None, m: int) -> list[str]:
    return list(item_ids) if item_ids is not None else [str(j) for j in range(m)]


def python_topk(scores: np.ndarray, excluded: np.ndarray, ids: list[str], k: int) -> list[list[int]]:
    """The slow, obviously-correct top k: score descending, then id descending by UTF-8 bytes."""
    out = []
    for u in range(scores.shape[0]):
        cand = [j for j in range(scores.shape[1]) if not excluded[u, j]]
        cand.sort(key=lambda j: (scores[u, j], ids[j].encode("utf-8")), reverse=True)
        out.append(cand[:k])
    return out


def context(ids: list[str], n: int) -> dict[str, Any]:
    return {"catalog": list(ids), "n_users": n}


def popularity(m: int) -> np.ndarray:
    return (np.arange(m, dtype=np.float64) % 4 + 1) / 5


def reference(c: dict[str, Any], rel_mask: np.ndarray, lists: list[list[int]] | None) -> rankmeter.Result:
    """rankmeter.evaluate on the same data: the given lists (None: every user's full ranking)."""
    s64 = c["scores"].to(torch.float64).numpy()
    n, m = s64.shape
    ids = names(c["item_ids"], m)
    grades = c["grades"] if c["rel_form"] != "lists" else (c["grades"] > 0).astype(np.int64)
    qrels = {str(u): {ids[j]: int(grades[u, j]) for j in range(m) if rel_mask[u, j] and not c["excluded"][u, j]}
             for u in range(n)}
    qrels = {u: j for u, j in qrels.items() if j}
    if lists is None:
        lists = python_topk(s64, c["excluded"], ids, m)
    run = {str(u): {ids[j]: float(s64[u, j]) for j in lst} for u, lst in enumerate(lists) if lst}
    ctx = dict(context(ids, n), popularity=(ids, popularity(m)))
    return rankmeter.evaluate(qrels, run, metrics_at(c["k"]), context=ctx, queries=c["queries"])


def same(a: float, b: float, tol: float = 1e-12) -> bool:
    return (math.isnan(a) and math.isnan(b)) or abs(a - b) <= tol


def assert_values_equal(got: rankmeter.Result, want: rankmeter.Result) -> None:
    assert got.queries == want.queries
    for name in want.values:
        np.testing.assert_allclose(got.values[name], want.values[name], rtol=0, atol=1e-12, err_msg=name)
    for name, v in want.mean.items():
        assert same(got.mean[name], v), (name, got.mean[name], v)


@settings(max_examples=60, deadline=None)
@given(cases())
def test_evaluate_equals_rankmeter_evaluate(c: dict[str, Any]) -> None:
    n, m = c["scores"].shape
    ids = names(c["item_ids"], m)
    rel, rel_mask = relevant_arg(c["rel_form"], c["grades"], c["judged_extra"])
    excluded = c["excluded"] if c["ex_form"] != "none" else np.zeros_like(c["excluded"])
    c = dict(c, excluded=excluded)
    got = rmt.evaluate(c["scores"], rel, metrics_at(c["k"]), exclude=exclude_arg(c["ex_form"], excluded)
                       if c["ex_form"] != "none" else None, item_ids=c["item_ids"],
                       context=context(ids, n), popularity=torch.from_numpy(popularity(m)), queries=c["queries"])
    lists = python_topk(c["scores"].to(torch.float64).numpy(), excluded, ids, c["k"])
    want = reference(c, rel_mask, lists)
    assert_values_equal(got, want)
    assert got.corpus == pytest.approx(want.corpus, abs=1e-12, nan_ok=True)
    assert got.coverage is not None and want.coverage is not None
    assert got.coverage.to_dict() == want.coverage.to_dict()
    ties = [t for t in got.notes if t.startswith("cutoff ")]
    assert [t for t in got.notes if t not in ties] == want.notes
    # and the same values as rankmeter.evaluate on every user's whole ranking (the top k is all the metrics read)
    assert_values_equal(got, reference(c, rel_mask, None))


@settings(max_examples=60, deadline=None)
@given(cases(), st.sampled_from(["key", "margin"]))
def test_selection_is_the_python_top_k(c: dict[str, Any], method: str) -> None:
    scores = c["scores"]
    if method == "key" and scores.dtype == torch.float64:
        method = "margin"
    n, m = scores.shape
    ids = names(c["item_ids"], m)
    rank = torch.from_numpy(item_rank(_arrow(c["item_ids"]), m))
    mask = torch.from_numpy(c["excluded"])
    kk = min(c["k"], m)
    # small blocks too: the selection of rows block by block is the same
    sel = select_topk(scores, kk, rank, Exclusion(n, m, dense=mask), method=method, cells=max(1, m * 2))
    want = python_topk(scores.to(torch.float64).numpy(), c["excluded"], ids, kk)
    got = [sel.index[u, :int(sel.valid[u])].tolist() for u in range(n)]
    assert got == want


def _arrow(ids: list[str] | None) -> Any:
    import pyarrow as pa

    return None if ids is None else pa.array(ids, type=pa.string())


def test_without_item_ids_nine_ranks_before_ten() -> None:
    """Columns are named by their index in decimal text, compared as bytes: "9" > "10"."""
    scores = torch.zeros((1, 11))
    r = rmt.evaluate(scores, torch.ones((1, 11)), ["P@1"])
    run = rmt.topk(torch.ones((1, 1)), torch.zeros((11, 1)), 2)
    assert run.to_lists() == {"0": ["9", "8"]}
    assert r.values["P@1"].tolist() == [1.0]


def test_float32_lists_identical_on_large_ties() -> None:
    """Scores rounded to 3 decimals (as real scores tie): every list equals the Python one."""
    g = torch.Generator().manual_seed(0)
    scores = torch.round(torch.rand((40, 300), generator=g) * 1000) / 1000
    excluded = torch.rand((40, 300), generator=g) < 0.1
    ids = [str(j) for j in range(300)]
    want = python_topk(scores.double().numpy(), excluded.numpy(), ids, 20)
    for method in ("key", "margin"):
        sel = select_topk(scores, 20, torch.from_numpy(item_rank(None, 300)), Exclusion(40, 300, dense=excluded),
                          method=method)
        assert [sel.index[u, :int(sel.valid[u])].tolist() for u in range(40)] == want


def test_evaluator_over_random_batchings_equals_one_call() -> None:
    rng = np.random.default_rng(5)
    for trial in range(6):
        n, m = int(rng.integers(1, 30)), int(rng.integers(1, 25))
        scores = torch.from_numpy(rng.integers(0, 4, (n, m)).astype(np.float32) / 2)
        grades = torch.from_numpy(rng.choice([0, 0, 0, 1, 2], (n, m)))
        excluded = torch.from_numpy(rng.random((n, m)) < 0.2)
        metrics = ["ndcg@5", "recall@10", "ap@3", "gini@5"] if trial % 2 else ["P@4", "rr@2", "err@5"]
        ctx = {"catalog": [str(j) for j in range(m)]}
        one = rmt.evaluate(scores, grades, metrics, exclude=excluded, context=ctx)
        ev = rmt.Evaluator(metrics, context=ctx)
        for _ in range(2):  # and again after reset()
            cuts = np.sort(rng.choice(np.arange(1, n), size=min(n - 1, int(rng.integers(0, 4))), replace=False))
            for a, b in zip(np.r_[0, cuts], np.r_[cuts, n], strict=True):
                ev.update(scores[a:b], grades[a:b], exclude=excluded[a:b])
            got = ev.compute()
            assert got.queries == one.queries and got.notes == one.notes and got.corpus == one.corpus
            for k, v in one.values.items():
                np.testing.assert_array_equal(got.values[k], v)
            ev.reset()


def test_evaluator_with_user_ids_and_lists() -> None:
    ev = rmt.Evaluator(["recall@2"], item_ids=["a", "b", "c"])
    ev.update(torch.tensor([[0.9, 0.1, 0.5]]), [[1, 2]], user_ids=["ann"])
    ev.update(torch.tensor([[0.2, 0.3, 0.1]]), [{0: 2}], user_ids=["bob"])
    r = ev.compute()
    assert r.queries == ["ann", "bob"] and r.values["recall@2"].tolist() == [0.5, 1.0]


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 5), st.integers(40, 160), st.integers(1, 45), st.integers(2, 6), st.booleans(),
       st.sampled_from(["key", "margin"]), st.integers(0, 2**31))
def test_selection_with_ties_past_the_window(n: int, m: int, k: int, levels: int, sparse: bool, method: str,
                                             seed: int) -> None:
    """Few score levels over many items: the tie at the k-th score runs past the margin's window."""
    g = torch.Generator().manual_seed(seed)
    scores = torch.randint(0, levels, (n, m), generator=g).float() - 1.0
    excluded = torch.rand((n, m), generator=g) < 0.3
    excl = Exclusion(n, m, rows=np.nonzero(excluded.numpy())[0], cols=np.nonzero(excluded.numpy())[1]) \
        if sparse else Exclusion(n, m, dense=excluded)
    ids = [str(j) for j in range(m)]
    sel = select_topk(scores, k, torch.from_numpy(item_rank(None, m)), excl, method=method, cells=m * 2)
    want = python_topk(scores.double().numpy(), excluded.numpy(), ids, k)
    assert [sel.index[u, :int(sel.valid[u])].tolist() for u in range(n)] == want


def test_nan_count_leaves_out_hidden_cells() -> None:
    nan = float("nan")
    scores = torch.tensor([[nan, nan, 0.1], [nan, 0.8, 0.4]])
    with pytest.raises(rankmeter.InputError, match="scores hold 2 NaN values in cells that are not excluded"):
        rmt.evaluate(scores, torch.ones((2, 3)), ["P@1"], exclude=[[0], []])


@settings(max_examples=25, deadline=None)
@given(cases())
def test_metrics_without_a_cutoff_rank_every_item(c: dict[str, Any]) -> None:
    n, m = c["scores"].shape
    ids = names(c["item_ids"], m)
    metrics = ["ap", "ndcg", "rr", "auc", "recall@3", "num_rel", "dcg(discount=jarvelin)", "err", "judged"]
    got = rmt.evaluate(c["scores"], torch.from_numpy(c["grades"]), metrics, exclude=torch.from_numpy(c["excluded"]),
                       item_ids=c["item_ids"])
    s64 = c["scores"].to(torch.float64).numpy()
    lists = python_topk(s64, c["excluded"], ids, m)
    qrels = {str(u): {ids[j]: int(c["grades"][u, j]) for j in range(m) if not c["excluded"][u, j]} for u in range(n)}
    run = {str(u): {ids[j]: float(s64[u, j]) for j in lst} for u, lst in enumerate(lists) if lst}
    want = rankmeter.evaluate({u: j for u, j in qrels.items() if j}, run, metrics)
    assert_values_equal(got, want)
    assert got.coverage is not None and want.coverage is not None
    assert got.coverage.to_dict() == want.coverage.to_dict()


@settings(max_examples=40, deadline=None)
@given(cases(), st.sampled_from(["average", "optimistic", "pessimistic", "bounds"]))
def test_tie_rules_equal_rankmeter_evaluate(c: dict[str, Any], ties: str) -> None:
    """ties= other than "id": the whole group of tied scores that a cutoff cuts through reaches the core."""
    from rankmeter.metrics.registry import parse_metric
    from rankmeter.metrics.ties import supports

    n, m = c["scores"].shape
    ids = names(c["item_ids"], m)
    k = c["k"]
    metrics = [t for t in [f"ndcg@{k}", f"P@{max(1, k // 2)}", f"recall@{k}", f"ap@{k}", f"rr@{k}", f"dcg@{k}",
                           f"success@{max(1, k // 3)}", f"rbp@{k}", f"hits@{k}"]
               if supports(parse_metric(t), "optimistic" if ties == "bounds" else ties)]
    if not metrics:
        return
    got = rmt.evaluate(c["scores"], torch.from_numpy(c["grades"]), metrics, exclude=torch.from_numpy(c["excluded"]),
                       item_ids=c["item_ids"], ties=ties)
    s64 = c["scores"].to(torch.float64).numpy()
    lists = python_topk(s64, c["excluded"], ids, m)
    qrels = {str(u): {ids[j]: int(c["grades"][u, j]) for j in range(m) if not c["excluded"][u, j]} for u in range(n)}
    run = {str(u): {ids[j]: float(s64[u, j]) for j in lst} for u, lst in enumerate(lists) if lst}
    want = rankmeter.evaluate({u: j for u, j in qrels.items() if j}, run, metrics, ties=ties)
    assert_values_equal(got, want)
    for name, (lo, hi) in want.tie_values.items():
        np.testing.assert_allclose(got.tie_values[name][0], lo, rtol=0, atol=1e-12)
        np.testing.assert_allclose(got.tie_values[name][1], hi, rtol=0, atol=1e-12)
    assert [t for t in got.notes if not t.startswith("cutoff ")] == want.notes


def test_evaluator_with_a_tie_rule_equals_one_call() -> None:
    rng = np.random.default_rng(9)
    scores = torch.from_numpy(rng.integers(0, 3, (17, 30)).astype(np.float32))
    grades = torch.from_numpy(rng.choice([0, 0, 1, 2], (17, 30)))
    metrics = ["ndcg@5", "P@3", "recall@5"]
    one = rmt.evaluate(scores, grades, metrics, ties="bounds")
    ev = rmt.Evaluator(metrics, ties="bounds")
    for a, b in ((0, 4), (4, 5), (5, 17)):
        ev.update(scores[a:b], grades[a:b])
    got = ev.compute()
    assert got.notes == one.notes and any(n.startswith("ties=bounds") for n in got.notes)
    for name, (lo, hi) in one.tie_values.items():
        np.testing.assert_array_equal(got.tie_values[name][0], lo)
        np.testing.assert_array_equal(got.tie_values[name][1], hi)


@settings(max_examples=30, deadline=None)
@given(cases())
def test_tool_conventions_equal_rankmeter_evaluate(c: dict[str, Any]) -> None:
    """A tool's metric that carries its own tie rule (sklearn:ndcg averages tied gains) reads whole groups too."""
    n, m = c["scores"].shape
    ids = names(c["item_ids"], m)
    k = c["k"]
    metrics = [f"sklearn:ndcg@{k}", f"torchmetrics:ndcg@{max(1, k // 2)}", f"torchmetrics:map@{k}",
               f"rectools:ndcg@{k}", f"ndcg@{k}", f"torchmetrics:hit_rate@{k}"]
    got = rmt.evaluate(c["scores"], torch.from_numpy(c["grades"]), metrics, exclude=torch.from_numpy(c["excluded"]),
                       item_ids=c["item_ids"])
    s64 = c["scores"].to(torch.float64).numpy()
    lists = python_topk(s64, c["excluded"], ids, m)
    qrels = {str(u): {ids[j]: int(c["grades"][u, j]) for j in range(m) if not c["excluded"][u, j]} for u in range(n)}
    run = {str(u): {ids[j]: float(s64[u, j]) for j in lst} for u, lst in enumerate(lists) if lst}
    want = rankmeter.evaluate({u: j for u, j in qrels.items() if j}, run, metrics)
    assert_values_equal(got, want)
    assert [t for t in got.notes if not t.startswith("cutoff ")] == want.notes
