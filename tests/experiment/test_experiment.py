"""The pipeline: the MovieLens-100k-shaped sanity check, validation of recommender output, reports."""

from __future__ import annotations

import json
import time

import numpy as np
import pyarrow as pa
import pytest

from rankmeter import InputError, ParameterError, RankmeterError
from rankmeter.datasets import movielens100k_like, synthetic, write_udata
from rankmeter.experiment import (
    FULL_RANKING,
    ExperimentResult,
    config_to_arguments,
    default_metrics,
    experiment,
    read_config,
    validate_recommendations,
)


@pytest.fixture(scope="module")
def small():
    return synthetic(n_users=150, n_items=200, seed=2)


@pytest.fixture(scope="module")
def small_result(small) -> ExperimentResult:
    return experiment(small, k=5, n_resamples=300)


@pytest.mark.slow
def test_movielens100k_shaped_run(tmp_path) -> None:
    """943 users x 1,682 items x 100,000 ratings in u.data layout: temporal split, 3 baselines, < 30 s."""
    path = write_udata(movielens100k_like(seed=0), tmp_path / "u.data")
    t0 = time.perf_counter()
    res = experiment(str(path), split="temporal", k=10)
    elapsed = time.perf_counter() - t0
    assert elapsed < 30, f"took {elapsed:.1f}s"
    assert res.data["rows"] == 100_000 and res.data["users"] == 943 and res.data["items"] == 1682
    assert res.split["train"]["rows"] + res.split["test"]["rows"] == 100_000
    ndcg = res.means["ndcg@10"]
    # the sanity check of the whole loop: most popular beats random by a wide margin
    assert ndcg["popular"] > 5 * ndcg["random"] and ndcg["popular"] - ndcg["random"] > 0.05
    assert res.comparison is not None
    t = res.comparison.test("ndcg@10", res.baseline, "random")
    assert t.significant and t.better == res.baseline
    assert all(v.ok for v in res.validation.values())
    # beyond accuracy: random covers the catalogue, popular concentrates exposure
    m = res.means
    assert m.loc["random", "catalog_coverage@10"] > 0.9 > 0.2 > m.loc["popular", "catalog_coverage@10"]
    assert m.loc["popular", "gini@10"] > m.loc["random", "gini@10"]
    assert m.loc["random", "novelty@10"] > m.loc["popular", "novelty@10"]


def test_small_run(small_result) -> None:
    res = small_result
    assert list(res.results) == ["random", "popular", "itemknn"]
    assert res.mode == FULL_RANKING and not res.sampled
    assert list(res.metrics) == default_metrics(5, features=True, categories=True)
    assert res.reference == ("random", "popular", "itemknn")
    # baseline "best": the reference recommender with the best ndcg@5
    best = max(res.results, key=lambda n: res.results[n].mean["ndcg@5"])
    assert res.baseline == best
    assert set(res.timings) >= {"load", "split", "fit popular", "recommend popular", "evaluate popular", "compare"}
    # per-user metrics are compared; corpus-level ones are not
    assert "gini@5" not in res.comparison.metrics and "novelty@5" in res.comparison.metrics
    # every test user with a relevant item is evaluated, by every recommender
    assert len({r.n_queries for r in res.results.values()}) == 1


def test_results_match_a_direct_evaluation(small, small_result) -> None:
    """The pipeline's numbers are rankmeter.evaluate's on its own runs, judgments and context."""
    import rankmeter
    from rankmeter.beyond import context_from_train
    from rankmeter.split import temporal

    res = small_result
    run = res.runs["popular"]
    assert all(len(v) == 5 for v in run.to_lists().values())
    s = temporal(small.interactions, per_user=True, test_fraction=0.2)
    train, test = s.table("train"), s.table("test")
    from rankmeter.metrics.beyond import train_items

    ctx = context_from_train(train, item_features=small.item_features, categories=small.categories, test=test)
    ctx["train_items"], ctx["test_items"] = train_items(train), train_items(test)  # profiles: pop_lift, PopREO...
    qrels = {}
    for u, i in zip(test.column("user").to_pylist(), test.column("item").to_pylist()):
        qrels.setdefault(str(u), {})[str(i)] = 1.0
    direct = rankmeter.evaluate(qrels, run, list(res.metrics), context=ctx)
    for m in res.metrics:
        assert direct.mean[m] == pytest.approx(res.results["popular"].mean[m], abs=1e-12), m


def test_most_popular_lists_exclude_training_items(small_result) -> None:
    v = small_result.validation
    assert all(x.training_items == 0 and x.duplicates == 0 and x.unknown_items == 0 for x in v.values())


def _split(small):
    from rankmeter.split import temporal

    return temporal(small.interactions, per_user=True, test_fraction=0.2)


