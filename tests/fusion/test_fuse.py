"""rankmeter.fuse: hand-worked cases, plain-Python readings of the papers, the missing-document table,
invariance to the input's row order, and the errors."""

from __future__ import annotations

import math
import random
from functools import cmp_to_key
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rankmeter
from rankmeter import ParameterError, Run
from rankmeter.fusion import METHODS, NORMS, fuse
from rankmeter.fusion.methods import MIN_LOG_ODDS

from ..strategies import ranked_items

# --------------------------------------------------------------------------- plain-Python references

Runs = list[dict[str, dict[str, float]]]


def _order(scores: dict[str, float]) -> list[str]:
    return ranked_items(scores)


def rrf_reference(runs: Runs, k: float = 60) -> dict[str, dict[str, float]]:
    """Cormack, Clarke and Büttcher 2009: RRFscore(d) = sum over rankings r of 1 / (k + r(d))."""
    out: dict[str, dict[str, float]] = {}
    for run in runs:
        for q, scored in run.items():
            fused = out.setdefault(q, {})
            for rank, d in enumerate(_order(scored), start=1):
                fused[d] = fused.get(d, 0.0) + 1.0 / (k + rank)
    return out


def condorcet_reference(runs: Runs, weights: list[float] | None = None) -> dict[str, list[str]]:
    """Montague and Aslam 2002: sort the candidates with the pairwise majority as the comparison (a run
    ranks its documents above those it did not retrieve, abstains on two it did not retrieve; no
    majority: the tie rule); the candidates start in the tie rule's order (id descending)."""
    out: dict[str, list[str]] = {}
    for q in dict.fromkeys(q for run in runs for q in run):
        cands = sorted({d for run in runs for d in run.get(q, {})}, key=lambda d: d.encode(), reverse=True)
        out[q] = sorted(cands, key=cmp_to_key(majority(runs, q, weights)))
    return out


def majority(runs: Runs, q: str, weights: list[float] | None = None) -> Any:
    """The pairwise comparison of query q's candidates: -1 when the (weighted) majority puts x first."""
    w = weights or [1.0] * len(runs)
    ranks = [{d: i for i, d in enumerate(_order(run.get(q, {})))} for run in runs]

    def cmp(x: str, y: str) -> int:
        votes = 0.0
        for wj, r in zip(w, ranks, strict=True):
            rx, ry = r.get(x, math.inf), r.get(y, math.inf)
            votes += wj if rx < ry else (-wj if ry < rx else 0.0)
        if votes == 0:  # no majority: the tie rule, the larger id (bytes) first
            return -1 if x.encode() > y.encode() else 1
        return -1 if votes > 0 else 1

    return cmp


# --------------------------------------------------------------------------- strategies

ITEMS = ["a", "b", "c", "d", "e", "B", "d10", "d9"]
TIED = st.sampled_from([0.0, 1.0, 1.0, 2.0, 2.5, -1.0])


@st.composite
def tied_runs(draw: Any, n_runs: int = 3) -> Runs:
    runs = []
    for _ in range(n_runs):
        qs = draw(st.lists(st.sampled_from(["q1", "q2", "q3"]), min_size=1, max_size=3, unique=True))
        runs.append({q: draw(st.dictionaries(st.sampled_from(ITEMS), TIED, min_size=1, max_size=7)) for q in qs})
    return runs


PARAMS: dict[str, dict[str, Any]] = {
    "gmnz": {"gamma": 0.5}, "rbc": {"phi": 0.7},
    "probfuse": {"probs": [[0.5, 0.3, 0.1]] * 3}, "segfuse": {"probs": [[0.4] * 10, [0.2] * 10, [0.3] * 10]},
    "slidefuse": {"probs": [[0.6, 0.4, 0.3, 0.2]] * 3, "w": 1}, "posfuse": {"probs": [[0.6, 0.4, 0.3, 0.2]] * 3},
    "bayesfuse": {"log_odds": [[1.0, 0.5, 0.0, -0.5]] * 3}, "mapfuse": {"map_scores": [0.3, 0.2, 0.25]},
}
WEIGHTS = [0.5, 0.2, 0.3]


