"""Repeated protocols (k-fold, repeated hold-out), several baselines and tuning (issue 29 items 1, 2 and 4)."""

from __future__ import annotations

import json
import math
import statistics
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rankmeter import ParameterError
from rankmeter import split as S
from rankmeter.datasets import synthetic
from rankmeter.experiment import experiment
from rankmeter.recsys.repeated import RepeatedResult, across_row
from rankmeter.stats.across import corrected_resampled_t

RECS = ["random", "popular", "itemknn"]
METRICS = ["ndcg@5", "recall@5"]


@pytest.fixture(scope="module")
def data() -> pa.Table:
    return synthetic(n_users=70, n_items=90, seed=3).interactions


@pytest.fixture(scope="module")
def kfold_result(data: pa.Table) -> RepeatedResult:
    return _rep(experiment(data, split="kfold", folds=3, k=5, recommenders=RECS, metrics=METRICS + ["gini@5"],
                           n_resamples=50, baseline="popular"))


def _rep(res: object) -> RepeatedResult:
    assert isinstance(res, RepeatedResult)
    return res


def _t_quantile(q: float, df: int) -> float:
    from scipy import stats

    return float(stats.t.ppf(q, df))


def test_kfold_folds_equal_single_experiments_by_hand(data: pa.Table, kfold_result: RepeatedResult) -> None:
    folds = S.kfold(data, folds=3, seed=0)
    assert kfold_result.labels == ("fold 1", "fold 2", "fold 3")
    per = kfold_result.per_fold
    for label, fold, got in zip(kfold_result.labels, folds, kfold_result.folds, strict=True):
        by_hand = experiment(data, split=fold, k=5, recommenders=RECS, metrics=METRICS + ["gini@5"], n_resamples=50,
                             baseline="popular")
        for name in RECS:
            for m in METRICS + ["gini@5"]:
                want = by_hand.results[name].mean[m]
                assert got.results[name].mean[m] == want
                row = per[(per.fold == label) & (per.model == name) & (per.metric == m)]
                assert row.value.item() == want
            np.testing.assert_array_equal(got.results[name].values["ndcg@5"], by_hand.results[name].values["ndcg@5"])
        # the paired tests over users within the fold are the single split's
        assert got.comparison is not None and by_hand.comparison is not None
        pt = got.comparison.against_baseline("ndcg@5", "itemknn")
        hand = by_hand.comparison.against_baseline("ndcg@5", "itemknn")
        assert pt is not None and hand is not None
        assert pt.p_value == hand.p_value and pt.diff == hand.diff
    assert sorted(per.columns) == ["fold", "metric", "model", "value"]
    assert len(per) == 3 * 3 * 3


def test_across_mean_sd_interval_plain_python(kfold_result: RepeatedResult) -> None:
    per = kfold_result.per_fold
    across = kfold_result.across
    assert list(across.columns) == ["model", "metric", "mean", "sd", "ci_low", "ci_high", "folds"]
    rho = 1 / (3 - 1)  # k-fold: n_test / n_train = 1 / (k - 1)
    assert kfold_result.design.rho == rho
    for row in across.itertuples():
        vals = [float(v) for v in per[(per.model == row.model) & (per.metric == row.metric)].value]
        mean = sum(vals) / len(vals)
        sd = math.sqrt(sum((v - mean) ** 2 for v in vals) / (len(vals) - 1))
        half = _t_quantile(0.975, len(vals) - 1) * sd * math.sqrt(1 / len(vals) + rho)
        assert row.mean == pytest.approx(mean, abs=1e-12)
        assert row.sd == pytest.approx(statistics.stdev(vals), abs=1e-12) and row.sd == pytest.approx(sd, abs=1e-12)
        assert row.ci_low == pytest.approx(mean - half, abs=1e-12)
        assert row.ci_high == pytest.approx(mean + half, abs=1e-12)
        assert row.folds == 3


