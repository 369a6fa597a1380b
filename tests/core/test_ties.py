"""ties= (rankmeter.metrics.ties): average, optimistic, pessimistic and bounds.

Oracles: the mean, the smallest and the largest value of the id rule's metric over every
order of every tied group (enumerated: small cases only), and scikit-learn's ndcg_score,
which averages the gains of tied items (McSherry and Najork 2008).
"""

from __future__ import annotations

import itertools
import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rankmeter
from rankmeter._errors import ParameterError
from rankmeter.evaluation.compute import compute
from rankmeter.metrics.batch import Batch
from rankmeter.metrics.registry import all_specs, parse_metric
from rankmeter.metrics.ties import supports

AVERAGED = ["p@3", "p@1", "p(norm=retrieved)@3", "p", "r@2", "f@3", "f(beta=2)@2", "hits@4", "num_rel_ret",
            "success@2", "success@1", "dcg@3", "ndcg@4", "ndcg(gain=exp)@2", "ndcg(discount=jarvelin)", "dcg",
            "rbp(p=0.7)", "rbp(residual=true)@3", "ap", "ap@3", "ap(norm=min)@2", "rr", "rr@3",
            "ndcg(ideal=k)@3", "ndcg(discount=reciprocal)@2", "ap(norm=k)@3", "ap(norm=k)", "rbp(gain=grade,p=0.6)"]
ORDERED_ONLY = ["err(max_grade=2)@3", "rprec"]


def _orders(items: list[str], scores: list[float]) -> list[list[str]]:
    """Every ranking that orders the items by score, ties in any order."""
    groups: dict[float, list[str]] = {}
    for s, i in sorted(zip(scores, items, strict=True), key=lambda t: -t[0]):
        groups.setdefault(s, []).append(i)
    per = [list(itertools.permutations(groups[s])) for s in sorted(groups, reverse=True)]
    return [[i for g in combo for i in g] for combo in itertools.product(*per)]


def _id_rule(items: list[str], scores: list[float]) -> tuple[list[str], list[float]]:
    """Score descending, then item id descending (trec_eval's rule, rankmeter's default)."""
    pairs = sorted(zip(scores, items, strict=True), key=lambda t: (-t[0], tuple(-ord(c) for c in t[1])))
    return [i for _, i in pairs], [s for s, _ in pairs]


def _value(ranking: list[str], qrels: dict[str, float], metric: str, depth: int | None, judged_only: bool) -> float:
    m = parse_metric(metric)
    values, _ = compute(Batch.from_lists([ranking], [qrels]), [m], depth, judged_only)
    return float(values[m.text][0])


@st.composite
def tied_query(draw: st.DrawFn) -> tuple[list[str], list[float], dict[str, float], int | None, bool]:
    n = draw(st.integers(0, 6))
    items = [f"d{i}" for i in range(n)]
    scores = [float(draw(st.integers(0, 2))) for _ in range(n)]
    pool = [f"d{i}" for i in range(8)]
    judged = draw(st.lists(st.sampled_from(pool), unique=True, max_size=8))
    qrels = {d: float(draw(st.sampled_from([-1, 0, 1, 1, 2]))) for d in judged}
    depth = draw(st.sampled_from([None, None, 2, 4]))
    judged_only = draw(st.booleans()) if depth is None else False
    return items, scores, qrels, depth, judged_only


@settings(max_examples=60, deadline=None)
@given(case=tied_query())
def test_rules_equal_the_mean_min_and_max_over_every_order(case) -> None:
    items, scores, qrels, depth, judged_only = case
    ranking, ranked_scores = _id_rule(items, scores)
    batch = Batch.from_lists([ranking], [qrels], scores=[ranked_scores])
    orders = _orders(items, scores)
    for metric in AVERAGED + ORDERED_ONLY:
        m = parse_metric(metric)
        every = [_value(o, qrels, metric, depth, judged_only) for o in orders]
        want = {"average": float(np.mean(every)), "pessimistic": min(every), "optimistic": max(every)}
        for mode, expected in want.items():
            if not supports(m, mode):
                continue
            got = compute(batch, [m], depth, judged_only, ties={m.text: mode})[0][m.text][0]
            assert abs(got - expected) <= 1e-12, (metric, mode, got, expected, ranking, ranked_scores, qrels)


def test_every_declared_rule_is_tested_here() -> None:
    """A metric that declares a tie rule must be in the property test above (or it is untested)."""
    tested = {parse_metric(m).spec.name for m in AVERAGED + ORDERED_ONLY}
    declared = {s.name for s in all_specs() if s.ties}
    assert declared <= tested, declared - tested