def test_validation_counts_bad_output(small) -> None:
    s = _split(small)
    train = s.table("train")
    test_users = sorted(set(map(str, s.table("test").column("user").to_pylist())))
    u0, u1 = test_users[:2]
    mine = {str(i) for i in train.filter(pa.compute.equal(train.column("user"), int(u0))).column("item").to_pylist()}
    others = sorted({str(i) for i in train.column("item").to_pylist()} - mine)
    own = sorted(mine)[0]
    x, y = others[:2]

    def bad(train_t, users, k):
        return {u0: [own, x, x, y, "no-such-item"],  # one training item, one duplicate, one unknown item
                u1: [others[2]],                      # fewer than k
                "ghost": [x]}                         # a user not in the test set

    res = experiment(small, split=s, recommenders={"bad": bad, "popular": "popular"}, k=5, n_resamples=100)
    v = res.validation["bad"]
    assert (v.duplicates, v.unknown_items, v.extra_user_rows, v.extra_users, v.training_items) == (1, 1, 1, 1, 1)
    n = res.results["bad"].n_queries
    assert v.users == n and v.missing_users == n - 2
    assert v.short_lists == n  # u0 keeps 3 items (own, x, y), u1 one, the others none
    assert v.kept_rows == 4 and v.rows == 7
    problems = "\n".join(v.problems())
    assert "1 duplicate recommendations removed" in problems and "outside the catalogue" in problems
    assert "1 recommendations of the user's own training items (kept)" in problems
    assert f"{n - 2} of {n} test users got no recommendation" in problems


def test_nothing_usable_is_an_error(small) -> None:
    with pytest.raises(RankmeterError, match=r"recommender 'empty' gave no usable recommendation"):
        experiment(small, recommenders={"empty": lambda tr, users, k: {}}, k=5)
    with pytest.raises(RankmeterError, match=r"outside the catalogue"):
        experiment(small, recommenders={"unknown": lambda tr, users, k: {u: ["nope"] for u in users}}, k=5)


def test_validate_recommendations_hand() -> None:
    users = pa.array(["u1", "u2", "u3"])
    table = pa.table({"user": ["u1", "u1", "u1", "u2", "x"], "item": ["a", "a", "z", "b", "a"],
                      "score": [1.0, 2.0, 0.5, 1.0, 1.0]})
    train_users, train_items = pa.array(["u1", "u2"]), pa.array(["a", "b"])
    keys = np.array([0 * 2 + 1])  # u1 interacted with b in training
    clean, v = validate_recommendations(table, name="t", users=users, k=2, catalog=pa.array(["a", "b"]),
                                        train_users=train_users, train_items=train_items, train_keys=keys)
    # x: extra user; z: unknown; the second (u1, a) is a duplicate: the higher score (2.0) is kept
    assert (v.extra_user_rows, v.unknown_items, v.duplicates, v.training_items) == (1, 1, 1, 0)
    assert clean.to_pydict() == {"user": ["u1", "u2"], "item": ["a", "b"], "score": [2.0, 1.0]}
    assert (v.missing_users, v.short_lists, v.long_lists) == (1, 3, 0)


def test_sampled_mode_is_labelled_everywhere(small, tmp_path) -> None:
    res = experiment(small, k=5, sampled=50, sample_seed=3, recommenders=("random", "popular"), n_resamples=100)
    label = "sampled (N=50, seed=3): inflates scores vs full ranking"
    assert res.mode == label and res.sampled
    assert res.to_dict()["mode"] == label and res.settings["sample_seed"] == 3
    assert label in res.to_csv()
    assert label in (res.table().title or "") and "WARNING" in (res.table().caption or "")
    html = res.to_html()
    assert label in html and "Sampled evaluation" in html
    # sampled scores are inflated compared with full ranking
    full = experiment(small, k=5, recommenders=("random", "popular"), n_resamples=100)
    assert res.means.loc["popular", "ndcg@5"] > full.means.loc["popular", "ndcg@5"]
    assert res.means.loc["random", "ndcg@5"] > full.means.loc["random", "ndcg@5"]
    # every list holds only the user's candidates: at most test items + 50
    assert all(v.outside_candidates == 0 for v in res.validation.values())


def test_sampled_mode_restricts_user_lists(small) -> None:
    res = experiment(small, k=5, sampled=20, recommenders={
        "popular": "popular",
        "all_items": lambda tr, users, k: {u: [str(i) for i in range(1, 60)] for u in users}})
    v = res.validation["all_items"]
    assert v.outside_candidates > 0 and v.kept_rows < v.rows


def test_save_and_html_are_self_contained(small_result, tmp_path) -> None:
    paths = small_result.save(tmp_path / "out")
    html = paths["report"].read_text()
    assert html.startswith("<!DOCTYPE html>") and "</html>" in html
    assert "http://" not in html and "https://" not in html and "<script" not in html
    for section in ("Experiment", "Means", "Checks of the recommendations", "Timings", "Paired tests",
                    "Metric@k curves", "Per-user differences"):
        assert section in html
    data = json.loads(paths["json"].read_text())
    assert data["mode"] == FULL_RANKING and set(data["means"]) == {"random", "popular", "itemknn"}
    assert "comparison" in data and data["validation"]["popular"]["kept_rows"] > 0
    assert paths["csv"].read_text().splitlines()[0].startswith("recommender,mode,ndcg@5")


