"""compare(test="tukey-hsd"), rank overlap of compared runs, discriminative power, ranking correlation,
ANOVA and topic-set size from a Comparison."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest

from rankmeter import ParameterError
from rankmeter.compare import compare
from rankmeter.compare.many import ranking_correlation
from rankmeter.compare.overlap import overlap_runs
from rankmeter.metrics import tau_ap
from rankmeter.stats import anova_two_way, topic_set_size, tukey_hsd

from .conftest import make_data


@pytest.fixture(scope="module")
def small():
    return make_data(n_queries=5, seed=11)


@pytest.fixture(scope="module")
def medium():
    return make_data(n_queries=30, seed=12, boosts=(0.0, 0.8, 0.4, 0.1))


def test_tukey_with_two_runs_equals_the_exact_randomisation_test(small):
    qrels, runs = small
    two = {k: runs[k] for k in ("sys0", "sys1")}
    c = compare(qrels, two, ["ndcg@10", "P@5"], test=["tukey-hsd", "randomization"], n_resamples=200)
    for m in ("ndcg@10", "P@5"):
        tk, rz = c.test(m, "sys0", "sys1", "tukey-hsd"), c.test(m, "sys0", "sys1", "randomization")
        assert tk.method.startswith("randomised Tukey HSD, exact (32 permutations)")
        assert tk.p_value == pytest.approx(rz.p_value, abs=1e-12)


def test_tukey_p_values_are_the_stats_function_and_not_corrected(small):
    qrels, runs = small
    c = compare(qrels, runs, ["ndcg@10"], test="tukey-hsd", pairs="all", correction="bonferroni", n_resamples=100)
    X = np.column_stack([c.scores[r]["ndcg@10"] for r in c.runs])
    want = tukey_hsd(X).p_value  # 6^5 = 7776 permutations: exact in both
    for t in c.tests:
        i, j = c.runs.index(t.a), c.runs.index(t.b)
        assert t.p_value == pytest.approx(want[i, j], abs=1e-12)
        assert t.p_adjusted == t.p_value and t.correction == "tukey-hsd"
    assert any("Tukey HSD: p-values are familywise" in n for n in c.notes)


def test_tukey_monte_carlo_is_seeded(medium):
    qrels, runs = medium
    a = compare(qrels, runs, ["ndcg@10"], test="tukey-hsd", pairs="all", n_resamples=300, seed=3)
    b = compare(qrels, runs, ["ndcg@10"], test="tukey-hsd", pairs="all", n_resamples=300, seed=3)
    assert [t.p_value for t in a.tests] == [t.p_value for t in b.tests]
    assert "Monte Carlo (300 permutations)" in a.tests[0].method


def test_overlap_of_compared_runs(small):
    qrels, runs = small
    c = compare(qrels, runs, ["P@5"], overlap=0.8, n_resamples=50)
    assert [(o["a"], o["b"]) for o in c.overlap] == [("sys0", "sys1"), ("sys0", "sys2")]
    want = overlap_runs(runs["sys0"], runs["sys1"], ["rbo(p=0.8)"], queries=list(c.queries))
    assert c.overlap[0]["mean"] == pytest.approx(want.mean["rbo(p=0.8)"], abs=1e-15)
    assert c.to_dict()["overlap"][0]["measure"] == "rbo(p=0.8)"
    assert compare(qrels, runs, ["P@5"], n_resamples=50).overlap == []
    with pytest.raises(ParameterError, match="'overlap' parameter of compare"):
        compare(qrels, runs, ["P@5"], overlap=1.5)


def test_discriminative_power(medium):
    qrels, runs = medium
    c = compare(qrels, runs, ["ndcg@10", "P@5"], test="tukey-hsd", pairs="all", n_resamples=300)
    dp = c.discriminative_power()
    for m in ("ndcg@10", "P@5"):
        ps = sorted(t.p_adjusted for t in c.tests if t.metric == m)
        assert dp[m].asl == tuple(ps) and dp[m].n_pairs == 6
        assert dp[m].significant == sum(p < 0.05 for p in ps) and dp[m].share == dp[m].significant / 6
    with pytest.raises(ParameterError, match="pairs='all'"):
        compare(qrels, runs, ["P@5"], n_resamples=50).discriminative_power()


def test_ranking_correlation_between_metrics(medium):
    qrels, runs = medium
    c = compare(qrels, runs, ["ndcg@10", "P@5"], n_resamples=50)
    r = c.ranking_correlation("ndcg@10", "P@5")
    order = lambda m: sorted(c.runs, key=lambda x: -c.means[x][m])  # noqa: E731
    assert r.tau_ap == pytest.approx(tau_ap(order("ndcg@10"), order("P@5")))
    assert ranking_correlation({"a": 1, "b": 2}, {"a": 1, "b": 2}).tau == 1
    tied = ranking_correlation({"a": 1, "b": 1, "c": 0}, {"a": 1, "b": 2, "c": 0})
    assert tied.ties and np.isnan(tied.tau_ap)


def test_anova_and_topic_set_size_from_a_comparison(medium):
    qrels, runs = medium
    c = compare(qrels, runs, ["ndcg@10"], n_resamples=50)
    X = np.column_stack([c.scores[r]["ndcg@10"] for r in c.runs])
    assert c.anova("ndcg@10").ss == anova_two_way(X).ss
    assert c.topic_set_size("ndcg@10", 0.05).n == topic_set_size(0.05, scores=X).n


def test_cli_tukey_and_overlap(tmp_path, small):
    qrels, runs = small
    with open(tmp_path / "qrels.txt", "w") as f:
        for q, judged in qrels.items():
            for doc, g in judged.items():
                f.write(f"{q} 0 {doc} {g}\n")
    paths = []
    for name, run in runs.items():
        p = tmp_path / f"{name}.run"
        with open(p, "w") as f:
            for q, scored in run.items():
                for rank, (doc, s) in enumerate(sorted(scored.items(), key=lambda x: -x[1])):
                    f.write(f"{q} Q0 {doc} {rank + 1} {s!r} {name}\n")
        paths.append(str(p))
    proc = subprocess.run([sys.executable, "-m", "rankmeter", "compare", str(tmp_path / "qrels.txt"), *paths,
                           "-m", "ndcg@10", "--test", "tukey-hsd", "--pairs", "all", "--overlap", "--format", "json",
                           "--details"], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    j = json.loads(proc.stdout)
    assert {t["test"] for t in j["tests"]} == {"tukey-hsd"} and len(j["overlap"]) == 3
    api = compare(qrels, runs, ["ndcg@10"], test="tukey-hsd", pairs="all")
    assert [t["p_value"] for t in j["tests"]] == pytest.approx([t.p_value for t in api.tests], abs=1e-12)
    table = subprocess.run([sys.executable, "-m", "rankmeter", "compare", str(tmp_path / "qrels.txt"), *paths,
                            "-m", "ndcg@10", "--overlap", "--resamples", "100"], capture_output=True, text=True)
    assert table.returncode == 0 and "Rank overlap" in table.stdout


def test_ranking_correlation_across_two_qrels_sets(medium):
    qrels, runs = medium
    other = {q: {d: (1 if g == 0 else 0) for d, g in judged.items()} | {"zz": 1} for q, judged in qrels.items()}
    a = compare(qrels, runs, ["ndcg@10"], n_resamples=50)
    b = compare(other, runs, ["ndcg@10"], n_resamples=50)
    r = a.ranking_correlation("ndcg@10", "ndcg@10", other=b)
    order = lambda c: sorted(c.runs, key=lambda x: -c.means[x]["ndcg@10"])  # noqa: E731
    assert r.tau_ap == pytest.approx(tau_ap(order(a), order(b))) and r.n == 4
    assert a.ranking_correlation("ndcg@10", "ndcg@10").tau == pytest.approx(1.0)


def test_overlap_in_the_html_report(small):
    pytest.importorskip("matplotlib")
    qrels, runs = small
    c = compare(qrels, runs, ["P@5"], overlap=True, n_resamples=50)
    html = c.to_html(k_max=3)
    assert "<h2>Rank overlap</h2>" in html and "mean rbo(p=0.9)" in html


def test_reports_label_tukey_p_values_familywise(small):
    from rankmeter.report._common import family_text, legend

    qrels, runs = small
    c = compare(qrels, runs, ["P@5"], test="tukey-hsd", pairs="all", n_resamples=50)
    assert "familywise p < 0.05" in legend(c) and "Holm" not in family_text(c)
    assert "p (familywise)" in c.to_markdown() and "Holm" not in c.to_markdown()
    mixed = compare(qrels, runs, ["P@5"], test=["t", "tukey-hsd"], n_resamples=50)
    assert "Holm correction" in family_text(mixed) and "Tukey HSD p-values familywise" in family_text(mixed)