def test_nadeau_bengio_hand_computation_fixed_case() -> None:
    d = [0.02, 0.03, 0.01, 0.04, 0.02]
    j, rho = len(d), 1 / 4
    mean = sum(d) / j
    s2 = sum((x - mean) ** 2 for x in d) / (j - 1)
    t = mean / math.sqrt((1 / j + rho) * s2)
    assert t == pytest.approx(3.137858162210944, rel=1e-12)
    r = corrected_resampled_t(d, rho=rho)
    assert r.statistic == pytest.approx(t, rel=1e-12)
    from scipy import stats

    assert r.p_value == pytest.approx(2 * stats.t.sf(abs(t), j - 1), rel=1e-12)
    assert r.df == 4
    half = _t_quantile(0.975, 4) * math.sqrt(s2) * math.sqrt(1 / j + rho)
    assert r.ci_low == pytest.approx(mean - half) and r.ci_high == pytest.approx(mean + half)
    assert across_row([0.2, 0.4, 0.3], rho=0.5)["ci_high"] == pytest.approx(0.3 + _t_quantile(0.975, 2) * 0.1
                                                                            * math.sqrt(1 / 3 + 0.5))


def test_kfold_tests_are_the_corrected_resampled_t(kfold_result: RepeatedResult) -> None:
    per = kfold_result.per_fold
    tests = kfold_result.tests
    # gini@5 is corpus-level: not tested; two models against popular on two metrics
    assert {(t["model"], t["metric"]) for t in tests} == {(m, x) for m in ("random", "itemknn") for x in METRICS}
    from scipy import stats

    for t in tests:
        a = per[(per.model == t["model"]) & (per.metric == t["metric"])].value.to_numpy()
        b = per[(per.model == "popular") & (per.metric == t["metric"])].value.to_numpy()
        d = a - b
        hand = d.mean() / math.sqrt((1 / 3 + 1 / 2) * d.var(ddof=1))
        assert t["statistic"] == pytest.approx(hand, rel=1e-9)
        assert t["p_value"] == pytest.approx(2 * stats.t.sf(abs(hand), 2), rel=1e-9)
        assert t["test"] == "corrected resampled t" and t["df"] == 2
    assert any("corrected resampled t-test" in n for n in kfold_result.notes)
    assert set(kfold_result.comparisons) == {"popular"}
    assert kfold_result.comparison is not None and len(kfold_result.comparison) == 4


def test_kfold_outputs(kfold_result: RepeatedResult, tmp_path: Path) -> None:
    csv = kfold_result.to_csv()
    assert "±" in csv and csv.splitlines()[0].startswith("recommender,mode,splits,ndcg@5")
    tex = kfold_result.to_latex()
    assert "$\\pm$" in tex and "\\begin{tabular}" in tex
    doc = json.loads(kfold_result.to_json())
    assert doc["protocol"]["rho"] == 0.5 and len(doc["folds"]) == 3 and "±" in doc["table"]["popular"]["ndcg@5"]
    paths = kfold_result.save(tmp_path / "out")
    assert {p.name for p in paths.values()} == {"report.html", "results.json", "means.csv", "per_fold.csv",
                                                "across.csv", "table.tex"}
    html = paths["report"].read_text()
    assert "Per-split values" in html or "No figures" in html
    assert "Mean ± sd across splits" in html
    pooled = kfold_result.results["popular"]
    assert pooled.n_queries == sum(f.results["popular"].n_queries for f in kfold_result.folds)
    assert pooled.queries[0].startswith("fold 1:")


def test_kfold_by_users_is_strong_generalisation(data: pa.Table) -> None:
    res = _rep(experiment(data, split="kfold", split_params={"folds": 3, "unit": "users", "heldout_fraction": 0.25},
                     k=5, recommenders=["popular", "itemknn"], metrics=["ndcg@5"], n_resamples=50))
    assert "strong generalisation" in res.design.description
    users = data.column("user").to_numpy()
    for f in res.folds:
        test_users = set(f.results["popular"].queries)
        # every evaluated test user has fold-in rows in training
        assert f.split["params"]["strong_generalisation"] is True
        assert f.split["train"]["users"] >= len(test_users)
    assert len(res.folds) == 3 and len(set(users.tolist())) > 0