def _fuse(runs: Any, method: str, norm: str | None = "min-max", **kw: Any) -> Run:
    spec = next(m for m in METHODS if m.name == method)
    return fuse(runs, method, norm=norm, params=PARAMS.get(method), weights=WEIGHTS if spec.weighted else None, **kw)


def _shuffled(run: dict[str, dict[str, float]], rng: random.Random) -> Run:
    rows = [(q, d, s) for q, scored in run.items() for d, s in scored.items()]
    rng.shuffle(rows)
    return Run.from_columns([r[0] for r in rows], [r[1] for r in rows], [r[2] for r in rows])


# --------------------------------------------------------------------------- properties

@settings(max_examples=40)
@given(tied_runs(), st.integers(0, 2**32 - 1))
def test_every_method_ignores_the_input_row_order(runs: Runs, seed: int) -> None:
    """On tied inputs, every permutation of every run's rows gives the same fused run, bit for bit."""
    rng = random.Random(seed)
    for method in (m.name for m in METHODS):
        for norm in ("min-max", "borda", "min-max-inverted"):
            a = _fuse(runs, method, norm)
            b = _fuse([_shuffled(r, rng) for r in runs], method, norm)
            # (queries come in order of first appearance, which a shuffle may change: compare query by query)
            assert a.to_dict() == b.to_dict(), (method, norm)  # the same scores, bit for bit
            assert a.to_lists() == b.to_lists(), (method, norm)
            lists = a.to_lists()
            assert all(list(a.to_dict()[q]) == lists[q] for q in lists)


@settings(max_examples=60)
@given(tied_runs(), st.sampled_from([0, 1, 60, 2.5]))
def test_rrf_equals_cormack_et_al(runs: Runs, k: float) -> None:
    expected = rrf_reference(runs, k)
    got = fuse(runs, "rrf", k=k).to_dict()
    assert list(got) == list(expected)
    for q, scored in expected.items():
        assert list(got[q]) == ranked_items(scored), q  # the tie rule on the fused scores
        for d, s in scored.items():
            assert got[q][d] == pytest.approx(s, rel=1e-12)


@settings(max_examples=60)
@given(tied_runs(), st.booleans())
def test_condorcet_equals_montague_and_aslam(runs: Runs, weighted: bool) -> None:
    weights = WEIGHTS if weighted else None
    expected = condorcet_reference(runs, weights)
    got = fuse(runs, "w_condorcet" if weighted else "condorcet", weights=weights).to_lists()
    assert got == expected
    for q, ranked in got.items():  # a path through the majority graph: each document beats the next
        cmp = majority(runs, q, weights)
        assert all(cmp(x, y) == -1 for x, y in zip(ranked, ranked[1:], strict=False))


@settings(max_examples=40)
@given(st.permutations(ITEMS), st.permutations(ITEMS), st.permutations(ITEMS))
def test_condorcet_gives_the_majority_order_where_the_majority_is_transitive(o1: list[str], o2: list[str],
                                                                             o3: list[str]) -> None:
    orders = (o1, o2, o3)
    runs = [{"q": {d: float(len(o) - i) for i, d in enumerate(o)}} for o in orders]
    wins = {d: sum(sum(o.index(d) < o.index(e) for o in orders) >= 2 for e in ITEMS if e != d) for d in ITEMS}
    if sorted(wins.values()) != list(range(len(ITEMS))):
        return  # a cycle: no Condorcet order to compare with
    assert fuse(runs, "condorcet").to_lists()["q"] == sorted(ITEMS, key=lambda d: -wins[d])


