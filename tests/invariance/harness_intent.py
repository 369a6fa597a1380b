"""Invariance harness of the intent-aware metrics (family ``intent``, tag ``subtopics``).

They read judgments by subtopic, which the ranking harness's data lacks, so
``check_spec(spec)`` draws its own: ``{query: {subtopic: {item: grade}}}`` and runs with
score ties. For every parameter case it checks, on random cases:

* the kernel equals the slow reference of tests/intent/reference.py on every query;
* inputs are not modified; values do not depend on the query order, on the other
  queries of the batch, on an order-preserving renaming of items (ties kept), on any
  renaming of items once ties are gone, or on any renaming of subtopics;
* every input form gives the same values: TREC text (``query subtopic item grade``),
  CSV, Parquet, a pandas DataFrame and the dict form; a run given as explicit lists in
  the tie order gives the same values as the scores (the tie rule);
* values lie within the declared bounds; a cutoff past every list equals no cutoff
  (unless the cutoff enters the formula, ``k_scaled``); ``monotone_k`` metrics do not
  decrease with k.
"""

from __future__ import annotations

import copy
import math
import tempfile
import zlib
from pathlib import Path
from typing import Any, Mapping

import numpy as np

import rankmeter
from rankmeter.data import Qrels
from rankmeter.io import as_qrels
from rankmeter.metrics.registry import MetricSpec

from ..intent.reference import reference
from ..strategies import ranked_items
from .harness_ranking import close, metric_text

N_CASES = 12
ITEMS = [f"d{i}" for i in range(8)] + ["D1", "é"]
SUBTOPICS = ["1", "2", "3", "10"]


def _cases(spec: MetricSpec) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = [{}]
    for p in spec.params:
        out.append({p.name: {"rel": 2.0, "alpha": 0.8, "beta": 0.3}[p.name]})
    return out


def random_case(rng: np.random.Generator) -> tuple[dict[str, dict[str, dict[str, float]]], dict[str, dict[str, float]]]:
    judged: dict[str, dict[str, dict[str, float]]] = {}
    run: dict[str, dict[str, float]] = {}
    for q in rng.choice(["q1", "q2", "q3", "Q4"], size=int(rng.integers(1, 4)), replace=False):
        q = str(q)
        side = rng.choice(["both", "both", "both", "qrels", "run"])
        if side in ("both", "qrels"):
            judged[q] = {str(s): {str(i): float(rng.choice([0, 1, 1, 2, -1]))
                                  for i in rng.choice(ITEMS, size=int(rng.integers(1, 5)), replace=False)}
                         for s in rng.choice(SUBTOPICS, size=int(rng.integers(1, 4)), replace=False)}
        if side in ("both", "run"):
            run[q] = {str(i): float(rng.choice([0.0, 1.0, 1.0, 2.0, 3.5]))
                      for i in rng.choice(ITEMS + ["u1", "u2"], size=int(rng.integers(1, 9)), replace=False)}
    if not judged:
        judged["q1"] = {"1": {"d0": 1.0}}
    return judged, run


def _rows(judged: Mapping[str, Mapping[str, Mapping[str, float]]]) -> list[tuple[str, str, str, float]]:
    return [(q, s, i, g) for q, per in judged.items() for s, js in per.items() for i, g in js.items()]


def _values(text: str, judged: Any, run: Any, **kw: Any) -> dict[str, float]:
    qrels = judged if isinstance(judged, Qrels) else as_qrels(judged, subtopics=True) \
        if isinstance(judged, dict) else rankmeter.read_qrels(judged, subtopics=True)
    res = rankmeter.evaluate(qrels, run, [text], **kw)
    return dict(zip(res.queries, res.values[text].tolist()))


def _same(a: dict[str, float], b: dict[str, float], what: str) -> None:
    assert a.keys() == b.keys(), f"{what}: queries {list(a)} != {list(b)}"
    for q in a:
        assert close(a[q], b[q]), f"{what}: query {q}: {a[q]} != {b[q]}"


def _forms(judged: dict, run: dict, tmp: Path) -> list[tuple[Any, Any, str]]:
    import pandas as pd
    import pyarrow as pa
    import pyarrow.parquet as pq

    rows = _rows(judged)
    trec = tmp / "q.txt"
    trec.write_text("".join(f"{q} {s} {i} {g:g}\n" for q, s, i, g in rows), encoding="utf-8")
    frame = pd.DataFrame(rows, columns=["topic", "subtopic", "docno", "rel"])
    frame.to_csv(tmp / "q.csv", index=False)
    pq.write_table(pa.Table.from_pandas(frame), tmp / "q.parquet")
    run_trec = tmp / "r.txt"
    run_trec.write_text("".join(f"{q} Q0 {d} {n} {s!r} t\n" for q, r in run.items()
                                for n, (d, s) in enumerate(r.items(), start=1)), encoding="utf-8")
    return [(trec, run_trec, "TREC text"), (tmp / "q.csv", run, "CSV"), (tmp / "q.parquet", run, "Parquet"),
            (as_qrels(frame, subtopics=True), run, "DataFrame"),
            (judged, {q: ranked_items(r) for q, r in run.items()}, "dict, run as explicit lists (tie rule)")]


