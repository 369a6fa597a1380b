"""depth (trec_eval -M), judged_only (trec_eval -J), judged@k and unj@k.

Oracles: pytrec_eval (trec_eval as a library) on a run truncated or filtered by hand,
and plain-Python readings of ir_measures' Judged@k and trec_eval's unj.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings

import rankmeter
from rankmeter._errors import ParameterError

from ..strategies import qrels_and_run, ranked_items

pytrec_eval = pytest.importorskip("pytrec_eval")

MEASURES = {"map", "P.1,3,5", "recall.1,3,10", "ndcg", "ndcg_cut.3", "recip_rank", "Rprec", "bpref", "num_ret",
            "num_rel_ret", "num_rel", "success.3"}
OURS = ["map", "P_1", "P_3", "P_5", "recall_1", "recall_3", "recall_10", "ndcg", "ndcg_cut_3", "recip_rank", "Rprec",
        "bpref", "num_ret", "num_rel_ret", "num_rel", "success_3"]


def _usable(qrels: dict) -> dict:
    # trec_eval 9.0.8 (inside pytrec_eval) misbehaves on queries judged only negatively (see test_trec_eval.py)
    return {q: {d: int(g) for d, g in j.items()} for q, j in qrels.items() if max(j.values()) >= 0}


def _compare(ours: rankmeter.Result, ref: dict) -> None:
    idx = {q: i for i, q in enumerate(ours.queries)}
    for q, vals in ref.items():
        for name, want in vals.items():
            got = ours.values[name][idx[q]]
            assert abs(got - want) <= 1e-9, f"{name} query {q}: rankmeter {got} vs trec_eval {want}"


@settings(max_examples=120)
@given(data=qrels_and_run())
def test_depth_is_trec_eval_M(data) -> None:
    qrels, run = data
    qrels = _usable(qrels)
    if not qrels:
        return
    for depth in (1, 2, 4):
        cut = {q: {d: r[d] for d in ranked_items(r)[:depth]} for q, r in run.items()}
        ref = pytrec_eval.RelevanceEvaluator(qrels, MEASURES).evaluate(cut)
        got = rankmeter.evaluate(qrels, run, OURS, queries="run", depth=depth)
        _compare(got, ref)
        assert got.coverage is not None and got.coverage.depth == depth
        assert any("trec_eval -M" in n for n in got.notes)


@settings(max_examples=120)
@given(data=qrels_and_run())
def test_judged_only_is_trec_eval_J(data) -> None:
    qrels, run = data
    qrels = _usable(qrels)
    if not qrels:
        return
    kept = {q: {d: s for d, s in r.items() if qrels.get(q, {}).get(d, -1) >= 0} for q, r in run.items()}
    kept = {q: r for q, r in kept.items() if r}
    ref = pytrec_eval.RelevanceEvaluator(qrels, MEASURES).evaluate(kept)
    got = rankmeter.evaluate(qrels, run, OURS, queries="run", judged_only=True)
    # a run query whose every item is unjudged becomes an empty ranking here: trec_eval drops
    # it (no line), rankmeter scores it (queries="run" keeps what the run ranked)
    _compare(got, ref)
    assert any("trec_eval -J" in n for n in got.notes)


@settings(max_examples=60)
@given(data=qrels_and_run())
def test_depth_then_judged_only_in_trec_eval_order(data) -> None:
    """-M cuts first, then -J removes unjudged rows from what is left (form_res_rels.c)."""
    qrels, run = data
    qrels = _usable(qrels)
    if not qrels:
        return
    cut = {q: {d: r[d] for d in ranked_items(r)[:3] if qrels.get(q, {}).get(d, -1) >= 0} for q, r in run.items()}
    cut = {q: r for q, r in cut.items() if r}
    ref = pytrec_eval.RelevanceEvaluator(qrels, MEASURES).evaluate(cut)
    _compare(rankmeter.evaluate(qrels, run, OURS, queries="run", depth=3, judged_only=True), ref)


def _judged_ref(ranking: list[str], judged: dict, k: int) -> float:
    top = ranking[:k]
    return sum(d in judged for d in top) / len(top) if top else 0.0


def _unj_ref(ranking: list[str], judged: dict, k: int) -> float:
    return sum(d not in judged or judged[d] < 0 for d in ranking[:k]) / k


@settings(max_examples=100)
@given(data=qrels_and_run())
def test_judged_and_unj_match_their_definitions(data) -> None:
    qrels, run = data
    got = rankmeter.evaluate(qrels, run, ["judged@3", "unj@5", "judged@10"], queries="qrels")
    for i, q in enumerate(got.queries):
        ranking = ranked_items(run.get(q, {}))
        judged = qrels.get(q, {})
        assert got.values["judged@3"][i] == pytest.approx(_judged_ref(ranking, judged, 3), abs=1e-12)
        assert got.values["judged@10"][i] == pytest.approx(_judged_ref(ranking, judged, 10), abs=1e-12)
        assert got.values["unj@5"][i] == pytest.approx(_unj_ref(ranking, judged, 5), abs=1e-12)
    # the coverage reports the mean judged share at the largest cutoff
    assert got.coverage is not None and got.coverage.judged_k == 10
    assert got.coverage.judged == pytest.approx(float(got.values["judged@10"].mean()), abs=1e-12)


def test_unj_is_trec_eval_s_example() -> None:
    """trec_eval's own example: 15 retrieved of which 4 judged (qrel value not -1) -> unj@20 = 11/20."""
    ranking = {f"d{i:02d}": 100.0 - i for i in range(15)}
    qrels = {"q": {"d00": 1, "d03": 0, "d07": 2, "d09": 0, "d10": -1, "zz": 1}}
    got = rankmeter.evaluate(qrels, {"q": ranking}, ["unj@20", "judged@20"])
    assert got.mean["unj@20"] == pytest.approx(11 / 20)
    assert got.mean["judged@20"] == pytest.approx(5 / 15)