def test_condorcet_is_the_same_in_every_process() -> None:
    """ranx's condorcet orders candidates from a Python set (hash-seeded): ours does not depend on it."""
    import subprocess
    import sys

    code = ("import rankmeter; r = [{'q': {'a': 3, 'b': 2, 'c': 1}}, {'q': {'b': 3, 'c': 2, 'a': 1}}, "
            "{'q': {'c': 3, 'a': 2, 'b': 1}}]; print(rankmeter.fuse(r, 'condorcet').to_lists())")
    outs = {subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                           env={"PYTHONHASHSEED": str(s), "PATH": ""}).stdout for s in (1, 2, 3)}
    # a cycle (a beats b, b beats c, c beats a): one answer, the stable sort's from the id order c, b, a
    assert outs == {"{'q': ['a', 'b', 'c']}\n"}
    r: Runs = [{"q": {"a": 3, "b": 2, "c": 1}}, {"q": {"b": 3, "c": 2, "a": 1}}, {"q": {"c": 3, "a": 2, "b": 1}}]
    assert condorcet_reference(r) == {"q": ["a", "b", "c"]}


# --------------------------------------------------------------------------- the missing-document table

A = {"q": {"a": 3.0, "x": 2.0, "c": 1.0}}  # min-max: a 1, x 0.5, c 0; positions a 1, x 2, c 3
B = {"q": {"c": 5.0, "a": 4.0}}  # x missing; N = 3 candidates, B retrieved n = 2
MISSING: dict[str, tuple[dict[str, Any], float]] = {
    # method: (fuse arguments, x's fused score: A's part alone, or with B's stated contribution)
    "sum": ({}, 0.5), "mnz": ({}, 0.5 * 1), "anz": ({}, 0.5 / 1), "gmnz": ({"params": {"gamma": 2}}, 0.5),
    "max": ({}, 0.5), "min": ({}, 0.5), "med": ({}, 0.5),
    "wsum": ({"weights": [0.3, 0.7]}, 0.15), "wmnz": ({"weights": [0.3, 0.7]}, 0.5 * 0.3),
    "mixed": ({"weights": [0.3, 0.7]}, 0.15 * 1),
    "rrf": ({}, 1 / 62), "isr": ({}, 0.25 * 1), "log_isr": ({}, 0.0), "logn_isr": ({}, 0.25 * math.log(1.01)),
    "rbc": ({"params": {"phi": 0.5}}, 0.5 * 0.5),
    "bordafuse": ({}, 2 + (3 - 2 + 1) / 2), "w_bordafuse": ({"weights": [1, 2]}, 2 + 2 * (3 - 2 + 1) / 2),
    "probfuse": ({"params": {"probs": [[0.8, 0.4], [0.6, 0.2]]}}, 0.8),
    "segfuse": ({"params": {"probs": [[0.5] * 10, [0.25] * 10]}}, 0.5 * 1.5),
    "posfuse": ({"params": {"probs": [[0.8, 0.4, 0.2], [0.6, 0.3]]}}, 0.4),
    "slidefuse": ({"params": {"probs": [[0.8, 0.4, 0.2], [0.6, 0.3]], "w": 0}}, 0.4),
    "bayesfuse": ({"params": {"log_odds": [[1.0, 0.5, 0.0], [2.0, -1.0]]}}, 0.5 + MIN_LOG_ODDS),
    "mapfuse": ({"params": {"map_scores": [0.4, 0.2]}}, 0.4 / 2),
}


@pytest.mark.parametrize("method", sorted(m.name for m in METHODS))
def test_a_document_missing_from_a_run_counts_as_the_table_says(method: str) -> None:
    if method in ("condorcet", "w_condorcet"):
        # x above a in one run, a above x in another; the third run has a but not x: it votes for a (had it
        # abstained, the tie rule would put x, the larger id, first)
        w3: dict[str, Any] = {"weights": [1, 1, 1]} if method == "w_condorcet" else {}
        w2: dict[str, Any] = {"weights": [1, 1]} if method == "w_condorcet" else {}
        runs = [{"q": {"x": 2.0, "a": 1.0}}, {"q": {"a": 1.0}}, {"q": {"a": 2.0, "x": 1.0}}]
        assert fuse(runs, method, **w3).to_lists()["q"] == ["a", "x"]
        assert fuse([runs[0], runs[2]], method, **w2).to_lists()["q"] == ["x", "a"]
        return
    kw, expected = MISSING[method]
    assert fuse([A, B], method, **kw).to_dict()["q"]["x"] == pytest.approx(expected, rel=1e-12)


