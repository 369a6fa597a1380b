"""Issue 24 item 16: two spellings of one metric are computed once and each is printed under its own key."""

from __future__ import annotations

import dataclasses
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import rankmeter
from rankmeter.metrics.registry import parse_metric, parse_metric_list


@pytest.fixture
def files(tmp_path: Path) -> dict[str, Path]:
    q = tmp_path / "qrels.txt"
    q.write_text("1 0 a 1\n1 0 b 0\n2 0 c 1\n")
    r = tmp_path / "run.txt"
    r.write_text("1 Q0 a 1 1.0 r\n1 Q0 b 2 0.5 r\n2 Q0 b 1 2.0 r\n2 Q0 c 2 1.0 r\n")
    return {"qrels": q, "run": r}


def run_cli(*args: str) -> subprocess.CompletedProcess[str]:
    out = subprocess.run([sys.executable, "-m", "rankmeter", *args], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert "internal error" not in out.stderr and "Traceback" not in out.stderr
    return out


def test_json_keys_each_spelling(files: dict[str, Path]) -> None:
    out = run_cli("evaluate", str(files["qrels"]), str(files["run"]), "-m", "hit_rate@10", "-m", "success@10",
                  "-m", "P_1,P@1", "-m", "hit_rate@10", "--format", "json", "-q")
    doc = json.loads(out.stdout)
    assert list(doc["mean"]) == ["hit_rate@10", "success@10", "P_1", "P@1"]
    assert doc["mean"]["hit_rate@10"] == doc["mean"]["success@10"] == 1.0
    assert doc["mean"]["P_1"] == doc["mean"]["P@1"] == 0.5
    assert "metric 'success@10' is the same as 'hit_rate@10' (success@10): computed once, shown under both names" \
        in out.stderr
    assert "metric 'hit_rate@10' given twice: evaluated once" in out.stderr


def test_csv_and_table_columns(files: dict[str, Path]) -> None:
    out = run_cli("evaluate", str(files["qrels"]), str(files["run"]), "-m", "hit_rate@10,success@10", "-q",
                  "--format", "csv")
    assert out.stdout.splitlines()[0] == "query,hit_rate@10,success@10"
    out = run_cli("evaluate", str(files["qrels"]), str(files["run"]), "-m", "hit_rate@10,success@10")
    assert "hit_rate@10" in out.stdout and "success@10" in out.stdout


def test_trec_format_prints_trec_eval_name_once(files: dict[str, Path]) -> None:
    out = run_cli("evaluate", str(files["qrels"]), str(files["run"]), "-m", "hit_rate@10,success@10", "--format",
                  "trec")
    assert [line.split()[0] for line in out.stdout.splitlines()] == ["success_10"]


def test_parse_metric_list_keeps_spellings_only_when_asked() -> None:
    assert [m.text for m in parse_metric_list(["hit_rate@10", "success@10"]).metrics] == ["hit_rate@10"]
    kept = parse_metric_list(["hit_rate@10", "success@10", "success@10"], spellings=True)
    assert [m.text for m in kept.metrics] == ["hit_rate@10", "success@10"]


def test_one_canonical_metric_is_computed_once() -> None:
    calls: list[int] = []
    base = parse_metric("success@10")

    def counting(*args: Any, **kwargs: Any) -> Any:
        calls.append(1)
        return base.spec.kernel(*args, **kwargs)

    spec = dataclasses.replace(base.spec, kernel=counting)
    a = dataclasses.replace(parse_metric("hit_rate@10"), spec=spec)
    b = dataclasses.replace(base, spec=spec)
    res = rankmeter.evaluate({"q": {"a": 1}, "p": {"b": 1}}, {"q": {"a": 1.0}, "p": {"c": 1.0}}, [a, b])
    assert calls == [1]
    assert np.asarray(res.values["hit_rate@10"]).tolist() == np.asarray(res.values["success@10"]).tolist()


# --------------------------------------------------------------------------- compare and --group-by


@pytest.fixture
def three(tmp_path: Path) -> dict[str, Path]:
    """Judgments of 6 queries and three runs that differ on them (so the tests have something to test)."""
    q = tmp_path / "qrels.txt"
    q.write_text("".join(f"{i} 0 d{i} 1\n{i} 0 e{i} 1\n" for i in range(6)))
    runs = {}
    for name, hits in (("a", {0, 1, 2}), ("b", {0, 1, 2, 3, 4}), ("c", {5})):
        lines = [f"{i} Q0 {'d' if i in hits else 'x'}{i} 1 2.0 {name}\n{i} Q0 y{i} 2 1.0 {name}\n" for i in range(6)]
        runs[name] = tmp_path / f"{name}.txt"
        runs[name].write_text("".join(lines))
    groups = tmp_path / "groups.txt"
    groups.write_text("".join(f"{i} {'g1' if i < 3 else 'g2'}\n" for i in range(6)))
    return {"qrels": q, **runs, "groups": groups}


SPELLINGS = ["-m", "hit_rate@10", "-m", "success@10", "-m", "P@1,p@1"]


def compare_cli(f: dict[str, Path], *args: str) -> subprocess.CompletedProcess[str]:
    return run_cli("compare", str(f["qrels"]), str(f["a"]), str(f["b"]), str(f["c"]), *SPELLINGS, "--resamples",
                   "300", *args)


def _stats(t: dict[str, Any]) -> tuple[Any, ...]:
    return tuple(t[k] for k in ("a", "b", "test", "statistic", "p_value", "p_adjusted", "diff", "diff_interval",
                                "effect_size", "n", "method", "significant"))


def test_compare_json_keys_each_spelling_with_the_same_statistics(three: dict[str, Path]) -> None:
    out = compare_cli(three, "--format", "json", "--details", "--test", "t", "--test", "tukey-hsd",
                      "--test", "bootstrap", "--pairs", "all", "--family", "all")
    doc = json.loads(out.stdout)
    assert doc["metrics"] == ["hit_rate@10", "success@10", "P@1", "p@1"]
    for run in ("a", "b", "c"):
        assert doc["means"][run]["hit_rate@10"] == doc["means"][run]["success@10"]
        assert doc["intervals"][run]["P@1"] == doc["intervals"][run]["p@1"]
    by = {(t["metric"], t["test"], t["a"], t["b"]): t for t in doc["tests"]}
    assert len(by) == 4 * 3 * 3  # every spelling, test and pair of runs
    for (metric, test, a, b), t in by.items():
        first = {"success@10": "hit_rate@10", "p@1": "P@1"}.get(metric, metric)
        assert _stats(t) == _stats(by[(first, test, a, b)]), (metric, test)
    assert doc["rankmeter"]["aliases"] == {"success@10": "hit_rate@10", "p@1": "P@1"}
    # the alias is no new test: Holm over all metrics counts 2 metrics x 3 pairs per test, not 4 x 3
    assert any("computed and tested once" in n for n in doc["notes"])


def test_compare_family_counts_an_alias_once() -> None:
    """Holm over all metrics: adding another spelling of a metric changes no adjusted p-value."""
    from rankmeter.compare import compare

    qrels = {f"q{i}": {"a": 1, "b": int(i % 2 == 0)} for i in range(8)}
    runs = {"A": {q: {"a": 2.0, "x": 1.0} for q in qrels},
            "B": {q: ({"x": 2.0, "a": 1.0} if i % 3 else {"b": 2.0, "a": 1.0}) for i, q in enumerate(qrels)},
            "C": {q: {"x": 2.0, "y": 1.0} for q in qrels}}
    plain = compare(qrels, runs, ["P@1", "ndcg@10"], family="all", n_resamples=200, test=["t", "tukey-hsd"])
    twice = compare(qrels, runs, ["P@1", "p@1", "ndcg@10", "P_1"], family="all", n_resamples=200,
                    test=["t", "tukey-hsd"])
    assert twice.metrics == ("P@1", "p@1", "ndcg@10", "P_1") and twice.aliases == {"p@1": "P@1", "P_1": "P@1"}
    for t in plain.tests:
        for spelling in ("P@1", "p@1", "P_1") if t.metric == "P@1" else (t.metric,):
            other = twice.test(spelling, t.a, t.b, t.test)
            assert (other.p_value, other.p_adjusted, other.statistic, other.diff_interval) == \
                (t.p_value, t.p_adjusted, t.statistic, t.diff_interval), (spelling, t.test)
    assert twice.means["B"]["p@1"] == plain.means["B"]["P@1"] and twice.intervals == {
        r: {m: plain.intervals[r]["P@1" if m in ("p@1", "P_1") else m] for m in twice.metrics} for r in runs}
    assert "(4 comparisons per test)" in twice.describe()  # 2 metrics x 2 pairs, not 4 x 2
    from rankmeter.compare.comparison import Comparison

    back = Comparison.load(twice.to_json())
    assert back.aliases == twice.aliases and back.equals(twice)


@pytest.mark.parametrize("fmt", ["table", "markdown", "latex", "csv"])
def test_compare_prints_each_spelling_in_every_format(three: dict[str, Path], fmt: str) -> None:
    text = compare_cli(three, "--format", fmt).stdout
    for spelling in ("hit_rate@10", "success@10", "P@1", "p@1"):
        assert spelling in text, (fmt, spelling)
    if fmt == "csv":
        rows = [line.split(",") for line in text.splitlines()[1:]]
        means = {(r[1], r[2]): r[5] for r in rows if r[0] == "mean"}
        assert means[("success@10", "b")] == means[("hit_rate@10", "b")]
        diffs = {(r[1], r[2], r[3]): r[5:] for r in rows if r[0] == "diff"}
        assert diffs[("p@1", "c", "a")] == diffs[("P@1", "c", "a")]


def test_compare_html_report_shows_each_spelling(three: dict[str, Path], tmp_path: Path) -> None:
    html = tmp_path / "r.html"
    compare_cli(three, "--html", str(html), "--k-max", "3")
    text = html.read_text()
    assert "success@10 &uarr;" in text and "hit_rate@10 &uarr;" in text and "p@1 &uarr;" in text


def test_group_by_shows_each_spelling_with_the_same_tests(three: dict[str, Path]) -> None:
    out = compare_cli(three, "--group-by", str(three["groups"]), "--format", "json", "--test", "bootstrap")
    groups = json.loads(out.stdout)["groups"]
    for run in ("b", "c"):
        rows = {(t["metric"], t["group"]): t for t in groups[run]["tests"]}
        for g in ("g1", "g2"):
            one, other = rows[("hit_rate@10", g)], rows[("success@10", g)]
            assert {k: v for k, v in one.items() if k != "metric"} == {k: v for k, v in other.items()
                                                                      if k != "metric"}
        assert groups[run]["groups"]["g2"]["mean"]["p@1"] == groups[run]["groups"]["g2"]["mean"]["P@1"]
    text = compare_cli(three, "--group-by", str(three["groups"]), "--format", "markdown").stdout
    assert "success@10" in text.split("Per group")[1]
    out = run_cli("evaluate", str(three["qrels"]), str(three["b"]), *SPELLINGS, "--group-by", str(three["groups"]),
                  "--format", "json")
    doc = json.loads(out.stdout)
    assert doc["groups"]["groups"]["g1"]["mean"]["success@10"] == doc["groups"]["groups"]["g1"]["mean"]["hit_rate@10"]
    assert list(doc["groups"]["groups"]["g1"]["mean"]) == ["hit_rate@10", "success@10", "P@1", "p@1"]


def test_by_group_tests_a_spelling_once() -> None:
    """A resampling test draws once per metric: the second spelling repeats the first's draw, not a new one."""
    from rankmeter.stats.groups import by_group

    qrels = {f"q{i}": {"a": 1} for i in range(12)}
    base = rankmeter.evaluate(qrels, {q: {"a": 1.0} if i % 2 else {"x": 1.0} for i, q in enumerate(qrels)},
                              ["rr", "recip_rank"])
    other = rankmeter.evaluate(qrels, {q: {"a": 1.0} if i % 3 else {"x": 1.0} for i, q in enumerate(qrels)},
                               ["rr", "recip_rank"])
    groups = {q: "g1" if i < 6 else "g2" for i, q in enumerate(qrels)}
    gv = by_group(other, groups, test="bootstrap", against=base, n_resamples=200)
    rows = gv.tests.set_index(["metric", "group"])
    assert rows.loc["rr"].equals(rows.loc["recip_rank"])


@pytest.mark.parametrize("protocol", ["baselines", "kfold"])
def test_run_experiment_tests_a_spelling_once(tmp_path: Path, protocol: str) -> None:
    """run-experiment: both spellings in the table and the JSON, with one test each counted once in the family
    (several baselines: one correction over every model x baseline x metric; k-fold: over the models x metrics)."""
    cfg = tmp_path / "exp.toml"
    cfg.write_text("[data]\ngenerate = { users = 30, items = 40, seed = 0 }\n")
    extra = (["-r", "popular", "-r", "random", "-r", "itemknn", "--baseline", "popular", "--baseline", "random"]
             if protocol == "baselines" else ["-r", "popular", "-r", "random", "--split", "kfold", "--folds", "3"])
    out = run_cli("run-experiment", str(cfg), "-m", "hit_rate@10", "-m", "success@10", "-m", "ndcg@10", *extra,
                  "--out", str(tmp_path / "out"), "--no-progress", "--format", "json")
    doc = json.loads(out.stdout)
    assert doc["metrics"] == ["hit_rate@10", "success@10", "ndcg@10"]
    if protocol == "baselines":
        tests = doc["comparison"]["tests"]
        family = "(family of 6 tests)"  # 2 metrics x 3 pairs of models (each pair of baselines once)
        key = ("a", "b")
    else:
        tests = doc["tests"]
        family = "(family of 2 tests)"  # 2 metrics x (random against popular)
        key = ("baseline", "model")
    assert tests and all(t["correction"].endswith(family) for t in tests), {t["correction"] for t in tests}
    rows = {(t["metric"], *(t[k] for k in key)): t for t in tests}
    for (metric, *pair), t in rows.items():
        if metric == "success@10":
            twin = rows[("hit_rate@10", *pair)]
            assert {k: v for k, v in t.items() if k != "metric"} == {k: v for k, v in twin.items() if k != "metric"}
    assert {m for m, *_ in rows} == {"hit_rate@10", "success@10", "ndcg@10"}


@pytest.mark.parametrize("fmt", ["markdown", "latex", "html"])
def test_evaluate_papers_print_each_spelling(files: dict[str, Path], fmt: str) -> None:
    text = run_cli("evaluate", str(files["qrels"]), str(files["run"]), "-m", "P@1", "-m", "p@1", "--format", fmt).stdout
    assert "P@1" in text and "p@1" in text
