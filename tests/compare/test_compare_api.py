"""compare(): alignment, test values, corrections, seeds, edge cases, bad input."""

from __future__ import annotations

import json
import math
from types import SimpleNamespace

import numpy as np
import pytest
from scipy import stats

import rankmeter
from rankmeter import InputError, ParameterError
from rankmeter.compare import TESTS, Comparison, compare
from rankmeter.result import Result
from rankmeter.stats import adjust, effect_size, wilcoxon

METRICS = ["ndcg@10", "P@5", "ap"]


@pytest.fixture(scope="module")
def cmp(data):
    qrels, runs = data
    return compare(qrels, runs, METRICS, test=["t", "wilcoxon", "randomization", "bootstrap"], pairs="all",
                   n_resamples=2000, seed=3)


def test_hand_worked_doc_example():
    qrels = {"q1": {"a": 1, "b": 1}, "q2": {"c": 1}, "q3": {"d": 2}, "q4": {"e": 1}}
    runs = {"bm25": {"q1": ["a", "x", "b"], "q2": ["y", "c"], "q3": ["z", "d"], "q4": ["w", "e"]},
            "dense": {"q1": ["a", "b"], "q2": ["c"], "q3": ["d"], "q4": ["e"]}}
    c = compare(qrels, runs, ["P@1"], test="randomization")
    t = c.test("P@1", "bm25", "dense")
    # d = (0, 1, 1, 1): |sum| = 3 reached by flipping only q1's zero: 2 patterns + mirror = 4 of 16
    assert (t.a, t.b, t.diff, t.p_value) == ("bm25", "dense", 0.75, 0.25)
    assert c.scores["bm25"]["P@1"].tolist() == [1.0, 0.0, 0.0, 0.0]


def test_means_equal_evaluate(cmp, data):
    qrels, runs = data
    for name, run in runs.items():
        res = rankmeter.evaluate(qrels, run, METRICS)
        assert list(res.queries) == list(cmp.queries)
        for m in METRICS:
            assert cmp.means[name][m] == res.mean[m]
            assert np.array_equal(cmp.scores[name][m], res.values[m])


def test_tests_equal_reference_functions(cmp):
    for t in cmp.tests:
        a, b = cmp.scores[t.a][t.metric], cmp.scores[t.b][t.metric]
        if t.test == "t":
            ref = stats.ttest_rel(b, a)
            assert t.statistic == pytest.approx(ref.statistic, rel=1e-12)
            assert abs(t.p_value - ref.pvalue) <= 1e-12
        elif t.test == "wilcoxon":
            assert t.p_value == wilcoxon(b, a).p_value
        assert t.diff == cmp.means[t.b][t.metric] - cmp.means[t.a][t.metric]
        assert t.effect_size == pytest.approx(effect_size(b, a)[1], rel=1e-12)
        lo, hi = t.diff_interval
        assert lo <= t.diff <= hi
        assert t.n == cmp.n_queries and t.correction == "holm"


def test_randomisation_p_matches_standalone_with_same_stream(cmp):
    """The engine's p-value equals a slow per-comparison reference on the same sign patterns."""
    from rankmeter.stats import resampling as R

    gen = R.streams(3, 2)[0]
    n = cmp.n_queries
    words = (n + 63) // 64
    raw = np.asarray(gen.bit_generator.random_raw(2000 * words), dtype="<u8").reshape(2000, words)
    signs = np.unpackbits(raw.view(np.uint8), axis=1, count=n, bitorder="little").astype(float) * 2 - 1
    for t in [t for t in cmp.tests if t.test == "randomization"][:4]:
        d = cmp.scores[t.b][t.metric] - cmp.scores[t.a][t.metric]
        count = np.sum(np.abs(signs @ d) >= abs(d.sum()) - 1e-9)
        assert t.p_value == (count + 1) / 2001


def test_holm_per_metric_family(cmp):
    for test in cmp.settings.tests:
        for m in cmp.metrics:
            fam = [t for t in cmp.tests if t.test == test and t.metric == m]
            assert len(fam) == 3  # 3 runs: 3 pairs
            assert np.allclose([t.p_adjusted for t in fam], adjust([t.p_value for t in fam], "holm"), atol=0)


def test_family_all_and_other_corrections(data):
    qrels, runs = data
    for corr in ("bonferroni", "bh", "none"):
        c = compare(qrels, runs, METRICS[:2], correction=corr, family="all", n_resamples=200)
        p = [t.p_value for t in c.tests]
        assert [t.p_adjusted for t in c.tests] == pytest.approx(list(adjust(p, corr)), abs=0)
        assert all(t.correction == corr for t in c.tests)
        assert c.settings.family == "all"


