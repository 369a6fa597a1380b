"""Reference recommenders: hand-worked lists, the tie rule, seen items, determinism, slow references."""

from __future__ import annotations

import math

import numpy as np
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rankmeter import ParameterError, RankmeterError, Run
from rankmeter.recommenders import (
    CallableRecommender,
    ItemKNN,
    MostPopular,
    Random,
    TopKLists,
    as_recommendation_table,
    make_recommender,
    topk_rows,
)

# u1: a b c   u2: a b   u3: a d   u4: a   u5: e
TRAIN = {"user": ["u1", "u1", "u1", "u2", "u2", "u3", "u3", "u4", "u5"],
         "item": ["a", "b", "c", "a", "b", "a", "d", "a", "e"]}


def lists(table: pa.Table) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for u, i in zip(table.column("user").to_pylist(), table.column("item").to_pylist()):
        out.setdefault(u, []).append(i)
    return out


def test_topk_rows_tie_rule() -> None:
    s = np.array([[0.5, 0.9, 0.9, 0.9, -np.inf], [1.0, 1.0, 1.0, 1.0, 1.0], [-np.inf] * 5])
    r, c, v = topk_rows(s, 2)
    # row 0: the three 0.9 tie; the largest columns first -> 3, 2
    # row 1: all tie -> 4, 3; row 2: nothing allowed
    assert list(zip(r.tolist(), c.tolist())) == [(0, 3), (0, 2), (1, 4), (1, 3)]
    assert v.tolist() == [0.9, 0.9, 1.0, 1.0]


@settings(max_examples=200)
@given(st.lists(st.lists(st.sampled_from([0.0, 1.0, 2.0, -np.inf]), min_size=6, max_size=6), min_size=1,
                max_size=5), st.integers(1, 8))
def test_topk_rows_equals_a_full_sort(rows, k) -> None:
    s = np.array(rows)
    r, c, v = topk_rows(s, k)
    for n, row in enumerate(s):
        # slow reference: sort every allowed column by (score desc, column desc), keep k
        want = sorted((j for j in range(len(row)) if row[j] > -np.inf), key=lambda j: (-row[j], -j))[:k]
        assert c[r == n].tolist() == want


def test_most_popular_hand() -> None:
    rec = MostPopular().fit(TRAIN)
    # users per item: a=4, b=2, c=d=e=1 (ties by id descending: e, d, c)
    out = lists(rec.recommend(["u1", "u5", "new"], k=3))
    assert out == {"u1": ["e", "d"],          # a, b, c are u1's own: only d and e are left
                   "u5": ["a", "b", "d"],     # e is u5's own
                   "new": ["a", "b", "e"]}    # an unknown user gets the plain popularity list
    assert lists(rec.recommend(["u1"], k=2, exclude_seen=False)) == {"u1": ["a", "b"]}


def test_recommendations_as_run_keep_the_order() -> None:
    """Run applies the same tie rule, so the lists survive the conversion unchanged."""
    t = MostPopular().fit(TRAIN).recommend(["new"], k=5)
    run = Run.from_columns(t.column("user"), t.column("item"), t.column("score"))
    assert run.to_lists() == {"new": ["a", "b", "e", "d", "c"]}


def test_itemknn_hand() -> None:
    # binary columns: a = {u1,u2,u3,u4}, b = {u1,u2}, c = {u1}, d = {u3}, e = {u5}
    # cos(a,b) = 2/sqrt(4*2) = 0.7071; cos(a,c) = 1/2; cos(a,d) = 1/2; cos(b,c) = 1/sqrt2 = 0.7071; e: none
    rec = ItemKNN(neighbors=10).fit(TRAIN)
    w = rec.weights.toarray()
    assert w[0, 1] == pytest.approx(2 / math.sqrt(8)) and w[0, 2] == pytest.approx(0.5)
    assert w[1, 2] == pytest.approx(1 / math.sqrt(2)) and w[4].sum() == 0 and np.all(np.diag(w) == 0)
    # u4 has {a}: scores b = 0.7071, c = d = 0.5 (tie: d first), e = 0
    t = rec.recommend(["u4"], k=4)
    assert lists(t) == {"u4": ["b", "d", "c", "e"]}
    assert t.column("score").to_pylist() == pytest.approx([2 / math.sqrt(8), 0.5, 0.5, 0.0])
    # u2 has {a, b}: c = cos(a,c) + cos(b,c) = 0.5 + 0.7071; d = 0.5
    t = rec.recommend(["u2"], k=2)
    assert lists(t) == {"u2": ["c", "d"]}
    assert t.column("score").to_pylist() == pytest.approx([0.5 + 1 / math.sqrt(2), 0.5])


def test_itemknn_neighbour_pruning() -> None:
    # with 1 neighbour, a keeps only b (0.7071 > 0.5); c keeps b (0.7071) over a (0.5)
    rec = ItemKNN(neighbors=1).fit(TRAIN)
    w = rec.weights.toarray()
    assert (w > 0).sum(axis=1).tolist() == [1, 1, 1, 1, 0]
    assert w[0, 1] > 0 and w[2, 1] > 0 and w[2, 0] == 0


