"""Slow, obviously-correct definitions of the intent-aware metrics, one query at a time, and random data.

Written from the papers and ndeval's documented conventions, in plain Python (no numpy):
``judgments`` is ``{subtopic: {item: grade}}``, ``ranking`` a list of items best first.
"""

from __future__ import annotations

import math
from typing import Any, Mapping, Sequence

from hypothesis import strategies as st

Judgments = Mapping[str, Mapping[str, float]]


def actual(judgments: Judgments, rel: float) -> dict[str, set[str]]:
    """Each actual subtopic (one relevant item at least) and its relevant items."""
    out = {s: {i for i, g in js.items() if g >= rel} for s, js in judgments.items()}
    return {s: items for s, items in out.items() if items}


def gains(ranking: Sequence[str], subs: Mapping[str, set[str]], alpha: float) -> list[float]:
    """G(r) = sum over subtopics of the item of (1 - alpha)^(times the subtopic was seen above)."""
    seen = {s: 0 for s in subs}
    out = []
    for d in ranking:
        g = 0.0
        for s, items in subs.items():
            if d in items:
                g += (1 - alpha) ** seen[s]
                seen[s] += 1
        out.append(g)
    return out


def greedy_ideal(subs: Mapping[str, set[str]], alpha: float) -> list[str]:
    """ndeval's greedy ideal: best marginal gain at each rank, ties to the larger id (bytes)."""
    pool = sorted({i for items in subs.values() for i in items}, key=lambda i: i.encode(), reverse=True)
    weight = {s: 1.0 for s in subs}
    out = []
    while pool:
        best, best_gain = None, -1.0
        for d in pool:  # larger ids first: a strictly larger gain is needed to replace
            g = sum(weight[s] for s, items in subs.items() if d in items)
            if g > best_gain:
                best, best_gain = d, g
        out.append(best)
        pool.remove(best)
        for s, items in subs.items():
            if best in items:
                weight[s] *= 1 - alpha
    return out


def _top(ranking: Sequence[str], k: int | None) -> list[str]:
    return list(ranking if k is None else ranking[:k])


def _disc(r: int, kind: str) -> float:
    return 1 / math.log2(r + 1) if kind == "log2" else 1 / r


def _ideal_ideal(n_sub: int, depth: int, alpha: float, kind: str) -> float:
    return n_sub * sum((1 - alpha) ** (r - 1) * _disc(r, kind) for r in range(1, depth + 1))


def _cum(ranking: Sequence[str], subs: Mapping[str, set[str]], alpha: float, kind: str) -> float:
    return sum(g * _disc(r, kind) for r, g in enumerate(gains(ranking, subs, alpha), start=1))


def _div(a: float, b: float) -> float:
    return a / b if b > 0 else 0.0


def reference(name: str, ranking: Sequence[str], judgments: Judgments, k: int | None, rel: float = 1.0,
              alpha: float = 0.5, beta: float = 0.5) -> float:
    """The value of metric ``name`` (rankmeter's spec name) for one query."""
    subs = actual(judgments, rel)
    if not subs:
        return 0.0
    top = _top(ranking, k)
    depth = k if k is not None else len(ranking)
    ideal = _top(greedy_ideal(subs, alpha), k)
    if name in ("alpha_ndcg", "nerr_ia"):
        kind = "log2" if name == "alpha_ndcg" else "recip"
        return _div(_cum(top, subs, alpha, kind), _cum(ideal, subs, alpha, kind))
    if name in ("alpha_dcg", "err_ia"):
        kind = "log2" if name == "alpha_dcg" else "recip"
        return _div(_cum(top, subs, alpha, kind), _ideal_ideal(len(subs), depth, alpha, kind))
    if name in ("nrbp", "nnrbp"):
        run = sum(g * beta ** (r - 1) for r, g in enumerate(gains(top, subs, alpha), start=1))
        if name == "nrbp":
            return (1 - (1 - alpha) * beta) * run / len(subs)
        return _div(run, sum(g * beta ** (r - 1) for r, g in enumerate(gains(ideal, subs, alpha), start=1)))
    if name == "p_ia":
        return _div(sum(1 for d in top for items in subs.values() if d in items), depth * len(subs))
    if name == "ap_ia":
        total = 0.0
        for items in subs.values():
            hits, ap = 0, 0.0
            for r, d in enumerate(top, start=1):
                if d in items:
                    hits += 1
                    ap += hits / r
            total += ap / len(items)
        return total / len(subs)
    if name == "strec":
        return sum(1 for items in subs.values() if any(d in items for d in top)) / len(subs)
    raise KeyError(name)


NAMES = ["alpha_ndcg", "alpha_dcg", "err_ia", "nerr_ia", "nrbp", "nnrbp", "p_ia", "ap_ia", "strec"]
# ndeval's names (pyndeval's measure strings), by rankmeter name
NDEVAL = {"alpha_ndcg": "alpha-nDCG", "alpha_dcg": "alpha-DCG", "err_ia": "ERR-IA", "nerr_ia": "nERR-IA",
          "nrbp": "NRBP", "nnrbp": "nNRBP", "p_ia": "P-IA", "ap_ia": "MAP-IA", "strec": "strec"}
NO_CUTOFF = {"nrbp", "nnrbp", "ap_ia"}

ITEMS = [f"d{i}" for i in range(10)] + ["D1", "x", "é"]
SUBTOPICS = ["1", "2", "3", "4"]


@st.composite
def subtopic_data(draw: Any, ties: bool = False, max_queries: int = 3, items: Sequence[str] = ITEMS,
                  subtopics: Sequence[str] = SUBTOPICS) -> tuple[list[tuple[str, str, str, float]],
                                                                  dict[str, dict[str, float]]]:
    """(qrels rows (query, subtopic, item, grade), run {query: {item: score}}).

    Every query is judged; some are missing from the run; scores are distinct unless ``ties``.
    A small ``items`` pool with many ``subtopics`` makes ties in the greedy ideal ranking common.
    """
    qs = draw(st.lists(st.sampled_from(["q1", "q2", "q3", "10"]), min_size=1, max_size=max_queries, unique=True))
    rows: list[tuple[str, str, str, float]] = []
    run: dict[str, dict[str, float]] = {}
    for q in qs:
        subs = draw(st.lists(st.sampled_from(subtopics), min_size=1, max_size=len(subtopics), unique=True))
        for s in subs:
            judged = draw(st.dictionaries(st.sampled_from(items), st.sampled_from([0, 0, 1, 1, 2]), min_size=1,
                                          max_size=6))
            rows += [(q, s, i, float(g)) for i, g in judged.items()]
        if draw(st.integers(0, 5)) > 0:
            ranked = draw(st.lists(st.sampled_from(list(items) + ["unjudged"]), min_size=1, max_size=12, unique=True))
            if ties:
                scores = [float(draw(st.integers(0, 3))) for _ in ranked]
            else:
                order = draw(st.permutations(range(len(ranked))))
                scores = [float(len(ranked) - o) for o in order]
            run[q] = dict(zip(ranked, scores))
    return rows, run


def by_query(rows: list[tuple[str, str, str, float]]) -> dict[str, dict[str, dict[str, float]]]:
    out: dict[str, dict[str, dict[str, float]]] = {}
    for q, s, i, g in rows:
        out.setdefault(q, {}).setdefault(s, {})[i] = g
    return out