def test_the_borda_normalisation_scores_the_documents_a_run_missed() -> None:
    # A: x at position 2 of N = 3: 1 - 1/3; B (n = 2) gives the points left: (N - n + 1) / 2N = 1/3
    assert fuse([A, B], "sum", norm="borda").to_dict()["q"]["x"] == pytest.approx(2 / 3 + 1 / 3)
    # and the count of CombMNZ then includes B (it scored x)
    assert fuse([A, B], "mnz", norm="borda").to_dict()["q"]["x"] == pytest.approx(2 * (2 / 3 + 1 / 3))


def test_mnz_counts_retrieving_runs_and_count_nonzero_counts_non_zero_scores() -> None:
    # c is last in A (min-max 0) and first in B (1): retrieved by 2, non-zero in 1
    assert fuse([A, B], "mnz").to_dict()["q"]["c"] == pytest.approx(1.0 * 2)
    assert fuse([A, B], "mnz(count=nonzero)").to_dict()["q"]["c"] == pytest.approx(1.0 * 1)
    assert fuse([A, B], "mnz", params={"count": "nonzero"}).to_dict() == fuse([A, B], "mnz(count=nonzero)").to_dict()


def test_queries_are_the_union_and_the_notes_say_which_run_lacked_some() -> None:
    fused = fuse({"A": A, "B": {"p": {"z": 1.0}, **B}}, "rrf")
    assert fused.to_lists() == {"q": ["a", "c", "x"], "p": ["z"]}
    assert any("'A' has no document for 1 of the 2 queries" in n for n in fused.notes)


def test_depth_cuts_each_query() -> None:
    assert fuse([A, B], "rrf", depth=2).to_lists() == {"q": ["a", "c"]}


@pytest.mark.parametrize("method", [m for m in METHODS])
def test_every_alias_is_the_method(method: Any) -> None:
    kw = MISSING.get(method.name, ({}, 0))[0]
    if method.name == "w_condorcet":
        kw = {"weights": [1, 2]}
    ref = fuse([A, B], method.name, **kw).to_dict()
    for alias in method.aliases:
        assert fuse([A, B], alias, **kw).to_dict() == ref, alias


@pytest.mark.parametrize("norm", [n.name for n in NORMS] + [None])
def test_every_normalisation_by_name_and_alias(norm: str | None) -> None:
    ref = fuse([A, B], "sum", norm=norm).to_dict()
    spec = next(n for n in NORMS if n.name == (norm or "none"))
    for alias in spec.aliases:
        assert fuse([A, B], "sum", norm=alias).to_dict() == ref


def test_hand_worked_normalisations() -> None:
    one = [{"q": {"a": 4.0, "b": 2.0, "c": 1.0}}]
    got = {n: fuse(one, "sum", norm=n).to_dict()["q"] for n in ("min-max", "min-max-inverted", "max", "sum", "rank")}
    assert got["min-max"] == pytest.approx({"a": 1.0, "b": 1 / 3, "c": 0.0})
    assert got["min-max-inverted"] == pytest.approx({"a": 0.0, "b": 2 / 3, "c": 1.0})
    assert got["max"] == pytest.approx({"a": 1.0, "b": 0.5, "c": 0.25})
    assert got["sum"] == pytest.approx({"a": 3 / 4, "b": 1 / 4, "c": 0.0})  # (s - min) / (7 - 3 * 1)
    assert got["rank"] == pytest.approx({"a": 1.0, "b": 2 / 3, "c": 1 / 3})
    z = fuse(one, "sum", norm="zmuv").to_dict()["q"]
    m, sd = 7 / 3, float(np.std([4.0, 2.0, 1.0]))
    assert z == pytest.approx({d: (s - m) / sd for d, s in one[0]["q"].items()})
    # inverted: the lowest score ranks first, so position-based methods read the run the other way
    assert fuse(one, "rrf", norm="min-max-inverted").to_lists()["q"] == ["c", "b", "a"]


