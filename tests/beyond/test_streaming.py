"""Beyond-accuracy metrics through the streaming engine: chunks have their own item vocabularies,
so corpus states must merge by item id; every value equals the in-memory evaluation."""

from __future__ import annotations

import pyarrow.parquet as pq
import pytest

import rankmeter
from rankmeter.beyond import context_from_train
from rankmeter.datasets import synthetic
from rankmeter.metrics.beyond import train_items
from rankmeter.recommenders import ItemKNN, Random

stream = pytest.importorskip("rankmeter.stream")

METRICS = ["ndcg@10", "novelty@10", "arp@10", "serendipity@10", "ild@10", "ild(distance=jaccard)@10",
           "catalog_coverage@10", "user_coverage(of=relevant)@10", "personalization@10",
           "personalization(norm=cosine)@10", "gini@10", "entropy(normalize=catalog)@10",
           "aplt@10", "aclt@10", "pop_lift@10", "miscalibration(weights=rank)@10", "pop_rsp@10", "pop_reo@10",
           "exposure_share@10", "exposure_gap(target=relevant)@10"]


@pytest.mark.parametrize("rec", [ItemKNN(neighbors=20), Random(seed=3)], ids=["itemknn", "random"])
def test_stream_equals_in_memory(rec, tmp_path) -> None:
    from rankmeter.split import temporal

    d = synthetic(n_users=250, n_items=300, seed=1)
    s = temporal(d.interactions, per_user=True, test_fraction=0.2)
    train, test = s.table("train"), s.table("test")
    ctx = context_from_train(train, item_features=d.item_features, categories=d.categories)
    ctx["train_items"], ctx["test_items"] = train_items(train), train_items(test)
    users = sorted({str(u) for u in test.column("user").to_pylist()})
    lists = rec.fit(train).recommend(users, k=10)
    qrels: dict[str, dict[str, float]] = {}
    for u, i in zip(test.column("user").to_pylist(), test.column("item").to_pylist()):
        qrels.setdefault(str(u), {})[str(i)] = 1.0
    whole = rankmeter.evaluate(qrels, lists, METRICS, context=ctx)
    path = tmp_path / "run.parquet"
    pq.write_table(lists.rename_columns(["query", "item", "score"]), path)
    for chunk_rows in (333, 1000):  # chunks of about 33 and 100 users
        st = stream.evaluate_stream(qrels, str(path), METRICS, context=ctx, chunk_rows=chunk_rows)
        for m in METRICS:
            assert st.mean[m] == pytest.approx(whole.mean[m], abs=1e-12), (m, chunk_rows)


# ----------------------------------------------------------------------------- users without a profile

NEW_METRICS = ["aplt@10", "aclt@10", "pop_lift@10", "profile_popularity", "miscalibration@10",
               "miscalibration(weights=rank)@10", "pop_rsp@10", "pop_reo@10", "exposure_share@10",
               "exposure_gap(target=relevant)@10", "exposure_gap(groups=item_groups,weight=rbp)@10"]


@pytest.fixture(scope="module")
def newcomers():
    """MovieLens-100k-shaped data, per-user temporal split, then 40 test users' training rows removed:
    the experiment's case of test users without a training profile (nan for pop_lift, miscalibration)."""
    import pyarrow as pa

    from rankmeter.datasets import movielens100k_like
    from rankmeter.split import temporal

    d = movielens100k_like(1)
    s = temporal(d.interactions, per_user=True, test_fraction=0.2)
    train, test = s.table("train"), s.table("test")
    new = {str(u) for u in sorted(set(test.column("user").to_pylist()))[::23]}
    train = train.filter(pa.array([str(u) not in new for u in train.column("user").to_pylist()]))
    ctx = context_from_train(train, categories=d.categories)
    ctx["train_items"], ctx["test_items"] = train_items(train), train_items(test)
    ctx["item_groups"] = {i: f"p{int(i) % 4}" for i in d.categories}
    users = sorted({str(u) for u in test.column("user").to_pylist()})
    lists = Random(seed=5).fit(train).recommend(users, k=10)
    qrels: dict[str, dict[str, float]] = {}
    for u, i in zip(test.column("user").to_pylist(), test.column("item").to_pylist()):
        qrels.setdefault(str(u), {})[str(i)] = 1.0
    whole = rankmeter.evaluate(qrels, lists, NEW_METRICS, context=ctx)
    return {"qrels": qrels, "lists": lists, "ctx": ctx, "whole": whole, "new": new}


def _same(got, whole) -> None:
    import numpy as np

    for m in NEW_METRICS:
        if m in whole.values:
            a = dict(zip(map(str, got.queries), got.values[m]))
            b = np.array([a[str(u)] for u in whole.queries])
            assert np.array_equal(np.isnan(b), np.isnan(whole.values[m])), m
            np.testing.assert_allclose(b, whole.values[m], rtol=0, atol=1e-12, equal_nan=True, err_msg=m)
        assert got.mean[m] == pytest.approx(whole.mean[m], abs=1e-12), m


def test_stream_equals_in_memory_with_users_without_a_profile(newcomers, tmp_path) -> None:
    import numpy as np

    whole = newcomers["whole"]
    lost = np.isnan(whole.values["pop_lift@10"])
    assert lost.sum() == len(newcomers["new"]) and np.isnan(whole.values["miscalibration@10"]).sum() >= lost.sum()
    path = tmp_path / "run.parquet"
    pq.write_table(newcomers["lists"].rename_columns(["query", "item", "score"]), path)
    for chunk_rows in (777, 5000):
        st = stream.evaluate_stream(newcomers["qrels"], str(path), NEW_METRICS, context=newcomers["ctx"],
                                    chunk_rows=chunk_rows)
        _same(st, whole)


@pytest.mark.spark
@pytest.mark.slow
@pytest.mark.xdist_group("spark")
@pytest.mark.filterwarnings("ignore:PySpark does not yet fully support pandas")
def test_spark_equals_in_memory_with_users_without_a_profile(newcomers, spark) -> None:
    import rankmeter.spark as rsp

    run_df = spark.createDataFrame(
        newcomers["lists"].rename_columns(["query", "item", "score"]).to_pandas()).repartition(3)
    qrels = [(u, i, g) for u, items in newcomers["qrels"].items() for i, g in items.items()]
    qrels_df = spark.createDataFrame(qrels, ["query", "item", "grade"])
    got = rsp.evaluate(run_df, qrels_df, NEW_METRICS, context=newcomers["ctx"], partitions=4)
    _same(got, newcomers["whole"])