def test_depth_is_not_a_cutoff() -> None:
    """ndcg under depth=2 keeps the ideal ranking of all judgments; ndcg@2 cuts the ideal too."""
    qrels = {"q": {"a": 1, "b": 1, "c": 1}}
    run = {"q": {"x": 3.0, "a": 2.0, "b": 1.0}}
    deep = rankmeter.evaluate(qrels, run, ["ndcg", "recall"], depth=2).mean
    cut = rankmeter.evaluate(qrels, run, ["ndcg@2", "recall@2"]).mean
    assert deep["recall"] == pytest.approx(1 / 3) and cut["recall@2"] == pytest.approx(1 / 3)
    assert deep["ndcg"] < cut["ndcg@2"]


@pytest.mark.parametrize("bad", [0, -1, 1.5, "10", True])
def test_bad_depth_is_a_parameter_error(bad) -> None:
    with pytest.raises(ParameterError, match="'depth' parameter"):
        rankmeter.evaluate({"q": {"a": 1}}, {"q": {"a": 1.0}}, "map", depth=bad)


def test_bad_judged_only_is_a_parameter_error() -> None:
    with pytest.raises(ParameterError, match="'judged_only' parameter"):
        rankmeter.evaluate({"q": {"a": 1}}, {"q": {"a": 1.0}}, "map", judged_only="yes")


def test_cli_depth_judged_only_and_trec_names(tmp_path) -> None:
    """--depth/-M and --judged-only/-J through the real executable; --format trec prints trec_eval's names."""
    import subprocess
    import sys

    (tmp_path / "q").write_text("q1 0 a 1\nq1 0 b 0\nq1 0 c 1\n")
    (tmp_path / "r").write_text("q1 Q0 x 1 3 t\nq1 Q0 a 2 2 t\nq1 Q0 c 3 1 t\n")
    base = [sys.executable, "-m", "rankmeter", "evaluate", str(tmp_path / "q"), str(tmp_path / "r"), "-m",
            "ndcg@10,map,P_5", "--format", "trec"]
    deep = subprocess.run(base + ["-M", "2"], capture_output=True, text=True)
    assert deep.returncode == 0, deep.stderr
    lines = {line.split()[0]: float(line.split()[2]) for line in deep.stdout.splitlines()}
    assert set(lines) == {"ndcg_cut_10", "map", "P_5"}
    assert lines["map"] == pytest.approx(0.25) and "trec_eval -M" in deep.stderr
    judged = subprocess.run(base + ["--judged-only"], capture_output=True, text=True)
    assert judged.returncode == 0, judged.stderr
    assert float(judged.stdout.splitlines()[1].split()[2]) == pytest.approx(1.0)
    assert "trec_eval -J" in judged.stderr and "internal error" not in judged.stderr


def test_geometric_mean_aggregate_is_trec_eval_s(trec_data) -> None:
    """gm_map's summary is the registry's aggregate="gmean" (floor 1e-5), equal to trec_eval's all line."""
    golden = {line.split()[0]: float(line.split()[2]) for line in (trec_data / "out.test.a").read_text().splitlines()
              if line.split()[1] == "all" and line.split()[0] in ("gm_map", "gm_bpref", "map")}
    got = rankmeter.evaluate(trec_data / "qrels.test", trec_data / "results.test", ["gm_map", "gm_bpref", "map"],
                             queries="run").mean
    for name, want in golden.items():
        assert round(got[name], 4) == want, name


def test_coverage_goes_as_deep_as_the_metrics_read() -> None:
    """A metric without a cutoff reads the whole ranking, so the coverage does too."""
    qrels = {"q": {"a": 1}}
    run = {"q": {"a": 3.0, "x": 2.0, "y": 1.0}}
    deep = rankmeter.evaluate(qrels, run, ["ndcg", "P@1"]).coverage
    assert deep is not None and deep.judged_k is None and deep.judged == pytest.approx(1 / 3)
    top = rankmeter.evaluate(qrels, run, ["ndcg@1", "P@1"]).coverage
    assert top is not None and top.judged_k == 1 and top.judged == 1.0


def test_fractional_grades_get_a_note() -> None:
    res = rankmeter.evaluate({"q": {"a": 0.5, "b": 0}}, {"q": {"a": 2.0, "x": 1.0}}, ["ndcg", "P@1"])
    assert res.mean["ndcg"] == 1.0 and res.mean["P@1"] == 0.0
    assert any("not a whole number" in n and "rel" in n for n in res.notes)
