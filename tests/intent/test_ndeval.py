"""The intent-aware metrics equal NIST ndeval (through pyndeval, a test-only oracle) per query.

Random judgments by subtopic (graded, several subtopics per item, judged non-relevant
items, queries without a relevant item) and runs without score ties; every metric at
cutoffs 1..20 (ndeval's limit), rel 1 and 2, alpha and beta varied. The one departure,
ERR-IA@1 and alpha-DCG@1 (ndeval leaves them undivided by its normaliser), is pinned
by its own test; so are ndeval's tie rule and its nan for nNRBP without a relevant item.
"""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rankmeter
from rankmeter.data import Qrels

from .reference import NAMES, NDEVAL, NO_CUTOFF, subtopic_data

pyndeval = pytest.importorskip("pyndeval")


def _qrels(rows):
    return Qrels.from_subtopic_columns(*zip(*rows)) if rows else None


def _ndeval(rows, run, measures, rel=1, alpha=0.5, beta=0.5):
    ev = pyndeval.RelevanceEvaluator([(q, s, i, int(g)) for q, s, i, g in rows], measures, relevance_level=rel,
                                     alpha=alpha, beta=beta)
    return ev.evaluate([(q, d, s) for q, r in run.items() for d, s in r.items()])


def _ours(rows, run, texts, **kw):
    res = rankmeter.evaluate(_qrels(rows), run, texts, queries="run", **kw)
    return {q: {t: float(res.values[t][n]) for t in texts} for n, q in enumerate(res.queries)}


def _texts(k, rel, alpha, beta):
    out = {}
    for name in NAMES:
        params = [f"rel={rel}"]
        if name not in ("p_ia", "ap_ia", "strec"):
            params.append(f"alpha={alpha}")
        if name in ("nrbp", "nnrbp"):
            params.append(f"beta={beta}")
        text = f"{name}({','.join(params)})" + ("" if name in NO_CUTOFF else f"@{k}")
        out[text] = NDEVAL[name] + ("" if name in NO_CUTOFF else f"@{k}")
    return out


@settings(max_examples=150)
@given(data=subtopic_data(), k=st.integers(2, 20), rel=st.sampled_from([1, 2]),
       alpha=st.sampled_from([0.5, 0.0, 0.25, 0.9, 1.0]), beta=st.sampled_from([0.5, 0.1, 0.8, 0.99]))
def test_equals_ndeval_per_query(data, k, rel, alpha, beta) -> None:
    rows, run = data
    texts = _texts(k, rel, alpha, beta)
    want = _ndeval(rows, run, list(texts.values()), rel, alpha, beta)
    got = _ours(rows, run, list(texts))
    assert set(got) == set(want)  # queries="run": the queries in both, as ndeval averages by default
    for q in want:
        for text, nd in texts.items():
            w = want[q][nd]
            if math.isnan(w):  # nNRBP of a query without a relevant item: ndeval's 0/0
                assert nd == "nNRBP" and got[q][text] == 0.0
                continue
            assert got[q][text] == pytest.approx(w, abs=1e-6), f"query {q}: {text} {got[q][text]} != ndeval {w}"


@settings(max_examples=150)
@given(data=subtopic_data(items=["a", "b", "c", "d"], subtopics=["1", "2", "3", "4", "5", "6"]), k=st.integers(1, 20),
       alpha=st.sampled_from([0.5, 0.3]))
def test_greedy_ideal_ties_as_ndeval(data, k, alpha) -> None:
    """Few items, many subtopics: the greedy ideal ranking often meets equal gains, broken as ndeval does."""
    rows, run = data
    texts = {f"alpha_ndcg(alpha={alpha})@{k}": f"alpha-nDCG@{k}", f"nerr_ia(alpha={alpha})@{k}": f"nERR-IA@{k}",
             f"nnrbp(alpha={alpha})": "nNRBP"}
    want = _ndeval(rows, run, list(texts.values()), 1, alpha, 0.5)
    got = _ours(rows, run, list(texts))
    for q in want:
        for text, nd in texts.items():
            if not math.isnan(want[q][nd]):
                assert got[q][text] == pytest.approx(want[q][nd], abs=1e-6), f"query {q}: {text}"


def test_greedy_ideal_breaks_ties_by_the_larger_id() -> None:
    """d1 = {a, b}, d2 = {c, d}, d3 = {a, c} all gain 2 at rank 1; ndeval takes d3 (the larger id), and its ideal
    (d3, d1 or d2 ...) gains 2, 1.5, 1.5, below the ranking d1, d2, d3 (2, 2, 1): alpha-nDCG@3 exceeds 1."""
    rows = [("q", "a", "d1", 1), ("q", "b", "d1", 1), ("q", "c", "d2", 1), ("q", "d", "d2", 1), ("q", "a", "d3", 1),
            ("q", "c", "d3", 1)]
    run = {"q": {"d1": 3.0, "d2": 2.0, "d3": 1.0}}
    want = _ndeval(rows, run, ["alpha-nDCG@3"])["q"]["alpha-nDCG@3"]
    got = _ours(rows, run, ["alpha-nDCG@3"])["q"]["alpha-nDCG@3"]
    d = [1 / math.log2(r + 1) for r in (1, 2, 3)]
    assert got == pytest.approx((2 * d[0] + 2 * d[1] + 1 * d[2]) / (2 * d[0] + 1.5 * d[1] + 1.5 * d[2]), abs=1e-12)
    assert got == pytest.approx(want, abs=1e-12) and got > 1
    # renaming d1 <-> d3 changes which item wins the tie, and so the ideal
    swap = {"d1": "d3", "d3": "d1"}
    rows2 = [(q, s, swap.get(i, i), g) for q, s, i, g in rows]
    assert _ours(rows2, run, ["alpha-nDCG@3"])["q"]["alpha-nDCG@3"] == pytest.approx(
        _ndeval(rows2, run, ["alpha-nDCG@3"])["q"]["alpha-nDCG@3"], abs=1e-12)