def test_pairs_and_baseline_orientation(data):
    qrels, runs = data
    c = compare(qrels, runs, ["P@5"], baseline="sys2", n_resamples=100)
    assert [(t.a, t.b) for t in c.tests] == [("sys2", "sys0"), ("sys2", "sys1")]
    c = compare(qrels, runs, ["P@5"], baseline="sys1", pairs="all", n_resamples=100)
    assert [(t.a, t.b) for t in c.tests] == [("sys1", "sys0"), ("sys1", "sys2"), ("sys0", "sys2")]


def test_significance_marks_and_better(cmp):
    t = cmp.test("ndcg@10", "sys0", "sys1", "t")
    assert t.significant and t.better == "sys1" and t.diff > 0
    assert cmp.against_baseline("ndcg@10", "sys0") is None
    assert cmp.best("ndcg@10") == ["sys1"]


def test_seed_reproducible_and_independent_of_test_set(data):
    qrels, runs = data
    a = compare(qrels, runs, ["ndcg@10"], test=["randomization", "bootstrap"], n_resamples=500, seed=11)
    b = compare(qrels, runs, ["ndcg@10"], test=["bootstrap", "randomization"], n_resamples=500, seed=11)
    c = compare(qrels, runs, ["ndcg@10"], test="randomization", n_resamples=500, seed=11)
    key = lambda cm: sorted((t.test, t.a, t.b, t.p_value, t.diff_interval) for t in cm.tests)
    assert key(a) == key(b)
    assert [t.p_value for t in c.tests] == [t.p_value for t in a.tests if t.test == "randomization"]
    assert a.intervals == c.intervals
    d = compare(qrels, runs, ["ndcg@10"], test="randomization", n_resamples=500, seed=12)
    assert d.intervals != c.intervals


def test_missing_query_scores_zero_and_is_counted(data):
    qrels, runs = data
    runs = dict(runs)
    cut = dict(runs["sys1"])
    dropped = sorted(cut)[:3]
    for q in dropped:
        del cut[q]
    runs["sys1"] = cut
    c = compare(qrels, runs, ["ndcg@10"], n_resamples=100)
    assert c.missing == {"sys0": 0, "sys1": 3, "sys2": 0}
    idx = [c.queries.index(q) for q in dropped]
    assert np.all(c.scores["sys1"]["ndcg@10"][idx] == 0)
    assert any("sys1" in n and "3 of the 40 queries have no ranking" in n for n in c.notes)
    assert c.n_queries == 40


def test_results_over_different_query_sets_are_aligned():
    rng = np.random.default_rng(0)
    qa = [f"q{i}" for i in range(30)]
    qb = [f"q{i}" for i in range(5, 40)][::-1]  # other order, partly other queries
    va, vb = rng.random(30), rng.random(35)
    ra = Result(queries=qa, values={"rmse": va})
    rb = Result(queries=qb, values={"rmse": vb})
    c = compare(None, {"a": ra, "b": rb}, n_resamples=200)
    assert c.n_queries == 25 and list(c.queries) == qa[5:]
    pos_b = {q: i for i, q in enumerate(qb)}
    assert np.array_equal(c.scores["b"]["rmse"], vb[[pos_b[q] for q in qa[5:]]])
    assert np.array_equal(c.scores["a"]["rmse"], va[5:])
    text = " ".join(c.notes)
    assert "5 of the queries" in text and "10 of its queries" in text


def test_lower_is_better_metric_from_result_metadata():
    rng = np.random.default_rng(1)
    q = [f"u{i}" for i in range(50)]
    spec = SimpleNamespace(higher_is_better=False)
    meta = [SimpleNamespace(text="rmse", spec=spec)]
    good = Result(queries=q, values={"rmse": rng.random(50) * 0.5}, metrics=meta)
    bad = Result(queries=q, values={"rmse": rng.random(50) * 0.5 + 0.5}, metrics=meta)
    c = compare(None, {"bad": bad, "good": good}, ["rmse"], n_resamples=200)
    t = c.tests[0]
    assert t.diff < 0 and t.significant and t.better == "good"
    assert c.best("rmse") == ["good"] and c.higher_is_better["rmse"] is False


def test_mixed_runs_and_results(data):
    qrels, runs = data
    res = rankmeter.evaluate(qrels, runs["sys2"], ["P@5"])
    c = compare(qrels, {"sys0": runs["sys0"], "pre": res}, ["P@5"], n_resamples=100)
    assert c.means["pre"]["P@5"] == res.mean["P@5"]


