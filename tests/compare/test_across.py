"""compare_across: per-data-set means, Friedman equal to scipy's, and the meta-analysis equal to a hand
computation of DerSimonian-Laird from the per-user differences."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

import rankmeter
from rankmeter import InputError, ParameterError
from rankmeter.compare.across import compare_across


def _results(seed: int, skills: dict[str, float], n: int = 40) -> dict[str, rankmeter.Result]:
    """Each model ranks the relevant item first for a user with probability ``skill``."""
    rng = np.random.default_rng(seed)
    qrels = {f"u{i}": {"a": 1} for i in range(n)}
    out = {}
    for model, skill in skills.items():
        run = {f"u{i}": (["a", "b"] if rng.random() < skill else ["b", "a"]) for i in range(n)}
        out[model] = rankmeter.evaluate(qrels, run, ["rr", "P@1"])
    return out


SKILLS = [{"pop": 0.3, "ease": 0.6, "knn": 0.5, "als": 0.45}, {"pop": 0.2, "ease": 0.5, "knn": 0.55, "als": 0.4},
          {"pop": 0.35, "ease": 0.7, "knn": 0.5, "als": 0.5}]


def test_means_friedman_and_meta_analysis() -> None:
    results = {f"d{i}": _results(i, s) for i, s in enumerate(SKILLS)}
    across = compare_across(results, "rr", baseline="pop")
    models = ["pop", "ease", "knn", "als"]
    for d, res in results.items():
        for m in models:
            assert across.means.loc[d, m] == pytest.approx(res[m].mean["rr"])
    assert across.overall["ease"] == pytest.approx(np.mean([results[d]["ease"].mean["rr"] for d in results]))
    ref = stats.friedmanchisquare(*[across.means[m].to_numpy() for m in models])
    assert across.friedman is not None
    assert across.friedman.statistic == pytest.approx(ref.statistic) and across.friedman.p_value == pytest.approx(
        ref.pvalue)
    # DerSimonian-Laird by hand for ease - pop
    y, v = [], []
    for d in results:
        diff = np.asarray(results[d]["ease"].values["rr"]) - np.asarray(results[d]["pop"].values["rr"])
        y.append(diff.mean())
        v.append(diff.var(ddof=1) / len(diff))
    w = [1 / x for x in v]
    fe = sum(a * b for a, b in zip(w, y, strict=True)) / sum(w)
    q = sum(a * (b - fe) ** 2 for a, b in zip(w, y, strict=True))
    tau2 = max(0.0, (q - 2) / (sum(w) - sum(a * a for a in w) / sum(w)))
    ws = [1 / (x + tau2) for x in v]
    mu = sum(a * b for a, b in zip(ws, y, strict=True)) / sum(ws)
    meta = across.meta["ease"]
    assert meta.mu == pytest.approx(mu, rel=1e-12) and meta.tau2 == pytest.approx(tau2, abs=1e-15)
    assert meta.ci_high - meta.mu == pytest.approx(1.959963984540054 * math.sqrt(1 / sum(ws)))
    assert list(across.effects["ease"]["n"]) == [40, 40, 40]


def test_a_comparison_per_data_set_works_too() -> None:
    cmps = {}
    for i, s in enumerate(SKILLS[:2]):
        res = _results(i, s)
        cmps[f"d{i}"] = rankmeter.compare(None, res, ["rr"])
    across = compare_across(cmps)
    assert across.metric == "rr" and across.friedman is not None and across.meta == {}


def test_errors() -> None:
    a, b = _results(0, SKILLS[0]), _results(1, SKILLS[1])
    with pytest.raises(ParameterError, match="at least 2 data sets"):
        compare_across({"d0": a})
    with pytest.raises(ParameterError, match="name the metric"):
        compare_across({"d0": a, "d1": b})
    with pytest.raises(InputError, match="different models"):
        compare_across({"d0": a, "d1": {k: v for k, v in b.items() if k != "als"}}, "rr")
    with pytest.raises(ParameterError, match="'baseline'"):
        compare_across({"d0": a, "d1": b}, "rr", baseline="nope")
    two = compare_across({"d0": {k: a[k] for k in ("pop", "ease")}, "d1": {k: b[k] for k in ("pop", "ease")}}, "rr",
                         baseline="pop")
    assert two.friedman is None and any("at least 3 models" in n for n in two.notes)


def test_report_and_critical_difference_diagram(tmp_path) -> None:
    pytest.importorskip("matplotlib")
    results = {f"d{i}": _results(i, s) for i, s in enumerate(SKILLS)}
    across = compare_across(results, "rr", baseline="pop")
    md = across.to_markdown()
    assert "| mean rank |" in md and "Friedman chi2" in md and "random effects" in md
    page = across.to_html()
    assert "<img" in page and "critical-difference" in page
    fig = across.plot()
    texts = [t.get_text() for t in fig.axes[0].texts]
    assert any("ease" in t for t in texts) and "CD" in texts
    from rankmeter.report.across import _cliques

    # models closer than CD in mean rank are joined: a, b (0.5 apart) yes; c (2 from a) not with a
    assert _cliques([("a", 1.0), ("b", 1.5), ("c", 3.0)], 1.0) == [(0, 1)]