@settings(max_examples=60)
@given(data=subtopic_data(), rel=st.sampled_from([1, 2]))
def test_at_rank_one_ndeval_leaves_err_ia_and_alpha_dcg_undivided(data, rel) -> None:
    """ndeval divides by |S| (its "ideal ideal") from rank 2 on only: at k = 1 its ERR-IA and alpha-DCG are
    |S| times rankmeter's; the other forms agree at k = 1."""
    rows, run = data
    want = _ndeval(rows, run, ["ERR-IA@1", "alpha-DCG@1", "nERR-IA@1", "alpha-nDCG@1", "P-IA@1", "strec@1"], rel)
    texts = [f"err_ia(rel={rel})@1", f"alpha_dcg(rel={rel})@1", f"nerr_ia(rel={rel})@1", f"alpha_ndcg(rel={rel})@1",
             f"p_ia(rel={rel})@1", f"strec(rel={rel})@1"]
    got = _ours(rows, run, texts)
    from .reference import actual, by_query

    judged = by_query(rows)
    for q in want:
        n_sub = len(actual(judged[q], rel))
        assert got[q][texts[0]] * n_sub == pytest.approx(want[q]["ERR-IA@1"], abs=1e-9)
        assert got[q][texts[1]] * n_sub == pytest.approx(want[q]["alpha-DCG@1"], abs=1e-9)
        for t, nd in zip(texts[2:], ["nERR-IA@1", "alpha-nDCG@1", "P-IA@1", "strec@1"]):
            assert got[q][t] == pytest.approx(want[q][nd], abs=1e-9)


def test_names_of_ndeval_and_ir_measures_are_aliases() -> None:
    for text, canonical in [("alpha-nDCG@20", "alpha_ndcg@20"), ("ERR-IA@20", "err_ia@20"),
                            ("nERR-IA@20", "nerr_ia@20"), ("alpha-DCG@20", "alpha_dcg@20"), ("NRBP", "nrbp"),
                            ("nNRBP", "nnrbp"), ("P-IA@20", "p_ia@20"), ("MAP-IA", "ap_ia"), ("strec@20", "strec@20"),
                            ("alpha_nDCG(alpha=0.7)@10", "alpha_ndcg(alpha=0.7)@10"), ("ERR_IA@10", "err_ia@10"),
                            ("nERR_IA(rel=2)@5", "nerr_ia(rel=2)@5"), ("StRecall@10", "strec@10"),
                            ("P_IA@10", "p_ia@10"), ("AP_IA", "ap_ia"), ("alpha_DCG@5", "alpha_dcg@5"),
                            ("NRBP(alpha=0.5,beta=0.8)", "nrbp(beta=0.8)")]:
        assert rankmeter.parse_metric(text).canonical == canonical, text


def _traditional(run):
    """NIST ndeval's -traditional order, read from its documentation: score descending, then docno descending
    (strcmp, i.e. UTF-8 bytes), given to pyndeval as distinct scores (it breaks ties by docno ascending)."""
    out = {}
    for q, r in run.items():
        ranked = sorted(r, key=lambda d: (-r[d], tuple(-b for b in d.encode()) + (1,)))
        out[q] = {d: float(len(ranked) - n) for n, d in enumerate(ranked)}
    return out


@settings(max_examples=100)
@given(data=subtopic_data(ties=True), k=st.integers(2, 20))
def test_tied_scores_rank_as_ndeval_traditional(data, k) -> None:
    """Tied scores: rankmeter ranks them as ndeval -traditional (and trec_eval) do, item id descending."""
    rows, run = data
    texts = _texts(k, 1, 0.5, 0.5)
    want = _ndeval(rows, _traditional(run), list(texts.values()))
    got = _ours(rows, run, list(texts))
    for q in want:
        for text, nd in texts.items():
            if not math.isnan(want[q][nd]):
                assert got[q][text] == pytest.approx(want[q][nd], abs=1e-6), f"query {q}: {text}"


def test_ties_pyndeval_breaks_the_other_way() -> None:
    """pyndeval (and so ir_measures) sorts tied scores by docno ascending before calling ndeval; NIST ndeval's
    -traditional order, trec_eval's and rankmeter's is docno descending. With B and A tied, ndeval -traditional
    ranks B first."""
    rows = [("q", "1", "A", 1), ("q", "2", "B", 1), ("q", "1", "B", 1)]
    run = {"q": {"A": 1.0, "B": 1.0}}
    got = _ours(rows, run, ["alpha-nDCG@1", "strec@1"])["q"]
    assert got == {"alpha-nDCG@1": 1.0, "strec@1": 1.0}  # B first: both subtopics at rank 1
    assert _ndeval(rows, _traditional(run), ["strec@1"])["q"]["strec@1"] == 1.0
    assert _ndeval(rows, run, ["strec@1"])["q"]["strec@1"] == 0.5  # pyndeval as is: A first


def test_order_rank_is_ndeval_default() -> None:
    """ndeval's default sorts a run by its rank column: order='rank' reads the ranks as written."""
    rows = [("q", "1", "A", 1), ("q", "2", "B", 1), ("q", "1", "B", 1)]
    ranked = rankmeter.evaluate(_qrels(rows), rankmeter.data.Run.from_columns(["q", "q"], ["B", "A"], None,
                                                                              rank=[2, 1], order="rank"),
                                ["strec@1"])
    assert ranked.values["strec@1"].tolist() == [0.5]  # A at rank 1, though B sorts first by id
