"""The invariance suite: runs over every registered metric.

Each spec is dispatched to a harness by what it reads: ranking metrics are checked
here; other input kinds (ratings, beyond-accuracy metrics that need a context) have
``harness_<kind>.py`` modules beside this file with a ``check_spec(spec)`` function.
A metric that no harness covers fails ``test_every_metric_is_covered``.
"""

from __future__ import annotations

import copy
import importlib

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rankmeter
from rankmeter.metrics.registry import MetricSpec, all_specs

from ..strategies import qrels_and_run, ranked_items
from .harness_ranking import close, metric_text, param_cases

SPECS = all_specs()


def harness_for(spec: MetricSpec) -> str:
    """Which harness checks a spec."""
    if "subtopics" in spec.properties:  # judgments by subtopic (metrics/intent): harness_intent.py
        return "intent"
    if spec.input == "ranking" and spec.level == "query" and "needs_context" not in spec.properties:
        return "ranking"
    if spec.input == "ranking" and spec.level == "corpus" and not {"needs_context", "beyond"} & spec.properties:
        return "ranking_corpus"  # corpus-level ranking metrics (gauc): harness_ranking_corpus.py
    if "needs_context" in spec.properties or "beyond" in spec.properties:
        return "beyond"
    return spec.input


def _harness_module(kind: str):
    try:
        return importlib.import_module(f"{__package__}.harness_{kind}")
    except ModuleNotFoundError:
        return None


def test_every_metric_is_covered() -> None:
    uncovered = []
    for spec in SPECS:
        kind = harness_for(spec)
        if kind == "ranking":
            continue
        mod = _harness_module(kind)
        if mod is None or not hasattr(mod, "check_spec"):
            uncovered.append(f"{spec.name} (input={spec.input}, level={spec.level})")
    assert not uncovered, f"metrics no invariance harness covers: {uncovered}"


def test_every_metric_is_documented() -> None:
    for spec in SPECS:
        assert spec.summary and spec.formula and spec.citation, f"{spec.name} lacks summary/formula/citation"
        assert isinstance(spec.higher_is_better, bool)


OTHER = [pytest.param(s, id=s.name) for s in SPECS if harness_for(s) != "ranking"]


@pytest.mark.parametrize("spec", OTHER)
def test_other_harnesses(spec: MetricSpec) -> None:
    mod = _harness_module(harness_for(spec))
    if mod is None:
        pytest.fail(f"no harness for {spec.name}")
    mod.check_spec(spec)


RANKING = [
    pytest.param(s, p, id=metric_text(s, p, None))
    for s in SPECS if harness_for(s) == "ranking" for p in param_cases(s)
]
KS = st.sampled_from([None, 1, 3, 10])


def _values(spec, params, k, qrels, run, **kw) -> dict[str, float]:
    text = metric_text(spec, params, k)
    res = rankmeter.evaluate(qrels, run, [text], **kw)
    return dict(zip(res.queries, res.values[text].tolist()))


def _same(a: dict, b: dict) -> None:
    assert a.keys() == b.keys()
    for q in a:
        assert close(a[q], b[q]), f"query {q}: {a[q]} != {b[q]}"


@pytest.mark.parametrize("spec,params", RANKING)
@settings(max_examples=15)
@given(data=qrels_and_run(), k=KS, perm=st.randoms(use_true_random=False))
def test_query_order_and_no_mutation(spec, params, data, k, perm) -> None:
    qrels, run = data
    before = copy.deepcopy((qrels, run))
    a = _values(spec, params, k, qrels, run)
    assert (qrels, run) == before, "evaluate changed its inputs"
    keys_q, keys_r = list(qrels), list(run)
    perm.shuffle(keys_q)
    perm.shuffle(keys_r)
    b = _values(spec, params, k, {q: qrels[q] for q in keys_q}, {q: run[q] for q in keys_r})
    _same(a, b)


@pytest.mark.parametrize("spec,params", RANKING)
@settings(max_examples=15)
@given(data=qrels_and_run(), k=KS)
def test_id_relabelling(spec, params, data, k) -> None:
    qrels, run = data
    a = _values(spec, params, k, qrels, run)
    # order-preserving item relabelling (keeps the tie order) and any query relabelling
    qname = {q: f"Q{n}" for n, q in enumerate(sorted(set(qrels) | set(run)), start=7)}
    iname = lambda d: "item/" + d  # noqa: E731  (a common prefix keeps the byte order)
    b = _values(spec, params, k, {qname[q]: {iname(d): g for d, g in j.items()} for q, j in qrels.items()},
                {qname[q]: {iname(d): s for d, s in r.items()} for q, r in run.items()})
    _same({qname[q]: v for q, v in a.items()}, b)
    # any item relabelling once ties are gone (scores made distinct by their rank)
    ordered = {q: {d: float(-i) for i, d in enumerate(ranked_items(r))} for q, r in run.items()}
    c = _values(spec, params, k, qrels, ordered)
    shuffle = {d: f"{(hash(d) * 7919) % 1000:03d}-{d[::-1]}" for j in list(qrels.values()) + list(run.values())
               for d in j}
    d_ = _values(spec, params, k, {q: {shuffle[d]: g for d, g in j.items()} for q, j in qrels.items()},
                 {q: {shuffle[d]: s for d, s in r.items()} for q, r in ordered.items()})
    if not _reads_scores(spec, params):
        _same(a, c)
    _same(c, d_)