def test_runs_as_files_and_names(tmp_path: Any) -> None:
    p = tmp_path / "a.run"
    p.write_text("q Q0 a 1 3 s\nq Q0 x 2 2 s\nq Q0 c 3 1 s\n")
    assert fuse({"bm25": str(p), "dense": B}, "rrf").to_dict() == fuse([A, B], "rrf").to_dict()
    assert rankmeter.fuse is fuse


# --------------------------------------------------------------------------- errors

@pytest.mark.parametrize("method", ["probfuse", "segfuse", "slidefuse", "posfuse", "bayesfuse", "mapfuse"])
def test_a_supervised_method_without_params_names_fuse_optimize(method: str) -> None:
    with pytest.raises(ParameterError, match="fuse_optimize"):
        fuse([A, B], method)


@pytest.mark.parametrize(("kw", "match"), [
    ({"method": "nope"}, "'method' parameter of fuse must be one of rrf, sum"),
    ({"method": "wsum", "weights": [1]}, "one finite number per run \\(2 runs\\)"),
    ({"method": "rrf", "weights": [1, 1]}, "applies to the weighted methods"),
    ({"method": "sum", "k": 10}, "sum has no k"),
    ({"method": "rrf", "k": -1}, "'k' parameter of rrf must be a finite number >= 0"),
    ({"method": "gmnz"}, "needs its 'gamma' parameter"),
    ({"method": "rbc", "params": {"phi": 1.0}}, "'phi' parameter of rbc must be a finite number in the range "
                                                "\\(0, 1\\)"),
    ({"method": "mnz(count=some)"}, "'count' parameter of mnz must be one of retrieved, nonzero"),
    ({"method": "rrf", "params": {"gamma": 1}}, "rrf takes no parameter 'gamma'"),
    ({"method": "rrf", "norm": "l2"}, "'norm' parameter of fuse must be one of"),
    ({"method": "rrf", "depth": 0}, "'depth' parameter of fuse must be an int >= 1"),
    ({"method": "wsum", "weights": {"A": 1, "C": 2}}, "names 'C', which is not a run"),
    ({"method": "probfuse", "params": {"probs": [[0.5]]}}, "one array of finite numbers per run \\(2 runs\\)"),
])
def test_errors_say_what_was_expected(kw: dict[str, Any], match: str) -> None:
    with pytest.raises(ParameterError, match=match):
        fuse({"A": A, "B": B}, **kw)


def test_no_runs_is_an_error() -> None:
    with pytest.raises(ParameterError, match="at least one run"):
        fuse([], "rrf")


def test_weights_by_name_and_the_default_weights_noted() -> None:
    by_name = fuse({"A": A, "B": B}, "wsum", weights={"B": 0.7, "A": 0.3}).to_dict()
    assert by_name == fuse([A, B], "wsum", weights=[0.3, 0.7]).to_dict()
    assert any("each run weighs 1" in n for n in fuse([A, B], "wsum").notes)


def test_fuse_optimize_is_also_fuse_dot_optimize() -> None:
    assert rankmeter.fuse.optimize is rankmeter.fuse_optimize  # type: ignore[attr-defined]


def test_the_inputs_notes_reach_the_fused_run(tmp_path: Any) -> None:
    (tmp_path / "r.run").write_text("q Q0 a 1 2 s\nq Q0 a 2 1 s\n")
    fused = fuse({"r": str(tmp_path / "r.run"), "A": A}, "rrf", duplicates="max")
    assert "r: 1 duplicate (query, item) rows were removed by the duplicates policy" in fused.notes
    assert not any(n.startswith("A:") for n in fused.notes)
