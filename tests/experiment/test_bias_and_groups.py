"""The experiment's popularity-bias and calibration metrics by default, users without a training
profile (nan: left out of means and paired tests, counted), and results per user group."""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest

from rankmeter import InputError, ParameterError
from rankmeter.datasets import synthetic
from rankmeter.experiment import default_metrics, experiment

BIAS = ["aplt@5", "pop_lift@5", "pop_rsp@5", "pop_reo@5", "exposure_gap@5"]


@pytest.fixture(scope="module")
def data():
    return synthetic(n_users=150, n_items=200, seed=4)


@pytest.fixture(scope="module")
def grouped(data):
    return experiment(data, k=5, n_resamples=200, groups="activity")


def _split_with_newcomers(data, n_new: int = 12) -> tuple[pa.Table, pa.Table, list[str]]:
    """A per-user temporal split, then every training row of ``n_new`` users removed: test users
    without a training profile."""
    from rankmeter.split import temporal

    s = temporal(data.interactions, per_user=True, test_fraction=0.2)
    train, test = s.table("train"), s.table("test")
    new = sorted({str(u) for u in test.column("user").to_pylist()}, key=int)[:n_new]
    keep = np.array([str(u) not in set(new) for u in train.column("user").to_pylist()])
    return train.filter(pa.array(keep)), test, new


def test_popularity_bias_and_calibration_are_default_metrics(grouped, data) -> None:
    assert all(m in grouped.metrics for m in BIAS + ["miscalibration@5"])
    assert "miscalibration@10" not in default_metrics(10) and "aplt@10" in default_metrics(10)
    res = experiment(data.interactions, k=5, n_resamples=100, recommenders=["popular"], baseline=None)
    assert "miscalibration@5" not in res.metrics and "pop_lift@5" in res.metrics  # no categories given
    # most popular recommends the short head only
    assert grouped.results["popular"].mean["aplt@5"] == 0.0
    assert grouped.results["random"].mean["aplt@5"] > 0.2


def test_users_without_a_training_profile_are_counted_not_refused(data) -> None:
    """Test users without training items have no pop_lift / miscalibration value (nan): the comparison
    leaves them out of those metrics' tests (it refused nan before) and says so."""
    train, test, new = _split_with_newcomers(data)
    res = experiment(data, split=(train, test), k=5, n_resamples=200, catalog="all")
    assert any(f"{len(new)} of the" in n and "no training interaction" in n for n in res.notes)
    for name, r in res.results.items():
        v = dict(zip(r.queries, r.values["pop_lift@5"]))
        assert all(math.isnan(v[u]) for u in new) and sum(math.isnan(x) for x in v.values()) == len(new)
        assert r.mean["pop_lift@5"] == pytest.approx(np.nanmean(r.values["pop_lift@5"]), abs=1e-15)
    cmp = res.comparison
    n_users = cmp.n_queries
    assert cmp.no_value["pop_lift@5"] == {n: len(new) for n in res.results}
    assert cmp.no_value["miscalibration@5"] == {n: len(new) for n in res.results}
    assert "ndcg@5" not in cmp.no_value
    for t in cmp.tests:
        assert t.n == (n_users - len(new) if t.metric in ("pop_lift@5", "miscalibration@5") else n_users)
    assert any(n.startswith("pop_lift@5: no value (nan)") for n in cmp.notes)
    html = res.to_html()
    assert "without a value (nan)" in html and f">{n_users - len(new)}</td>" in html
    assert json.loads(res.to_json())["comparison"]["no_value"]["pop_lift@5"]
    # the note names the metrics concerned, and is not given when none is evaluated
    assert any("(pop_lift@5, miscalibration@5)" in n for n in res.notes)
    acc = experiment(data, split=(train, test), k=5, n_resamples=100, metrics=["ndcg@5"], catalog="all")
    assert not any("no training interaction" in n for n in acc.notes) and acc.comparison.no_value == {}