def test_user_stratified_kfold(data: pa.Table) -> None:
    res = _rep(experiment(data, split="kfold", split_params={"per_user": True}, folds=3, k=5, recommenders=["popular"],
                     metrics=["ndcg@5"], n_resamples=50))
    assert "user-stratified" in res.design.description
    assert not res.tests  # one recommender: nothing to compare


def test_repeated_holdout_uses_seeds(data: pa.Table) -> None:
    res = _rep(experiment(data, split="holdout", repeats=3, seed=4, k=5, recommenders=["popular", "itemknn"],
                     metrics=["ndcg@5"], n_resamples=50))
    assert res.labels == ("repeat 1", "repeat 2", "repeat 3")
    for r, fold in enumerate(res.folds):
        hand = experiment(data, split="holdout", seed=4 + r, k=5, recommenders=["popular", "itemknn"],
                          metrics=["ndcg@5"], n_resamples=50)
        assert fold.results["itemknn"].mean["ndcg@5"] == hand.results["itemknn"].mean["ndcg@5"]
    tr = [f.split["train"]["rows"] for f in res.folds]
    te = [f.split["test"]["rows"] for f in res.folds]
    assert res.design.rho == pytest.approx(np.mean(te) / np.mean(tr))
    lko = _rep(experiment(data, split="leave_one_out", split_params={"by": "random"}, repeats=2, k=5,
                     recommenders=["popular"], metrics=["ndcg@5"],
                     n_resamples=50))
    assert len(lko.folds) == 2


def test_shorthand_conflicts_and_refusals(data: pa.Table) -> None:
    with pytest.raises(ParameterError, match="folds"):
        experiment(data, split="kfold", folds=3, split_params={"folds": 4})
    with pytest.raises(ParameterError, match="repeats"):
        experiment(data, split="holdout", repeats=3, split_params={"repeats": 2})
    with pytest.raises(ParameterError, match="applies to split='kfold' only"):
        experiment(data, split="holdout", folds=3)
    with pytest.raises(ParameterError, match="same split every time"):
        experiment(data, split="temporal", repeats=3)
    with pytest.raises(ParameterError, match="holds out by time, the same split"):
        experiment(data, split="leave_one_out", repeats=2)  # the data has timestamps
    with pytest.raises(ParameterError, match="temporal on data with timestamps"):
        experiment(data, split="auto", repeats=2)
    # equal values are fine: both name the same protocol
    res = _rep(experiment(data, split="kfold", folds=2, split_params={"folds": 2}, k=5, recommenders=["popular"],
                     metrics=["ndcg@5"], n_resamples=50))
    assert len(res.folds) == 2


def test_several_baselines_one_family_statsmodels(data: pa.Table) -> None:
    from statsmodels.stats.multitest import multipletests

    res = experiment(data, k=5, split="holdout", recommenders=RECS + [{"type": "itemknn", "neighbors": 5}],
                     baseline=["popular", "random"], metrics=METRICS, n_resamples=50)
    assert res.baseline == ("popular", "random")
    assert set(res.comparisons) == {"popular", "random"} and res.comparison is res.comparisons["popular"]
    # the family: every non-baseline model (itemknn, itemknn_2) x baseline x metric, plus popular vs random once
    family: dict[tuple[str, frozenset[str]], tuple[float, float]] = {}
    for cmp in res.comparisons.values():
        for t in cmp.tests:
            family.setdefault((t.metric, frozenset((t.a, t.b))), (t.p_value, t.p_adjusted))
    assert len(family) == (2 * 2 + 1) * len(METRICS)
    keys = list(family)
    raw = np.array([family[k][0] for k in keys])
    _, want, _, _ = multipletests(raw, method="holm")
    np.testing.assert_allclose([family[k][1] for k in keys], want, rtol=1e-12)
    # the same pair tested from both baselines has one adjusted p-value
    t1 = res.comparisons["popular"].test("ndcg@5", "popular", "random")
    t2 = res.comparisons["random"].test("ndcg@5", "popular", "random")
    assert t1.p_adjusted == t2.p_adjusted
    # bonferroni too
    res_b = experiment(data, k=5, split="holdout", recommenders=RECS, baseline=["popular", "random"],
                       metrics=["ndcg@5"], correction="bonferroni", n_resamples=50)
    fam = {frozenset((t.a, t.b)): (t.p_value, t.p_adjusted) for c in res_b.comparisons.values() for t in c.tests}
    _, want_b, _, _ = multipletests([v[0] for v in fam.values()], method="bonferroni")
    np.testing.assert_allclose([v[1] for v in fam.values()], want_b, rtol=1e-12)