def check_spec(spec: MetricSpec, n_cases: int = N_CASES, seed: int = 0) -> None:
    """Run every check on ``n_cases`` random cases per parameter setting; AssertionError on failure."""
    assert "subtopics" in spec.properties and spec.family == "intent"
    rng = np.random.default_rng([seed, zlib.crc32(spec.name.encode())])
    lo, hi = spec.bounds if spec.bounds is not None else (-math.inf, math.inf)
    with tempfile.TemporaryDirectory() as tmpdir:
        tmp = Path(tmpdir)
        for params in _cases(spec):
            full = {p.name: p.default for p in spec.params}
            full.update(params)
            for case in range(n_cases):
                judged, run = random_case(rng)
                k = [None, 1, 3, 5][int(rng.integers(0, 4))]
                text = metric_text(spec, params, k)
                before = copy.deepcopy((judged, run))
                got = _values(text, judged, run, queries="qrels")
                assert (judged, run) == before, f"{text}: an input was modified"
                for q, v in got.items():
                    want = reference(spec.name, ranked_items(run.get(q, {})), judged.get(q, {}), k, **full)
                    assert close(v, want, 1e-12), f"{text} {q}: kernel {v} != reference {want}"
                    assert lo - 1e-12 <= v <= hi + 1e-12, f"{text} {q}: {v} outside {spec.bounds}"
                got = _values(text, judged, run)
                # the query order, and the other queries of the batch
                _same(got, _values(text, dict(reversed(list(judged.items()))), dict(reversed(list(run.items())))),
                      f"{text}: query order")
                for q in got:
                    _same({q: got[q]}, _values(text, {q: judged[q]}, {q: run[q]} if q in run else {}),
                          f"{text}: query alone")
                # renamings: subtopics (any), items (order-preserving: ties kept), items once ties are gone
                sub = {s: f"st-{(zlib.crc32(s.encode()) % 97):02d}-{s}" for s in SUBTOPICS}
                _same(got, _values(text, {q: {sub[s]: js for s, js in per.items()} for q, per in judged.items()}, run),
                      f"{text}: subtopic renaming")
                pre = lambda d: "item/" + d  # noqa: E731
                _same(got, _values(text, {q: {s: {pre(i): g for i, g in js.items()} for s, js in per.items()}
                                          for q, per in judged.items()},
                                   {q: {pre(d): v for d, v in r.items()} for q, r in run.items()}),
                      f"{text}: item renaming keeping the byte order")
                ordered = {q: {d: float(-n) for n, d in enumerate(ranked_items(r))} for q, r in run.items()}
                base = _values(text, judged, ordered)
                _same(got, base, f"{text}: distinct scores in the tie order")
                if spec.name not in ("alpha_ndcg", "nerr_ia", "nnrbp"):
                    # (not the greedy-normalised forms: a renaming may change which item wins a tie of the ideal)
                    shuffle = {d: f"{(zlib.crc32(d.encode()) * 7919) % 1000:03d}-{d}" for d in ITEMS + ["u1", "u2"]}
                    _same(base, _values(text, {q: {s: {shuffle[i]: g for i, g in js.items()} for s, js in per.items()}
                                               for q, per in judged.items()},
                                        {q: {shuffle[d]: v for d, v in r.items()} for q, r in ordered.items()}),
                          f"{text}: any item renaming without ties")
                if case < 3 and run:
                    for q_in, r_in, form in _forms(judged, run, tmp):
                        _same(got, _values(text, q_in, r_in), f"{text}: {form}")
                if spec.cutoff and run:
                    longest = max(len(r) for r in run.values())
                    a = _values(metric_text(spec, params, longest + 5), judged, run)
                    if "k_scaled" not in spec.properties:
                        _same(a, _values(metric_text(spec, params, longest + 50), judged, run), f"{text}: k past lists")
                        _same(a, _values(metric_text(spec, params, None), judged, run), f"{text}: k past lists")
                if "monotone_k" in spec.properties and k is not None:
                    nxt = _values(metric_text(spec, params, k + 1), judged, run)
                    for q in got:
                        assert got[q] <= nxt[q] + 1e-12, f"{text} {q}: decreases from k={k} to k={k + 1}"