def test_bounds_hold_every_order_and_the_id_value() -> None:
    qrels = {"q1": {"a": 1, "b": 0, "c": 2, "d": 1}, "q2": {"x": 1}, "q3": {"z": 1}}
    run = {"q1": {"a": 1.0, "b": 1.0, "c": 1.0, "d": 0.5, "e": 1.0}, "q2": {"x": 2.0, "y": 2.0}, "q3": {"z": 1.0}}
    res = rankmeter.evaluate(qrels, run, ["ndcg@2", "P@2", "rr"], ties="bounds")
    ids = rankmeter.evaluate(qrels, run, ["ndcg@2", "P@2", "rr"])
    assert res.mean == ids.mean  # bounds keeps the id rule's values
    for metric in ("ndcg@2", "P@2", "rr"):
        frame = res.tie_bounds[metric]
        assert list(frame.columns) == ["low", "high"]
        assert list(frame.index) == list(res.per_query.index)
        value = res.per_query[metric]
        assert ((frame["low"] <= value + 1e-15) & (value <= frame["high"] + 1e-15)).all()
        pess = rankmeter.evaluate(qrels, run, metric, ties="pessimistic").per_query[metric]
        opt = rankmeter.evaluate(qrels, run, metric, ties="optimistic").per_query[metric]
        assert frame["low"].tolist() == pess.tolist() and frame["high"].tolist() == opt.tolist()
    assert res.tie_bounds["P@2"].loc["q1"].tolist() == [0.0, 1.0]
    assert res.tie_bounds["P@2"].loc["q3"].tolist() == [0.5, 0.5]  # no tie: low = high
    # the notes count the queries that depend on the order of their ties
    assert any("P@2 depends on the order of tied scores in 1 of 3 queries" in n for n in res.notes), res.notes
    assert any("ndcg@2 depends on the order of tied scores in 2 of 3 queries" in n for n in res.notes), res.notes
    assert rankmeter.evaluate(qrels, run, "ndcg@2").tie_bounds == {}


def test_average_equals_sklearn_ndcg_score_on_tied_input() -> None:
    sk = pytest.importorskip("sklearn.metrics")
    rng = np.random.default_rng(7)
    qrels: dict[str, dict[str, int]] = {}
    run: dict[str, dict[str, float]] = {}
    truth, pred = {}, {}
    for q in range(40):
        n = int(rng.integers(2, 9))
        grades = rng.integers(0, 4, size=n)
        if grades.max() == 0:
            grades[0] = 1
        scores = rng.integers(0, 3, size=n).astype(float)  # many ties
        items = [f"i{j}" for j in range(n)]
        # every judged item is scored (scikit-learn builds the ideal from the scored items only)
        qrels[f"q{q}"] = {i: int(g) for i, g in zip(items, grades, strict=True)}
        run[f"q{q}"] = dict(zip(items, scores, strict=True))
        truth[f"q{q}"], pred[f"q{q}"] = grades, scores
    for k in (1, 3, 5, None):
        name = "ndcg" if k is None else f"ndcg@{k}"
        res = rankmeter.evaluate(qrels, run, name, ties="average")
        for q, v in zip(res.queries, res.values[name], strict=True):
            want = sk.ndcg_score([truth[q]], [pred[q]], k=k)
            assert abs(v - want) <= 1e-12, (q, k, v, want)
    # and the id rule differs from scikit-learn somewhere (the test can fail)
    ids = rankmeter.evaluate(qrels, run, "ndcg@3")
    assert any(abs(v - sk.ndcg_score([truth[q]], [pred[q]], k=3)) > 1e-6
               for q, v in zip(ids.queries, ids.values["ndcg@3"], strict=True))


def test_worked_example_average() -> None:
    """Four tied items, two relevant (a, c), worked by hand: E[P@2] = 2/4, E[success@1] = E[nDCG@1] = 1/2,
    E[RR] = 1/2 * 1 + 1/3 * 1/2 + 1/6 * 1/3 (the first relevant item at rank 1, 2 or 3)."""
    qrels = {"q": {"a": 1, "c": 1, "b": 0}}
    run = {"q": {"a": 1.0, "b": 1.0, "c": 1.0, "d": 1.0}}
    res = rankmeter.evaluate(qrels, run, ["P@2", "rr", "success@1", "ndcg@1"], ties="average")
    # first relevant at 1 w.p. 1/2, at 2 w.p. 1/3, at 3 w.p. 1/6
    assert res.mean["rr"] == pytest.approx(1 / 2 + 1 / 3 / 2 + 1 / 6 / 3, abs=1e-15)
    assert res.mean["P@2"] == pytest.approx(0.5, abs=1e-15)
    assert res.mean["success@1"] == pytest.approx(0.5, abs=1e-15)
    assert res.mean["ndcg@1"] == pytest.approx(0.5, abs=1e-15)
    assert math.isclose(rankmeter.evaluate(qrels, run, "rr").mean["rr"], 0.5)  # id rule: d, c, b, a