def test_several_baselines_across_folds_and_markers(data: pa.Table) -> None:
    res = _rep(experiment(data, split="kfold", folds=3, k=5, recommenders=RECS, baseline=["popular", "random"],
                     metrics=["ndcg@5"], n_resamples=50))
    assert res.baseline == ("popular", "random")
    assert {(t["model"], t["baseline"]) for t in res.tests} == {("random", "popular"), ("itemknn", "popular"),
                                                                 ("itemknn", "random")}
    assert len(res.tests) == 3  # itemknn x 2 baselines + popular vs random, one metric
    assert all(t["correction"] == "holm (family of 3 tests)" for t in res.tests)
    beaten = res.beats("ndcg@5", "itemknn")
    assert set(beaten) <= {"popular", "random"}
    assert res.marker("ndcg@5", "itemknn").startswith(" ▲") == bool(beaten)
    assert "1 = popular" in res.caption()


def test_tuning_picks_best_on_validation_and_ignores_test(data: pa.Table) -> None:
    grid = {"type": "itemknn", "neighbors": [2, 10, 40]}
    kw: dict[str, Any] = dict(split="holdout", validation_fraction=0.25, k=5,
                              recommenders={"pop": "popular", "knn": grid}, metrics=["ndcg@5", "recall@5"],
                              tune_metric="recall@5", n_resamples=50)
    res = experiment(data, **kw)
    t = res.tuning["knn"]
    scores = [s["value"] for s in t["scores"]]
    assert t["params"] == t["scores"][int(np.argmax(scores))]["params"]
    assert [s["params"]["neighbors"] for s in t["scores"]] == [2, 10, 40]
    assert any("tuned on the validation part" in n for n in res.notes)
    # the same split with every test row's item changed: same validation scores, same choice, other test values
    split = S.holdout(data, per_user=True, seed=0, validation_fraction=0.25)
    assert res.split["test"]["rows"] == int(split.test_mask.sum())
    items = data.column("item").to_numpy().copy()
    items[split.test_mask] = items[split.test_mask] + 100_000  # items nobody can recommend
    changed = data.set_column(data.schema.get_field_index("item"), "item", pa.array(items))
    res2 = experiment(changed, **kw)
    assert res2.tuning["knn"]["scores"] == t["scores"]
    assert res2.tuning["knn"]["params"] == t["params"]
    assert res2.results["knn"].mean["ndcg@5"] != res.results["knn"].mean["ndcg@5"]


def test_tuning_a_callable_grid_and_per_fold(data: pa.Table) -> None:
    seen: list[int] = []

    def top(train: Any, users: list[str], k: int, shift: int = 0) -> dict[str, list[Any]]:
        """Popularity, skipping the ``shift`` most popular items."""
        seen.append(shift)
        counts = train.column("item").value_counts().to_pylist()
        order = [c["values"] for c in sorted(counts, key=lambda c: (-c["counts"], str(c["values"])))]
        return {u: order[shift:shift + k] for u in users}

    res = experiment(data, split="kfold", folds=2, validation_fraction=0.2, k=5,
                     recommenders={"pop": "popular", "top": {"callable": top, "shift": [0, 20]}},
                     metrics=["ndcg@5"], n_resamples=50, baseline="pop")
    assert set(res.tuning) == {"fold 1", "fold 2"}
    for per in res.tuning.values():
        assert per["top"]["params"] == {"shift": 0}
    assert sorted(set(seen)) == [0, 20]


def test_grid_without_validation_is_refused(data: pa.Table) -> None:
    with pytest.raises(ParameterError, match="validation_fraction"):
        experiment(data, recommenders={"knn": {"type": "itemknn", "neighbors": [5, 10]}})


# --------------------------------------------------------------------------- command line and config