def _activity(data, users) -> dict[str, int]:
    from rankmeter.split import temporal

    train = temporal(data.interactions, per_user=True, test_fraction=0.2).table("train")
    seen: dict[str, set] = {}
    for u, i in zip(train.column("user").to_pylist(), train.column("item").to_pylist()):
        seen.setdefault(str(u), set()).add(str(i))
    return {u: len(seen.get(u, ())) for u in users}


def _terciles(data, users: list[str]) -> dict[str, str]:
    """The documented rule, read plainly: order by activity then id, cut into 3 (the first take the extra)."""
    act = _activity(data, users)
    order = sorted(users, key=lambda u: (act[u], u.encode()))
    third = [len(x) for x in np.array_split(np.arange(len(users)), 3)]
    want = {}
    for label, start, size in zip(("low", "mid", "high"), np.cumsum([0] + third[:2]), third):
        for u in order[start:start + size]:
            want[u] = label
    return want


def test_activity_terciles_plain_reading(grouped, data) -> None:
    users = list(grouped.results["popular"].queries)
    act = _activity(data, users)
    want = _terciles(data, users)
    view = grouped.groups["popular"]
    assert view.sizes == {g: list(want.values()).count(g) for g in ("low", "mid", "high")}
    assert max(view.sizes.values()) - min(view.sizes.values()) <= 1
    assert grouped.group_info["order"] == ["low", "mid", "high"]
    # sizes, means and groups list the groups in one order (issue 24 item 14)
    assert list(view.sizes) == list(view.means.index) == list(view.groups) == ["low", "mid", "high"]
    # the least active user of "mid" is at least as active as the most active of "low"
    assert max(act[u] for u in users if want[u] == "low") <= min(act[u] for u in users if want[u] == "mid")
    # by_group equals a pandas group-by of per_query with those groups
    for name, r in grouped.results.items():
        frame = r.per_query.copy()
        frame["group"] = [want[str(u)] for u in frame.index]
        means = frame.groupby("group")[list(r.values)].mean()
        got = grouped.groups[name].means
        for m in r.values:
            for g in ("low", "mid", "high"):
                assert got.loc[g, m] == pytest.approx(means.loc[g, m], abs=1e-12), (name, m, g)


def test_group_view_tests_within_each_group_against_the_baseline(grouped) -> None:
    base = grouped.baseline
    assert grouped.groups[base].tests.empty
    other = next(n for n in grouped.groups if n != base)
    tests = grouped.groups[other].tests
    assert set(tests["group"]) == {"low", "mid", "high"} and set(tests["test"]) == {"t"}
    assert set(tests["other"]) == {base}  # the baseline by name, not a placeholder (issue 24 item 14)
    assert (tests["n"] == tests["group"].map(grouped.groups[other].sizes)).all()
    d = grouped.to_dict()["groups"]
    assert d["info"]["order"] == ["low", "mid", "high"] and set(d["by_recommender"]) == set(grouped.results)
    frame = grouped.group_frame()
    assert set(frame["recommender"]) == set(grouped.results) and "pop_lift@5" in set(frame["metric"])


