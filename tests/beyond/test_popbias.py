"""Popularity bias, calibration and exposure on MovieLens-100k-shaped data, against a plain-Python
reading of the definitions (docs/beyond.md), user by user, within 1e-9."""

from __future__ import annotations

import math

import numpy as np
import pytest

import rankmeter
from rankmeter._errors import ParameterError
from rankmeter.beyond import context_from_train
from rankmeter.datasets import movielens100k_like
from rankmeter.metrics.beyond import train_items
from rankmeter.recommenders import MostPopular, Random

K = 10
PER_USER = ["aplt@10", "aclt@10", "aplt(head_share=0.5)@10", "pop_lift@10", "profile_popularity", "miscalibration@10",
            "miscalibration(weights=rank,alpha=0.05)@10"]
CORPUS = ["pop_rsp@10", "pop_reo@10", "exposure_share@10", "exposure_share(groups=item_groups,group=g0)@10",
          "exposure_gap@10", "exposure_gap(groups=item_groups,target=relevant,weight=rbp,p=0.7)@10"]


@pytest.fixture(scope="module")
def ml() -> dict:
    from rankmeter.split import temporal

    d = movielens100k_like(0)
    s = temporal(d.interactions, per_user=True, test_fraction=0.2)
    train, test = s.table("train"), s.table("test")
    tr_pairs = list(zip(map(str, train.column("user").to_pylist()), map(str, train.column("item").to_pylist())))
    te_pairs = list(zip(map(str, test.column("user").to_pylist()), map(str, test.column("item").to_pylist())))
    # a few items lose their categories (left out of calibration); some users none at all
    cats = {i: (frozenset() if n % 11 == 0 else c) for n, (i, c) in enumerate(sorted(d.categories.items()))}
    ctx = context_from_train(train, categories=cats)
    ctx["train_items"] = train_items(train)
    ctx["test_items"] = train_items(test)
    ctx["item_groups"] = {i: f"g{n % 3}" for n, i in enumerate(sorted(d.categories))}
    users = sorted({u for u, _ in te_pairs})
    out = {}
    for name, rec in (("popular", MostPopular()), ("random", Random(seed=3))):
        lists = rec.fit(train).recommend(users, k=K)
        ranked: dict[str, list[str]] = {}
        for u, i in zip(map(str, lists.column(0).to_pylist()), map(str, lists.column(1).to_pylist())):
            ranked.setdefault(u, []).append(i)  # recommend() gives each list in rank order
        qrels = {}
        for u, i in te_pairs:
            qrels.setdefault(u, {})[i] = 1.0
        out[name] = (qrels, {u: {i: float(K - r) for r, i in enumerate(lst)} for u, lst in ranked.items()}, ranked)
    return {"ctx": ctx, "train": tr_pairs, "test": te_pairs, "cats": cats, "runs": out}


# ----------------------------------------------------------------------------- plain Python

def plain_facts(ml: dict) -> dict:
    seen: dict[str, set[str]] = {}
    for u, i in ml["train"]:
        seen.setdefault(u, set()).add(i)
    count: dict[str, int] = {}
    for items in seen.values():
        for i in items:
            count[i] = count.get(i, 0) + 1
    rel: dict[str, set[str]] = {}
    for u, i in ml["test"]:
        rel.setdefault(u, set()).add(i)
    return {"seen": seen, "count": count, "n_users": len(seen), "rel": rel}


def plain_head(f: dict, share: float) -> tuple[set[str], set[str]]:
    if ("head", share) in f:
        return f[("head", share)]
    order = sorted(f["count"], key=lambda i: (-f["count"][i], i.encode()))
    total, reached, head = sum(f["count"].values()), 0, set()
    for i in order:
        if reached >= share * total:
            break
        head.add(i)
        reached += f["count"][i]
    f[("head", share)] = head, set(f["count"]) - head
    return f[("head", share)]


def plain_user(metric: str, f: dict, cats: dict, u: str, lst: list[str]) -> float:
    phi = f.setdefault("phi", {i: c / f["n_users"] for i, c in f["count"].items()})
    if metric.startswith("aplt") or metric.startswith("aclt"):
        _, tail = plain_head(f, 0.5 if "0.5" in metric else 0.8)
        n_tail = sum(1 for i in lst if i in tail)
        return n_tail / len(lst) if metric.startswith("aplt") else float(n_tail)
    if metric == "profile_popularity":
        prof = f["seen"].get(u, set())
        return sum(phi[i] for i in prof) / len(prof) if prof else math.nan
    if metric.startswith("pop_lift"):
        prof = f["seen"].get(u, set())
        if not prof or not lst:
            return math.nan
        a = sum(phi.get(i, 0.0) for i in lst) / len(lst)
        b = sum(phi[i] for i in prof) / len(prof)
        return (a - b) / b
    alpha = 0.05 if "alpha" in metric else 0.01
    prof = [i for i in f["seen"].get(u, set()) if cats.get(i)]
    if not prof:
        return math.nan
    p: dict[str, float] = {}
    for i in prof:
        for g in cats[i]:
            p[g] = p.get(g, 0.0) + 1 / len(cats[i]) / len(prof)
    q: dict[str, float] = {}
    wsum = 0.0
    for r, i in enumerate(lst, start=1):
        if cats.get(i):
            w = 1 / math.log2(r + 1) if "rank" in metric else 1.0
            wsum += w
            for g in cats[i]:
                q[g] = q.get(g, 0.0) + w / len(cats[i])
    return sum(pg * math.log(pg / ((1 - alpha) * (q.get(g, 0.0) / wsum if wsum else 0.0) + alpha * pg))
               for g, pg in p.items())


