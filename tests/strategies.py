"""Hypothesis strategies for random judgments and runs, with ties, grades and gaps."""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

ITEMS = [f"d{i}" for i in range(12)] + ["D1", "d#1", "x"]
QUERIES = ["q1", "q2", "q3", "q10", "q2b"]
GRADES = st.sampled_from([-1, 0, 0, 1, 1, 2, 3])
SCORES = st.sampled_from([0.0, 0.5, 1.0, 1.0, 2.0, 3.5, -1.0])


@st.composite
def qrels_and_run(draw: Any, float_grades: bool = False, int_grades_only: bool = False) -> tuple[dict, dict]:
    """({q: {item: grade}}, {q: {item: score}}): queries may be missing from either side."""
    grade = st.floats(min_value=-1, max_value=3, allow_nan=False).map(lambda g: round(g, 2)) if float_grades else GRADES
    qs = draw(st.lists(st.sampled_from(QUERIES), min_size=1, max_size=4, unique=True))
    qrels: dict[str, dict[str, float]] = {}
    run: dict[str, dict[str, float]] = {}
    for q in qs:
        side = draw(st.sampled_from(["both", "both", "both", "qrels", "run"]))
        if side in ("both", "qrels"):
            judged = draw(st.dictionaries(st.sampled_from(ITEMS), grade, min_size=1, max_size=8))
            qrels[q] = judged
        if side in ("both", "run"):
            ranked = draw(st.dictionaries(st.sampled_from(ITEMS), SCORES, min_size=0, max_size=10))
            if ranked:
                run[q] = ranked
    if not qrels:
        qrels[qs[0]] = {ITEMS[0]: 1}
    return qrels, run


def ranked_items(scored: dict[str, float]) -> list[str]:
    """The tie rule, written independently: score descending, then item id descending (bytes)."""
    return [d for d, _ in sorted(scored.items(), key=lambda kv: (kv[1], kv[0].encode()), reverse=True)]