def test_groups_served_equally_welch_between_groups_and_delta_gap(data) -> None:
    from scipy import stats

    res = experiment(data, k=5, n_resamples=100, groups="activity", recommenders=["popular", "itemknn"],
                     metrics=["ndcg@5", "pop_lift@5", "arp(pop=share)@5", "profile_popularity"])
    between = res.group_info["between"]["popular"]
    row = between[(between["metric"] == "ndcg@5") & (between["group"] == "high") & (between["other"] == "low")]
    r = res.results["popular"]
    group = _terciles(data, list(r.queries))
    vals = dict(zip(r.queries, r.values["ndcg@5"]))
    want = stats.ttest_ind([vals[u] for u in r.queries if group[u] == "high"],
                           [vals[u] for u in r.queries if group[u] == "low"], equal_var=False)
    assert float(row["p_value"].iloc[0]) == pytest.approx(float(want.pvalue), rel=1e-9)
    assert set(between["test"]) == {"welch"} and between["p_adjusted"].notna().all()
    html = res.to_html()
    assert "groups differ? (smallest adjusted p, Welch)" in html and "&Delta;GAP per group" in html
    g = res.groups["popular"]
    gap, means = g.delta_gap["arp(pop=share)@5"], g.means
    assert gap["low"] == pytest.approx((means.loc["low", "arp(pop=share)@5"] - means.loc["low", "profile_popularity"])
                                       / means.loc["low", "profile_popularity"], rel=1e-12)
    out = json.loads(res.to_json())["groups"]["info"]["between"]["popular"]
    assert {x["test"] for x in out} == {"welch"} and len(out) == 4 * 3  # 4 metrics x 3 pairs of groups


def test_group_tables_in_the_terminal_and_without_matplotlib(grouped, monkeypatch) -> None:
    from rich.console import Console

    con = Console(record=True, width=250)
    grouped.print(console=con)
    text = con.export_text()
    assert "per user group: activity terciles" in text and "popular: low (" in text
    assert text.index("popular: low") < text.index("popular: mid") < text.index("popular: high")
    import rankmeter.report.experiment as rep
    from rankmeter._errors import MissingExtraError

    def no_mpl():
        raise MissingExtraError("figures", "report", "matplotlib")

    monkeypatch.setattr(rep, "_mpl", no_mpl)
    html = grouped.to_html()
    assert "No figures" in html and '<h2 id="groups">' in html and "<img" not in html
    assert "gap (max &minus; min)" in html


def test_groups_from_a_mapping_or_a_file(data, tmp_path) -> None:
    users = [str(u) for u in sorted(set(data.interactions.column("user").to_pylist()))]
    mapping = {u: ("even" if int(u) % 2 == 0 else "odd") for u in users[:-5]}  # 5 users without a group
    res = experiment(data, k=5, n_resamples=100, recommenders=["popular", "itemknn"], groups=mapping)
    v = res.groups["popular"]
    assert set(v.groups) == {"even", "odd"} and v.ungrouped == 5
    assert any("5 users of" in n and "no group" in n for n in v.notes)
    path = tmp_path / "groups.tsv"
    path.write_text("user\tgroup\n" + "".join(f"{u}\t{g}\n" for u, g in mapping.items()), encoding="utf-8")
    res2 = experiment(data, k=5, n_resamples=100, recommenders=["popular", "itemknn"], groups=str(path))
    pd.testing.assert_frame_equal(res2.groups["popular"].means, v.means)


def test_bad_groups_fail_before_the_work(data, tmp_path) -> None:
    with pytest.raises(ParameterError, match="'groups' parameter of experiment must be 'activity'"):
        experiment(data, groups="activty")
    bad = tmp_path / "g.tsv"
    bad.write_text("u1\tg\tx\n", encoding="utf-8")
    with pytest.raises(InputError, match="expected two columns"):
        experiment(data, groups=str(bad))