def _cli(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    from rankmeter.cli import main

    try:
        main(args)
        code = 0
    except SystemExit as exc:
        code = int(exc.code or 0)
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture(scope="module")
def tsv(tmp_path_factory: pytest.TempPathFactory, data: pa.Table) -> Path:
    path = tmp_path_factory.mktemp("cv") / "inter.tsv"
    cols = [data.column(c).to_pylist() for c in ("user", "item", "timestamp")]
    path.write_text("user\titem\ttimestamp\n" + "".join(f"{u}\t{i}\t{t}\n" for u, i, t in zip(*cols, strict=True)))
    return path


def test_cli_kfold_several_baselines_and_grid(tsv: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = _cli(["run-experiment", "-i", str(tsv), "--split", "kfold", "--folds", "3", "-r", "popular",
                           "-r", "random", "-r", "itemknn:neighbors=2|20", "--validation-fraction", "0.2",
                           "--baseline", "popular", "--baseline", "random", "-m", "ndcg@5", "-k", "5",
                           "--n-resamples", "50", "--no-progress", "--out", str(tmp_path / "o")], capsys)
    assert code == 0, err
    assert "3 splits" in out and "±" in out and "1 = popular; 2 = random" in " ".join(out.split())
    assert "fold 1: itemknn tuned on the validation part by ndcg@5" in err
    assert "not shown: --verbose" in err
    doc = json.loads((tmp_path / "o" / "results.json").read_text())
    assert doc["baseline"] == ["popular", "random"] and doc["protocol"]["folds"] == 3
    assert doc["tuning"]["fold 1"]["itemknn"]["params"]["neighbors"] in (2, 20)
    assert (tmp_path / "o" / "table.tex").exists() and (tmp_path / "o" / "per_fold.csv").exists()
    code, out, err = _cli(["run-experiment", "-i", str(tsv), "--split", "holdout", "--repeats", "2", "-r", "popular",
                           "-r", "itemknn", "-m", "ndcg@5", "-k", "5", "--n-resamples", "50", "--no-progress",
                           "--no-report", "--format", "json"], capsys)
    assert code == 0, err
    assert json.loads(out)["protocol"]["labels"] == ["repeat 1", "repeat 2"]


def test_config_kfold_and_grid(tsv: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    cfg = tmp_path / "e.toml"
    cfg.write_text(f'[data]\ninteractions = "{tsv}"\n[split]\nmethod = "kfold"\nfolds = 2\nrepeats = 2\n'
                   'validation_fraction = 0.2\n[recommenders]\npopular = {}\nknn = { type = "itemknn", neighbors = '
                   '[2, 20] }\n[evaluation]\nk = 5\nmetrics = ["ndcg@5"]\nbaseline = ["popular"]\nn_resamples = 50\n')
    code, out, err = _cli(["run-experiment", str(cfg), "--no-progress", "--no-report", "--verbose"], capsys)
    assert code == 0, err
    assert "4 splits" in out and "repeated 2 times" in err and "note:" in err
    bad = tmp_path / "b.toml"
    bad.write_text(cfg.read_text().replace("folds = 2", "folds = 1"))
    code, out, err = _cli(["run-experiment", str(bad), "--no-progress", "--no-report"], capsys)
    assert code == 2 and "folds" in err and "Traceback" not in err


def test_default_terminal_output_fits_a_screen(tsv: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = _cli(["run-experiment", "-i", str(tsv), "--split", "holdout", "-k", "5", "--group-by",
                           "activity", "--n-resamples", "50", "--no-progress", "--no-report"], capsys)
    assert code == 0, err
    assert len(out.splitlines()) + len(err.splitlines()) <= 45, out + err
    assert out.lstrip().startswith("rankmeter experiment")  # the main table first
    assert "Per group" in out and "Gap between groups" not in out
    assert "per-group gap and test tables not shown: --verbose" in err
    code, out2, err2 = _cli(["run-experiment", "-i", str(tsv), "--split", "holdout", "-k", "5", "--group-by",
                             "activity", "--n-resamples", "50", "--no-progress", "--no-report", "--verbose"], capsys)
    assert code == 0 and len(out2.splitlines()) > len(out.splitlines()) and "Gap between groups" in out2


@pytest.mark.slow
def test_demo_output_is_short(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = _cli(["demo", "--out", str(tmp_path / "d"), "--users", "150", "--items", "200", "--no-progress"],
                          capsys)
    assert code == 0, err
    assert len(out.splitlines()) + len(err.splitlines()) <= 40, out + err
    assert "Per group" not in out and "per-group tables not shown: --verbose" in err


# --------------------------------------------------------------------------- properties


@settings(max_examples=40, deadline=None)
@given(st.lists(st.floats(0, 1, allow_nan=False), min_size=2, max_size=8), st.floats(0, 1))
def test_across_row_matches_a_slow_reference(values: list[float], rho: float) -> None:
    r = across_row(values, rho)
    mean = statistics.fmean(values)
    sd = statistics.stdev(values)
    half = _t_quantile(0.975, len(values) - 1) * sd * math.sqrt(1 / len(values) + rho)
    assert r["mean"] == pytest.approx(mean, abs=1e-12) and r["sd"] == pytest.approx(sd, abs=1e-9)
    assert r["ci_low"] == pytest.approx(mean - half, abs=1e-9) and r["ci_high"] == pytest.approx(mean + half, abs=1e-9)
    assert r["ci_low"] <= r["mean"] <= r["ci_high"]


@settings(max_examples=25, deadline=None)
@given(st.lists(st.integers(1, 6), min_size=3, max_size=12), st.sampled_from([0.2, 0.25, 0.5]), st.integers(0, 50))
def test_fold_in_keeps_the_held_out_share_of_each_test_user(sizes: list[int], frac: float, seed: int) -> None:
    from fractions import Fraction

    from rankmeter.recsys.protocol import fold_in

    users = [f"u{u}" for u, n in enumerate(sizes) for _ in range(n)]
    items = [f"i{j}" for n in sizes for j in range(n)]
    folds = S.kfold({"user": users, "item": items}, folds=3, unit="users", seed=seed)
    for fold in folds:
        s = fold_in(fold, frac, seed)
        assert not (s.train_mask & s.test_mask).any()
        np.testing.assert_array_equal(s.train_mask | s.test_mask, fold.train_mask | fold.test_mask)
        assert not (s.test_mask & ~fold.test_mask).any()
        u = np.array(users)
        for name in set(u[fold.test_mask]):
            n_u = int((u[fold.test_mask] == name).sum())
            held = int((u[s.test_mask] == name).sum())
            want = int(S.round_count(np.array([n_u]), Fraction(str(frac)))[0])
            assert held == want  # 0 for a one-row user: all of it to training
            assert int((u[s.train_mask] == name).sum()) == n_u - want


def test_single_split_reports_tuning_and_every_baseline(data: pa.Table) -> None:
    split = S.holdout(data, per_user=True, seed=1, validation_fraction=0.2)
    res = experiment(data, split=split, k=5, recommenders={"pop": "popular", "rnd": "random",
                                                           "knn": {"type": "itemknn", "neighbors": [3, 30]}},
                     baseline=["pop", "rnd"], metrics=["ndcg@5"], n_resamples=50)
    doc = json.loads(res.to_json())
    assert set(doc["comparisons"]) == {"pop", "rnd"} and doc["tuning"]["knn"]["params"]["neighbors"] in (3, 30)
    html = res.to_html()
    assert "Tuning of knn" in html and "Several baselines" in html and "one holm correction" in html
    assert "1 = pop; 2 = rnd" in res.caption()


def test_repeated_strong_with_tuning(data: pa.Table) -> None:
    res = _rep(experiment(data, split="strong", repeats=2, k=5, validation_fraction=0.2, metrics=["ndcg@5"],
                     recommenders=["popular", {"type": "itemknn", "neighbors": [3, 30]}], n_resamples=50))
    assert res.labels == ("repeat 1", "repeat 2") and set(res.tuning) == {"repeat 1", "repeat 2"}
    for per in res.tuning.values():
        t = per["itemknn"]
        assert t["params"] == max(t["scores"], key=lambda s: s["value"])["params"]