def plain_corpus(metric: str, f: dict, ml: dict, lists: dict[str, list[str]], users: list[str]) -> float:
    head, tail = plain_head(f, 0.8)

    def spread(a: float, b: float) -> float:
        return abs(a - b) / (a + b)

    if metric.startswith("pop_rsp"):
        num_h = sum(i in head for u in users for i in lists.get(u, []))
        num_t = sum(i in tail for u in users for i in lists.get(u, []))
        den_h = sum(len(head - f["seen"].get(u, set())) for u in users)
        den_t = sum(len(tail - f["seen"].get(u, set())) for u in users)
        return spread(num_h / den_h, num_t / den_t)
    if metric.startswith("pop_reo"):
        hit_h = sum(i in head and i in f["rel"][u] for u in users for i in lists.get(u, []))
        hit_t = sum(i in tail and i in f["rel"][u] for u in users for i in lists.get(u, []))
        rel_h = sum(len(head & f["rel"][u]) for u in users)
        rel_t = sum(len(tail & f["rel"][u]) for u in users)
        return spread(hit_h / rel_h, hit_t / rel_t)
    if "item_groups" in metric:
        label = ml["ctx"]["item_groups"]
    else:
        label = {**{i: "head" for i in head}, **{i: "tail" for i in tail}}
    names = sorted(set(label.values()))
    rbp = "rbp" in metric
    exp = {g: 0.0 for g in names}
    for u in users:
        for r, i in enumerate(lists.get(u, []), start=1):
            if i in label:
                exp[label[i]] += 0.7 ** (r - 1) if rbp else 1 / math.log2(r + 1)
    share = {g: v / sum(exp.values()) for g, v in exp.items()}
    if metric.startswith("exposure_share"):
        return share["g0" if "g0" in metric else "tail"]
    if "relevant" in metric:
        rel = {g: 0 for g in names}
        for u in users:
            for i in f["rel"][u]:
                if i in label:
                    rel[label[i]] += 1
        want = {g: v / sum(rel.values()) for g, v in rel.items()}
    else:
        want = {g: 1 / len(names) for g in names}
    return max(abs(share[g] - want[g]) for g in names)


@pytest.mark.parametrize("run", ["popular", "random"])
def test_every_metric_equals_the_plain_reading(ml: dict, run: str) -> None:
    qrels, scored, ranked = ml["runs"][run]
    res = rankmeter.evaluate(qrels, scored, PER_USER + CORPUS, context=ml["ctx"])
    f = plain_facts(ml)
    users = list(res.queries)
    assert len(users) > 900
    for m in PER_USER:
        got = res.values[m]
        for u, v in zip(users, got):
            want = plain_user(m, f, ml["cats"], u, ranked.get(u, []))
            assert (math.isnan(want) and math.isnan(v)) or abs(v - want) <= 1e-9, (m, u, v, want)
    for m in CORPUS:
        want = plain_corpus(m, f, ml, ranked, users)
        assert abs(res.corpus[m] - want) <= 1e-9, (m, res.corpus[m], want)
    # some users have no categorised training item: left out (nan) and the mean is over the others
    mis = res.values["miscalibration@10"]
    assert res.mean["miscalibration@10"] == pytest.approx(float(np.mean(mis[~np.isnan(mis)])), abs=1e-12)


def test_most_popular_is_all_head() -> None:
    ctx = {"popularity": {"a": .5, "b": .2, "c": .1, "d": .1, "e": .1}, "n_users": 10}
    r = rankmeter.evaluate({"u": ["a"]}, {"u": ["a", "b", "c"]}, ["aplt@3", "exposure_gap@3"], context=ctx)
    assert r.mean == {"aplt@3": 0.0, "exposure_gap@3": 0.5}


def test_missing_profiles_name_the_helper() -> None:
    ctx = {"popularity": {"a": .5}, "n_users": 2}
    with pytest.raises(ParameterError, match=r"context\['train_items'\].*train_items\(train\)"):
        rankmeter.evaluate({"u": ["a"]}, {"u": ["a"]}, ["pop_lift@3"], context=ctx)
    with pytest.raises(ParameterError, match=r"context\['test_items'\]"):
        rankmeter.evaluate({"u": ["a"]}, {"u": ["a"]}, ["pop_reo@3"], context=ctx)
    with pytest.raises(ParameterError, match="'group' parameter of exposure_share must be one of"):
        rankmeter.evaluate({"u": ["a"]}, {"u": ["a"]}, ["exposure_share(group=middle)@3"], context=ctx)


def test_profiles_as_pairs_or_mapping_agree() -> None:
    ctx = {"popularity": {"a": .5, "b": .25}, "n_users": 4, "categories": {"a": {"x"}, "b": {"y"}}}
    m1 = dict(ctx, train_items={"u": ["a", "b", "a"]})
    m2 = dict(ctx, train_items=(["u", "u"], ["b", "a"]))
    a = rankmeter.evaluate({"u": ["a"]}, {"u": ["b"]}, ["pop_lift@1", "miscalibration@1"], context=m1)
    b = rankmeter.evaluate({"u": ["a"]}, {"u": ["b"]}, ["pop_lift@1", "miscalibration@1"], context=m2)
    assert a.mean == b.mean
    assert a.mean["pop_lift@1"] == pytest.approx((.25 - .375) / .375)