def _reads_scores(spec: MetricSpec, params: dict) -> bool:
    """The value depends on the scores, not only on the rank order (auc(tied_pairs=zero|half) reads which
    pairs tie)."""
    return "uses_scores" in spec.properties or params.get("tied_pairs", "order") != "order"


def _frame(run: dict) -> pd.DataFrame:
    rows = [(q, d, s) for q, r in run.items() for d, s in r.items()]
    return pd.DataFrame(rows, columns=["query", "item", "score"]).astype({"score": float})


def _qframe(qrels: dict) -> pd.DataFrame:
    rows = [(q, d, g) for q, j in qrels.items() for d, g in j.items()]
    return pd.DataFrame(rows, columns=["query_id", "doc_id", "relevance"]).astype({"relevance": float})


@pytest.mark.parametrize("spec,params", RANKING)
@settings(max_examples=5)
@given(data=qrels_and_run(), k=KS)
def test_every_input_form_gives_the_same_values(spec, params, data, k, tmp_path_factory) -> None:
    qrels, run = data
    if not run:
        return
    want = _values(spec, params, k, qrels, run)
    tmp = tmp_path_factory.mktemp("forms")
    qdf, rdf = _qframe(qrels), _frame(run)
    trec_q, trec_r = tmp / "q.txt", tmp / "r.txt"
    trec_q.write_text("".join(f"{q} 0 {d} {g:g}\n" for q, j in qrels.items() for d, g in j.items()))
    trec_r.write_text("".join(f"{q}\tQ0\t{d}\t{n}\t{s!r}\tsys\n" for q, r in run.items()
                              for n, (d, s) in enumerate(r.items(), start=1)))
    rdf.to_csv(tmp / "r.csv", index=False)
    qdf.to_csv(tmp / "q.tsv", index=False, sep="\t")
    pq.write_table(pa.Table.from_pandas(rdf), tmp / "r.parquet")
    pq.write_table(pa.Table.from_pandas(qdf), tmp / "q.parquet")
    import polars as pl

    forms = [
        (qdf, rdf), (pa.Table.from_pandas(qdf), pa.Table.from_pandas(rdf)), (pl.from_pandas(qdf), pl.from_pandas(rdf)),
        (trec_q, trec_r), (str(tmp / "q.tsv"), str(tmp / "r.csv")), (tmp / "q.parquet", tmp / "r.parquet"),
        (rankmeter.read_qrels(trec_q), rankmeter.read_run(trec_r)),
    ]
    if not _reads_scores(spec, params):
        forms.append((qrels, {q: ranked_items(r) for q, r in run.items()}))  # explicit order lists
    for q_in, r_in in forms:
        _same(want, _values(spec, params, k, q_in, r_in))


@pytest.mark.parametrize("spec,params", RANKING)
@settings(max_examples=15)
@given(data=qrels_and_run(float_grades=True), k=KS)
def test_bounds(spec, params, data, k) -> None:
    qrels, run = data
    lo, hi = spec.bounds if spec.bounds is not None else (-np.inf, np.inf)
    for q, v in _values(spec, params, k, qrels, run).items():
        if np.isnan(v) and "may_leave_out" in spec.properties:  # no value: left out of the mean (declared)
            continue
        assert np.isfinite(v), f"{spec.name} query {q}: {v}"
        assert lo - 1e-12 <= v <= hi + 1e-12, f"{spec.name} query {q}: {v} outside [{lo}, {hi}]"


@pytest.mark.parametrize("spec,params", RANKING)
@settings(max_examples=15)
@given(data=qrels_and_run())
def test_k_beyond_the_list(spec, params, data) -> None:
    if not spec.cutoff:
        return
    qrels, run = data
    longest = max([len(r) for r in run.values()] + [len(j) for j in qrels.values()])
    a = _values(spec, params, longest + 5, qrels, run)
    b = _values(spec, params, longest + 50, qrels, run)
    if "k_scaled" in spec.properties or params.get("residual") or "k" in (params.get("norm"), params.get("ideal")):
        return  # the cutoff itself enters the formula (p@k divides by k; ap(norm=k), ndcg(ideal=k))
    _same(a, b)
    _same(a, _values(spec, params, None, qrels, run))


@pytest.mark.parametrize("spec,params", RANKING)
@settings(max_examples=15)
@given(data=qrels_and_run(), k=KS)
def test_tie_rule(spec, params, data, k) -> None:
    """Tied scores rank by item id descending: the same as that order given explicitly."""
    if _reads_scores(spec, params):
        return
    qrels, run = data
    explicit = {q: ranked_items(r) for q, r in run.items()}
    _same(_values(spec, params, k, qrels, run), _values(spec, params, k, qrels, explicit))


@pytest.mark.parametrize("spec,params", RANKING)
@settings(max_examples=15)
@given(data=qrels_and_run(), k=KS)
def test_monotone_in_k(spec, params, data, k) -> None:
    if "monotone_k" not in spec.properties or k is None:
        return
    qrels, run = data
    a, b = _values(spec, params, k, qrels, run), _values(spec, params, k + 1, qrels, run)
    for q in a:
        assert a[q] <= b[q] + 1e-12
