"""Generated data sets and sampled-negative candidates."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pytest

from rankmeter import ParameterError
from rankmeter.datasets import movielens100k_like, synthetic, write_udata
from rankmeter.io.interactions import read_interactions
from rankmeter.sampled import Candidates, label, restrict, sample_negatives


@pytest.fixture(scope="module")
def ml():
    return movielens100k_like(seed=0)


def test_movielens100k_shape(ml) -> None:
    t = ml.interactions
    u = t.column("user").to_numpy()
    i = t.column("item").to_numpy()
    r = t.column("rating").to_numpy()
    assert t.num_rows == 100_000
    assert len(np.unique(u)) == 943 and u.min() == 1 and u.max() == 943
    assert len(np.unique(i)) == 1682 and i.min() == 1 and i.max() == 1682
    assert np.bincount(u)[1:].min() >= 20            # every user rated at least 20 items, as in u.data
    assert len(np.unique(u * 10_000 + i)) == 100_000  # no (user, item) twice
    assert set(np.unique(r)) == {1, 2, 3, 4, 5} and 3.2 < r.mean() < 3.8
    ts = t.column("timestamp").to_numpy()
    assert 874_724_710 <= ts.min() and ts.max() <= 893_286_638


def test_power_law_popularity(ml) -> None:
    counts = np.sort(np.bincount(ml.interactions.column("item").to_numpy())[1:])[::-1]
    # the top 10% of items take far more than 10% of the interactions (MovieLens: about 45%)
    assert counts[: len(counts) // 10].sum() / counts.sum() > 0.3
    assert counts[0] > 10 * np.median(counts)  # MovieLens-100k: 583 vs a median of 27


def test_deterministic_and_seed_dependent() -> None:
    a = synthetic(n_users=60, n_items=90, seed=1)
    b = synthetic(n_users=60, n_items=90, seed=1)
    c = synthetic(n_users=60, n_items=90, seed=2)
    assert a.interactions.equals(b.interactions) and a.categories == b.categories
    np.testing.assert_array_equal(a.item_features[1], b.item_features[1])
    assert not a.interactions.equals(c.interactions)


def test_latent_tastes_are_visible() -> None:
    """Users follow their tastes: the genre a user liked most in one half of their items is more
    frequent in the other half than among another user's items (same popularity bias, other tastes)."""
    d = synthetic(n_users=300, n_items=600, seed=5)
    t = d.interactions
    cats = d.categories
    users = t.column("user").to_numpy()
    items = t.column("item").to_numpy().astype(str)
    rng = np.random.default_rng(0)
    ids = np.unique(users)
    own, other = [], []
    for u in ids:
        mine = rng.permutation(items[users == u])
        half_a, half_b = mine[: len(mine) // 2], mine[len(mine) // 2:]
        freq: dict[str, int] = {}
        for i in half_a:
            for g in cats[i]:
                freq[g] = freq.get(g, 0) + 1
        top = max(sorted(freq), key=freq.get)
        v = rng.choice(ids[ids != u])
        theirs = items[users == v]
        own.append(np.mean([top in cats[i] for i in half_b]))
        other.append(np.mean([top in cats[i] for i in theirs]))
    assert np.mean(own) > np.mean(other) + 0.2


def test_write_udata_roundtrip(tmp_path) -> None:
    d = synthetic(n_users=30, n_items=40, seed=0)
    p = write_udata(d, tmp_path / "u.data")
    first = p.read_text().splitlines()[0].split("\t")
    assert len(first) == 4 and all(x.isdigit() for x in first)
    back = read_interactions(p)
    assert (back.user, back.item, back.rating, back.timestamp) == ("user", "item", "rating", "timestamp")
    assert len(back) == d.interactions.num_rows
    paths = d.write(tmp_path / "w")
    assert paths["item_features"].read_text().startswith("item\tf0\t")


def test_bad_sizes() -> None:
    with pytest.raises(ParameterError, match="'n_users' parameter of synthetic"):
        synthetic(n_users=1)
    with pytest.raises(ParameterError, match="cannot place"):
        movielens100k_like(n_users=10, n_items=5, n_ratings=1000)


# ----------------------------------------------------------------------------- sampled negatives

TEST = {"user": ["u1", "u1", "u2"], "item": ["a", "b", "c"]}
KNOWN = {"user": ["u1", "u1", "u1", "u2", "u2"], "item": ["a", "b", "d", "c", "e"]}
CATALOG = list("abcdefghij")


def test_negatives_avoid_known_items() -> None:
    c = sample_negatives(TEST, n=4, seed=0, interactions=KNOWN, catalog=CATALOG)
    m = c.to_mapping()
    # u1 tested on a, b; knows a, b, d -> 4 negatives among c e f g h i j
    assert m["u1"][:2] == ["a", "b"] and len(m["u1"]) == 6
    assert not set(m["u1"][2:]) & {"a", "b", "d"} and len(set(m["u1"][2:])) == 4
    assert m["u2"][:1] == ["c"] and not set(m["u2"][1:]) & {"c", "e"}
    assert c.negatives.tolist() == [4, 4] and c.short_users == 0


def test_negatives_are_deterministic_per_user() -> None:
    a = sample_negatives(TEST, n=3, seed=9, interactions=KNOWN, catalog=CATALOG).to_mapping()
    only_u1 = {"user": ["u1", "u1"], "item": ["a", "b"]}
    b = sample_negatives(only_u1, n=3, seed=9, interactions=KNOWN, catalog=CATALOG).to_mapping()
    assert a["u1"] == b["u1"]  # u2's presence changes nothing for u1
    c = sample_negatives(TEST, n=3, seed=10, interactions=KNOWN, catalog=CATALOG).to_mapping()
    assert a != c


def test_negatives_uniform() -> None:
    """Each free item is drawn about equally often (one user, 3,000 seeds)."""
    counts: dict[str, int] = {}
    for s in range(3000):
        neg = sample_negatives(TEST, n=2, seed=s, interactions=KNOWN, catalog=CATALOG).to_mapping()["u1"][2:]
        for i in neg:
            counts[i] = counts.get(i, 0) + 1
    # 7 free items, 2 drawn each time: expected 6000/7 = 857 each
    assert set(counts) == set("cefghij") and all(abs(v - 857) < 120 for v in counts.values())


def test_short_users() -> None:
    c = sample_negatives(TEST, n=8, seed=0, interactions=KNOWN, catalog=CATALOG)
    # u1 has 7 free items, u2 has 8: u1 is short
    assert c.negatives.tolist() == [7, 8] and c.short_users == 1


def test_label_and_restrict() -> None:
    c = sample_negatives(TEST, n=2, seed=4, interactions=KNOWN, catalog=CATALOG)
    assert c.label == label(2, 4) == "sampled (N=2, seed=4): inflates scores vs full ranking"
    assert "inflates" in repr(c)
    cands = c.to_mapping()["u1"]
    outside = next(i for i in CATALOG if i not in cands)
    table = pa.table({"user": ["u1", "u1", "u3"], "item": [cands[0], outside, "a"], "score": [1.0, 0.5, 0.2]})
    kept, dropped = restrict(table, c)
    assert kept.column("item").to_pylist() == [cands[0]] and dropped == 2
    with pytest.raises(ParameterError, match="'n' parameter of sample_negatives"):
        sample_negatives(TEST, n=0)
    assert isinstance(c, Candidates)