# ------------------------------------------------------------------ edge cases: defined values and notes


def _all_finite_or_documented(c: Comparison):
    d = c.to_dict(details=True)
    text = json.dumps(d, allow_nan=False)  # raises on NaN/inf
    assert "NaN" not in text
    for t in c.tests:
        assert not math.isnan(t.p_value) and not math.isnan(t.p_adjusted) and not math.isnan(t.statistic)
        assert all(not math.isnan(v) for v in t.diff_interval)


def test_single_query():
    qrels = {"q1": {"a": 1}}
    runs = {"x": {"q1": ["a"]}, "y": {"q1": ["b", "a"]}}
    c = compare(qrels, runs, ["P@1", "ndcg@5"], test=list(TESTS), n_resamples=100)
    _all_finite_or_documented(c)
    assert all(t.p_value == 1.0 for t in c.tests)
    assert c.intervals["x"]["P@1"] == (1.0, 1.0)
    assert any("only 1 query" in n for n in c.notes)


def test_identical_runs():
    qrels = {f"q{i}": {"a": 1, "b": 1} for i in range(30)}
    run = {f"q{i}": ["a", "c", "b"] if i % 2 else ["c", "a"] for i in range(30)}
    c = compare(qrels, {"x": run, "y": dict(run)}, ["P@1", "ndcg@3"], test=list(TESTS),
                n_resamples=300)
    _all_finite_or_documented(c)
    for t in c.tests:
        assert (t.diff, t.p_value, t.p_adjusted, t.diff_interval) == (0.0, 1.0, 1.0, (0.0, 0.0))
        assert not t.significant and t.effect_size == 0.0
    assert any("identical scores on every query" in n for n in c.notes)


def test_zero_variance():
    qrels = {f"q{i}": {"a": 1} for i in range(12)}
    top = {f"q{i}": ["a"] for i in range(12)}
    never = {f"q{i}": ["z"] for i in range(12)}
    c = compare(qrels, {"never": never, "top": top}, ["P@1"], test=list(TESTS), n_resamples=300)
    _all_finite_or_documented(c)
    assert c.intervals["top"]["P@1"] == (1.0, 1.0) and c.intervals["never"]["P@1"] == (0.0, 0.0)
    t = c.test("P@1", "never", "top", "t")
    assert t.statistic == math.inf and t.p_value == 0.0 and t.significant
    assert c.to_dict()["tests"][0]["statistic"] is None  # JSON has no infinity
    assert c.test("P@1", "never", "top", "randomization").p_value == 2 / 2**12
    assert any("same non-zero difference" in n for n in c.notes)
    assert any("same on every query" in n for n in c.notes)


# ------------------------------------------------------------------ JSON shape


def test_json_shape(cmp):
    d = json.loads(cmp.to_json())
    # the public shape, and what Comparison.load reads back ("rankmeter") with the provenance record
    assert set(d) == {"queries", "means", "intervals", "tests", "rankmeter", "provenance"}
    assert d["queries"] == 40
    assert set(d["means"]) == set(cmp.runs) and set(d["means"]["sys0"]) == set(METRICS)
    assert all(len(v) == 2 for r in d["intervals"].values() for v in r.values())
    keys = {"metric", "a", "b", "test", "statistic", "p_value", "p_adjusted", "correction", "diff", "diff_interval"}
    assert all(set(t) == keys for t in d["tests"])
    assert len(d["tests"]) == 3 * 3 * 4
    full = json.loads(cmp.to_json(details=True))
    assert {"settings", "notes", "missing", "runs", "metrics", "baseline"} <= set(full)
    assert full["settings"]["correction"] == "holm" and full["settings"]["tests"][0] == "t"


def test_per_query_frame(cmp):
    f = cmp.per_query
    assert f.shape == (40, 9) and f.index.name == "query"
    assert np.array_equal(f[("sys1", "P@5")].to_numpy(), cmp.scores["sys1"]["P@5"])


def test_curves_equal_evaluate(data):
    qrels, runs = data
    c = compare(qrels, runs, ["nDCG@10", "P_5", "ap"], n_resamples=50)
    curves = c.curves(k_max=20)
    assert set(curves) == {"nDCG@k", "P@k", "ap@k"}
    for k in (1, 7, 20):
        res = rankmeter.evaluate(qrels, runs["sys1"], [f"ndcg@{k}", f"P@{k}"])
        assert curves["nDCG@k"]["sys1"][k - 1] == pytest.approx(res.mean[f"ndcg@{k}"], abs=1e-15)
        assert curves["P@k"]["sys1"][k - 1] == pytest.approx(res.mean[f"P@{k}"], abs=1e-15)