def test_cli_group_by_activity_and_errors(data, tmp_path) -> None:
    d = data.write(tmp_path / "data")
    cmd = [sys.executable, "-m", "rankmeter", "run-experiment", "-i", str(d["interactions"]), "--categories",
           str(d["categories"]), "-k", "5", "--n-resamples", "100", "--no-progress", "--no-report"]
    proc = subprocess.run(cmd + ["--group-by", "activity", "--format", "json"], capture_output=True, text=True,
                          timeout=300)
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert out["groups"]["info"]["order"] == ["low", "mid", "high"]
    assert "miscalibration@5" in out["metrics"] and "pop_lift@5" in out["metrics"]
    proc = subprocess.run(cmd + ["--group-by", "activity", "--verbose"], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0 and "Per group" in proc.stdout and "Gap between groups" in proc.stdout
    proc = subprocess.run(cmd + ["--group-by", str(tmp_path / "missing.tsv")], capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert "--group-by must be 'activity' or an existing two-column file" in proc.stderr


def test_config_groups_key(data, tmp_path) -> None:
    from rankmeter.experiment import config_to_arguments, read_config

    (tmp_path / "g.tsv").write_text("1\ta\n2\tb\n", encoding="utf-8")
    cfg = tmp_path / "x.toml"
    cfg.write_text('[data]\ninteractions = "u.data"\n[evaluation]\ngroups = "g.tsv"\n', encoding="utf-8")
    _, kwargs, _ = config_to_arguments(read_config(cfg))
    assert kwargs["groups"] == str(tmp_path / "g.tsv")
    cfg.write_text('[evaluation]\ngroups = "activity"\n', encoding="utf-8")
    assert config_to_arguments(read_config(cfg))[1]["groups"] == "activity"
    cfg.write_text('[evaluation]\ngroups = 3\n', encoding="utf-8")
    with pytest.raises(InputError, match=r"\[evaluation\] groups must be a string"):
        config_to_arguments(read_config(cfg))


def _chromium() -> str | None:
    import shutil

    return shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")


def _browser(tmp_path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([_chromium(), "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                           "--hide-scrollbars", f"--user-data-dir={tmp_path / 'profile'}", *args],
                          capture_output=True, text=True, timeout=180)


@pytest.mark.skipif(_chromium() is None, reason="chromium is not installed (.ci/run installs it)")
def test_demo_report_shows_calibration_popularity_bias_and_groups_in_chromium(tmp_path) -> None:
    """`rankmeter demo` (the executable), its report rendered by headless Chromium: the DOM has the
    calibration and popularity-bias rows and the per-group section with a plot per metric, and the
    screenshot of the whole page is not blank anywhere (figures drawn, not missing)."""
    from PIL import Image

    out = tmp_path / "demo"
    proc = subprocess.run([sys.executable, "-m", "rankmeter", "demo", "--out", str(out), "--users", "300",
                           "--items", "400", "--no-progress"], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    page = (out / "report.html").resolve().as_uri()
    dom = _browser(tmp_path, "--dump-dom", page)
    assert dom.returncode == 0, dom.stderr[-2000:]
    html = dom.stdout
    for text in ("Popularity bias and exposure", "Calibration", "miscalibration@10", "aplt@10", "pop_lift@10",
                 "pop_rsp@10", "exposure_gap@10", '<h2 id="groups">Per user group</h2>', "activity terciles"):
        assert text in html, text
    per_user = [m for m in json.loads((out / "results.json").read_text())["groups"]["by_recommender"]["popular"]
                ["groups"]["low"]["mean"]]
    assert "miscalibration@10" in per_user and "pop_lift@10" in per_user
    for m in per_user:  # one plot per metric in the per-group section
        assert f'alt="{m} per user group"' in html, m
    section = html[html.index('<h2 id="groups">'):html.index("<h2>Distributions")]
    assert section.count("<img") == len(per_user) and "low" in section and "high" in section
    shot = Path(os.environ.get("RANKMETER_SCREENSHOT", tmp_path / "shot.png"))  # set it to look at the page
    proc = _browser(tmp_path, f"--screenshot={shot}", "--window-size=1280,14000", page)
    assert proc.returncode == 0 and shot.exists(), proc.stderr[-2000:]
    gray = np.asarray(Image.open(shot).convert("L"), dtype=np.float64)
    content = gray[:, :1100]
    bands = [content[y:y + 1000] for y in range(0, 13000, 1000)]
    assert all((b < 200).mean() > 0.005 for b in bands), [(b < 200).mean() for b in bands]
    assert len(np.unique(np.asarray(Image.open(shot).convert("RGB")).reshape(-1, 3), axis=0)) > 200  # colours
