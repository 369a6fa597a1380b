"""Per-query values that are nan (no value: a user a metric leaves out, e.g. without a training
profile) in compare(): left out of the run's mean and of each paired test of the metric, counted
and reported in the notes, the tests' n, the JSON and every table; never refused, never silent."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from scipy import stats

from rankmeter._errors import ParameterError
from rankmeter.compare import compare
from rankmeter.result import Result

N = 60


def _results(seed: int = 0) -> tuple[dict[str, Result], np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    users = [f"u{i}" for i in range(N)]
    a = rng.random(N)
    b = a + 0.05 + rng.normal(0, 0.1, N)
    clean_a, clean_b = rng.random(N), rng.random(N)
    a[[1, 5, 8]] = np.nan  # e.g. users without a training profile
    b[[5, 9]] = np.nan
    res = {"A": Result(queries=users, values={"pop_lift@10": a, "ndcg@10": clean_a}, index_name="user"),
           "B": Result(queries=users, values={"pop_lift@10": b, "ndcg@10": clean_b}, index_name="user")}
    return res, a, b


@pytest.mark.parametrize("test", ["t", "wilcoxon"])
def test_a_paired_test_uses_the_users_with_a_value_in_both(test: str) -> None:
    res, a, b = _results()
    cmp = compare(None, res, ["pop_lift@10"], test=test, n_resamples=300)
    ok = ~np.isnan(a) & ~np.isnan(b)
    t = cmp.test("pop_lift@10", "A", "B")
    assert t.n == int(ok.sum()) == N - 4
    want = stats.ttest_rel(b[ok], a[ok]) if test == "t" else stats.wilcoxon(b[ok], a[ok])
    assert t.p_value == pytest.approx(float(want.pvalue), rel=1e-9)
    assert t.diff == pytest.approx(float(np.mean(b[ok] - a[ok])), abs=1e-12)
    d = b[ok] - a[ok]
    assert t.effect_size == pytest.approx(float(d.mean() / d.std(ddof=1)), rel=1e-9)
    lo, hi = t.diff_interval
    assert lo < t.diff < hi


def test_the_same_as_comparing_the_valued_users_only() -> None:
    res, a, b = _results(1)
    ok = ~np.isnan(a) & ~np.isnan(b)
    keep = [q for q, k in zip(res["A"].queries, ok) if k]
    sub = {n: Result(queries=keep, values={"pop_lift@10": np.asarray(r.values["pop_lift@10"])[ok]},
                     index_name="user") for n, r in res.items()}
    tests = ["t", "wilcoxon", "randomization", "bootstrap"]
    whole = compare(None, res, ["pop_lift@10"], test=tests, n_resamples=400, seed=3)
    only = compare(None, sub, ["pop_lift@10"], test=tests, n_resamples=400, seed=3)
    for name in tests:
        x, y = whole.test("pop_lift@10", "A", "B", name), only.test("pop_lift@10", "A", "B", name)
        assert (x.n, x.diff, x.statistic) == (y.n, y.diff, pytest.approx(y.statistic, rel=1e-12))
        if name in ("t", "wilcoxon"):
            assert x.p_value == pytest.approx(y.p_value, rel=1e-12)
        else:  # Monte Carlo with its own stream: a p-value of the same size
            assert 0 < x.p_value <= 1 and abs(x.p_value - y.p_value) < 0.1


def test_means_leave_nan_out_as_result_mean_does() -> None:
    res, a, b = _results()
    cmp = compare(None, res, ["pop_lift@10", "ndcg@10"], n_resamples=300)
    for n, r in res.items():
        for m in ("pop_lift@10", "ndcg@10"):
            assert cmp.means[n][m] == r.mean[m]
    assert cmp.means["A"]["pop_lift@10"] == pytest.approx(float(np.nanmean(a)), abs=1e-15)
    lo, hi = cmp.intervals["A"]["pop_lift@10"]
    assert math.isfinite(lo) and lo < cmp.means["A"]["pop_lift@10"] < hi
    # the per-query scores keep the nan (a user without a value is not given one)
    assert np.isnan(cmp.scores["A"]["pop_lift@10"][1]) and cmp.n_queries == N


def test_counted_and_reported_never_silent() -> None:
    res, _, _ = _results()
    cmp = compare(None, res, ["pop_lift@10", "ndcg@10"], n_resamples=300)
    assert cmp.no_value == {"pop_lift@10": {"A": 3, "B": 2}}
    note = next(n for n in cmp.notes if n.startswith("pop_lift@10: no value"))
    assert "3 in A, 2 in B of the 60 users" in note and "u1" in note and "56 users with a value in both" in note
    assert cmp.test("ndcg@10", "A", "B").n == N
    d = json.loads(cmp.to_json(details=True))
    assert d["no_value"] == {"pop_lift@10": {"A": 3, "B": 2}}
    assert {t["metric"]: t["n"] for t in d["tests"]} == {"pop_lift@10": 56, "ndcg@10": 60}
    md = cmp.to_markdown()
    assert "| n |" in md and "| 56 |" in md and "pop_lift@10: A 3, B 2" in md
    csv = cmp.to_csv()
    assert ",56" in csv
    assert "pop\\_lift@10: A 3, B 2" in cmp.to_latex()
    html = cmp.to_html(k_max=3)
    assert "<th>n</th>" in html and "<td>56</td>" in html and "pop_lift@10: A 3, B 2" in html


def test_tables_without_nan_have_no_n_column() -> None:
    res, _, _ = _results()
    cmp = compare(None, res, ["ndcg@10"], n_resamples=200)
    assert cmp.no_value == {} and "| n |" not in cmp.to_markdown() and "no_value" not in cmp.to_dict(True)
    assert not any("no value" in n for n in cmp.notes)


def test_a_metric_with_nan_changes_nothing_for_the_other_metrics() -> None:
    res, _, _ = _results()
    tests = ["t", "randomization", "bootstrap"]
    both = compare(None, res, ["pop_lift@10", "ndcg@10"], test=tests, n_resamples=300, seed=5)
    clean = {n: Result(queries=r.queries, values={"ndcg@10": r.values["ndcg@10"]}, index_name="user")
             for n, r in res.items()}
    alone = compare(None, clean, ["ndcg@10"], test=tests, n_resamples=300, seed=5)
    assert both.intervals["B"]["ndcg@10"] == alone.intervals["B"]["ndcg@10"]
    for name in tests:
        assert both.test("ndcg@10", "A", "B", name) == alone.test("ndcg@10", "A", "B", name)


def test_tukey_uses_the_users_with_a_value_for_every_run() -> None:
    res, a, b = _results()
    rng = np.random.default_rng(9)
    c = rng.random(N)
    c[[20]] = np.nan
    res["C"] = Result(queries=res["A"].queries, values={"pop_lift@10": c, "ndcg@10": rng.random(N)}, index_name="user")
    cmp = compare(None, res, ["pop_lift@10"], test=["t", "tukey-hsd"], n_resamples=200)
    t = cmp.test("pop_lift@10", "A", "C", "tukey-hsd")
    every = int((~np.isnan(a) & ~np.isnan(b) & ~np.isnan(c)).sum())
    assert f"on the {every} users with a value for every run" in t.method
    assert cmp.test("pop_lift@10", "A", "C", "t").n == int((~np.isnan(a) & ~np.isnan(c)).sum())


def test_a_pair_without_a_shared_value_is_undefined_not_an_error() -> None:
    users = ["u1", "u2", "u3", "u4"]
    x = Result(queries=users, values={"m": np.array([0.1, 0.2, np.nan, np.nan])}, index_name="user")
    y = Result(queries=users, values={"m": np.array([np.nan, np.nan, 0.3, 0.4])}, index_name="user")
    cmp = compare(None, {"x": x, "y": y}, ["m"], n_resamples=100)
    t = cmp.test("m", "x", "y")
    assert t.n == 0 and t.p_value == 1.0 and not t.significant and math.isnan(t.diff)
    assert "no user has a value for both runs" in t.method
    assert cmp.means == {"x": {"m": pytest.approx(0.15)}, "y": {"m": pytest.approx(0.35)}}


def test_anova_refuses_missing_values_naming_the_count() -> None:
    res, _, _ = _results()
    res["C"] = Result(queries=res["A"].queries, values=dict(res["B"].values), index_name="user")
    cmp = compare(None, res, ["pop_lift@10", "ndcg@10"], pairs="all", n_resamples=100)
    with pytest.raises(ParameterError, match=r"no value \(nan\) for 4 of the 60 users"):
        cmp.anova("pop_lift@10")
    assert cmp.anova("ndcg@10") is not None


def test_infinite_values_are_still_refused() -> None:
    from rankmeter._errors import InputError

    res, _, _ = _results()
    bad = Result(queries=res["A"].queries, values={"pop_lift@10": np.full(N, np.inf)}, index_name="user")
    with pytest.raises(InputError, match="infinite"):
        compare(None, {"A": res["A"], "bad": bad}, ["pop_lift@10"])