def test_html_without_matplotlib(small_result, monkeypatch) -> None:
    from rankmeter import MissingExtraError

    def no_mpl(*a, **kw):
        raise MissingExtraError("HTML reports", "report", "matplotlib")

    import rankmeter.report.experiment as report

    monkeypatch.setattr(report, "_mpl", no_mpl)
    html = small_result.to_html()
    assert "<h2>Means</h2>" in html and "Paired tests" in html and "<img" not in html
    assert "matplotlib is not installed" in html


def test_single_recommender_and_explicit_metrics(small) -> None:
    res = experiment(small, recommenders="popular", metrics=["ndcg@5", "gini@5"], k=5)
    assert res.comparison is None and list(res.metrics) == ["ndcg@5", "gini@5"]
    assert "a single recommender: nothing to compare" in res.notes


def test_relevance_threshold(small) -> None:
    res = experiment(small, k=5, relevance=4, recommenders=("popular",), metrics=["P@5"])
    full = experiment(small, k=5, recommenders=("popular",), metrics=["P@5"])
    # fewer users have a test rating >= 4 than any test interaction
    assert res.results["popular"].n_queries < full.results["popular"].n_queries
    assert any("no relevant test interaction" in n for n in res.notes)


def test_bad_arguments(small) -> None:
    with pytest.raises(ParameterError, match="'k' parameter of experiment"):
        experiment(small, k=0)
    with pytest.raises(ParameterError, match="'split' parameter of experiment"):
        experiment(small, split="bogus")
    with pytest.raises(ParameterError, match="'catalog' parameter"):
        experiment(small, catalog="everything")
    with pytest.raises(ParameterError, match="'baseline' parameter"):
        experiment(small, baseline="nobody", k=5, recommenders=("popular", "random"))
    with pytest.raises(ParameterError, match="needs a rating column"):
        experiment({"user": ["a", "a", "b", "b"], "item": ["x", "y", "x", "z"]}, split="holdout", relevance=3)


def test_other_splits_and_inputs(small, tmp_path) -> None:
    frame = small.interactions.to_pandas()
    res = experiment(frame, split="leave_one_out", recommenders=("popular",), metrics=["hit_rate@5"], k=5)
    assert res.split["method"] == "leave_k_out" and res.split["test"]["users"] == small.n_users
    res = experiment(frame[["user", "item"]], split="auto", recommenders=("popular",), metrics=["P@5"], k=5)
    assert res.split["method"] == "holdout"
    s = _split(small)
    res = experiment(small, split=(s.table("train"), s.table("test")), recommenders=("popular",),
                     metrics=["P@5"], k=5)
    assert res.split["method"] == "given"


def test_config_file(tmp_path, small) -> None:
    data_paths = small.write(tmp_path / "data")
    lists = tmp_path / "mine.tsv"
    lists.write_text("user\titem\n1\t1\n1\t2\n2\t3\n")
    cfg = tmp_path / "exp.toml"
    cfg.write_text(f"""
[data]
interactions = "data/interactions.tsv"
item_features = "data/item_features.tsv"
categories = "data/item_genres.tsv"
[split]
method = "temporal"
test_fraction = 0.25
[recommenders]
popular = {{}}
knn = {{ type = "itemknn", neighbors = 10 }}
mine = {{ lists = "mine.tsv" }}
[evaluation]
k = 5
n_resamples = 100
[output]
dir = "out"
""")
    interactions, kwargs, out = config_to_arguments(read_config(cfg))
    assert interactions == str(tmp_path / "data/interactions.tsv") and out == str(tmp_path / "out")
    assert kwargs["split"] == "temporal" and kwargs["split_params"] == {"test_fraction": 0.25}
    res = experiment(interactions, **kwargs)
    assert list(res.results) == ["popular", "knn", "mine"] and res.reference == ("popular", "knn")
    assert "ild@5" in res.metrics and "ild(distance=jaccard)@5" in res.metrics
    assert res.validation["mine"].missing_users > 0
    bad = tmp_path / "bad.toml"
    bad.write_text("[evaluation]\nkk = 3\n")
    with pytest.raises(InputError, match=r"bad.toml:2: \[evaluation\] kk is not a known key"):
        config_to_arguments(read_config(bad))


def test_progress_bars_do_not_change_results(small) -> None:
    from rich.console import Console
    import io

    buf = io.StringIO()
    res = experiment(small, k=5, recommenders=("popular",), metrics=["P@5"], progress=True,
                     console=Console(file=buf, force_terminal=False))
    assert "recommend popular" in buf.getvalue() and "split" in buf.getvalue()
    plain = experiment(small, k=5, recommenders=("popular",), metrics=["P@5"])
    assert res.means.equals(plain.means)