@settings(max_examples=40)
@given(st.lists(st.tuples(st.integers(0, 7), st.integers(0, 9)), min_size=1, max_size=40), st.integers(1, 5))
def test_itemknn_equals_slow_reference(pairs, neighbors) -> None:
    users = [f"u{u}" for u, _ in pairs]
    items = [f"i{i}" for _, i in pairs]
    rec = ItemKNN(neighbors=neighbors).fit({"user": users, "item": items})
    seen: dict[str, set[str]] = {}
    for u, i in zip(users, items):
        seen.setdefault(u, set()).add(i)
    vocab = sorted(set(items))
    col = {i: {u for u in seen if i in seen[u]} for i in vocab}

    def cos(a: str, b: str) -> float:
        return len(col[a] & col[b]) / math.sqrt(len(col[a]) * len(col[b]))

    # each item's `neighbors` most similar others (positive similarity; ties by id descending)
    nbrs = {}
    for j in vocab:
        cand = sorted((x for x in vocab if x != j and cos(j, x) > 0), key=lambda x: (-cos(j, x), [-ord(ch) for ch in x]))
        nbrs[j] = {x: cos(j, x) for x in cand[:neighbors]}
    got = lists(rec.recommend(sorted(seen), k=len(vocab)))
    for u in sorted(seen):
        scores = {i: sum(nbrs[j].get(i, 0.0) for j in seen[u]) for i in vocab if i not in seen[u]}
        want = sorted(scores, key=lambda i: (-round(scores[i], 12), [-ord(ch) for ch in i]))
        assert got.get(u, []) == want


def test_random_is_deterministic_per_user_and_excludes_seen() -> None:
    rec = Random(seed=5).fit(TRAIN)
    a = lists(rec.recommend(["u1", "u2", "u3"], k=10))
    b = lists(Random(seed=5).fit(TRAIN).recommend(["u3", "u1"], k=10))
    assert a["u1"] == b["u1"] and a["u3"] == b["u3"]  # independent of the other users asked for
    assert sorted(a["u1"]) == ["d", "e"] and set(a["u3"]) == {"b", "c", "e"}
    c = lists(Random(seed=6).fit(TRAIN).recommend(["new"], k=5))
    d = lists(Random(seed=5).fit(TRAIN).recommend(["new"], k=5))
    assert sorted(c["new"]) == sorted(d["new"]) == list("abcde")
    assert c != d  # another seed, another order (5! orders: equal by chance with p = 1/120)


def test_random_is_uniform() -> None:
    """Each of 5 items is first for about 1/5 of 2,000 users (a chi-square-sized tolerance)."""
    rec = Random(seed=0).fit({"user": ["x"] * 5, "item": list("abcde")})
    t = rec.recommend([f"u{n}" for n in range(2000)], k=1)
    counts = np.unique(t.column("item").to_numpy(zero_copy_only=False), return_counts=True)[1]
    assert len(counts) == 5 and np.all(np.abs(counts - 400) < 80)


def test_candidates_restrict_the_lists() -> None:
    rec = MostPopular().fit(TRAIN)
    # candidates may hold an item unseen in training (zz, score 0) and the user's own items (kept)
    t = rec.recommend(["u1"], k=3, candidates={"u1": ["zz", "c", "a"]})
    assert lists(t) == {"u1": ["a", "c", "zz"]}
    assert t.column("score").to_pylist() == [4.0, 1.0, 0.0]
    with pytest.raises(ParameterError, match="no list for 1 requested users"):
        rec.recommend(["u1", "u2"], k=3, candidates={"u1": ["a"]})


def test_bad_parameters() -> None:
    with pytest.raises(ParameterError, match="'k' parameter"):
        MostPopular().fit(TRAIN).recommend(["u1"], k=0)
    with pytest.raises(ParameterError, match="'neighbors' parameter of ItemKNN"):
        ItemKNN(neighbors=0)
    with pytest.raises(ParameterError, match="'seed' parameter of Random"):
        Random(seed=-1)
    with pytest.raises(RankmeterError, match="not fitted"):
        MostPopular().recommend(["u1"], k=2)
    with pytest.raises(ParameterError, match="unknown recommender 'bogus'"):
        make_recommender("bogus")
    with pytest.raises(ParameterError, match="takes none"):
        make_recommender(lambda tr, us, k: None, {"x": 1})


def test_user_lists_from_file(tmp_path) -> None:
    p = tmp_path / "lists.tsv"
    p.write_text("user\titem\trank\nu1\tb\t2\nu1\ta\t1\nu1\ta\t3\nu9\tz\t1\n")
    rec = make_recommender(str(p))
    assert isinstance(rec, TopKLists) and rec.name == "lists"
    t = rec.recommend(["u1"], k=10)  # rows kept as they are (duplicate included), other users dropped
    assert t.column("item").to_pylist() == ["b", "a", "a"] and t.column("score").to_pylist() == [-2.0, -1.0, -3.0]
    trec = tmp_path / "run.trec"
    trec.write_text("u1 Q0 a 1 3.0 sys\nu1 Q0 b 2 2.5 sys\n")
    assert lists(make_recommender(str(trec)).recommend(["u1"], k=2)) == {"u1": ["a", "b"]}


def test_callable_recommender() -> None:
    calls = []

    def recommend(train, users, k, exclude_seen=True):
        calls.append((train.num_rows if hasattr(train, "num_rows") else None, list(users), k, exclude_seen))
        return {u: ["a", "b"][:k] for u in users}

    rec = CallableRecommender(recommend).fit(pa.table(TRAIN))
    t = rec.recommend(["u1", "u2"], k=1, exclude_seen=False)
    assert lists(t) == {"u1": ["a"], "u2": ["a"]} and calls == [(9, ["u1", "u2"], 1, False)]


def test_as_recommendation_table_forms() -> None:
    t = as_recommendation_table({"u": {"a": 0.5, "b": 0.9}})
    assert t.column("score").to_pylist() == [0.5, 0.9]
    t = as_recommendation_table({"u": ["a", "b"]})
    assert t.column("score").to_pylist() == [-1.0, -2.0]
    import pandas as pd

    t = as_recommendation_table(pd.DataFrame({"user_id": [1, 1], "item_id": [7, 8]}))
    assert t.column("user").to_pylist() == ["1", "1"] and t.column("score").to_pylist() == [-1.0, -2.0]