def test_engines_agree() -> None:
    duckdb = pytest.importorskip("duckdb")
    import pyarrow as pa

    from rankmeter.duckdb import evaluate as duck_evaluate
    from rankmeter.stream import evaluate_batches

    rng = np.random.default_rng(3)
    rows = []
    qrels: dict[str, dict[str, int]] = {}
    for q in range(30):
        n = int(rng.integers(1, 12))
        qrels[f"q{q}"] = {f"i{j}": int(rng.integers(0, 3)) for j in range(n) if rng.random() < 0.6}
        rows += [(f"q{q}", f"i{j}", float(rng.integers(0, 3))) for j in range(n)]
    table = pa.table({"query": [r[0] for r in rows], "item": [r[1] for r in rows], "score": [r[2] for r in rows]})
    metrics = ["ndcg@5", "ap", "P@3", "rr@4", "success@2", "rbp(p=0.5)"]
    con = duckdb.connect()
    con.register("run", table)
    for ties in ("average", "optimistic", "pessimistic", "bounds"):
        mem = rankmeter.evaluate(qrels, table, metrics, ties=ties)
        streamed = evaluate_batches(qrels, table.to_batches(max_chunksize=7), metrics, chunk_rows=10, ties=ties)
        duck = duck_evaluate(con, "run", qrels, metrics, ties=ties, chunk_rows=13)
        for other in (streamed, duck):
            assert other.queries == mem.queries
            for m in metrics:
                assert np.array_equal(other.values[m], mem.values[m]), (ties, m)
            assert other.tie_values.keys() == mem.tie_values.keys()
            for m, (lo, hi) in mem.tie_values.items():
                assert np.array_equal(other.tie_values[m][0], lo) and np.array_equal(other.tie_values[m][1], hi)


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"ties": "avg"}, "The 'ties' parameter of evaluate must be one of 'id', 'average'"),
    ({"ties": "average", "metrics": ["ndcg@10", "bpref", "err@5"]}, "ties='average' is not defined for bpref, err@5"),
    ({"ties": "optimistic", "metrics": ["ap(norm=retrieved)"]}, "ties='optimistic' is not defined for ap(norm=retr"),
    ({"ties": "bounds", "metrics": ["rbp(residual=true)"]}, "ties='bounds' is not defined for rbp(residual=true)"),
    ({"ties": "average", "depth": 2, "judged_only": True}, "with both depth and judged_only is not defined"),
    ({"ties": "average", "order": "rank"}, "applies to runs ranked by score"),
])
def test_refusals(kwargs, message) -> None:
    metrics = kwargs.pop("metrics", ["ndcg@10"])
    with pytest.raises(ParameterError, match=message.replace("(", r"\(").replace(")", r"\)")):
        rankmeter.evaluate({"q": {"a": 1}}, {"q": {"a": 1.0, "b": 1.0}}, metrics, **kwargs)


def test_compare_refuses_bounds_and_notes_the_rule() -> None:
    qrels = {"q": {"a": 1}, "r": {"x": 1}}
    runs = {"one": {"q": {"a": 1.0, "b": 1.0}, "r": {"x": 1.0}}, "two": {"q": {"b": 1.0, "a": 0.5}, "r": {"x": 1.0}}}
    with pytest.raises(ParameterError, match="'ties' parameter of compare"):
        rankmeter.compare(qrels, runs, "P@1", ties="bounds")
    cmp = rankmeter.compare(qrels, runs, "P@1", ties="average", n_resamples=100)
    assert any(n.startswith("ties=average") for n in cmp.notes)


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "rankmeter", *args], capture_output=True, text=True, timeout=120)


def test_cli_ties(tmp_path: Path) -> None:
    q, r = tmp_path / "qrels.txt", tmp_path / "run.txt"
    q.write_text("q1 0 a 1\nq1 0 b 0\nq1 0 c 2\nq1 0 d 1\nq2 0 x 1\n")
    r.write_text("q1 Q0 a 1 1.0 s\nq1 Q0 b 2 1.0 s\nq1 Q0 c 3 1.0 s\nq1 Q0 d 4 0.5 s\nq1 Q0 e 5 1.0 s\n"
                 "q2 Q0 x 1 2 s\nq2 Q0 y 2 2 s\n")
    avg = _cli("evaluate", str(q), str(r), "-m", "P@2", "--ties", "average", "--format", "json")
    assert avg.returncode == 0, avg.stderr
    assert '"P@2": 0.5' in avg.stdout and "ties=average" in avg.stderr
    bounds = _cli("evaluate", str(q), str(r), "-m", "P@2", "--ties", "bounds")
    assert bounds.returncode == 0 and "P@2 depends on the order of tied scores in 1 of 2 queries" in bounds.stderr
    js = _cli("evaluate", str(q), str(r), "-m", "P@2", "--ties", "bounds", "--format", "json")
    assert js.returncode == 0 and '"tie_bounds"' in js.stdout and '"low": 0.25' in js.stdout
    trec = _cli("evaluate", str(q), str(r), "-m", "P@2", "--ties", "average", "--format", "trec")
    assert trec.returncode == 2 and "--format trec prints trec_eval's measures" in trec.stderr
    bad = _cli("evaluate", str(q), str(r), "-m", "P@2,bpref", "--ties", "average")
    assert bad.returncode == 2 and "Traceback" not in bad.stderr
    assert bad.stderr.strip().count("\n") == 0 and "not defined for bpref" in bad.stderr