# ------------------------------------------------------------------ bad input


@pytest.mark.parametrize("kwargs, match", [
    ({"baseline": "nope"}, "baseline"),
    ({"test": "ttest2"}, "test"),
    ({"correction": "sidak"}, "correction"),
    ({"alpha": 1.5}, "alpha"),
    ({"confidence": 0}, "confidence"),
    ({"n_resamples": 0}, "n_resamples"),
    ({"pairs": "some"}, "pairs"),
    ({"queries": "run"}, "queries"),
    ({"interval": "basic"}, "interval"),
    ({"family": "test"}, "family"),
    ({"seed": -1}, "seed"),
])
def test_bad_parameters(data, kwargs, match):
    qrels, runs = data
    with pytest.raises(ParameterError, match=match):
        compare(qrels, runs, ["P@5"], **kwargs)


def test_bad_inputs(data):
    qrels, runs = data
    with pytest.raises(ParameterError, match="at least 2 runs"):
        compare(qrels, {"a": runs["sys0"]}, ["P@5"])
    with pytest.raises(ParameterError, match="single"):
        compare(qrels, runs["sys0"], ["P@5"])  # a run dict of queries is taken as names -> runs; or a single run
    with pytest.raises(ParameterError, match="unique"):
        compare(qrels, ["x/run.txt", "y/run.txt"], ["P@5"])
    with pytest.raises(ParameterError, match="metrics"):
        compare(qrels, runs, None)
    r = Result(queries=["a", "b"], values={"m": np.array([0.1, np.nan])})
    inf = Result(queries=["a", "b"], values={"m": np.array([0.1, np.inf])})
    with pytest.raises(InputError, match="infinite"):  # nan is "no value" (tests/compare/test_nan_pairing.py)
        compare(None, {"x": r, "y": inf}, ["m"])
    with pytest.raises(InputError, match="no per-query values"):
        compare(None, {"x": r, "y": r}, ["other"])
    r2 = Result(queries=["c"], values={"m": np.array([0.3])})
    with pytest.raises(InputError, match="no query in common"):
        compare(None, {"x": Result(queries=["a"], values={"m": np.array([0.1])}), "y": r2})


# ------------------------------------------------------------------ real data (trec_eval's test files)

from ..conftest import TREC_DATA as TREC  # noqa: E402  (../shared, or $RANKMETER_SHARED)


@pytest.mark.skipif(not (TREC / "qrels.test").exists(), reason="../shared/data/trec_eval is absent")
def test_trec_eval_files():
    """trec_eval's qrels.test/results.test against the same run with scores reversed (3 topics)."""
    import pyarrow as pa

    run = rankmeter.read_run(TREC / "results.test")
    rows_q = run.query_ids.take(pa.array(run.row_queries())).to_pylist()
    items = run.item_ids.take(pa.array(run.items)).to_pylist()
    reversed_run: dict = {}
    for q, it, s in zip(rows_q, items, run.scores.tolist()):
        reversed_run.setdefault(q, {})[it] = -s
    qrels = rankmeter.read_qrels(TREC / "qrels.test")
    c = compare(qrels, {"results": run, "reversed": reversed_run}, ["map", "P@10", "ndcg@20"],
                test=["t", "randomization", "wilcoxon"], n_resamples=500)
    assert c.n_queries == 3
    for name, r in (("results", run), ("reversed", reversed_run)):
        res = rankmeter.evaluate(qrels, r, ["map", "P@10", "ndcg@20"])
        assert c.means[name] == res.mean
    t = c.test("map", "results", "reversed", "randomization")
    # two-sided: the observed pattern and its mirror always count, so p is a multiple of 1/8 and >= 2/8
    assert t.method == "exact (8 sign patterns)" and t.p_value in {0.25, 0.5, 0.75, 1.0}
    tt = c.test("map", "results", "reversed", "t")
    ref = stats.ttest_rel(c.scores["reversed"]["map"], c.scores["results"]["map"])
    assert abs(tt.p_value - ref.pvalue) <= 1e-12


def test_unit_of_ratings_results_in_reports():
    rng = np.random.default_rng(3)
    users = [f"u{i}" for i in range(30)]
    a = Result(queries=users, values={"mae": rng.random(30)}, index_name="user")
    b = Result(queries=users, values={"mae": rng.random(30)}, index_name="user")
    c = compare(None, {"a": a, "b": b}, n_resamples=100)
    assert c.unit == "user" and c.units == "users"
    assert "on 30 users" in c.to_markdown() and "resamples of the users" in c.describe()
    assert "the rows common to every precomputed result" in c.describe()
