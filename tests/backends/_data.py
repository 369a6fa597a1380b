"""Random judgments and runs for the backend agreement tests, and the metric list.

The data has what breaks careless engines: equal scores (broken by item id
descending), 0.0 and -0.0, graded and negative judgments, judged queries missing from
the run and run queries without judgments, queries without a relevant item, item
ids that differ only in their middle bytes (longer than 16 bytes), upper and lower
case, non-ASCII ids, and lists of very different lengths.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.csv as pacsv
import pyarrow.parquet as pq

from rankmeter.metrics.registry import MetricSpec, all_specs

_ITEMS = (
    [f"d{i}" for i in range(40)]
    + ["D1", "d#1", "x", "é", "ü2", "doc-" + "a" * 30 + "-1", "doc-" + "a" * 30 + "-2",
       "prefix-000000-middle-A-suffix-00", "prefix-000000-middle-B-suffix-00", "10", "9", "09"]
)


def random_data(seed: int, n_queries: int = 40, max_len: int = 30) -> tuple[pa.Table, pa.Table]:
    """(qrels table: query, item, grade; run table: query, item, score), rows shuffled."""
    rng = np.random.default_rng(seed)
    qrows: list[tuple[str, str, float]] = []
    rrows: list[tuple[str, str, float]] = []
    for qn in range(n_queries):
        q = f"q{qn}" if qn % 7 else f"Q-{qn}-é"
        side = rng.choice(["both"] * 6 + ["qrels", "run"])
        if side in ("both", "qrels"):
            m = int(rng.integers(1, 12))
            for it in rng.choice(_ITEMS, size=m, replace=False):
                g = float(rng.choice([-1, 0, 0, 1, 1, 2, 3, 4]))
                qrows.append((q, str(it), g))
        if side in ("both", "run"):
            m = int(rng.integers(0 if side == "both" else 1, max_len))
            for it in rng.choice(_ITEMS, size=min(m, len(_ITEMS)), replace=False):
                s = float(rng.choice([0.0, -0.0, 0.5, 1.0, 1.0, 2.0, 3.25, -1.0, rng.normal()]))
                rrows.append((q, str(it), s))
    qorder = rng.permutation(len(qrows))
    rorder = rng.permutation(len(rrows))
    qrels = pa.table({
        "query": [qrows[i][0] for i in qorder], "item": [qrows[i][1] for i in qorder],
        "grade": pa.array([qrows[i][2] for i in qorder], pa.float64())})
    run = pa.table({
        "query": [rrows[i][0] for i in rorder], "item": [rrows[i][1] for i in rorder],
        "score": pa.array([rrows[i][2] for i in rorder], pa.float64())})
    return qrels, run


def grouped(run: pa.Table, seed: int = 0) -> pa.Table:
    """The rows grouped by query (queries in a random order, rows within a query shuffled)."""
    rng = np.random.default_rng(seed)
    qs = run.column("query").to_pylist()
    uniq = sorted(set(qs))
    rank = {q: r for q, r in zip(uniq, rng.permutation(len(uniq)))}
    key = np.array([rank[q] for q in qs]) * 1.0 + rng.random(len(qs)) * 0.5
    return run.take(pa.array(np.argsort(key, kind="stable")))


def write_trec(run: pa.Table, path: Path) -> Path:
    lines = [f"{q}\tQ0 {i} {n + 1} {s!r} tag" for n, (q, i, s) in enumerate(zip(
        run.column("query").to_pylist(), run.column("item").to_pylist(), run.column("score").to_pylist()))]
    path.write_text("# a comment line\n" + "\n".join(lines) + "\n", encoding="utf-8")
    return path


def write_parquet(run: pa.Table, path: Path, row_group_size: int = 17) -> Path:
    pq.write_table(run, path, row_group_size=row_group_size)
    return path


def write_csv(run: pa.Table, path: Path) -> Path:
    pacsv.write_csv(run, path)
    return path


def context_for(qrels: pa.Table, run: pa.Table) -> dict[str, Any]:
    """A context with every item fact the beyond-accuracy metrics read."""
    items = sorted(set(qrels.column("item").to_pylist()) | set(run.column("item").to_pylist()) | set(_ITEMS))
    rng = np.random.default_rng(7)
    users = sorted(set(qrels.column("query").to_pylist()) | set(run.column("query").to_pylist()))
    test: dict[str, list[str]] = {}
    for q, i, g in zip(qrels.column("query").to_pylist(), qrels.column("item").to_pylist(),
                       qrels.column("grade").to_pylist()):
        if g >= 1:
            test.setdefault(q, []).append(i)
    pop = {i: float(v) for i, v in zip(items, rng.integers(1, 50, size=len(items)) / 50.0)}
    return {
        "popularity": pop,
        "popularity_interactions": {i: v / 2 for i, v in pop.items()},
        "n_users": 50,
        "n_interactions": 400,
        "catalog": items[: len(items) - 3],
        "all_items": items,
        "features": {i: rng.random(4) for i in items},
        "categories": {i: {f"c{int(j)}" for j in rng.integers(0, 4, size=2)} for i in items},
        "propensity": {i: v / 2 for i, v in pop.items()},  # observation propensities (metrics/unbiased)
        "item_groups": {i: f"g{int(j)}" for i, j in zip(items, rng.integers(0, 3, size=len(items)))},
        # per-user profiles (pop_lift, miscalibration, pop_rsp, pop_reo): every user has training items
        "train_items": {u: [str(i) for i in rng.choice(items, size=int(rng.integers(1, 8)), replace=False)]
                        for u in users},
        "test_items": test,
    }


def param_variants(spec: MetricSpec) -> list[dict[str, Any]]:
    """The default, and every non-default choice of each choice-parameter."""
    out: list[dict[str, Any]] = [{}]
    for p in spec.params:
        if p.choices:
            out += [{p.name: c} for c in p.choices if c != p.default]
        elif p.type is bool:
            out.append({p.name: not p.default})
    return out


def metric_texts(spec: MetricSpec, ks: tuple[int, ...] = (5,)) -> list[str]:
    """Metric strings covering a spec: each parameter variant, without a cutoff and with each k."""
    out = []
    for params in param_variants(spec):
        inner = ",".join(f"{k}={str(v).lower() if isinstance(v, bool) else v}" for k, v in params.items())
        base = spec.name + (f"({inner})" if inner else "")
        out.append(base)
        if spec.cutoff:
            out += [f"{base}@{k}" for k in ks]
    return out


def ranking_specs() -> list[MetricSpec]:
    # the intent-aware metrics read judgments by subtopic, which this data lacks: tests/intent/test_engines.py
    # checks them in every engine
    return [s for s in all_specs() if s.input == "ranking" and "subtopics" not in s.properties]


def other_specs() -> list[MetricSpec]:
    return [s for s in all_specs() if s.input != "ranking"]
