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
