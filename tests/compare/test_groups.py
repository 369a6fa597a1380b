"""Result.by_group: means per user group equal a pandas group-by of per_query; nothing dropped silently."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

import rankmeter
from rankmeter._errors import InputError, ParameterError
from rankmeter.beyond import context_from_train
from rankmeter.datasets import movielens100k_like
from rankmeter.metrics.beyond import train_items
from rankmeter.recommenders import MostPopular, Random

METRICS = ["ndcg@10", "recall@10", "aplt@10", "pop_lift@10", "miscalibration@10", "gini@10"]


@pytest.fixture(scope="module")
def ml() -> dict:
    from rankmeter.split import temporal

    d = movielens100k_like(0)
    s = temporal(d.interactions, per_user=True, test_fraction=0.2)
    train, test = s.table("train"), s.table("test")
    cats = {i: (frozenset() if n % 7 == 0 else c) for n, (i, c) in enumerate(sorted(d.categories.items()))}
    ctx = context_from_train(train, categories=cats)
    tu, ti = train_items(train)
    keep = [not u.endswith("7") for u in tu.to_pylist()]  # users ending in 7: no profile (nan, left out)
    ctx["train_items"] = (tu.filter(keep), ti.filter(keep))
    qrels = test.select(["user", "item"]).rename_columns(["query", "item"])
    users = sorted({str(u) for u in test.column("user").to_pylist()})
    out = {}
    for name, rec in (("popular", MostPopular()), ("random", Random(seed=1))):
        lists = rec.fit(train).recommend(users, k=10).rename_columns(["query", "item", "score"])
        out[name] = rankmeter.evaluate(qrels, lists, METRICS, context=ctx)
    # activity terciles of the training profiles; the busiest 5 users get no group
    n_train = pd.Series(train.column("user").to_pylist()).astype(str).value_counts()
    terc = pd.qcut(n_train.rank(method="first"), 3, labels=["low", "mid", "high"]).astype(str)
    groups = {u: g for u, g in terc.items() if u not in set(n_train.index[:5])}
    return {"results": out, "groups": groups}


def test_by_group_equals_a_pandas_group_by(ml: dict) -> None:
    res = ml["results"]["popular"]
    g = res.by_group(ml["groups"])
    frame = res.per_query.copy()
    frame["group"] = [ml["groups"].get(q) for q in frame.index]
    want = frame.dropna(subset=["group"]).groupby("group")[list(res.values)].mean()  # pandas skips nan
    assert list(g.groups) == sorted(want.index)
    pd.testing.assert_frame_equal(g.means.sort_index(), want.sort_index(), check_names=False, rtol=0, atol=1e-12)
    sizes = frame.dropna(subset=["group"]).groupby("group").size().to_dict()
    assert g.sizes == sizes
    # the 5 ungrouped users are counted and named in a note, never silently dropped
    assert g.ungrouped == 5 and len(g.ungrouped_ids) == 5
    assert any("5 queries of" in n and "no group" in n for n in g.notes)
    # users without a categorised profile: nan, left out of the mean and counted per group
    nan_per_group = frame[frame["miscalibration@10"].isna()].groupby("group").size().to_dict()
    assert nan_per_group and {k: v for k, v in g.left_out["miscalibration@10"].items() if v} == nan_per_group
    # gap: max - min and min/max of the group means
    for m in res.values:
        col = want[m]
        assert g.gap.loc[m, "max_minus_min"] == pytest.approx(col.max() - col.min(), abs=1e-12)
        ratio = col.min() / col.max() if col.max() != 0 else math.nan  # aplt of MostPopular: 0 everywhere
        assert g.gap.loc[m, "min_over_max"] == pytest.approx(ratio, abs=1e-12, nan_ok=True)
        assert g.gap.loc[m, "highest"] == col.idxmax()
    # corpus-level metrics are not split, and a note says so
    assert "gini@10" not in g.means.columns and any("gini@10" in n for n in g.notes)


def test_tables_and_files_give_the_same_groups(ml: dict, tmp_path) -> None:
    res = ml["results"]["random"]
    base = res.by_group(ml["groups"])
    pairs = sorted(ml["groups"].items())
    df = pd.DataFrame(pairs, columns=["user", "group"])
    tsv = tmp_path / "groups.tsv"
    tsv.write_text("user\tgroup\n" + "".join(f"{u}\t{g}\n" for u, g in pairs), encoding="utf-8")
    csv = tmp_path / "groups.csv"
    csv.write_text("".join(f"{u},{g}\n" for u, g in pairs), encoding="utf-8")
    for other in (df, df.set_index("user")["group"], str(tsv), csv):
        g = res.by_group(other)
        pd.testing.assert_frame_equal(g.means, base.means)
        assert g.sizes == base.sizes
    polars = pytest.importorskip("polars")
    g = res.by_group(polars.from_pandas(df))
    pd.testing.assert_frame_equal(g.means, base.means)
    assert any("header" in n for n in res.by_group(str(tsv)).notes)


def test_bad_group_files_are_refused_with_their_line(tmp_path) -> None:
    r = rankmeter.evaluate({"u1": ["a"]}, {"u1": ["a"]}, ["rr"])
    bad = tmp_path / "g.tsv"
    bad.write_text("u1\tA\nu2\tB\textra\n", encoding="utf-8")
    with pytest.raises(InputError, match="two columns") as exc:
        r.by_group(str(bad))
    assert exc.value.line == 2
    bad.write_text("u1\tA\nu1\tB\n", encoding="utf-8")
    with pytest.raises(InputError, match="'A' on line 1 and 'B'"):
        r.by_group(str(bad))
    with pytest.raises(InputError, match="no such file"):
        r.by_group(str(tmp_path / "missing.tsv"))
    with pytest.raises(ParameterError, match="two groups"):
        r.by_group(pd.DataFrame({"q": ["u1", "u1"], "g": ["A", "B"]}))
    with pytest.raises(ParameterError, match="one of welch"):
        r.by_group({"u1": "A"}, test="t")


def test_unpaired_tests_between_groups(ml: dict) -> None:
    from scipy import stats as ss

    res = ml["results"]["popular"]
    g = res.by_group(ml["groups"], test="welch")
    row = g.tests[(g.tests.metric == "ndcg@10") & (g.tests.group == "high") & (g.tests.other == "low")].iloc[0]
    frame = res.per_query
    a = frame.loc[[q for q in frame.index if ml["groups"].get(q) == "high"], "ndcg@10"].to_numpy()
    b = frame.loc[[q for q in frame.index if ml["groups"].get(q) == "low"], "ndcg@10"].to_numpy()
    want = ss.ttest_ind(a, b, equal_var=False)
    assert row.statistic == pytest.approx(want.statistic, rel=1e-12) and row.p_value == pytest.approx(want.pvalue)
    assert row["diff"] == pytest.approx(a.mean() - b.mean(), abs=1e-12)
    # 3 groups: 3 pairs per metric, Holm-adjusted within the metric
    assert len(g.tests) == 3 * len(res.values)
    sub = g.tests[g.tests.metric == "ndcg@10"]
    assert (sub.p_adjusted >= sub.p_value - 1e-15).all()
    p1 = res.by_group(ml["groups"], test="permutation", n_resamples=500, seed=4).tests
    p2 = res.by_group(ml["groups"], test="permutation", n_resamples=500, seed=4).tests
    pd.testing.assert_frame_equal(p1, p2)
    assert ((p1.p_value > 0) & (p1.p_value <= 1)).all()


def test_paired_test_against_a_baseline_within_each_group(ml: dict) -> None:
    pop, rnd = ml["results"]["popular"], ml["results"]["random"]
    g = pop.by_group(ml["groups"], test="t", against=rnd)
    row = g.tests[(g.tests.metric == "ndcg@10") & (g.tests.group == "mid")].iloc[0]
    qs = [q for q in pop.queries if ml["groups"].get(q) == "mid"]
    x = pop.per_query.loc[qs, "ndcg@10"].to_numpy()
    y = rnd.per_query.loc[qs, "ndcg@10"].to_numpy()
    want = rankmeter.stats.paired_t(x, y)
    assert row.p_value == pytest.approx(want.p_value, rel=1e-12) and row.n == len(qs)
    assert row["diff"] == pytest.approx(float(np.mean(x - y)), abs=1e-12)
    assert set(g.tests.other) == {"against"}  # unnamed: a word, not a placeholder in brackets
    named = pop.by_group(ml["groups"], test="t", against=rnd, against_name="random")
    assert set(named.tests.other) == {"random"}


def test_a_group_without_values_has_nan_gap() -> None:
    r = rankmeter.evaluate({"u1": ["a"], "u2": ["b"]}, {"u1": ["a"], "u2": ["x"]}, ["rr"])
    g = r.by_group({"u1": "A", "u2": "B"})
    assert g.gap.loc["rr", "max_minus_min"] == 1.0 and g.gap.loc["rr", "min_over_max"] == 0.0
    g = rankmeter.evaluate({"u2": ["b"]}, {"u2": ["x"]}, ["rr"]).by_group({"u2": "B"})
    assert math.isnan(g.gap.loc["rr", "min_over_max"])
    assert g.to_dict()["groups"] == {"B": {"size": 1, "mean": {"rr": 0.0}}}


def test_activity_groups_are_equal_size_terciles_of_training_activity() -> None:
    from rankmeter.compare.groups import activity_groups

    d = movielens100k_like(0)
    users = [str(u) for u in d.interactions.column("user").to_pylist()]
    items = [str(i) for i in d.interactions.column("item").to_pylist()]
    g = activity_groups(d.interactions)
    distinct: dict[str, set[str]] = {}
    for u, i in zip(users, items):
        distinct.setdefault(u, set()).add(i)
    order = sorted(distinct, key=lambda u: (len(distinct[u]), u.encode()))
    assert set(g) == set(distinct)
    sizes = pd.Series(g).value_counts().to_dict()
    assert sorted(sizes.values()) == [314, 314, 315] and set(sizes) == {"low", "mid", "high"}
    assert [g[u] for u in order[:315]] == ["low"] * 315 and [g[u] for u in order[-314:]] == ["high"] * 314
    assert max(len(distinct[u]) for u in order if g[u] == "low") <= min(len(distinct[u]) for u in order
                                                                        if g[u] == "mid")
    with pytest.raises(ParameterError, match="'labels' parameter of activity_groups must give 2 labels"):
        activity_groups(d.interactions, 2, ["a"])


def test_delta_gap_of_each_group() -> None:
    ctx = {"popularity": {"a": .5, "b": .2, "c": .1, "d": .1, "e": .1}, "n_users": 10,
           "train_items": {"u1": ["a", "b"], "u2": ["c", "d"], "u3": ["a"]}}
    run = {"u1": ["a", "d"], "u2": ["b", "e"], "u3": ["c"]}
    qrels = {"u1": ["a"], "u2": ["c"], "u3": ["c"]}
    r = rankmeter.evaluate(qrels, run, ["arp(pop=share)@2", "profile_popularity", "pop_lift@2"], context=ctx)
    g = r.by_group({"u1": "A", "u2": "A", "u3": "B"})
    # group A: GAP_r = mean(.3, .15), GAP_p = mean(.35, .1); B: .1 vs .5
    want_a = ((.3 + .15) / 2 - (.35 + .1) / 2) / ((.35 + .1) / 2)
    assert g.delta_gap.loc["A", "arp(pop=share)@2"] == pytest.approx(want_a, abs=1e-12)
    assert g.delta_gap.loc["B", "arp(pop=share)@2"] == pytest.approx((.1 - .5) / .5, abs=1e-12)
    # not the group's mean of pop_lift
    assert g.means.loc["A", "pop_lift@2"] != pytest.approx(want_a)
    assert g.to_dict()["delta_gap"]["arp(pop=share)@2"]["B"] == pytest.approx(-0.8)
    assert rankmeter.evaluate(qrels, run, ["arp@2"], context=ctx).by_group({"u1": "A"}).delta_gap is None


def test_float_query_ids_in_groups_are_refused_not_turned_into_text() -> None:
    # 1.0 is not the id "1": a float id would silently match nothing
    import pandas as pd
    import pytest

    from rankmeter._errors import ParameterError
    from rankmeter.stats.groups import read_groups

    with pytest.raises(ParameterError, match="floating-point"):
        read_groups(pd.DataFrame({"user": [1.0, 2.0], "group": ["a", "b"]}))
    with pytest.raises(ParameterError, match="floating-point"):
        read_groups({1.5: "a"})
    assert read_groups(pd.DataFrame({"user": [1, 2], "group": ["a", "b"]}))[0] == {"1": "a", "2": "b"}
