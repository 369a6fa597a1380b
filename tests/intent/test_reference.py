"""Every intent-aware kernel equals its slow reference (tests/intent/reference.py) on random data.

Beyond ndeval's reach: no cutoff, cutoffs past 20, alpha at 0 and 1, rel between
grades, ties in the run (the tie rule: score descending, then item id descending),
queries judged without a relevant item, and the evaluation options depth and judged_only.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rankmeter
from rankmeter.data import Qrels

from ..strategies import ranked_items
from .reference import NAMES, by_query, reference, subtopic_data


def _metric(name, k, rel, alpha, beta):
    params = [f"rel={rel}"]
    if name not in ("p_ia", "ap_ia", "strec"):
        params.append(f"alpha={alpha}")
    if name in ("nrbp", "nnrbp"):
        params.append(f"beta={beta}")
    return f"{name}({','.join(params)})" + ("" if k is None else f"@{k}")


@settings(max_examples=120)
@given(data=subtopic_data(ties=True), k=st.sampled_from([None, 1, 2, 3, 7, 25]), rel=st.sampled_from([1, 1.5, 2]),
       alpha=st.sampled_from([0.5, 0.0, 1.0, 0.3]), beta=st.sampled_from([0.5, 0.2, 0.95]),
       queries=st.sampled_from(["judged", "qrels", "run"]))
def test_kernel_equals_reference(data, k, rel, alpha, beta, queries) -> None:
    rows, run = data
    qrels = Qrels.from_subtopic_columns(*zip(*rows))
    texts = {name: _metric(name, k, rel, alpha, beta) for name in NAMES}
    res = rankmeter.evaluate(qrels, run, list(texts.values()), queries=queries)
    judged = by_query(rows)
    for n, q in enumerate(res.queries):
        ranking = ranked_items(run.get(q, {}))
        for name, text in texts.items():
            want = reference(name, ranking, judged.get(q, {}), k, rel, alpha, beta)
            assert res.values[text][n] == pytest.approx(want, rel=1e-12, abs=1e-12), f"query {q}: {text}"


@settings(max_examples=60)
@given(data=subtopic_data(ties=True), k=st.sampled_from([None, 3, 10]), depth=st.sampled_from([None, 1, 4]),
       judged_only=st.booleans())
def test_depth_and_judged_only_restrict_the_ranking_only(data, k, depth, judged_only) -> None:
    """trec_eval's (and ndeval's) -M and rankmeter's -J cut the ranking; the ideal ranking keeps every judgment."""
    rows, run = data
    qrels = Qrels.from_subtopic_columns(*zip(*rows))
    judged = by_query(rows)
    texts = {name: _metric(name, k, 1, 0.5, 0.5) for name in NAMES}
    res = rankmeter.evaluate(qrels, run, list(texts.values()), depth=depth, judged_only=judged_only)
    per_item = qrels.to_dict()
    for n, q in enumerate(res.queries):
        ranking = ranked_items(run.get(q, {}))[:depth]
        if judged_only:
            ranking = [d for d in ranking if per_item.get(q, {}).get(d, -1) >= 0]
        for name, text in texts.items():
            want = reference(name, ranking, judged.get(q, {}), k)
            assert res.values[text][n] == pytest.approx(want, rel=1e-12, abs=1e-12), f"query {q}: {text}"


@settings(max_examples=60)
@given(data=subtopic_data(ties=True))
def test_other_metrics_see_the_highest_grade_over_subtopics(data) -> None:
    rows, run = data
    best: dict[str, dict[str, float]] = {}
    for q, _s, i, g in rows:
        best.setdefault(q, {})[i] = max(best.get(q, {}).get(i, g), g)
    sub = rankmeter.evaluate(Qrels.from_subtopic_columns(*zip(*rows)), run, ["ndcg@5", "ap", "p(rel=2)@3"])
    plain = rankmeter.evaluate(best, run, ["ndcg@5", "ap", "p(rel=2)@3"])
    assert sub.queries == plain.queries
    for m in ("ndcg@5", "ap", "p(rel=2)@3"):
        assert sub.values[m].tolist() == plain.values[m].tolist()


def test_worked_examples() -> None:
    from rankmeter.metrics.intent import IntentExample
    from rankmeter.metrics.registry import all_specs

    specs = [s for s in all_specs() if s.family == "intent"]
    assert {s.name for s in specs} == set(NAMES)
    for spec in specs:
        assert spec.examples and "subtopics" in spec.properties and spec.reads_items
        for ex in spec.examples:
            assert isinstance(ex, IntentExample)
            assert rankmeter.parse_metric(ex.metric).spec is spec
            rows = [("q", s, i, g) for s, js in ex.judgments.items() for i, g in js.items()]
            res = rankmeter.evaluate(Qrels.from_subtopic_columns(*zip(*rows)), {"q": list(ex.ranking)}, [ex.metric])
            assert res.mean[ex.metric] == pytest.approx(ex.value, abs=ex.tol), f"{ex.metric}: {ex.note}"


def test_without_subtopics_the_error_says_how_to_read_them() -> None:
    with pytest.raises(rankmeter.InputError, match=r"need judgments by subtopic .* subtopics=True"):
        rankmeter.evaluate({"q": {"a": 1}}, {"q": ["a"]}, ["alpha-nDCG@20"])


def test_query_without_relevant_subtopic_scores_zero() -> None:
    qrels = Qrels.from_subtopic_columns(["q", "r"], ["1", "1"], ["a", "b"], [0, 1])
    res = rankmeter.evaluate(qrels, {"q": ["a"], "r": ["b"]}, [f"{n}" for n in NAMES], queries="qrels")
    assert res.queries == ["q", "r"]
    for n in NAMES:
        assert res.values[n][0] == 0.0
        assert res.values[n][1] > 0
